// Tests of the sf3 family (Shining Force III battle meshes): hand-built byte vectors for
// the LZSS and the skeleton stream, the real samples (counts, values from the issue,
// glTF validity, an intact posed character), raw dump shape, rewrite, pack, damage.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <set>

#include <gtest/gtest.h>

#include "core/math.hpp"
#include "scene/pose.hpp"
#include "formats/sf3/decode.hpp"
#include "formats/sf3/lzss.hpp"
#include "formats/sf3/x8an.hpp"
#include "formats/sf3/x8pc.hpp"
#include "rigrip/gltf.hpp"
#include "rigrip/registry.hpp"
#include "synthetic.hpp"
#include "test_support.hpp"

std::vector<rigrip::format> rigrip_family_sf3();

namespace rigrip::sf3 {
namespace {

using nlohmann::json;

const format& fmt(std::string_view id) {
  static const std::vector<format> table = rigrip_family_sf3();
  for (const auto& f : table)
    if (f.id == id) return f;
  throw std::runtime_error("format not registered");
}

struct ctx_holder {
  bytes data;
  diagnostics diags;
  read_context ctx;
  explicit ctx_holder(bytes d, const std::string& path, bool fs = true) : data(std::move(d)) {
    ctx.path = path;
    ctx.data = data;
    ctx.diags = &diags;
    if (fs)
      ctx.load = [](const std::string& p) -> result<bytes> {
        if (!std::filesystem::exists(p)) return make_error(code::io_error, "missing " + p);
        return test::read_bytes(p);
      };
  }
};

result<scene> read_file(const std::string& path, const format& f, std::optional<std::string> skeleton = {}) {
  ctx_holder h(test::read_bytes(path), path);
  h.ctx.options.skeleton_path = skeleton;
  auto s = f.read(h.ctx);
  if (s) {
    auto v = s->validate();
    if (!v) return v.error();
  }
  return s;
}

json dump(const std::string& path, const format& f) {
  ctx_holder h(test::read_bytes(path), path);
  auto j = f.dump_raw(h.ctx);
  if (!j) throw std::runtime_error(j.error().to_string());
  return j.value();
}

std::uint32_t be32(const bytes& b, std::size_t at) {
  return std::uint32_t(b[at]) << 24 | std::uint32_t(b[at + 1]) << 16 | std::uint32_t(b[at + 2]) << 8 | b[at + 3];
}
void put32(bytes& b, std::size_t at, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) b[at + static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(v >> (24 - 8 * i));
}

// ------------------------------------------------------------ hand-built vectors

TEST(Lzss, LiteralsCopyAndEnd) {
  // ctrl 0x3000: w0, w1 literal; w2 copy (back 2, len 0+2); w3 end.
  const bytes in{0x30, 0x00, 0x11, 0x11, 0x22, 0x22, 0x00, 0x40, 0x00, 0x00};
  core::byte_reader r(in, core::endian::big);
  std::size_t used = 0;
  auto out = lzss_decompress(r, 64, &used);
  EXPECT_EQ(out, (bytes{0x11, 0x11, 0x22, 0x22, 0x11, 0x11, 0x22, 0x22}));
  EXPECT_EQ(used, in.size());
}

TEST(Lzss, OverlappingCopyRepeatsAWord) {
  // literal 0xABCD, then copy back 1 len 1+2 = 3 -> four 0xABCD words.
  const bytes in{0x60, 0x00, 0xAB, 0xCD, 0x00, 0x21, 0x00, 0x00};
  core::byte_reader r(in, core::endian::big);
  EXPECT_EQ(lzss_decompress(r, 64), (bytes{0xAB, 0xCD, 0xAB, 0xCD, 0xAB, 0xCD, 0xAB, 0xCD}));
}

TEST(Lzss, CopyBeforeStartAndOverflowFailCleanly) {
  const bytes bad_back{0x80, 0x00, 0x00, 0x41};  // copy 2 back with nothing decoded
  core::byte_reader r(bad_back, core::endian::big);
  EXPECT_THROW((void)lzss_decompress(r, 64), core::failure);
  const bytes big{0x60, 0x00, 0xAB, 0xCD, 0x00, 0x3F, 0x00, 0x00};  // 33 words into a 16-byte limit
  core::byte_reader r2(big, core::endian::big);
  try {
    (void)lzss_decompress(r2, 16);
    FAIL() << "expected failure";
  } catch (const core::failure& f) {
    EXPECT_EQ(f.error().code, code::bad_count);
    EXPECT_NE(f.error().message.find("vram_size"), std::string::npos);
  }
}

TEST(Skeleton, PushPopDrawAndTags) {
  // FD 00 FD 00 FE 09 <pad to 4> POINT FE FE : two bones, two draws, one chest tag on bone 0.
  bytes s{0xFD, 0x00, 0xFD, 0x00, 0xFE, 0x09, 0x00, 0x00,
          0x00, 0x01, 0x00, 0x00, 0xFF, 0xFF, 0x00, 0x00, 0x00, 0x00, 0x80, 0x00, 0xFE, 0xFE, 0x00, 0x00};
  core::byte_reader r(s, core::endian::big);
  auto sk = parse_skeleton(r, 0);
  EXPECT_EQ(sk.parent, (std::vector<int>{-1, 0}));
  EXPECT_EQ(sk.mesh_bone, (std::vector<int>{0, 1}));
  ASSERT_EQ(sk.tags.size(), 1u);
  EXPECT_EQ(sk.tags[0].code, 0x09);
  EXPECT_EQ(sk.tags[0].parent, 0);
  EXPECT_FLOAT_EQ(sk.tags[0].position[0], 1.0f);
  EXPECT_FLOAT_EQ(sk.tags[0].position[1], -1.0f);
  EXPECT_FLOAT_EQ(sk.tags[0].position[2], 0.5f);
  EXPECT_EQ(sk.length, 22u);
  bytes bad{0xFD, 0x42, 0xFE, 0xFE};
  core::byte_reader r2(bad, core::endian::big);
  EXPECT_THROW((void)parse_skeleton(r2, 0), core::failure);
}

TEST(KeyTable, CanonicalWriteReadsBack) {
  key_table t;
  key_record k;
  k.t_frames = {1, 5, 9};
  k.t = {key_vec<std::int32_t>{65536, 0, -65536}, {1, 2, 3}, {4, 5, 6}};
  k.r_frames = {1};
  k.r = {key_vec<std::int16_t>{0}, {0}, {0}, {16384}};
  k.s_frames = {1, 2};
  k.s = {key_vec<std::int32_t>{65536, 65536}, {65536, 65536}, {65536, 0}};
  t.bones = {k, k};
  core::byte_writer w(core::endian::big);
  w.u32(0);
  auto table = write_key_table(w, 0, t);
  w.patch_u32(0, table);
  bytes b = w.take();
  core::byte_reader r(b, core::endian::big);
  auto back = parse_key_table(r, table, 4);
  EXPECT_TRUE(back.canonical);
  ASSERT_EQ(back.bones.size(), 2u);
  EXPECT_EQ(back.bones[1].t[0], k.t[0]);
  EXPECT_EQ(back.bones[1].r[3], k.r[3]);
  EXPECT_EQ(back.bones[1].s_frames, k.s_frames);
  EXPECT_EQ(back.end, b.size());
  EXPECT_TRUE(looks_like_x8an(b));
}

// ------------------------------------------------------------ real samples

TEST(Samples, X8PC00ACountsAndIssueValues) {
  RIGRIP_REQUIRE_SAMPLE(path, "sf3/X8PC00A.BIN");
  auto j = dump(path, fmt("sf3-x8pc"));
  ASSERT_EQ(j["models"].size(), 1u);
  const auto& m = j["models"][0];
  EXPECT_EQ(m["bones"], 22);
  EXPECT_EQ(m["body_meshes"], 19);
  EXPECT_EQ(m["weapon"], true);
  EXPECT_EQ(m["meshes"], 20);
  EXPECT_EQ(m["textures"], 108);
  EXPECT_EQ(m["vram_size"], 0xCFE0);
  EXPECT_EQ(m["mesh_bones"], (std::vector<int>{1, 2, 3, 4, 5, 6, 7, 9, 8, 11, 12, 13, 14, 16, 17, 18, 19, 20, 21}));
  // Bone 1 at frame 1, from the issue.
  const auto& b1 = m["keyframes"][1];
  EXPECT_EQ(b1["bone"], 1);
  ASSERT_EQ(b1["translation"][0][0], 1);
  EXPECT_NEAR(b1["translation"][0][1].get<double>(), 2.8635, 1e-4);
  EXPECT_NEAR(b1["translation"][0][2].get<double>(), -0.8962, 1e-4);
  EXPECT_NEAR(b1["translation"][0][3].get<double>(), 4.3593, 1e-4);
  ASSERT_EQ(b1["rotation"][0][0], 1);
  EXPECT_NEAR(b1["rotation"][0][1].get<double>(), 0.1622, 1e-4);
  EXPECT_NEAR(b1["rotation"][0][2].get<double>(), 0.2823, 1e-4);
  EXPECT_NEAR(b1["rotation"][0][3].get<double>(), -0.0485, 1e-4);
  EXPECT_NEAR(b1["rotation"][0][4].get<double>(), 0.9442, 1e-4);
  // Tags: 0x30, 0x10, 0x11 on bone 15 and the chest tag 0x09 on bone 8 (spec section 9).
  ASSERT_EQ(m["tags"].size(), 4u);
  EXPECT_EQ(m["tags"][0]["code"], 0x30);
  EXPECT_EQ(m["tags"][0]["bone"], 15);
  EXPECT_EQ(m["tags"][3]["code"], 0x09);
  EXPECT_EQ(m["tags"][3]["bone"], 8);
  EXPECT_NEAR(m["tags"][0]["position"][0].get<double>(), -4.0511, 1e-4);

  // Textures: the LZSS output length equals vram_size.
  auto f = parse_x8pc(test::read_bytes(path));
  auto tex = decode_textures(f.models[0]);
  EXPECT_EQ(tex.vram_bytes, f.models[0].vram_size);
  EXPECT_EQ(tex.images.size(), 108u);
  for (std::size_t i = 0; i < f.models[0].textures.size(); ++i) {
    const auto& d = f.models[0].textures[i];
    EXPECT_EQ(d.hv_size, ((d.width / 8) << 8) | d.height) << "texture " << i;
  }
}

TEST(Samples, X8PC00ASceneSkeletonMeshesAnimations) {
  RIGRIP_REQUIRE_SAMPLE(path, "sf3/X8PC00A.BIN");
  auto s = read_file(path, fmt("sf3-x8pc"));
  ASSERT_TRUE(s) << s.error().to_string();
  ASSERT_EQ(s->skeletons.size(), 1u);
  const auto& sk = s->skeletons[0];
  EXPECT_EQ(sk.bones.size(), 22u + 4u);  // 22 bones + 4 tag nodes
  for (int i = 0; i < 22; ++i) {
    EXPECT_EQ(sk.bones[static_cast<std::size_t>(i)].name, "bone_" + std::to_string(i));
    EXPECT_EQ(sk.bones[static_cast<std::size_t>(i)].translation, (vec3{0, 0, 0}));  // identity bind pose
    EXPECT_EQ(sk.bones[static_cast<std::size_t>(i)].rotation, (quat{0, 0, 0, 1}));
  }
  EXPECT_GE(sk.find("tag_weapon"), 22);
  EXPECT_GE(sk.find("tag_chest"), 22);
  EXPECT_EQ(sk.bones[static_cast<std::size_t>(sk.find("tag_chest"))].parent, 8);
  EXPECT_EQ(s->textures.size(), 1u);  // one atlas
  std::set<std::string> parts;
  bool weapon_on_tag = false, coloured = false;
  for (const auto& m : s->meshes) {
    parts.insert(m.extras["sf3_part"].get<std::string>());
    EXPECT_GE(m.bone, 0);
    EXPECT_EQ(m.uvs.size(), m.positions.size());
    if (m.extras["sf3_part"] == "weapon") weapon_on_tag = m.bone == sk.find("tag_weapon");
    for (const auto& c : m.colors) coloured |= c[0] != 1 || c[1] != 1 || c[2] != 1;
  }
  EXPECT_EQ(parts.size(), 20u);
  EXPECT_TRUE(weapon_on_tag);
  EXPECT_TRUE(coloured);  // flat-coloured polygons carry vertex colours
  // all_frames + the 10 animation-table entries (6 of them from the sibling X8AN00.BIN).
  EXPECT_EQ(s->animations.size(), 11u);
  EXPECT_EQ(s->animations[0].name, "X8PC00A_all_frames");
  int with_events = 0;
  for (const auto& a : s->animations) with_events += a.name.find("_ev") != std::string::npos;
  EXPECT_EQ(with_events, 9);
  ASSERT_TRUE(s->metadata.contains("root_transform"));
  EXPECT_EQ(s->metadata["root_transform"]["rotation"], (std::vector<double>{1, 0, 0, 0}));
  // Bone 1 rotation at frame 1 in the all-frames clip.
  const auto& a = s->animations[0];
  for (const auto& t : a.tracks)
    if (t.bone == "bone_1" && t.path == path::rotation) {
      EXPECT_NEAR(t.times[0], 1.0 / 30, 1e-6);
      EXPECT_NEAR(t.values[3], 0.9442, 2e-4);
    }
}

// World matrices of the push bones at time t of animation a (identity rest pose).
std::vector<core::mat4> pose(const skeleton& sk, const animation* a, float t, bool conjugate = false) {
  std::vector<vec3> tr(sk.bones.size(), vec3{0, 0, 0}), sc(sk.bones.size(), vec3{1, 1, 1});
  std::vector<quat> ro(sk.bones.size(), quat{0, 0, 0, 1});
  for (std::size_t i = 0; i < sk.bones.size(); ++i) {
    tr[i] = sk.bones[i].translation;
    ro[i] = sk.bones[i].rotation;
    sc[i] = sk.bones[i].scale;
  }
  if (a)
    for (const auto& tk : a->tracks) {
      int b = sk.find(tk.bone);
      auto v = scene_ops::sample(tk, t);
      if (tk.path == path::translation) tr[static_cast<std::size_t>(b)] = {v[0], v[1], v[2]};
      if (tk.path == path::rotation)
        ro[static_cast<std::size_t>(b)] = conjugate ? quat{-v[0], -v[1], -v[2], v[3]} : quat{v[0], v[1], v[2], v[3]};
      if (tk.path == path::scale) sc[static_cast<std::size_t>(b)] = {v[0], v[1], v[2]};
    }
  std::vector<core::mat4> w(sk.bones.size());
  for (std::size_t i = 0; i < sk.bones.size(); ++i) {
    auto local = core::compose(tr[i], ro[i], sc[i]);
    int p = sk.bones[i].parent;
    w[i] = p < 0 ? local : core::multiply(w[static_cast<std::size_t>(p)], local);
  }
  return w;
}

vec3 apply(const core::mat4& m, const vec3& p) {
  return {m[0] * p[0] + m[4] * p[1] + m[8] * p[2] + m[12], m[1] * p[0] + m[5] * p[1] + m[9] * p[2] + m[13],
          m[2] * p[0] + m[6] * p[1] + m[10] * p[2] + m[14]};
}

// Largest growth (over connected part pairs) of the closest-vertex gap between a part and
// the part of its parent bone, compared with the bind pose.
float worst_gap_growth(const scene& s, const animation* a, float t, bool conjugate = false) {
  const int si = a ? a->skeleton : 0;
  const auto& sk = s.skeletons[static_cast<std::size_t>(si)];
  auto bind = pose(sk, nullptr, 0);
  auto posed = pose(sk, a, t, conjugate);
  std::map<int, std::vector<const mesh*>> by_bone;
  for (const auto& m : s.meshes)
    if (m.skeleton == si && m.bone >= 0) by_bone[m.bone].push_back(&m);
  auto posed_points = [&](int b, const std::vector<core::mat4>& w) {
    std::vector<vec3> out;
    for (const auto* m : by_bone[b])
      for (const auto& p : m->positions) out.push_back(apply(w[static_cast<std::size_t>(b)], p));
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());  // faces repeat their corners
    return out;
  };
  auto gap = [&](int b1, int b2, const std::vector<core::mat4>& w) {
    auto p1 = posed_points(b1, w), p2 = posed_points(b2, w);
    float best = 1e30f;
    for (const auto& q1 : p1)
      for (const auto& q2 : p2) {
        float dx = q1[0] - q2[0], dy = q1[1] - q2[1], dz = q1[2] - q2[2];
        best = std::min(best, dx * dx + dy * dy + dz * dz);
      }
    return std::sqrt(best);
  };
  float worst = 0;
  for (const auto& [b, meshes] : by_bone) {
    int p = sk.bones[static_cast<std::size_t>(b)].parent;
    while (p >= 0 && !by_bone.count(p)) p = sk.bones[static_cast<std::size_t>(p)].parent;
    if (p < 0) continue;
    worst = std::max(worst, gap(b, p, posed) - gap(b, p, bind));
  }
  return worst;
}

// ------------------------------------------------------------ synthetic model (no game data)

TEST(Synthetic, ReadsToScene) {
  bytes b = synthetic::x8pc();
  EXPECT_GE(fmt("sf3-x8pc").detect(b, "x.bin"), score::structure);
  ctx_holder h(b, "X8PC90A.BIN", false);
  auto s = fmt("sf3-x8pc").read(h.ctx);
  ASSERT_TRUE(s) << s.error().to_string();
  ASSERT_TRUE(s->validate());
  EXPECT_TRUE(h.diags.warnings.empty()) << h.diags.warnings[0].to_string();
  const auto& sk = s->skeletons[0];
  ASSERT_EQ(sk.bones.size(), 3u);
  EXPECT_EQ(sk.bones[1].parent, 0);
  EXPECT_EQ(sk.bones[2].name, "tag_chest");
  EXPECT_EQ(sk.bones[2].parent, 1);
  EXPECT_FLOAT_EQ(sk.bones[2].translation[1], -11.0f);
  ASSERT_EQ(s->meshes.size(), 2u);
  const auto& quad = s->meshes[0];
  EXPECT_EQ(quad.bone, 0);
  EXPECT_EQ(quad.positions.size(), 6u);  // two triangles
  EXPECT_FALSE(s->materials[static_cast<std::size_t>(quad.material)].double_sided);
  const auto& tri = s->meshes[1];
  EXPECT_EQ(tri.bone, 1);
  EXPECT_EQ(tri.positions.size(), 3u);  // the degenerate quad is one triangle
  EXPECT_TRUE(s->materials[static_cast<std::size_t>(tri.material)].double_sided);
  EXPECT_EQ(tri.colors[0], (vec4{1, 0, 0, 1}));  // colno 0x801F = pure red
  // The atlas holds the 8x8 texture at (4, 0); its first texel is the transparent 0x0000.
  const auto& atlas = s->textures[0];
  EXPECT_EQ(atlas.rgba[(4) * 4 + 3], 0);
  EXPECT_EQ(atlas.rgba[(5) * 4 + 3], 255);
  EXPECT_EQ(atlas.rgba[(atlas.width * 7 + 4) * 4 + 3], 255);  // row 7 = copy of row 1 (opaque)
  auto f = parse_x8pc(b);
  EXPECT_EQ(decode_textures(f.models[0]).vram_bytes, 128u);
  ASSERT_EQ(s->animations.size(), 2u);
  EXPECT_EQ(s->animations[1].name, "X8PC90A_anim00_idle_f0-10_ev3");
  EXPECT_EQ(s->animations[1].extras["events"], json::parse("[[5, 3]]"));
  for (float t : {0.0f, 0.1f, 0.2f, 0.3333f}) EXPECT_LT(worst_gap_growth(s.value(), &s->animations[1], t), 0.01f);
}

TEST(Synthetic, GltfRewritePackAndDamage) {
  bytes b = synthetic::x8pc();
  ctx_holder h(b, "X8PC90A.BIN", false);
  auto s = fmt("sf3-x8pc").read(h.ctx);
  ASSERT_TRUE(s);
  diagnostics d;
  auto w = gltf::write(s.value(), {}, d);
  ASSERT_TRUE(w);
  std::string out = test::out_path("sf3_synthetic.glb");
  test::write_bytes(out, w->main);
  std::string report;
  int errors = test::gltf_validator_errors(out, &report);
  if (errors >= 0) EXPECT_EQ(errors, 0) << report;
  auto rw = fmt("sf3-x8pc").rewrite(h.ctx);
  ASSERT_TRUE(rw);
  EXPECT_TRUE(rw.value() == b);
  pack_context c;
  c.template_file = b;
  c.template_path = "X8PC90A.BIN";
  auto packed = fmt("sf3-x8pc").pack(s.value(), c);
  ASSERT_TRUE(packed) << packed.error().to_string();
  EXPECT_TRUE(packed.value() == b);
  // Every truncation and a few thousand byte flips: values or clean errors, never a crash.
  int errs = 0;
  for (std::size_t cut = 0; cut < b.size(); cut += 97) {
    ctx_holder t(bytes(b.begin(), b.begin() + static_cast<std::ptrdiff_t>(cut)), "X8PC90A.BIN", false);
    auto r = fmt("sf3-x8pc").read(t.ctx);
    errs += !r;
    if (!r) EXPECT_NE(r.error().code, code::internal) << r.error().to_string();
  }
  std::mt19937 rng(99);
  for (int i = 0; i < 1500; ++i) {
    bytes m = b;
    std::size_t at = rng() % 2 ? rng() % 0x40 : 0x800 + rng() % (m.size() - 0x800);
    m[at] = static_cast<std::uint8_t>(rng());
    ctx_holder t(m, "X8PC90A.BIN", false);
    auto r = fmt("sf3-x8pc").read(t.ctx);
    if (r) EXPECT_TRUE(r->validate());
    else EXPECT_NE(r.error().code, code::internal) << r.error().to_string();
    (void)fmt("sf3-x8pc").dump_raw(t.ctx);
    auto rr = fmt("sf3-x8pc").rewrite(t.ctx);
    if (rr) EXPECT_TRUE(rr.value() == m) << "flip at " << at;
  }
  EXPECT_GT(errs, 0);
}

TEST(Synthetic, CommittedExampleMatchesTheBuilder) {
  std::string p = std::string(RIGRIP_SOURCE_DIR) + "/examples/sf3/X8PC90A.BIN";
  if (!std::filesystem::exists(p)) {
    test::write_bytes(test::out_path("X8PC90A.BIN"), synthetic::x8pc());
    GTEST_SKIP() << "examples/sf3/X8PC90A.BIN not present; written to the test output folder";
  }
  EXPECT_TRUE(test::read_bytes(p) == synthetic::x8pc());
}

TEST(Samples, IntactCharacterAcrossFrames) {
  RIGRIP_REQUIRE_SAMPLE(path, "sf3/X8PC00A.BIN");
  auto s = read_file(path, fmt("sf3-x8pc"));
  ASSERT_TRUE(s) << s.error().to_string();
  int checked = 0;
  for (const auto& a : s->animations) {
    if (a.name.ends_with("all_frames")) continue;
    for (float f : {0.0f, 0.25f, 0.5f, 0.75f, 1.0f}) {
      float t = static_cast<float>(a.duration) * f;
      EXPECT_LT(worst_gap_growth(s.value(), &a, t), 2.5f) << a.name << " at " << t;
      ++checked;
    }
  }
  EXPECT_GE(checked, 40);
  // The old misreading (conjugate rotation) tears the figure apart: the check can fail.
  EXPECT_GT(worst_gap_growth(s.value(), &s->animations[1], 0.5f, true), 5.0f);
}

TEST(Samples, IntactContainerModels) {
  RIGRIP_REQUIRE_SAMPLE(path, "sf3/X8PC41X.BIN");
  ctx_holder h(test::read_bytes(path), path, false);
  auto s = fmt("sf3-x8pc").read(h.ctx);
  ASSERT_TRUE(s) << s.error().to_string();
  std::set<int> models;
  for (const auto& a : s->animations) {
    if (a.name.ends_with("all_frames")) continue;
    models.insert(a.skeleton);
    for (float f : {0.0f, 0.5f, 1.0f})
      EXPECT_LT(worst_gap_growth(s.value(), &a, static_cast<float>(a.duration) * f), 2.5f) << a.name;
  }
  EXPECT_EQ(models.size(), 3u);
}

TEST(Samples, GltfValidatesForEverySample) {
  for (const char* name : {"sf3/X8PC00A.BIN", "sf3/X8PC41X.BIN", "sf3/X8AN00.BIN"}) {
    auto p = test::sample(name);
    if (!p) GTEST_SKIP() << "shared sample not present: " << name;
    const format& f = fmt(std::string(name).find("X8AN") != std::string::npos ? "sf3-x8an" : "sf3-x8pc");
    auto s = read_file(*p, f);
    ASSERT_TRUE(s) << s.error().to_string();
    diagnostics d;
    std::string out = test::out_path(std::string("sf3_") + std::filesystem::path(*p).stem().string() + ".glb");
    auto w = gltf::write(s.value(), {}, d);
    ASSERT_TRUE(w) << w.error().to_string();
    test::write_bytes(out, w->main);
    std::string report;
    int errors = test::gltf_validator_errors(out, &report);
    if (errors < 0) GTEST_SKIP() << "node / gltf-validator not available";
    EXPECT_EQ(errors, 0) << report;
  }
}

TEST(Samples, ContainerHasThreeModels) {
  RIGRIP_REQUIRE_SAMPLE(path, "sf3/X8PC41X.BIN");
  auto f = parse_x8pc(test::read_bytes(path));
  EXPECT_EQ(f.models.size(), 3u);
  EXPECT_EQ(f.stride, 0x2B800u);
  auto j = dump(path, fmt("sf3-x8pc"));
  ASSERT_EQ(j["models"].size(), 3u);
  std::vector<int> bones;
  for (const auto& m : j["models"]) {
    bones.push_back(m["bones"]);
    EXPECT_EQ(m["keyframes"].size(), m["bones"]);
    EXPECT_TRUE(m["weapon"]);
  }
  EXPECT_EQ(bones, (std::vector<int>{33, 33, 29}));
  EXPECT_EQ(f.models[0].entries.size(), 10u);  // 4 standard + 6 attack-animation chunks
  EXPECT_EQ(f.models[2].entries.size(), 9u);
  ctx_holder h(test::read_bytes(path), path);
  auto s = fmt("sf3-x8pc").read(h.ctx);
  ASSERT_TRUE(s) << s.error().to_string();
  EXPECT_EQ(s->skeletons.size(), 3u);
  // Side by side in the glTF (holder-node offsets), not on top of each other.
  std::vector<std::array<float, 2>> span(3, {1e30f, -1e30f});
  for (const auto& m : s->meshes) {
    if (m.extras["sf3_part"] == "weapon") continue;  // positions in the tag's space
    auto& sp = span[static_cast<std::size_t>(m.skeleton)];
    float dx = s->skeletons[static_cast<std::size_t>(m.skeleton)].extras["display_offset"][0].get<float>();
    for (const auto& p : m.positions) sp = {std::min(sp[0], p[0] + dx), std::max(sp[1], p[0] + dx)};
  }
  EXPECT_EQ(s->skeletons[0].extras["display_offset"][0].get<float>(), 0.0f);
  EXPECT_GT(span[1][0], span[0][1]);
  EXPECT_GT(span[2][0], span[1][1]);
  int opaque = 0;
  for (const auto& w : h.diags.warnings) opaque += w.code == code::w_opaque_data;
  EXPECT_GE(opaque, 6 + 6 + 5);  // one per extra chunk at least
}

TEST(Samples, X8AN00SegmentsAndPairing) {
  RIGRIP_REQUIRE_SAMPLE(path, "sf3/X8AN00.BIN");
  auto f = parse_x8an(test::read_bytes(path));
  ASSERT_EQ(f.segments.size(), 50u);
  for (const auto& s : f.segments) EXPECT_EQ(s.offset % 0x800, 0u);
  auto g = x8an_groups(f);
  EXPECT_EQ(g.back(), 7);  // 8 groups (00a..00h)
  EXPECT_EQ(std::count(g.begin(), g.end(), 0), 6);
  EXPECT_EQ(frame_range(f.segments[0].keys), (std::pair<int, int>{35, 85}));
  auto s = read_file(path, fmt("sf3-x8an"));  // pairs with X8PC00A.BIN by name
  ASSERT_TRUE(s) << s.error().to_string();
  EXPECT_EQ(s->skeletons[0].name, "X8PC00A");
  EXPECT_EQ(s->animations.size(), 6u);
  // Without the model next to it: a clear E_MISSING_SKELETON.
  ctx_holder h(test::read_bytes(path), "/nonexistent/X8AN00.BIN");
  auto r = fmt("sf3-x8an").read(h.ctx);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, code::missing_skeleton);
  EXPECT_NE(r.error().message.find("X8PC00A.BIN"), std::string::npos);
  // --skeleton works from anywhere.
  auto pc = test::sample("sf3/X8PC00A.BIN");
  if (pc) {
    ctx_holder h2(test::read_bytes(path), "/nonexistent/X8AN00.BIN");
    h2.ctx.options.skeleton_path = *pc;
    auto r2 = fmt("sf3-x8an").read(h2.ctx);
    ASSERT_TRUE(r2) << r2.error().to_string();
    EXPECT_EQ(r2->animations.size(), 6u);
  }
}

