// BFRES family tests: hand-built vectors from the seed and the notes, real samples,
// an independent evaluation of every curve, hostile input.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <map>
#include <random>

#include <gtest/gtest.h>

#include "builder.hpp"
#include "core/failure.hpp"
#include "core/math.hpp"
#include "scene/pose.hpp"
#include "scene/ssc.hpp"
#include "formats/bfres/decode.hpp"
#include "formats/bfres/fres.hpp"
#include "containers/yaz0.hpp"
#include "rigrip/gltf.hpp"
#include "test_support.hpp"

using namespace rigrip;
using namespace bfres_test;

namespace {

struct loaded {
  scene s;
  diagnostics diags;
};

// The FRES image of a file, out of its Yaz0 stream when it has one (the registry's
// container layer does this before the family sees the bytes).
bfres::file load_any(std::span<const std::uint8_t> data) {
  auto u = rigrip::unwrap(data, "test");
  if (!u) throw core::failure(u.error());
  return u.value().chain.empty() ? bfres::load(data) : bfres::load(u.value().data);
}

// Reads through the family's entry points (as the registry does, minus detection).
loaded read_bytes_as(const std::vector<std::uint8_t>& data, const std::string& path, read_options o = {}) {
  loaded out;
  read_context ctx;
  ctx.path = path;
  ctx.data = data;
  ctx.options = o;
  ctx.diags = &out.diags;
  ctx.load = [](const std::string& p) -> result<bytes> {
    auto b = test::read_bytes(p);
    auto u = rigrip::unwrap(b, p);
    if (u && !u.value().chain.empty()) return std::move(u.value().data);
    return b;
  };
  out.s = bfres::to_scene(load_any(data), ctx);
  auto v = out.s.validate();
  EXPECT_TRUE(v.ok()) << (v.ok() ? "" : v.error().message);
  return out;
}

// Decoding the 2.4 MB Dog file is the slow part under ASan: decode each sample once.
const loaded& cached(const std::string& path) {
  static std::map<std::string, loaded> cache;
  auto it = cache.find(path);
  if (it == cache.end()) it = cache.emplace(path, read_bytes_as(test::read_bytes(path), path)).first;
  return it->second;
}

const track* find_track(const animation& a, const std::string& bone, path p) {
  for (const auto& t : a.tracks)
    if (t.bone == bone && t.path == p) return &t;
  return nullptr;
}

// ---- Independent evaluation, written from bfres.md section 3 (not the reader's code).
float ref_eval(const bfres::curve& c, float f) {
  const int per = c.type() == bfres::curve_type::cubic ? 4 : c.type() == bfres::curve_type::linear ? 2 : 1;
  const float scale = c.scale(), offset = c.offset();
  if (f < c.start) f = c.start;
  if (f > c.end) f = c.end;
  if (per == 1) {  // baked float
    int i = int(f) - int(c.start);
    float ratio = f - float(int(c.start) + i);
    float a = c.keys[std::size_t(i)];
    float b = std::size_t(i + 1) < c.keys.size() ? c.keys[std::size_t(i + 1)] : a;
    return (b * ratio + a * (1 - ratio)) * scale + offset;
  }
  std::size_t i = 0;
  while (i + 1 < c.frames.size() && c.frames[i + 1] <= f) ++i;
  float t = 0;
  if (i + 1 < c.frames.size()) t = (f - c.frames[i]) / (c.frames[i + 1] - c.frames[i]);
  const float* k = &c.keys[i * std::size_t(per)];
  float v = per == 4 ? k[0] + k[1] * t + k[2] * t * t + k[3] * t * t * t : k[0] + k[1] * t;
  return v * scale + offset;
}

// 3x3 rotation from Euler XYZ, nw::g3d Mtx34::SetR as quoted in the notes (row-major).
std::array<float, 9> ref_euler_matrix(float x, float y, float z) {
  float sx = std::sin(x), cx = std::cos(x), sy = std::sin(y), cy = std::cos(y), sz = std::sin(z), cz = std::cos(z);
  return {cy * cz, sx * sy * cz - cx * sz, cx * cz * sy + sx * sz,
          cy * sz, sx * sy * sz + cx * cz, cx * sz * sy - sx * cz,
          -sy,     sx * cy,                cx * cy};
}
std::array<float, 9> quat_matrix(const quat& qin) {
  quat q = core::normalize(qin);
  float x = q[0], y = q[1], z = q[2], w = q[3];
  return {1 - 2 * (y * y + z * z), 2 * (x * y - w * z),     2 * (x * z + w * y),
          2 * (x * y + w * z),     1 - 2 * (x * x + z * z), 2 * (y * z - w * x),
          2 * (x * z - w * y),     2 * (y * z + w * x),     1 - 2 * (x * x + y * y)};
}

bfres::file parse_sample(const std::string& p) { return load_any(test::read_bytes(p)); }

t_curve seed_linear_curve() {
  // The seed's worked example: SByte keys, scale 2, offset 200, delta 300; the key at
  // frame 20 replaces the previous segment's end (254) with 400.
  t_curve c;
  c.flags = 2 | (2 << 2) | (1 << 4);  // u8 frames, s8 keys, linear
  c.target = 0x10;                    // translate X
  c.start = 0;
  c.end = 30;
  c.scale = 2;
  c.offset = 200;
  c.delta = 300;
  c.frames = {0, 20, 30};
  c.keys = {-100, 127, 100, -50, 50, 0};
  return c;
}

}  // namespace

// The exact helper-node form of segment scale compensation (--ssc helpers); these tests
// check that form, the default bakes it into plain locals.
static gltf::write_options helper_form() {
  gltf::write_options o;
  o.ssc = gltf::ssc_mode::helpers;
  return o;
}

TEST(Curve, SeedLinearExample) {
  t_anim a;
  a.name = "Seed";
  a.frame_count = 30;
  t_bone_anim b;
  b.name = "Bone";
  b.curves.push_back(seed_linear_curve());
  a.bones.push_back(b);
  auto bytes = build_fres({{"Bone"}}, {a});
  auto f = bfres::parse(bytes);
  ASSERT_EQ(f.anims.size(), 1u);
  const auto& c = f.anims[0].bone_anims[0].curves[0];
  EXPECT_EQ(c.type(), bfres::curve_type::linear);
  EXPECT_FLOAT_EQ(c.eval(0), 0);        // -100 * 2 + 200
  EXPECT_FLOAT_EQ(c.eval_left(20), 254);  // (-100 + 127) * 2 + 200: the discarded key
  EXPECT_FLOAT_EQ(c.eval(20), 400);     // 100 * 2 + 200
  EXPECT_FLOAT_EQ(c.eval(30), 300);     // 50 * 2 + 200
  EXPECT_FLOAT_EQ(c.eval(10), 127);     // halfway 0 -> 254
  EXPECT_FLOAT_EQ(c.eval(25), 350);     // halfway 400 -> 300
  ASSERT_TRUE(c.delta.has_value());
  EXPECT_FLOAT_EQ(*c.delta, 300);
  // Through the scene: a LINEAR track that keeps the jump at frame 20.
  auto l = read_bytes_as(bytes, "seed.bfres");
  ASSERT_EQ(l.s.animations.size(), 1u);
  const track* t = find_track(l.s.animations[0], "Bone", path::translation);
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->interpolation, interpolation::linear);
  auto at = [&](float frame) { return scene_ops::sample(*t, frame / 30.0f)[0]; };
  EXPECT_NEAR(at(0), 0, 1e-4);
  EXPECT_NEAR(at(10), 127, 1e-2);
  EXPECT_NEAR(at(19.99f), 254 * 19.99f / 20, 0.05);
  EXPECT_NEAR(at(20), 400, 1e-3);
  EXPECT_NEAR(at(25), 350, 1e-3);
  EXPECT_NEAR(at(30), 300, 1e-3);
  // Its keys exactly: frames 0, 20 and 30 plus the extra key just before the jump at 20
  // (the previous segment's end, 254), three values (x, y, z) per key.
  ASSERT_EQ(t->times.size(), 4u);
  ASSERT_EQ(t->values.size(), 12u);
  EXPECT_LT(t->times[1], t->times[2]);
  EXPECT_EQ(t->times[2], 20.0f / 30.0f);
  EXPECT_NEAR(t->values[3], 254, 0.05);
  EXPECT_EQ(t->values[6], 400.0f);
  EXPECT_EQ(t->values[9], 300.0f);
}

