// SF3 battle meshes: scene -> x8pc (keyframes into a template model).
#pragma once

#include "formats/sf3/x8pc.hpp"
#include "rigrip/registry.hpp"

namespace rigrip::sf3 {

// Writes the template x8pc (pack_context::template_file) with the scene's keyframes.
// Throws core::failure on bad input.
[[nodiscard]] byte_vec pack_x8pc(const scene& s, const pack_context& ctx);

}  // namespace rigrip::sf3
