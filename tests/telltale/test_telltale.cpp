// Telltale .anm/.skl: symbols, MetaStream, CSPK2 decode/encode, samples, glTF, hostile input.
#include <gtest/gtest.h>

#include <bit>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <optional>
#include <cmath>
#include <filesystem>
#include <random>
#include <set>

#include "core/byte_reader.hpp"
#include "core/failure.hpp"
#include "core/math.hpp"
#include "scene/pose.hpp"
#include "formats/telltale/anm.hpp"
#include "formats/telltale/common.hpp"
#include "formats/telltale/cspk2.hpp"
#include "formats/telltale/decode.hpp"
#include "formats/telltale/encode.hpp"
#include "formats/telltale/register.hpp"
#include "formats/telltale/skl.hpp"
#include "formats/telltale/symbols.hpp"
#include "formats/telltale/track_keys.hpp"
#include "rigrip/gltf.hpp"
#include "test_support.hpp"

using namespace rigrip;
using namespace rigrip::telltale;
namespace fs = std::filesystem;

namespace {

const char* anm_samples[] = {
    "a371340459.anm",
    "a371405036.anm",
    "sk20_idle_guybrushLyingHurt.anm",
    "sk54_idle_crawfordDocDead.anm",
    "sk61_peterQuillStandA_talkWithHandsGestureB.anm",
    "sk61_peterQuillStandA_talkWithHandsGestureJ_add.anm",
    "sk61_zombie400_sk62_action_clementine400KillZombieWithKnifeTwoHit05.anm",
    "sk61_zombie400_sk62_action_clementine400StruggleZombieSuccessKillWithKnife02.anm",
    "sk62_action_clementine400DropsTheTool.anm",
    "sk62_action_clementine400KillZombieWithKnifeTwoHit05.anm",
    "sk62_clementine400StandA_talkWithHandsGestureB.anm",
    "sk62_clementine400StandA_talkWithHandsGestureB_add.anm",
    "sk62_clementine400StandA_talkWithHandsGestureC_add.anm",
};
const char* broken_sample = "sk61_zombie400_sk62_action_clementine400StruggleZombieSuccessKillWithKnife02.anm";

std::string sample_dir() {
  auto p = test::sample("telltale/sk54_idle_crawfordDocDead.anm");
  return p ? fs::path(*p).parent_path().string() : std::string();
}

read_context make_ctx(const std::string& path, const bytes& data, diagnostics& d) {
  read_context ctx;
  ctx.path = path;
  ctx.data = data;
  ctx.diags = &d;
  ctx.load = [](const std::string& p) -> result<bytes> {
    if (!fs::is_regular_file(p)) return make_error(code::io_error, "missing " + p);
    return test::read_bytes(p);
  };
  return ctx;
}

const anm_value* pose_of(const animation_file& a) {
  for (const auto& v : a.values)
    if (v.kind == value_kind::cspk2) return &v;
  return nullptr;
}

// A skeleton for an animation, made by our writer: every CSPK2 bone, bone 0 the root,
// rest pose = the first key of each track (translations normalised, so |localPos| = 1
// when the first key is, else a unit vector along +Y).
bytes skeleton_for(const animation_file& a) {
  auto d = decode_cspk2(pose_of(a)->cspk2, 0);
  skeleton_file f;
  f.ms.classes = skeleton_class_table();
  for (std::size_t i = 0; i < d.bones.size(); ++i) {
    skl_entry e;
    e.joint = d.bones[i];
    e.parent_index = i ? 0 : -1;
    e.parent_name = i ? d.bones[0] : 0;
    e.local_pos[1] = 1;
    f.entries.push_back(e);
  }
  for (const auto& k : d.keys)
    if (k.t16 == 0) {
      auto& e = f.entries[k.bone];
      if (k.rotation) {
        float n = std::sqrt(k.value[0] * k.value[0] + k.value[1] * k.value[1] + k.value[2] * k.value[2] + k.value[3] * k.value[3]);
        for (int c = 0; c < 4; ++c) e.local_quat[c] = k.value[c] / n;
      } else if (std::fabs(k.value[0]) + std::fabs(k.value[1]) + std::fabs(k.value[2]) > 1e-4f) {
        for (int c = 0; c < 3; ++c) e.local_pos[c] = k.value[c];
      }
    }
  return write_skeleton(f);
}

}  // namespace

TEST(Symbols, Crc64CheckValueAndConstants) {
  EXPECT_EQ(crc64_raw("123456789"), 0x6C40DF5F0B497347ull);
  EXPECT_EQ(crc64("CompressedSkeletonPoseKeys2"), sym_cspk2);
  EXPECT_EQ(crc64("Animation"), sym_animation);
  EXPECT_EQ(crc64("Skeleton"), sym_skeleton);
  EXPECT_EQ(crc64("root"), sym_root);
  EXPECT_EQ(crc64("absoluteNode"), sym_absolute_node);
  EXPECT_EQ(crc64("SkeletonPose"), sym_skeleton_pose);
  EXPECT_EQ(crc64("KeyframedValue<Transform>"), 0x5D3E9FC6FA9369BFull);
  EXPECT_EQ(crc64("ROOT"), crc64("root"));  // case-insensitive
  EXPECT_EQ(symbol_label(crc64("wrist_L")), "wrist_L");
  EXPECT_EQ(symbol_label(0x0123456789abcdefull), "0123456789abcdef");
  EXPECT_EQ(symbol_of_label("0123456789abcdef"), 0x0123456789abcdefull);
  EXPECT_GT(symbol_database_size(), 1000u);
}

TEST(MetaStream, OldVersionsRefusedByName) {
  struct c {
    const char* bytes;
    const char* name;
  } cases[] = {{"ERTM", "MTRE"}, {"NIBM", "MBIN"}, {"SEBM", "MBES"}, {"4VSM", "MSV4"}};
  for (auto& x : cases) {
    bytes b(x.bytes, x.bytes + 4);
    b.resize(64, 0);
    diagnostics d;
    EXPECT_EQ(detect_anm(b, "walk.anm"), score::magic) << x.name;
    EXPECT_EQ(detect_anm(b, "walk.bin"), score::none) << x.name;
    auto r = read_anm(make_ctx("walk.anm", b, d));
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().code, code::unsupported_version);
    EXPECT_NE(r.error().message.find(x.name), std::string::npos) << r.error().message;
  }
  bytes enc = {0x64, 0x17, 0x4A, 0xFB};
  enc.resize(64, 0);
  diagnostics d;
  auto r = read_anm(make_ctx("x.anm", enc, d));
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("encrypted MBIN"), std::string::npos);
}

TEST(MetaStream, HandBuiltHeaderAndCompressedSection) {
  // 6VSM, default 0, debug 0, async 0, one class.
  metastream m;
  m.classes = {{sym_animation, 0x195C41F6u}};
  auto b = write_metastream(m);
  ASSERT_EQ(b.size(), 32u);
  EXPECT_EQ(std::string(b.begin(), b.begin() + 4), "6VSM");
  auto p = parse_metastream(b);
  EXPECT_TRUE(p.has_class(sym_animation));
  b[7] = 0x80;  // default section size bit 31: compressed
  EXPECT_THROW((void)parse_metastream(b), core::failure);
  try {
    (void)parse_metastream(b);
  } catch (const core::failure& f) {
    EXPECT_EQ(f.error().code, code::unsupported_feature);
  }
}

