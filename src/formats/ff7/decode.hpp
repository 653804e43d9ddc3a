// Decode (raw -> scene) for the ff7 family: battle (AA + P + TEX + DA) and field (HRC + RSD + P + TEX + A).
#pragma once

#include "formats/ff7/aa.hpp"
#include "formats/ff7/anim_a.hpp"
#include "formats/ff7/da.hpp"
#include "formats/ff7/euler.hpp"
#include "formats/ff7/hrc.hpp"
#include "formats/ff7/naming.hpp"
#include "formats/ff7/p_model.hpp"
#include "formats/ff7/rsd.hpp"
#include "formats/ff7/tex.hpp"
#include "rigrip/registry.hpp"
#include "rigrip/scene.hpp"

namespace rigrip::ff7 {

enum class chunk_kind { body, weapon, special };
[[nodiscard]] std::string_view to_string(chunk_kind k);

struct decoded_chunk {
  std::size_t index = 0;
  chunk_kind kind = chunk_kind::body;
  std::size_t body_ordinal = 0;  // k for body chunk k / weapon chunk k
  const da_chunk* chunk = nullptr;
  std::vector<da_frame> frames;
  bool stopped_early = false;
};
// Decodes every chunk of a pack with the skeleton's counts (warnings through ctx).
[[nodiscard]] std::vector<decoded_chunk> decode_pack(const da_pack& p, const aa_file& aa, const read_context* ctx);

// Finds the AA for a DA: --skeleton, else the naming rule (xxda -> xxaa, name.a00 -> name.d).
struct aa_source {
  aa_file aa;
  std::string path;
};
[[nodiscard]] aa_source load_skeleton_for_da(const read_context& ctx);

// RGBA8 rows top to bottom; facts about the palette go to extras.
[[nodiscard]] texture tex_to_texture(const tex_file& t, const std::string& name);

[[nodiscard]] scene read_battle_from_aa(const read_context& ctx);
[[nodiscard]] scene read_battle_from_da(const read_context& ctx);
[[nodiscard]] scene read_p_scene(const read_context& ctx);
[[nodiscard]] scene read_tex_scene(const read_context& ctx);
[[nodiscard]] scene read_hrc_scene(const read_context& ctx);
[[nodiscard]] scene read_rsd_scene(const read_context& ctx);
[[nodiscard]] scene read_a_scene(const read_context& ctx);

// Builds the battle scene from already-parsed parts (used by the readers and tests).
struct battle_parts {
  aa_file aa;
  std::vector<std::optional<p_model>> bone_models;    // per bone
  std::vector<std::optional<p_model>> weapon_models;  // per weapon
  std::vector<std::optional<p_model>> location_pieces;
  std::vector<std::optional<texture>> textures;
  std::vector<decoded_chunk> animations;
};
[[nodiscard]] scene build_battle_scene(const battle_parts& parts, double fps, const read_context* ctx);

// `dump --raw` of a DA file: header fields and each chunk's decoded frames (needs the
// paired AA, found like the reader does). Throws core::failure.
[[nodiscard]] nlohmann::json da_to_json(const read_context& c);

}  // namespace rigrip::ff7
