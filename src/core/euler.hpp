// The Euler order BFRES uses, without from_euler's walk over an order string (per key).
#pragma once

#include <bit>
#include <cmath>
#include <cstdint>

#include "core/math.hpp"
#include "rigrip/types.hpp"

namespace rigrip::core {
// from_euler(r, "XYZ"): the same floats (X applied first, then Y, then Z).
[[nodiscard]] quat from_euler_xyz(const vec3& radians);

// from_euler_xyz for many keys in a row (BFRES samples every frame), the same floats.
// from_euler_xyz multiplies three axis quaternions whose other components are exact zeros
// (and the identity) with glm's products. A product with an exact zero adds a signed zero
// to a sum, which leaves a nonzero partial sum unchanged and turns a zero one into the
// next term; so the sum of only the other terms, in the same order, gives the same float
// whenever it is nonzero. Here those sums are formed directly; where any part or sum is
// zero (signs of zero would matter), or an axis normalize() would give the identity, every
// product of from_euler_xyz runs instead (full()). The sine and cosine of an angle equal to
// the previous key's are reused (same argument, same results).
class euler_xyz_sequence {
 public:
  [[nodiscard]] quat operator()(const vec3& r) {
    for (std::size_t k = 0; k < 3; ++k) {
      const auto bits = std::bit_cast<std::uint32_t>(r[k]);
      if (!have_[k] || bits != bits_[k]) axis(k, r[k]), bits_[k] = bits, have_[k] = true;
    }
    quat q;
    if (ok_[0] && ok_[1] && ok_[2] && from_axes(q)) return q;
    return full();
  }

 private:
  // world_axis_angle(k, a): {0*s, 0*s, 0*s, c} with s at k, then normalize(): its length
  // ((s*s + 0) + 0) + c*c is s*s + c*c (squares are never -0).
  void axis(std::size_t k, float a) {
    const float s = std::sin(a * 0.5f), c = std::cos(a * 0.5f);
    // The whole axis quaternion as world_axis_angle forms it, for full().
    quat& q = axis_q_[k];
    q = {0.0f * s, 0.0f * s, 0.0f * s, c};
    q[k] = 1.0f * s;
    const float n = std::sqrt(s * s + c * c);
    ok_[k] = n > 1e-12f && std::isfinite(n);
    if (!ok_[k]) {
      q = {0, 0, 0, 1};
      return;
    }
    for (auto& v : q) v /= n;
    s_[k] = q[k];
    c_[k] = q[3];
    ok_[k] = s_[k] != 0 && c_[k] != 0;
  }
  // from_euler_xyz's operations in full (zero parts, signs of zero matter) on the cached axes.
  quat full() const {
    quat q = multiply(axis_q_[0], quat{0, 0, 0, 1});
    q = multiply(axis_q_[1], q);
    q = multiply(axis_q_[2], q);
    return normalize(q);
  }
  // multiply(qz, multiply(qy, multiply(qx, identity))) then normalize(), keeping the terms
  // without a zero factor in glm's order (w = pw*qw - px*qx - py*qy - pz*qz, x = pw*qx +
  // px*qw + py*qz - pz*qy, y = pw*qy + py*qw + pz*qx - px*qz, z = pw*qz + pz*qw + px*qy - py*qx).
  bool from_axes(quat& out) const {
    const float sx = s_[0], cx = c_[0], sy = s_[1], cy = c_[1], sz = s_[2], cz = c_[2];
    // qx * identity = {sx, 0, 0, cx}; qy * that:
    const float bw = cy * cx, bx = cy * sx, by = sy * cx, bz = -(sy * sx);
    if (bw == 0 || bx == 0 || by == 0 || bz == 0) return false;
    // qz * that:
    const float w = cz * bw - sz * bz, x = cz * bx - sz * by, y = cz * by + sz * bx, z = cz * bz + sz * bw;
    if (w == 0 || x == 0 || y == 0 || z == 0) return false;
    // normalize()
    const float n = std::sqrt(x * x + y * y + z * z + w * w);
    if (!(n > 1e-12f) || !std::isfinite(n)) return false;
    out = {x / n, y / n, z / n, w / n};
    return true;
  }
  quat axis_q_[3]{};
  float s_[3]{}, c_[3]{};
  bool ok_[3]{}, have_[3]{};
  std::uint32_t bits_[3]{};
};
}  // namespace rigrip::core
