// MRN packets, skeletons, glTF, the generated example, round trips and damaged input.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <random>

#include "core/failure.hpp"
#include "core/math.hpp"
#include "scene/pose.hpp"
#include "example_scene.hpp"
#include "formats/morpheme/decode.hpp"
#include "formats/morpheme/encode.hpp"
#include "formats/morpheme/mrn.hpp"
#include "rigrip/gltf.hpp"
#include "test_builder.hpp"
#include "test_support.hpp"

using namespace rigrip;
using namespace rigrip::morpheme;


namespace {

const std::string example_path = std::string(RIGRIP_SOURCE_DIR) + "/examples/morpheme/forgelight_example.mrn";
const std::string example_nsa_path = std::string(RIGRIP_SOURCE_DIR) + "/examples/morpheme/Male_Wave.nsa";

bytes generate() {
  pack_context pc;
  diagnostics d;
  pc.diags = &d;
  return pack_mrn(morpheme_test::example_scene(), pc);
}

struct read_out {
  result<scene> s = make_error(code::internal, "unset");
  diagnostics diags;
};

read_out read_bytes_as(const bytes& b, bool nsa = false, read_options o = {}, const std::string& path = "test.mrn") {
  read_out out;
  read_context ctx;
  ctx.path = path;
  ctx.data = b;
  ctx.options = o;
  ctx.diags = &out.diags;
  ctx.load = [](const std::string& p) -> result<bytes> { return test::read_bytes(p); };
  out.s = core::guarded(path, nsa ? "morpheme-nsa" : "morpheme-mrn", [&]() -> scene {
    auto s = nsa ? read_nsa_scene(ctx) : read_mrn_scene(ctx);
    auto v = s.validate();
    if (!v) core::fail(v.error().code, v.error().message);
    return s;
  });
  return out;
}

bool has_warning(const diagnostics& d, code c) {
  for (const auto& w : d.warnings)
    if (w.code == c) return true;
  return false;
}

const animation* find_anim(const scene& s, const std::string& n) {
  for (const auto& a : s.animations)
    if (a.name == n) return &a;
  return nullptr;
}
const track* find_track(const animation& a, const std::string& bone, path p) {
  for (const auto& t : a.tracks)
    if (t.bone == bone && t.path == p) return &t;
  return nullptr;
}

TEST(MrnExample, GeneratedFileIsUpToDate) {
  auto b = generate();
  if (std::getenv("RIGRIP_REGENERATE_EXAMPLES")) test::write_bytes(example_path, b);
  auto have = test::read_bytes(example_path);
  EXPECT_EQ(have, b) << "regenerate with RIGRIP_REGENERATE_EXAMPLES=1";
  // The standalone NSA example is the Male_Wave payload; it pairs with the folder's only .mrn.
  auto nsa = parse_mrn(b).packets[1].payload;
  if (std::getenv("RIGRIP_REGENERATE_EXAMPLES")) test::write_bytes(example_nsa_path, nsa);
  EXPECT_EQ(test::read_bytes(example_nsa_path), nsa);
}

TEST(MrnExample, PacketsAndSegmentKinds) {
  auto f = parse_mrn(generate());
  std::vector<std::uint32_t> types;
  for (const auto& p : f.packets) types.push_back(p.type);
  EXPECT_EQ(types, (std::vector<std::uint32_t>{0x10, 0x10, 0x10, 0x10, 0x10, 1, 2, 1, 2, 0x0E, 0x0F}));
  std::vector<nsa_file> n;
  for (const auto& p : f.packets)
    if (p.type == pt_nsa) n.push_back(parse_nsa(core::byte_reader(p.payload, core::endian::little, p.payload_offset())));
  ASSERT_EQ(n.size(), 5u);
  EXPECT_FALSE(n[0].dynamic_segment);  // Idle: pure static pose
  EXPECT_FALSE(n[0].trajectory);
  EXPECT_EQ(n[1].dynamic_segment->translation_count, 0u);  // Wave: zero dynamic translations
  EXPECT_EQ(n[1].dynamic_segment->rotation_count, 3u);
  EXPECT_EQ(n[1].dynamic_segment->rotation_info.size(), 4u);
  EXPECT_EQ(n[1].dynamic_segment->rotation_row_stride, 20u);
  EXPECT_FALSE(n[2].trajectory->constant_rotation);  // Walk: factor form
  EXPECT_TRUE(n[2].trajectory->has_translation);
  EXPECT_EQ(n[2].dynamic_segment->translation_count, 1u);
  EXPECT_EQ(n[3].static_segment->rotation_count, 0u);  // Turn: static R = 0
  EXPECT_EQ(n[3].dynamic_segment->rotation_count, 6u);
  EXPECT_TRUE(n[3].trajectory->constant_rotation);
  EXPECT_FALSE(n[3].trajectory->has_translation);
  for (const auto& x : n) EXPECT_EQ(x.crc, x.computed_crc);
}

TEST(MrnExample, ReadsSkeletonsNamesAndAnimations) {
  auto r = read_bytes_as(generate());
  ASSERT_TRUE(r.s.ok()) << r.s.error().to_string();
  const auto& s = r.s.value();
  ASSERT_EQ(s.skeletons.size(), 2u);
  EXPECT_EQ(s.skeletons[0].name, "Male");
  EXPECT_EQ(s.skeletons[1].name, "Turret");
  ASSERT_EQ(s.skeletons[0].bones.size(), 7u);
  EXPECT_EQ(s.skeletons[0].bones[6].name, "arm");
  EXPECT_EQ(s.skeletons[0].bones[6].parent, 5);
  EXPECT_NEAR(s.skeletons[0].bones[6].translation[0], 0.3f, 1e-6f);
  EXPECT_NEAR(std::fabs(core::dot(s.skeletons[0].bones[6].rotation, morpheme_test::about(0, 0, 1, 10))), 1.0f, 1e-6f);
  ASSERT_EQ(s.animations.size(), 5u);
  auto* walk = find_anim(s, "Male_Walk");
  ASSERT_TRUE(walk);
  EXPECT_EQ(walk->extras["root_motion"][0], "trajectory");
  EXPECT_EQ(walk->extras["channel_map"].get<std::string>().rfind("skeleton-map", 0), 0u);
  auto* fire = find_anim(s, "Turret_Fire");
  ASSERT_TRUE(fire);
  EXPECT_EQ(fire->skeleton, 1);
  EXPECT_EQ(s.metadata["channel_mapping"], "skeleton-map (5 animations)");
  // Static channels: two keys, at 0 and the duration.
  auto* idle = find_anim(s, "Male_Idle");
  auto* t = find_track(*idle, "arm", path::rotation);
  ASSERT_TRUE(t);
  EXPECT_EQ(t->times, (std::vector<float>{0.0f, 1.0f}));
  EXPECT_TRUE(r.diags.warnings.empty());
}

TEST(MrnExample, ConvertsToValidGlbAndInPlaceDropsRootMotion) {
  auto r = read_bytes_as(generate());
  ASSERT_TRUE(r.s.ok());
  gltf::write_options o;
  diagnostics d;
  auto path = test::out_path("morpheme_example.glb");
  auto w = gltf::write(r.s.value(), o, d);
  ASSERT_TRUE(w.ok()) << w.error().to_string();
  test::write_bytes(path, w->main);
  std::string report;
  int errors = test::gltf_validator_errors(path, &report);
  if (errors < 0) GTEST_SKIP() << "node / gltf-validator not available";
  EXPECT_EQ(errors, 0) << report;
  o.in_place = true;
  auto prepared = gltf::prepare(r.s.value(), o, d);
  EXPECT_FALSE(find_track(*find_anim(prepared, "Male_Walk"), "trajectory", path::translation));
}

TEST(MrnExample, UpperCaseBones) {
  read_options o;
  o.upper_case_bones = true;
  auto r = read_bytes_as(generate(), false, o);
  ASSERT_TRUE(r.s.ok());
  EXPECT_EQ(r.s->skeletons[0].bones[2].name, "TRAJECTORY");
  EXPECT_TRUE(find_track(*find_anim(r.s.value(), "Male_Walk"), "TRAJECTORY", path::translation));
}

TEST(MrnRewrite, ByteIdenticalIncludingOpaquePackets) {
  auto b = generate();
  EXPECT_EQ(serialise_mrn(parse_mrn(b)), b);
  // An unknown packet type with 4-byte alignment, odd fill bytes and a trailing tail.
  std::vector<packet> ps = parse_mrn(b).packets;
  auto odd = make_packet(0x55, 7, bytes{1, 2, 3, 4, 5});
  odd.alignment = 4;
  odd.unknown = {9, 8, 7, 6};
  ps.insert(ps.begin() + 2, odd);
  auto with_odd = layout_mrn(ps);
  with_odd[with_odd.size() - 1] = 0xCD;  // fill byte that is not zero
  with_odd.insert(with_odd.end(), {0, 0, 0xCD});
  auto f = parse_mrn(with_odd);
  EXPECT_EQ(serialise_mrn(f), with_odd);
  auto r = read_bytes_as(with_odd);
  ASSERT_TRUE(r.s.ok()) << r.s.error().to_string();
  EXPECT_TRUE(has_warning(r.diags, code::w_opaque_data));
}

// Throughput: a synthetic MRN of 20 animations x 80 bones x 151 samples reads well within
// the 1 s per MB budget.
TEST(MrnPerformance, LargeFileReadsQuickly) {
  scene s;
  skeleton sk;
  sk.name = "Big";
  for (int b = 0; b < 80; ++b) {
    bone x;
    x.name = "b" + std::to_string(b);
    x.parent = b - 1;
    x.translation = {0, 0.1f, 0};
    sk.bones.push_back(x);
  }
  s.skeletons.push_back(sk);
  for (int a = 0; a < 20; ++a) {
    animation an;
    an.name = "Big_" + std::to_string(a);
    an.duration = 5.0;
    an.fps = 30;
    for (int b = 0; b < 80; ++b) {
      track t;
      t.bone = "b" + std::to_string(b);
      t.times = {0, 2.5f, 5};
      for (float deg : {0.f, 20.f + b, 0.f}) {
        auto q = morpheme_test::about(0, 0, 1, deg);
        t.values.insert(t.values.end(), q.begin(), q.end());
      }
      an.tracks.push_back(t);
      track p;
      p.bone = t.bone;
      p.path = path::translation;
      p.times = {0, 5};
      p.values = {0, 0.1f, 0, 0.01f * a, 0.1f, 0};
      an.tracks.push_back(p);
    }
    s.animations.push_back(an);
  }
  pack_context pc;
  auto b = pack_mrn(s, pc);
  auto t0 = std::chrono::steady_clock::now();
  auto out = read_bytes_as(b);
  auto secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  ASSERT_TRUE(out.s.ok()) << out.s.error().to_string();
  EXPECT_EQ(out.s->animations.size(), 20u);
  std::cout << b.size() << " bytes read in " << secs << " s\n";
  EXPECT_LT(secs, 1.0 + 4.0 * static_cast<double>(b.size()) / 1e6);
}

TEST(MrnPackets, EventTracksAreListed) {
  auto ps = parse_mrn(generate()).packets;
  ps.push_back(make_packet(pt_event_track, 21, bytes(24, 0)));
  ps.push_back(make_packet(pt_event_track_duration, 22, bytes(40, 0)));
  auto out = read_bytes_as(layout_mrn(ps));
  ASSERT_TRUE(out.s.ok()) << out.s.error().to_string();
  const auto& ev = out.s->metadata["morpheme"]["event_tracks"];
  ASSERT_EQ(ev.size(), 2u);
  EXPECT_EQ(ev[0]["kind"], "discrete");
  EXPECT_EQ(ev[1]["kind"], "duration");
  EXPECT_EQ(ev[1]["id"], 22);
  EXPECT_FALSE(has_warning(out.diags, code::w_opaque_data));  // known types are not "unknown"
}

// Encoder -> decoder: every value within one quantisation step of its factor set
// (rotations: the angle of one MRP step, about 4 x |step| radians).
TEST(NsaRoundTrip, EncodeDecodeWithinOneStep) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> u(-1, 1);
  nsa_input in;
  in.sample_rate = 30;
  in.sample_count = 17;
  const int n = 301;  // more than 256 channels: factor sets are shared by groups
  in.channels.resize(n);
  for (int c = 0; c < n; ++c) {
    auto& ch = in.channels[static_cast<std::size_t>(c)];
    float scale = (c % 5 + 1) * 3.0f;
    vec3 base{u(rng) * scale, u(rng) * scale, u(rng) * scale};
    quat q0 = core::normalize({u(rng), u(rng), u(rng), u(rng)});
    if (c % 7 == 0) ch.translation = {base};
    if (c % 11 != 3) {
      if (c % 3 == 0) ch.rotation = {q0};
      else
        for (int s = 0; s < 17; ++s)
          ch.rotation.push_back(core::normalize(core::multiply(q0, core::axis_angle({u(rng), u(rng), 0.5f}, 0.2f * s * u(rng)))));
    }
    if (c % 7 != 0)
      for (int s = 0; s < 17; ++s) ch.translation.push_back({base[0] + u(rng), base[1] + 0.1f * s, base[2] - u(rng) * scale});
  }
  in.has_trajectory = true;
  for (int s = 0; s < 17; ++s) {
    in.trajectory_translation.push_back({0.1f * s, 0, -0.3f * s});
    in.trajectory_rotation.push_back(core::axis_angle({0, 1, 0}, 0.05f * s));
  }
  auto raw = encode_nsa(in);
  auto b = serialise_nsa(raw);
  auto f = parse_nsa(core::byte_reader(b));
  auto d = decode_nsa(f);
  ASSERT_EQ(d.channels.size(), static_cast<std::size_t>(n));
  // Angle between rotations from the vector part of conj(a) * b: precise for small angles,
  // where acos of a float dot product is not.
  auto angle = [](quat a, quat b) {
    quat r = core::multiply(core::conjugate(core::normalize(a)), core::normalize(b));
    double v = std::sqrt(double(r[0]) * r[0] + double(r[1]) * r[1] + double(r[2]) * r[2]);
    return static_cast<float>(2.0 * std::asin(std::min(1.0, v)));
  };
  auto norm3 = [](const std::array<float, 3>& v) { return std::sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]); };
  std::size_t checked = 0;
  for (int c = 0; c < n; ++c) {
    const auto& want = in.channels[static_cast<std::size_t>(c)];
    const auto& got = d.channels[static_cast<std::size_t>(c)];
    ASSERT_EQ(want.translation.size(), got.translation.size()) << c;
    ASSERT_EQ(want.rotation.size(), got.rotation.size()) << c;
    // Step sizes from the factor set each value used.
    for (std::size_t s = 0; s < want.translation.size(); ++s)
      for (int a = 0; a < 3; ++a) {
        float step;
        if (want.translation.size() == 1) step = f.static_segment->translation_factors.extent[a];
        else {
          auto j = std::find(f.indices[3]->begin(), f.indices[3]->end(), c) - f.indices[3]->begin();
          step = f.translation_factors[f.dynamic_segment->translation_info[static_cast<std::size_t>(j)].index[a]].extent[a];
        }
        EXPECT_LE(std::fabs(want.translation[s][a] - got.translation[s][a]), step + 1e-5f) << c << " " << s;
        ++checked;
      }
    for (std::size_t s = 0; s < want.rotation.size(); ++s) {
      std::array<float, 3> step;
      if (want.rotation.size() == 1) step = f.static_segment->rotation_factors.extent;
      else {
        auto j = std::find(f.indices[4]->begin(), f.indices[4]->end(), c) - f.indices[4]->begin();
        const auto& info = f.dynamic_segment->rotation_info[static_cast<std::size_t>(j)];
        for (int a = 0; a < 3; ++a) step[a] = f.rotation_factors[info.index[a]].extent[a];
      }
      EXPECT_LE(angle(want.rotation[s], got.rotation[s]), 4 * norm3(step) + 2e-4f) << c << " " << s;
      ++checked;
    }
  }
  EXPECT_GT(checked, 5000u);
  EXPECT_LE(f.translation_factors.size(), 256u);
  for (int s = 0; s < 17; ++s) {
    for (int a = 0; a < 3; ++a)
      EXPECT_LE(std::fabs(d.trajectory_translation[s][a] - in.trajectory_translation[s][a]), f.trajectory->translation_factors.extent[a] + 1e-5f);
    EXPECT_LE(angle(d.trajectory_rotation[s], in.trajectory_rotation[s]), 4 * norm3(f.trajectory->rotation_factors.extent) + 2e-4f);
  }
}

