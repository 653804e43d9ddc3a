// The game's Euler convention: R = Ry * Rx * Rz, angles in degrees or 1/4096 turns.
#include "formats/ff7/euler.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>

#if defined(__SSE2__) || defined(_M_X64)
#include <emmintrin.h>
#define RIGRIP_FF7_SSE 1
#endif

#include "core/math.hpp"

namespace rigrip::ff7 {

quat euler_yxz_degrees(float x, float y, float z) {
  const float k = core::pi / 180.0f;
  auto qx = core::axis_angle({1, 0, 0}, x * k);
  auto qy = core::axis_angle({0, 1, 0}, y * k);
  auto qz = core::axis_angle({0, 0, 1}, z * k);
  return core::normalize(core::multiply(core::multiply(qy, qx), qz));
}

namespace {
constexpr int turn = 4096;  // raw angles are 1/4096 turns

// v mod 4096 in [0, 4096): the low 12 bits of the two's-complement value.
[[nodiscard]] std::size_t raw_index(std::int16_t v) {
  return static_cast<std::size_t>(static_cast<std::uint16_t>(v) & (turn - 1));
}

// Each axis's rotation for all 4096 raw angles, built once by the same calls as
// euler_yxz_degrees (degrees, then radians, then axis_angle), so a lookup gives the same
// floats: the three sines and cosines per bone and frame were most of the DA decode.
struct axis_tables {
  std::array<std::array<quat, turn>, 3> q{};
  axis_tables() {
    const float k = core::pi / 180.0f;
    for (int i = 0; i < turn; ++i) {
      const float deg = static_cast<float>(i) * 360.0f / 4096.0f;
      const auto u = static_cast<std::size_t>(i);
      q[0][u] = core::axis_angle({1, 0, 0}, deg * k);
      q[1][u] = core::axis_angle({0, 1, 0}, deg * k);
      q[2][u] = core::axis_angle({0, 0, 1}, deg * k);
    }
  }
};

[[nodiscard]] const axis_tables& tables() {
  static const axis_tables t;
  return t;
}

// Replaces the components of a short product that came out zero (their sign may differ)
// with the full product's: core::multiply is glm's product, every term in its order.
void fix_zeros(quat& v, const quat& p, const quat& q) {
  if (v[0] != 0 && v[1] != 0 && v[2] != 0 && v[3] != 0) return;
  const quat f = core::multiply(p, q);
  for (std::size_t i = 0; i < 4; ++i)
    if (v[i] == 0) v[i] = f[i];
}

// The products of raw_rotation_reference without the terms that are exact (signed) zeros:
// the table quaternions rotate about one axis, so two of their x, y, z are +-0 times a
// finite number. Adding a signed zero to a nonzero partial sum leaves it unchanged and the
// kept terms are added in glm's order, so a nonzero component equals the full product's; a
// zero one may differ in its sign only, so it is recomputed with all terms.
quat raw_rotation_short(const quat& qy, const quat& qx, const quat& qz) {
  // qy * qx: qy = (0, sy, 0, cy), qx = (sx, 0, 0, cx).
  quat a{qy[3] * qx[0], qy[1] * qx[3], -(qy[1] * qx[0]), qy[3] * qx[3]};
  fix_zeros(a, qy, qx);
  // a * qz: qz = (0, 0, sz, cz).
  quat r{a[0] * qz[3] + a[1] * qz[2], a[1] * qz[3] - a[0] * qz[2], a[3] * qz[2] + a[2] * qz[3],
         a[3] * qz[3] - a[2] * qz[2]};
  fix_zeros(r, a, qz);
  return core::normalize(r);
}
}  // namespace

quat raw_rotation(const triple& r) {
  const auto& t = tables().q;
  return raw_rotation_short(t[1][raw_index(r[1])], t[0][raw_index(r[0])], t[2][raw_index(r[2])]);
}

quat raw_rotation_reference(const triple& r) {
  const auto& t = tables().q;
  const quat& qx = t[0][raw_index(r[0])];
  const quat& qy = t[1][raw_index(r[1])];
  const quat& qz = t[2][raw_index(r[2])];
  return core::normalize(core::multiply(core::multiply(qy, qx), qz));
}

void raw_rotations_scalar(std::span<const triple> in, float* out) {
  for (std::size_t i = 0; i < in.size(); ++i) {
    const quat q = raw_rotation(in[i]);
    std::memcpy(out + 4 * i, q.data(), sizeof q);
  }
}

#ifdef RIGRIP_FF7_SSE
namespace {
// glm's product p * q, term for term in its order (core::multiply), on four lanes at once;
// p and q are given per component (x, y, z, w), each holding one quaternion per lane.
[[gnu::always_inline]] inline void multiply4(const __m128 p[4], const __m128 q[4], __m128 r[4]) {
  const auto mul = [](__m128 a, __m128 b) { return _mm_mul_ps(a, b); };
  r[0] = _mm_sub_ps(_mm_add_ps(_mm_add_ps(mul(p[3], q[0]), mul(p[0], q[3])), mul(p[1], q[2])), mul(p[2], q[1]));
  r[1] = _mm_sub_ps(_mm_add_ps(_mm_add_ps(mul(p[3], q[1]), mul(p[1], q[3])), mul(p[2], q[0])), mul(p[0], q[2]));
  r[2] = _mm_sub_ps(_mm_add_ps(_mm_add_ps(mul(p[3], q[2]), mul(p[2], q[3])), mul(p[0], q[1])), mul(p[1], q[0]));
  r[3] = _mm_sub_ps(_mm_sub_ps(_mm_sub_ps(mul(p[3], q[3]), mul(p[0], q[0])), mul(p[1], q[1])), mul(p[2], q[2]));
}
}  // namespace
#endif

// Four triples per step: the full products of raw_rotation_reference (which raw_rotation
// equals bit for bit) and core::normalize, every lane doing the scalar operations in their
// order; IEEE square root and division round the same in a lane as in a scalar register.
void raw_rotations(std::span<const triple> in, float* out) {
  std::size_t i = 0;
#ifdef RIGRIP_FF7_SSE
  const auto& t = tables().q;
  const __m128 tiny = _mm_set1_ps(1e-12f), inf = _mm_set1_ps(HUGE_VALF);
  const __m128 identity_w = _mm_set1_ps(1.0f);
  for (; i + 4 <= in.size(); i += 4) {
    __m128 qx[4], qy[4], qz[4];
    for (int l = 0; l < 4; ++l) {
      const triple& r = in[i + static_cast<std::size_t>(l)];
      qx[l] = _mm_loadu_ps(t[0][raw_index(r[0])].data());
      qy[l] = _mm_loadu_ps(t[1][raw_index(r[1])].data());
      qz[l] = _mm_loadu_ps(t[2][raw_index(r[2])].data());
    }
    _MM_TRANSPOSE4_PS(qx[0], qx[1], qx[2], qx[3]);  // now qx[c] = component c of the four lanes
    _MM_TRANSPOSE4_PS(qy[0], qy[1], qy[2], qy[3]);
    _MM_TRANSPOSE4_PS(qz[0], qz[1], qz[2], qz[3]);
    __m128 a[4], q[4];
    multiply4(qy, qx, a);
    multiply4(a, qz, q);
    // core::normalize: n = sqrt of the sum of squares (in order); (0, 0, 0, 1) unless
    // 1e-12 < n < infinity (a NaN fails the first test).
    const __m128 n = _mm_sqrt_ps(_mm_add_ps(
        _mm_add_ps(_mm_add_ps(_mm_mul_ps(q[0], q[0]), _mm_mul_ps(q[1], q[1])), _mm_mul_ps(q[2], q[2])),
        _mm_mul_ps(q[3], q[3])));
    const __m128 ok = _mm_and_ps(_mm_cmpgt_ps(n, tiny), _mm_cmplt_ps(n, inf));
    for (int c = 0; c < 4; ++c) q[c] = _mm_and_ps(ok, _mm_div_ps(q[c], n));
    q[3] = _mm_or_ps(q[3], _mm_andnot_ps(ok, identity_w));
    _MM_TRANSPOSE4_PS(q[0], q[1], q[2], q[3]);  // back to one quaternion per register
    for (int l = 0; l < 4; ++l) _mm_storeu_ps(out + 4 * (i + static_cast<std::size_t>(l)), q[l]);
  }
#endif
  raw_rotations_scalar(in.subspan(i), out + 4 * i);
}

vec3 quat_to_euler_yxz_degrees(const quat& qin) {
  auto q = core::normalize(qin);
  const double x = q[0], y = q[1], z = q[2], w = q[3];
  // Rotation matrix elements (row, column) of R = Ry * Rx * Rz.
  double m02 = 2 * (x * z + w * y), m12 = 2 * (y * z - w * x), m22 = 1 - 2 * (x * x + y * y);
  double m10 = 2 * (x * y + w * z), m11 = 1 - 2 * (x * x + z * z);
  double m00 = 1 - 2 * (y * y + z * z), m20 = 2 * (x * z - w * y);
  double s = std::clamp(-m12, -1.0, 1.0);
  double a = std::asin(s), b, c;
  if (std::abs(s) < 0.9999999) {
    b = std::atan2(m02, m22);
    c = std::atan2(m10, m11);
  } else {  // gimbal lock: put the whole turn into Y
    b = std::atan2(-m20, m00);
    c = 0;
  }
  const double d = 180.0 / 3.14159265358979323846;
  return {static_cast<float>(a * d), static_cast<float>(b * d), static_cast<float>(c * d)};
}

}  // namespace rigrip::ff7