TEST(Samples, DetectionByStructureThenName) {
  RIGRIP_REQUIRE_SAMPLE(pc, "sf3/X8PC00A.BIN");
  RIGRIP_REQUIRE_SAMPLE(an, "sf3/X8AN00.BIN");
  auto bpc = test::read_bytes(pc), ban = test::read_bytes(an);
  EXPECT_GE(fmt("sf3-x8pc").detect(bpc, "whatever.dat"), score::structure);
  EXPECT_EQ(fmt("sf3-x8an").detect(bpc, "whatever.dat"), score::none);
  EXPECT_GE(fmt("sf3-x8an").detect(ban, "whatever.dat"), score::structure);
  EXPECT_EQ(fmt("sf3-x8pc").detect(ban, "whatever.dat"), score::none);
  bytes junk(4096, 0x5A);
  EXPECT_EQ(fmt("sf3-x8pc").detect(junk, "a.bin"), score::none);
  EXPECT_EQ(fmt("sf3-x8pc").detect(junk, "X8PC99Z.BIN"), score::name_only);
  EXPECT_EQ(fmt("sf3-x8an").detect(junk, "x8an07.bin"), score::name_only);
}

// ------------------------------------------------------------ raw dump contract

TEST(RawDump, ExactShape) {
  RIGRIP_REQUIRE_SAMPLE(path, "sf3/X8PC00A.BIN");
  auto j = dump(path, fmt("sf3-x8pc"));
  EXPECT_EQ(j["format"], "sf3-x8pc");
  ASSERT_TRUE(j["models"].is_array());
  for (const auto& m : j["models"]) {
    for (const char* k : {"bones", "meshes", "textures"}) EXPECT_TRUE(m[k].is_number_integer()) << k;
    ASSERT_TRUE(m["keyframes"].is_array());
    EXPECT_EQ(m["keyframes"].size(), 22u);
    for (std::size_t b = 0; b < m["keyframes"].size(); ++b) {
      const auto& k = m["keyframes"][b];
      EXPECT_EQ(k["bone"], b);
      for (const auto& [key, width] : {std::pair{"translation", 4u}, {"rotation", 5u}, {"scale", 4u}}) {
        ASSERT_TRUE(k[key].is_array());
        for (const auto& e : k[key]) {
          ASSERT_EQ(e.size(), width) << key;
          EXPECT_TRUE(e[0].is_number_integer());
        }
      }
    }
  }
  // Scale 1.0 is stored as FIXED 0x10000.
  EXPECT_EQ(j["models"][0]["keyframes"][0]["scale"][0][1], 1.0);
}