// Scene -> MRN -> scene: every track sampled at the frame times agrees with the source.
TEST(MrnRoundTrip, PackThenReadWithinQuantisation) {
  auto src = morpheme_test::example_scene();
  auto r = read_bytes_as(generate());
  ASSERT_TRUE(r.s.ok());
  for (const auto& a : src.animations) {
    auto* b = find_anim(r.s.value(), a.name);
    ASSERT_TRUE(b) << a.name;
    EXPECT_NEAR(b->duration, a.duration, 1e-5);
    const auto& sk = src.skeletons[static_cast<std::size_t>(a.skeleton)];
    for (const auto& bone : sk.bones) {
      for (int i = 0; i <= 10; ++i) {
        float t = static_cast<float>(a.duration * i / 10.0);
        t = std::round(t * 30.0f) / 30.0f;  // frame times only
        auto* wt = find_track(a, bone.name, path::translation);
        auto* gt = find_track(*b, bone.name, path::translation);
        ASSERT_TRUE(gt) << a.name << " " << bone.name;
        auto want = wt ? scene_ops::sample(*wt, t) : std::vector<float>(bone.translation.begin(), bone.translation.end());
        auto got = scene_ops::sample(*gt, t);
        for (int c = 0; c < 3; ++c) EXPECT_NEAR(got[c], want[c], 2e-3f) << a.name << " " << bone.name << " t=" << t;
        auto* wr = find_track(a, bone.name, path::rotation);
        auto* gr = find_track(*b, bone.name, path::rotation);
        ASSERT_TRUE(gr);
        auto wq = wr ? scene_ops::sample(*wr, t) : std::vector<float>(bone.rotation.begin(), bone.rotation.end());
        auto gq = scene_ops::sample(*gr, t);
        float dot = std::fabs(wq[0] * gq[0] + wq[1] * gq[1] + wq[2] * gq[2] + wq[3] * gq[3]);
        EXPECT_GT(dot, 1 - 1e-5f) << a.name << " " << bone.name << " t=" << t;
      }
    }
  }
}

