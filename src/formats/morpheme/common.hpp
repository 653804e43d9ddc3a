// Small helpers shared by decode.cpp and encode.cpp; internal to the family.
#pragma once

#include <cctype>
#include <string>

#include "rigrip/scene.hpp"

namespace rigrip::morpheme {

inline std::string lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// The trajectory (root-motion) bone of a rig: the bone named "trajectory" (any case),
// otherwise bone 0. Shared by the reader and the writer so they agree.
[[nodiscard]] inline int trajectory_bone(const skeleton& sk) {
  for (std::size_t i = 0; i < sk.bones.size(); ++i)
    if (lower(sk.bones[i].name) == "trajectory") return static_cast<int>(i);
  return sk.bones.empty() ? -1 : 0;
}

}  // namespace rigrip::morpheme