// ------------------------------------------------------------ rewrite and pack

TEST(Rewrite, ByteIdenticalForEverySample) {
  for (const char* name : {"sf3/X8PC00A.BIN", "sf3/X8PC41X.BIN", "sf3/X8AN00.BIN"}) {
    auto p = test::sample(name);
    if (!p) GTEST_SKIP() << "shared sample not present: " << name;
    const format& f = fmt(std::string(name).find("X8AN") != std::string::npos ? "sf3-x8an" : "sf3-x8pc");
    ctx_holder h(test::read_bytes(*p), *p);
    auto out = f.rewrite(h.ctx);
    ASSERT_TRUE(out) << out.error().to_string();
    EXPECT_TRUE(out.value() == h.data) << name;
  }
}

void check_layout(const bytes& b) {
  auto f = parse_x8pc(b);
  for (const auto& m : f.models) {
    std::uint32_t prev = 0x800;
    for (std::size_t i = 0; i < m.entries.size(); ++i) {
      const auto& e = m.entries[i];
      EXPECT_EQ(e.offset % 0x800, 0u);
      EXPECT_EQ(e.offset, prev);
      EXPECT_EQ(e.chunk_size, (e.data_size + 0x7FF) / 0x800 * 0x800);
      for (auto v : m.padding[i]) ASSERT_EQ(v, 0xFF) << "chunk " << i;
      prev = e.offset + e.chunk_size;
    }
  }
}

