// Fast paths of the math helpers give the same floats as the general ones.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>

#include "core/euler.hpp"
#include "core/math.hpp"
#include "scene/pose.hpp"

#define GLM_FORCE_CTOR_INIT
#include <glm/gtc/quaternion.hpp>

using namespace rigrip;

// from_euler_xyz (BFRES, per key) against from_euler's general axis walk ("xyz" in lower
// case takes the general path): identical bits, random and special angles.
TEST(MathFast, EulerXyzSameAsGeneralPath) {
  std::mt19937 rng(16);
  std::uniform_real_distribution<float> any(-20.0f, 20.0f);
  std::vector<float> special = {0.0f, -0.0f, core::pi, -core::pi, core::pi / 2, 1e-30f, 1e30f,
                                std::numeric_limits<float>::infinity(), std::numeric_limits<float>::quiet_NaN()};
  auto check = [](const vec3& r) {
    const quat a = core::from_euler_xyz(r), b = core::from_euler(r, "xyz"), c = core::from_euler(r, "XYZ");
    for (std::size_t i = 0; i < 4; ++i) {
      // bit for bit: the same floats, signed zeros included (dumps print -0.0)
      EXPECT_EQ(std::bit_cast<std::uint32_t>(a[i]), std::bit_cast<std::uint32_t>(b[i]))
          << r[0] << " " << r[1] << " " << r[2] << " component " << i;
      EXPECT_EQ(std::bit_cast<std::uint32_t>(a[i]), std::bit_cast<std::uint32_t>(c[i]));
    }
  };
  for (int i = 0; i < 100000; ++i) check({any(rng), any(rng), any(rng)});
  for (float x : special)
    for (float y : special)
      for (float z : special) check({x, y, z});
}

// The inline quaternion product against glm's operator* (the formula it replaced): identical
// bits on random and special inputs.
TEST(MathFast, InlineQuatMultiplySameAsGlm) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> any(-3.0f, 3.0f);
  auto check = [](const quat& a, const quat& b) {
    const glm::quat g = glm::quat(a[3], a[0], a[1], a[2]) * glm::quat(b[3], b[0], b[1], b[2]);
    const quat r = core::multiply(a, b);
    const float want[4] = {g.x, g.y, g.z, g.w};
    for (std::size_t i = 0; i < 4; ++i)
      EXPECT_EQ(std::bit_cast<std::uint32_t>(r[i]), std::bit_cast<std::uint32_t>(want[i])) << i;
  };
  for (int i = 0; i < 100000; ++i)
    check({any(rng), any(rng), any(rng), any(rng)}, {any(rng), any(rng), any(rng), any(rng)});
  const std::vector<float> special = {0.0f, -0.0f, 1.0f, -1.0f, 1e-30f, 1e30f};
  for (float x : special)
    for (float w : special) check({x, -x, 0.0f, w}, {w, x, -0.0f, -w});
}

namespace {
// Bit for bit, signed zeros and infinities included; a NaN matches a NaN. Where two NaN meet
// in one sum or product, x86 keeps the payload of the first operand, and which one that is
// the C++ source does not fix: GCC commutes the operands of + and * (scalar or vector) as its
// registers fall, so the scalar form too gives either payload depending on where it is inlined.
bool same_bits(const core::mat4& x, const core::mat4& y) {
  for (std::size_t k = 0; k < 16; ++k)
    if (std::bit_cast<std::uint32_t>(x[k]) != std::bit_cast<std::uint32_t>(y[k]) &&
        !(std::isnan(x[k]) && std::isnan(y[k])))
      return false;
  return true;
}

// A float of every kind the matrix code can meet: ordinary, tiny, huge, denormal, ±0, ±inf,
// NaN of both signs and other payloads, exact small integers.
float any_float(std::mt19937& rng) {
  std::uniform_real_distribution<float> u(-1, 1), unit(0, 1);
  const float kind = unit(rng);
  if (kind < 0.55f) return u(rng) * 4;
  if (kind < 0.65f) return std::round(u(rng) * 2);
  if (kind < 0.70f) return u(rng) * 1e-40f;  // denormal
  if (kind < 0.75f) return u(rng) * 1e36f;   // products overflow
  if (kind < 0.80f) return u(rng) * 1e-20f;  // squares underflow
  const float special[] = {0.0f, -0.0f, std::numeric_limits<float>::infinity(),
                           -std::numeric_limits<float>::infinity(), std::numeric_limits<float>::quiet_NaN(),
                           -std::numeric_limits<float>::quiet_NaN(), std::bit_cast<float>(0x7fc12345u),
                           std::numeric_limits<float>::denorm_min(), std::numeric_limits<float>::max(), 1.0f};
  return special[static_cast<std::size_t>(unit(rng) * 9.999f)];
}
core::mat4 any_matrix(std::mt19937& rng) {
  std::uniform_real_distribution<float> u(-1, 1), unit(0, 1);
  core::mat4 m;
  const bool plain = unit(rng) < 0.5f;  // mostly ordinary entries, a few special ones
  for (float& x : m) x = plain && unit(rng) < 0.9f ? u(rng) * 10 : any_float(rng);
  if (unit(rng) < 0.3f) m[3] = m[7] = m[11] = 0.0f, m[15] = 1.0f;  // an affine one
  return m;
}
}  // namespace

