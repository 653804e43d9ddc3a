// morpheme runtime 5.x bundles (.nmb, the SDK's x64 and win32 builds): typed views of the
// packets the packet layer (mrn.hpp) keeps as bytes. Pointers are offsets relative to the
// struct that holds them, 8 bytes (x64) or 4 bytes (win32) wide. Layout: README.md here.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/byte_reader.hpp"
#include "rigrip/scene.hpp"

namespace rigrip::morpheme {

// A payload reader plus the bundle's pointer width.
struct sized_reader {
  core::byte_reader r;
  unsigned psize = 8;  // 8 (x64) or 4 (win32)
  [[nodiscard]] std::uint64_t ptr_at(std::uint64_t at) const { return psize == 8 ? r.u64_at(at) : r.u32_at(at); }
  [[nodiscard]] std::uint64_t size() const { return r.size(); }
  // `base + rel` as a checked offset inside the payload with at least `need` bytes after it.
  [[nodiscard]] std::uint64_t target(std::uint64_t base, std::uint64_t rel, std::uint64_t need, const char* what,
                                     std::uint64_t field) const;
};

// Runtime-5 string tables: {u32 count, u32 data_size, ptr offsets, ptr strings} and the
// ID-mapped form {count, data_size, ptr ids, ptr offsets, ptr hashes, ptr strings}.
struct id_string_table {
  std::vector<std::uint32_t> ids, offsets, hashes;
  std::vector<std::string> strings;
};
[[nodiscard]] std::vector<std::string> read_sdk_string_table(const sized_reader& s, std::uint64_t at);
// The same table as views into the reader's bytes (same checks and errors): valid while they are.
[[nodiscard]] std::vector<std::string_view> read_sdk_string_views(const sized_reader& s, std::uint64_t at);
[[nodiscard]] id_string_table read_sdk_id_string_table(const sized_reader& s, std::uint64_t at);

// AnimRigDef (packet type 1 of a runtime-5 bundle).
struct sdk_rig {
  std::array<float, 4> blend_frame_orientation{0, 0, 0, 1};
  std::array<float, 4> blend_frame_translation{0, 0, 0, 0};
  std::uint32_t trajectory_bone = 0, character_root_bone = 0;
  std::uint32_t bone_count = 0;
  std::vector<std::int32_t> parents;
  std::vector<std::string> names;
  // Bind pose: an attribute (type word) holding a DataBuffer of two element arrays.
  std::uint16_t attrib_type = 0;
  std::uint64_t buffer_size = 0;
  std::uint32_t buffer_alignment = 0, buffer_length = 0, element_count = 0;
  bool buffer_full = false;
  std::vector<std::array<std::uint32_t, 3>> element_descriptors;  // {type, size, alignment}
  std::uint32_t used_bits = 0;
  std::vector<std::uint32_t> used_words;
  std::vector<vec3> bind_translation;
  std::vector<quat> bind_rotation;
};
[[nodiscard]] sdk_rig read_sdk_rig(const sized_reader& s);

// RigToAnimMap (packet type 2). Type 1 = AnimToRig: channel c of an animation drives rig bone
// anim_to_rig[c]; the bitset marks the rig bones any channel drives (most significant bit first).
struct sdk_rig_to_anim_map {
  std::uint32_t type = 0;
  std::uint32_t used_bits = 0;
  std::vector<std::uint32_t> used_words;
  std::uint64_t map_size = 0;
  std::uint32_t map_alignment = 0;
  std::uint32_t channel_count = 0;
  std::uint16_t unknown[2] = {0, 0};
  std::vector<std::uint16_t> anim_to_rig;
};
[[nodiscard]] sdk_rig_to_anim_map read_sdk_rig_to_anim_map(const sized_reader& s);

// FileNameLookupTable (packet type 13): animation file names, formats, source files, takes, CRCs.
// The names view the packet's bytes (an sdk_bundle owns or views them for its lifetime): copy
// what is kept beyond them.
struct sdk_file_names {
  std::vector<std::string_view> files, formats, sources, takes;
  std::vector<std::uint32_t> crcs;  // little-endian words; meaning unknown
};
[[nodiscard]] sdk_file_names read_sdk_file_names(const sized_reader& s);

// Event tracks (packet types 3 discrete, 4 duration): {u32 count, u32, ptr name, u32, u32,
// ptr events}; an event is {f32 start, f32 duration, u32 user data}, times as clip fractions.
struct sdk_event_track {
  std::string name;
  std::uint32_t words[3] = {0, 0, 0};
  struct event {
    float start = 0, duration = 0;
    std::uint32_t user_data = 0;
  };
  std::vector<event> events;
};
[[nodiscard]] sdk_event_track read_sdk_event_track(const sized_reader& s);
[[nodiscard]] nlohmann::json sdk_event_track_to_json(const sdk_event_track& t);

// True when bit `i` of a most-significant-first bitset is set.
[[nodiscard]] bool msb_bit(const std::vector<std::uint32_t>& words, std::uint32_t i);

[[nodiscard]] nlohmann::json sdk_rig_to_json(const sdk_rig& r);
[[nodiscard]] nlohmann::json sdk_map_to_json(const sdk_rig_to_anim_map& m);
[[nodiscard]] nlohmann::json sdk_file_names_to_json(const sdk_file_names& f);
// A JSON array of copies of the strings.
[[nodiscard]] nlohmann::json strings_to_json(const std::vector<std::string_view>& v);

}  // namespace rigrip::morpheme
