// Decoded BFRES tracks against plain formulas. The Euler rotation tracks of an animation
// (written a block of frames at a time, with the sines, the quaternion step and the
// hemisphere test in SIMD) hold exactly the floats of the plain per-frame formula: each
// curve evaluated at the frame, core::from_euler_xyz, and the quaternion negated where its
// dot product with the previous one written is below zero.
#include <algorithm>
#include <bit>
#include <cmath>
#include <gtest/gtest.h>

#include "builder.hpp"
#include "core/euler.hpp"
#include "formats/bfres/decode.hpp"
#include "formats/bfres/fres.hpp"
#include "test_support.hpp"

using namespace rigrip;

namespace {
// The scene of a file the test built (named `name`; fps 0: the reader's default).
scene decode_built(const bytes& data, const char* name, double fps = 0) {
  diagnostics diags;
  read_context ctx;
  ctx.path = name;
  ctx.data = data;
  ctx.diags = &diags;
  if (fps > 0) ctx.options.fps = fps;
  return bfres::to_scene(bfres::load(data), ctx);
}
}  // namespace

TEST(RotationTrack, EulerFramesEqualThePerFrameFormula) {
  RIGRIP_REQUIRE_SAMPLE(dog, "bfres/Animal_Dog_Animation.bfres");
  const auto data = test::read_bytes(dog);
  diagnostics diags;
  read_context ctx;
  ctx.path = dog;
  ctx.data = data;
  ctx.diags = &diags;
  ctx.load = [](const std::string& p) -> result<bytes> { return test::read_bytes(p); };
  const bfres::file f = bfres::load(data);
  const scene s = bfres::to_scene(f, ctx);
  ASSERT_EQ(s.animations.size(), f.anims.size());
  std::size_t frames = 0, longest = 0;
  for (std::size_t ai = 0; ai < f.anims.size(); ++ai) {
    const auto& a = f.anims[ai];
    ASSERT_TRUE(a.euler());
    for (const auto& b : a.bone_anims) {
      std::array<const bfres::curve*, 3> rc{};
      for (const auto& c : b.curves)
        if (const int k = bfres::curve_component(c.target); k >= 3 && k <= 5 && c.is_float()) rc[static_cast<std::size_t>(k - 3)] = &c;
      if (!rc[0] || !rc[1] || !rc[2]) continue;  // constant axes come from the base values or the bind pose
      const track* t = nullptr;
      for (const auto& x : s.animations[ai].tracks)
        if (x.bone == b.name && x.path == path::rotation) t = &x;
      ASSERT_NE(t, nullptr) << a.name << "/" << b.name;
      const auto n = static_cast<std::size_t>(a.frame_count) + 1;
      ASSERT_EQ(t->values.size(), 4 * n);
      std::array<float, 4> prev{};
      for (std::size_t fr = 0; fr < n; ++fr) {
        const float x = static_cast<float>(fr);
        const quat q = core::from_euler_xyz({rc[0]->eval(x), rc[1]->eval(x), rc[2]->eval(x)});
        std::array<float, 4> w{q[0], q[1], q[2], q[3]};
        if (fr > 0 && prev[0] * w[0] + prev[1] * w[1] + prev[2] * w[2] + prev[3] * w[3] < 0)
          for (auto& v : w) v = -v;
        for (std::size_t e = 0; e < 4; ++e)
          ASSERT_EQ(std::bit_cast<std::uint32_t>(t->values[4 * fr + e]), std::bit_cast<std::uint32_t>(w[e]))
              << a.name << "/" << b.name << " frame " << fr << " component " << e;
        prev = w;
      }
      frames += n, longest = std::max(longest, n);
    }
  }
  EXPECT_GT(frames, 100000u);
  EXPECT_GT(longest, 512u);  // tracks across several blocks of frames
}

// A keyed translation track's times are the sorted union of its curves' keys in [0, end]
// (each curve's frames merged as sorted runs; keys outside the clip and duplicates dropped).
TEST(Vec3Track, KeyTimesAreTheSortedUnionOfTheCurvesKeys) {
  const std::vector<std::vector<std::int64_t>> key_frames{{0, 3, 7, 20, 26}, {0, 5, 7, 7, 12, 20}, {0, 1, 19, 20}};
  bfres_test::t_anim a;
  a.name = "Union";
  a.frame_count = 20;
  bfres_test::t_bone_anim b;
  b.name = "Bone";
  for (std::size_t k = 0; k < 3; ++k) {
    bfres_test::t_curve c;
    c.flags = 1 | (1 << 2);  // s10.5 frames, s16 keys, cubic
    c.target = 0x10 + 4 * static_cast<std::uint32_t>(k);
    c.start = 0, c.end = 26;
    // Segments that meet (the next key's value is the previous segment's end): no jump keys.
    std::int64_t v = 3 * static_cast<std::int64_t>(k);
    for (const std::int64_t f : key_frames[k]) {
      c.frames.push_back(f * 32);
      const std::int64_t d = (f % 5) - 2;
      c.keys.insert(c.keys.end(), {v, d, 1, -1});
      v += d;
    }
    b.curves.push_back(c);
  }
  a.bones.push_back(b);
  const auto data = bfres_test::build_fres({{"Bone"}}, {a});
  const scene s = decode_built(data, "union.bfres");
  const track* t = nullptr;
  for (const auto& x : s.animations.at(0).tracks)
    if (x.path == path::translation) t = &x;
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->interpolation, interpolation::cubic_spline);
  std::vector<float> want;
  for (const float f : {0, 1, 3, 5, 7, 12, 19, 20}) want.push_back(static_cast<float>(f / 30.0));
  EXPECT_EQ(t->times, want);
}

