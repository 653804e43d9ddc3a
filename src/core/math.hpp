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

[[nodiscard]] quat normalize(quat q);
[[nodiscard]] quat multiply(const quat& a, const quat& b);  // a * b (apply b first)
[[nodiscard]] quat conjugate(const quat& q);
[[nodiscard]] vec3 rotate(const quat& q, const vec3& v);
[[nodiscard]] float dot(const quat& a, const quat& b);
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

[[nodiscard]] mat4 compose(const vec3& t, const quat& r, const vec3& s);  // T * R * S
[[nodiscard]] mat4 multiply(const mat4& a, const mat4& b);
[[nodiscard]] mat4 inverse(const mat4& m);
[[nodiscard]] mat4 identity();
inline constexpr float pi = 3.14159265358979323846f;

}  // namespace rigrip::core