TEST(Cspk2, HandBuiltAbsoluteAndDeltaGroups) {
  // One bone; commands: Q absolute (ao 0), V absolute, ΔQ, ΔV. Values chosen so the
  // expected results are exact: absolute Q X=Y=Z = round(0.7071068/scale) -> ~0.
  bytes buf;
  core::byte_writer w;
  float hdr[18] = {0, 0, 0, 1023, 2047, 2047,  // ΔV min/range: q -> q
                   0, 0, 0, 0, 0, 0,           // ΔQ: zero delta
                   0, 0, 0, 1048575, 4194303, 4194303};
  for (float f : hdr) w.f32(f);
  w.f32(65535.0f);  // rangeTime: t = raw
  w.u32(1);
  w.u64(32 + 32 + 16 + 16);
  w.u64(0xDEADBEEFull);  // the unused field is garbage in real files
  // Q group: X = 524288 (x = 524288*1.3487e-6 - 0.7071068 ≈ 0), Y = Z = 2097152.
  auto lohi = [](std::uint32_t X, std::uint32_t Y, std::uint32_t Z, std::uint32_t& lo, std::uint32_t& hi) {
    lo = (X & 0x3FF) | ((Y & 0x7FF) << 10) | ((Z & 0x7FF) << 21);
    hi = (X >> 10) | ((Y >> 11) << 10) | ((Z >> 11) << 21);
  };
  std::uint32_t lo, hi;
  lohi(524288, 2097152, 2097152, lo, hi);
  for (int i = 0; i < 4; ++i) w.u32(lo);
  for (int i = 0; i < 4; ++i) w.u32(hi);
  lohi(5, 6, 7, lo, hi);  // V: min 0, range = 2^n - 1 -> value = q
  for (int i = 0; i < 4; ++i) w.u32(lo);
  for (int i = 0; i < 4; ++i) w.u32(hi);
  for (int i = 0; i < 4; ++i) w.u32(0);  // ΔQ zero
  std::uint32_t dv = 1 | (2u << 10) | (3u << 21);
  for (int i = 0; i < 4; ++i) w.u32(dv);
  w.u64(crc64("root"));
  w.u32(0x40000000u | 0);          // Q, t 0
  w.u32(0x00000000u | 0);          // V, t 0
  w.u32(0xC0000000u | 10);         // ΔQ, t 10
  w.u32(0x80000000u | 10);         // ΔV, t 10
  w.u32(0x70000000u | 20);         // Q with ao 3 (rebuilt w lands in x), t 20
  buf = w.take();
  auto d = decode_cspk2(buf, 0);
  ASSERT_EQ(d.keys.size(), 5u);
  EXPECT_EQ(d.sample_bytes_consumed, d.header.sample_data_size);
  EXPECT_NEAR(d.keys[0].value[3], 1.0f, 1e-5f);
  EXPECT_NEAR(d.keys[0].value[0], 0.0f, 1e-5f);
  EXPECT_FLOAT_EQ(d.keys[1].value[0], 5.0f);
  EXPECT_FLOAT_EQ(d.keys[1].value[1], 6.0f);
  EXPECT_FLOAT_EQ(d.keys[1].value[2], 7.0f);
  EXPECT_NEAR(d.keys[2].value[3], 1.0f, 1e-5f);  // identity ⊗ identity
  EXPECT_FLOAT_EQ(d.keys[3].value[0], 6.0f);     // 5 + 1
  EXPECT_FLOAT_EQ(d.keys[3].value[1], 8.0f);
  EXPECT_FLOAT_EQ(d.keys[3].value[2], 10.0f);
  EXPECT_FLOAT_EQ(d.keys[3].time, 10.0f);
  EXPECT_NEAR(d.keys[4].value[0], 1.0f, 1e-5f);  // ao 3: out.x = s[3] = w
  EXPECT_NEAR(d.keys[4].value[3], 0.0f, 1e-5f);
  // A sixth command of a kind with no data left must fail cleanly.
  for (int i = 0; i < 4; ++i) {
    buf.push_back(0);
    buf.push_back(0);
    buf.push_back(0);
    buf.push_back(i == 3 ? 0x80 : 0x80);
  }
  EXPECT_THROW((void)decode_cspk2(buf, 0), core::failure);
}

TEST(Samples, EveryAnmParsesToTheEndAndRewritesIdentically) {
  std::string dir = sample_dir();
  if (dir.empty()) GTEST_SKIP() << "telltale samples not present";
  int skeletal = 0;
  for (const char* n : anm_samples) {
    auto b = test::read_bytes(dir + "/" + n);
    animation_file a;
    ASSERT_NO_THROW(a = parse_animation(b)) << n;
    EXPECT_EQ(write_animation(a), b) << n;
    EXPECT_TRUE(a.opaque_bodies.empty()) << n;
    EXPECT_EQ(a.values.size(), static_cast<std::size_t>(a.num_values)) << n;
    if (!pose_of(a)) continue;
    ++skeletal;
    auto d = decode_cspk2(pose_of(a)->cspk2, 0);
    EXPECT_EQ(d.sample_bytes_consumed, d.header.sample_data_size) << n;
    EXPECT_EQ(d.keys.size(), d.commands) << n;
    // Rotations are unit; consecutive keys per bone after sign fixing |dot| >= 0.99.
    std::vector<std::array<float, 4>> last(d.bones.size());
    std::vector<bool> has(d.bones.size(), false);
    double min_dot = 1;
    for (const auto& k : d.keys) {
      if (!k.rotation) continue;
      float len = std::sqrt(k.value[0] * k.value[0] + k.value[1] * k.value[1] + k.value[2] * k.value[2] + k.value[3] * k.value[3]);
      EXPECT_NEAR(len, 1.0f, 1e-3f) << n;
      if (has[k.bone]) {
        const auto& p = last[k.bone];
        double dt = std::fabs(p[0] * k.value[0] + p[1] * k.value[1] + p[2] * k.value[2] + p[3] * k.value[3]);
        min_dot = std::min(min_dot, dt / len);
      }
      last[k.bone] = k.value;
      has[k.bone] = true;
    }
    EXPECT_GE(min_dot, 0.99) << n;
  }
  EXPECT_EQ(skeletal, 11);
}

TEST(Samples, BrokenTimeRangeWarnsAndUsesRootTrack) {
  RIGRIP_REQUIRE_SAMPLE(p, std::string("telltale/") + broken_sample);
  auto b = test::read_bytes(p);
  diagnostics d;
  auto s = read_anm(make_ctx(p, b, d));
  ASSERT_TRUE(s.ok()) << s.error().to_string();
  ASSERT_TRUE(s->validate().ok());
  bool warned = false;
  for (const auto& w : d.warnings)
    if (w.code == code::w_suspicious_value && w.message.find("rangeTime") != std::string::npos &&
        w.message.find("'root'") != std::string::npos)
      warned = true;
  EXPECT_TRUE(warned);
  ASSERT_EQ(s->animations.size(), 1u);
  const auto& an = s->animations[0];
  EXPECT_TRUE(an.extras.contains("broken_time_range"));
  // Bone 0 follows the sane 'root' track (138 keys over 5.1 s).
  std::size_t most = 0;
  for (const auto& t : an.tracks) {
    most = std::max(most, t.times.size());
    for (float tm : t.times) EXPECT_LE(tm, an.duration + 1e-6);
  }
  EXPECT_GE(most, 100u);
}

TEST(Samples, NameSymbolAndMetadata) {
  RIGRIP_REQUIRE_SAMPLE(p, "telltale/sk62_clementine400StandA_talkWithHandsGestureB.anm");
  auto b = test::read_bytes(p);
  diagnostics d;
  auto s = read_anm(make_ctx(p, b, d));
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->metadata["animation_name"], "sk62_clementine400StandA_talkWithHandsGestureB");
  EXPECT_EQ(s->metadata["name_symbol_matches_file_name"], true);
  EXPECT_EQ(s->animations[0].extras["root_motion"][0], "absoluteNode");
  EXPECT_EQ(s->animations[0].extras["additive"], false);
  // Readable names from the database where known.
  EXPECT_GE(s->skeletons[0].find("root"), 0);
  RIGRIP_REQUIRE_SAMPLE(lip, "telltale/a371405036.anm");
  auto lb = test::read_bytes(lip);
  diagnostics d2;
  auto l = read_anm(make_ctx(lip, lb, d2));
  ASSERT_TRUE(l.ok());
  EXPECT_EQ(l->metadata["name_symbol_matches_file_name"], false);
  EXPECT_EQ(l->metadata["non_bone_tracks"][0]["type"], "KeyframedValue<PhonemeKey>");
  EXPECT_EQ(l->metadata["non_bone_tracks"][0]["keys"].size(), 6u);
}

TEST(Samples, AdditiveFlagged) {
  RIGRIP_REQUIRE_SAMPLE(p, "telltale/sk62_clementine400StandA_talkWithHandsGestureB_add.anm");
  auto b = test::read_bytes(p);
  diagnostics d;
  auto s = read_anm(make_ctx(p, b, d));
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->animations[0].extras["additive"], true);
}

