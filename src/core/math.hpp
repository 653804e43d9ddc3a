// Quaternion, Euler and matrix helpers shared by every family, on top of glm. Knows no
// scene: pose sampling and world matrices of a skeleton are in scene/pose.hpp.
// Quaternions in the scene model are (x, y, z, w).
#pragma once

#include <array>
#include <cmath>
#include <string_view>
#include <vector>

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

[[nodiscard]] inline mat4 compose(const vec3& t, const quat& r, const vec3& s);  // T * R * S
[[nodiscard]] inline mat4 multiply(const mat4& a, const mat4& b);
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
inline mat4 compose(const vec3& t, const quat& r, const vec3& s) {
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
inline mat4 multiply(const mat4& a, const mat4& b) {  // column-major, summed in glm's order
  mat4 m{};
  for (std::size_t c = 0; c < 4; ++c)
    for (std::size_t row = 0; row < 4; ++row)
      m[c * 4 + row] = a[row] * b[c * 4] + a[4 + row] * b[c * 4 + 1] + a[8 + row] * b[c * 4 + 2] +
                       a[12 + row] * b[c * 4 + 3];
  return m;
}

}  // namespace rigrip::core
