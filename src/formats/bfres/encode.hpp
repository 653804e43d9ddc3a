// Encode: scene animations -> FSKA sections written into a copy of a template FRES.
#pragma once

#include <string>
#include <vector>

#include "formats/bfres/fres.hpp"
#include "rigrip/registry.hpp"

namespace rigrip::bfres {

struct patricia_node {
  std::uint32_t ref_bit = 0;
  std::uint16_t left = 0, right = 0;
};
// Builds nw::g3d's ResDicPatricia nodes (node 0 = root) for names inserted in order;
// the lookup bit test counts bytes from the start of the name (spec 2.3).
[[nodiscard]] std::vector<patricia_node> build_patricia(const std::vector<std::string>& names);

// Tolerances of the curve fit (spec: 0.01 units, 0.01 degrees).
inline constexpr float pack_tolerance_units = 0.01f;
inline constexpr float pack_tolerance_radians = 0.01f * 3.14159265358979f / 180.0f;

[[nodiscard]] std::vector<std::uint8_t> pack_file(const scene& s, const pack_context& ctx);

}  // namespace rigrip::bfres
