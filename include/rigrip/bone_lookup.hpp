// Bone index by name, hashed once per skeleton: skeleton::find is a linear search,
// and a lookup per track turns it into tracks x bones.
#pragma once

#include <string_view>
#include <unordered_map>

#include "rigrip/scene.hpp"

namespace rigrip {

// Holds views of the bone names: the skeleton must outlive it and its bones must not
// change meanwhile. With duplicate names (which validate() refuses) the first bone
// wins, as in skeleton::find.
class bone_lookup {
 public:
  explicit bone_lookup(const skeleton& s) {
    index_.reserve(s.bones.size());
    for (std::size_t i = 0; i < s.bones.size(); ++i) index_.emplace(s.bones[i].name, static_cast<int>(i));
  }
  [[nodiscard]] int find(std::string_view bone_name) const {
    auto it = index_.find(bone_name);
    return it == index_.end() ? -1 : it->second;
  }

 private:
  std::unordered_map<std::string_view, int> index_;
};

}  // namespace rigrip