// Through glTF as the CLI does: MRN -> glb -> scene -> MRN -> scene.
TEST(MrnRoundTrip, ThroughGlb) {
  auto r = read_bytes_as(generate());
  ASSERT_TRUE(r.s.ok());
  diagnostics d;
  auto glb = gltf::write(r.s.value(), gltf::write_options{}, d);
  ASSERT_TRUE(glb.ok());
  auto back = gltf::read(glb->main, "x.glb", d);
  ASSERT_TRUE(back.ok()) << back.error().to_string();
  pack_context pc;
  pc.diags = &d;
  auto mrn = pack_mrn(back.value(), pc);
  auto again = read_bytes_as(mrn);
  ASSERT_TRUE(again.s.ok()) << again.s.error().to_string();
  ASSERT_EQ(again.s->animations.size(), 5u);
  auto* w = find_anim(again.s.value(), "Male_Walk");
  ASSERT_TRUE(w);
  EXPECT_TRUE(w->extras.contains("root_motion"));
  auto* t0 = find_track(*find_anim(r.s.value(), "Male_Walk"), "trajectory", path::translation);
  auto* t1 = find_track(*w, "trajectory", path::translation);
  ASSERT_TRUE(t0 && t1);
  for (float t : {0.0f, 1.0f, 2.0f})
    for (int c = 0; c < 3; ++c) EXPECT_NEAR(scene_ops::sample(*t0, t)[c], scene_ops::sample(*t1, t)[c], 3e-3f);
}