TEST(Samples, DumpRawContract) {
  RIGRIP_REQUIRE_SAMPLE(p, "telltale/sk54_idle_crawfordDocDead.anm");
  auto b = test::read_bytes(p);
  diagnostics d;
  auto j = dump_anm(make_ctx(p, b, d));
  ASSERT_TRUE(j.ok());
  EXPECT_EQ((*j)["format"], "telltale-anm");
  EXPECT_FLOAT_EQ((*j)["length"].get<float>(), 1.0f);
  ASSERT_EQ((*j)["bones"].size(), 97u);
  EXPECT_EQ((*j)["bones"][0].get<std::string>().size(), 16u);
  ASSERT_EQ((*j)["keys"].size(), 194u);
  for (const auto& k : (*j)["keys"]) {
    ASSERT_TRUE(k.contains("bone") && k.contains("kind") && k.contains("time") && k.contains("value"));
    std::string kind = k["kind"];
    EXPECT_TRUE(kind == "rotation" || kind == "translation");
    EXPECT_EQ(k["value"].size(), kind == "rotation" ? 4u : 3u);
    EXPECT_EQ(k["time"].get<double>(), 0.0);  // rangeTime 0: a static pose
  }
}

TEST(Samples, OurSkeletonPlusEachSampleConvertsToValidGlb) {
  std::string dir = sample_dir();
  if (dir.empty()) GTEST_SKIP() << "telltale samples not present";
  for (const char* n : anm_samples) {
    auto b = test::read_bytes(dir + "/" + n);
    auto a = parse_animation(b);
    diagnostics d;
    auto ctx = make_ctx(dir + "/" + n, b, d);
    std::string glb = test::out_path(std::string("telltale_") + n + ".glb");
    if (pose_of(a)) {
      std::string skl = test::out_path(std::string("telltale_") + n + ".skl");
      test::write_bytes(skl, skeleton_for(a));
      ctx.options.skeleton_path = skl;
    }
    auto s = read_anm(ctx);
    ASSERT_TRUE(s.ok()) << n << ": " << s.error().to_string();
    ASSERT_TRUE(s->validate().ok()) << n << ": " << s->validate().error().message;
    if (pose_of(a)) {
      for (const auto& w : d.warnings) EXPECT_NE(w.code, code::w_missing_bone) << n;
    }
    auto w = gltf::write(s.value(), {}, d);
    ASSERT_TRUE(w.ok()) << n;
    test::write_bytes(glb, w->main);
    std::string report;
    int errors = test::gltf_validator_errors(glb, &report);
    if (errors < 0) GTEST_SKIP() << "node/gltf-validator missing";
    EXPECT_EQ(errors, 0) << n << "\n" << report;
  }
}

TEST(Samples, WithoutSkeletonStillExportsWithWarning) {
  RIGRIP_REQUIRE_SAMPLE(p, "telltale/sk20_idle_guybrushLyingHurt.anm");
  auto b = test::read_bytes(p);
  diagnostics d;
  auto s = read_anm(make_ctx(p, b, d));
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->skeletons[0].bones.size(), 104u);
  bool warned = false;
  for (const auto& w : d.warnings) warned |= w.code == code::w_pairing && w.message.find("unscaled") != std::string::npos;
  EXPECT_TRUE(warned);
  std::string glb = test::out_path("telltale_noskel.glb");
  auto w = gltf::write(s.value(), {}, d);
  ASSERT_TRUE(w.ok());
  test::write_bytes(glb, w->main);
  int errors = test::gltf_validator_errors(glb);
  if (errors >= 0) EXPECT_EQ(errors, 0);
}

TEST(Skeleton, WriterReaderRoundTripAndTranslationScaling) {
  skeleton_file f;
  f.ms.classes = skeleton_class_table();
  const char* names[] = {"root", "pelvis", "spine1", "neck"};
  for (int i = 0; i < 4; ++i) {
    skl_entry e;
    e.joint = crc64(names[i]);
    e.parent_index = i - 1;
    e.parent_name = i ? crc64(names[i - 1]) : 0;
    e.local_pos[1] = 0.5f * static_cast<float>(i + 1);
    e.resource_groups = {{crc64("body"), 1.0f}};
    e.bone_type = 1;
    f.entries.push_back(e);
  }
  auto b = write_skeleton(f);
  // Entry size 188 + 12 N, N = 1 -> 200 per entry, plus the 8-byte array header.
  EXPECT_EQ(b.size(), 20u + 12u * f.ms.classes.size() + 8u + 4u * 200u);
  auto g = parse_skeleton(b);
  ASSERT_EQ(g.entries.size(), 4u);
  EXPECT_EQ(write_skeleton(g), b);
  diagnostics d;
  auto s = read_skl(make_ctx("sk99_test.skl", b, d));
  ASSERT_TRUE(s.ok());
  ASSERT_EQ(s->skeletons[0].bones.size(), 4u);
  EXPECT_EQ(s->skeletons[0].bones[2].name, "spine1");
  EXPECT_EQ(s->skeletons[0].bones[2].parent, 1);
  EXPECT_EQ(detect_skl(b, "x.skl"), score::magic);
  EXPECT_EQ(detect_anm(b, "x.anm"), score::none);
}

TEST(Encoder, EncodeDecodeWithinQuantisationStep) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> u(-1, 1);
  std::vector<std::uint64_t> bones;
  std::vector<cspk2_track_in> tracks;
  for (int b = 0; b < 9; ++b) {
    bones.push_back(crc64("bone" + std::to_string(b)));
    cspk2_track_in t;
    std::array<float, 4> q{u(rng), u(rng), u(rng), u(rng)};
    std::array<float, 3> p{u(rng), u(rng), u(rng)};
    for (int k = 0; k < 37; ++k) {
      float n = std::sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
      t.rot_times.push_back(k / 30.0f);
      t.rotations.push_back({q[0] / n, q[1] / n, q[2] / n, q[3] / n});
      t.pos_times.push_back(k / 30.0f);
      t.translations.push_back(p);
      for (auto& c : q) c += 0.05f * u(rng);
      for (auto& c : p) c += (k % 11 == 0 ? 0.5f : 0.01f) * u(rng);  // occasional jumps force absolute keys
    }
    tracks.push_back(t);
  }
  cspk2_encode_stats st;
  auto buf = encode_cspk2(bones, tracks, 36 / 30.0f, &st);
  EXPECT_GT(st.delta_keys, 0u);
  EXPECT_GT(st.absolute_keys, 0u);
  auto d = decode_cspk2(buf, 0);
  EXPECT_EQ(d.sample_bytes_consumed, d.header.sample_data_size);
  ASSERT_EQ(d.keys.size(), 9u * 37u * 2u);
  std::vector<std::size_t> ri(9, 0), pi(9, 0);
  for (const auto& k : d.keys) {
    auto& t = tracks[k.bone];
    if (k.rotation) {
      const auto& q = t.rotations[ri[k.bone]];
      EXPECT_NEAR(k.time, t.rot_times[ri[k.bone]], 36 / 30.0f / 65535.0f);
      ++ri[k.bone];
      float s = (q[0] * k.value[0] + q[1] * k.value[1] + q[2] * k.value[2] + q[3] * k.value[3]) < 0 ? -1.0f : 1.0f;
      for (int c = 0; c < 4; ++c) EXPECT_NEAR(k.value[c], s * q[c], st.max_rot_step + 1e-5f);
    } else {
      const auto& p = t.translations[pi[k.bone]++];
      for (int c = 0; c < 3; ++c) EXPECT_NEAR(k.value[c], p[c], st.max_pos_step + 1e-6f);
    }
  }
  // Commands are ordered by the time each key is needed (the previous key's time).
  std::vector<float> last(9 * 2, 0.0f), need_prev(9 * 2, 0.0f);
  float prev_need = 0;
  std::vector<bool> seen(9 * 2, false);
  for (const auto& k : d.keys) {
    std::size_t id = k.bone * 2 + (k.rotation ? 1 : 0);
    float need = seen[id] ? last[id] : 0.0f;
    EXPECT_GE(need + 1e-6f, prev_need);
    prev_need = need;
    last[id] = k.time;
    seen[id] = true;
  }
}

