#include "scene/ssc.hpp"

#include "rigrip/bone_lookup.hpp"

namespace rigrip::scene_ops {

namespace {
// True when every key of a scale track (values and, for cubic, zero tangents) is 1.
bool all_one(const track& t) {
  const std::size_t e = t.elements_per_key();
  for (std::size_t k = 0; k * e * 3 < t.values.size(); ++k)
    for (std::size_t which = 0; which < e; ++which)
      for (std::size_t c = 0; c < 3; ++c) {
        const std::size_t i = (k * e + which) * 3 + c;
        if (i >= t.values.size()) return true;
        const bool is_value = e == 1 || which == 1;
        if (t.values[i] != (is_value ? 1.0f : 0.0f)) return false;
      }
  return true;
}
}  // namespace

std::vector<bool> compensating_bones(const scene& s, std::size_t si) {
  std::vector<bool> out;
  if (si >= s.skeletons.size()) return out;
  const auto& sk = s.skeletons[si];
  const std::size_t nb = sk.bones.size();
  out.assign(nb, false);
  std::vector<bool> scaled(nb, false);  // bone's scale is not identically 1
  for (std::size_t i = 0; i < nb; ++i) scaled[i] = sk.bones[i].scale != vec3{1, 1, 1};
  const bone_lookup bones(sk);
  for (const auto& a : s.animations) {
    if (a.skeleton < 0 || static_cast<std::size_t>(a.skeleton) != si) continue;
    for (const auto& t : a.tracks) {
      if (t.path != path::scale) continue;
      int bi = bones.find(t.bone);
      if (bi >= 0 && !all_one(t)) scaled[static_cast<std::size_t>(bi)] = true;
    }
  }
  for (std::size_t i = 0; i < nb; ++i) {
    const auto& b = sk.bones[i];
    out[i] = b.segment_scale_compensate && b.parent >= 0 && static_cast<std::size_t>(b.parent) < nb &&
             scaled[static_cast<std::size_t>(b.parent)];
  }
  return out;
}

}  // namespace rigrip::scene_ops
