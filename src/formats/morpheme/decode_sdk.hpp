// morpheme 5 runtime (the SDK's .nmb bundles, standalone .nsa/.qsa) -> scene.
#pragma once

#include <optional>

#include "formats/morpheme/anim_source.hpp"
#include "formats/morpheme/mrn.hpp"
#include "formats/morpheme/network.hpp"
#include "rigrip/registry.hpp"

namespace rigrip::morpheme {

// A bundle: its rigs (first rig first), maps, file names and network, decoded from packets.
// `raw` views the bundle's bytes: `owned` when it was loaded from a file (a vector's move keeps
// its buffer, so moves keep the views valid; a copy would not, hence move-only), else the
// caller's bytes, which must outlive it.
struct sdk_bundle {
  bytes owned;
  mrn_view raw;
  std::vector<std::pair<std::size_t, sdk_rig>> rigs;  // {packet, rig}
  std::vector<std::pair<std::size_t, sdk_rig_to_anim_map>> maps;
  std::optional<sdk_file_names> names;
  std::optional<network_def> network;
  sdk_bundle() = default;
  sdk_bundle(sdk_bundle&&) = default;
  sdk_bundle& operator=(sdk_bundle&&) = default;
  sdk_bundle(const sdk_bundle&) = delete;
  sdk_bundle& operator=(const sdk_bundle&) = delete;
};
[[nodiscard]] sdk_bundle load_sdk_bundle(byte_view data);
[[nodiscard]] sdk_bundle load_sdk_bundle(bytes&& data);

// Animation names: the source file's stem ("01002_Walk"), with the take when two share it,
// then made unique (the file's stem, then "_index").
[[nodiscard]] std::vector<std::string> animation_names(const sdk_file_names& fn);
// animation_names(fn)[i] (i < fn.files.size()) without building the others when no rule
// renames any entry (the usual case: every entry's first name a distinct, non-empty stem).
[[nodiscard]] std::string animation_name(const sdk_file_names& fn, std::size_t i);
// Whether a file name's extension is ".nmb" in any case (std::filesystem's extension rule).
[[nodiscard]] bool nmb_name(std::string_view name);

[[nodiscard]] scene read_nmb_scene(const read_context& ctx);
[[nodiscard]] scene read_source5_scene(const read_context& ctx);
[[nodiscard]] nlohmann::json nmb_to_json(const mrn_file& f);
[[nodiscard]] nlohmann::json network_json_of(const read_context& ctx);

}  // namespace rigrip::morpheme