// The key times when components share their keys (merged once) and when keys one float
// apart fall on the same time after the division by fps (the later ones dropped): against
// the plain rule — the sorted union of the keys in [0, end], then every frame whose time is
// not above the last kept one's dropped. Translation and scale, linear and cubic.
TEST(Vec3Track, KeyTimesDropFramesOfEqualTime) {
  const float five_up = std::nextafter(5.0f, 10.0f), nine_up = std::nextafter(9.0f, 10.0f);
  const std::vector<std::vector<float>> key_frames{{0, 5, five_up, 9, nine_up, 14, 20},
                                                   {0, 5, five_up, 9, nine_up, 14, 20},
                                                   {2, 5, five_up, 9, 16, 30}};
  for (const bool cubic : {false, true})
    for (const double fps : {4.5, 30.0, 1e7}) {
      bfres_test::t_anim a;
      a.name = "Equal";
      a.frame_count = 20;
      bfres_test::t_bone_anim b;
      b.name = "Bone";
      for (const std::uint32_t base : {0x04u, 0x10u})  // scale, translation
        for (std::size_t k = 0; k < 3; ++k) {
          bfres_test::t_curve c;
          c.flags = static_cast<std::uint16_t>(0 | (1 << 2) | ((cubic ? 0 : 1) << 4));  // f32 frames, s16 keys
          c.target = base + 4 * static_cast<std::uint32_t>(k);
          c.start = 0, c.end = 30;
          std::int64_t v = 3 * static_cast<std::int64_t>(k) + 1;
          for (const float f : key_frames[k]) {
            c.frames.push_back(std::bit_cast<std::uint32_t>(f));
            if (cubic) c.keys.insert(c.keys.end(), {v, 0, 0, 0});
            else c.keys.insert(c.keys.end(), {v, 0});
          }
          b.curves.push_back(c);
        }
      a.bones.push_back(b);
      const auto data = bfres_test::build_fres({{"Bone"}}, {a});
      const scene s = decode_built(data, "equal.bfres", fps);
      std::vector<float> keys;
      for (const auto& fs : key_frames)
        for (const float f : fs)
          if (f >= 0 && f <= 20) keys.push_back(f);
      keys.push_back(20);
      std::sort(keys.begin(), keys.end());
      keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
      std::vector<float> want;
      for (const float f : keys)
        if (const float t = static_cast<float>(f / fps); want.empty() || t > want.back()) want.push_back(t);
      int seen = 0;
      for (const auto& x : s.animations.at(0).tracks)
        if (x.path == path::translation || x.path == path::scale) {
          ++seen;
          EXPECT_EQ(x.times, want) << "fps " << fps << " cubic " << cubic;
        }
      EXPECT_EQ(seen, 2);
      if (fps == 4.5) EXPECT_LT(want.size(), keys.size());  // some frames fall on one time
    }
}

// Parts without curves that differ from the rest pose: one key at 0 and one at the end
// holding the base value (translation, scale, and the rotation from its Euler base).
TEST(Vec3Track, ConstantPartsAreTwoKeysOfTheBaseValue) {
  bfres_test::t_anim a;
  a.name = "Still";
  a.frame_count = 12;
  bfres_test::t_bone_anim b;
  b.name = "Bone";
  b.flags = (1u << 3) | (1u << 4) | (1u << 5);  // base scale, rotation and translation
  b.base = {2.0f, 0.5f, 4.0f, 0.25f, 0.0f, 0.0f, 0.0f, 1.0f, -2.0f, 3.0f};
  a.bones.push_back(b);
  const auto data = bfres_test::build_fres({{"Bone"}}, {a});
  const scene s = decode_built(data, "still.bfres");
  const std::vector<float> times{0.0f, static_cast<float>(12 / 30.0)};
  const quat q = core::from_euler_xyz({0.25f, 0.0f, 0.0f});
  int seen = 0;
  for (const auto& t : s.animations.at(0).tracks) {
    EXPECT_EQ(t.times, times);
    if (t.path == path::scale) EXPECT_EQ(t.values, (std::vector<float>{2, 0.5f, 4, 2, 0.5f, 4}));
    if (t.path == path::translation) EXPECT_EQ(t.values, (std::vector<float>{1, -2, 3, 1, -2, 3}));
    if (t.path == path::rotation) EXPECT_EQ(t.values, (std::vector<float>{q[0], q[1], q[2], q[3], q[0], q[1], q[2], q[3]}));
    ++seen;
  }
  EXPECT_EQ(seen, 3);
}