// The SSE2 4 x 4 product against the scalar one (glm's order of sums): identical bits,
// signed zeros, infinities and NaN included.
TEST(MathFast, Mat4MultiplySse2EqualsScalar) {
  std::mt19937 rng(1611);
  for (int n = 0; n < 300000; ++n) {
    const core::mat4 a = any_matrix(rng), b = any_matrix(rng);
    ASSERT_TRUE(same_bits(core::multiply(a, b), core::multiply_scalar(a, b))) << n;
  }
}

// compose (T * R * S) in SSE2 against its scalar form: rotations of every length (zero,
// denormal, huge, non-finite: the identity fallback), scales and translations of every kind.
TEST(MathFast, ComposeSse2EqualsScalar) {
  std::mt19937 rng(1612);
  std::uniform_real_distribution<float> u(-1, 1), unit(0, 1);
  for (int n = 0; n < 300000; ++n) {
    vec3 t, s;
    quat r;
    const bool plain = unit(rng) < 0.5f;
    for (float& x : t) x = plain ? u(rng) * 10 : any_float(rng);
    for (float& x : s) x = plain ? u(rng) * 3 : any_float(rng);
    for (float& x : r) x = plain || unit(rng) < 0.5f ? u(rng) : any_float(rng);
    ASSERT_TRUE(same_bits(core::compose(t, r, s), core::compose_scalar(t, r, s))) << n;
  }
}

// bone_world (SSE2, the matrices kept in registers, compose(t, (0, 0, 0, 1), c) taken as the
// scaled identity) against its formula in the scalar forms: plain and compensating bones,
// parent scales of 0 (compensation 0), ±0, denormal (1/s infinite), ±inf and NaN, and
// parent worlds with special entries.
TEST(MathFast, BoneWorldSse2EqualsScalarFormula) {
  std::mt19937 rng(1613);
  std::uniform_real_distribution<float> u(-1, 1), unit(0, 1);
  skeleton sk;
  sk.bones.resize(3);
  sk.bones[0].parent = -1;
  sk.bones[1].parent = 0;
  sk.bones[2].parent = 0;
  scene_ops::pose p = scene_ops::rest_pose(sk);
  std::size_t compensating = 0;
  for (int n = 0; n < 200000; ++n) {
    const bool plain = unit(rng) < 0.4f;
    auto value = [&](float scale) { return plain || unit(rng) < 0.7f ? u(rng) * scale : any_float(rng); };
    for (std::size_t i = 0; i < 3; ++i) {
      for (float& x : p.translation[i]) x = value(10);
      for (float& x : p.scale[i]) x = unit(rng) < 0.2f ? 1.0f : value(3);
      for (float& x : p.rotation[i]) x = value(1);
    }
    sk.bones[1].segment_scale_compensate = unit(rng) < 0.6f;
    sk.bones[2].segment_scale_compensate = !sk.bones[1].segment_scale_compensate;
    const core::mat4 parent = unit(rng) < 0.5f ? core::compose_scalar(p.translation[0], p.rotation[0], p.scale[0])
                                               : any_matrix(rng);
    ASSERT_TRUE(same_bits(scene_ops::bone_world(sk, p, 0, parent),
                          core::compose_scalar(p.translation[0], p.rotation[0], p.scale[0]))) << n;
    for (std::size_t i = 1; i < 3; ++i) {
      core::mat4 want;
      if (sk.bones[i].segment_scale_compensate) {
        const core::mat4 helper = core::compose_scalar(p.translation[i], {0, 0, 0, 1}, scene_ops::compensation(p.scale[0]));
        want = core::multiply_scalar(core::multiply_scalar(parent, helper),
                                     core::compose_scalar({0, 0, 0}, p.rotation[i], p.scale[i]));
        ++compensating;
      } else {
        want = core::multiply_scalar(parent, core::compose_scalar(p.translation[i], p.rotation[i], p.scale[i]));
      }
      ASSERT_TRUE(same_bits(scene_ops::bone_world(sk, p, i, parent), want)) << n << " bone " << i;
    }
  }
  EXPECT_GT(compensating, 100000u);
}

#if defined(__SSE2__)
// core::simd::normalized (compose's and the SSC report's) against core::normalize: the same
// sum, square root, tests and quotients, so the same bits; lengths of every size, zero,
// denormal, overflowing and non-finite (the identity fallback).
TEST(MathFast, NormalizedSse2EqualsNormalize) {
  std::mt19937 rng(1614);
  std::uniform_real_distribution<float> u(-1, 1), unit(0, 1);
  for (int n = 0; n < 300000; ++n) {
    quat q;
    const float scale = unit(rng) < 0.5f ? 1.0f : std::pow(10.0f, 40 * u(rng));
    for (float& x : q) x = unit(rng) < 0.8f ? u(rng) * scale : any_float(rng);
    quat got;
    _mm_storeu_ps(got.data(), core::simd::normalized(q));
    const quat want = core::normalize(q);
    for (std::size_t k = 0; k < 4; ++k)
      ASSERT_EQ(std::bit_cast<std::uint32_t>(got[k]), std::bit_cast<std::uint32_t>(want[k])) << n << " " << k;
  }
}
#endif
