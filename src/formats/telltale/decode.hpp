// Decode: raw .anm/.skl -> scene.
#pragma once

#include <string>

#include "rigrip/registry.hpp"

namespace rigrip::telltale {

result<scene> read_anm(const read_context& ctx);
result<scene> read_skl(const read_context& ctx);

// Naming rule: "skNN_<rest>.anm" pairs with the "skNN_<character>.skl" in the same
// folder whose <character> starts <rest> or follows one of its '_'; the longest wins.
// Returns the chosen path (empty when none) and fills `note` for a warning.
std::string pair_skeleton(const std::string& anm_path, std::string* note);

}  // namespace rigrip::telltale
