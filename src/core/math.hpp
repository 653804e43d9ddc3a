// Quaternion, Euler and matrix helpers shared by every family, on top of glm. Knows no
// scene: pose sampling and world matrices of a skeleton are in scene/pose.hpp.
// Quaternions in the scene model are (x, y, z, w).
#pragma once

#include <array>
#include <cmath>
#include <string_view>
#include <vector>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "rigrip/types.hpp"

namespace rigrip::core {

using mat4 = std::array<float, 16>;  // column-major, as glTF

// normalize, multiply, dot and compose are defined below, inline: they run per bone and
// frame in the sampling and SSC loops, where a call costs as much as the arithmetic.
[[nodiscard]] inline quat normalize(quat q);
[[nodiscard]] inline quat multiply(const quat& a, const quat& b);  // a * b (apply b first)
[[nodiscard]] quat conjugate(const quat& q);
[[nodiscard]] vec3 rotate(const quat& q, const vec3& v);
[[nodiscard]] inline float dot(const quat& a, const quat& b);
[[nodiscard]] quat slerp(const quat& a, quat b, float t);
[[nodiscard]] quat axis_angle(const vec3& axis, float radians);
// The unit quaternion of a rotation matrix given as r[row][column].
[[nodiscard]] quat from_rotation_matrix(const double r[3][3]);
// Euler angles (radians) composed in `order`, which lists the axes in the order they are
// applied: "XYZ" means R = Rz * Ry * Rx (X applied first; BFRES), "ZXY" means
// R = Ry * Rx * Rz (Z applied first; FF7's battle skeleton).
[[nodiscard]] quat from_euler(const vec3& radians, std::string_view order_first_to_last);
[[nodiscard]] bool finite(const quat& q);
[[nodiscard]] bool finite(const vec3& v);
// Flips signs so consecutive quaternions lie in one hemisphere (4 floats per key).
void make_hemisphere_continuous(std::vector<float>& xyzw_values, std::size_t stride_keys = 1);
// The key-by-key loop the four-keys-a-step SSE2 form is tested against (the same floats).
void make_hemisphere_continuous_scalar(std::vector<float>& xyzw_values, std::size_t stride_keys);

[[nodiscard]] inline mat4 compose(const vec3& t, const quat& r, const vec3& s);  // T * R * S
[[nodiscard]] inline mat4 multiply(const mat4& a, const mat4& b);
// The portable forms of compose and multiply (what the SSE2 ones are tested against).
[[nodiscard]] inline mat4 compose_scalar(const vec3& t, const quat& r, const vec3& s);
[[nodiscard]] inline mat4 multiply_scalar(const mat4& a, const mat4& b);
[[nodiscard]] mat4 inverse(const mat4& m);
[[nodiscard]] mat4 identity();
inline constexpr float pi = 3.14159265358979323846f;

// Whether every float of a range (an array, a vector) is finite.
template <class Floats>
[[nodiscard]] bool all_finite(const Floats& a) {
  for (const float f : a)
    if (!std::isfinite(f)) return false;
  return true;
}

inline quat normalize(quat q) {
  float n = std::sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
  if (!(n > 1e-12f) || !std::isfinite(n)) return {0, 0, 0, 1};
  for (auto& c : q) c /= n;
  return q;
}
// glm's quaternion product (qua::operator*=), term for term in its order: the same floats.
inline quat multiply(const quat& p, const quat& q) {
  return {p[3] * q[0] + p[0] * q[3] + p[1] * q[2] - p[2] * q[1],
          p[3] * q[1] + p[1] * q[3] + p[2] * q[0] - p[0] * q[2],
          p[3] * q[2] + p[2] * q[3] + p[0] * q[1] - p[1] * q[0],
          p[3] * q[3] - p[0] * q[0] - p[1] * q[1] - p[2] * q[2]};
}
inline float dot(const quat& a, const quat& b) {
  return a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3];
}
// T * R * S written out (the products glm forms with identity and diagonal matrices, term
// for term, without them): the hot path of every pose evaluation and SSC bake, which glm's
// unoptimised templates made the slowest part of a Debug build.
inline mat4 compose_scalar(const vec3& t, const quat& r, const vec3& s) {
  const quat q = normalize(r);
  const float x = q[0], y = q[1], z = q[2], w = q[3];
  const float xx = x * x, yy = y * y, zz = z * z, xz = x * z, xy = x * y, yz = y * z;
  const float wx = w * x, wy = w * y, wz = w * z;
  const float rot[3][3] = {{1.0f - 2.0f * (yy + zz), 2.0f * (xy + wz), 2.0f * (xz - wy)},
                           {2.0f * (xy - wz), 1.0f - 2.0f * (xx + zz), 2.0f * (yz + wx)},
                           {2.0f * (xz + wy), 2.0f * (yz - wx), 1.0f - 2.0f * (xx + yy)}};
  mat4 m{};
  for (std::size_t c = 0; c < 3; ++c)
    for (std::size_t row = 0; row < 3; ++row) m[c * 4 + row] = rot[c][row] * s[c];
  m[12] = t[0], m[13] = t[1], m[14] = t[2], m[15] = 1.0f;
  return m;
}
inline mat4 multiply_scalar(const mat4& a, const mat4& b) {  // column-major, summed in glm's order
  mat4 m{};
  for (std::size_t c = 0; c < 4; ++c)
    for (std::size_t row = 0; row < 4; ++row)
      m[c * 4 + row] = a[row] * b[c * 4] + a[4 + row] * b[c * 4 + 1] + a[8 + row] * b[c * 4 + 2] +
                       a[12 + row] * b[c * 4 + 3];
  return m;
}

