// morpheme "simple bundle" packet files: Forgelight x64 MRN and the morpheme 5 runtime's
// .nmb (x64 and win32), read by one packet layer that knows each variant's header, payload
// alignment and pointer size. Raw layer: every packet's header, header padding, payload and
// alignment fill are kept as bytes, so serialise_mrn(parse_mrn(x)) == x. Typed views decode
// payloads on demand (Forgelight here, morpheme 5 in nmb.hpp / network.hpp).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/byte_reader.hpp"
#include "formats/morpheme/nsa.hpp"

namespace rigrip::morpheme {

enum packet_type : std::uint32_t {
  pt_skeleton = 0x01,
  pt_skeleton_map = 0x02,
  pt_event_track = 0x03,
  pt_event_track_duration = 0x04,
  pt_character_controller = 0x07,
  pt_network = 0x0A,
  pt_plugin_list = 0x0C,
  pt_file_names = 0x0E,
  pt_skeleton_names = 0x0F,
  pt_nsa = 0x10,
};
[[nodiscard]] const char* packet_type_name(std::uint32_t t);  // nullptr for unknown types

inline constexpr std::uint32_t magic_x64[2] = {0x1A, 0x0A};
inline constexpr std::uint32_t magic_x86[2] = {0x18, 0x06};      // morpheme 5 win32 (.nmb; 32-bit MRN)
inline constexpr std::uint32_t magic_sdk_x64[2] = {0x18, 0x0A};  // morpheme 5 x64 (.nmb)
inline constexpr std::size_t packet_header_size = 0x28;

// Packet-file variants. Forgelight: 0x28-byte header (u32 length, u32 alignment), payload
// aligned relative to the packet, next packet 16-aligned. morpheme 5: x64 0x30-byte header
// (u64 length, u32 alignment, u32), win32 0x28; payload aligned in the file, next packet
// 4-aligned.
enum class bundle_variant : std::uint8_t { forgelight_x64, sdk_x64, sdk_win32 };
[[nodiscard]] const char* sdk_packet_type_name(std::uint32_t t);  // morpheme 5 types; nullptr if unknown

struct packet {
  std::uint64_t offset = 0;  // absolute file offset of the header
  std::uint32_t magic0 = 0x1A, magic1 = 0x0A, type = 0, index = 0;
  std::array<std::uint32_t, 4> unknown{0, 0, 0, 0};
  std::uint32_t alignment = 16;
  std::uint32_t header_extra = 0;  // morpheme 5 x64: the u32 after the alignment
  std::uint32_t header_size = packet_header_size;
  bytes header_pad;  // bytes between the header and the payload (alignment fill)
  bytes payload;
  bytes fill;        // bytes after the payload up to the next packet
  [[nodiscard]] std::uint64_t payload_offset() const { return offset + header_size + header_pad.size(); }
};

struct mrn_file {
  bundle_variant variant = bundle_variant::forgelight_x64;
  std::vector<packet> packets;
  bytes tail;  // bytes after the last packet that do not form one
  [[nodiscard]] unsigned pointer_size() const { return variant == bundle_variant::sdk_win32 ? 4u : 8u; }
};

// One packet as the packet walk finds it: its header fields and where its parts lie in the
// walked bytes (views: the bytes must outlive it; parse_mrn copies them into a `packet`).
struct packet_view {
  std::uint64_t offset = 0;
  std::uint32_t magic0 = 0, magic1 = 0, type = 0, index = 0;
  std::array<std::uint32_t, 4> unknown{0, 0, 0, 0};
  std::uint32_t alignment = 16, header_extra = 0, header_size = packet_header_size;
  std::span<const std::uint8_t> header_pad, payload, fill;
  [[nodiscard]] std::uint64_t payload_offset() const { return offset + header_size + header_pad.size(); }
};
struct mrn_view {
  bundle_variant variant = bundle_variant::forgelight_x64;
  std::vector<packet_view> packets;
  std::span<const std::uint8_t> tail;
  [[nodiscard]] unsigned pointer_size() const { return variant == bundle_variant::sdk_win32 ? 4u : 8u; }
};

// Any variant (by the first header's magic); malformed input fails with the offset of the
// packet header concerned. scan_mrn is the walk itself (views, no copies; same checks and
// errors); parse_mrn keeps every part as bytes for the byte-exact rewrite.
[[nodiscard]] mrn_view scan_mrn(std::span<const std::uint8_t> data);
[[nodiscard]] mrn_file parse_mrn(std::span<const std::uint8_t> data);
[[nodiscard]] bytes serialise_mrn(const mrn_file& f);
// Structure check used by detection: first header sane (magic, length, alignment).
[[nodiscard]] bool looks_like_x64_mrn(std::span<const std::uint8_t> data);
[[nodiscard]] bool looks_like_x86_mrn(std::span<const std::uint8_t> data);
// First header of a morpheme 5 bundle (x64 or win32) sane.
[[nodiscard]] bool looks_like_sdk_bundle(std::span<const std::uint8_t> data);

// ---- typed payload views (pointers relative to their containing struct, §2.3)
struct string_table {
  std::vector<std::string> strings;
  std::vector<std::uint32_t> offsets;
};
struct expanded_string_table {
  std::vector<std::uint32_t> ids, offsets, unknown;
  std::vector<std::string> strings;  // in array order
};
[[nodiscard]] string_table read_string_table(const core::byte_reader& block, std::uint64_t at);
[[nodiscard]] expanded_string_table read_expanded_string_table(const core::byte_reader& block, std::uint64_t at);

struct file_names {
  string_table files, types, sources, takes;
  std::vector<std::uint32_t> crcs;  // stored big-endian, one per file name
};
[[nodiscard]] file_names read_file_names(const core::byte_reader& payload);

struct bone_chain {
  std::int32_t unknown = 0, parent = -1, start = 0, length = 0;
};
struct rig_data {
  std::array<float, 4> rotation{0, 0, 0, 1}, position{0, 0, 0, 1};
  std::vector<bone_chain> chains;
  std::uint32_t bone_count = 0;
  std::vector<std::int32_t> parents;              // hierarchy array
  std::vector<std::int32_t> parents_from_chains;  // -2 where no chain covers the bone
  std::vector<std::string> names;
  std::vector<vec3> bind_translation;
  std::vector<quat> bind_rotation;
  bool has_bind_pose = false;
  std::uint32_t bind_entry_word = 0;  // the DataBuffer word at B + 0x18 (checked against bone_count)
  std::string parents_source = "hierarchy";  // or "chains" when the hierarchy array was unusable
  std::size_t disagreements = 0;             // bones where hierarchy and chains differ
  std::string first_disagreement;
};
[[nodiscard]] rig_data read_rig(const core::byte_reader& payload);

struct skeleton_map {
  std::uint64_t version = 0;
  std::uint32_t rig_bone_count = 0;
  std::vector<std::uint32_t> flags;
  std::uint32_t unk1 = 0, unk2 = 0;
  std::uint64_t unk3 = 0;
  std::uint16_t idx_unk1 = 0, idx_unk2 = 0;
  std::vector<std::uint16_t> indices;  // NSA channel -> rig bone (AnimToRig reading)
  std::string indices_base = "map";    // which pointer base checked out: "map" or "payload"
};
[[nodiscard]] skeleton_map read_skeleton_map(const core::byte_reader& payload);

// ---- writer building blocks
struct rig_input {
  std::vector<std::string> names;
  std::vector<int> parents;
  std::vector<vec3> translation;
  std::vector<quat> rotation;
};
[[nodiscard]] bytes write_rig(const rig_input& r);
[[nodiscard]] bytes write_skeleton_map(std::uint32_t rig_bones, const std::vector<std::uint16_t>& channel_to_bone);
[[nodiscard]] bytes write_file_names(const std::vector<std::string>& files, const std::vector<std::string>& types,
                                     const std::vector<std::string>& sources, const std::vector<std::string>& takes,
                                     const std::vector<std::uint32_t>& crcs);
[[nodiscard]] bytes write_skeleton_names(const std::vector<std::string>& names, const std::vector<std::uint32_t>& ids);
[[nodiscard]] packet make_packet(std::uint32_t type, std::uint32_t index, bytes payload,
                                 std::array<std::uint32_t, 4> unknown = {0, 0, 0, 0});
// Lays packets out back to back (offsets, 16-byte header alignment, fill to 16).
[[nodiscard]] bytes layout_mrn(std::vector<packet> packets);

[[nodiscard]] nlohmann::json mrn_to_json(const mrn_file& f);

}  // namespace rigrip::morpheme