TEST(Encoder, PackGlbBackToAnmAndReadAgain) {
  // Scene -> .anm (with our .skl) -> scene: rotations and scaled translations survive.
  skeleton_file f;
  f.ms.classes = skeleton_class_table();
  for (int i = 0; i < 3; ++i) {
    skl_entry e;
    e.joint = crc64(i == 0 ? "root" : i == 1 ? "spine1" : "head");
    e.parent_index = i - 1;
    e.local_pos[1] = 2.0f;
    f.entries.push_back(e);
  }
  auto skl = write_skeleton(f);
  std::string skl_path = test::out_path("sk99_pack.skl");
  test::write_bytes(skl_path, skl);
  scene s;
  skeleton sk;
  sk.name = "rig";
  for (int i = 0; i < 3; ++i) {
    bone b;
    b.name = i == 0 ? "root" : i == 1 ? "spine1" : "head";
    b.parent = i - 1;
    b.translation = {0, 2, 0};
    sk.bones.push_back(b);
  }
  s.skeletons.push_back(sk);
  animation an;
  an.name = "wave";
  an.duration = 1.0;
  track r;
  r.bone = "spine1";
  r.path = path::rotation;
  for (int k = 0; k <= 10; ++k) {
    float a = 0.1f * static_cast<float>(k);
    r.times.push_back(a);
    r.values.insert(r.values.end(), {0, std::sin(a / 2), 0, std::cos(a / 2)});
  }
  track t;
  t.bone = "root";
  t.path = path::translation;
  t.times = {0, 0.5f, 1.0f};
  t.values = {0, 2, 0, 0.5f, 2, 0, 1, 2, 0};
  an.tracks = {r, t};
  s.animations.push_back(an);
  pack_context pc;
  pc.output_path = test::out_path("sk99_pack_wave.anm");
  pc.skeleton_file = skl;
  pc.skeleton_path = skl_path;
  auto out = pack_anm(s, pc);
  ASSERT_TRUE(out.ok()) << out.error().to_string();
  test::write_bytes(pc.output_path, out.value());
  auto a = parse_animation(out.value());
  EXPECT_EQ(write_animation(a), out.value());
  EXPECT_EQ(a.name, crc64("sk99_pack_wave.anm"));
  diagnostics d;
  auto ctx = make_ctx(pc.output_path, out.value(), d);
  auto back = read_anm(ctx);  // pairs sk99_pack.skl by the naming rule
  ASSERT_TRUE(back.ok()) << back.error().to_string();
  EXPECT_EQ(back->metadata["skeleton"], skl_path);
  const auto& an2 = back->animations[0];
  bool rot_ok = false, pos_ok = false;
  for (const auto& tr : an2.tracks) {
    if (tr.bone == "spine1" && tr.path == path::rotation) {
      ASSERT_EQ(tr.times.size(), 11u);
      EXPECT_NEAR(tr.values[4 * 10 + 1], std::sin(0.5f), 2e-4f);
      rot_ok = true;
    }
    if (tr.bone == "root" && tr.path == path::translation) {
      ASSERT_EQ(tr.times.size(), 3u);
      EXPECT_NEAR(tr.values[6], 1.0f, 1e-4f);
      EXPECT_NEAR(tr.values[7], 2.0f, 1e-4f);
      pos_ok = true;
    }
  }
  EXPECT_TRUE(rot_ok && pos_ok);
}

// Issue 15: an additive (_add) clip converted with its skeleton plays on top of the rest
// pose: .skl + additive .anm written by our encoders, read back paired with the skeleton,
// written as glTF; every bone keeps its rest-pose length to its parent at every frame, and the
// deltas move it. `--additive raw` (the deltas alone) collapses the chain, as before.
TEST(Encoder, AdditiveClipWithSkeletonPlaysOnTheRestPose) {
  const char* names[] = {"root", "spine1", "neck", "head"};
  const float lengths[] = {0.0f, 0.5f, 0.3f, 0.2f};
  skeleton_file f;
  f.ms.classes = skeleton_class_table();
  scene s;
  skeleton sk;
  sk.name = "rig";
  for (int i = 0; i < 4; ++i) {
    skl_entry e;
    e.joint = crc64(names[i]);
    e.parent_index = i - 1;
    e.local_pos[1] = lengths[i];
    f.entries.push_back(e);
    bone b;
    b.name = names[i];
    b.parent = i - 1;
    b.translation = {0, lengths[i], 0};
    sk.bones.push_back(b);
  }
  auto skl = write_skeleton(f);
  const std::string skl_path = test::out_path("sk98_add.skl");
  test::write_bytes(skl_path, skl);
  s.skeletons.push_back(sk);
  animation an;
  an.name = "nod_add";
  an.duration = 1.0;
  an.extras = {{"additive", true}};
  for (int i = 1; i < 4; ++i) {  // a rotation delta on every child, no translation delta
    track r;
    r.bone = names[i];
    r.path = path::rotation;
    for (int k = 0; k <= 10; ++k) {
      const float a = 0.08f * static_cast<float>(k) * static_cast<float>(i);
      r.times.push_back(0.1f * static_cast<float>(k));
      r.values.insert(r.values.end(), {std::sin(a / 2), 0, 0, std::cos(a / 2)});
    }
    an.tracks.push_back(r);
    track t;
    t.bone = names[i];
    t.path = path::translation;
    t.times = {0, 1};
    t.values = {0, 0, 0, 0, 0, 0};
    an.tracks.push_back(t);
  }
  s.animations.push_back(an);
  pack_context pc;
  pc.output_path = test::out_path("sk98_add_nod_add.anm");
  pc.skeleton_file = skl;
  pc.skeleton_path = skl_path;
  auto out = pack_anm(s, pc);
  ASSERT_TRUE(out.ok()) << out.error().to_string();
  test::write_bytes(pc.output_path, out.value());
  diagnostics d;
  auto ctx = make_ctx(pc.output_path, out.value(), d);
  ctx.options.skeleton_path = skl_path;
  auto back = read_anm(ctx);
  ASSERT_TRUE(back.ok()) << back.error().to_string();
  ASSERT_EQ(back->animations.size(), 1u);
  ASSERT_EQ(back->animations[0].extras.value("additive", false), true);
  ASSERT_EQ(back->skeletons.size(), 1u);
  const auto& rig = back->skeletons[0];
  const auto rest = scene_ops::world_matrices(rig);
  auto dist = [](const std::array<float, 16>& a, const std::array<float, 16>& b) {
    return std::hypot(a[12] - b[12], a[13] - b[13], a[14] - b[14]);
  };
  for (bool raw : {false, true}) {
    gltf::write_options wo;
    wo.additive_raw = raw;
    diagnostics wd;
    auto enc = gltf::write(*back, wo, wd);
    ASSERT_TRUE(enc.ok()) << enc.error().to_string();
    test::gltf_evaluator ev(enc->main);
    double worst = 0, moved = 0;
    for (int fr = 0; fr <= 30; ++fr) {
      auto w = ev.worlds(0, static_cast<float>(fr) / 30.0f);
      for (std::size_t bi = 1; bi < rig.bones.size(); ++bi) {
        const auto p = static_cast<std::size_t>(rig.bones[bi].parent);
        const auto* c = test::find_world(w, rig.bones[bi].name);
        const auto* pp = test::find_world(w, rig.bones[p].name);
        ASSERT_TRUE(c && pp) << rig.bones[bi].name;
        worst = std::max(worst, static_cast<double>(std::fabs(dist(*c, *pp) - dist(rest[bi], rest[p]))));
        moved = std::max(moved, static_cast<double>(dist(*c, rest[bi])));
      }
    }
    if (!raw) {
      EXPECT_LT(worst, 1e-3) << "rest-pose bone lengths kept at every frame";
      EXPECT_GT(moved, 0.05) << "the deltas move the bones";
    } else {
      EXPECT_GT(worst, 0.1) << "raw deltas alone collapse the chain";
    }
  }
}

TEST(Hostile, CountFFFFFFFFIsACleanQuickError) {
  RIGRIP_REQUIRE_SAMPLE(p, "telltale/sk54_idle_crawfordDocDead.anm");
  auto b = test::read_bytes(p);
  auto a = parse_animation(b);
  std::size_t anim_start = 20 + 12 * a.ms.classes.size();
  struct patch {
    std::size_t at;
    const char* what;
  } patches[] = {{16, "class count"}, {anim_start + 29, "value count"}, {anim_start + 37, "type count"},
                 {anim_start + 25, "block"}, {4, "default size"}};
  for (auto& pt : patches) {
    auto m = b;
    for (int i = 0; i < 4; ++i) m[pt.at + i] = 0xFF;
    diagnostics d;
    auto t0 = std::chrono::steady_clock::now();
    auto r = read_anm(make_ctx("x.anm", m, d));
    EXPECT_FALSE(r.ok()) << pt.what;
    EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 1.0) << pt.what;
  }
  // Skeleton entry count and resource-group count.
  skeleton_file f;
  f.ms.classes = skeleton_class_table();
  f.entries.resize(2);
  f.entries[1].parent_index = 0;
  auto s = write_skeleton(f);
  std::size_t body = 20 + 12 * f.ms.classes.size();
  for (std::size_t at : {body + 4, body + 8 + 132}) {
    auto m = s;
    for (int i = 0; i < 4; ++i) m[at + i] = 0xFF;
    diagnostics d;
    auto r = read_skl(make_ctx("x.skl", m, d));
    ASSERT_FALSE(r.ok());
    EXPECT_TRUE(r.error().code == code::bad_count || r.error().code == code::bad_value) << r.error().to_string();
  }
}