// The bind pose is read for the hierarchy's bone count. The DataBuffer word at B + 0x18 is
// only compared: a file whose word is 2 (the element-array count in one reading of morpheme's
// DataBuffer) used to lose its whole bind pose.
TEST(MrnSkeleton, BindPoseIsReadForTheBoneCountWhateverTheBufferWordSays) {
  auto b = generate();
  auto reference = read_bytes_as(b);
  ASSERT_TRUE(reference.s.ok());
  EXPECT_FALSE(has_warning(reference.diags, code::w_suspicious_value));
  auto f = parse_mrn(b);
  const auto& p = f.packets[5];
  ASSERT_EQ(p.type, pt_skeleton);
  core::byte_reader r(p.payload);
  std::uint64_t bind = r.u64_at(0x48);
  ASSERT_EQ(r.u32_at(bind + 16 + 0x18), 7u);  // our writer puts the bone count there
  morpheme_test::builder bb(0);
  bb.b = b;
  bb.u32(static_cast<std::size_t>(p.payload_offset() + bind + 16 + 0x18), 2);
  auto out = read_bytes_as(bb.b);
  ASSERT_TRUE(out.s.ok()) << out.s.error().to_string();
  EXPECT_FALSE(has_warning(out.diags, code::w_fallback));
  bool named = false;
  for (const auto& w : out.diags.warnings)
    if (w.code == code::w_suspicious_value && w.message.find("count word says 2, the hierarchy 7 bones") != std::string::npos)
      named = true;
  EXPECT_TRUE(named);
  const auto& got = out.s->skeletons[0].bones;
  const auto& want = reference.s->skeletons[0].bones;
  ASSERT_EQ(got.size(), 7u);
  int away_from_origin = 0;
  for (std::size_t i = 0; i < got.size(); ++i) {
    EXPECT_EQ(got[i].translation, want[i].translation) << i;
    EXPECT_EQ(got[i].rotation, want[i].rotation) << i;
    if (i >= 2 && got[i].translation != vec3{0, 0, 0}) ++away_from_origin;
  }
  EXPECT_GE(away_from_origin, 3);  // bones past the word's 2 keep their pose
  // The raw layer still writes the file back byte for byte, and dump --raw shows the word.
  auto again = parse_mrn(bb.b);
  EXPECT_EQ(serialise_mrn(again), bb.b);
  EXPECT_EQ(mrn_to_json(again)["packets"][5]["decoded"]["bind_pose_count_word"], 2);
}