// A translation keyed per component: X and Y share their key frames, Z has its own; the
// LINEAR track's keys are the union of all three (each once).
TEST(Curve, TranslationKeysAreTheUnionOfTheComponents) {
  auto linear = [](std::uint32_t target, std::vector<std::int64_t> frames) {
    t_curve c;
    c.flags = 2 | (2 << 2) | (1 << 4);  // u8 frames, s8 keys, linear
    c.target = target;
    c.start = 0;
    c.end = 30;
    c.scale = 1;
    c.offset = 0;
    c.frames = frames;
    for (std::size_t i = 0; i < frames.size(); ++i) c.keys.push_back(3), c.keys.push_back(0);  // flat: no jumps
    return c;
  };
  t_anim a;
  a.name = "Union";
  a.frame_count = 30;
  t_bone_anim b;
  b.name = "Bone";
  b.curves = {linear(0x10, {0, 10, 20, 30}), linear(0x14, {0, 10, 20, 30}), linear(0x18, {0, 5, 20, 25, 30})};
  a.bones.push_back(b);
  auto l = read_bytes_as(build_fres({{"Bone"}}, {a}), "union.bfres");
  ASSERT_EQ(l.s.animations.size(), 1u);
  const track* t = find_track(l.s.animations[0], "Bone", path::translation);
  ASSERT_NE(t, nullptr);
  const std::vector<float> frames{0, 5, 10, 20, 25, 30};
  ASSERT_EQ(t->times.size(), frames.size());
  for (std::size_t i = 0; i < frames.size(); ++i) EXPECT_EQ(t->times[i], static_cast<float>(frames[i] / 30.0));
  ASSERT_EQ(t->values.size(), 3 * frames.size());
}

TEST(Curve, CubicSegmentIsPolynomialOverNormalisedTime) {
  // One cubic segment over frames 0..8 with s16 keys and fixed-point (10.5) frames, then
  // a last key with c1..c3 = 0. value = (c0 + c1 t + c2 t^2 + c3 t^3) * scale + offset.
  t_curve c;
  c.flags = 1 | (1 << 2);  // s10.5 frames, s16 keys, cubic
  c.target = 0x14;         // translate Y
  c.start = 0;
  c.end = 8;
  c.scale = 0.5f;
  c.offset = 1.0f;
  c.frames = {0, 8 * 32};
  const std::int64_t k0 = 10, k1 = 40, k2 = -30, k3 = 8;
  c.keys = {k0, k1, k2, k3, k0 + k1 + k2 + k3, 0, 0, 0};
  t_anim a;
  a.name = "Cubic";
  a.frame_count = 8;
  t_bone_anim b;
  b.name = "Bone";
  b.curves.push_back(c);
  a.bones.push_back(b);
  auto bytes = build_fres({{"Bone"}}, {a});
  auto l = read_bytes_as(bytes, "cubic.bfres");
  const track* t = find_track(l.s.animations[0], "Bone", path::translation);
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->interpolation, interpolation::cubic_spline);
  auto f = bfres::parse(bytes);
  const auto& rc = f.anims[0].bone_anims[0].curves[0];
  for (float frame = 0; frame <= 8.0f; frame += 0.25f) {
    float tt = frame / 8;
    float expect = (float(k0) + float(k1) * tt + float(k2) * tt * tt + float(k3) * tt * tt * tt) * 0.5f + 1.0f;
    EXPECT_NEAR(rc.eval(frame), expect, 1e-4) << frame;
    // The glTF CUBICSPLINE track with derived tangents reproduces the polynomial exactly.
    EXPECT_NEAR(scene_ops::sample(*t, frame / 30.0f)[1], expect, 1e-4) << frame;
  }
}

TEST(Curve, BakedAndFloatKeys) {
  t_curve c;
  c.flags = 0 | (0 << 2) | (2 << 4);  // f32 frames (unused), f32 keys, baked float
  c.target = 0x04;
  c.start = 0;
  c.end = 3;
  c.frames = {};
  c.keys = {f32_bits(1.0f), f32_bits(2.0f), f32_bits(4.0f), f32_bits(3.0f)};
  t_anim a;
  a.name = "Baked";
  a.frame_count = 3;
  t_bone_anim b;
  b.name = "Bone";
  b.curves.push_back(c);
  a.bones.push_back(b);
  auto bytes = build_fres({{"Bone"}}, {a});
  auto f = bfres::parse(bytes);
  const auto& rc = f.anims[0].bone_anims[0].curves[0];
  EXPECT_FLOAT_EQ(rc.eval(1.5f), 3.0f);
  EXPECT_FLOAT_EQ(rc.eval(3.0f), 3.0f);  // frame == end: the last key, never one past it
  auto l = read_bytes_as(bytes, "baked.bfres");
  const track* t = find_track(l.s.animations[0], "Bone", path::scale);
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->times.size(), 4u);
  EXPECT_NEAR(scene_ops::sample(*t, 2 / 30.0f)[0], 4.0f, 1e-6);
}

TEST(Reader, Pre34LayoutsParse) {
  // v3.3: 0x70-byte bones with a per-bone inverse matrix, 0x20-byte curves without delta,
  // s16 frame count in the FSKA header.
  t_anim a;
  a.name = "Old";
  a.frame_count = 30;
  t_bone_anim b;
  b.name = "Child";
  b.curves.push_back(seed_linear_curve());
  a.bones.push_back(b);
  t_bone root{"Root"}, child{"Child", 0};
  child.t[1] = 2.5f;
  auto bytes = build_fres({root, child}, {a}, 0x03030000);
  auto f = bfres::parse(bytes);
  ASSERT_EQ(f.models.size(), 1u);
  ASSERT_EQ(f.models[0].skel->bones.size(), 2u);
  EXPECT_TRUE(f.models[0].skel->bones[1].inverse_matrix.has_value());
  EXPECT_FLOAT_EQ(f.models[0].skel->bones[1].translate[1], 2.5f);
  const auto& c = f.anims[0].bone_anims[0].curves[0];
  EXPECT_FALSE(c.delta.has_value());
  EXPECT_FLOAT_EQ(c.eval(25), 350);
  EXPECT_EQ(f.anims[0].frame_count, 30);
  auto l = read_bytes_as(bytes, "old.bfres");
  EXPECT_EQ(l.s.skeletons[0].bones.size(), 2u);
}

TEST(Reader, DictCountFFFFFFFFFailsFastWithoutAllocating) {
  t_anim a;
  a.name = "A";
  a.frame_count = 1;
  auto bytes = build_fres({}, {a});
  // The FSKA dictionary sits right after the 0x6C header: its count is at 0x70.
  bytes[0x70] = bytes[0x71] = bytes[0x72] = bytes[0x73] = 0xFF;
  auto t0 = std::chrono::steady_clock::now();
  try {
    (void)bfres::parse(bytes);
    FAIL() << "parsed a dictionary of 0xFFFFFFFF entries";
  } catch (const core::failure& e) {
    EXPECT_EQ(e.error().code, code::bad_count);
    EXPECT_EQ(e.error().offset, 0x70u);
    EXPECT_NE(e.error().message.find("4294967295"), std::string::npos) << e.error().message;
  }
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(1));
}

TEST(Reader, Yaz0SizeFFFFFFFFFailsFast) {
  std::vector<std::uint8_t> y = {'Y', 'a', 'z', '0', 0xFF, 0xFF, 0xFF, 0xFF, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 'F', 'R', 'E', 'S'};
  try {
    (void)containers::yaz0_decompress(y);
    FAIL();
  } catch (const core::failure& e) {
    EXPECT_EQ(e.error().code, code::bad_count);
  }
}

// A Switch header of zeros: detected as Switch, refused for its version (0.0.0.0).
TEST(Reader, SwitchFresRefusedClearly) {
  std::vector<std::uint8_t> d(0x100, 0);
  std::memcpy(d.data(), "FRES    ", 8);
  d[0x0C] = 0xFF, d[0x0D] = 0xFE;
  EXPECT_EQ(bfres::detect_platform(d), bfres::platform::switch_);
  try {
    (void)bfres::parse(d);
    FAIL();
  } catch (const core::failure& e) {
    EXPECT_EQ(e.error().code, code::unsupported_version);
    EXPECT_NE(e.error().message.find("Switch FRES version 0.0.0.0"), std::string::npos) << e.error().message;
  }
}

TEST(Reader, Yaz0RoundTrip) {
  std::vector<std::uint8_t> data;
  std::mt19937 rng(7);
  for (int i = 0; i < 5000; ++i) data.push_back(std::uint8_t(i % 97 < 50 ? i % 7 : rng() & 0xFF));
  auto z = containers::yaz0_compress(data);
  EXPECT_EQ(containers::yaz0_decompress(z), data);
}

// ---- Samples.

