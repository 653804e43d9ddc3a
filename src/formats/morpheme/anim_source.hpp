// Animation sources of the morpheme 5 runtime (the SDK's .nsa and .qsa files, x64 and win32):
// raw structures as stored. nsa5.cpp and qsa.cpp parse and serialise them; decode_sdk.cpp turns
// them into per-channel samples. Pointers are offsets relative to the struct that holds them,
// 8 (x64) or 4 (win32) bytes wide. Layout: README.md here.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "formats/morpheme/nsa.hpp"

namespace rigrip::morpheme {

inline constexpr std::uint32_t source_type_nsa = 2;
inline constexpr std::uint32_t source_type_qsa = 3;

// The header both kinds share (x64 0x38 bytes, win32 0x28).
struct source5_header {
  bool x64 = true;
  std::uint64_t resident_size = 0;  // bytes before the first section
  std::uint32_t alignment = 16;
  std::uint32_t type = 0;           // 2 NSA, 3 QSA
  float duration = 0, sample_rate = 0;
  std::uint32_t channel_count = 0;
  std::uint32_t frame_sections = 1, channel_sections = 1;
  std::uint32_t unknown = 0;        // 0x34 / 0x24: 66 in every NSA sample, the unchanging-quat count in QSA
  [[nodiscard]] unsigned psize() const { return x64 ? 8u : 4u; }
};

// Trajectory (root motion) source at the end of both kinds.
struct source5_trajectory {
  std::uint32_t type = 0;
  std::uint64_t size = 0;
  std::uint32_t alignment = 0;
  float sample_rate = 0;
  std::uint32_t sample_count = 0;
  std::uint8_t flags[2] = {0, 0};  // QSA: translation / rotation data present
  std::array<float, 6> translation{};  // NSA: min, extent; QSA: extent, min (as stored)
  std::array<float, 6> rotation{};     // factors, or quaternion x y z w + 2 zero floats
  bool constant_rotation = true;
  std::vector<std::uint32_t> translations;  // 11:11:10 words
  std::vector<u16x3> rotations;
};

struct nsa5_section {
  std::uint32_t sample_count = 0, translation_count = 0, rotation_count = 0;
  std::vector<std::uint32_t> translations;  // [sample][channel]
  std::vector<deq_info> translation_info;   // align4(count) entries
  std::vector<u16x3> rotations;             // [sample][channel]
  std::uint32_t rotation_row_stride = 0;
  std::vector<deq_info> rotation_info;
};

struct nsa5_file {
  source5_header h;
  std::vector<std::uint16_t> static_translation, static_rotation, dynamic_translation, dynamic_rotation;
  factors init;
  std::vector<factors> translation_factors, rotation_factors;
  std::uint32_t static_translation_count = 0, static_rotation_count = 0;
  factors static_translation_factors, static_rotation_factors;
  std::vector<u16x3> static_translations, static_rotations;
  std::uint64_t max_section_size = 0;
  std::vector<std::uint32_t> section_frames;  // frame_sections + 1 entries: starts, then the last frame
  std::vector<std::uint32_t> section_sizes;
  std::vector<std::uint64_t> section_offsets;
  std::vector<nsa5_section> sections;
  std::optional<source5_trajectory> trajectory;
};

struct qsa_channel_info {
  std::array<std::uint8_t, 3> bits{}, init{}, index{};
};

struct qsa_section {
  std::uint64_t offset = 0;
  std::array<std::uint16_t, 20> words{};  // the 0x28-byte header as u16 words
  std::array<float, 6> position_init{};   // min xyz, max xyz
  std::vector<std::array<float, 6>> position_sets, rotation_sets;  // min xyz, max xyz
  std::vector<qsa_channel_info> position_info, rotation_info;       // align4(count) entries
  std::vector<std::uint8_t> position_rows, rotation_rows;           // bit rows, one per sample
  // Bytes the layout leaves free, kept as read (the writer falls back to zeros when a pad's
  // length no longer fits): after the position rows to 4 bytes (zeros in the samples), after
  // the rotation rows to the section's 16-byte end (0xCD, MSVC's debug fill, in the samples).
  std::vector<std::uint8_t> rows_pad, end_pad;
  [[nodiscard]] std::uint16_t size() const { return words[0]; }
  [[nodiscard]] std::uint16_t start_frame() const { return words[2]; }
  [[nodiscard]] std::uint16_t sample_count() const { return words[3]; }
  [[nodiscard]] std::uint16_t position_count() const { return words[4]; }
  [[nodiscard]] std::uint16_t rotation_count() const { return words[5]; }
  [[nodiscard]] std::uint16_t position_row_bytes() const { return words[9]; }
  [[nodiscard]] std::uint16_t rotation_row_bytes() const { return words[10]; }
  [[nodiscard]] std::uint16_t position_set_count() const { return words[15]; }
  [[nodiscard]] std::uint16_t rotation_set_count() const { return words[16]; }
};

struct qsa_file {
  source5_header h;
  // unchanging position, unchanging rotation, sampled position, sampled rotation, spline
  // position, spline rotation channel lists; channels in none of them keep the rig's pose.
  std::array<std::vector<std::uint16_t>, 6> lists;
  std::vector<std::array<std::uint32_t, 2>> section_info;  // {start frame, size}
  std::vector<std::uint64_t> section_offsets;
  // Unchanging block.
  std::array<float, 4> unchanging_head{};
  std::array<std::uint16_t, 6> unchanging_counts{};  // 0xFFFF, channels, default pos, default rot, pos, rot
  std::array<float, 6> unchanging_position_range{}, unchanging_rotation_range{};
  std::vector<u16x3> unchanging_positions, unchanging_rotations;
  std::vector<qsa_section> sections;
  std::optional<source5_trajectory> trajectory;
  // Stored as read; null / free bytes in every sample (README.md, "QSA": block order).
  std::uint64_t last_pointer = 0;                              // header 0x88 / 0x50
  std::array<std::uint64_t, 2> unchanging_pointers{};          // after the unchanging block's 0x4C bytes
  std::array<std::vector<std::uint8_t>, 6> list_pads;          // each list to align4 entries and 4 bytes (0xFF)
  std::vector<std::uint8_t> unchanging_lead_pad;               // section pointers -> 16-aligned block (zeros)
  std::vector<std::uint8_t> unchanging_struct_pad;             // x64: 0x4C -> 0x50 before the pointers (0xCD)
  std::vector<std::uint8_t> unchanging_data_pad;               // pointers -> 16-aligned values (0xCD)
  std::vector<std::uint8_t> resident_pad;                      // values -> 16-aligned first section (0xCD)
};

// Which kind a standalone file is, from its header; nullopt when neither layout fits.
struct source5_probe {
  bool x64 = true;
  std::uint32_t type = 0;
};
[[nodiscard]] std::optional<source5_probe> probe_source5(std::span<const std::uint8_t> data);

// Shared by nsa5.cpp and qsa.cpp.
namespace source5 {
[[nodiscard]] inline std::uint32_t align4(std::uint32_t n) { return (n + 3u) & ~3u; }
// A stored pointer: 8 bytes on x64, 4 on win32.
[[nodiscard]] inline std::uint64_t ptr_at(const core::byte_reader& r, std::uint64_t at, bool x64) {
  return x64 ? r.u64_at(at) : r.u32_at(at);
}
// `base + rel` inside `r` with `need` bytes after it; `field` is where the pointer is stored.
// (Also called only for its check.)
inline std::uint64_t target(const core::byte_reader& r, std::uint64_t base, std::uint64_t rel, std::uint64_t need,
                            const char* what, std::uint64_t field) {
  std::uint64_t n = r.size();
  if (base > n || rel > n - base || need > n - base - rel)
    core::fail(code::bad_offset, std::string(what) + ": pointer " + core::byte_reader::hex(rel) + " leaves the " +
                                     std::to_string(n) + "-byte animation", r.base() + field);
  return base + rel;
}
}  // namespace source5

[[nodiscard]] source5_header read_source5_header(const core::byte_reader& r);
[[nodiscard]] source5_trajectory read_source5_trajectory(const core::byte_reader& r, std::uint64_t at, bool x64,
                                                         bool qsa);
[[nodiscard]] std::vector<std::uint16_t> read_channel_list(const core::byte_reader& r, std::uint64_t at,
                                                           const char* what);
[[nodiscard]] nlohmann::json source5_trajectory_to_json(const source5_trajectory& t);

[[nodiscard]] nsa5_file parse_nsa5(const core::byte_reader& r);
[[nodiscard]] qsa_file parse_qsa(const core::byte_reader& r);
[[nodiscard]] nlohmann::json nsa5_to_json(const nsa5_file& f);
// nsa5_write.cpp: the SDK's layout; pointers and sizes computed (bytes -> raw -> bytes identical).
[[nodiscard]] bytes serialise_nsa5(const nsa5_file& f);
[[nodiscard]] nlohmann::json qsa_to_json(const qsa_file& f);
// qsa_write.cpp: the SDK's layout; pointers, sizes and counts computed, free bytes from the raw
// structure (bytes -> raw -> bytes identical).
[[nodiscard]] bytes serialise_qsa(const qsa_file& f);
// nsa5_write.cpp: the trajectory source both kinds end with (QSA: u16 sample count + flags).
void write_source5_trajectory(core::byte_writer& w, bool x64, bool qsa, const source5_trajectory& t);

// Dequantised channels (decode_sdk.cpp). A channel with no samples keeps the rig's pose.
[[nodiscard]] nsa_decoded decode_nsa5(const nsa5_file& f);
// decode_nsa5 in two steps (as plan_nsa, nsa.hpp): with `defer` and two samples or more, the
// dynamic channels are left empty and named by their entry; fill_nsa5_* decode an entry's
// samples over every section into a track's values (S * 3 or 4 floats). The rotations come
// out hemisphere-continuous (core::make_hemisphere_continuous, the same floats).
[[nodiscard]] nsa_plan plan_nsa5(const nsa5_file& f, bool defer);
void fill_nsa5_translation(const nsa5_file& f, std::uint32_t j, float* out);
void fill_nsa5_rotation(const nsa5_file& f, std::uint32_t j, std::uint32_t S, float* out);
[[nodiscard]] nsa_decoded decode_qsa(const qsa_file& f);

}  // namespace rigrip::morpheme
