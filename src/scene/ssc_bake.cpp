// Baking segment scale compensation into plain T*R*S inheritance (scene/ssc.hpp).
//
// A compensated bone C under parent P has world W_P * T(t) * S(1/s_P) * R * S_C. When s_P
// is uniform, S(1/s_P) commutes with R, so C's scale becomes S_C / s_P and nothing else
// changes (exact). Otherwise the product carries shear, which T*R*S cannot hold: C and its
// descendants are re-solved from the target worlds (closest rotation, least-squares scale),
// per sample time for animations, and the residual is reported.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <optional>
#include <span>
#include <string>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "core/math.hpp"
#include "rigrip/bone_lookup.hpp"
#include "scene/pose.hpp"
#include "scene/ssc.hpp"

namespace rigrip::scene_ops {
using namespace core;  // the bake is matrix algebra on core types
namespace {

// The general solver for every bone and frame, by SVD only (detail::bake_reference).
thread_local bool reference_only = false;
// The error report without its twin-bone shortcut (detail::measure_bake_error_plain).
thread_local bool measure_plain = false;

// ---- double-precision affine algebra (row-major 3x3 + translation) -------------------

struct affine {
  double a[3][3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
  double t[3] = {0, 0, 0};
};

affine from_mat(const mat4& m) {  // mat4 is column-major
  affine r;
  for (int row = 0; row < 3; ++row) {
    for (int col = 0; col < 3; ++col) r.a[row][col] = m[static_cast<std::size_t>(col * 4 + row)];
    r.t[row] = m[static_cast<std::size_t>(12 + row)];
  }
  return r;
}

}  // namespace

namespace detail {
// The affine product x * y (row-major 3x3 and translation; r apart from x and y), each entry
// summed left to right: the reference for affine_mul.
void affine_mul_scalar(const double xa[9], const double xt[3], const double ya[9], const double yt[3], double ra[9],
                       double rt[3]) {
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 3; ++j) ra[3 * i + j] = xa[3 * i] * ya[j] + xa[3 * i + 1] * ya[3 + j] + xa[3 * i + 2] * ya[6 + j];
    rt[i] = xa[3 * i] * yt[0] + xa[3 * i + 1] * yt[1] + xa[3 * i + 2] * yt[2] + xt[i];
  }
}
}  // namespace detail

namespace {
// affine_mul_scalar with SSE2: per row, columns (0, 1) in one register and (2, t) in another,
// the same products summed in the same order. The translation lane adds x.t last; its
// column-2 partner adds -0, which leaves every double as it is (+0 + -0 is +0, NaN stays).
[[gnu::always_inline]] inline void affine_mul_fast(const double xa[9], const double xt[3], const double ya[9],
                                                   const double yt[3], double ra[9], double rt[3]) {
#if defined(__SSE2__)
  const __m128d y0 = _mm_loadu_pd(ya), y1 = _mm_loadu_pd(ya + 3), y2 = _mm_loadu_pd(ya + 6);
  const __m128d z0 = _mm_loadh_pd(_mm_load_sd(ya + 2), yt), z1 = _mm_loadh_pd(_mm_load_sd(ya + 5), yt + 1),
                z2 = _mm_loadh_pd(_mm_load_sd(ya + 8), yt + 2);
  const __m128d minus_zero = _mm_set_sd(-0.0);
  for (int i = 0; i < 3; ++i) {
    const __m128d b0 = _mm_set1_pd(xa[3 * i]), b1 = _mm_set1_pd(xa[3 * i + 1]), b2 = _mm_set1_pd(xa[3 * i + 2]);
    const __m128d lo = _mm_add_pd(_mm_add_pd(_mm_mul_pd(b0, y0), _mm_mul_pd(b1, y1)), _mm_mul_pd(b2, y2));
    const __m128d hi = _mm_add_pd(_mm_add_pd(_mm_add_pd(_mm_mul_pd(b0, z0), _mm_mul_pd(b1, z1)), _mm_mul_pd(b2, z2)),
                                  _mm_loadh_pd(minus_zero, xt + i));
    _mm_storeu_pd(ra + 3 * i, lo);
    _mm_store_sd(ra + 3 * i + 2, hi);
    _mm_storeh_pd(rt + i, hi);
  }
#else
  detail::affine_mul_scalar(xa, xt, ya, yt, ra, rt);
#endif
}
}  // namespace

namespace detail {
void affine_mul(const double xa[9], const double xt[3], const double ya[9], const double yt[3], double ra[9],
                double rt[3]) {
  affine_mul_fast(xa, xt, ya, yt, ra, rt);
}
}  // namespace detail

namespace {
affine mul(const affine& x, const affine& y) {
  affine r;
  affine_mul_fast(&x.a[0][0], x.t, &y.a[0][0], y.t, &r.a[0][0], r.t);
  return r;
}

void rotation_matrix(const quat& q0, double r[3][3]) {
  const quat q = normalize(q0);
  const double x = q[0], y = q[1], z = q[2], w = q[3];
  r[0][0] = 1 - 2 * (y * y + z * z), r[0][1] = 2 * (x * y - z * w), r[0][2] = 2 * (x * z + y * w);
  r[1][0] = 2 * (x * y + z * w), r[1][1] = 1 - 2 * (x * x + z * z), r[1][2] = 2 * (y * z - x * w);
  r[2][0] = 2 * (x * z - y * w), r[2][1] = 2 * (y * z + x * w), r[2][2] = 1 - 2 * (x * x + y * y);
}

affine compose_d(const vec3& t, const quat& q, const vec3& s) {  // T * R * S
  affine m;
  double r[3][3];
  rotation_matrix(q, r);
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 3; ++j) m.a[i][j] = r[i][j] * s[static_cast<std::size_t>(j)];
    m.t[i] = t[static_cast<std::size_t>(i)];
  }
  return m;
}

using dvec3 = std::array<double, 3>;
double dot3(const dvec3& a, const dvec3& b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }
dvec3 cross3(const dvec3& a, const dvec3& b) {
  return {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]};
}
double norm3(const dvec3& a) { return std::sqrt(dot3(a, a)); }

// A = U * diag(sigma) * V^T with U and V proper rotations (det +1); sigma is sorted by
// magnitude, and only the last one may be negative (a reflection in A). Zero or tiny
// singular values get an arbitrary orthonormal completion, so nothing is NaN.
struct svd3 {
  dvec3 u[3];  // columns of U
  dvec3 v[3];  // columns of V
  double sigma[3];
};

svd3 decompose_svd(const double a[3][3]) {
  // One-sided Jacobi: rotate the columns of B = A*V until they are orthogonal.
  dvec3 b[3], v[3];
  for (int c = 0; c < 3; ++c) {
    b[c] = {a[0][c], a[1][c], a[2][c]};
    v[c] = {0, 0, 0};
    v[c][static_cast<std::size_t>(c)] = 1;
  }
  for (int sweep = 0; sweep < 40; ++sweep) {
    bool rotated = false;
    for (int p = 0; p < 2; ++p)
      for (int q = p + 1; q < 3; ++q) {
        const double alpha = dot3(b[p], b[p]), beta = dot3(b[q], b[q]), gamma = dot3(b[p], b[q]);
        if (!(std::abs(gamma) > 1e-15 * std::sqrt(alpha * beta))) continue;
        rotated = true;
        const double zeta = (beta - alpha) / (2 * gamma);
        const double t = (zeta >= 0 ? 1.0 : -1.0) / (std::abs(zeta) + std::sqrt(1 + zeta * zeta));
        const double c = 1 / std::sqrt(1 + t * t), s = c * t;
        for (int k = 0; k < 3; ++k) {
          const double bp = b[p][k], bq = b[q][k];
          b[p][k] = c * bp - s * bq, b[q][k] = s * bp + c * bq;
          const double vp = v[p][k], vq = v[q][k];
          v[p][k] = c * vp - s * vq, v[q][k] = s * vp + c * vq;
        }
      }
    if (!rotated) break;
  }
  int order[3] = {0, 1, 2};
  std::sort(order, order + 3, [&](int x, int y) { return norm3(b[x]) > norm3(b[y]); });
  svd3 r;
  dvec3 bs[3];
  for (int k = 0; k < 3; ++k) bs[k] = b[order[k]], r.v[k] = v[order[k]];
  const double s0 = norm3(bs[0]);
  r.u[0] = s0 > 1e-30 ? dvec3{bs[0][0] / s0, bs[0][1] / s0, bs[0][2] / s0} : dvec3{1, 0, 0};
  // Second column: b1's direction made orthogonal to u0, else any perpendicular axis.
  dvec3 u1 = bs[1];
  const double d = dot3(u1, r.u[0]);
  for (int k = 0; k < 3; ++k) u1[k] -= d * r.u[0][k];
  double n1 = norm3(u1);
  if (!(n1 > 1e-12 * std::max(s0, 1e-30))) {
    const auto& u0 = r.u[0];
    dvec3 axis{0, 0, 0};  // the world axis least aligned with u0
    int least = std::abs(u0[0]) <= std::abs(u0[1]) ? (std::abs(u0[0]) <= std::abs(u0[2]) ? 0 : 2)
                                                   : (std::abs(u0[1]) <= std::abs(u0[2]) ? 1 : 2);
    axis[static_cast<std::size_t>(least)] = 1;
    u1 = cross3(u0, axis);
    n1 = norm3(u1);
  }
  r.u[1] = {u1[0] / n1, u1[1] / n1, u1[2] / n1};
  r.u[2] = cross3(r.u[0], r.u[1]);
  r.sigma[0] = s0;
  r.sigma[1] = dot3(r.u[1], bs[1]);
  r.sigma[2] = dot3(r.u[2], bs[2]);  // signed: negative when A reflects
  if (dot3(cross3(r.v[0], r.v[1]), r.v[2]) < 0) {  // make V proper; A*(-v2) = -b2
    for (auto& c : r.v[2]) c = -c;
    r.sigma[2] = -r.sigma[2];
  }
  return r;
}

double det3(const double a[3][3]) {
  return a[0][0] * (a[1][1] * a[2][2] - a[1][2] * a[2][1]) -
         a[0][1] * (a[1][0] * a[2][2] - a[1][2] * a[2][0]) +
         a[0][2] * (a[1][0] * a[2][1] - a[1][1] * a[2][0]);
}

double frobenius(const double a[3][3]) {
  double s = 0;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) s += a[i][j] * a[i][j];
  return std::sqrt(s);
}