pack_context template_ctx(const std::string& path, bytes& storage) {
  pack_context c;
  c.output_path = "out.bin";
  storage = test::read_bytes(path);
  c.template_file = storage;
  c.template_path = path;
  return c;
}

TEST(Pack, SceneWithUnchangedKeysGivesTheTemplateBack) {
  RIGRIP_REQUIRE_SAMPLE(path, "sf3/X8PC00A.BIN");
  auto s = read_file(path, fmt("sf3-x8pc"));
  ASSERT_TRUE(s);
  bytes tmpl;
  auto c = template_ctx(path, tmpl);
  auto out = fmt("sf3-x8pc").pack(s.value(), c);
  ASSERT_TRUE(out) << out.error().to_string();
  EXPECT_TRUE(out.value() == tmpl);
}

TEST(Pack, NewKeyframesSameMeshLayoutRulesHold) {
  RIGRIP_REQUIRE_SAMPLE(path, "sf3/X8PC00A.BIN");
  auto s = read_file(path, fmt("sf3-x8pc"));
  ASSERT_TRUE(s);
  auto& all = s->animations[0];
  ASSERT_TRUE(all.name.ends_with("all_frames"));
  // Move bone 1's translation key at frame 1 and add keys to bone 2's rotation.
  for (auto& t : all.tracks) {
    if (t.bone == "bone_1" && t.path == path::translation) t.values[0] += 1.5f;
    if (t.bone == "bone_2" && t.path == path::rotation) {
      for (int f = 0; f < 300; ++f) {  // grows the chunk past its 0x800 rounding
        t.times.push_back(static_cast<float>(200 + f) / 30.0f);
        quat q = core::axis_angle({0, 1, 0}, 0.01f * static_cast<float>(f));
        t.values.insert(t.values.end(), q.begin(), q.end());
      }
    }
  }
  all.duration = 500.0 / 30.0;
  bytes tmpl;
  auto c = template_ctx(path, tmpl);
  auto out = fmt("sf3-x8pc").pack(s.value(), c);
  ASSERT_TRUE(out) << out.error().to_string();
  check_layout(out.value());
  auto a = parse_x8pc(out.value()), b = parse_x8pc(tmpl);
  EXPECT_EQ(a.models[0].data[2], b.models[0].data[2]);  // same mesh
  EXPECT_EQ(a.models[0].data[1], b.models[0].data[1]);  // same textures
  EXPECT_GT(a.models[0].entries[3].chunk_size, b.models[0].entries[3].chunk_size);
  const auto& k1 = a.models[0].anim.keys.bones[1];
  EXPECT_EQ(k1.t[0][0], b.models[0].anim.keys.bones[1].t[0][0] + 98304);  // +1.5 exactly
  const auto& k2 = a.models[0].anim.keys.bones[2];
  EXPECT_EQ(k2.r_frames.size(), b.models[0].anim.keys.bones[2].r_frames.size() + 300);
  EXPECT_EQ(k2.r_frames.back(), 499);
  EXPECT_EQ(k2.r[3].back(), static_cast<std::int16_t>(std::lround(std::cos(0.01 * 299 / 2) * 16384)));
  // Everything else exactly as before.
  for (std::size_t i = 3; i < 22; ++i) {
    EXPECT_EQ(a.models[0].anim.keys.bones[i].t, b.models[0].anim.keys.bones[i].t);
    EXPECT_EQ(a.models[0].anim.keys.bones[i].r, b.models[0].anim.keys.bones[i].r);
  }
  EXPECT_EQ(a.models[0].anim.prefix.size(), b.models[0].anim.prefix.size());
}