TEST(MrnSkeleton, HierarchyAndChainDisagreementWarns) {
  auto b = generate();
  auto f = parse_mrn(b);
  const auto& p = f.packets[5];
  ASSERT_EQ(p.type, pt_skeleton);
  core::byte_reader r(p.payload);
  std::uint64_t hier = r.u64_at(0x30);
  // bone 6 ('arm') parent 5 -> 4 in the hierarchy array only.
  morpheme_test::builder bb(0);
  bb.b = b;
  bb.u32(p.payload_offset() + hier + 16 + 4 * 6, 4);
  auto out = read_bytes_as(bb.b);
  ASSERT_TRUE(out.s.ok());
  EXPECT_TRUE(has_warning(out.diags, code::w_suspicious_value));
  EXPECT_EQ(out.s->skeletons[0].bones[6].parent, 4);  // the hierarchy array wins
}

TEST(MrnMapping, FallbackWithoutSkeletonMapWarnsAndSaysSo) {
  auto f = parse_mrn(generate());
  for (auto& p : f.packets)
    if (p.type == pt_skeleton_map) p.type = 0x42;  // now opaque
  auto out = read_bytes_as(serialise_mrn(f));
  ASSERT_TRUE(out.s.ok()) << out.s.error().to_string();
  EXPECT_TRUE(has_warning(out.diags, code::w_fallback));
  EXPECT_EQ(out.s->metadata["channel_mapping"], "bone-count-offset (5 animations)");
  EXPECT_EQ(find_anim(out.s.value(), "Male_Wave")->extras["channel_map"], "bone-count offset 0 (fallback)");
}