// |det A| >= 1e-3 |A|_F^3 bounds the smallest singular value below by 1e-3 times the
// largest (det / |A|_F^2 <= sigma_min): far from the pseudo-inverse's cut-off and from
// anything Newton's polar iteration would struggle with.
bool well_conditioned_f(double f, double det) {  // f: frobenius(a)
  return std::isfinite(det) && std::abs(det) >= 1e-3 * f * f * f && f > 1e-30;
}
bool well_conditioned(const double a[3][3], double det) { return well_conditioned_f(frobenius(a), det); }

// The inverse by cofactors (the transposed adjugate over the determinant).
void inverse3(const double a[3][3], double det, double r[3][3]) {
  const double d = 1 / det;
  r[0][0] = (a[1][1] * a[2][2] - a[1][2] * a[2][1]) * d;
  r[0][1] = (a[0][2] * a[2][1] - a[0][1] * a[2][2]) * d;
  r[0][2] = (a[0][1] * a[1][2] - a[0][2] * a[1][1]) * d;
  r[1][0] = (a[1][2] * a[2][0] - a[1][0] * a[2][2]) * d;
  r[1][1] = (a[0][0] * a[2][2] - a[0][2] * a[2][0]) * d;
  r[1][2] = (a[0][2] * a[1][0] - a[0][0] * a[1][2]) * d;
  r[2][0] = (a[1][0] * a[2][1] - a[1][1] * a[2][0]) * d;
  r[2][1] = (a[0][1] * a[2][0] - a[0][0] * a[2][1]) * d;
  r[2][2] = (a[0][0] * a[1][1] - a[0][1] * a[1][0]) * d;
}

// Least-squares inverse of an affine map: singular directions (a zero scale) map to 0
// instead of blowing up. A well-conditioned map (every bone with sane scales) has an
// ordinary inverse, which the cofactors give for a fraction of an SVD's cost.
affine pseudo_inverse(const affine& m) {
  affine r;
  const double det = det3(m.a);
  if (!reference_only && well_conditioned(m.a, det)) {
    inverse3(m.a, det, r.a);
  } else {
    const svd3 d = decompose_svd(m.a);
    const double cutoff = 1e-6 * std::abs(d.sigma[0]);
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) {
        double sum = 0;
        for (int k = 0; k < 3; ++k)
          if (std::abs(d.sigma[k]) > cutoff && std::abs(d.sigma[k]) > 1e-30)
            sum += d.v[k][static_cast<std::size_t>(i)] * d.u[k][static_cast<std::size_t>(j)] /
                   d.sigma[k];
        r.a[i][j] = sum;
      }
  }
  for (int i = 0; i < 3; ++i)
    r.t[i] = -(r.a[i][0] * m.t[0] + r.a[i][1] * m.t[1] + r.a[i][2] * m.t[2]);
  return r;
}

// The rotation of A's polar decomposition (A = R * P, P symmetric positive definite) by
// Newton's iteration X <- (X + X^-T) / 2 (Higham), for det A > 0 and well conditioned: then
// it is the U * V^T of A's SVD. False when A is not such a matrix or the iteration does not
// settle (the caller falls back to the SVD). Convergence is quadratic (the error after a
// step is about the square of that step's size, times at most the condition bound 1e3), so
// the iterate after a step below 1e-6 is within about 1e-9 of the limit, well below the
// float rounding of the stored quaternion (6e-8): it is returned without further steps.
// The Newton loop as first written (det3 and inverse3 each step): polar_rotation's reference.
bool polar_rotation_plain(const double a[3][3], double r[3][3]) {
  double det = det3(a);
  if (!(det > 0) || !well_conditioned(a, det)) return false;
  double x[3][3], inv[3][3];
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) x[i][j] = a[i][j];
  for (int iter = 0; iter < 40; ++iter) {
    inverse3(x, det, inv);
    // Scaling the first step by (|X^-1|_F / |X|_F)^(1/2) brings the singular values near 1
    // whatever the bone's scale; after it the plain step converges quadratically.
    double delta = 0;
    if (iter == 0) {
      const double g = std::sqrt(std::sqrt(frobenius(inv) / frobenius(x)));
      for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) {
          const double next = 0.5 * (g * x[i][j] + inv[j][i] / g);
          delta = std::max(delta, std::abs(next - x[i][j]));
          x[i][j] = next;
        }
    } else {  // gain 1: 1 * x and y / 1 are x and y exactly, so the same doubles
      for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) {
          const double next = 0.5 * (x[i][j] + inv[j][i]);
          delta = std::max(delta, std::abs(next - x[i][j]));
          x[i][j] = next;
        }
    }
    if (delta < 1e-6) {
      for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) r[i][j] = x[i][j];
      return true;
    }
    det = det3(x);
    if (!(det > 0)) return false;
  }
  return false;
}

// cofactors' entries stored transposed (c[i][j] = n[j][i]: the cofactor matrix, which is
// the inverse transposed times det), the same expressions, so the same doubles, and det3(a)
// summed as cofactors sums it. With it Newton's step X + X^-T is elementwise over 9 doubles.
double cofactors_t(const double a[3][3], double c[3][3]) {
  c[0][0] = a[1][1] * a[2][2] - a[1][2] * a[2][1];
  c[1][0] = a[0][2] * a[2][1] - a[0][1] * a[2][2];
  c[2][0] = a[0][1] * a[1][2] - a[0][2] * a[1][1];
  c[0][1] = a[1][2] * a[2][0] - a[1][0] * a[2][2];
  c[1][1] = a[0][0] * a[2][2] - a[0][2] * a[2][0];
  c[2][1] = a[0][2] * a[1][0] - a[0][0] * a[1][2];
  c[0][2] = a[1][0] * a[2][1] - a[1][1] * a[2][0];
  c[1][2] = a[0][1] * a[2][0] - a[0][0] * a[2][1];
  c[2][2] = a[0][0] * a[1][1] - a[0][1] * a[1][0];
  return a[0][0] * c[0][0] + a[0][1] * c[0][1] + a[0][2] * c[0][2];
}

}  // namespace

namespace detail {
// One Newton step from `from` into x: x <- 0.5 * (g * from + (c * d) / g) element by element,
// returning the largest |x - from| (NaN changes ignored, as std::max(delta, NaN) keeps delta).
// For g == 1 that is 0.5 * (from + c * d) exactly (1 * v and v / 1 are v), the cheaper form.
double polar_step_scalar(const double from[9], double x[9], const double c[9], double d, double g) {
  double delta = 0;
  for (int k = 0; k < 9; ++k) {
    const double next = g == 1 ? 0.5 * (from[k] + c[k] * d) : 0.5 * (g * from[k] + c[k] * d / g);
    delta = std::max(delta, std::abs(next - from[k]));
    x[k] = next;
  }
  return delta;
}
}  // namespace detail

namespace {
// polar_step: with SSE2, two elements a step, the same operations per element; maxpd(v, m)
// is m when v is NaN, and the largest of the non-NaN changes does not depend on the order
// they are compared in. (Inline in polar_rotation: a call per step cost what the lanes saved.)
[[gnu::always_inline]] inline double polar_step_fast(const double from[9], double x[9], const double c[9], double d,
                                                     double g) {
#if defined(__SSE2__)
  const __m128d dd = _mm_set1_pd(d), gg = _mm_set1_pd(g), half = _mm_set1_pd(0.5);
  const __m128d abs_mask = _mm_castsi128_pd(_mm_set1_epi64x(0x7fffffffffffffffLL));
  auto next_of = [&](__m128d f, __m128d ck) {
    return g == 1 ? _mm_mul_pd(half, _mm_add_pd(f, _mm_mul_pd(ck, dd)))
                  : _mm_mul_pd(half, _mm_add_pd(_mm_mul_pd(gg, f), _mm_div_pd(_mm_mul_pd(ck, dd), gg)));
  };
  __m128d m = _mm_setzero_pd();
  for (int k = 0; k < 8; k += 2) {
    const __m128d f = _mm_loadu_pd(from + k);
    const __m128d next = next_of(f, _mm_loadu_pd(c + k));
    m = _mm_max_pd(_mm_and_pd(_mm_sub_pd(next, f), abs_mask), m);
    _mm_storeu_pd(x + k, next);
  }
  const __m128d f8 = _mm_load_sd(from + 8);  // (upper lanes unused)
  const __m128d next8 = next_of(f8, _mm_load_sd(c + 8));
  _mm_store_sd(x + 8, next8);
  const __m128d low = _mm_max_sd(_mm_and_pd(_mm_sub_sd(next8, f8), abs_mask), m);  // (its upper lane unused)
  return _mm_cvtsd_f64(_mm_max_sd(_mm_unpackhi_pd(m, m), low));
#else
  return detail::polar_step_scalar(from, x, c, d, g);
#endif
}
}  // namespace

namespace detail {
double polar_step(const double from[9], double x[9], const double c[9], double d, double g) {
  return polar_step_fast(from, x, c, d, g);
}
}  // namespace detail

namespace {

bool polar_rotation(const double a[3][3], double r[3][3]) {
  // det3, frobenius and inverse3 as the plain loop (detail::polar_rotation_plain) uses them,
  // each made once: the cofactors give the determinant and the inverse, and the first step's
  // |X|_F is |A|_F, already made for the conditioning test.
  double x[3][3], c[3][3];
  double det = cofactors_t(a, c);
  if (reference_only || !(det > 0)) return false;
  const double fa = frobenius(a);
  if (!well_conditioned_f(fa, det)) return false;
  // Scaling the first step by (|X^-1|_F / |X|_F)^(1/2) brings the singular values near 1
  // whatever the bone's scale; after it the plain step converges quadratically.
  double delta;
  {
    const double d = 1 / det;
    double s = 0;  // frobenius(inverse3(a)), summed in the inverse's own order
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) s += (c[j][i] * d) * (c[j][i] * d);
    const double g = std::sqrt(std::sqrt(std::sqrt(s) / fa));
    delta = polar_step_fast(&a[0][0], &x[0][0], &c[0][0], d, g);
  }
  for (int iter = 1; !(delta < 1e-6); ++iter) {
    if (iter == 40) return false;
    det = cofactors_t(x, c);
    if (!(det > 0)) return false;
    // gain 1: 1 * x and y / 1 are x and y exactly, so the plain loop's doubles
    delta = polar_step_fast(&x[0][0], &x[0][0], &c[0][0], 1 / det, 1);
  }
  std::memcpy(r, x, sizeof x);
  return true;
}

struct local_trs {
  vec3 t;
  quat r;
  vec3 s;
  double rq[3][3];  // rotation_matrix(r): what compose_d(t, r, s) would make again
};

