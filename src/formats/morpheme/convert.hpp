// MRN / NSA <-> scene model.
#pragma once

#include "formats/morpheme/mrn.hpp"
#include "formats/morpheme/nsa.hpp"
#include "rigrip/registry.hpp"

namespace rigrip::morpheme {

[[nodiscard]] scene read_mrn_scene(const read_context& ctx);
[[nodiscard]] scene read_nsa_scene(const read_context& ctx);
[[nodiscard]] bytes pack_mrn(const scene& s, const pack_context& ctx);

// The trajectory (root-motion) bone of a rig: the bone named "trajectory" (any case),
// otherwise bone 0. Shared by the reader and the writer so they agree.
[[nodiscard]] int trajectory_bone(const skeleton& sk);

}  // namespace rigrip::morpheme