TEST(MrnMapping, SkeletonMapIndicesAreUsed) {
  // Channel 6 and 5 swapped in the map: the 'arm' rotation now drives 'spine'.
  auto f = parse_mrn(generate());
  auto& p = f.packets[6];
  ASSERT_EQ(p.type, pt_skeleton_map);
  core::byte_reader r(p.payload);
  auto m = r.u64_at(0x20);
  auto at = m + r.u64_at(m + 8);
  morpheme_test::builder bb(0);
  bb.b = p.payload;
  bb.u16(at + 2 * 5, 6);
  bb.u16(at + 2 * 6, 5);
  p.payload = bb.b;
  auto out = read_bytes_as(serialise_mrn(f));
  ASSERT_TRUE(out.s.ok());
  auto* wave = find_anim(out.s.value(), "Male_Wave");
  auto* spine = find_track(*wave, "spine", path::rotation);
  ASSERT_TRUE(spine);
  EXPECT_EQ(spine->times.size(), 31u);  // was the arm's dynamic track
}

TEST(NsaStandalone, PairedWithMrnBySkeletonOption) {
  auto b = generate();
  auto mrn_path = test::out_path("morpheme_pair.mrn");
  test::write_bytes(mrn_path, b);
  auto f = parse_mrn(b);
  read_options o;
  o.skeleton_path = mrn_path;
  auto out = read_bytes_as(f.packets[1].payload, true, o, test::out_path("Male_Wave.nsa"));
  ASSERT_TRUE(out.s.ok()) << out.s.error().to_string();
  ASSERT_EQ(out.s->animations.size(), 1u);
  EXPECT_EQ(out.s->animations[0].name, "Male_Wave");
  EXPECT_EQ(out.s->animations[0].extras["file_name"], "Male_Wave.nsa");
  EXPECT_TRUE(find_track(out.s->animations[0], "arm", path::rotation));
}

