// The battle.lgp naming rule (xxaa skeleton, xxda animations, xxam.. models, xxac.. textures).
#pragma once

#include <string>

namespace rigrip::ff7 {

// battle.lgp naming: "rtaa" -> "rtda", "rtam" (bone 0 model) ... keeps the case of the input.
[[nodiscard]] std::string battle_sibling(const std::string& path, int suffix_index);
[[nodiscard]] int battle_suffix_index(const std::string& path);  // -1 when not xxYY
[[nodiscard]] std::string to_lower(std::string s);
// The AA skeleton a DA pack pairs with: "rtda" -> "rtaa" (battle.lgp), "name.a00" -> "name.d"
// (magic.lgp); "" when the name follows neither rule.
[[nodiscard]] std::string da_skeleton_path(const std::string& da_path);

}  // namespace rigrip::ff7
