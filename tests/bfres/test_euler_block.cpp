// bfres::euler_xyz_block (every Euler rotation frame of a BFRES animation) gives exactly
// core::from_euler_xyz's floats, signed zeros included: special angles in every lane of a
// SIMD step, random and repeated angles, blocks of every length, state across blocks.
#include <gtest/gtest.h>

#include <array>
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

// All three angles held over a block: one step's quaternion copied to every frame. Held
// triples of special angles (zero parts, the about-z path, the full path, NaN) and moving
// ones, runs that cover whole blocks or end inside them, blocks of several lengths.
TEST(EulerBlock, HeldBlocksCopyTheFirstFrame) {
  const float pi = 3.14159265358979f;
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const std::vector<std::array<float, 3>> held{{0.0f, 0.0f, 0.3f}, {0.0f, 0.0f, 0.0f}, {-0.0f, 0.0f, pi},
                                               {0.4f, -1.2f, 2.5f}, {pi, 0.0f, 0.5f},   {nan, 0.1f, 0.2f},
                                               {1e-45f, 1.0f, 0.0f}, {0.7f, 0.7f, 0.7f}};
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> wide(-7.0f, 7.0f);
  std::vector<float> x, y, z;
  for (std::size_t r = 0; r < 40; ++r) {
    const auto& h = held[r % held.size()];
    const std::size_t run = 1 + (r * 97) % 600;
    for (std::size_t i = 0; i < run; ++i) x.push_back(h[0]), y.push_back(h[1]), z.push_back(h[2]);
    for (std::size_t i = 0; i < r % 3; ++i) x.push_back(wide(rng)), y.push_back(wide(rng)), z.push_back(wide(rng));
  }
  for (std::size_t len : {std::size_t{4}, std::size_t{5}, std::size_t{9}, std::size_t{100}, std::size_t{256}})
    expect_blocks_same(x, y, z, len);
}

// continue_hemisphere (four frames per SIMD step, flips carried through the step) writes
// exactly the scalar loop's floats: random quaternions with sign changes, zero, -0, NaN and
// infinite components, dot products of +-0 and NaN, runs of every length 0-40.
TEST(EulerBlock, HemisphereStepEqualsScalarLoop) {
  std::mt19937 rng(17);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  std::uniform_int_distribution<int> pick(0, 15);
  const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  int flips = 0;
  for (int round = 0; round < 4000; ++round) {
    const std::size_t n = static_cast<std::size_t>(round % 41);
    std::vector<float> a(4 * n + 8);
    for (std::size_t i = 0; i < a.size(); ++i) {
      const int p = pick(rng);
      a[i] = p == 0 ? 0.0f : p == 1 ? -0.0f : p == 2 && round % 7 == 0 ? nan : p == 3 && round % 11 == 0 ? inf : u(rng);
    }
    // Now and then a frame that is the previous one negated, or orthogonal to it (dot +-0).
    for (std::size_t j = 1; j + 1 < a.size() / 4; ++j) {
      if (pick(rng) == 0) {
        for (std::size_t e = 0; e < 4; ++e) a[4 * j + e] = -a[4 * j - 4 + e];
      } else if (pick(rng) == 0) {
        a[4 * j] = a[4 * j - 3], a[4 * j + 1] = -a[4 * j - 4], a[4 * j + 2] = 0.0f, a[4 * j + 3] = 0.0f;
        a[4 * j - 2] = 0.0f, a[4 * j - 1] = 0.0f;
      }
    }
    const std::vector<float> before = a;
    std::vector<float> b = a;
    rigrip::bfres::continue_hemisphere(&a[4], n);
    rigrip::bfres::continue_hemisphere_scalar(&b[4], n);
    for (std::size_t i = 0; i < a.size(); ++i) {
      ASSERT_EQ(std::bit_cast<std::uint32_t>(a[i]), std::bit_cast<std::uint32_t>(b[i])) << "round " << round << " float " << i;
      if (i % 4 == 0 && std::bit_cast<std::uint32_t>(a[i]) != std::bit_cast<std::uint32_t>(before[i])) ++flips;
    }
  }
  EXPECT_GT(flips, 10000);  // the flip paths of every lane are taken
}

// convert_continuous (the hemisphere rule inside the quaternion step) writes exactly what
// convert() and then the scalar hemisphere loop write: angles that turn by about 2 pi between
// frames (negated quaternions, so flips in every lane), held runs and blocks (the copy path),
// special angles, blocks of every length; the quaternion before the block random, +-0, zero
// (dot products of +-0) or NaN; the first frame tested or not.
TEST(EulerBlock, ContinuousEqualsConvertThenScalarHemisphere) {
  std::mt19937 rng(29);
  std::uniform_real_distribution<float> ang(-3.0f, 3.0f), u(-1.0f, 1.0f);
  std::uniform_int_distribution<int> pick(0, 11);
  const float nan = std::numeric_limits<float>::quiet_NaN(), two_pi = 6.2831853f;
  int flips = 0;
  for (int round = 0; round < 3000; ++round) {
    const std::size_t n = 1 + static_cast<std::size_t>(round % 23) + (round % 17 == 0 ? 240 : 0);
    std::vector<float> x(n), y(n), z(n);
    const bool held = round % 13 == 0;
    for (std::size_t j = 0; j < n; ++j) {
      const int p = pick(rng);
      if (held || (j > 0 && p == 0)) {  // the previous frame's angles
        x[j] = j ? x[j - 1] : ang(rng), y[j] = j ? y[j - 1] : ang(rng), z[j] = j ? z[j - 1] : ang(rng);
      } else if (j > 0 && p < 5) {  // about one turn on: the quaternion about negated
        x[j] = x[j - 1] + two_pi, y[j] = y[j - 1] + (p == 1 ? -two_pi : 0.0f), z[j] = z[j - 1] + (p == 2 ? 0.01f : 0.0f);
      } else {
        x[j] = p == 5 ? 0.0f : ang(rng), y[j] = p == 6 ? -0.0f : ang(rng), z[j] = p == 7 ? nan : ang(rng);
      }
    }
    std::array<float, 4> prev{u(rng), u(rng), u(rng), u(rng)};
    if (round % 5 == 1) prev = {0.0f, -0.0f, 0.0f, 0.0f};
    if (round % 5 == 2) prev[1] = nan;
    const bool first_tested = round % 2 == 0;
    std::vector<float> a(4 * n + 4), b(4 * n + 4);
    std::copy(prev.begin(), prev.end(), a.begin());
    std::copy(prev.begin(), prev.end(), b.begin());
    euler_xyz_block ca, cb;
    ca.convert_continuous(x.data(), y.data(), z.data(), n, &a[4], first_tested);
    cb.convert(x.data(), y.data(), z.data(), n, &b[4]);
    const std::vector<float> computed = b;
    const std::size_t from = first_tested ? 0 : 1;
    rigrip::bfres::continue_hemisphere_scalar(&b[4 + 4 * from], n - from);
    for (std::size_t i = 0; i < a.size(); ++i) {
      ASSERT_EQ(std::bit_cast<std::uint32_t>(a[i]), std::bit_cast<std::uint32_t>(b[i])) << "round " << round << " float " << i;
      if (i % 4 == 0 && std::bit_cast<std::uint32_t>(b[i]) != std::bit_cast<std::uint32_t>(computed[i])) ++flips;
    }
  }
  EXPECT_GT(flips, 3000);
}