TEST(Samples, CountsAndPairing) {
  RIGRIP_REQUIRE_SAMPLE(bass, "bfres/Animal_Bass_Animation.bfres");
  auto l = read_bytes_as(test::read_bytes(bass), bass);
  ASSERT_EQ(l.s.skeletons.size(), 1u);
  EXPECT_EQ(l.s.skeletons[0].bones.size(), 6u);
  EXPECT_EQ(l.s.animations.size(), 7u);
  if (test::sample("bfres/Animal_Bass.bfres")) {
    EXPECT_EQ(l.s.metadata["skeleton_file"], "Animal_Bass.bfres");  // the sibling model's rig
    EXPECT_EQ(l.s.skeletons[0].name, "Bass");
  }
  int missing = 0;
  for (const auto& w : l.diags.warnings) missing += w.code == code::w_missing_bone;
  EXPECT_EQ(missing, 4);  // Chin, Arm_1_L, Arm_1_R, Tail: not in the fish's rig
  RIGRIP_REQUIRE_SAMPLE(dog, "bfres/Animal_Dog_Animation.bfres");
  const auto& d = cached(dog);
  EXPECT_EQ(d.s.skeletons[0].bones.size(), 32u);
  EXPECT_EQ(d.s.animations.size(), 51u);
  for (const auto& w : d.diags.warnings) EXPECT_NE(w.code, code::w_missing_bone) << w.message;
  // --skeleton wins over everything else.
  RIGRIP_REQUIRE_SAMPLE(model, "bfres/Animal_Bass.sbfres");
  read_options o;
  o.skeleton_path = model;
  auto k = read_bytes_as(test::read_bytes(bass), bass, o);
  EXPECT_EQ(k.s.skeletons[0].name, "Bass");
  EXPECT_EQ(k.s.metadata["skeleton_file"], "Animal_Bass.sbfres");
}

TEST(Samples, Yaz0DecompressesToTheBfres) {
  RIGRIP_REQUIRE_SAMPLE(sb, "bfres/Animal_Bass.sbfres");
  RIGRIP_REQUIRE_SAMPLE(b, "bfres/Animal_Bass.bfres");
  EXPECT_EQ(containers::yaz0_decompress(test::read_bytes(sb)), test::read_bytes(b));
}

TEST(Samples, RewriteIsByteIdentical) {
  for (const char* n : {"bfres/Animal_Bass.bfres", "bfres/Animal_Bass_Animation.bfres", "bfres/Animal_Dog_Animation.bfres"}) {
    auto p = test::sample(n);
    if (!p) continue;
    auto bytes = test::read_bytes(*p);
    auto f = bfres::parse(bytes);
    EXPECT_TRUE(bfres::serialise(f) == bytes) << n;
  }
}

TEST(Samples, DictionaryPatriciaLookupFindsEveryName) {
  RIGRIP_REQUIRE_SAMPLE(dog, "bfres/Animal_Dog_Animation.bfres");
  auto f = parse_sample(dog);
  int found = 0, total = 0;
  for (const auto& d : f.dicts) {
    if (!d) continue;
    for (std::size_t i = 1; i < d->nodes.size(); ++i) {
      const std::string& name = d->nodes[i].name;
      // nw4f/G3d FindNode with the start-indexed bit test.
      auto bit = [&](std::uint32_t ref) {
        std::uint32_t wd = ref >> 3, pos = ref & 7;
        return wd < name.size() ? (std::uint8_t(name[wd]) >> pos) & 1 : 0;
      };
      const auto* parent = &d->nodes[0];
      const auto* child = &d->nodes[parent->left];
      int guard = 0;
      while (parent->ref_bit > child->ref_bit && guard++ < 100) {
        parent = child;
        child = bit(child->ref_bit) ? &d->nodes[child->right] : &d->nodes[child->left];
      }
      ++total;
      found += child->name == name;
    }
  }
  EXPECT_GT(total, 50);
  EXPECT_EQ(found, total);
}

TEST(Samples, EulerBindPoseTimesInverseMatricesIsIdentity) {
  RIGRIP_REQUIRE_SAMPLE(dog, "bfres/Animal_Dog_Animation.bfres");
  auto f = parse_sample(dog);
  // Only the skeleton is needed: decode the file without its animations.
  bfres::file rig_only = f;
  rig_only.anims.clear();
  read_context ctx;
  ctx.path = dog;
  loaded l;
  l.s = bfres::to_scene(rig_only, ctx);
  const auto& sk = *f.models[0].skel;
  auto world = scene_ops::world_matrices(l.s.skeletons[0]);
  float worst = 0;
  for (std::size_t k = 0; k < sk.inverse_matrices.size(); ++k) {
    std::size_t bi = std::size_t(sk.mtx_to_bone[k]);  // matrices belong to mtxToBone[k]
    const auto& inv = sk.inverse_matrices[k];           // row-major 3x4
    core::mat4 im{inv[0], inv[4], inv[8], 0, inv[1], inv[5], inv[9], 0, inv[2], inv[6], inv[10], 0, inv[3], inv[7], inv[11], 1};
    auto id = core::multiply(world[bi], im);
    for (int r = 0; r < 4; ++r)
      for (int c = 0; c < 4; ++c) worst = std::max(worst, std::fabs(id[std::size_t(c * 4 + r)] - (r == c ? 1.0f : 0.0f)));
  }
  EXPECT_LT(worst, 1e-4);
}

// The game's pose from the raw file, evaluated independently (sections 3, 4 and 6.1 of the
// notes): reference locals (S xyz, Euler xyz + w, T xyz) and Maya-mode world matrices.
struct game_pose {
  std::vector<std::array<float, 10>> local;
  std::vector<core::mat4> world;
};
game_pose game_pose_at(const bfres::skeleton& raw, const bfres::skeletal_anim& fa, std::int32_t fr) {
  const std::size_t nb = raw.bones.size();
  game_pose g;
  g.local.resize(nb);
  g.world.resize(nb);
  std::vector<bool> ssc(nb);
  std::vector<core::mat4> game_rt(nb);
  for (std::size_t bi = 0; bi < nb; ++bi) {
    const auto& rb = raw.bones[bi];
    auto& ref = g.local[bi];
    ref = {rb.scale[0], rb.scale[1], rb.scale[2], rb.rotate[0], rb.rotate[1], rb.rotate[2], rb.rotate[3],
           rb.translate[0], rb.translate[1], rb.translate[2]};
    ssc[bi] = rb.segment_scale_compensate();
    for (const auto& ba : fa.bone_anims) {
      if (ba.name != rb.name) continue;
      ssc[bi] = (ba.flags >> 23) & 1;
      std::size_t k = 0;
      if (ba.flags & (1 << 3)) for (int c = 0; c < 3; ++c) ref[std::size_t(c)] = ba.base[k++];
      if (ba.flags & (1 << 4)) for (int c = 0; c < 4; ++c) ref[std::size_t(3 + c)] = ba.base[k++];
      if (ba.flags & (1 << 5)) for (int c = 0; c < 3; ++c) ref[std::size_t(7 + c)] = ba.base[k++];
      for (const auto& c : ba.curves) {
        int slot = c.target == 0x04 ? 0 : c.target == 0x08 ? 1 : c.target == 0x0C ? 2 : c.target == 0x20 ? 3
                 : c.target == 0x24 ? 4 : c.target == 0x28 ? 5 : c.target == 0x2C ? 6 : c.target == 0x10 ? 7
                 : c.target == 0x14 ? 8 : 9;
        ref[std::size_t(slot)] = ref_eval(c, float(fr));
      }
    }
    const auto& r = ref;
    auto R = ref_euler_matrix(r[3], r[4], r[5]);
    auto rt = [&](vec3 tt) {
      return core::mat4{R[0], R[3], R[6], 0, R[1], R[4], R[7], 0, R[2], R[5], R[8], 0, tt[0], tt[1], tt[2], 1};
    };
    int p = raw.bones[bi].parent;
    vec3 tt{r[7], r[8], r[9]};
    if (p < 0) {
      game_rt[bi] = rt(tt);
    } else {
      const auto& ps = g.local[std::size_t(p)];
      if (ssc[bi]) {  // nw::g3d CalcWorldMaya: translation stretched, parent's own scale not inherited
        game_rt[bi] = core::multiply(game_rt[std::size_t(p)], rt({tt[0] * ps[0], tt[1] * ps[1], tt[2] * ps[2]}));
      } else {
        game_rt[bi] = core::multiply(core::multiply(game_rt[std::size_t(p)], core::compose({0, 0, 0}, {0, 0, 0, 1}, {ps[0], ps[1], ps[2]})), rt(tt));
      }
    }
    g.world[bi] = core::multiply(game_rt[bi], core::compose({0, 0, 0}, {0, 0, 0, 1}, {r[0], r[1], r[2]}));
  }
  return g;
}

// Largest element difference, relative to max(1, |game|).
double world_error(const core::mat4& a, const core::mat4& game) {
  double e = 0;
  for (std::size_t k = 0; k < 16; ++k) e = std::max(e, double(std::fabs(a[k] - game[k])) / std::max(1.0, double(std::fabs(game[k]))));
  return e;
}

struct sample_rig {
  bfres::file anims;
  bfres::file sibling;
  const bfres::skeleton* raw = nullptr;
};
sample_rig rig_of(const std::string& path, const scene& s) {
  sample_rig r;
  r.anims = bfres::parse(test::read_bytes(path));
  if (s.metadata["skeleton_file"] == "Animal_Bass.bfres") {
    r.sibling = parse_sample(*test::sample("bfres/Animal_Bass.bfres"));
    r.raw = &*r.sibling.models[0].skel;
  } else {
    r.raw = &*r.anims.models[0].skel;
  }
  return r;
}

