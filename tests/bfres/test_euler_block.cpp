// bfres::euler_xyz_block (every Euler rotation frame of a BFRES animation) gives exactly
// core::from_euler_xyz's floats, signed zeros included: special angles in every lane of a
// SIMD step, random and repeated angles, blocks of every length, state across blocks.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "core/euler.hpp"
#include "formats/bfres/euler_block.hpp"

using rigrip::quat;
using rigrip::vec3;
using rigrip::bfres::euler_xyz_block;

namespace {
// Converts the frames in blocks of `len` (the last one shorter) with one converter and
// compares every frame with from_euler_xyz bit for bit.
void expect_blocks_same(const std::vector<float>& x, const std::vector<float>& y, const std::vector<float>& z,
                        std::size_t len) {
  euler_xyz_block conv;
  std::vector<float> out(4 * x.size() + 4, 12345.0f);
  for (std::size_t at = 0; at < x.size(); at += len) {
    const std::size_t n = std::min(len, x.size() - at);
    conv.convert(&x[at], &y[at], &z[at], n, &out[4 * at]);
  }
  ASSERT_EQ(out.back(), 12345.0f) << "wrote past the frames";
  for (std::size_t j = 0; j < x.size(); ++j) {
    const quat q = rigrip::core::from_euler_xyz({x[j], y[j], z[j]});
    for (std::size_t e = 0; e < 4; ++e)
      ASSERT_EQ(std::bit_cast<std::uint32_t>(out[4 * j + e]), std::bit_cast<std::uint32_t>(q[e]))
          << "component " << e << " of frame " << j << " (" << x[j] << ", " << y[j] << ", " << z[j] << "), block " << len;
  }
}
}  // namespace

TEST(EulerBlock, BitIdenticalToFromEulerXyz) {
  const float inf = std::numeric_limits<float>::infinity();
  const float pi = 3.14159265358979f;
  const std::vector<float> special{0.0f, -0.0f, pi, -pi, 2 * pi, -2 * pi, pi / 2, -pi / 2, 4 * pi, 1e-20f, -1e-20f,
                                   1e-45f, -1e-45f, 1e-38f, 1e-30f, 3e-23f, 1.0f, -1.0f, 1e30f, -1e30f, 1e10f,
                                   123456.0f, inf, -inf, std::numeric_limits<float>::quiet_NaN(),
                                   std::nextafter(pi, 0.0f), std::nextafter(pi, 4.0f), 3 * pi, -3 * pi, 6.2831855f,
                                   1.5707964f};
  std::vector<float> x, y, z;
  for (float a : special)
    for (float b : special)
      for (float c : special) x.push_back(a), y.push_back(b), z.push_back(c);
  for (std::size_t len : {std::size_t{1}, std::size_t{3}, std::size_t{4}, std::size_t{7}, std::size_t{256}})
    expect_blocks_same(x, y, z, len);

  // Random keys: wide and small angles, specials now and then (one lane of a step leaves the
  // short path), repeats of the previous frame per axis (the sine cache, across blocks too).
  std::mt19937 rng(23);
  std::uniform_real_distribution<float> wide(-20.0f, 20.0f), narrow(-1e-3f, 1e-3f);
  std::uniform_int_distribution<int> pick(0, 19);
  std::uniform_int_distribution<std::size_t> sp(0, special.size() - 1);
  x.clear(), y.clear(), z.clear();
  for (int i = 0; i < 200000; ++i) {
    std::vector<float>* axes[3] = {&x, &y, &z};
    for (auto* v : axes) {
      const int p = pick(rng);
      v->push_back(p < 4 && !v->empty() ? v->back() : p == 4 ? special[sp(rng)] : p == 5 ? narrow(rng) : wide(rng));
    }
  }
  for (std::size_t len : {std::size_t{5}, std::size_t{64}, std::size_t{255}, std::size_t{256}})
    expect_blocks_same(x, y, z, len);

  // Held channels: a whole axis constant (zero, or any angle), the others moving.
  for (float held : {0.0f, -0.0f, 0.7f}) {
    std::vector<float> h(3000, held), m;
    for (int i = 0; i < 3000; ++i) m.push_back(wide(rng));
    expect_blocks_same(h, m, m, 256);
    expect_blocks_same(m, h, m, 256);
    expect_blocks_same(m, m, h, 256);
    expect_blocks_same(h, h, m, 256);
  }
}