// T * R * S closest to m: R is the polar (closest) rotation, S the best diagonal given R.
// Kept out of line: inlined into solve_bone, GCC 12 -O3 gave local.t (the float-rounded
// translation widened again) the unrounded doubles of m.t, whose stack slot it shared,
// and the baked keys moved by an ulp.
[[gnu::noinline]] local_trs decompose(const affine& m) {
  double r[3][3];
  if (!polar_rotation(m.a, r)) {
    const svd3 d = decompose_svd(m.a);
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j)
        r[i][j] = d.u[0][static_cast<std::size_t>(i)] * d.v[0][static_cast<std::size_t>(j)] +
                  d.u[1][static_cast<std::size_t>(i)] * d.v[1][static_cast<std::size_t>(j)] +
                  d.u[2][static_cast<std::size_t>(i)] * d.v[2][static_cast<std::size_t>(j)];
  }
  local_trs out;
  out.r = from_rotation_matrix(r);
  auto& rq = out.rq;  // the rotation actually stored (after float rounding)
  rotation_matrix(out.r, rq);
  for (int k = 0; k < 3; ++k) {
    double sk = 0;  // (R^T A)_kk
    for (int i = 0; i < 3; ++i) sk += rq[i][k] * m.a[i][k];
    out.s[static_cast<std::size_t>(k)] = static_cast<float>(sk);
    out.t[static_cast<std::size_t>(k)] = static_cast<float>(m.t[k]);
  }
  return out;
}

double max_difference(const affine& x, const affine& y) {
  return detail::max_difference(&x.a[0][0], x.t, &y.a[0][0], y.t);
}

}  // namespace

namespace detail {
double max_difference_scalar(const double a[9], const double t[3], const double b[9], const double u[3]) {
  double e = 0;
  for (int k = 0; k < 9; ++k) e = std::max(e, std::abs(a[k] - b[k]));
  for (int k = 0; k < 3; ++k) e = std::max(e, std::abs(t[k] - u[k]));
  return e;
}
#if defined(__SSE2__)
// Two differences a step; maxpd(v, m) keeps m when v is NaN, as std::max(e, NaN) keeps e, and
// the largest of the other values does not depend on the order.
double max_difference(const double a[9], const double t[3], const double b[9], const double u[3]) {
  const __m128d abs_mask = _mm_castsi128_pd(_mm_set1_epi64x(0x7fffffffffffffffLL));
  auto diff = [&](__m128d x, __m128d y) { return _mm_and_pd(_mm_sub_pd(x, y), abs_mask); };
  __m128d m = _mm_setzero_pd();
  for (int k = 0; k < 8; k += 2) m = _mm_max_pd(diff(_mm_loadu_pd(a + k), _mm_loadu_pd(b + k)), m);
  m = _mm_max_pd(diff(_mm_loadu_pd(t), _mm_loadu_pd(u)), m);
  m = _mm_max_pd(diff(_mm_set_pd(t[2], a[8]), _mm_set_pd(u[2], b[8])), m);
  return _mm_cvtsd_f64(_mm_max_sd(_mm_unpackhi_pd(m, m), m));
}
#else
double max_difference(const double a[9], const double t[3], const double b[9], const double u[3]) {
  return max_difference_scalar(a, t, b, u);
}
#endif
bool affine_finite_scalar(const double a[9], const double t[3]) {
  for (int k = 0; k < 9; ++k)
    if (!std::isfinite(a[k])) return false;
  for (int k = 0; k < 3; ++k)
    if (!std::isfinite(t[k])) return false;
  return true;
}
#if defined(__SSE2__)
// v * 0 is 0 for a finite v and NaN for ±inf and NaN, and NaN stays NaN through the sums (a
// sum of zeros cannot overflow).
bool affine_finite(const double a[9], const double t[3]) {
  const __m128d zero = _mm_setzero_pd();
  __m128d sum = _mm_add_pd(_mm_mul_pd(_mm_loadu_pd(a), zero), _mm_mul_pd(_mm_loadu_pd(a + 2), zero));
  sum = _mm_add_pd(sum, _mm_add_pd(_mm_mul_pd(_mm_loadu_pd(a + 4), zero), _mm_mul_pd(_mm_loadu_pd(a + 6), zero)));
  sum = _mm_add_pd(sum, _mm_add_pd(_mm_mul_pd(_mm_loadu_pd(t), zero),
                                   _mm_mul_pd(_mm_set_pd(t[2], a[8]), zero)));
  return _mm_movemask_pd(_mm_cmpunord_pd(sum, sum)) == 0;
}
#else
bool affine_finite(const double a[9], const double t[3]) { return affine_finite_scalar(a, t); }
#endif
}  // namespace detail

namespace detail {
bool trs_finite_scalar(const float v[10]) {
  for (int k = 0; k < 10; ++k)
    if (!std::isfinite(v[k])) return false;
  return true;
}
#if defined(__SSE2__)
// x * 0 is 0 for a finite x and NaN for ±inf and NaN, and NaN stays NaN through the sums.
bool trs_finite(const float v[10]) {
  const __m128 zero = _mm_setzero_ps();
  const __m128 tail = _mm_castpd_ps(_mm_load_sd(reinterpret_cast<const double*>(v + 8)));  // v[8], v[9], 0, 0
  const __m128 sum = _mm_add_ps(_mm_add_ps(_mm_mul_ps(_mm_loadu_ps(v), zero), _mm_mul_ps(_mm_loadu_ps(v + 4), zero)),
                                _mm_mul_ps(tail, zero));
  return _mm_movemask_ps(_mm_cmpunord_ps(sum, sum)) == 0;
}
#else
bool trs_finite(const float v[10]) { return trs_finite_scalar(v); }
#endif

// Whether every float of v is finite: core::all_finite, and with SSE2 sixteen floats a step.
bool floats_finite_scalar(std::span<const float> v) { return core::all_finite(v); }
#if defined(__SSE2__)
// x * 0 is ±0 for a finite x and NaN for ±inf and NaN; a sum of zeros is a zero, so the
// running sum is NaN exactly when some float was not finite.
bool floats_finite(std::span<const float> v) {
  const float* p = v.data();
  const std::size_t n = v.size();
  const __m128 zero = _mm_setzero_ps();
  __m128 sum = zero;
  std::size_t k = 0;
  for (; k + 16 <= n; k += 16) {
    const __m128 a = _mm_add_ps(_mm_mul_ps(_mm_loadu_ps(p + k), zero), _mm_mul_ps(_mm_loadu_ps(p + k + 4), zero));
    const __m128 b = _mm_add_ps(_mm_mul_ps(_mm_loadu_ps(p + k + 8), zero), _mm_mul_ps(_mm_loadu_ps(p + k + 12), zero));
    sum = _mm_add_ps(sum, _mm_add_ps(a, b));
  }
  for (; k + 4 <= n; k += 4) sum = _mm_add_ps(sum, _mm_mul_ps(_mm_loadu_ps(p + k), zero));
  if (_mm_movemask_ps(_mm_cmpunord_ps(sum, sum)) != 0) return false;
  return core::all_finite(v.subspan(k));
}
#else
bool floats_finite(std::span<const float> v) { return floats_finite_scalar(v); }
#endif
}  // namespace detail

namespace {
bool finite(const affine& m) { return detail::affine_finite(&m.a[0][0], m.t); }

// Whether decompose's t, r and s (ten floats, laid out one after the other) are all finite.
bool finite(const local_trs& l) {
  static_assert(offsetof(local_trs, t) == 0 && offsetof(local_trs, r) == 12 && offsetof(local_trs, s) == 28);
  float v[10];
  std::memcpy(v, &l, sizeof v);
  return detail::trs_finite(v);
}

// ---- solving plain locals ------------------------------------------------------------

struct residual {
  double error = 0;
  std::size_t bone = 0;
};

// Bone i's plain local from its goal world under its parent's plain world `pw` (the parent's
// pseudo-inverse made once for all its children), its plain world, and the residual. A
// non-finite solution keeps the original local; a non-finite world is replaced by the goal.
void solve_bone(std::size_t i, std::size_t pi, const affine& pw, const affine& goal, std::vector<affine>& inverse,
                std::vector<char>& inverted, pose& p, std::vector<affine>& plain, residual& res) {
  if (!inverted[pi]) inverse[pi] = pseudo_inverse(pw), inverted[pi] = 1;
  affine m;
  const affine& inv = inverse[pi];
  affine_mul_fast(&inv.a[0][0], inv.t, &goal.a[0][0], goal.t, &m.a[0][0], m.t);
  const local_trs l = decompose(m);
  if (finite(l)) {
    p.translation[i] = l.t, p.rotation[i] = l.r, p.scale[i] = l.s;
    affine local;  // compose_d(l.t, l.r, l.s) with the rotation matrix decompose made
    for (int r = 0; r < 3; ++r) {
      for (int c = 0; c < 3; ++c) local.a[r][c] = l.rq[r][c] * l.s[static_cast<std::size_t>(c)];
      local.t[r] = l.t[static_cast<std::size_t>(r)];
    }
    affine& out = plain[i];  // written in place unless it is pw (a bone its own parent)
    if (&out != &pw) affine_mul_fast(&pw.a[0][0], pw.t, &local.a[0][0], local.t, &out.a[0][0], out.t);
    else out = mul(pw, local);
  } else {
    plain[i] = mul(pw, compose_d(p.translation[i], p.rotation[i], p.scale[i]));
  }
  if (!finite(plain[i]) || !finite(goal)) {
    plain[i] = goal;  // nothing meaningful to measure; keep descendants sane
    return;
  }
  const double e = max_difference(plain[i], goal);
  if (e > res.error) res.error = e, res.bone = i;
}

// Overwrites p's locals of the bones in `solve` so that plain inheritance reproduces
// `target`. Bones outside `solve` are exact by construction, so their plain world is the
// target itself. A non-finite solution (overflowing input) keeps the original local.
void solve_locals(const skeleton& sk, const std::vector<mat4>& target, const std::vector<bool>& solve,
                  pose& p, residual& res) {
  const std::size_t n = sk.bones.size();
  std::vector<affine> plain(n), inverse(n);
  std::vector<char> inverted(n, 0);  // a parent's inverse is made once for all its children
  for (std::size_t i = 0; i < n; ++i) {
    const affine goal = from_mat(target[i]);
    const int parent = sk.bones[i].parent;
    if (!solve[i] || parent < 0) {
      plain[i] = goal;
      continue;
    }
    const auto pi = static_cast<std::size_t>(parent);
    solve_bone(i, pi, plain[pi], goal, inverse, inverted, p, plain, res);
  }
}

// ---- scale-track helpers -------------------------------------------------------------

bool uniform(const float* v) {
  const float m = std::max({std::abs(v[0]), std::abs(v[1]), std::abs(v[2])});
  return std::abs(v[0] - v[1]) <= 1e-6f * m && std::abs(v[0] - v[2]) <= 1e-6f * m;
}

bool uniform(const track& t) {  // every value and tangent, so interpolation stays uniform
  for (std::size_t i = 0; i + 3 <= t.values.size(); i += 3)
    if (!uniform(&t.values[i])) return false;
  return true;
}

// The value of a scale track that never changes (all values equal, cubic tangents 0).
std::optional<vec3> constant_value(const track& t) {
  const std::size_t e = t.elements_per_key();
  if (t.values.size() < 3 * e) return std::nullopt;
  const std::size_t first = e == 3 ? 3 : 0;
  const vec3 v{t.values[first], t.values[first + 1], t.values[first + 2]};
  for (std::size_t i = 0; i + 3 <= t.values.size(); i += 3) {
    const bool is_value = e == 1 || (i / 3) % 3 == 1;
    for (std::size_t c = 0; c < 3; ++c)
      if (t.values[i + c] != (is_value ? v[c] : 0.0f)) return std::nullopt;
  }
  return v;
}

vec3 mul3(const vec3& a, const vec3& b) { return {a[0] * b[0], a[1] * b[1], a[2] * b[2]}; }

// Bones in `seed` and all their descendants (parents precede children).
std::vector<bool> with_descendants(const skeleton& sk, std::vector<bool> seed) {
  for (std::size_t i = 0; i < sk.bones.size(); ++i) {
    const int p = sk.bones[i].parent;
    if (p >= 0 && static_cast<std::size_t>(p) < i && seed[static_cast<std::size_t>(p)]) seed[i] = true;
  }
  return seed;
}

bool float_bits_equal(const std::vector<float>& x, const std::vector<float>& y) {
  return x.size() == y.size() && (x.empty() || std::memcmp(x.data(), y.data(), x.size() * sizeof(float)) == 0);
}

}  // namespace