// Every animation, every bone, every frame: the scene's tracks (sampled) against the curves
// evaluated independently, and the scene's world matrices (scene_ops::world_matrices, which
// honours segment scale compensation) against the game's Maya-mode world matrices.
TEST(Samples, PosesAtEveryFrameMatchIndependentEvaluation) {
  for (const char* n : {"bfres/Animal_Bass_Animation.bfres", "bfres/Animal_Dog_Animation.bfres"}) {
    auto p = test::sample(n);
    if (!p) continue;
    const auto& l = cached(*p);
    const auto& sk = l.s.skeletons[0];
    auto rig = rig_of(*p, l.s);
    double worst_local = 0, worst_world = 0;
    std::size_t checked = 0;
    for (std::size_t ai = 0; ai < rig.anims.anims.size(); ++ai) {
      const auto& fa = rig.anims.anims[ai];
      const auto& an = l.s.animations[ai];
      ASSERT_EQ(an.name, fa.name);
      const std::size_t nb = sk.bones.size();
      for (std::int32_t fr = 0; fr <= fa.frame_count; ++fr) {
        auto game = game_pose_at(*rig.raw, fa, fr);
        auto pose = scene_ops::sample_pose(sk, an, float(fr / 30.0));
        auto gl = scene_ops::world_matrices(sk, pose);
        for (std::size_t bi = 0; bi < nb; ++bi) {
          const auto& r = game.local[bi];
          const vec3& t = pose.translation[bi];
          const vec3& s = pose.scale[bi];
          for (int c = 0; c < 3; ++c) {
            worst_local = std::max(worst_local, double(std::fabs(t[std::size_t(c)] - r[std::size_t(7 + c)]) / std::max(1.0f, std::fabs(r[std::size_t(7 + c)]))));
            worst_local = std::max(worst_local, double(std::fabs(s[std::size_t(c)] - r[std::size_t(c)]) / std::max(1.0f, std::fabs(r[std::size_t(c)]))));
          }
          auto m1 = quat_matrix(pose.rotation[bi]);
          auto m2 = ref_euler_matrix(r[3], r[4], r[5]);
          for (int k = 0; k < 9; ++k) worst_local = std::max(worst_local, double(std::fabs(m1[std::size_t(k)] - m2[std::size_t(k)])));
          worst_world = std::max(worst_world, world_error(gl[bi], game.world[bi]));
          ++checked;
        }
      }
    }
    EXPECT_GT(checked, 100u) << n;
    EXPECT_LT(worst_local, 2e-4) << n;
    EXPECT_LT(worst_world, 2e-4) << n;
    std::printf("%s: %zu bone poses, worst local %.3g, worst world %.3g\n", n, checked, worst_local, worst_world);
  }
}

// The promise: "the pose in glTF equals the game's". The written .glb is evaluated
// by an independent glTF sampler (tests/support) at every frame of every animation, and
// every bone's world matrix is compared with the game's, segment scale compensation under
// non-uniformly scaled parents included (helper nodes, scene-model.md).
TEST(Samples, GltfWorldMatricesEqualTheGamesAtEveryFrame) {
  for (const char* n : {"bfres/Animal_Bass_Animation.bfres", "bfres/Animal_Dog_Animation.bfres"}) {
    auto p = test::sample(n);
    if (!p) {
      std::printf("skipped %s: shared sample not present\n", n);
      continue;
    }
    const auto& l = cached(*p);
    auto rig = rig_of(*p, l.s);
    diagnostics wd;
    auto w = gltf::write(l.s, helper_form(), wd);
    ASSERT_TRUE(w.ok()) << w.error().message;
    test::gltf_evaluator ev(w.value().main);
    ASSERT_EQ(ev.animation_count(), rig.anims.anims.size());
    const auto& sk = l.s.skeletons[0];
    double worst = 0, worst_rel_ssc = 0, worst_vs_scene = 0;
    std::string worst_at;
    std::size_t compared = 0, under_scaled_parent = 0;
    for (std::size_t ai = 0; ai < rig.anims.anims.size(); ++ai) {
      const auto& fa = rig.anims.anims[ai];
      for (std::int32_t fr = 0; fr <= fa.frame_count; ++fr) {
        auto game = game_pose_at(*rig.raw, fa, fr);
        auto nodes = ev.worlds(int(ai), float(fr / 30.0));
        auto scene_world = scene_ops::world_matrices(sk, scene_ops::sample_pose(sk, l.s.animations[ai], float(fr / 30.0)));
        for (std::size_t bi = 0; bi < sk.bones.size(); ++bi) {
          const core::mat4* gm = test::find_world(nodes, sk.bones[bi].name);
          ASSERT_NE(gm, nullptr) << sk.bones[bi].name;
          double e = world_error(*gm, game.world[bi]);
          worst_vs_scene = std::max(worst_vs_scene, world_error(*gm, scene_world[bi]));
          if (e > worst) worst = e, worst_at = fa.name + "/" + sk.bones[bi].name + " frame " + std::to_string(fr);
          const int par = sk.bones[bi].parent;
          if (sk.bones[bi].segment_scale_compensate && par >= 0) {
            const auto& ps = game.local[std::size_t(par)];
            if (std::fabs(ps[0] - ps[1]) > 1e-4f || std::fabs(ps[1] - ps[2]) > 1e-4f) {
              ++under_scaled_parent;
              worst_rel_ssc = std::max(worst_rel_ssc, e);
            }
          }
          ++compared;
        }
      }
    }
    std::printf("%s: %zu bone poses from the glb; world error vs the game %.3g (%s), vs the scene %.3g; "
                "%zu poses under a non-uniformly scaled parent, worst %.3g\n",
                n, compared, worst, worst_at.c_str(), worst_vs_scene, under_scaled_parent, worst_rel_ssc);
    // The glb reproduces the scene's SSC-aware worlds to float precision, and the game's to
    // the precision of the curve evaluation itself (the local check above allows 2e-4).
    EXPECT_LT(worst_vs_scene, 1e-5) << n;
    EXPECT_LT(worst, 2e-4) << worst_at;
    if (std::string(n).find("Dog") != std::string::npos) EXPECT_GT(under_scaled_parent, 0u);
  }
}

TEST(Samples, EveryGlbPassesTheValidator) {
  // The Dog glb (10 MB) is validated by the CLI test bfres_convert_Animal_Dog_Animation.bfres.
  for (const char* n : {"bfres/Animal_Bass.sbfres", "bfres/Animal_Bass_Animation.bfres"}) {
    auto p = test::sample(n);
    if (!p) continue;
    const auto& l = cached(*p);
    diagnostics wd;
    std::string out = test::out_path(std::filesystem::path(*p).filename().string() + ".glb");
    auto w = gltf::write(l.s, {}, wd);
    ASSERT_TRUE(w.ok()) << w.error().message;
    test::write_bytes(out, w.value().main);
    std::string report;
    int errors = test::gltf_validator_errors(out, &report);
    if (errors < 0) GTEST_SKIP() << "node / gltf-validator not available";
    EXPECT_EQ(errors, 0) << report;
  }
}

// ---- Hostile input: truncations and byte flips must end in clean errors.
TEST(Hostile, MutationLoop) {
  std::vector<std::vector<std::uint8_t>> seeds;
  {
    t_anim a;
    a.name = "Seed";
    a.frame_count = 30;
    t_bone_anim b;
    b.name = "Child";
    b.flags = (1 << 3) | (1 << 5);
    b.base = {1, 1, 1, 0, 0, 0};
    b.curves.push_back(seed_linear_curve());
    a.bones.push_back(b);
    seeds.push_back(build_fres({{"Root"}, {"Child", 0}}, {a}));
  }
  if (auto p = test::sample("bfres/Animal_Bass_Animation.bfres")) seeds.push_back(test::read_bytes(*p));
  if (auto p = test::sample("bfres/Animal_Bass.sbfres")) seeds.push_back(test::read_bytes(*p));
  // RIGRIP_BFRES_MUTATIONS=N runs a longer campaign locally.
  const char* env = std::getenv("RIGRIP_BFRES_MUTATIONS");
  const int iterations = env ? std::max(1, std::atoi(env)) : 120;
  std::mt19937 rng(12345);
  int clean = 0, ok = 0;
  double slowest = 0;
  std::string slowest_at;
  for (const auto& seed : seeds) {
    for (int it = 0; it < iterations; ++it) {
      auto d = seed;
      if (it % 3 == 0) {
        d.resize(rng() % d.size());
      } else {
        int flips = 1 + int(rng() % 8);
        for (int k = 0; k < flips; ++k) d[rng() % d.size()] ^= std::uint8_t(1 + rng() % 255);
      }
      if (const char* dm = std::getenv("RIGRIP_BFRES_DUMP_MUTANT"); dm && std::string(dm) == std::to_string(&seed - &seeds[0]) + ":" + std::to_string(it))
        test::write_bytes(test::out_path("bfres_mutant.bfres"), d);
      auto t0 = std::chrono::steady_clock::now();
      try {
        diagnostics diags;
        read_context ctx;
        ctx.path = "mutant.bfres";
        ctx.data = d;
        ctx.diags = &diags;
        auto s = bfres::to_scene(load_any(d), ctx);
        (void)s.validate();
        ++ok;
      } catch (const core::failure& e) {
        ++clean;
        EXPECT_FALSE(e.error().message.empty());
      }
      const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      if (took > slowest) slowest = took, slowest_at = "seed " + std::to_string(&seed - &seeds[0]) + " iteration " + std::to_string(it);
      EXPECT_LT(took, 2.0) << slowest_at;
    }
  }
  std::printf("mutations: %d clean errors, %d still readable; slowest %.3f s (%s)\n", clean, ok, slowest, slowest_at.c_str());
  EXPECT_GT(clean, 0);
}

