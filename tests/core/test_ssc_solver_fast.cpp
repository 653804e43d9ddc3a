// The SSC bake's fast paths against the plain formulas they replaced, bit for bit.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstring>
#include <limits>
#include <algorithm>
#include <random>
#include <span>
#include <vector>

#define GLM_FORCE_CTOR_INIT
#include <glm/gtc/quaternion.hpp>

#include "core/math.hpp"
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

// The SSE2 Newton step (two doubles a lane pair, the ninth alone) against the scalar one, with
// and without a gain, in place or not: the same x and the same largest change, with NaN, infinities, signed zeros and huge or tiny
// entries in x, c and d, and the largest change at every position (the ninth included).
TEST(SscSolverFast, PolarStepSse2EqualsScalar) {
  std::mt19937 rng(1606);
  std::uniform_real_distribution<double> u(-1, 1), unit(0, 1);
  const double specials[] = {0.0, -0.0, NAN, INFINITY, -INFINITY, 1e-300, -1e300, 1.0};
  auto same = [](double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; };
  for (int n = 0; n < 300000; ++n) {
    double x1[9], c[9];
    const double scale = unit(rng) < 0.5 ? 1.0 : std::pow(10.0, 12 * u(rng));
    for (int k = 0; k < 9; ++k) x1[k] = u(rng) * scale, c[k] = u(rng) * scale;
    if (unit(rng) < 0.5) {  // near convergence: x close to the inverse transposed
      for (int k = 0; k < 9; ++k) c[k] = x1[k] * (1 + 1e-7 * u(rng));
    }
    if (unit(rng) < 0.3) {  // one entry far from the rest: the largest change anywhere
      const int k = static_cast<int>(unit(rng) * 8.999);
      x1[k] *= 1e3;
    }
    if (unit(rng) < 0.3) {
      const int count = 1 + static_cast<int>(unit(rng) * 3);
      for (int e = 0; e < count; ++e) {
        double* m = unit(rng) < 0.5 ? x1 : c;
        m[static_cast<int>(unit(rng) * 8.999)] = specials[static_cast<int>(unit(rng) * 7.999)];
      }
    }
    const double d = unit(rng) < 0.05 ? specials[static_cast<int>(unit(rng) * 7.999)] : u(rng) * 3;
    // the later steps (gain 1, in place) and the first (a gain, from another array)
    const double g = unit(rng) < 0.5 ? 1.0 : unit(rng) < 0.05 ? specials[static_cast<int>(unit(rng) * 7.999)]
                                                                : std::pow(10.0, 3 * u(rng));
    double x2[9], y1[9], y2[9];
    std::memcpy(x2, x1, sizeof x1);
    const bool in_place = g == 1 && unit(rng) < 0.8;
    const double d1 = scene_ops::detail::polar_step(x1, in_place ? x1 : y1, c, d, g);
    const double d2 = scene_ops::detail::polar_step_scalar(x2, in_place ? x2 : y2, c, d, g);
    ASSERT_TRUE(same(d1, d2)) << n << " " << d1 << " " << d2;
    ASSERT_EQ(std::memcmp(in_place ? x1 : y1, in_place ? x2 : y2, sizeof x1), 0) << n;
  }
}

// The solver's finiteness test of an affine map (SSE2: the sum of v * 0) answers as
// std::isfinite per element: ±inf and NaN at each of the 12 positions, huge, tiny, ±0.
TEST(SscSolverFast, AffineFiniteSse2EqualsScalar) {
  std::mt19937 rng(1612);
  std::uniform_real_distribution<double> u(-1, 1), unit(0, 1);
  const double specials[] = {INFINITY, -INFINITY, NAN, -NAN, 1.7e308, -1.7e308, 4.9e-324, -0.0, 0.0};
  int non_finite = 0;
  for (int n = 0; n < 200000; ++n) {
    double a[9], t[3];
    for (auto& v : a) v = u(rng) * 1e300;
    for (auto& v : t) v = u(rng) * 1e300;
    if (unit(rng) < 0.6) {
      const int count = 1 + static_cast<int>(unit(rng) * 2);
      for (int e = 0; e < count; ++e) {
        const int k = static_cast<int>(unit(rng) * 11.999);
        (k < 9 ? a[k] : t[k - 9]) = specials[static_cast<int>(unit(rng) * 8.999)];
      }
    }
    const bool fast = scene_ops::detail::affine_finite(a, t);
    ASSERT_EQ(fast, scene_ops::detail::affine_finite_scalar(a, t)) << n;
    non_finite += !fast;
  }
  EXPECT_GT(non_finite, 50000);
}

