// Quaternion, Euler and matrix helpers shared by every family, on top of glm.
// Quaternions in the scene model are (x, y, z, w).
#pragma once

#include <array>
#include <cmath>
#include <string_view>
#include <vector>

#include "rigrip/scene.hpp"

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
// Local transforms of every bone of a skeleton (one pose).
struct pose {
  std::vector<vec3> translation;
  std::vector<quat> rotation;
  std::vector<vec3> scale;
};
[[nodiscard]] pose rest_pose(const skeleton& s);
// The pose of `a` at `time` seconds: each bone's tracks sampled, else its rest value.
[[nodiscard]] pose sample_pose(const skeleton& s, const animation& a, float time);
// 1/s per component for segment scale compensation; a zero component stays 0 (the
// child collapses with its parent, which is all plain inheritance can say).
[[nodiscard]] vec3 compensation(const vec3& parent_scale);
// World (model-space) matrices of every bone. Plain T*R*S inheritance, except that a
// bone with segment_scale_compensate uses W_parent * T(t) * S(1/s_parent) * R * S,
// which equals Maya's W_parent * S_parent^-1 * T(s_parent . t) * R * S (scene-model.md).
[[nodiscard]] std::vector<mat4> world_matrices(const skeleton& s, const pose& p);
[[nodiscard]] std::vector<mat4> world_matrices(const skeleton& s);  // rest pose

// Samples a track at time t (seconds) with its own interpolation, returning
// components(path) floats. Clamps outside the key range.
[[nodiscard]] std::vector<float> sample(const track& t, float time);

inline constexpr float pi = 3.14159265358979323846f;

}  // namespace rigrip::core
