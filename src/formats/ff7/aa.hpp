// FF7 battle skeletons AA (xxaa): 13-word header + 12-byte bone records, byte-faithful.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "core/byte_reader.hpp"
#include "rigrip/registry.hpp"

namespace rigrip::ff7 {

struct aa_bone {
  std::int32_t parent = -1;
  float length = 0;
  std::int32_t has_model = 0;
};
struct aa_file {
  std::array<std::int32_t, 13> header{};
  std::vector<aa_bone> bones;
  bytes trailing;
  [[nodiscard]] std::int32_t bone_count() const { return header[3]; }
  [[nodiscard]] std::int32_t joint_count() const { return header[5]; }
  [[nodiscard]] std::int32_t texture_count() const { return header[6]; }
  [[nodiscard]] std::int32_t body_anim_count() const { return header[7]; }
  [[nodiscard]] std::int32_t weapon_count() const { return header[9]; }
  [[nodiscard]] std::int32_t weapon_anim_count() const { return header[10]; }
  // Rotation triples per body frame: nBones + 1 (root first), or 1 for single-bone models.
  [[nodiscard]] std::size_t body_rotations() const {
    return bone_count() > 1 ? static_cast<std::size_t>(bone_count()) + 1 : 1;
  }
};
[[nodiscard]] aa_file parse_aa(std::span<const std::uint8_t> data);
[[nodiscard]] bytes serialise_aa(const aa_file& a);
[[nodiscard]] int detect_aa(std::span<const std::uint8_t> data);

// `dump --raw` JSON of an AA file.
[[nodiscard]] nlohmann::json aa_to_json(const aa_file& a);

}  // namespace rigrip::ff7