namespace detail {
// `times` with every array of `arrays` appended, sorted, then reduced (exact duplicates, or
// any value within 1e-5 of the last kept one). With `share`, an array bit-equal to one
// already appended is skipped: without NaN (which leaves the sort's order unspecified) and
// -0 (0 == -0, so which zero survives would depend on the sort), == is bit equality, the sorted
// list's distinct values are a function of the set, and both reductions keep only values that
// differ from the last one kept — the same floats as appending it again (exact
// sample_times/measure_times on clips whose tracks share key times, at a fraction of the sort).
std::vector<float> merge_times(std::vector<float> times, const std::vector<const std::vector<float>*>& arrays,
                               bool within_1e5, bool share) {
  auto exotic = [](const std::vector<float>& v) {
    for (const float t : v)
      if (std::isnan(t) || (t == 0 && std::signbit(t))) return true;
    return false;
  };
  std::vector<const std::vector<float>*> taken;  // (share) the arrays not bit-equal to one before
  if (share) {
    for (const auto* v : arrays) {
      if (!v) continue;
      bool seen = false;
      for (const auto* w : taken) seen = seen || float_bits_equal(*v, *w);
      if (!seen) taken.push_back(v);
    }
    share = !exotic(times);  // (an array bit-equal to a taken one holds the same floats)
    for (const auto* v : taken) share = share && !exotic(*v);
  }
  auto sorted = [](const std::vector<float>& v) { return std::is_sorted(v.begin(), v.end()); };
  if (share && sorted(times) && std::all_of(taken.begin(), taken.end(), [&](const auto* v) { return sorted(*v); })) {
    // Sorted runs united pairwise: without NaN and -0, floats that compare equal have the
    // same bits, so the union is the sorted list of all of them with some exact duplicates
    // left out, which both reductions below drop anyway (a value equal to one kept is within
    // 1e-5 of the last kept) — the same floats as the sort, for a fraction of its work.
    std::vector<float> merged;
    for (const auto* v : taken) {
      merged.resize(times.size() + v->size());
      merged.erase(std::set_union(times.begin(), times.end(), v->begin(), v->end(), merged.begin()), merged.end());
      times.swap(merged);
    }
  } else {
    for (const auto* v : share ? taken : arrays)
      if (v) times.insert(times.end(), v->begin(), v->end());
    std::sort(times.begin(), times.end());
  }
  if (!within_1e5) {
    times.erase(std::unique(times.begin(), times.end()), times.end());
    return times;
  }
  std::vector<float> out;
  for (float t : times)
    if (out.empty() || t - out.back() > 1e-5f) out.push_back(t);
  return out;
}
}  // namespace detail

namespace {

// Frame grid of the animation (fps, else 30) plus its duration and the key times of
// `keyed`, merged and strictly increasing.
std::vector<float> sample_times(const animation& a, const std::vector<const track*>& keyed) {
  const double fps = a.fps && *a.fps > 0 ? *a.fps : 30.0;
  const double duration = std::max(0.0, a.duration);
  constexpr double max_frames = 1 << 16;  // bound the work on absurd durations
  const double step = std::max(1.0 / fps, duration / max_frames);
  std::vector<float> times;
  for (double k = 0; k * step < duration; k += 1) times.push_back(static_cast<float>(k * step));
  times.push_back(static_cast<float>(duration));
  std::vector<const std::vector<float>*> arrays;
  for (const track* t : keyed)
    if (t) arrays.push_back(&t->times);
  return detail::merge_times(std::move(times), arrays, true, true);
}

// The times measure_bake_error samples a clip at: every frame (fps, else 30; at most 4096
// steps), every key time, sorted, exact duplicates removed, at most 8192.
std::vector<float> measure_times(const animation& a) {
  const double fps = a.fps && *a.fps > 0 ? *a.fps : 30.0;
  const double step = std::max(1.0 / fps, a.duration / 4096.0);  // bounded work for long clips
  std::vector<float> times;
  for (double k = 0; k * step <= a.duration + 1e-9; k += 1) times.push_back(static_cast<float>(k * step));
  std::vector<const std::vector<float>*> arrays;
  for (const auto& t : a.tracks) arrays.push_back(&t.times);
  times = detail::merge_times(std::move(times), arrays, false, true);
  if (times.size() > 8192) times.resize(8192);
  return times;
}

bool same_bits(float x, float y) {  // 0 and -0 sample differently at a key at 0
  std::uint32_t a, b;
  std::memcpy(&a, &x, 4), std::memcpy(&b, &y, 4);
  return a == b;
}

// Every key time finite and strictly increasing (what validate() asks): then a sample with a
// cursor is the sample without one, whatever times came before, so the bake's samples at a
// time are the measurement's at that time.
bool sorted_keys(const animation& a) {
  for (const auto& t : a.tracks)
    for (std::size_t k = 0; k < t.times.size(); ++k)
      if (!std::isfinite(t.times[k]) || (k > 0 && !(t.times[k] > t.times[k - 1]))) return false;
  return true;
}

// The original (SSC-aware) locals and worlds of every bone at the times the bake and the
// measurement share, kept by the bake for the measurement: [k * bones + i] for times[k].
struct original_samples {
  std::size_t bones = 0, budget = 0;  // budget: at most this many bone samples kept
  std::vector<float> wanted;          // measure_times of the clip
  std::vector<float> times;           // the kept ones, increasing
  std::vector<vec3> t, s;
  std::vector<quat> r;
  std::vector<mat4> world;
  // The baked locals at the kept times ([k * bones + i], as the bake stored them) and the
  // bones whose three tracks the bake made from them (key times: the bake's times, so a kept
  // time is a key of each). Empty when some baked value is not finite.
  std::vector<vec3> bt, bs;
  std::vector<quat> br;
  std::vector<char> solved;
};

track make_track(const std::string& bone, path p, std::vector<float> times, std::vector<float> values) {
  track t;
  t.bone = bone;
  t.path = p;
  t.interpolation = interpolation::linear;
  t.times = std::move(times);
  t.values = std::move(values);
  if (p == path::rotation) make_hemisphere_continuous(t.values);
  return t;
}

}  // namespace

namespace detail {
void replace_track(animation& a, track t) {
  std::erase_if(a.tracks, [&](const track& x) { return x.bone == t.bone && x.path == t.path; });
  a.tracks.push_back(std::move(t));
}

// replace_track for each of `added` in turn, in one pass: a track of `a` stays when no added
// track has its bone and path, an added one when no later added one has them, and the added
// ones follow a's in their order — what the calls one by one leave. Bones are matched by
// name through sk's lookup (exact names; of duplicate names the first bone stands for all);
// an added track whose bone sk does not have goes the one-by-one way.
void replace_tracks(animation& a, std::vector<track> added, const skeleton& sk) {
  if (added.empty()) return;
  const bone_lookup bones(sk);
  auto slot = [&](const track& t) -> long {
    const int b = bones.find(t.bone);
    const auto p = static_cast<std::size_t>(t.path);
    return b < 0 || p > 2 ? -1 : static_cast<long>(3 * static_cast<std::size_t>(b) + p);
  };
  std::vector<char> replaced(3 * sk.bones.size(), 0), keep(added.size(), 1);
  for (std::size_t j = added.size(); j-- > 0;) {
    const long k = slot(added[j]);
    if (k < 0) {
      for (auto& t : added) replace_track(a, std::move(t));
      return;
    }
    char& r = replaced[static_cast<std::size_t>(k)];
    keep[j] = !r, r = 1;
  }
  std::erase_if(a.tracks, [&](const track& x) {
    const long k = slot(x);
    return k >= 0 && replaced[static_cast<std::size_t>(k)];
  });
  for (std::size_t j = 0; j < added.size(); ++j)
    if (keep[j]) a.tracks.push_back(std::move(added[j]));
}
}  // namespace detail

namespace {

std::string describe(double e) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", e);
  return buf;
}

// The compensating bone whose fold caused a residual at `bone` (itself or an ancestor).
std::size_t culprit(const skeleton& sk, std::size_t bone, const std::vector<bool>& affected) {
  for (int b = static_cast<int>(bone); b >= 0; b = sk.bones[static_cast<std::size_t>(b)].parent)
    if (affected[static_cast<std::size_t>(b)]) return static_cast<std::size_t>(b);
  return bone;
}

void report(diagnostics& diags, const std::string& where, const skeleton& sk, const residual& r,
            const std::vector<bool>& affected) {
  if (!(r.error > 1e-4)) return;
  const auto& worst = sk.bones[r.bone].name;
  const auto& cause = sk.bones[culprit(sk, r.bone, affected)].name;
  diags.warn(code::w_lossy,
             where + ": segment scale compensation of bone '" + cause +
                 "' under a non-uniform parent scale cannot be expressed as plain T*R*S; baked "
                 "with a world-matrix difference of up to " + describe(r.error) + " (at bone '" +
                 worst + "')");
}

