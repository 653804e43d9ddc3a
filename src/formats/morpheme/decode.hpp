// Decode: MRN / NSA -> scene model.
#pragma once

#include "formats/morpheme/mrn.hpp"
#include "formats/morpheme/nsa.hpp"
#include "rigrip/registry.hpp"

namespace rigrip::morpheme {

[[nodiscard]] scene read_mrn_scene(const read_context& ctx);
[[nodiscard]] scene read_nsa_scene(const read_context& ctx);

}  // namespace rigrip::morpheme