// The residual's largest difference of two affine maps, SSE2 against the scalar loop: the
// largest at each of the 12 positions, NaN, infinities, signed zeros, overflowing differences.
TEST(SscSolverFast, MaxDifferenceSse2EqualsScalar) {
  std::mt19937 rng(1613);
  std::uniform_real_distribution<double> u(-1, 1), unit(0, 1);
  const double specials[] = {INFINITY, -INFINITY, NAN, 1.7e308, -1.7e308, -0.0, 0.0};
  auto same = [](double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; };
  for (int n = 0; n < 200000; ++n) {
    double a[9], t[3], b[9], w[3];
    const double scale = std::pow(10.0, 6 * u(rng));
    for (int k = 0; k < 9; ++k) a[k] = u(rng) * scale, b[k] = a[k] + 1e-6 * u(rng) * scale;
    for (int k = 0; k < 3; ++k) t[k] = u(rng) * scale, w[k] = t[k] + 1e-6 * u(rng) * scale;
    const int big = static_cast<int>(unit(rng) * 11.999);  // the largest difference here
    (big < 9 ? b[big] : w[big - 9]) += scale;
    if (unit(rng) < 0.3) {
      double* arrays[] = {a, t, b, w};
      const int which = static_cast<int>(unit(rng) * 3.999);
      const int k = static_cast<int>(unit(rng) * (which % 2 ? 2.999 : 8.999));
      arrays[which][k] = specials[static_cast<int>(unit(rng) * 6.999)];
    }
    const double e1 = scene_ops::detail::max_difference(a, t, b, w);
    const double e2 = scene_ops::detail::max_difference_scalar(a, t, b, w);
    ASSERT_TRUE(same(e1, e2)) << n << " " << e1 << " " << e2;
  }
}


// The SSE2 affine product (columns 0-1 and 2-with-translation as lane pairs, -0 added to
// column 2) against the scalar loop, bit for bit but for NaN payloads: exact small integers and zeros of both signs
// (products and sums of -0), huge and tiny scales, NaN, infinities, overflowing products.
TEST(SscSolverFast, AffineMulSse2EqualsScalar) {
  std::mt19937 rng(1617);
  std::uniform_real_distribution<double> u(-1, 1), unit(0, 1);
  const double specials[] = {0.0, -0.0, NAN, INFINITY, -INFINITY, 1.7e308, -1e-310, 1.0, -1.0};
  int negative_zeros = 0;
  for (int n = 0; n < 300000; ++n) {
    double m[2][12];  // x (a, then t) and y
    for (auto& v : m) {
      const double kind = unit(rng), scale = std::pow(10.0, 8 * u(rng));
      for (double& e : v) {
        e = u(rng) * scale;
        if (kind < 0.3) e = std::round(u(rng) * 2) * (unit(rng) < 0.5 ? 1.0 : -1.0);  // ±0, ±1, ±2
      }
    }
    if (unit(rng) < 0.2) {
      const int count = 1 + static_cast<int>(unit(rng) * 3);
      for (int e = 0; e < count; ++e)
        m[static_cast<int>(unit(rng) * 1.999)][static_cast<int>(unit(rng) * 11.999)] =
            specials[static_cast<int>(unit(rng) * 8.999)];
    }
    double r1[12], r2[12];
    scene_ops::detail::affine_mul(m[0], m[0] + 9, m[1], m[1] + 9, r1, r1 + 9);
    scene_ops::detail::affine_mul_scalar(m[0], m[0] + 9, m[1], m[1] + 9, r2, r2 + 9);
    for (int k = 0; k < 12; ++k)  // (which NaN a sum of two NaNs keeps is the compiler's
      // operand order, in the scalar form too; the solver's finite tests catch every NaN)
      ASSERT_TRUE(std::memcmp(&r1[k], &r2[k], sizeof r1[k]) == 0 || (std::isnan(r1[k]) && std::isnan(r2[k])))
          << n << " " << k << " " << r1[k] << " " << r2[k];
    for (const double v : r2) negative_zeros += v == 0 && std::signbit(v);
  }
  EXPECT_GT(negative_zeros, 2000);  // the -0 lanes were reached
}

