// Fast paths of the math helpers give the same floats as the general ones.
#include <gtest/gtest.h>

#include <bit>
#include <cstdint>
#include <limits>
#include <random>

#include "core/euler.hpp"
#include "core/math.hpp"

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
