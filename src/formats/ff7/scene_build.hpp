// Decode (raw -> scene) and encode (scene -> raw) for the ff7 family.
#pragma once

#include "formats/ff7/ff7.hpp"

namespace rigrip::ff7 {

constexpr double battle_fps = 15.0;
constexpr double field_fps = 30.0;

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
[[nodiscard]] nlohmann::json dump_da_json(const std::vector<decoded_chunk>& chunks);

// Finds the AA for a DA: --skeleton, else the naming rule (xxda -> xxaa, name.a00 -> name.d).
struct aa_source {
  aa_file aa;
  std::string path;
};
[[nodiscard]] aa_source load_skeleton_for_da(const read_context& ctx);

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

// Scene -> DA frames for a skeleton: one body frame set per scene animation, plus the
// weapon frame sets (weapon_0 node) when the skeleton has weapon animations.
struct scene_frames {
  std::vector<std::vector<da_frame>> body, weapon;  // weapon[i] pairs with body[i] when the AA has weapon anims
  std::vector<std::string> names;
  std::vector<std::optional<std::size_t>> indices;  // DA index from extras.ff7_index or the name anim_NNN
  std::vector<da_frame> rest_body, rest_weapon;     // one still frame, for slots nothing fills
};
[[nodiscard]] scene_frames frames_from_scene(const scene& s, const aa_file& aa, double fps, const pack_context* ctx);
[[nodiscard]] bytes pack_da(const scene& s, const aa_file& aa, double fps, const pack_context* ctx,
                            std::vector<int>* keys_used = nullptr);
[[nodiscard]] bytes pack_p(const scene& s, const pack_context* ctx);
[[nodiscard]] bytes pack_aa(const scene& s, const pack_context* ctx);

}  // namespace rigrip::ff7
