// The Euler order BFRES uses, without from_euler's walk over an order string (per key).
#pragma once

#include "rigrip/types.hpp"

namespace rigrip::core {
// from_euler(r, "XYZ"): the same floats (X applied first, then Y, then Z).
[[nodiscard]] quat from_euler_xyz(const vec3& radians);
}  // namespace rigrip::core
