// The game's Euler convention: R = Ry * Rx * Rz, angles in degrees or 1/4096 turns.
#include "formats/ff7/euler.hpp"

#include <algorithm>
#include <array>
#include <cmath>

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

[[nodiscard]] std::size_t raw_index(std::int16_t v) { return static_cast<std::size_t>(((v % turn) + turn) % turn); }

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