TEST(Pack, ThroughGlbRoundTrip) {
  RIGRIP_REQUIRE_SAMPLE(path, "sf3/X8PC00A.BIN");
  auto s = read_file(path, fmt("sf3-x8pc"));
  ASSERT_TRUE(s);
  diagnostics d;
  auto enc = gltf::write(s.value(), {}, d);
  ASSERT_TRUE(enc);
  auto back = gltf::read(enc->main, "x.glb", d);
  ASSERT_TRUE(back) << back.error().to_string();
  bytes tmpl;
  auto c = template_ctx(path, tmpl);
  auto out = fmt("sf3-x8pc").pack(back.value(), c);
  ASSERT_TRUE(out) << out.error().to_string();
  check_layout(out.value());
  auto a = parse_x8pc(out.value()), b = parse_x8pc(tmpl);
  int worst_rot = 0;
  for (std::size_t i = 0; i < 22; ++i) {
    const auto& ka = a.models[0].anim.keys.bones[i];
    const auto& kb = b.models[0].anim.keys.bones[i];
    EXPECT_EQ(ka.t_frames, kb.t_frames);
    EXPECT_EQ(ka.r_frames, kb.r_frames);
    EXPECT_EQ(ka.s_frames, kb.s_frames);
    EXPECT_EQ(ka.t, kb.t) << "bone " << i;  // FIXED survives float32 exactly
    EXPECT_EQ(ka.s, kb.s) << "bone " << i;
    // Up to sign: the writer also makes consecutive keys hemisphere-continuous (q and -q).
    for (std::size_t k = 0; k < ka.r_frames.size(); ++k) {
      int same = 0, flipped = 0;
      for (std::size_t c2 = 0; c2 < 4; ++c2) {
        same = std::max(same, std::abs(ka.r[c2][k] - kb.r[c2][k]));
        flipped = std::max(flipped, std::abs(ka.r[c2][k] + kb.r[c2][k]));
      }
      worst_rot = std::max(worst_rot, std::min(same, flipped));
    }
  }
  // The glTF writer renormalises quaternions (stored norms are 0.9999..1.0001).
  EXPECT_LE(worst_rot, 2);
  // pack -> read -> pack is exact.
  ctx_holder h(out.value(), path);
  auto s2 = fmt("sf3-x8pc").read(h.ctx);
  ASSERT_TRUE(s2);
  auto out2 = fmt("sf3-x8pc").pack(s2.value(), c);
  ASSERT_TRUE(out2);
  EXPECT_TRUE(out2.value() == out.value());
}