// ---- per skeleton --------------------------------------------------------------------

struct channel_tracks {
  const track* t = nullptr;
  const track* r = nullptr;
  const track* s = nullptr;
};

std::vector<channel_tracks> tracks_by_bone(const skeleton& sk, const animation& a) {
  std::vector<channel_tracks> out(sk.bones.size());
  const bone_lookup bones(sk);
  for (const auto& t : a.tracks) {
    const int b = bones.find(t.bone);
    if (b < 0) continue;
    auto& c = out[static_cast<std::size_t>(b)];
    (t.path == path::translation ? c.t : t.path == path::rotation ? c.r : c.s) = &t;
  }
  return out;
}

// sample_pose with the track lookup done once (sample_pose finds bones by name), into a
// pose whose storage is reused from frame to frame (`rest`: the skeleton's rest pose), for
// the bones in `bones` only (the others keep whatever they held), with a key cursor per
// channel (`cursors`, 3 per bone, zero to start) since times increase.
void sample_channels(const pose& rest, const std::vector<channel_tracks>& ch, float time,
                     const std::vector<std::size_t>& bones, std::vector<std::size_t>& cursors,
                     pose& p, const std::vector<std::array<char, 3>>* skip = nullptr) {
  const std::size_t n = ch.size();
  if (p.translation.size() != n) p = rest;
  for (const std::size_t i : bones) {
    float v[4];
    if (skip && (*skip)[i][0]) {  // (t, r, s) already set by the caller
    } else if (ch[i].t) {
      sample(*ch[i].t, time, v, cursors[3 * i]);
      p.translation[i] = {v[0], v[1], v[2]};
    } else {
      p.translation[i] = rest.translation[i];
    }
    if (skip && (*skip)[i][1]) {
    } else if (ch[i].r) {
      sample(*ch[i].r, time, v, cursors[3 * i + 1]);
      p.rotation[i] = normalize({v[0], v[1], v[2], v[3]});
    } else {
      p.rotation[i] = rest.rotation[i];
    }
    if (skip && (*skip)[i][2]) {
    } else if (ch[i].s) {
      sample(*ch[i].s, time, v, cursors[3 * i + 2]);
      p.scale[i] = {v[0], v[1], v[2]};
    } else {
      p.scale[i] = rest.scale[i];
    }
  }
}

// The sign glm::quat_cast gives a rotation matrix's quaternion (its largest component
// positive, ties to the first of w, x, y, z), so that a rotation kept as sampled is stored
// as the general solver would store it.
quat like_quat_cast(const quat& q) {
  const float w = q[3], x = q[0], y = q[1], z = q[2];
  // quat_cast compares 4c^2 - 1 for c = w, x, y, z; the largest |c| wins, w first on ties.
  float biggest = w * w, sign = w;
  if (x * x > biggest) biggest = x * x, sign = x;
  if (y * y > biggest) biggest = y * y, sign = y;
  if (z * z > biggest) biggest = z * z, sign = z;
  if (sign < 0) return {-q[0], -q[1], -q[2], -q[3]};
  return q;
}

bool positive(const vec3& v) {
  return v[0] > 0 && v[1] > 0 && v[2] > 0;
}

int parent_index(const skeleton& sk, std::size_t i) {
  const int p = sk.bones[i].parent;
  return p >= 0 && static_cast<std::size_t>(p) < i ? p : -1;
}

// One frame of bake_animation: overwrites p's locals of the bones in `solve` so that plain
// inheritance reproduces the SSC-aware worlds of `sampled`. Exact cases need no matrices:
// under a parent whose plain world is exact, a bone that does not compensate keeps its
// local, and a compensating one under a uniform parent scale s keeps its rotation and
// translation with scale S / s (S(1/s) commutes with R). The rest (non-uniform parent scale,
// or a parent that was solved inexactly) goes through the general solver. Positive scales
// only: a negative or zero scale is left to the solver, which picks its own factorisation.
struct frame_solver {
  const skeleton& sk;
  const std::vector<bool>& solve;
  const std::vector<bool>& affected;
  std::vector<std::size_t> solved;  // the bones in `solve`, parents first
  std::vector<mat4> world;          // target worlds, made on demand
  std::vector<char> have_world, exact, inverted;
  std::vector<affine> plain, inverse;

  frame_solver(const skeleton& s, const std::vector<bool>& sv, const std::vector<bool>& af)
      : sk(s), solve(sv), affected(af) {
    const std::size_t n = sk.bones.size();
    for (std::size_t i = 0; i < n; ++i)
      if (solve[i]) solved.push_back(i);
    world.resize(n), have_world.resize(n), exact.resize(n), inverted.resize(n);
    plain.resize(n), inverse.resize(n);
  }

  const mat4& target(const pose& sampled, std::size_t i) {
    if (!have_world[i]) {
      const int par = parent_index(sk, i);
      world[i] = bone_world(sk, sampled, i,
                            par >= 0 ? target(sampled, static_cast<std::size_t>(par)) : world[i]);
      have_world[i] = 1;
    }
    return world[i];
  }

  // The plain world of a bone that is not solved or solved exactly: its target.
  const affine& plain_of(const pose& sampled, std::size_t i) {
    if (!solve[i] || exact[i]) {
      if (!inverted[i]) plain[i] = from_mat(target(sampled, i));
    }
    return plain[i];
  }

  // `all`: every bone's target world is wanted (kept for the report): made in bone order up
  // front (the same bone_world calls target makes, without its recursion).
  void run(const pose& sampled, pose& p, residual& res, bool all) {
    std::fill(inverted.begin(), inverted.end(), 0);
    if (all) {
      for (std::size_t i = 0; i < world.size(); ++i) {
        const int par = parent_index(sk, i);
        world[i] = bone_world(sk, sampled, i, par >= 0 ? world[static_cast<std::size_t>(par)] : world[i]);
      }
      std::fill(have_world.begin(), have_world.end(), 1);
    } else {
      std::fill(have_world.begin(), have_world.end(), 0);
    }
    for (const std::size_t i : solved) {
      const int par = parent_index(sk, i);
      exact[i] = 1;
      if (par < 0) continue;  // a root's world is its local
      const auto pi = static_cast<std::size_t>(par);
      if (!reference_only && (!solve[pi] || exact[pi]) && positive(sampled.scale[i])) {
        if (!affected[i]) {
          p.rotation[i] = like_quat_cast(sampled.rotation[i]);
          continue;
        }
        const vec3& ps = sampled.scale[pi];
        if (positive(ps) && uniform(ps.data())) {
          p.rotation[i] = like_quat_cast(sampled.rotation[i]);
          p.scale[i] = mul3(sampled.scale[i], compensation(ps));
          continue;
        }
      }
      exact[i] = 0;
      const affine goal = from_mat(target(sampled, i));
      solve_bone(i, pi, plain_of(sampled, pi), goal, inverse, inverted, p, plain, res);  // (plain[pi]: i != pi)
    }
  }
};

