// Encode (scene -> raw) for the ff7 family: DA packs for an AA skeleton, P models, AA skeletons.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "formats/ff7/aa.hpp"
#include "formats/ff7/da.hpp"
#include "formats/ff7/p_model.hpp"
#include "rigrip/registry.hpp"
#include "rigrip/scene.hpp"

namespace rigrip::ff7 {

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
// `pack` for ff7-da: the AA comes from pack_context::skeleton_file (--skeleton).
[[nodiscard]] result<bytes> pack_da_entry(const scene& s, const pack_context& c);

}  // namespace rigrip::ff7