TEST(Hostile, TruncationAndByteFlipLoop) {
  std::string dir = sample_dir();
  if (dir.empty()) GTEST_SKIP() << "telltale samples not present";
  std::mt19937 rng(1234);
  std::vector<bytes> inputs;
  for (const char* n : {"a371405036.anm", "sk54_idle_crawfordDocDead.anm", "sk20_idle_guybrushLyingHurt.anm"})
    inputs.push_back(test::read_bytes(dir + "/" + n));
  {
    skeleton_file f;
    f.ms.classes = skeleton_class_table();
    f.entries.resize(3);
    f.entries[1].parent_index = 0;
    f.entries[2].parent_index = 1;
    inputs.push_back(write_skeleton(f));
  }
  int clean_errors = 0;
  for (std::size_t fi = 0; fi < inputs.size(); ++fi) {
    const auto& in = inputs[fi];
    bool skl = fi == inputs.size() - 1;
    const char* env = std::getenv("RIGRIP_TELLTALE_MUTATIONS");  // longer local campaigns
    int rounds = env ? std::atoi(env) : 150;
    for (int it = 0; it < rounds; ++it) {
      bytes m = in;
      if (it % 3 == 0) {
        m.resize(std::uniform_int_distribution<std::size_t>(0, in.size() - 1)(rng));
      } else {
        int flips = 1 + it % 4;
        for (int k = 0; k < flips; ++k) m[std::uniform_int_distribution<std::size_t>(0, m.size() - 1)(rng)] ^= static_cast<std::uint8_t>(1 + rng() % 255);
      }
      diagnostics d;
      auto ctx = make_ctx(skl ? "x.skl" : "x.anm", m, d);
      auto r = skl ? read_skl(ctx) : read_anm(ctx);
      if (!r.ok()) {
        ++clean_errors;
        EXPECT_NE(r.error().code, code::internal) << r.error().to_string();
        EXPECT_FALSE(r.error().message.empty());
      } else {
        (void)r->validate();
      }
      auto j = dump_anm(ctx);
      auto w = skl ? rewrite_skl(ctx) : rewrite_anm(ctx);
      if (w.ok()) EXPECT_EQ(w.value(), m);
    }
  }
  EXPECT_GT(clean_errors, 100);
}

TEST(Samples, RootTrackMatchesBone0SampledLinearly) {
  // Justifies LINEAR: the uncompressed 30 fps 'root' track equals CSPK2 bone 0 sampled
  // between its sparse keys (up to quaternion sign).
  std::string dir = sample_dir();
  if (dir.empty()) GTEST_SKIP() << "telltale samples not present";
  int files = 0;
  for (const char* n : anm_samples) {
    if (std::string(n) == broken_sample) continue;
    auto b = test::read_bytes(dir + "/" + n);
    auto a = parse_animation(b);
    const anm_value* root = nullptr;
    for (const auto& v : a.values)
      if (v.kind == value_kind::kf_transform && v.kf_name == sym_root) root = &v;
    if (!pose_of(a) || !root) continue;
    diagnostics d;
    auto s = read_anm(make_ctx(dir + "/" + n, b, d));
    ASSERT_TRUE(s.ok());
    auto dec = decode_cspk2(pose_of(a)->cspk2, 0);
    std::string bone0 = symbol_label(dec.bones[0]);
    const track* rot = nullptr;
    for (const auto& t : s->animations[0].tracks)
      if (t.bone == bone0 && t.path == path::rotation) rot = &t;
    ASSERT_NE(rot, nullptr) << n;
    double worst = 1, err_linear = 0, err_step = 0;
    track stepped = *rot;
    stepped.interpolation = interpolation::step;
    for (const auto& smp : root->samples) {
      auto tr = decode_transform(smp.value);
      auto q = scene_ops::sample(*rot, smp.time());
      auto qs = scene_ops::sample(stepped, smp.time());
      double dt = std::fabs(q[0] * tr.rot[0] + q[1] * tr.rot[1] + q[2] * tr.rot[2] + q[3] * tr.rot[3]);
      double ds = std::fabs(qs[0] * tr.rot[0] + qs[1] * tr.rot[1] + qs[2] * tr.rot[2] + qs[3] * tr.rot[3]);
      worst = std::min(worst, dt);
      err_linear += 1 - dt;
      err_step += 1 - ds;
    }
    EXPECT_GE(worst, 0.999) << n;
    EXPECT_LE(err_linear, err_step + 1e-9) << n;  // LINEAR reproduces the engine's own samples better
    std::printf("%-60.60s linear 1-|dot| sum %.3g, step %.3g\n", n, err_linear, err_step);
    ++files;
  }
  EXPECT_GE(files, 10);
}

TEST(Encoder, ReEncodeEverySampleWithinQuantisationStep) {
  // Real key streams (all axis orders, delta runs, additive tracks) through our encoder.
  std::string dir = sample_dir();
  if (dir.empty()) GTEST_SKIP() << "telltale samples not present";
  for (const char* n : anm_samples) {
    auto a = parse_animation(test::read_bytes(dir + "/" + n));
    if (!pose_of(a)) continue;
    auto d = decode_cspk2(pose_of(a)->cspk2, 0);
    std::vector<cspk2_track_in> tracks(d.bones.size());
    float range = 0;
    for (const auto& k : d.keys) range = std::max(range, k.time);
    for (const auto& k : d.keys) {
      auto& t = tracks[k.bone];
      if (k.rotation) {
        float len = std::sqrt(k.value[0] * k.value[0] + k.value[1] * k.value[1] + k.value[2] * k.value[2] + k.value[3] * k.value[3]);
        t.rot_times.push_back(k.time);
        t.rotations.push_back({k.value[0] / len, k.value[1] / len, k.value[2] / len, k.value[3] / len});
      } else {
        t.pos_times.push_back(k.time);
        t.translations.push_back({k.value[0], k.value[1], k.value[2]});
      }
    }
    cspk2_encode_stats st;
    auto buf = encode_cspk2(d.bones, tracks, range, &st);
    auto e = decode_cspk2(buf, 0);
    EXPECT_EQ(e.sample_bytes_consumed, e.header.sample_data_size) << n;
    ASSERT_EQ(e.keys.size(), d.keys.size()) << n;
    EXPECT_EQ(e.bones, d.bones);
    std::vector<std::size_t> ri(d.bones.size(), 0), pi(d.bones.size(), 0);
    double worst_rot = 0, worst_pos = 0;
    for (const auto& k : e.keys) {
      const auto& t = tracks[k.bone];
      if (k.rotation) {
        const auto& q = t.rotations[ri[k.bone]++];
        float s = (q[0] * k.value[0] + q[1] * k.value[1] + q[2] * k.value[2] + q[3] * k.value[3]) < 0 ? -1.0f : 1.0f;
        for (int c = 0; c < 4; ++c) worst_rot = std::max(worst_rot, static_cast<double>(std::fabs(k.value[c] - s * q[c])));
      } else {
        const auto& p = t.translations[pi[k.bone]++];
        for (int c = 0; c < 3; ++c) worst_pos = std::max(worst_pos, static_cast<double>(std::fabs(k.value[c] - p[c])));
      }
    }
    EXPECT_LE(worst_rot, st.max_rot_step + 1e-5) << n;
    EXPECT_LE(worst_pos, st.max_pos_step + 1e-6) << n;
    std::printf("%-50.50s keys %zu abs %zu delta %zu bytes %zu->%zu rot err %.2g (step %.2g) pos err %.2g (step %.2g)\n", n,
                d.keys.size(), st.absolute_keys, st.delta_keys, pose_of(a)->cspk2.size(), buf.size(), worst_rot,
                st.max_rot_step, worst_pos, st.max_pos_step);
  }
}