TEST(MrnMapping, AnimationOnlyMrnBorrowsRigsWithSkeletonOption) {
  auto b = generate();
  auto mrn_path = test::out_path("morpheme_rigs.mrn");
  test::write_bytes(mrn_path, b);
  std::vector<packet> keep;
  for (const auto& p : parse_mrn(b).packets)
    if (p.type == pt_nsa || p.type == pt_file_names) keep.push_back(p);
  auto anims_only = layout_mrn(keep);
  auto no = read_bytes_as(anims_only);
  ASSERT_FALSE(no.s.ok());
  EXPECT_EQ(no.s.error().code, code::missing_skeleton);
  read_options o;
  o.skeleton_path = mrn_path;
  auto out = read_bytes_as(anims_only, false, o);
  ASSERT_TRUE(out.s.ok()) << out.s.error().to_string();
  EXPECT_EQ(out.s->skeletons.size(), 2u);
  EXPECT_EQ(out.s->animations.size(), 5u);
  EXPECT_EQ(find_anim(out.s.value(), "Turret_Fire")->skeleton, 1);
  EXPECT_EQ(out.s->metadata["channel_mapping"], "skeleton-map (5 animations)");
}

TEST(NsaStandalone, MissingSkeletonIsAClearError) {
  auto f = parse_mrn(generate());
  auto out = read_bytes_as(f.packets[1].payload, true, {}, "/nonexistent-dir/x.nsa");
  ASSERT_FALSE(out.s.ok());
  EXPECT_EQ(out.s.error().code, code::missing_skeleton);
  EXPECT_NE(out.s.error().message.find("--skeleton"), std::string::npos);
}

TEST(MrnDamage, X86MrnIsRefused) {
  morpheme_test::builder b(0x40);
  b.u32(0, 0x18);
  b.u32(4, 0x06);
  auto out = read_bytes_as(b.b);
  ASSERT_FALSE(out.s.ok());
  EXPECT_EQ(out.s.error().code, code::unsupported_version);
  EXPECT_NE(out.s.error().message.find("32-bit"), std::string::npos);
}

TEST(MrnDamage, PacketLengthCountFFFFFFFF) {
  auto b = generate();
  morpheme_test::builder bb(0);
  bb.b = b;
  bb.u32(0x20, 0xFFFFFFFFu);
  auto t0 = std::chrono::steady_clock::now();
  auto out = read_bytes_as(bb.b);
  ASSERT_FALSE(out.s.ok());
  EXPECT_EQ(out.s.error().code, code::bad_count);
  EXPECT_EQ(out.s.error().offset, 0x20u);
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(1));
}

