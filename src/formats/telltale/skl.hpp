// Raw layer of the Telltale Skeleton (.skl) MetaStream body: every field kept so that
// writing it back reproduces the input bytes; and its `dump --raw` JSON.
#pragma once

#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "formats/telltale/metastream.hpp"

namespace rigrip::telltale {

struct skl_entry {
  std::uint64_t joint = 0, parent_name = 0, mirror_name = 0;
  std::int32_t parent_index = -1, mirror_index = -1;
  float local_pos[3] = {0, 0, 0};
  float local_quat[4] = {0, 0, 0, 1};
  transform rest;
  float global_translation_scale[3] = {1, 1, 1};
  float local_translation_scale[3] = {1, 1, 1};
  float anim_translation_scale[3] = {1, 1, 1};
  std::vector<std::pair<std::uint64_t, float>> resource_groups;  // Map<Symbol,float>
  std::int32_t bone_type = 0;
  float hinge_axis[3] = {0, 0, 0};
  float axis_range[3][2] = {{0, 0}, {0, 0}, {0, 0}};
  std::uint32_t flags = 0;
};

struct skeleton_file {
  metastream ms;
  std::vector<skl_entry> entries;
};

[[nodiscard]] skeleton_file parse_skeleton(std::span<const std::uint8_t> file);
[[nodiscard]] std::vector<std::uint8_t> write_skeleton(const skeleton_file& s);
// Class table our skeleton writer emits (TWDDE version CRCs where the notes give them).
[[nodiscard]] std::vector<class_entry> skeleton_class_table();

// `dump --raw`: every entry with its symbols named where the database knows them.
[[nodiscard]] nlohmann::json skl_to_json(const skeleton_file& s);

}  // namespace rigrip::telltale
