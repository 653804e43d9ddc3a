// core::euler_xyz_sequence (BFRES rotation keys) gives exactly core::from_euler_xyz's floats,
// signed zeros included, on random, special and repeated angles.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "core/euler.hpp"

using rigrip::quat;
using rigrip::vec3;

namespace {
void expect_same_bits(const quat& a, const quat& b, const vec3& r) {
  for (std::size_t k = 0; k < 4; ++k)
    ASSERT_EQ(std::bit_cast<std::uint32_t>(a[k]), std::bit_cast<std::uint32_t>(b[k]))
        << "component " << k << " of (" << r[0] << ", " << r[1] << ", " << r[2] << ")";
}
}  // namespace

TEST(EulerXyzSequence, BitIdenticalToFromEulerXyz) {
  const float inf = std::numeric_limits<float>::infinity();
  const float pi = 3.14159265358979f;
  std::vector<float> special{0.0f, -0.0f, pi, -pi, 2 * pi, -2 * pi, pi / 2, -pi / 2, 4 * pi, 1e-20f, -1e-20f,
                             1e-45f, -1e-45f, 1e-38f, 1e-30f, 3e-23f, 1.0f, -1.0f, 1e30f, -1e30f, 1e10f, 123456.0f,
                             inf, -inf, std::numeric_limits<float>::quiet_NaN(), std::nextafter(pi, 0.0f),
                             std::nextafter(pi, 4.0f), 3 * pi, -3 * pi, 6.2831855f, 1.5707964f};
  rigrip::core::euler_xyz_sequence seq;
  std::size_t n = 0;
  for (float x : special)
    for (float y : special)
      for (float z : special) {
        const vec3 r{x, y, z};
        expect_same_bits(seq(r), rigrip::core::from_euler_xyz(r), r);
        ++n;
      }
  std::mt19937 rng(16);
  std::uniform_real_distribution<float> wide(-20.0f, 20.0f), narrow(-1e-3f, 1e-3f);
  std::uniform_int_distribution<int> pick(0, 9);
  std::uniform_int_distribution<std::size_t> sp(0, special.size() - 1);
  vec3 prev{0, 0, 0};
  for (int i = 0; i < 300000; ++i) {
    vec3 r;
    for (std::size_t k = 0; k < 3; ++k) {
      const int p = pick(rng);
      // repeats of the previous key (the sine cache), specials, small and wide angles
      r[k] = p < 3 ? prev[k] : p == 3 ? special[sp(rng)] : p == 4 ? narrow(rng) : wide(rng);
    }
    expect_same_bits(seq(r), rigrip::core::from_euler_xyz(r), r);
    prev = r;
    ++n;
  }
  // A fresh sequence per key (no cache) as well.
  for (int i = 0; i < 20000; ++i) {
    const vec3 r{wide(rng), wide(rng), wide(rng)};
    rigrip::core::euler_xyz_sequence one;
    expect_same_bits(one(r), rigrip::core::from_euler_xyz(r), r);
  }
  EXPECT_GT(n, 300000u);
}
