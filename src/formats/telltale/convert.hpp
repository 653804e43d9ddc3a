// Decode (raw -> scene), encode (scene -> raw) and the registry entry points.
#pragma once

#include <nlohmann/json.hpp>

#include "rigrip/registry.hpp"

namespace rigrip::telltale {

int detect_anm(byte_view data, std::string_view name);
int detect_skl(byte_view data, std::string_view name);

result<scene> read_anm(const read_context& ctx);
result<nlohmann::json> dump_anm(const read_context& ctx);
result<bytes> rewrite_anm(const read_context& ctx);
result<bytes> pack_anm(const scene& s, const pack_context& ctx);

result<scene> read_skl(const read_context& ctx);
result<nlohmann::json> dump_skl(const read_context& ctx);
result<bytes> rewrite_skl(const read_context& ctx);
result<bytes> pack_skl(const scene& s, const pack_context& ctx);

// Naming rule: "skNN_<rest>.anm" pairs with the "skNN_<character>.skl" in the same
// folder whose <character> starts <rest> or follows one of its '_'; the longest wins.
// Returns the chosen path (empty when none) and fills `note` for a warning.
std::string pair_skeleton(const std::string& anm_path, std::string* note);

}  // namespace rigrip::telltale