TEST(Pack, ContainerTemplateKeepsSlots) {
  RIGRIP_REQUIRE_SAMPLE(path, "sf3/X8PC41X.BIN");
  ctx_holder h(test::read_bytes(path), path);
  auto s = fmt("sf3-x8pc").read(h.ctx);
  ASSERT_TRUE(s);
  bytes tmpl;
  auto c = template_ctx(path, tmpl);
  auto out = fmt("sf3-x8pc").pack(s.value(), c);
  ASSERT_TRUE(out) << out.error().to_string();
  EXPECT_TRUE(out.value() == tmpl);
}

TEST(Pack, WithoutTemplateIsAClearError) {
  scene s;
  pack_context c;
  auto out = fmt("sf3-x8pc").pack(s, c);
  ASSERT_FALSE(out);
  EXPECT_NE(out.error().message.find("--template"), std::string::npos);
}

// ------------------------------------------------------------ damaged input

TEST(Damage, CountFFFFFFFFIsACleanQuickError) {
  RIGRIP_REQUIRE_SAMPLE(path, "sf3/X8PC00A.BIN");
  auto orig = test::read_bytes(path);
  auto t0 = std::chrono::steady_clock::now();
  {
    bytes b = orig;
    put32(b, 0x800 + 4, 0xFFFFFFFF);  // num_textures
    ctx_holder h(b, path);
    auto s = fmt("sf3-x8pc").read(h.ctx);
    ASSERT_FALSE(s);
    EXPECT_EQ(s.error().code, code::bad_count);
    EXPECT_NE(s.error().message.find("4294967295"), std::string::npos) << s.error().message;
    EXPECT_NE(s.error().offset, no_offset);
  }
  {
    bytes b = orig;
    std::size_t anim = be32(orig, 0x30);
    std::size_t table = anim + be32(orig, anim + 0x18);
    put32(b, table, 0xFFFFFFF0);  // bone 0 translation key count
    ctx_holder h(b, path);
    auto s = fmt("sf3-x8pc").read(h.ctx);
    ASSERT_FALSE(s);
    EXPECT_EQ(s.error().code, code::bad_count);
    auto j = fmt("sf3-x8pc").dump_raw(h.ctx);
    ASSERT_FALSE(j);
  }
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 2.0);
}