// examples/bfres (a valid file the README's main job converts) and tests/bfres/data (damaged
// ones, kept out of examples/ so that job succeeds) hold small files made by this test's
// builder (never game files): RIGRIP_REGEN=1 rewrites them; otherwise they must match.
TEST(Examples, FilesMatchTheBuilder) {
  t_anim a;
  a.name = "Seed";
  a.frame_count = 30;
  t_bone_anim b;
  b.name = "Child";
  b.curves.push_back(seed_linear_curve());
  a.bones.push_back(b);
  auto seed = build_fres({{"Root"}, {"Child", 0}}, {a});
  auto damaged = seed;
  damaged[0x70] = damaged[0x71] = damaged[0x72] = damaged[0x73] = 0xFF;  // FMDL dict count
  std::vector<std::uint8_t> sw(0x100, 0);
  std::memcpy(sw.data(), "FRES    ", 8);
  const std::string examples = std::string(RIGRIP_SOURCE_DIR) + "/examples/bfres/";
  const std::string data = std::string(RIGRIP_SOURCE_DIR) + "/tests/bfres/data/";
  std::vector<std::pair<std::string, std::vector<std::uint8_t>>> files{
      {examples + "seed_linear.bfres", seed}, {data + "damaged_dict_count.bfres", damaged},
      {data + "switch_header.bfres", sw}};
  const char* regen = std::getenv("RIGRIP_REGEN");
  for (auto& [path, bytes] : files) {
    if (regen && std::string(regen) == "1") {
      std::filesystem::create_directories(std::filesystem::path(path).parent_path());
      test::write_bytes(path, bytes);
    }
    EXPECT_EQ(test::read_bytes(path), bytes) << path;
  }
}

// ---- Writing.
#include "formats/bfres/encode.hpp"

TEST(Pack, PatriciaBuilderReproducesTheSampleDictionaries) {
  int dicts = 0;
  for (const char* n : {"bfres/Animal_Bass.bfres", "bfres/Animal_Bass_Animation.bfres", "bfres/Animal_Dog_Animation.bfres"}) {
    auto p = test::sample(n);
    if (!p) continue;
    auto f = parse_sample(*p);
    for (const auto& d : f.dicts) {
      if (!d || d->nodes.size() < 2) continue;
      std::vector<std::string> names;
      for (std::size_t i = 1; i < d->nodes.size(); ++i) names.push_back(d->nodes[i].name);
      auto built = bfres::build_patricia(names);
      ASSERT_EQ(built.size(), d->nodes.size());
      for (std::size_t i = 0; i < built.size(); ++i) {
        EXPECT_EQ(built[i].ref_bit, d->nodes[i].ref_bit) << n << " node " << i;
        EXPECT_EQ(built[i].left, d->nodes[i].left) << n << " node " << i;
        EXPECT_EQ(built[i].right, d->nodes[i].right) << n << " node " << i;
      }
      ++dicts;
    }
  }
  if (dicts == 0) GTEST_SKIP() << "no samples";
}

namespace {
// Largest per-frame difference between two scenes' animations (same names), sampled at fps.
struct pose_diff {
  double units = 0, degrees = 0;
  std::size_t compared = 0;
};
pose_diff compare_scenes(const scene& a, const scene& b, double fps) {
  pose_diff d;
  for (const auto& aa : a.animations) {
    const animation* bb = nullptr;
    for (const auto& x : b.animations)
      if (x.name == aa.name) bb = &x;
    EXPECT_NE(bb, nullptr) << aa.name;
    if (!bb) continue;
    const auto& ska = a.skeletons[std::size_t(aa.skeleton)];
    const auto& skb = b.skeletons[std::size_t(bb->skeleton)];
    int frames = int(std::lround(aa.duration * fps));
    for (const auto& bone_a : ska.bones) {
      int ib = skb.find(bone_a.name);
      if (ib < 0) continue;
      const auto& bone_b = skb.bones[std::size_t(ib)];
      for (int f = 0; f <= frames; ++f) {
        float time = float(std::min(f / fps, aa.duration));
        auto local = [&](const animation& an, const rigrip::bone& bn, vec3& t, quat& q, vec3& s) {
          t = bn.translation; q = bn.rotation; s = bn.scale;
          if (auto* x = find_track(an, bn.name, path::translation)) { auto v = scene_ops::sample(*x, time); t = {v[0], v[1], v[2]}; }
          if (auto* x = find_track(an, bn.name, path::rotation)) { auto v = scene_ops::sample(*x, time); q = core::normalize({v[0], v[1], v[2], v[3]}); }
          if (auto* x = find_track(an, bn.name, path::scale)) { auto v = scene_ops::sample(*x, time); s = {v[0], v[1], v[2]}; }
        };
        vec3 ta, sa, tb, sb;
        quat qa, qb;
        local(aa, bone_a, ta, qa, sa);
        local(*bb, bone_b, tb, qb, sb);
        for (int k = 0; k < 3; ++k) {
          d.units = std::max(d.units, double(std::fabs(ta[std::size_t(k)] - tb[std::size_t(k)])));
          d.units = std::max(d.units, double(std::fabs(sa[std::size_t(k)] - sb[std::size_t(k)])));
        }
        // Angle of qa^-1 * qb, in double via atan2 (acos of a float dot is noise-limited at ~0.03 deg).
        double ax = qa[0], ay = qa[1], az = qa[2], aw = qa[3], bx = qb[0], by = qb[1], bz = qb[2], bw = qb[3];
        double rw = aw * bw + ax * bx + ay * by + az * bz;
        double rx = aw * bx - ax * bw - ay * bz + az * by;
        double ry = aw * by + ax * bz - ay * bw - az * bx;
        double rz = aw * bz - ax * by + ay * bx - az * bw;
        double angle = 2.0 * std::atan2(std::sqrt(rx * rx + ry * ry + rz * rz), std::fabs(rw));
        d.degrees = std::max(d.degrees, angle * 180.0 / 3.14159265358979);
        ++d.compared;
      }
    }
  }
  return d;
}

scene via_glb(const scene& s) {
  diagnostics diags;
  auto w = gltf::write(s, helper_form(), diags);
  EXPECT_TRUE(w.ok());
  auto r = gltf::read(w.value().main, "anim.glb", diags);
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().message);
  return r.value();
}
}  // namespace

TEST(Pack, GlbPackReadBackWithinTolerance) {
  RIGRIP_REQUIRE_SAMPLE(bass, "bfres/Animal_Bass_Animation.bfres");
  auto tpl = test::read_bytes(bass);
  auto src = read_bytes_as(tpl, bass);
  scene glb = via_glb(src.s);
  diagnostics diags;
  pack_context ctx;
  ctx.template_file = tpl;
  ctx.output_path = "New.bfres";
  ctx.diags = &diags;
  auto out = bfres::pack_file(glb, ctx);
  test::write_bytes(test::out_path("bfres_pack_bass.bfres"), out);
  auto back = read_bytes_as(out, "New.bfres");
  EXPECT_EQ(back.s.animations.size(), 7u);  // replaced in place, none added
  auto d = compare_scenes(glb, back.s, 30);
  std::printf("pack round trip: %zu poses, max %.5f units, %.5f degrees, %zu -> %zu bytes\n", d.compared, d.units,
              d.degrees, tpl.size(), out.size());
  EXPECT_GT(d.compared, 500u);
  EXPECT_LE(d.units, 0.0101);
  EXPECT_LE(d.degrees, 0.03);  // 0.01 degrees per Euler angle
  // The untouched part of the template is still there, byte for byte.
  EXPECT_TRUE(std::equal(tpl.begin() + 0x10, tpl.begin() + 0x28, out.begin() + 0x10));
}

