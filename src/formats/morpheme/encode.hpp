// Encode: scene model -> MRN.
#pragma once

#include "formats/morpheme/mrn.hpp"
#include "formats/morpheme/nsa.hpp"
#include "rigrip/registry.hpp"

namespace rigrip::morpheme {

[[nodiscard]] bytes pack_mrn(const scene& s, const pack_context& ctx);

}  // namespace rigrip::morpheme
