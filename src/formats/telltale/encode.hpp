// Encode: scene -> raw .anm/.skl/.d3dmesh bytes.
#pragma once

#include "rigrip/registry.hpp"

namespace rigrip::telltale {

result<bytes> pack_anm(const scene& s, const pack_context& ctx);
result<bytes> pack_skl(const scene& s, const pack_context& ctx);
// Scene meshes into a template .d3dmesh (README.md, "Meshes written back").
result<bytes> pack_d3dmesh(const scene& s, const pack_context& ctx);

}  // namespace rigrip::telltale