TEST(MrnDamage, CountFFFFFFFFInEveryCountField) {
  auto b = generate();
  auto f = parse_mrn(b);
  // Bone count, chain count, bone-name count, map channel count, file-name count, NSA sample count.
  std::vector<std::uint64_t> at;
  {
    const auto& p = f.packets[5];
    core::byte_reader r(p.payload);
    at.push_back(p.payload_offset() + r.u64_at(0x30));
    at.push_back(p.payload_offset() + 0x20);
    at.push_back(p.payload_offset() + r.u64_at(0x40));
  }
  {
    const auto& p = f.packets[6];
    core::byte_reader r(p.payload);
    at.push_back(p.payload_offset() + r.u64_at(0x20));
    at.push_back(p.payload_offset() + r.u64_at(0x08) + 4);
  }
  {
    const auto& p = f.packets[9];
    core::byte_reader r(p.payload);
    at.push_back(p.payload_offset() + r.u64_at(0));
  }
  {
    const auto& p = f.packets[1];
    core::byte_reader r(p.payload);
    at.push_back(p.payload_offset() + r.u64_at(0xA8));
    at.push_back(p.payload_offset() + 0x7C);
  }
  for (std::size_t k = 0; k < at.size(); ++k) {
    morpheme_test::builder bb(0);
    bb.b = b;
    bb.u32(at[k], 0xFFFFFFFFu);
    auto out = read_bytes_as(bb.b);
    if (k < 6) {
      ASSERT_FALSE(out.s.ok()) << "count at " << at[k];
      EXPECT_NE(out.s.error().offset, no_offset) << out.s.error().to_string();
    } else {
      // A damaged NSA is skipped with a warning that names the error and its offset.
      ASSERT_TRUE(out.s.ok()) << out.s.error().to_string();
      EXPECT_EQ(out.s->animations.size(), 4u);
      ASSERT_TRUE(has_warning(out.diags, code::w_unsupported_part));
      EXPECT_NE(out.diags.warnings.back().offset, no_offset);
      EXPECT_NE(out.diags.warnings.back().message.find("E_BAD_COUNT"), std::string::npos) << out.diags.warnings.back().message;
    }
  }
}

TEST(MrnDamage, TruncationAndByteFlipLoop) {
  auto b = generate();
  std::mt19937 rng(1234);
  auto t0 = std::chrono::steady_clock::now();
  std::size_t failures = 0, runs = 0;
  for (std::size_t cut = 0; cut < b.size(); cut += 97) {
    bytes t(b.begin(), b.begin() + static_cast<std::ptrdiff_t>(cut));
    auto out = read_bytes_as(t);
    failures += !out.s.ok();
    ++runs;
    if (!out.s.ok()) EXPECT_NE(out.s.error().code, code::internal) << out.s.error().to_string();
  }
  // RIGRIP_MORPHEME_MUTATIONS=N runs a longer campaign (CI keeps the default short).
  int iterations = std::getenv("RIGRIP_MORPHEME_MUTATIONS") ? std::atoi(std::getenv("RIGRIP_MORPHEME_MUTATIONS")) : 400;
  for (int i = 0; i < iterations; ++i) {
    bytes m = b;
    int flips = 1 + static_cast<int>(rng() % 4);
    for (int k = 0; k < flips; ++k) m[rng() % m.size()] ^= static_cast<std::uint8_t>(1u << (rng() % 8));
    auto out = read_bytes_as(m);
    ++runs;
    if (!out.s.ok()) {
      ++failures;
      EXPECT_NE(out.s.error().code, code::internal) << out.s.error().to_string();
    }
    // The raw layer and dump never crash either.
    auto j = core::guarded("m", "morpheme-mrn", [&] { return mrn_to_json(parse_mrn(m)); });
    (void)j;
  }
  EXPECT_GT(failures, 10u);
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(60 + iterations / 10));
  std::cout << runs << " runs, " << failures << " clean errors\n";
}

}  // namespace
