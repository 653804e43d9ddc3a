// Raw layer of the Telltale Animation (.anm) and Skeleton (.skl) MetaStream bodies:
// every field kept so that writing them back reproduces the input bytes.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "formats/telltale/metastream.hpp"

namespace rigrip::telltale {

enum class value_kind { cspk2, kf_transform, kf_float, kf_bool, kf_vector3, kf_quaternion, kf_phoneme };

[[nodiscard]] const char* kind_name(value_kind k);
[[nodiscard]] std::uint64_t type_symbol(value_kind k);  // crc64 of the type name

struct kf_sample {
  std::uint32_t time_bits = 0;        // f32 mTime
  std::uint8_t interpolate = '1';     // bool mbInterpolateToNextKey ('0'/'1')
  std::int32_t tangent_mode = 0;
  std::vector<std::uint8_t> value;    // T as serialised (a blocked T includes its block)
  [[nodiscard]] float time() const;
};

struct anm_value {
  value_kind kind = value_kind::cspk2;
  std::vector<std::uint8_t> cspk2;    // CSPK2 buffer (after its u32 size)
  std::uint64_t offset = 0;           // file offset of the body (of the CSPK2 buffer), for messages
  // KeyframedValue<T>
  std::uint64_t kf_name = 0;
  std::uint32_t kf_flags = 0;
  std::vector<std::uint8_t> min_value, max_value;
  std::vector<kf_sample> samples;
};

struct type_entry {
  std::uint64_t type = 0;
  std::uint16_t count = 0;
  std::uint16_t version = 0;
};

struct animation_file {
  metastream ms;
  std::int32_t version = 5;
  std::uint32_t flags = 0;
  std::uint64_t name = 0;
  std::uint32_t length_bits = 0;        // f32 mLength
  std::uint32_t additive_mask_bits = 0; // f32 mAdditiveMask
  std::uint8_t tool_props = '0';
  std::int32_t num_values = 0;
  std::int32_t data_buffer_size = 0;
  std::vector<type_entry> types;
  std::vector<anm_value> values;        // bodies in type order, up to the first unknown type
  std::vector<std::uint8_t> opaque_bodies;  // bodies from the first unknown type on, kept as bytes
  std::size_t opaque_first_type = 0;    // index into types where opaque_bodies starts
  std::uint64_t opaque_offset = 0;      // file offset of opaque_bodies
  std::vector<std::uint32_t> value_flags;
  std::uint16_t no_names = 0;
  std::vector<std::uint64_t> value_names;
  [[nodiscard]] float length() const;
};

// Values in the type table whose bodies were kept opaque are listed but not decoded.
[[nodiscard]] animation_file parse_animation(std::span<const std::uint8_t> file);
[[nodiscard]] std::vector<std::uint8_t> write_animation(const animation_file& a);

// Transform as serialised: u32 block (32), quaternion x y z w, vector x y z.
struct transform {
  float rot[4] = {0, 0, 0, 1};
  float trans[3] = {0, 0, 0};
};
[[nodiscard]] transform decode_transform(std::span<const std::uint8_t> v);
[[nodiscard]] std::vector<std::uint8_t> encode_transform(const transform& t);

// ------------------------------------------------------------------ skeleton
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
[[nodiscard]] std::vector<class_entry> animation_class_table();

}  // namespace rigrip::telltale
