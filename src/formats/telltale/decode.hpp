// Decode: raw .anm/.skl/.d3dmesh/.d3dtx -> scene.
#pragma once

#include <string>

#include "formats/telltale/skl.hpp"
#include "rigrip/registry.hpp"

namespace rigrip::telltale {

result<scene> read_anm(const read_context& ctx);
result<scene> read_skl(const read_context& ctx);
result<scene> read_d3dmesh(const read_context& ctx);
result<scene> read_d3dtx(const read_context& ctx);

// Shared by the .anm and .d3dmesh decoders (the whole character: mesh + .skl + .anm).
skeleton skeleton_from_file(const skeleton_file& f, const std::string& name, const read_context* ctx);
scene anm_scene(const read_context& ctx);

// Naming rule: "skNN_<rest>.anm" pairs with the "skNN_<character>.skl" in the same
// folder whose <character> starts <rest> or follows one of its '_'; the longest wins.
// Returns the chosen path (empty when none) and fills `note` for a warning.
std::string pair_skeleton(const std::string& anm_path, std::string* note);

// Loads and parses the .skl at `path` through ctx.load; a failure names the skeleton file.
skeleton_file load_skeleton(const read_context& ctx, const std::string& path);

}  // namespace rigrip::telltale
