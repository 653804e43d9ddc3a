#pragma once

#include "formats/bfres/fres.hpp"
#include "rigrip/registry.hpp"

namespace rigrip::bfres {
// Decompresses Yaz0 when present and parses the FRES image.
[[nodiscard]] file load(std::span<const std::uint8_t> data, bool* was_yaz0);
[[nodiscard]] scene to_scene(const file& f, const read_context& ctx);
}  // namespace rigrip::bfres