// The finiteness test of a solved bone's t, r, s (ten floats; SSE2: the sum of v * 0 over
// 4 + 4 + 2 lanes) answers as std::isfinite per float: ±inf and NaN at each position, the
// largest floats, subnormals, ±0.
TEST(SscSolverFast, TrsFiniteSse2EqualsScalar) {
  std::mt19937 rng(1619);
  std::uniform_real_distribution<float> u(-1, 1), unit(0, 1);
  const float specials[] = {INFINITY, -INFINITY, NAN, -NAN, 3.4e38f, -3.4e38f, 1e-45f, -0.0f, 0.0f};
  int non_finite = 0;
  for (int n = 0; n < 200000; ++n) {
    float v[10];
    for (auto& x : v) x = u(rng) * 3e38f;
    if (unit(rng) < 0.6f) {
      const int count = 1 + static_cast<int>(unit(rng) * 2);
      for (int e = 0; e < count; ++e)
        v[static_cast<int>(unit(rng) * 9.999f)] = specials[static_cast<int>(unit(rng) * 8.999f)];
    }
    const bool fast = scene_ops::detail::trs_finite(v);
    ASSERT_EQ(fast, scene_ops::detail::trs_finite_scalar(v)) << n;
    non_finite += !fast;
  }
  EXPECT_GT(non_finite, 50000);
}

// The baked tracks' finiteness test (SSE2: sixteen, then four floats a step, the rest one by
// one) answers as core::all_finite: every length from 0 to 70, at offsets that misalign the
// loads, ±inf and NaN anywhere (the tail included), the largest floats, subnormals, ±0.
TEST(SscSolverFast, FloatsFiniteSse2EqualsScalar) {
  std::mt19937 rng(1620);
  std::uniform_real_distribution<float> u(-1, 1), unit(0, 1);
  const float specials[] = {INFINITY, -INFINITY, NAN, -NAN, 3.4e38f, -3.4e38f, 1e-45f, -0.0f, 0.0f};
  int non_finite = 0;
  std::vector<float> buffer(80);
  for (int n = 0; n < 100000; ++n) {
    const std::size_t offset = static_cast<std::size_t>(unit(rng) * 3.999f), size = n % 71;
    for (auto& x : buffer) x = u(rng) * 3e38f;
    const std::span<float> v(buffer.data() + offset, size);
    if (size && unit(rng) < 0.6f) v[static_cast<std::size_t>(unit(rng) * (static_cast<float>(size) - 0.001f))] =
        specials[static_cast<std::size_t>(unit(rng) * 8.999f)];
    const bool fast = scene_ops::detail::floats_finite(v);
    ASSERT_EQ(fast, scene_ops::detail::floats_finite_scalar(v)) << n;
    non_finite += !fast;
  }
  EXPECT_GT(non_finite, 25000);
}

// make_hemisphere_continuous (SSE2: four keys a step, the flips chained through a table)
// against the plain loop, bit for bit: every length from 0 to 42 keys (and a partial key),
// strides 1 and 3; keys of -1, 0 and 1 (dots of +0 and -0 and ties), random and nearly
// opposite keys, runs of flips, NaN and infinities.
TEST(SscSolverFast, HemisphereSse2EqualsScalar) {
  std::mt19937 rng(1621);
  std::uniform_real_distribution<float> u(-1, 1), unit(0, 1);
  const float specials[] = {0.0f, -0.0f, NAN, INFINITY, -INFINITY, 3e38f, 1e-45f};
  int flips = 0;
  for (int n = 0; n < 100000; ++n) {
    const std::size_t stride = unit(rng) < 0.9f ? 1 : 3, keys = static_cast<std::size_t>(n % 43);
    std::vector<float> v(keys * 4 * stride + (unit(rng) < 0.1f ? 2 : 0));
    const float kind = unit(rng);
    for (std::size_t i = 0; i < v.size(); ++i) {
      v[i] = u(rng);
      if (kind < 0.3f) v[i] = std::round(u(rng));                                  // -1, ±0, 1
      else if (kind < 0.6f && i >= 4) v[i] = -v[i - 4] + 1e-3f * u(rng);           // runs of flips
    }
    if (!v.empty() && unit(rng) < 0.1f)
      v[static_cast<std::size_t>(unit(rng) * (static_cast<float>(v.size()) - 0.01f))] =
          specials[static_cast<std::size_t>(unit(rng) * 6.999f)];
    const std::vector<float> before = v;
    std::vector<float> w = v;
    core::make_hemisphere_continuous(v, stride);
    core::make_hemisphere_continuous_scalar(w, stride);
    ASSERT_EQ(v.size(), w.size());
    ASSERT_TRUE(v.empty() || std::memcmp(v.data(), w.data(), v.size() * sizeof(float)) == 0) << n;
    for (std::size_t i = 0; i < v.size(); ++i) flips += std::signbit(v[i]) != std::signbit(before[i]);
  }
  EXPECT_GT(flips, 500000);  // many keys flipped, in runs
}