TEST(MetaStream, Msv5AndUnknownValueTypesKeptOpaque) {
  RIGRIP_REQUIRE_SAMPLE(p, "telltale/a371405036.anm");
  auto b = test::read_bytes(p);
  // MSV5 shares the MSV6 header layout.
  auto v5 = b;
  v5[0] = '5';
  diagnostics d5;
  EXPECT_EQ(detect_anm(v5, "x.anm"), score::magic);
  auto r5 = read_anm(make_ctx("x.anm", v5, d5));
  ASSERT_TRUE(r5.ok()) << r5.error().to_string();
  EXPECT_NE(r5->metadata["stream"].get<std::string>().find("MSV5"), std::string::npos);
  auto w5 = rewrite_anm(make_ctx("x.anm", v5, d5));
  ASSERT_TRUE(w5.ok());
  EXPECT_EQ(w5.value(), v5);
  // An unknown value type: its body (found from the fixed-size tables at the end) is kept
  // as bytes with its type symbol and written back unchanged.
  auto a = parse_animation(b);
  std::size_t type_at = 20 + 12 * a.ms.classes.size() + 41;  // first type entry's u64
  auto u = b;
  u[type_at] ^= 0x5A;
  auto ua = parse_animation(u);
  EXPECT_EQ(ua.values.size(), 0u);
  EXPECT_EQ(ua.opaque_first_type, 0u);
  EXPECT_EQ(ua.opaque_bodies.size(), 230u + 20u + 28u + 28u);
  EXPECT_EQ(write_animation(ua), u);
  diagnostics d;
  auto r = read_anm(make_ctx("x.anm", u, d));
  ASSERT_TRUE(r.ok());
  bool warned = false;
  for (const auto& w : d.warnings) warned |= w.code == code::w_opaque_data;
  EXPECT_TRUE(warned);
  EXPECT_EQ(r->metadata["values"][0]["opaque"], true);
}

// hex16 is "%016llx" written out (issue 16: snprintf was 1,100 instructions per bone).
TEST(TelltaleSymbols, Hex16IsPrintfsLowerCaseSixteenDigits) {
  std::mt19937_64 rng(16);
  std::vector<std::uint64_t> values = {0, 1, 0xf, 0x10, 0xffffffffffffffffull, 0x8000000000000000ull, 0x0123456789abcdefull};
  for (int i = 0; i < 2000; ++i) values.push_back(rng() >> (i % 64));
  for (std::uint64_t v : values) {
    char buf[17];
    std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(v));
    EXPECT_EQ(telltale::hex16(v), std::string(buf));
    EXPECT_EQ(telltale::parse_hex16(telltale::hex16(v)), v);
  }
}

namespace {
// decode_cspk2_tracks must be decode_cspk2 with its keys bucketed per track: the same
// floats bit for bit, or the same failure (code, message, offset).
void expect_tracks_equal_keys(std::span<const std::uint8_t> buf, const std::string& what) {
  std::optional<cspk2_decoded> keys;
  std::optional<cspk2_tracks> tracks;
  std::optional<error> e1, e2;
  try {
    keys = decode_cspk2(buf, 7);
  } catch (core::failure& f) {
    e1 = f.error();
  }
  try {
    tracks = decode_cspk2_tracks(buf, 7);
  } catch (core::failure& f) {
    e2 = f.error();
  }
  ASSERT_EQ(e1.has_value(), e2.has_value()) << what;
  if (e1) {
    EXPECT_EQ(e1->code, e2->code) << what;
    EXPECT_EQ(e1->message, e2->message) << what;
    EXPECT_EQ(e1->offset, e2->offset) << what;
    return;
  }
  const auto& d = *keys;
  const auto& t = *tracks;
  ASSERT_EQ(d.bones, t.bones) << what;
  EXPECT_EQ(d.commands, t.commands) << what;
  EXPECT_EQ(d.sample_bytes_consumed, t.sample_bytes_consumed) << what;
  EXPECT_EQ(std::memcmp(&d.header, &t.header, sizeof d.header), 0) << what;
  ASSERT_EQ(t.tracks.size(), 2 * d.bones.size()) << what;
  std::vector<std::size_t> at(t.tracks.size(), 0);
  for (std::size_t i = 0; i < d.keys.size(); ++i) {
    const auto& k = d.keys[i];
    const std::size_t ti = 2 * std::size_t{k.bone} + (k.rotation ? 1 : 0);
    const std::size_t n = k.rotation ? 4 : 3;
    const std::size_t j = at[ti]++;
    ASSERT_LT(j, t.tracks[ti].times.size()) << what;
    EXPECT_EQ(std::bit_cast<std::uint32_t>(k.time), std::bit_cast<std::uint32_t>(t.tracks[ti].times[j])) << what << " key " << i;
    for (std::size_t c = 0; c < n; ++c)
      EXPECT_EQ(std::bit_cast<std::uint32_t>(k.value[c]), std::bit_cast<std::uint32_t>(t.tracks[ti].values[n * j + c]))
          << what << " key " << i;
    // the command word's flags are kept in the key list
    std::uint32_t c = 0;
    std::memcpy(&c, buf.data() + t.command_at + 4 * i, 4);
    EXPECT_EQ(k.t16, c & 0xFFFF);
    EXPECT_EQ(k.axis_order, (c >> 28) & 3);
    EXPECT_EQ(k.delta, (c >> 31) != 0);
  }
  for (std::size_t ti = 0; ti < at.size(); ++ti) {
    EXPECT_EQ(at[ti], t.tracks[ti].times.size()) << what;
    EXPECT_EQ(t.tracks[ti].values.size(), t.tracks[ti].times.size() * (ti % 2 ? 4 : 3)) << what;
  }
}
}  // namespace

TEST(Cspk2, TrackDecodeEqualsKeyDecodeOnSamplesEncodedAndMutated) {
  std::mt19937 rng(99);
  std::vector<bytes> bufs;
  // Encoded clips with delta and absolute keys of both kinds.
  for (int clip = 0; clip < 4; ++clip) {
    std::vector<std::uint64_t> bones;
    std::vector<cspk2_track_in> tracks;
    std::uniform_real_distribution<float> u(-1, 1);
    for (int b = 0; b < 5 + clip * 7; ++b) {
      bones.push_back(crc64("bone" + std::to_string(b)));
      cspk2_track_in t;
      for (int k = 0; k < 20 + clip * 11; ++k) {
        float time = static_cast<float>(k) / 30.0f;
        quat q = core::normalize({u(rng) * 0.3f + std::sin(0.1f * k), u(rng) * 0.1f, 0.2f, 1.0f});
        t.rot_times.push_back(time);
        t.rotations.push_back({q[0], q[1], q[2], q[3]});
        if (k % (1 + clip) == 0) {
          t.pos_times.push_back(time);
          t.translations.push_back({0.01f * k + u(rng) * (clip ? 0.5f : 0.001f), u(rng), 1.0f});
        }
      }
      tracks.push_back(std::move(t));
    }
    bufs.push_back(encode_cspk2(bones, tracks, (20 + clip * 11 - 1) / 30.0f));
  }
  if (std::string dir = sample_dir(); !dir.empty())
    for (const char* n : anm_samples) {
      auto a = parse_animation(test::read_bytes(dir + "/" + n));
      if (const auto* p = pose_of(a)) bufs.push_back(p->cspk2);
    }
  ASSERT_GE(bufs.size(), 4u);
  std::size_t n_ok = 0, n_bad = 0;
  for (std::size_t bi = 0; bi < bufs.size(); ++bi) {
    expect_tracks_equal_keys(bufs[bi], "buffer " + std::to_string(bi));
    for (int it = 0; it < 60; ++it) {  // truncated, flipped (bone indices, flags, sizes)
      bytes m = bufs[bi];
      if (it % 4 == 0) m.resize(std::uniform_int_distribution<std::size_t>(0, m.size())(rng));
      else
        for (int k = 0; k < 1 + it % 3; ++k)
          m[std::uniform_int_distribution<std::size_t>(0, m.size() - 1)(rng)] ^= static_cast<std::uint8_t>(1 + rng() % 255);
      bool ok = true;
      try {
        (void)decode_cspk2(m, 7);
      } catch (core::failure&) {
        ok = false;
      }
      ++(ok ? n_ok : n_bad);
      expect_tracks_equal_keys(m, "buffer " + std::to_string(bi) + " mutation " + std::to_string(it));
    }
  }
  EXPECT_GT(n_ok, 10u);
  EXPECT_GT(n_bad, 10u);
}