TEST(Damage, ExtraChunkListWithoutTerminator) {
  RIGRIP_REQUIRE_SAMPLE(path, "sf3/X8PC00A.BIN");
  bytes b = test::read_bytes(path);
  // Fill the whole header after the 4 entries with plausible extra entries, no terminator.
  for (std::size_t at = 0x40; at + 16 <= 0x800; at += 16) {
    put32(b, at, 0x11000);
    put32(b, at + 4, 0);
    put32(b, at + 8, 0);
    put32(b, at + 12, 0);
  }
  put32(b, 0x800, 0xFFFFFFFF);  // a terminator just past the header must not be taken
  ctx_holder h(b, path, false);
  auto s = fmt("sf3-x8pc").read(h.ctx);
  ASSERT_FALSE(s);
  EXPECT_NE(s.error().message.find("end marker"), std::string::npos) << s.error().message;
  EXPECT_FALSE(fmt("sf3-x8pc").rewrite(h.ctx));
}

TEST(Damage, OverlappingKeyArraysHitTheWorkBudget) {
  // 400 records all pointing at the same 10000-key arrays: valid offsets, quadratic work.
  const std::uint32_t n = 10000, size = 200000, table = size - 400 * 64 - 4;
  bytes b(size, 0);
  put32(b, 0, table);
  for (std::uint32_t i = 0; i < 400; ++i) {
    std::size_t r = table + 64 * i;
    put32(b, r, n);
    for (int k = 3; k < 16; ++k) put32(b, r + 4 * static_cast<std::size_t>(k), 4);
  }
  put32(b, table + 400 * 64, 0xFFFFFFFF);
  auto t0 = std::chrono::steady_clock::now();
  try {
    (void)parse_x8an(b);
    FAIL() << "expected a failure";
  } catch (const core::failure& f) {
    EXPECT_EQ(f.error().code, code::limit_exceeded) << f.error().message;
  }
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 1.0);
}