TEST(Pack, NewNameAddsAnFskaAndARebuiltDictionary) {
  RIGRIP_REQUIRE_SAMPLE(bass, "bfres/Animal_Bass_Animation.bfres");
  auto tpl = test::read_bytes(bass);
  auto src = read_bytes_as(tpl, bass);
  scene glb = via_glb(src.s);
  glb.animations.resize(1);
  glb.animations[0].name = "Swim_Custom";
  pack_context ctx;
  ctx.template_file = containers::yaz0_compress(tpl);  // a compressed template gives a compressed result
  auto packed = rigrip::pack(glb, *rigrip::find_format("bfres"), ctx);
  ASSERT_TRUE(packed.ok()) << packed.error().to_string();
  auto out = packed.value();
  ASSERT_TRUE(containers::is_yaz0(out));
  auto f = load_any(out);
  ASSERT_EQ(f.anims.size(), 8u);
  EXPECT_EQ(f.counts[2], 8);
  // Every name is found by the runtime's Patricia search in the rebuilt dictionary.
  const auto& d = *f.dicts[2];
  for (std::size_t i = 1; i < d.nodes.size(); ++i) {
    const std::string& name = d.nodes[i].name;
    auto bit = [&](std::uint32_t ref) { return (ref >> 3) < name.size() ? (std::uint8_t(name[ref >> 3]) >> (ref & 7)) & 1 : 0; };
    const auto* p = &d.nodes[0];
    const auto* c = &d.nodes[p->left];
    while (p->ref_bit > c->ref_bit) { p = c; c = bit(c->ref_bit) ? &d.nodes[c->right] : &d.nodes[c->left]; }
    EXPECT_EQ(c->name, name);
  }
  auto back = read_bytes_as(out, "New.sbfres");
  scene one = glb;
  auto dd = compare_scenes(one, back.s, 30);
  EXPECT_LE(dd.units, 0.0101);
  EXPECT_LE(dd.degrees, 0.03);
}

TEST(Pack, WithoutTemplateIsAClearError) {
  scene s;
  pack_context ctx;
  try {
    (void)bfres::pack_file(s, ctx);
    FAIL();
  } catch (const core::failure& e) {
    EXPECT_EQ(e.error().code, code::usage);
    EXPECT_NE(e.error().message.find("--template"), std::string::npos);
  }
}

TEST(Pack, DogLongClipsUseFixedPointFramesAndStayWithinTolerance) {
  RIGRIP_REQUIRE_SAMPLE(dog, "bfres/Animal_Dog_Animation.bfres");
  auto tpl = test::read_bytes(dog);
  auto src = cached(dog);
  // The two longest clips (> 255 frames: s10.5 frame arrays) and one that scales a parent
  // of a segment-scale-compensating bone.
  std::vector<animation> keep;
  std::vector<animation> all = src.s.animations;
  std::sort(all.begin(), all.end(), [](const animation& a, const animation& b) { return a.duration > b.duration; });
  keep.push_back(all[0]);
  keep.push_back(all[1]);
  for (const auto& a : src.s.animations) {
    scene one = src.s;
    one.animations = {a};
    auto comp = scene_ops::compensating_bones(one, 0);
    if (std::find(comp.begin(), comp.end(), true) != comp.end() && keep.size() < 3) keep.push_back(a);
  }
  ASSERT_EQ(keep.size(), 3u);
  src.s.animations = keep;
  scene glb = via_glb(src.s);
  pack_context ctx;
  ctx.template_file = tpl;
  auto out = bfres::pack_file(glb, ctx);
  auto f = load_any(out);
  bool fixed_point = false;
  for (const auto& a : f.anims)
    if (a.name == all[0].name)
      for (const auto& b : a.bone_anims)
        for (const auto& c : b.curves) fixed_point |= c.frame_type() == 1;
  EXPECT_TRUE(fixed_point);
  auto back = read_bytes_as(out, "New.bfres");
  EXPECT_EQ(back.s.animations.size(), 51u);
  auto d = compare_scenes(glb, back.s, 30);
  std::printf("dog pack round trip: %zu poses, max %.5f units, %.5f degrees\n", d.compared, d.units, d.degrees);
  EXPECT_LE(d.units, 0.0101);
  EXPECT_LE(d.degrees, 0.03);
}

// ---- Segment Scale Compensate and quaternion mode on hand-built files.
namespace {
t_curve linear_f32(std::uint32_t target, float from, float to, int frames) {
  t_curve c;
  c.flags = 2 | (0 << 2) | (1 << 4);  // u8 frames, f32 keys, linear
  c.target = target;
  c.end = float(frames);
  c.frames = {0, frames};
  c.keys = {f32_bits(from), f32_bits(to - from), f32_bits(to), f32_bits(0)};
  return c;
}

// World matrices from the scene's tracks (glTF semantics).
std::vector<core::mat4> gltf_world(const scene& s, const animation& a, float time) {
  const auto& sk = s.skeletons[0];
  std::vector<core::mat4> w(sk.bones.size());
  for (std::size_t i = 0; i < sk.bones.size(); ++i) {
    const auto& b = sk.bones[i];
    vec3 t = b.translation, sc = b.scale;
    quat q = b.rotation;
    if (auto* x = find_track(a, b.name, path::translation)) { auto v = scene_ops::sample(*x, time); t = {v[0], v[1], v[2]}; }
    if (auto* x = find_track(a, b.name, path::rotation)) { auto v = scene_ops::sample(*x, time); q = {v[0], v[1], v[2], v[3]}; }
    if (auto* x = find_track(a, b.name, path::scale)) { auto v = scene_ops::sample(*x, time); sc = {v[0], v[1], v[2]}; }
    auto l = core::compose(t, q, sc);
    w[i] = b.parent < 0 ? l : core::multiply(w[std::size_t(b.parent)], l);
  }
  return w;
}

// Maya-mode world of bone 2 (SSC child of bone 1, child of an identity root), from spec 6.1.
core::mat4 game_child_world(vec3 ps, float child_z_angle, vec3 ct, vec3 cs) {
  auto parent_rt = core::identity();
  auto rt = core::compose({ct[0] * ps[0], ct[1] * ps[1], ct[2] * ps[2]}, core::from_euler({0, 0, child_z_angle}, "XYZ"), {1, 1, 1});
  return core::multiply(core::multiply(parent_rt, rt), core::compose({0, 0, 0}, {0, 0, 0, 1}, cs));
}

std::vector<std::uint8_t> ssc_file(vec3 parent_scale_end) {
  t_anim a;
  a.name = "Grow";
  a.frame_count = 10;
  t_bone_anim p;
  p.name = "Parent";
  p.flags = (1 << 3) | (1 << 4) | (1 << 5);
  p.base = {1, 1, 1, 0, 0, 0, 1, 0, 0, 0};
  p.curves = {linear_f32(0x04, 1, parent_scale_end[0], 10), linear_f32(0x08, 1, parent_scale_end[1], 10),
              linear_f32(0x0C, 1, parent_scale_end[2], 10)};
  t_bone_anim c;
  c.name = "Child";
  c.flags = (1 << 3) | (1 << 4) | (1 << 5) | (1u << 23);  // SSC
  c.base = {1, 1, 1, 0, 0, 0.5f, 1, 1, 0, 0};
  a.bones = {p, c};
  t_bone root{"Root"}, parent{"Parent", 0}, child{"Child", 1};
  child.flags |= 1u << 23;
  child.t[0] = 1;
  child.r[2] = 0.5f;
  return build_fres({root, parent, child}, {a});
}
}  // namespace

// Worst element difference between the game's child world and (a) the scene's world
// (scene_ops::world_matrices) and (b) the written glb evaluated independently, every frame.
void expect_ssc_exact(vec3 parent_scale_end) {
  auto l = read_bytes_as(ssc_file(parent_scale_end), "ssc.bfres");
  for (const auto& w : l.diags.warnings) EXPECT_NE(w.code, code::w_lossy) << w.message;
  const auto& sk = l.s.skeletons[0];
  ASSERT_TRUE(sk.bones[2].segment_scale_compensate);
  EXPECT_FALSE(sk.bones[1].segment_scale_compensate);
  const auto& a = l.s.animations[0];
  diagnostics wd;
  auto glb = gltf::write(l.s, helper_form(), wd);
  ASSERT_TRUE(glb.ok()) << glb.error().message;
  test::gltf_evaluator ev(glb.value().main);
  float worst_scene = 0, worst_glb = 0;
  for (int f = 0; f <= 10; ++f) {
    vec3 ps{1 + f * (parent_scale_end[0] - 1) / 10, 1 + f * (parent_scale_end[1] - 1) / 10, 1 + f * (parent_scale_end[2] - 1) / 10};
    auto game = game_child_world(ps, 0.5f, {1, 0, 0}, {1, 1, 1});
    auto sw = scene_ops::world_matrices(sk, scene_ops::sample_pose(sk, a, f / 30.0f));
    auto nodes = ev.worlds(0, f / 30.0f);
    const core::mat4* gw = test::find_world(nodes, "Child");
    ASSERT_NE(gw, nullptr);
    for (std::size_t k = 0; k < 16; ++k) {
      worst_scene = std::max(worst_scene, std::fabs(sw[2][k] - game[k]));
      worst_glb = std::max(worst_glb, std::fabs((*gw)[k] - game[k]));
    }
  }
  EXPECT_LT(worst_scene, 1e-5);
  EXPECT_LT(worst_glb, 1e-5);
}