namespace {
// decode_cspk2_finished + finished_track must be decode_cspk2_tracks + finish_track: the same
// failure, the same in-order verdict, and when in order the same tracks and counts bit for bit.
void expect_finished_equals_plain(std::span<const std::uint8_t> buf, float length, const std::string& what) {
  std::optional<cspk2_tracks> plain;
  std::optional<cspk2_finished> fused;
  std::optional<error> e1, e2;
  try {
    plain = decode_cspk2_tracks(buf, 7);
  } catch (core::failure& f) {
    e1 = f.error();
  }
  try {
    fused = decode_cspk2_finished(buf, 7, length);
  } catch (core::failure& f) {
    e2 = f.error();
  }
  ASSERT_EQ(e1.has_value(), e2.has_value()) << what;
  if (e1) {
    EXPECT_EQ(e1->code, e2->code) << what;
    EXPECT_EQ(e1->message, e2->message) << what;
    EXPECT_EQ(e1->offset, e2->offset) << what;
    return;
  }
  auto& p = *plain;
  auto& f = fused->d;
  ASSERT_EQ(p.bones, f.bones) << what;
  EXPECT_EQ(p.commands, f.commands) << what;
  EXPECT_EQ(p.command_at, f.command_at) << what;
  EXPECT_EQ(p.sample_bytes_consumed, f.sample_bytes_consumed) << what;
  EXPECT_EQ(std::memcmp(&p.header, &f.header, sizeof p.header), 0) << what;
  ASSERT_EQ(p.tracks.size(), f.tracks.size()) << what;
  bool in_order = true;
  const float hi = std::max(length, 0.0f);
  for (const auto& tk : p.tracks)
    for (std::size_t i = 1; i < tk.times.size(); ++i) {
      auto cl = [hi](float x) { return std::isfinite(x) ? std::clamp(x, 0.0f, hi) : 0.0f; };
      if (cl(tk.times[i]) < cl(tk.times[i - 1])) in_order = false;
    }
  ASSERT_EQ(fused->in_order, in_order) << what;
  if (!in_order) return;
  for (std::size_t ti = 0; ti < p.tracks.size(); ++ti) {
    if (p.tracks[ti].times.empty()) {
      EXPECT_TRUE(f.tracks[ti].times.empty()) << what;
      continue;
    }
    const path pa = ti % 2 ? path::rotation : path::translation;
    const float scale = ti % 3 == 0 ? 1.0f : 0.37f * static_cast<float>(ti % 7);
    detail::key_stats s1, s2;
    const track a = detail::finish_track("b", pa, p.tracks[ti], length, scale, s1);
    const track b = detail::finished_track("b", pa, f.tracks[ti], scale, s2);
    EXPECT_EQ(s1.dupes, s2.dupes) << what << " track " << ti;
    EXPECT_EQ(s1.clamped, s2.clamped) << what << " track " << ti;
    EXPECT_EQ(a.interpolation, b.interpolation);
    ASSERT_EQ(a.times.size(), b.times.size()) << what << " track " << ti;
    ASSERT_EQ(a.values.size(), b.values.size()) << what << " track " << ti;
    EXPECT_EQ(std::memcmp(a.times.data(), b.times.data(), 4 * a.times.size()), 0) << what << " track " << ti;
    EXPECT_EQ(std::memcmp(a.values.data(), b.values.data(), 4 * a.values.size()), 0) << what << " track " << ti;
  }
}
}  // namespace

TEST(Cspk2, FinishedDecodeEqualsTrackDecodeAndFinishTrack) {
  std::mt19937 rng(1234);
  std::vector<bytes> bufs;
  for (int clip = 0; clip < 4; ++clip) {  // encoded: delta and absolute keys of both kinds
    std::vector<std::uint64_t> bones;
    std::vector<cspk2_track_in> tracks;
    std::uniform_real_distribution<float> u(-1, 1);
    for (int b = 0; b < 4 + clip * 5; ++b) {
      bones.push_back(crc64("bone" + std::to_string(b)));
      cspk2_track_in t;
      for (int k = 0; k < 15 + clip * 9; ++k) {
        float time = static_cast<float>(k) / 30.0f;
        quat q = core::normalize({u(rng) * 0.3f + std::sin(0.2f * k), u(rng) * 0.1f, 0.2f * u(rng), 1.0f});
        if (k % 5 == 3) q = {-q[0], -q[1], -q[2], -q[3]};
        t.rot_times.push_back(time);
        t.rotations.push_back({q[0], q[1], q[2], q[3]});
        if (k % (1 + clip) == 0) {
          t.pos_times.push_back(time);
          t.translations.push_back({0.01f * k + u(rng) * (clip ? 0.5f : 0.001f), u(rng), 1.0f});
        }
      }
      tracks.push_back(std::move(t));
    }
    bufs.push_back(encode_cspk2(bones, tracks, (15 + clip * 9 - 1) / 30.0f));
  }
  if (std::string dir = sample_dir(); !dir.empty())
    for (const char* n : anm_samples) {
      auto a = parse_animation(test::read_bytes(dir + "/" + n));
      if (const auto* p = pose_of(a)) bufs.push_back(p->cspk2);
    }
  ASSERT_GE(bufs.size(), 4u);
  const float specials[] = {0.0f, -0.0f, -1.0f, 1e-30f, 3.0f, std::numeric_limits<float>::infinity(),
                            std::numeric_limits<float>::quiet_NaN(), 65535.0f, 3e38f, 1e34f};
  for (std::size_t bi = 0; bi < bufs.size(); ++bi) {
    float rt = 0;
    std::memcpy(&rt, bufs[bi].data() + 0x48, 4);
    // lengths that clamp nothing, clamp the end (runs of equal times), clamp all
    for (float length : {rt, rt * 0.5f, 0.0f, -1.0f, rt * 2.0f})
      expect_finished_equals_plain(bufs[bi], length, "buffer " + std::to_string(bi) + " length " + std::to_string(length));
    for (int it = 0; it < 40; ++it) {  // time bases, truncation, flipped bytes (bones, flags, sizes, orders)
      bytes m = bufs[bi];
      if (it % 4 == 0) {
        float r = specials[rng() % std::size(specials)];
        if (it % 8 == 0) r = -rt;
        std::memcpy(m.data() + 0x48, &r, 4);
      } else if (it % 4 == 1) {
        m.resize(std::uniform_int_distribution<std::size_t>(0, m.size())(rng));
      } else {
        for (int k = 0; k < 1 + it % 3; ++k)
          m[std::uniform_int_distribution<std::size_t>(0, m.size() - 1)(rng)] ^= static_cast<std::uint8_t>(1 + rng() % 255);
      }
      const float length = it % 3 == 0 ? rt : (it % 3 == 1 ? rt * 0.25f : 1.0f);
      expect_finished_equals_plain(m, length, "buffer " + std::to_string(bi) + " mutation " + std::to_string(it));
    }
  }
  // A track out of time order must be reported (finish_track would sort it): two commands
  // of one rotation track, the second earlier.
  {
    bytes m = bufs[0];
    std::uint32_t bones = 0;
    std::memcpy(&bones, m.data() + 0x4C, 4);
    std::uint64_t sds = 0;
    std::memcpy(&sds, m.data() + 0x50, 8);
    const std::size_t cmd_at = 0x60 + sds + 8 * (bones & 0xFFFF);
    std::uint32_t c0 = 0, c1 = 0;
    std::size_t i1 = 0;
    std::memcpy(&c0, m.data() + cmd_at, 4);
    for (std::size_t i = 1; cmd_at + 4 * i + 4 <= m.size(); ++i) {
      std::memcpy(&c1, m.data() + cmd_at + 4 * i, 4);
      if ((c1 >> 16 & 0xFFF) == (c0 >> 16 & 0xFFF) && (c1 >> 30 & 1) == (c0 >> 30 & 1)) {
        i1 = i;
        break;
      }
    }
    ASSERT_GT(i1, 0u);
    c0 = (c0 & 0xFFFF0000u) | 0xFFFFu;  // first key at the end
    c1 = c1 & 0xFFFF0000u;               // second at 0
    std::memcpy(m.data() + cmd_at, &c0, 4);
    std::memcpy(m.data() + cmd_at + 4 * i1, &c1, 4);
    float rt = 0;
    std::memcpy(&rt, m.data() + 0x48, 4);
    EXPECT_FALSE(decode_cspk2_finished(m, 7, rt).in_order);
    expect_finished_equals_plain(m, rt, "unsorted");
  }
  // A header declaring more bones (u16 count) than a 12-bit command can name: 5,000 symbols.
  // The extra tracks stay empty (ASan caught the per-track key count read past its table).
  {
    bytes m = bufs[0];
    std::uint32_t bones = 0;
    std::memcpy(&bones, m.data() + 0x4C, 4);
    std::uint64_t sds = 0;
    std::memcpy(&sds, m.data() + 0x50, 8);
    const std::size_t syms_end = 0x60 + sds + 8 * (bones & 0xFFFF);
    const std::uint32_t more = 5000;
    ASSERT_LT(bones & 0xFFFF, more);
    m.insert(m.begin() + static_cast<std::ptrdiff_t>(syms_end), 8 * (more - (bones & 0xFFFF)), std::uint8_t{0x5A});
    std::memcpy(m.data() + 0x4C, &more, 4);
    float rt = 0;
    std::memcpy(&rt, m.data() + 0x48, 4);
    const auto f = decode_cspk2_finished(m, 7, rt);
    ASSERT_EQ(f.d.tracks.size(), 2u * more);
    EXPECT_TRUE(f.d.tracks.back().times.empty());
    expect_finished_equals_plain(m, rt, "5000 bones");
  }
}