// `a0`: the animation as it was (targets come from the untouched original); `cache`: where
// to keep the original samples the measurement will want (null: nowhere).
double bake_animation(const skeleton& sk0, const skeleton& sk, const animation& a0, animation& a,
                      const std::vector<bool>& affected, diagnostics& diags, original_samples* cache) {
  const std::size_t n = sk0.bones.size();
  const auto ch = tracks_by_bone(sk0, a0);
  std::vector<track> added;  // replace_track's tracks, applied at once (detail::replace_tracks)
  auto replace = [&](track t) { added.push_back(std::move(t)); };
  auto parent_of = [&](std::size_t i) { return static_cast<std::size_t>(sk0.bones[i].parent); };

  std::vector<bool> fold_exact(n, false), seed(n, false);
  for (std::size_t i = 0; i < n; ++i) {
    if (!affected[i]) continue;
    const std::size_t p = parent_of(i);
    const bool u = ch[p].s ? uniform(*ch[p].s) : uniform(sk0.bones[p].scale.data());
    (u ? fold_exact : seed)[i] = true;
  }
  const std::vector<bool> solve = with_descendants(sk0, seed);

  // Exact folds: the child's scale divided by the parent's, at every time.
  for (std::size_t i = 0; i < n; ++i) {
    if (!fold_exact[i] || solve[i]) continue;
    const bone& b0 = sk0.bones[i];
    const std::size_t p = parent_of(i);
    const track* ps = ch[p].s;
    const std::optional<vec3> pconst = ps ? constant_value(*ps) : std::optional<vec3>(sk0.bones[p].scale);
    if (pconst) {
      const vec3 c = compensation(*pconst);
      if (ch[i].s) {  // scaling values and tangents alike keeps the interpolation exact
        track t = *ch[i].s;
        for (std::size_t k = 0; k + 3 <= t.values.size(); k += 3)
          for (std::size_t j = 0; j < 3; ++j) t.values[k + j] *= c[j];
        replace(std::move(t));
      } else if (mul3(b0.scale, c) != sk.bones[i].scale) {
        replace(make_track(b0.name, path::scale, {0.0f}, {b0.scale[0] * c[0], b0.scale[1] * c[1], b0.scale[2] * c[2]}));
      }
    } else {  // 1/s(t) is not what the parent's interpolation gives: resample
      const auto times = sample_times(a0, {ps, ch[i].s});
      std::vector<float> values;
      values.reserve(times.size() * 3);
      for (float tm : times) {
        const auto sp = sample(*ps, tm);
        vec3 sc = b0.scale;
        if (ch[i].s) {
          const auto v = sample(*ch[i].s, tm);
          sc = {v[0], v[1], v[2]};
        }
        const vec3 r = mul3(sc, compensation({sp[0], sp[1], sp[2]}));
        values.insert(values.end(), r.begin(), r.end());
      }
      replace(make_track(b0.name, path::scale, times, std::move(values)));
    }
  }

  // Channels that still come from the rest pose must keep the original rest value, which
  // the rest-pose bake may have changed.
  for (std::size_t i = 0; i < n; ++i) {
    if (solve[i]) continue;
    const bone& b0 = sk0.bones[i];
    const bone& b1 = sk.bones[i];
    if (!ch[i].t && b0.translation != b1.translation)
      replace(make_track(b0.name, path::translation, {0.0f}, {b0.translation.begin(), b0.translation.end()}));
    if (!ch[i].r && b0.rotation != b1.rotation)
      replace(make_track(b0.name, path::rotation, {0.0f}, {b0.rotation.begin(), b0.rotation.end()}));
    if (!fold_exact[i] && !ch[i].s && b0.scale != b1.scale)
      replace(make_track(b0.name, path::scale, {0.0f}, {b0.scale.begin(), b0.scale.end()}));
  }

  if (std::none_of(solve.begin(), solve.end(), [](bool x) { return x; })) {
    detail::replace_tracks(a, std::move(added), sk0);
    return 0;
  }

  // Non-uniform folds: solve the affected subtrees frame by frame.
  std::vector<const track*> keyed;
  auto add_keys = [&](std::size_t b) { keyed.insert(keyed.end(), {ch[b].t, ch[b].r, ch[b].s}); };
  for (std::size_t i = 0; i < n; ++i) {
    if (solve[i]) add_keys(i);
    if (seed[i]) add_keys(parent_of(i));  // where the compensated scale comes from
  }
  const auto times = sample_times(a0, keyed);
  residual res;
  const pose rest = rest_pose(sk0);
  // Only the solved bones and their ancestors are sampled (their worlds are the targets).
  std::vector<char> needed(n, 0);
  for (std::size_t i = n; i-- > 0;)
    if (solve[i])
      for (int b = static_cast<int>(i); b >= 0 && !needed[static_cast<std::size_t>(b)];
           b = parent_index(sk0, static_cast<std::size_t>(b)))
        needed[static_cast<std::size_t>(b)] = 1;
  std::vector<std::size_t> sampled_bones, cursors(3 * n, 0);
  for (std::size_t i = 0; i < n; ++i)
    if (needed[i]) sampled_bones.push_back(i);
  frame_solver solver(sk0, solve, affected);
  pose sampled, p;
  // The baked keys of each solved bone (its 3T translation, 4T rotation and 3T scale floats
  // at keys[slot * 10T...]), every one written below: not zero-filled first (6 M
  // instructions on Dog); each track's values are copied out at the end.
  const std::size_t nt = times.size(), per_bone = 10 * nt;
  std::vector<std::size_t> slot(n, 0);
  for (std::size_t s = 0; s < solver.solved.size(); ++s) slot[solver.solved[s]] = s;
  const auto keys = std::make_unique_for_overwrite<float[]>(solver.solved.size() * per_bone);
  auto keys_of = [&](std::size_t i) { return keys.get() + slot[i] * per_bone; };
  std::vector<std::size_t> all_bones;
  std::size_t wi = 0;  // into cache->wanted
  if (cache) {
    for (std::size_t i = 0; i < n; ++i) all_bones.push_back(i);
    cache->bones = n;
    std::size_t shared = 0;  // times in both lists, to size the cache once
    for (std::size_t k = 0, w = 0; k < times.size(); ++k) {
      while (w < cache->wanted.size() && cache->wanted[w] < times[k]) ++w;
      shared += w < cache->wanted.size() && same_bits(cache->wanted[w], times[k]);
    }
    const std::size_t kept = n ? std::min(shared, cache->budget / n) : 0;
    cache->times.reserve(kept), cache->t.reserve(kept * n), cache->r.reserve(kept * n);
    cache->s.reserve(kept * n), cache->world.reserve(kept * n);
    cache->bt.reserve(kept * n), cache->br.reserve(kept * n), cache->bs.reserve(kept * n);
  }
  for (std::size_t k = 0; k < times.size(); ++k) {
    const float tm = times[k];
    bool keep = false;
    if (cache && cache->t.size() + n <= cache->budget) {
      while (wi < cache->wanted.size() && cache->wanted[wi] < tm) ++wi;
      keep = wi < cache->wanted.size() && same_bits(cache->wanted[wi], tm);
    }
    sample_channels(rest, ch, tm, keep ? all_bones : sampled_bones, cursors, sampled);
    p = sampled;
    solver.run(sampled, p, res, keep);
    if (keep) {  // every bone's original local and world (the solver made some already)
      cache->times.push_back(tm);
      cache->t.insert(cache->t.end(), sampled.translation.begin(), sampled.translation.end());
      cache->r.insert(cache->r.end(), sampled.rotation.begin(), sampled.rotation.end());
      cache->s.insert(cache->s.end(), sampled.scale.begin(), sampled.scale.end());
      cache->world.insert(cache->world.end(), solver.world.begin(), solver.world.end());
      cache->bt.insert(cache->bt.end(), p.translation.begin(), p.translation.end());
      cache->br.insert(cache->br.end(), p.rotation.begin(), p.rotation.end());
      cache->bs.insert(cache->bs.end(), p.scale.begin(), p.scale.end());
    }
    for (const std::size_t i : solver.solved) {  // (sized once: each key written in place;
      // element by element: copy_n of 3 or 4 floats was a memmove call each)
      float* tk = keys_of(i) + 3 * k;
      float* rk = keys_of(i) + 3 * nt + 4 * k;
      float* sk = keys_of(i) + 7 * nt + 3 * k;
      for (std::size_t c = 0; c < 3; ++c) tk[c] = p.translation[i][c], sk[c] = p.scale[i][c];
      for (std::size_t c = 0; c < 4; ++c) rk[c] = p.rotation[i][c];
    }
  }
  if (cache) {
    // (a key next to a non-finite one would not sample to itself)
    const bool finite_values = detail::floats_finite({keys.get(), solver.solved.size() * per_bone});
    if (finite_values) {
      cache->solved.assign(n, 0);
      for (std::size_t i = 0; i < n; ++i) cache->solved[i] = solve[i] ? 1 : 0;
    } else {
      cache->bt.clear(), cache->br.clear(), cache->bs.clear();
    }
  }
  for (std::size_t i = 0; i < n; ++i) {
    if (!solve[i]) continue;
    const auto& name = sk0.bones[i].name;
    const float* ki = keys_of(i);
    using floats = std::vector<float>;
    replace(make_track(name, path::translation, times, floats(ki, ki + 3 * nt)));
    replace(make_track(name, path::rotation, times, floats(ki + 3 * nt, ki + 7 * nt)));
    replace(make_track(name, path::scale, times, floats(ki + 7 * nt, ki + 10 * nt)));
  }
  detail::replace_tracks(a, std::move(added), sk0);
  report(diags, "animation '" + a.name + "'", sk0, res, affected);
  return res.error;
}

bake_error measure_clip(const scene& original, std::size_t ai, const skeleton& sb, const animation& b,
                        const original_samples* cache);
bool may_differ(const scene& s, int anim);

// bake_segment_scale_compensate; with `out`, also measure_bake_error(*original, s, i) of every
// animation i, each measured right after its bake from the samples the bake kept (one clip's
// worth of memory at a time). `original`: s as it was (null when there is no `out`).
float bake_all(scene& s, diagnostics& diags, const scene* original, measured_bake* out, std::size_t budget) {
  double worst = 0;
  std::vector<char> measured(s.animations.size(), 0);
  if (out) out->animations.assign(s.animations.size(), bake_error{});
  for (std::size_t si = 0; si < s.skeletons.size(); ++si) {
    skeleton& sk = s.skeletons[si];
    const std::vector<bool> affected = compensating_bones(s, si);
    const bool any = std::find(affected.begin(), affected.end(), true) != affected.end();
    if (any) {
      const skeleton sk0 = sk;
      const std::size_t n = sk.bones.size();
      // Rest pose: exact folds divide the scale, the rest is solved from the rest worlds.
      std::vector<bool> seed(n, false);
      for (std::size_t i = 0; i < n; ++i) {
        if (!affected[i]) continue;
        const vec3& ps = sk0.bones[static_cast<std::size_t>(sk0.bones[i].parent)].scale;
        if (uniform(ps.data())) sk.bones[i].scale = mul3(sk0.bones[i].scale, compensation(ps));
        else seed[i] = true;
      }
      const std::vector<bool> solve = with_descendants(sk0, seed);
      if (std::find(solve.begin(), solve.end(), true) != solve.end()) {
        pose p = rest_pose(sk0);
        residual res;
        solve_locals(sk0, world_matrices(sk0), solve, p, res);
        for (std::size_t i = 0; i < n; ++i) {
          if (!solve[i]) continue;
          sk.bones[i].translation = p.translation[i];
          sk.bones[i].rotation = p.rotation[i];
          sk.bones[i].scale = p.scale[i];
        }
        report(diags, "rest pose of skeleton '" + sk0.name + "'", sk0, res, affected);
        worst = std::max(worst, res.error);
      }
      // The skeleton as it ends (nothing below changes it but the flags cleared last), for
      // measuring each clip as soon as it is baked.
      skeleton baked_sk;
      if (out) {
        baked_sk = sk;
        for (auto& b : baked_sk.bones) b.segment_scale_compensate = false;
      }
      for (std::size_t ai = 0; ai < s.animations.size(); ++ai) {
        animation& a = s.animations[ai];
        if (a.skeleton < 0 || static_cast<std::size_t>(a.skeleton) != si) continue;
        if (!out) {
          const animation a0 = a;
          worst = std::max(worst, bake_animation(sk0, sk, a0, a, affected, diags, nullptr));
          continue;
        }
        const animation& a0 = original->animations[ai];  // a as it was
        const bool measure = may_differ(*original, static_cast<int>(ai));
        original_samples cache;
        if (measure && sorted_keys(a0)) cache.wanted = measure_times(a0), cache.budget = budget;
        worst = std::max(worst, bake_animation(sk0, sk, a0, a, affected, diags,
                                               cache.wanted.empty() ? nullptr : &cache));
        if (measure) out->animations[ai] = measure_clip(*original, ai, baked_sk, a, &cache);
        measured[ai] = 1;
      }
    }
    for (auto& b : sk.bones) b.segment_scale_compensate = false;
  }
  if (out) {
    for (std::size_t ai = 0; ai < s.animations.size(); ++ai)
      if (!measured[ai]) out->animations[ai] = measure_bake_error(*original, s, static_cast<int>(ai));
    out->rest = measure_bake_error(*original, s, -1);
    out->worst = static_cast<float>(worst);
  }
  return static_cast<float>(worst);
}
}  // namespace

float bake_segment_scale_compensate(scene& s, diagnostics& diags) {
  return bake_all(s, diags, nullptr, nullptr, 0);
}

measured_bake bake_and_measure(scene& s, diagnostics& diags) {
  // 2^16 bone samples (about 7 MB) cover every clip of the sample files; longer clips are
  // measured partly from their own samples.
  return detail::bake_and_measure(s, diags, std::size_t{1} << 16);
}

namespace detail {
measured_bake bake_and_measure(scene& s, diagnostics& diags, std::size_t budget, bool plain) {
  const scene original = s;
  measured_bake out;
  measure_plain = plain;
  (void)bake_all(s, diags, &original, &out, budget);
  measure_plain = false;
  return out;
}
}  // namespace detail

}  // namespace rigrip::scene_ops