TEST(Ssc, UniformParentScaleIsExactInGltf) { expect_ssc_exact({2, 2, 2}); }

// Non-uniform parent scale under a rotated child: the game's world has shear, which
// plain T*R*S bones cannot carry; the helper node (translation, 1/s) makes it exact.
TEST(Ssc, NonUniformParentScaleIsExactThroughTheHelperNode) {
  expect_ssc_exact({2, 1, 1});
  expect_ssc_exact({0.5f, 3, 1.5f});
}

TEST(Ssc, HelperNodeFoldsBackOnGlbRead) {
  auto l = read_bytes_as(ssc_file({2, 1, 1}), "ssc.bfres");
  scene back = via_glb(l.s);
  ASSERT_EQ(back.skeletons[0].bones.size(), 3u);  // the helper is not a bone
  const auto& c = back.skeletons[0].bones[2];
  EXPECT_EQ(c.name, "Child");
  EXPECT_TRUE(c.segment_scale_compensate);
  EXPECT_NEAR(c.translation[0], 1.0f, 1e-6);
  for (int f = 0; f <= 10; ++f) {
    auto w1 = scene_ops::world_matrices(l.s.skeletons[0], scene_ops::sample_pose(l.s.skeletons[0], l.s.animations[0], f / 30.0f));
    auto w2 = scene_ops::world_matrices(back.skeletons[0], scene_ops::sample_pose(back.skeletons[0], back.animations[0], f / 30.0f));
    for (std::size_t k = 0; k < 16; ++k) EXPECT_NEAR(w1[2][k], w2[2][k], 1e-5);
  }
}

// Scale modes None (0) and Softimage (3), spec section 5, on a hand-built file whose parent
// scale is animated non-uniformly: the scene (SSC semantics) and the glb must give the
// game's world matrices, computed here from the notes.
namespace {
struct mode_rig {
  vec3 t, e, s;  // translation, Euler XYZ, scale (rest)
  int parent;
};
const mode_rig k_mode_rig[4] = {{{0, 1, 0}, {0, 0.3f, 0}, {1, 1, 1}, -1},
                                {{0, 2, 0}, {0.2f, 0, 0}, {1.5f, 1, 0.5f}, 0},
                                {{1, 0.5f, 0}, {0, 0, 0.5f}, {1.2f, 1, 0.8f}, 1},
                                {{0.3f, 0.2f, 0.1f}, {0.1f, 0.2f, 0.3f}, {1, 1, 1}, 2}};
const char* k_mode_names[4] = {"Root", "Parent", "Child", "Grand"};

std::vector<std::uint8_t> scale_mode_file(std::uint32_t mode) {
  std::vector<t_bone> bones;
  for (int i = 0; i < 4; ++i) {
    t_bone b{k_mode_names[i], std::int16_t(k_mode_rig[i].parent)};
    for (int k = 0; k < 3; ++k) b.t[k] = k_mode_rig[i].t[std::size_t(k)], b.r[k] = k_mode_rig[i].e[std::size_t(k)], b.s[k] = k_mode_rig[i].s[std::size_t(k)];
    bones.push_back(b);
  }
  t_anim a;
  a.name = "Squash";
  a.frame_count = 10;
  a.flags = 0x1000 | (mode << 8);
  t_bone_anim p;
  p.name = "Parent";
  p.flags = (1 << 3) | (1 << 4) | (1 << 5);
  p.base = {1.5f, 1, 0.5f, 0.2f, 0, 0, 1, 0, 2, 0};
  p.curves = {linear_f32(0x04, 1.5f, 2, 10), linear_f32(0x08, 1, 0.5f, 10), linear_f32(0x0C, 0.5f, 1, 10)};
  t_bone_anim c;
  c.name = "Child";
  c.flags = (1 << 3) | (1 << 4) | (1 << 5);
  c.base = {1.2f, 1, 0.8f, 0, 0, 0.5f, 1, 1, 0.5f, 0};
  c.curves = {linear_f32(0x10, 1, 2, 10)};  // translation x from 1 to 2
  a.bones = {p, c};
  return build_fres(bones, {a}, 0x04050003, 0x1000 | (mode << 8));
}

// The game's worlds at frame fr (section 5).
std::vector<core::mat4> scale_mode_game(std::uint32_t mode, int fr) {
  std::vector<core::mat4> rt(4), out(4);
  std::vector<vec3> acc(4);
  for (std::size_t i = 0; i < 4; ++i) {
    vec3 t = k_mode_rig[i].t, sc = k_mode_rig[i].s;
    const float u = fr / 10.0f;
    if (i == 1) sc = {1.5f + 0.5f * u, 1 - 0.5f * u, 0.5f + 0.5f * u};
    if (i == 2) t[0] = 1 + u;
    const int p = k_mode_rig[i].parent;
    acc[i] = p < 0 ? sc : vec3{acc[std::size_t(p)][0] * sc[0], acc[std::size_t(p)][1] * sc[1], acc[std::size_t(p)][2] * sc[2]};
    vec3 tt = t;
    if (mode == 3 && p >= 0) tt = {t[0] * acc[std::size_t(p)][0], t[1] * acc[std::size_t(p)][1], t[2] * acc[std::size_t(p)][2]};
    if (mode == 1) {  // standard: plain T*R*S inheritance
      auto l = core::compose(t, core::from_euler(k_mode_rig[i].e, "XYZ"), sc);
      out[i] = p < 0 ? l : core::multiply(out[std::size_t(p)], l);
      continue;
    }
    auto local = core::compose(tt, core::from_euler(k_mode_rig[i].e, "XYZ"), {1, 1, 1});
    rt[i] = p < 0 ? local : core::multiply(rt[std::size_t(p)], local);
    out[i] = core::multiply(rt[i], core::compose({0, 0, 0}, {0, 0, 0, 1}, mode == 3 ? acc[i] : sc));
  }
  return out;
}
}  // namespace

TEST(ScaleModes, NoneAndSoftimageAreExactInSceneAndGlb) {
  for (std::uint32_t mode : {0u, 3u}) {
    auto l = read_bytes_as(scale_mode_file(mode), "modes.bfres");
    for (const auto& w : l.diags.warnings) EXPECT_NE(w.code, code::w_lossy) << w.message;
    const auto& sk = l.s.skeletons[0];
    ASSERT_EQ(sk.bones.size(), 4u);
    diagnostics wd;
    auto glb = gltf::write(l.s, helper_form(), wd);
    ASSERT_TRUE(glb.ok()) << glb.error().message;
    test::gltf_evaluator ev(glb.value().main);
    float worst_scene = 0, worst_glb = 0;
    for (int fr = 0; fr <= 10; ++fr) {
      auto game = scale_mode_game(mode, fr);
      auto sw = scene_ops::world_matrices(sk, scene_ops::sample_pose(sk, l.s.animations[0], fr / 30.0f));
      auto nodes = ev.worlds(0, fr / 30.0f);
      for (std::size_t i = 0; i < 4; ++i) {
        const core::mat4* gw = test::find_world(nodes, k_mode_names[i]);
        ASSERT_NE(gw, nullptr);
        for (std::size_t k = 0; k < 16; ++k) {
          worst_scene = std::max(worst_scene, std::fabs(sw[i][k] - game[i][k]));
          worst_glb = std::max(worst_glb, std::fabs((*gw)[k] - game[i][k]));
        }
      }
    }
    EXPECT_LT(worst_scene, 1e-5) << "mode " << mode;
    EXPECT_LT(worst_glb, 1e-5) << "mode " << mode;
    // Standard inheritance would be visibly different: the test can fail.
    auto plain = sk;
    for (auto& b : plain.bones) b.segment_scale_compensate = false;
    auto pw = scene_ops::world_matrices(plain, scene_ops::sample_pose(plain, l.s.animations[0], 10 / 30.0f));
    float differs = 0;
    for (std::size_t k = 0; k < 16; ++k) differs = std::max(differs, std::fabs(pw[3][k] - scale_mode_game(mode, 10)[3][k]));
    EXPECT_GT(differs, 0.05f) << "mode " << mode;
  }
}