TEST(Cspk2, FinishTrackInPlaceEqualsCleanKeysAndMakeTrack) {
  // In-order keys with runs of equal times, out-of-range / non-finite times, unsorted
  // keys (the general path), zero and non-finite rotations, sign flips.
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> u(-1, 1);
  const float specials[] = {0.0f, -0.0f, 1e-20f, std::numeric_limits<float>::infinity(), std::numeric_limits<float>::quiet_NaN(), 3.0f};
  std::size_t differ = 0;
  for (int it = 0; it < 3000; ++it) {
    const bool rotation = it % 2;
    const std::size_t c = rotation ? 4 : 3;
    const float length = it % 17 == 0 ? -1.0f : 2.0f;
    const float scale = it % 5 == 0 ? 0.0f : 1.5f + u(rng);
    const std::size_t n = 1 + rng() % 40;
    detail::key3 dummy{};
    std::vector<detail::key3> keys(n, dummy);
    float t = it % 7 == 0 ? -0.5f : 0.0f;
    for (std::size_t i = 0; i < n; ++i) {
      if (rng() % 4) t += (rng() % 3) * 0.05f;  // equal times now and then
      keys[i].t = t;
      if (it % 11 == 0 && rng() % 5 == 0) keys[i].t = specials[rng() % std::size(specials)];
      if (it % 13 == 0 && rng() % 4 == 0) keys[i].t = 2.0f * u(rng) + 1.0f;  // unsorted
      for (std::size_t k = 0; k < c; ++k) keys[i].v[k] = u(rng);
      if (it % 9 == 0 && rng() % 4 == 0) keys[i].v[rng() % c] = specials[rng() % std::size(specials)];
      if (it % 10 == 0 && rng() % 4 == 0) keys[i].v = {0, 0, 0, 0};
    }
    cspk2_track_keys tk;
    for (const auto& k : keys) {
      tk.times.push_back(k.t);
      for (std::size_t i = 0; i < c; ++i) tk.values.push_back(k.v[i]);
    }
    const path p = rotation ? path::rotation : path::translation;
    detail::key_stats st;
    const track fast = detail::finish_track("b", p, tk, length, scale, st);
    std::size_t dupes = 0, clamped = 0;
    const std::size_t kept = detail::clean_keys(std::span<detail::key3>(keys), length, dupes, clamped);
    const track slow = detail::make_track("b", p, std::span<const detail::key3>(keys).first(kept), scale);
    EXPECT_EQ(st.dupes, dupes) << it;
    EXPECT_EQ(st.clamped, clamped) << it;
    EXPECT_EQ(fast.bone, slow.bone);
    EXPECT_EQ(fast.path, slow.path);
    EXPECT_EQ(fast.interpolation, slow.interpolation);
    ASSERT_EQ(fast.times.size(), slow.times.size()) << it;
    ASSERT_EQ(fast.values.size(), slow.values.size()) << it;
    for (std::size_t i = 0; i < fast.times.size(); ++i)
      if (std::bit_cast<std::uint32_t>(fast.times[i]) != std::bit_cast<std::uint32_t>(slow.times[i])) {
        ++differ;
        ADD_FAILURE() << "case " << it << " time " << i << ": " << fast.times[i] << " vs " << slow.times[i];
      }
    for (std::size_t i = 0; i < fast.values.size(); ++i)
      if (std::bit_cast<std::uint32_t>(fast.values[i]) != std::bit_cast<std::uint32_t>(slow.values[i])) {
        ++differ;
        ADD_FAILURE() << "case " << it << " value " << i << ": " << fast.values[i] << " vs " << slow.values[i];
      }
  }
  EXPECT_EQ(differ, 0u);
}

TEST(TelltaleSymbols, DatabaseBuiltFromPartsNamesEverySpelling) {
  // The database runs the CRC on over prefix, word and side; each spelling must come back
  // from its plain whole-name CRC, in the canonical case.
  for (const char* n : {"root", "pelvis", "spine3_R", "hand_L", "clementine400_hand_L", "zombie_eyeLidUpper_R",
                        "peterQuill_mouthLowerOuter", "louis_knife_R", "absoluteNode", "SkeletonPose", "guybrush_toe_L"}) {
    EXPECT_EQ(symbol_name(crc64(n)).value_or("?"), n);
    EXPECT_EQ(symbol_label(crc64(n)), n);
    EXPECT_EQ(symbol_name(crc64(lower(n))).value_or("?"), n);
  }
  EXPECT_FALSE(symbol_name(crc64("not_a_bone_name")).has_value());
  EXPECT_EQ(symbol_label(0x0123456789abcdefull), "0123456789abcdef");
  EXPECT_GT(symbol_database_size(), 3000u);
}

// decode_cspk2_finished decodes each sample group whole in SSE2: every kind, random group
// bytes (all bit patterns of the packed fields) and headers with ordinary, huge, tiny,
// zero, negative, infinite and NaN minima and ranges give the scalar formulas' bits. A NaN
// only has to be a NaN: where two NaNs meet, x86 returns the one in the first operand, and
// the compiler orders the operands of the scalar + and * as it likes (a NaN translation fails
// validation and a NaN rotation becomes the identity, so its bits never reach an output).
TEST(Cspk2, GroupDecodeSse2EqualsScalar) {
  std::mt19937 rng(1630);
  const float special[] = {0.0f, -0.0f, 1.0f, -1.0f, 1e-30f, -3e38f, 3e38f, 1e-45f, 0.5f, 2047.0f,
                           std::numeric_limits<float>::infinity(), -std::numeric_limits<float>::infinity(),
                           std::numeric_limits<float>::quiet_NaN()};
  auto pick = [&]() -> float {
    if (rng() % 3 == 0) return special[rng() % std::size(special)];
    std::uniform_real_distribution<float> d(-2.0f, 2.0f);
    return d(rng);
  };
  auto bits = [](float f) {
    std::uint32_t b;
    std::memcpy(&b, &f, 4);
    return b;
  };
  for (int round = 0; round < 20000; ++round) {
    cspk2_header h;
    for (int i = 0; i < 3; ++i) {
      h.min_delta_v[i] = pick(), h.range_delta_v[i] = pick();
      h.min_delta_q[i] = pick(), h.range_delta_q[i] = pick();
      h.min_vector[i] = pick(), h.range_vector[i] = pick();
    }
    const auto steps = detail::make_group_steps(h);
    std::uint8_t g[32];
    for (auto& b : g) b = static_cast<std::uint8_t>(rng());
    if (round % 5 == 0) std::memset(g, round % 10 == 0 ? 0xFF : 0x00, 32);
    for (unsigned kind = 0; kind < 4; ++kind) {
      float a[4][4], b[4][4];
      std::memset(a, 0x5A, sizeof a);
      std::memset(b, 0xA5, sizeof b);
      detail::decode_group_scalar(kind, g, steps, a);
      detail::decode_group_sse2(kind, g, steps, b);
      for (int c = 0; c < 4; ++c)
        for (int i = 0; i < 4; ++i)
          if (!(std::isnan(a[c][i]) && std::isnan(b[c][i])))
            ASSERT_EQ(bits(a[c][i]), bits(b[c][i])) << "round " << round << " kind " << kind << " c " << c << " i " << i;
    }
  }
}
