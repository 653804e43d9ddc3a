// The game's Euler convention, shared by decode (DA/A -> quaternions) and encode (back).
#pragma once

#include <span>

#include "formats/ff7/da_bitstream.hpp"
#include "rigrip/scene.hpp"

namespace rigrip::ff7 {

// The game's Euler triple (X, Y, Z) as R = Ry * Rx * Rz (column vectors).
[[nodiscard]] quat euler_yxz_degrees(float x, float y, float z);
[[nodiscard]] quat raw_rotation(const triple& r);  // 1/4096 turns
// normalize(multiply(multiply(qy, qx), qz)) with the full products: what raw_rotation
// must equal bit for bit (it skips the products' zero terms).
[[nodiscard]] quat raw_rotation_reference(const triple& r);
// raw_rotation of every triple in `in`, written as in.size() quaternions (x, y, z, w) to
// `out`: four at a time with SSE2 where available, the same bits as raw_rotation.
void raw_rotations(std::span<const triple> in, float* out);
// The portable loop raw_rotations falls back to (and is tested against).
void raw_rotations_scalar(std::span<const triple> in, float* out);
// Inverse of euler_yxz_degrees, angles in degrees.
[[nodiscard]] vec3 quat_to_euler_yxz_degrees(const quat& q);

}  // namespace rigrip::ff7
