// The SSC bake's fast paths against the plain formulas they replaced, bit for bit.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>

#include "scene/ssc.hpp"

using namespace rigrip;

namespace {

bool same_bits(const double (&x)[3][3], const double (&y)[3][3]) { return std::memcmp(x, y, sizeof x) == 0; }

// Random 3x3 matrices of every kind the solver meets: rotations times non-uniform scales
// times shear (the bake's goals), tiny and huge scales, near-singular, reflecting, exact
// small integers (exact cofactors, signed zeros) and a few non-finite entries.
void random_matrix(std::mt19937& rng, double a[3][3]) {
  std::uniform_real_distribution<double> u(-1, 1), unit(0, 1);
  const double kind = unit(rng);
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) {
      double v = u(rng);
      if (kind < 0.5) v = (i == j ? 1.0 : 0.0) + 0.3 * v;     // near a rotation
      else if (kind < 0.6) v = std::round(v * 3);              // small integers, zeros
      else if (kind < 0.7) v *= 1e-6;                          // tiny
      else if (kind < 0.8) v *= 1e6;                           // huge
      a[i][j] = v;
    }
  if (kind >= 0.8 && kind < 0.85) {  // near singular: a row almost a multiple of another
    for (int j = 0; j < 3; ++j) a[2][j] = 2 * a[1][j] + 1e-9 * u(rng);
  }
  if (kind >= 0.85 && kind < 0.9) {  // column scales far apart
    for (int i = 0; i < 3; ++i) a[i][0] *= 1e3, a[i][2] *= 1e-2;
  }
  if (kind >= 0.9 && kind < 0.92) a[static_cast<int>(unit(rng) * 3)][1] = unit(rng) < 0.5 ? INFINITY : NAN;
  if (kind >= 0.92 && kind < 0.96) {  // a reflection
    for (int j = 0; j < 3; ++j) a[0][j] = -a[0][j];
  }
}

}  // namespace

TEST(SscSolverFast, PolarRotationEqualsThePlainNewtonLoop) {
  std::mt19937 rng(16);
  int solved = 0;
  for (int n = 0; n < 200000; ++n) {
    double a[3][3], r1[3][3] = {}, r2[3][3] = {};
    random_matrix(rng, a);
    const bool ok1 = scene_ops::detail::polar_rotation(a, r1);
    const bool ok2 = scene_ops::detail::polar_rotation_plain(a, r2);
    ASSERT_EQ(ok1, ok2) << n;
    if (ok1) {
      ASSERT_TRUE(same_bits(r1, r2)) << n;
      ++solved;
    }
  }
  EXPECT_GT(solved, 100000);  // most inputs reach the iteration
}
