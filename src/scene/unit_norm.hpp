// The unit-quaternion test of scene validation without a square root.
#pragma once

#include <cstdint>
#include <cstring>

namespace rigrip::detail {

// validate() accepts a rotation when std::fabs(std::sqrt(x) - 1.0f) <= 1e-3f, x being the
// float sum of squares q0*q0 + q1*q1 + q2*q2 + q3*q3. sqrt is correctly rounded and
// monotone, so that holds for exactly one closed interval of floats x (a scan over every
// float confirms it; tests/core/test_scene_validate.cpp repeats the scan around it), and
// comparing x against its ends vectorises where the square root does not.
inline float unit_norm_sq_lo() {
  const std::uint32_t b = 0x3f7f7cfeu;  // 0.998000979f
  float f;
  std::memcpy(&f, &b, 4);
  return f;
}
inline float unit_norm_sq_hi() {
  const std::uint32_t b = 0x3f804191u;  // 1.00200093f
  float f;
  std::memcpy(&f, &b, 4);
  return f;
}
// NaN fails both comparisons, so a NaN or infinite sum is rejected as the square root is.
inline bool unit_norm_sq(float x) { return x >= unit_norm_sq_lo() && x <= unit_norm_sq_hi(); }

}  // namespace rigrip::detail