// The bake's tracks replaced in one pass against replace_track called for each in turn: the
// same tracks in the same order, with tracks of bones the skeleton lacks (in the animation
// and among the added ones), duplicate bone names, the same bone and path added twice, and
// several tracks of one bone and path in the animation.
TEST(SscSolverFast, ReplaceTracksEqualsOneByOne) {
  std::mt19937 rng(1622);
  std::uniform_real_distribution<float> unit(0, 1);
  const char* names[] = {"root", "hip", "leg", "foot", "tail", "ghost"};  // (no bone "ghost")
  auto pick = [&](int n) { return static_cast<std::size_t>(unit(rng) * (static_cast<float>(n) - 0.001f)); };
  for (int n = 0; n < 20000; ++n) {
    skeleton sk;
    const std::size_t bones = 1 + pick(5);
    for (std::size_t b = 0; b < bones; ++b) {
      bone x;
      x.name = names[unit(rng) < 0.1f ? pick(5) : b];  // now and then a duplicate name
      sk.bones.push_back(x);
    }
    float tag = 0;
    auto random_track = [&] {
      track t;
      t.bone = names[pick(6)];
      t.path = static_cast<path>(pick(3));
      t.times = {tag++};  // tells the tracks apart
      return t;
    };
    animation a;
    for (std::size_t k = pick(12); k-- > 0;) a.tracks.push_back(random_track());
    std::vector<track> added;
    for (std::size_t k = pick(10); k-- > 0;) {
      added.push_back(random_track());
      if (unit(rng) < 0.9f && added.back().bone == std::string("ghost")) added.back().bone = names[pick(5)];
    }
    animation one_by_one = a;
    for (const auto& t : added) scene_ops::detail::replace_track(one_by_one, t);
    scene_ops::detail::replace_tracks(a, added, sk);
    ASSERT_EQ(a.tracks.size(), one_by_one.tracks.size()) << n;
    for (std::size_t k = 0; k < a.tracks.size(); ++k) {
      ASSERT_EQ(a.tracks[k].bone, one_by_one.tracks[k].bone) << n;
      ASSERT_EQ(a.tracks[k].path, one_by_one.tracks[k].path) << n;
      ASSERT_EQ(a.tracks[k].times, one_by_one.tracks[k].times) << n << " " << k;
    }
  }
}