namespace rigrip::scene_ops {
namespace {
// Largest position difference and smallest cosine between the images of each local axis
// over the bones in `bones` (all when null). The angle is made from the smallest cosine once
// at the end: acos is decreasing, so that is the largest angle, the same double.
void accumulate(const std::vector<mat4>& a, const std::vector<mat4>& b,
                const std::vector<std::size_t>* bones, bake_error& e, double& min_cos) {
  const std::size_t count = bones ? bones->size() : std::min(a.size(), b.size());
  for (std::size_t k = 0; k < count; ++k) {
    const std::size_t i = bones ? (*bones)[k] : k;
    if (i >= a.size() || i >= b.size()) continue;
    detail::accumulate_pair(a[i], b[i], e.position, min_cos);
  }
}

void finish(bake_error& e, double min_cos) {
  if (min_cos <= 1.0)
    e.degrees = std::max(e.degrees, std::acos(min_cos) * 180.0 / 3.14159265358979323846);
}

bool same_track(const track* x, const track* y) {
  if (!x || !y) return x == y;
  return x->interpolation == y->interpolation && x->path == y->path && x->times == y->times &&
         x->values == y->values;
}

// The bake is exact (nothing to measure) unless the parent of a compensating bone has a
// non-uniform scale: in the rest pose, or (anim >= 0) in any key or tangent of that clip.
bool may_differ(const scene& s, int anim) {
  for (const auto& sk : s.skeletons) {
    std::vector<char> parent_of_ssc(sk.bones.size(), 0);
    bool any = false;
    for (const auto& b : sk.bones)
      if (b.segment_scale_compensate && b.parent >= 0 && static_cast<std::size_t>(b.parent) < sk.bones.size())
        parent_of_ssc[static_cast<std::size_t>(b.parent)] = 1, any = true;
    if (!any) continue;
    for (std::size_t i = 0; i < sk.bones.size(); ++i)
      if (parent_of_ssc[i] && !uniform(sk.bones[i].scale.data())) return true;
  }
  if (anim < 0 || static_cast<std::size_t>(anim) >= s.animations.size()) return false;
  const animation& a = s.animations[static_cast<std::size_t>(anim)];
  if (a.skeleton < 0 || static_cast<std::size_t>(a.skeleton) >= s.skeletons.size()) return false;
  const skeleton& sk = s.skeletons[static_cast<std::size_t>(a.skeleton)];
  for (const auto& t : a.tracks) {
    if (t.path != path::scale) continue;
    const int bi = sk.find(t.bone);
    if (bi < 0) continue;
    bool parent_of_ssc = false;
    for (const auto& b : sk.bones) parent_of_ssc = parent_of_ssc || (b.segment_scale_compensate && b.parent == bi);
    if (!parent_of_ssc) continue;
    if (!uniform(t)) return true;
  }
  return false;
}
}  // namespace

bake_error measure_bake_error(const scene& original, const scene& baked, int anim) {
  bake_error e;
  if (!may_differ(original, anim)) return e;  // exact by construction: skip the sampling
  double min_cos = 2;
  if (anim < 0) {
    for (std::size_t si = 0; si < original.skeletons.size() && si < baked.skeletons.size(); ++si)
      accumulate(world_matrices(original.skeletons[si]), world_matrices(baked.skeletons[si]),
                 nullptr, e, min_cos);
    finish(e, min_cos);
    return e;
  }
  const auto ai = static_cast<std::size_t>(anim);
  if (ai >= original.animations.size() || ai >= baked.animations.size()) return e;
  const animation& a = original.animations[ai];
  if (a.skeleton < 0 || static_cast<std::size_t>(a.skeleton) >= original.skeletons.size()) return e;
  return measure_clip(original, ai, baked.skeletons[static_cast<std::size_t>(a.skeleton)],
                      baked.animations[ai], nullptr);
}

namespace {
#if defined(__SSE2__)
// The cosine step of accumulate_pair_scalar for two columns at once, one per double lane:
// nx, ny and dx summed row by row from 0 in its order, the same cut, quotient and clamp
// (maxpd(-1, v) then minpd(1, .) is std::clamp, NaN v kept). A collapsed column's cosine
// becomes a NaN (all bits set), which minsd(c, m) skips as std::min(m, c) skips a NaN.
[[gnu::always_inline]] inline __m128d axis_cosines(__m128 xa, __m128 xb, __m128 ya, __m128 yb) {
  const __m128 xl = _mm_unpacklo_ps(xa, xb), xh = _mm_unpackhi_ps(xa, xb);  // rows 0, 1 | 2
  const __m128 yl = _mm_unpacklo_ps(ya, yb), yh = _mm_unpackhi_ps(ya, yb);
  const __m128d x0 = _mm_cvtps_pd(xl), x1 = _mm_cvtps_pd(_mm_movehl_ps(xl, xl)), x2 = _mm_cvtps_pd(xh);
  const __m128d y0 = _mm_cvtps_pd(yl), y1 = _mm_cvtps_pd(_mm_movehl_ps(yl, yl)), y2 = _mm_cvtps_pd(yh);
  const __m128d zero = _mm_setzero_pd();
  __m128d dx = _mm_add_pd(zero, _mm_mul_pd(x0, y0));
  __m128d nx = _mm_add_pd(zero, _mm_mul_pd(x0, x0));
  __m128d ny = _mm_add_pd(zero, _mm_mul_pd(y0, y0));
  dx = _mm_add_pd(dx, _mm_mul_pd(x1, y1)), nx = _mm_add_pd(nx, _mm_mul_pd(x1, x1)), ny = _mm_add_pd(ny, _mm_mul_pd(y1, y1));
  dx = _mm_add_pd(dx, _mm_mul_pd(x2, y2)), nx = _mm_add_pd(nx, _mm_mul_pd(x2, x2)), ny = _mm_add_pd(ny, _mm_mul_pd(y2, y2));
  const __m128d cut = _mm_set1_pd(1e-20);
  const __m128d collapsed = _mm_or_pd(_mm_cmplt_pd(nx, cut), _mm_cmplt_pd(ny, cut));
  __m128d cosine = _mm_div_pd(dx, _mm_sqrt_pd(_mm_mul_pd(nx, ny)));
  cosine = _mm_min_pd(_mm_set1_pd(1.0), _mm_max_pd(_mm_set1_pd(-1.0), cosine));
  return _mm_or_pd(cosine, collapsed);
}
// accumulate_pair_scalar's operations in its order: the largest position difference row by
// row (maxsd(v, m) is std::max(m, v), NaN v included), then the smallest cosine of columns
// 0, 1 and 2 in turn. Columns 0 and 1 share their lanes, column 2 pairs with column 3, whose
// lane is not used.
[[gnu::always_inline]] inline void accumulate_pair_sse2(const mat4& x, const mat4& y, double& position, double& min_cos) {
  const __m128 d = _mm_sub_ps(_mm_loadu_ps(x.data() + 12), _mm_loadu_ps(y.data() + 12));
  const __m128 ad = _mm_and_ps(d, _mm_castsi128_ps(_mm_set1_epi32(0x7fffffff)));
  const __m128d a01 = _mm_cvtps_pd(ad), a2 = _mm_cvtps_pd(_mm_movehl_ps(ad, ad));
  __m128d pos = _mm_set_sd(position);
  pos = _mm_max_sd(a01, pos);
  pos = _mm_max_sd(_mm_unpackhi_pd(a01, a01), pos);
  position = _mm_cvtsd_f64(_mm_max_sd(a2, pos));
  const __m128d c01 = axis_cosines(_mm_loadu_ps(x.data()), _mm_loadu_ps(x.data() + 4), _mm_loadu_ps(y.data()),
                                   _mm_loadu_ps(y.data() + 4));
  const __m128d c23 = axis_cosines(_mm_loadu_ps(x.data() + 8), _mm_loadu_ps(x.data() + 12), _mm_loadu_ps(y.data() + 8),
                                   _mm_loadu_ps(y.data() + 12));
  __m128d m = _mm_min_sd(c01, _mm_set_sd(min_cos));
  m = _mm_min_sd(_mm_unpackhi_pd(c01, c01), m);
  min_cos = _mm_cvtsd_f64(_mm_min_sd(c23, m));
}
#endif

// measure_bake_error of clip `ai` (its skeleton index checked) against the baked skeleton
// `sb` and clip `b`, after may_differ. At a time `cache` holds, the original locals and
// worlds are taken from it instead of sampled again (the same floats: the same tracks
// sampled at the same time, the same bone_world calls).
bake_error measure_clip(const scene& original, std::size_t ai, const skeleton& sb, const animation& b,
                        const original_samples* cache) {
  bake_error e;
  double min_cos = 2;
  const animation& a = original.animations[ai];
  const skeleton& sa = original.skeletons[static_cast<std::size_t>(a.skeleton)];
  // (the bake made the same list from the same clip when it kept samples)
  const bool reuse = cache && !cache->wanted.empty();
  const std::vector<float> own = reuse ? std::vector<float>{} : measure_times(a);
  const std::vector<float>& times = reuse ? cache->wanted : own;
  // (sample_pose per time, with the bone lookup, rest pose and matrices made once)
  const auto cha = tracks_by_bone(sa, a), chb = tracks_by_bone(sb, b);
  const pose resta = rest_pose(sa), restb = rest_pose(sb);
  // A bone with the same parent, rest local and tracks in both, no compensation and an
  // ancestry that is the same too has bit-identical worlds (the same floats through the same
  // operations): it adds 0 to both maxima (sqrt(x * x) == x), so it is not sampled.
  const std::size_t n = std::min(sa.bones.size(), sb.bones.size());
  std::vector<char> differs(n, 0), needed(n, 0);
  for (std::size_t i = 0; i < n; ++i) {
    const bone& x = sa.bones[i];
    const bone& y = sb.bones[i];
    const int par = parent_index(sa, i);
    differs[i] = x.parent != y.parent || x.segment_scale_compensate != y.segment_scale_compensate ||
                 (x.segment_scale_compensate && par >= 0) || x.translation != y.translation ||
                 x.rotation != y.rotation || x.scale != y.scale ||
                 !same_track(cha[i].t, chb[i].t) || !same_track(cha[i].r, chb[i].r) ||
                 !same_track(cha[i].s, chb[i].s) ||
                 (par >= 0 && differs[static_cast<std::size_t>(par)]);
  }
  std::vector<std::size_t> measured, sampled;
  for (std::size_t i = n; i-- > 0;)
    if (differs[i])
      for (int k = static_cast<int>(i); k >= 0 && !needed[static_cast<std::size_t>(k)];
           k = parent_index(sa, static_cast<std::size_t>(k)))
        needed[static_cast<std::size_t>(k)] = 1;
  for (std::size_t i = 0; i < n; ++i) {
    if (differs[i]) measured.push_back(i);
    if (needed[i]) sampled.push_back(i);
  }
  if (sa.bones.size() != sb.bones.size()) {  // not a bake of this skeleton: measure everything
    measured.clear(), sampled.clear();
    for (std::size_t i = 0; i < n; ++i) measured.push_back(i), sampled.push_back(i);
  }
  // Channels the bake left alone sample to the same floats in both: sampled once.
  std::vector<std::size_t> only_b;  // bones with a channel of b's own
  std::vector<std::array<char, 3>> same(n, {0, 0, 0});
  for (const std::size_t i : sampled) {
    const bone& x = sa.bones[i];
    const bone& y = sb.bones[i];
    same[i] = {static_cast<char>(x.translation == y.translation && same_track(cha[i].t, chb[i].t)),
               static_cast<char>(x.rotation == y.rotation && same_track(cha[i].r, chb[i].r)),
               static_cast<char>(x.scale == y.scale && same_track(cha[i].s, chb[i].s))};
    if (!same[i][0] || !same[i][1] || !same[i][2]) only_b.push_back(i);
  }
  // A bone that compensates in a only, with the same locals and parent in both: while its
  // parent's scale is exactly 1 and its parents' worlds are the same in both, a's
  // W_p * T(t) * S(1) * R * S and b's W_p * (T(t) * R * S) agree up to the signs of zeros when
  // a's is finite (S(1) is the identity, every other term is the same product; a's being
  // finite makes W_p and T(t) finite). Such worlds add nothing to either maximum, and the
  // bones below see no difference (sums and products of them only move the signs of zeros),
  // so b's world is taken as a's, and the pair is not measured (bits as measuring it).
  std::vector<char> twin(n, 0);
  if (!measure_plain && sb.bones.size() == n)
    for (const std::size_t i : measured)
      twin[i] = sa.bones[i].segment_scale_compensate && !sb.bones[i].segment_scale_compensate &&
                sa.bones[i].parent == sb.bones[i].parent && parent_index(sa, i) >= 0 && same[i][0] &&
                same[i][1] && same[i][2];
  pose pa, pb;
  std::vector<std::size_t> cura(3 * sa.bones.size(), 0), curb(3 * sb.bones.size(), 0);
  std::vector<mat4> wa(n), wb(n);
  // Each bone's worlds at t: the cache's, or wa/wb (also a bone never sampled, whose world
  // stays the zeros a parent index of b's own may reach), or (b) a's.
  std::vector<const mat4*> xa(n), xb(n);
  for (std::size_t i = 0; i < n; ++i) xa[i] = &wa[i], xb[i] = &wb[i];
  const bool cached = cache && cache->bones == sa.bones.size() && !cache->times.empty();
  // At a kept time, a bone the bake solved takes its baked locals from the cache: the values
  // its tracks hold at that key, which sampling there gives back (a rotation up to the
  // rounding of slerp at 0, which divides sin(angle) * q by sin(angle)).
  const bool baked_kept = cached && sb.bones.size() == n && cache->solved.size() == n &&
                          cache->bt.size() == cache->t.size();
  std::vector<std::size_t> from_cache, rest_b;  // only_b split by that
  for (const std::size_t i : only_b) (baked_kept && cache->solved[i] ? from_cache : rest_b).push_back(i);
  // b's locals are read only by bone_world(sb, pb, i): for a bone that differs (the others
  // take a's world) and, compensating in b, its parent's scale. The channels copied from a
  // and those taken from the cache, listed per channel (t, r, s) up front. (measure_plain,
  // the tests' reference, copies every sampled bone's.)
  std::vector<char> read_b(n, 0);
  for (const std::size_t i : sampled)
    if (differs[i] || measure_plain) {
      read_b[i] = 1;
      const int pbi = parent_index(sb, i);
      if (pbi >= 0 && sb.bones[i].segment_scale_compensate) read_b[static_cast<std::size_t>(pbi)] = 1;
    }
  std::array<std::vector<std::size_t>, 3> copy_a, take_cache;
  for (const std::size_t i : sampled)
    for (std::size_t k = 0; k < 3; ++k)
      if (read_b[i] && same[i][k]) copy_a[k].push_back(i);
  for (const std::size_t i : from_cache)
    for (std::size_t k = 0; k < 3; ++k)
      if (!same[i][k]) take_cache[k].push_back(i);
  std::vector<int> par_a(n), par_b(n);  // parent_index of each, looked up once
  for (std::size_t i = 0; i < n; ++i) par_a[i] = parent_index(sa, i), par_b[i] = parent_index(sb, i);
  std::size_t ci = 0;  // into cache->times
  for (float t : times) {
    const vec3 *ta = nullptr, *sca = nullptr;  // a's locals at t: sampled, or the bake's
    const quat* ra = nullptr;
    const mat4* cw = nullptr;  // a's worlds at t when the bake kept them
    if (cached) {
      while (ci < cache->times.size() && cache->times[ci] < t) ++ci;
      if (ci < cache->times.size() && same_bits(cache->times[ci], t)) {
        const std::size_t base = ci * cache->bones;
        ta = &cache->t[base], ra = &cache->r[base], sca = &cache->s[base], cw = &cache->world[base];
      }
    }
    if (!cw) {
      sample_channels(resta, cha, t, sampled, cura, pa);
      ta = pa.translation.data(), ra = pa.rotation.data(), sca = pa.scale.data();
    }
    if (pb.translation.size() != sb.bones.size()) pb = restb;
    for (const std::size_t i : copy_a[0]) pb.translation[i] = ta[i];
    for (const std::size_t i : copy_a[1]) pb.rotation[i] = ra[i];
    for (const std::size_t i : copy_a[2]) pb.scale[i] = sca[i];
    if (cw && baked_kept) {
      const std::size_t base = ci * cache->bones;
      for (const std::size_t i : take_cache[0]) pb.translation[i] = cache->bt[base + i];
      // (sample_channels normalises a sampled rotation)
      for (const std::size_t i : take_cache[1]) pb.rotation[i] = normalize(cache->br[base + i]);
      for (const std::size_t i : take_cache[2]) pb.scale[i] = cache->bs[base + i];
      sample_channels(restb, chb, t, rest_b, curb, pb, &same);
    } else {
      sample_channels(restb, chb, t, only_b, curb, pb, &same);
    }
    for (const std::size_t i : sampled) {
      const int par = par_a[i];
      const int pbi = par_b[i];
      if (cw) {
        xa[i] = &cw[i];
      } else {
        wa[i] = bone_world(sa, pa, i, par >= 0 ? *xa[static_cast<std::size_t>(par)] : wa[i]);
        xa[i] = &wa[i];
      }
      // Not `differs`: the same locals (same[i] all set), parent and flag, and a parent world
      // that is the same too, so bone_world would make the same floats again.
      if (!differs[i]) {
        xb[i] = xa[i];
      } else if (twin[i] && xb[static_cast<std::size_t>(par)] == xa[static_cast<std::size_t>(par)] &&
                 sca[par][0] == 1.0f && sca[par][1] == 1.0f && sca[par][2] == 1.0f && detail::all_finite(*xa[i])) {
        xb[i] = xa[i];
      } else {
        wb[i] = bone_world(sb, pb, i, pbi >= 0 ? *xb[static_cast<std::size_t>(pbi)] : wb[i]);
        xb[i] = &wb[i];
      }
    }
    for (const std::size_t i : measured)
      if (xa[i] != xb[i]) {
#if defined(__SSE2__)
        accumulate_pair_sse2(*xa[i], *xb[i], e.position, min_cos);
#else
        detail::accumulate_pair(*xa[i], *xb[i], e.position, min_cos);
#endif
      }
  }
  finish(e, min_cos);
  return e;
}
}  // namespace


namespace detail {
void accumulate_pair_scalar(const mat4& x, const mat4& y, double& position, double& min_cos) {
  for (std::size_t r = 0; r < 3; ++r)
    position = std::max(position, static_cast<double>(std::fabs(x[12 + r] - y[12 + r])));
  for (std::size_t c = 0; c < 3; ++c) {  // angle between the images of each local axis
    double dx = 0, nx = 0, ny = 0;
    for (std::size_t r = 0; r < 3; ++r) {
      const double u = x[c * 4 + r], v = y[c * 4 + r];
      dx += u * v, nx += u * u, ny += v * v;
    }
    if (nx < 1e-20 || ny < 1e-20) continue;  // a collapsed axis has no direction
    min_cos = std::min(min_cos, std::clamp(dx / std::sqrt(nx * ny), -1.0, 1.0));
  }
}

#if defined(__SSE2__)
void accumulate_pair(const mat4& x, const mat4& y, double& position, double& min_cos) {
  accumulate_pair_sse2(x, y, position, min_cos);
}
#else
void accumulate_pair(const mat4& x, const mat4& y, double& position, double& min_cos) {
  accumulate_pair_scalar(x, y, position, min_cos);
}
#endif

bool all_finite_scalar(const mat4& m) { return core::all_finite(m); }
#if defined(__SSE2__)
// x * 0 is 0 for a finite x and NaN for ±inf and NaN, and NaN stays NaN through the sums.
bool all_finite(const mat4& m) {
  const __m128 zero = _mm_setzero_ps();
  const __m128 a = _mm_add_ps(_mm_mul_ps(_mm_loadu_ps(m.data()), zero), _mm_mul_ps(_mm_loadu_ps(m.data() + 4), zero));
  const __m128 b = _mm_add_ps(_mm_mul_ps(_mm_loadu_ps(m.data() + 8), zero), _mm_mul_ps(_mm_loadu_ps(m.data() + 12), zero));
  const __m128 sum = _mm_add_ps(a, b);
  return _mm_movemask_ps(_mm_cmpunord_ps(sum, sum)) == 0;
}
#else
bool all_finite(const mat4& m) { return all_finite_scalar(m); }
#endif

bool polar_rotation(const double a[3][3], double r[3][3]) { return scene_ops::polar_rotation(a, r); }
bool polar_rotation_plain(const double a[3][3], double r[3][3]) { return scene_ops::polar_rotation_plain(a, r); }

bake_error measure_bake_error_plain(const scene& original, const scene& baked, int anim) {
  measure_plain = true;
  const bake_error e = measure_bake_error(original, baked, anim);
  measure_plain = false;
  return e;
}

float bake_reference(scene& s, diagnostics& diags) {
  reference_only = true;
  const float e = bake_segment_scale_compensate(s, diags);
  reference_only = false;
  return e;
}
}  // namespace detail
}  // namespace rigrip::scene_ops