#if defined(__SSE2__)
// The same formulas four rows a step: each lane makes its element with the scalar form's
// operations in its order (products of a broadcast entry, sums left to right), and there are
// no fused multiply-adds (-ffp-contract=off), so the floats are the same bits. bone_world
// chains them in registers; a matrix goes through memory only at its ends.
namespace simd {
struct cols {  // a mat4's four columns
  __m128 c[4];
};
inline cols load(const mat4& m) {
  return {{_mm_loadu_ps(m.data()), _mm_loadu_ps(m.data() + 4), _mm_loadu_ps(m.data() + 8),
           _mm_loadu_ps(m.data() + 12)}};
}
inline void store(const cols& x, mat4& m) {
  for (std::size_t c = 0; c < 4; ++c) _mm_storeu_ps(m.data() + 4 * c, x.c[c]);
}
template <int k>
inline __m128 lane(__m128 v) {  // lane k in all four
  return _mm_shuffle_ps(v, v, _MM_SHUFFLE(k, k, k, k));
}
// (t, 1): compose's last column.
inline __m128 point(const vec3& t) { return _mm_setr_ps(t[0], t[1], t[2], 1.0f); }
// normalize(r) (core::normalize's sum, square root, tests and quotients).
inline __m128 normalized(const quat& r) {
  const __m128 q = _mm_loadu_ps(r.data());
  const __m128 sq = _mm_mul_ps(q, q);
  __m128 n = _mm_add_ss(sq, lane<1>(sq));  // ((x*x + y*y) + z*z) + w*w
  n = _mm_add_ss(n, _mm_movehl_ps(sq, sq));
  n = _mm_sqrt_ss(_mm_add_ss(n, lane<3>(sq)));
  const float nf = _mm_cvtss_f32(n);
  if (!(nf > 1e-12f) || !std::isfinite(nf)) return _mm_setr_ps(0, 0, 0, 1);
  return _mm_div_ps(q, lane<0>(n));
}
// compose(t, r, s) as columns, from the normalised rotation q. Lane 3 of columns 0..2 is left
// unset (compose makes it 0): multiply_affine never reads it, store_compose clears it.
inline cols compose_cols(__m128 t1, __m128 q, const vec3& s) {
  const __m128 two = _mm_set1_ps(2.0f);
  const __m128 sq = _mm_mul_ps(q, q);                                                  // xx yy zz
  const __m128 cross = _mm_mul_ps(q, _mm_shuffle_ps(q, q, _MM_SHUFFLE(3, 0, 2, 1)));    // xy yz zx
  const __m128 wq = _mm_mul_ps(lane<3>(q), _mm_shuffle_ps(q, q, _MM_SHUFFLE(3, 1, 0, 2)));  // wz wx wy
  const __m128 p = _mm_mul_ps(two, _mm_add_ps(cross, wq));  // 2(xy + wz), 2(yz + wx), 2(xz + wy)
  const __m128 m = _mm_mul_ps(two, _mm_sub_ps(cross, wq));  // 2(xy - wz), 2(yz - wx), 2(xz - wy)
  const __m128 d = _mm_add_ps(_mm_shuffle_ps(sq, sq, _MM_SHUFFLE(3, 0, 0, 1)),      // yy xx xx
                              _mm_shuffle_ps(sq, sq, _MM_SHUFFLE(3, 1, 2, 2)));     // + zz zz yy
  const __m128 g = _mm_sub_ps(_mm_set1_ps(1.0f), _mm_mul_ps(two, d));  // the diagonal
  const __m128 gp = _mm_unpacklo_ps(g, p), mg = _mm_unpacklo_ps(m, g);
  const __m128 pm = _mm_shuffle_ps(p, m, _MM_SHUFFLE(1, 1, 2, 2));
  const __m128 r0 = _mm_shuffle_ps(gp, m, _MM_SHUFFLE(3, 2, 1, 0));  // g0 p0 m2
  const __m128 r1 = _mm_shuffle_ps(mg, p, _MM_SHUFFLE(3, 1, 3, 0));  // m0 g1 p1
  const __m128 r2 = _mm_shuffle_ps(pm, g, _MM_SHUFFLE(3, 2, 2, 0));  // p2 m1 g2
  return {{_mm_mul_ps(r0, _mm_set1_ps(s[0])), _mm_mul_ps(r1, _mm_set1_ps(s[1])),
           _mm_mul_ps(r2, _mm_set1_ps(s[2])), t1}};
}
// a * b where b's last row is (0, 0, 0, 1) (compose's; lane 3 of b's columns 0..2 is not read):
// the a_col3 * 0 and a_col3 * 1 terms are still formed, for the signs of zeros and NaN.
inline cols multiply_affine(const cols& a, const cols& b) {
  const __m128 a3_0 = _mm_mul_ps(a.c[3], _mm_setzero_ps());
  cols m;
  for (std::size_t c = 0; c < 3; ++c) {
    const __m128 bc = b.c[c];
    __m128 v = _mm_add_ps(_mm_mul_ps(a.c[0], lane<0>(bc)), _mm_mul_ps(a.c[1], lane<1>(bc)));
    v = _mm_add_ps(v, _mm_mul_ps(a.c[2], lane<2>(bc)));
    m.c[c] = _mm_add_ps(v, a3_0);
  }
  const __m128 bt = b.c[3];
  __m128 v = _mm_add_ps(_mm_mul_ps(a.c[0], lane<0>(bt)), _mm_mul_ps(a.c[1], lane<1>(bt)));
  v = _mm_add_ps(v, _mm_mul_ps(a.c[2], lane<2>(bt)));
  m.c[3] = _mm_add_ps(v, _mm_mul_ps(a.c[3], _mm_set1_ps(1.0f)));
  return m;
}
inline cols multiply(const cols& a, const cols& b) {
  cols m;
  for (std::size_t c = 0; c < 4; ++c) {
    const __m128 bc = b.c[c];
    __m128 v = _mm_add_ps(_mm_mul_ps(a.c[0], lane<0>(bc)), _mm_mul_ps(a.c[1], lane<1>(bc)));
    v = _mm_add_ps(v, _mm_mul_ps(a.c[2], lane<2>(bc)));
    m.c[c] = _mm_add_ps(v, _mm_mul_ps(a.c[3], lane<3>(bc)));
  }
  return m;
}
// compose's columns stored, with the zeros of its last row.
inline void store_compose(const cols& x, mat4& m) {
  const __m128 xyz = _mm_castsi128_ps(_mm_setr_epi32(-1, -1, -1, 0));
  for (std::size_t c = 0; c < 3; ++c) _mm_storeu_ps(m.data() + 4 * c, _mm_and_ps(x.c[c], xyz));
  _mm_storeu_ps(m.data() + 12, x.c[3]);
}
}  // namespace simd

inline mat4 compose(const vec3& t, const quat& r, const vec3& s) {
  mat4 m;
  simd::store_compose(simd::compose_cols(simd::point(t), simd::normalized(r), s), m);
  return m;
}
inline mat4 multiply(const mat4& a, const mat4& b) {
  mat4 m;
  simd::store(simd::multiply(simd::load(a), simd::load(b)), m);
  return m;
}
#else
inline mat4 compose(const vec3& t, const quat& r, const vec3& s) { return compose_scalar(t, r, s); }
inline mat4 multiply(const mat4& a, const mat4& b) { return multiply_scalar(a, b); }
#endif

}  // namespace rigrip::core