// core::slerp (glm's slerp written out, one sine instead of three at t = ±0) against the
// form it replaced — the hemisphere flip, glm::slerp, normalize — bit for bit: t = ±0 (the
// bake's samples at keys), 1, tiny, near and past 1; nearly equal and opposite rotations (the
// mix branch, either sign), unnormalised keys, ±0 components, NaN and infinities.
TEST(SscSolverFast, SlerpEqualsGlmSlerpNormalized) {
  auto reference = [](const quat& a, quat b, float t) {
    if (core::dot(a, b) < 0) b = {-b[0], -b[1], -b[2], -b[3]};
    const glm::quat q = glm::slerp(glm::quat(a[3], a[0], a[1], a[2]), glm::quat(b[3], b[0], b[1], b[2]), t);
    return core::normalize({q.x, q.y, q.z, q.w});
  };
  std::mt19937 rng(1618);
  std::uniform_real_distribution<float> u(-1, 1), unit(0, 1);
  const float specials[] = {0.0f, -0.0f, NAN, INFINITY, -INFINITY, 1e-30f, 3e38f, 1.0f};
  const float times[] = {0.0f, -0.0f, 1.0f, 1e-8f, 0.999999f, 0.5f, -0.25f, 1.5f};
  int zero_t = 0;
  for (int n = 0; n < 400000; ++n) {
    quat a, b;
    for (auto& v : a) v = u(rng);
    const float kind = unit(rng);
    for (std::size_t k = 0; k < 4; ++k) {
      b[k] = u(rng);
      if (kind < 0.3f) b[k] = a[k] + 1e-4f * u(rng);       // close: acos of a cosine near 1
      else if (kind < 0.4f) b[k] = -a[k] + 1e-7f * u(rng);  // opposite and nearly equal: mix
    }
    if (unit(rng) < 0.7f) a = core::normalize(a), b = core::normalize(b);
    if (unit(rng) < 0.05f) {
      quat& q = unit(rng) < 0.5f ? a : b;
      q[static_cast<std::size_t>(unit(rng) * 3.999f)] = specials[static_cast<std::size_t>(unit(rng) * 7.999f)];
    }
    if (unit(rng) < 0.1f) a[static_cast<std::size_t>(unit(rng) * 3.999f)] = 0.0f, b[0] = -0.0f;
    const float t = unit(rng) < 0.5f ? times[static_cast<std::size_t>(unit(rng) * 7.999f)] : unit(rng);
    zero_t += t == 0;
    const quat fast = core::slerp(a, b, t), plain = reference(a, b, t);
    ASSERT_EQ(std::memcmp(fast.data(), plain.data(), sizeof fast), 0)
        << n << " t=" << t << " " << fast[0] << " " << plain[0] << " " << fast[3] << " " << plain[3];
  }
  EXPECT_GT(zero_t, 40000);
}

namespace {
bool same_floats(const std::vector<float>& x, const std::vector<float>& y) {
  return x.size() == y.size() && (x.empty() || std::memcmp(x.data(), y.data(), x.size() * sizeof(float)) == 0);
}
}  // namespace

// Skipping repeated key-time arrays must give the list appending them all gives: tracks
// sharing times, keys on and near the grid, repeats inside an array, and now and then -0,
// NaN or infinities (where the shortcut must stand aside).
TEST(SscSolverFast, MergeTimesSharingEqualsAppendingAll) {
  std::mt19937 rng(1616);
  std::uniform_real_distribution<float> unit(0, 1);
  for (int n = 0; n < 20000; ++n) {
    const float fps = unit(rng) < 0.5f ? 30.0f : 24.0f;
    std::vector<float> grid;
    const int frames = static_cast<int>(unit(rng) * 40);
    for (int k = 0; k <= frames; ++k) grid.push_back(static_cast<float>(k / static_cast<double>(fps)));
    std::vector<std::vector<float>> pool;
    const int distinct = 1 + static_cast<int>(unit(rng) * 4);
    for (int d = 0; d < distinct; ++d) {
      std::vector<float> v;
      const int keys = static_cast<int>(unit(rng) * 30);
      for (int k = 0; k < keys; ++k) {
        const float c = unit(rng);
        float t = c < 0.5f ? grid.empty() ? 0.0f : grid[static_cast<std::size_t>(unit(rng) * static_cast<float>(grid.size() - 1))]
                : c < 0.6f ? static_cast<float>(k) / fps + 3e-6f
                : unit(rng) * 2;
        if (unit(rng) < 0.01f) t = -0.0f;
        if (unit(rng) < 0.003f) t = NAN;
        if (unit(rng) < 0.003f) t = INFINITY;
        v.push_back(t);
      }
      if (unit(rng) < 0.7f) std::sort(v.begin(), v.end());
      pool.push_back(v);
    }
    std::vector<const std::vector<float>*> arrays;
    const int tracks = static_cast<int>(unit(rng) * 12);
    for (int k = 0; k < tracks; ++k)
      arrays.push_back(unit(rng) < 0.1f ? nullptr : &pool[static_cast<std::size_t>(unit(rng) * static_cast<float>(distinct - 1) + 0.5f)]);
    for (const bool within : {false, true}) {
      const auto fast = scene_ops::detail::merge_times(grid, arrays, within, true);
      const auto plain = scene_ops::detail::merge_times(grid, arrays, within, false);
      ASSERT_TRUE(same_floats(fast, plain)) << n << " " << within;
    }
  }
}