TEST(Damage, TruncationAndByteFlipsNeverCrash) {
  std::mt19937 rng(1234);
  int errors = 0, oks = 0;
  for (const char* name : {"sf3/X8PC00A.BIN", "sf3/X8AN00.BIN"}) {
    auto p = test::sample(name);
    if (!p) continue;
    const bool an = std::string(name).find("X8AN") != std::string::npos;
    const format& f = fmt(an ? "sf3-x8an" : "sf3-x8pc");
    bytes orig = test::read_bytes(*p);
    if (an) orig.resize(0x18800);  // the first group's six segments keep the loop quick
    std::optional<std::string> skel = an ? test::sample("sf3/X8PC00A.BIN") : std::nullopt;
    auto attempt = [&](const bytes& b, const std::string& what) {
      ctx_holder h(b, *p, an);  // x8pc: no sibling x8an loading, keeps the loop quick
      h.ctx.options.skeleton_path = skel;
      auto s = f.read(h.ctx);
      if (s) {
        ++oks;
        auto v = s->validate();
        EXPECT_TRUE(v) << what << ": " << (v ? "" : v.error().to_string());
      } else {
        ++errors;
        EXPECT_FALSE(s.error().message.empty()) << what;
        EXPECT_NE(s.error().code, code::internal) << what << ": " << s.error().to_string();
      }
      (void)f.dump_raw(h.ctx);
      auto rw = f.rewrite(h.ctx);
      if (rw && s) EXPECT_TRUE(rw.value() == b) << what;
    };
    for (int i = 0; i < 20; ++i) {
      std::size_t cut = std::uniform_int_distribution<std::size_t>(0, orig.size() - 1)(rng);
      attempt(bytes(orig.begin(), orig.begin() + static_cast<std::ptrdiff_t>(cut)), "truncated at " + std::to_string(cut));
    }
    for (int i = 0; i < 60; ++i) {
      bytes b = orig;
      int flips = 1 + static_cast<int>(rng() % 4);
      std::string what = "flips";
      for (int k = 0; k < flips; ++k) {
        // Half the flips hit the structured first 0x1000 bytes of a chunk/segment header area.
        std::size_t at = (rng() % 2) ? rng() % std::min<std::size_t>(b.size(), 0x1000) : rng() % b.size();
        b[at] = static_cast<std::uint8_t>(rng());
        what += " " + std::to_string(at);
      }
      attempt(b, what);
    }
  }
  EXPECT_GT(errors, 0);
  std::cout << "[ sf3 damage ] " << oks << " ok, " << errors << " clean errors\n";
}

// Parsed tables keep their arrays in an arena: copies (which use the heap) must stay valid
// after the table and its arena are gone, and hold the same keys.
TEST(KeyTable, CopiesOutliveTheParsedTablesArena) {
  key_table t;
  key_record k;
  k.t_frames = {0, 3};
  k.t = {key_vec<std::int32_t>{65536, -7}, {1, 2}, {3, 4}};
  k.r_frames = {0, 1, 2};
  k.r = {key_vec<std::int16_t>{0, 1, 2}, {3, 4, 5}, {6, 7, 8}, {16384, 16383, -16384}};
  k.s_frames = {2};
  k.s = {key_vec<std::int32_t>{65536}, {65536}, {-65536}};
  t.bones = {k, k, k};
  core::byte_writer w(core::endian::big);
  w.u32(0);
  auto table = write_key_table(w, 0, t);
  w.patch_u32(0, table);
  bytes b = w.take();
  key_record copy;
  key_table table_copy;
  {
    core::byte_reader r(b, core::endian::big);
    key_table parsed = parse_key_table(r, table, 4);
    ASSERT_TRUE(parsed.arena);
    copy = parsed.bones[2];
    table_copy = parsed;
    parsed.bones[1].r_frames.push_back(9);  // growing a parsed array stays in its arena
    EXPECT_EQ(parsed.bones[1].r_frames.size(), 4u);
  }
  EXPECT_EQ(copy.t_frames, k.t_frames);
  EXPECT_EQ(copy.r[3], k.r[3]);
  EXPECT_EQ(copy.s[2], k.s[2]);
  ASSERT_EQ(table_copy.bones.size(), 3u);
  EXPECT_EQ(table_copy.bones[0].t[0], k.t[0]);
  EXPECT_EQ(table_copy.bones[1].r_frames, k.r_frames);
}

}  // namespace
}  // namespace rigrip::sf3