TEST(ScaleModes, PackIntoNoneAndSoftimageTemplatesKeepsTheWorlds) {
  for (std::uint32_t mode : {0u, 2u, 3u}) {
    auto file = scale_mode_file(mode);
    auto l = read_bytes_as(file, "modes.bfres");
    scene glb = via_glb(l.s);
    pack_context ctx;
    ctx.template_file = file;
    diagnostics pd;
    ctx.diags = &pd;
    auto out = bfres::pack_file(glb, ctx);
    for (const auto& w : pd.warnings) EXPECT_NE(w.code, code::w_lossy) << w.message;
    auto back = read_bytes_as(out, "New.bfres");
    const auto& sk = back.s.skeletons[0];
    float worst = 0;
    for (int fr = 0; fr <= 10; ++fr) {
      auto game = scale_mode_game(mode == 2 ? 1 : mode, fr);  // mode 2 file has no SSC bits: standard
      auto w = scene_ops::world_matrices(sk, scene_ops::sample_pose(sk, back.s.animations[0], fr / 30.0f));
      for (std::size_t i = 0; i < 4; ++i)
        for (std::size_t k = 0; k < 16; ++k) worst = std::max(worst, std::fabs(w[i][k] - game[i][k]));
    }
    EXPECT_LT(worst, 0.02f) << "mode " << mode;
  }
}

TEST(Curve, QuaternionModeRotationIsNormalisedComponentwise) {
  t_anim a;
  a.name = "Quat";
  a.flags = 0x0200;  // Maya scale, quaternion rotation
  a.frame_count = 10;
  t_bone_anim b;
  b.name = "Bone";
  const float h = std::sqrt(0.5f);
  b.curves = {linear_f32(0x20, 0, 0, 10), linear_f32(0x24, 0, 0, 10), linear_f32(0x28, 0, h, 10), linear_f32(0x2C, 1, h, 10)};
  a.bones = {b};
  t_bone bone{"Bone"};
  bone.flags = 0x1;  // quaternion bone
  auto l = read_bytes_as(build_fres({bone}, {a}), "quat.bfres");
  const track* t = find_track(l.s.animations[0], "Bone", path::rotation);
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->times.size(), 11u);
  auto q = scene_ops::sample(*t, 5 / 30.0f);  // component-wise halfway (0,0,h/2,(1+h)/2), normalised
  float z = h / 2, w = (1 + h) / 2, n = std::sqrt(z * z + w * w);
  EXPECT_NEAR(q[2], z / n, 1e-5);
  EXPECT_NEAR(q[3], w / n, 1e-5);
}

// The raw layer really re-emits what it parsed: every byte of every decoded structure is
// zeroed in the image before serialise(), and the output must still equal the file.
TEST(Samples, SerialiseRewritesEveryParsedByte) {
  int files = 0;
  for (const char* n : {"bfres/Animal_Bass.bfres", "bfres/Animal_Bass_Animation.bfres", "bfres/Animal_Dog_Animation.bfres"}) {
    auto p = test::sample(n);
    if (!p) continue;
    ++files;
    auto bytes = test::read_bytes(*p);
    auto f = bfres::parse(bytes);
    std::size_t zeroed = 0;
    auto zero = [&](std::uint32_t at, std::size_t len) {
      for (std::size_t i = 0; i < len && at + i < f.image.size(); ++i, ++zeroed) f.image[at + i] = 0;
    };
    const bool v34 = f.v34();
    zero(0, 0x6C);
    for (const auto& d : f.dicts)
      if (d) zero(d->at, 8 + 16 * d->nodes.size());
    for (const auto& m : f.models) {
      if (!m.skel) continue;
      const auto& s = *m.skel;
      zero(s.at + 4, v34 ? 0x20 : 0x1C);  // after the magic
      for (const auto& b : s.bones) zero(b.at, v34 ? 0x40 : 0x70);
      zero(s.mtx_to_bone_at, 2 * s.mtx_to_bone.size());
      zero(s.inverse_at, 48 * s.inverse_matrices.size());
    }
    for (const auto& a : f.anims) {
      zero(a.at + 4, 0x2C);
      zero(a.bind_index_at, 2 * a.bind_indices.size());
      for (const auto& b : a.bone_anims) {
        zero(b.at, 0x18);
        zero(b.base_at, 4 * b.base.size());
        for (const auto& c : b.curves) {
          zero(c.at, v34 ? 0x24 : 0x20);
          const int fs = c.frame_type() == 0 ? 4 : c.frame_type() == 1 ? 2 : 1;
          const int ks = c.key_type() == 0 ? 4 : c.key_type() == 1 ? 2 : 1;
          zero(c.frames_at, std::size_t(fs) * c.frames_raw.size());
          zero(c.keys_at, std::size_t(ks) * c.keys_raw.size());
        }
      }
    }
    auto out = bfres::serialise(f);
    EXPECT_TRUE(out == bytes) << n;
    std::printf("%s: %zu of %zu bytes re-emitted from parsed fields\n", n, zeroed, bytes.size());
  }
  if (!files) GTEST_SKIP() << "no samples";
}

// Two more builder-made examples for the README's main job (and the fuzz / mutation seeds):
// segment scale compensation under a non-uniformly scaled parent (Maya mode), and the same
// rig in Softimage scale mode. Both convert to helper nodes in glTF.
TEST(Examples, ScaleExamplesMatchTheBuilder) {
  const std::string examples = std::string(RIGRIP_SOURCE_DIR) + "/examples/bfres/";
  std::vector<std::pair<std::string, std::vector<std::uint8_t>>> files{
      {examples + "ssc_nonuniform_parent.bfres", ssc_file({2, 1, 1})},
      {examples + "softimage_scale_mode.bfres", scale_mode_file(3)}};
  const char* regen = std::getenv("RIGRIP_REGEN");
  for (auto& [path, bytes] : files) {
    if (regen && std::string(regen) == "1") test::write_bytes(path, bytes);
    EXPECT_EQ(test::read_bytes(path), bytes) << path;
  }
}

// A bone animation's entry is read straight from its bytes: the fields as written (flags,
// the four begin bytes, the per-curve begin bytes, base values), and each offset field that
// points outside the file, or a non-finite base value, fails with the same error code at the
// same offset as the field-by-field reader gave (the field itself; the value's own offset).
TEST(Reader, BoneAnimEntryFieldsAndErrors) {
  t_anim a;
  a.name = "Entry";
  a.frame_count = 4;
  t_bone_anim b;
  b.name = "Bone";
  b.flags = (1u << 3) | (1u << 5);  // base scale and translation
  b.base = {1.0f, 2.0f, 3.0f, 4.0f, 5.0f, 6.0f};
  t_curve c;
  c.flags = 1 | (1 << 2) | (1 << 4);  // linear
  c.target = 0x10;
  c.start = 0, c.end = 4;
  c.frames = {0, 4 * 32};
  c.keys = {1, 2, 3, 4};
  b.curves.push_back(c);
  a.bones.push_back(b);
  const auto bytes = build_fres({{"Bone"}}, {a});
  const bfres::file f = bfres::parse(bytes);
  const bfres::bone_anim& ba = f.anims.at(0).bone_anims.at(0);
  EXPECT_EQ(ba.name, "Bone");
  EXPECT_EQ(ba.flags & 0xFFu, b.flags & 0xFFu);
  EXPECT_EQ(ba.begin_rotate, b.begin_rotate);
  EXPECT_EQ(ba.begin_translate, b.begin_translate);
  EXPECT_EQ(ba.num_curves, 1);
  EXPECT_EQ(ba.begin_base_translate, b.begin_base_translate);
  EXPECT_EQ(ba.base, b.base);
  ASSERT_EQ(ba.curves.size(), 1u);
  EXPECT_EQ(ba.curves[0].at, ba.curves_at);
  for (std::size_t k = 0; k < 4; ++k) EXPECT_EQ(ba.begin_curve[k], bytes[ba.at + 12 + k]);
  auto fails_at = [&](std::vector<std::uint8_t> d, code want, std::uint64_t offset) {
    try {
      (void)bfres::parse(d);
      ADD_FAILURE() << "parsed; expected an error at " << offset;
    } catch (const core::failure& e) {
      EXPECT_EQ(e.error().code, want) << e.error().message;
      EXPECT_EQ(e.error().offset, offset) << e.error().message;
    }
  };
  auto put32 = [](std::vector<std::uint8_t>& d, std::size_t at, std::uint32_t v) {
    for (std::size_t k = 0; k < 4; ++k) d[at + k] = static_cast<std::uint8_t>(v >> (8 * (3 - k)));  // big-endian
  };
  for (const std::uint32_t field : {4u, 0x10u, 0x14u})
    for (const std::int64_t target : {std::int64_t{-8}, static_cast<std::int64_t>(bytes.size()) + 16}) {
      auto d = bytes;
      put32(d, ba.at + field, static_cast<std::uint32_t>(static_cast<std::int32_t>(target - (ba.at + field))));
      fails_at(d, code::bad_offset, ba.at + field);
    }
  for (std::uint32_t k = 0; k < 6; ++k) {
    auto d = bytes;
    put32(d, ba.base_at + 4 * k, k % 2 ? 0x7F800000u : 0x7FC00000u);  // inf, NaN
    fails_at(d, code::bad_value, ba.base_at + 4 * k);
  }
}