// The error report's per-bone step in SSE2 against the portable form: the same position and
// smallest-cosine doubles from random world pairs, near-equal ones (cosines at the clamp),
// collapsed axes (below and at the 1e-20 cut), signed zeros, and NaN and infinities, which the
// maxima and minima must skip as std::max/std::min/std::clamp do.
TEST(SscSolverFast, AccumulatePairSse2EqualsScalar) {
  std::mt19937 rng(1661);
  std::uniform_real_distribution<float> u(-1, 1), unit(0, 1);
  const float specials[] = {0.0f, -0.0f, NAN, INFINITY, -INFINITY, 1e-11f, -1e-10f, 1e30f, 1.0f};
  auto same = [](double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; };
  for (int n = 0; n < 300000; ++n) {
    std::array<float, 16> x{}, y{};
    const float scale = unit(rng) < 0.5f ? 1.0f : std::pow(10.0f, 8 * u(rng));
    for (std::size_t k = 0; k < 16; ++k) x[k] = u(rng) * scale;
    const float kind = unit(rng);
    for (std::size_t k = 0; k < 16; ++k) {
      if (kind < 0.4f) y[k] = x[k] * (1 + 1e-7f * u(rng));  // near-equal: cosines at 1
      else if (kind < 0.5f) y[k] = -x[k];                  // opposite: cosines at -1
      else y[k] = u(rng) * scale;
    }
    for (auto* m : {&x, &y})
      if (unit(rng) < 0.3f) {
        const int count = 1 + static_cast<int>(unit(rng) * 4);
        for (int c = 0; c < count; ++c)
          (*m)[static_cast<std::size_t>(unit(rng) * 15.99f)] = specials[static_cast<std::size_t>(unit(rng) * 8.99f)];
      }
    if (unit(rng) < 0.1f) {  // a collapsed axis
      const std::size_t c = static_cast<std::size_t>(unit(rng) * 2.99f);
      for (std::size_t r = 0; r < 3; ++r) x[c * 4 + r] = unit(rng) < 0.5f ? 0.0f : 1e-10f;
    }
    double p1 = unit(rng) < 0.5f ? 0.0 : unit(rng), c1 = unit(rng) < 0.5f ? 2.0 : u(rng);
    double p2 = p1, c2 = c1;
    scene_ops::detail::accumulate_pair(x, y, p1, c1);
    scene_ops::detail::accumulate_pair_scalar(x, y, p2, c2);
    ASSERT_TRUE(same(p1, p2)) << n << " " << p1 << " " << p2;
    ASSERT_TRUE(same(c1, c2)) << n << " " << c1 << " " << c2;
  }
}

// The report's finiteness test of a world matrix (SSE2: the sum of x * 0) answers as
// core::all_finite: every position, ±inf, NaN, huge, tiny and signed-zero entries.
TEST(SscSolverFast, WorldFiniteSse2EqualsScalar) {
  std::mt19937 rng(16);
  std::uniform_real_distribution<float> u(-1e3f, 1e3f), unit(0, 1);
  const float specials[] = {std::numeric_limits<float>::infinity(), -std::numeric_limits<float>::infinity(),
                            std::numeric_limits<float>::quiet_NaN(), -std::numeric_limits<float>::quiet_NaN(),
                            std::numeric_limits<float>::max(), -std::numeric_limits<float>::max(),
                            std::numeric_limits<float>::denorm_min(), -0.0f, 0.0f};
  std::size_t finite = 0, cases = 0;
  for (int round = 0; round < 200000; ++round) {
    std::array<float, 16> m;
    for (float& x : m) x = u(rng);
    const int changes = static_cast<int>(unit(rng) * 4);
    for (int c = 0; c < changes; ++c)
      m[static_cast<std::size_t>(unit(rng) * 15.999f)] = specials[static_cast<std::size_t>(unit(rng) * 8.999f)];
    const bool want = scene_ops::detail::all_finite_scalar(m);
    ASSERT_EQ(scene_ops::detail::all_finite(m), want) << round;
    finite += want, ++cases;
  }
  for (std::size_t k = 0; k < 16; ++k)  // each position alone
    for (const float x : specials) {
      std::array<float, 16> m{};
      m[k] = x;
      ASSERT_EQ(scene_ops::detail::all_finite(m), std::isfinite(x)) << k << " " << x;
    }
  EXPECT_GT(finite, cases / 4);
  EXPECT_LT(finite, cases - cases / 4);
}
