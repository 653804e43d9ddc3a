// Shining Force III (Saturn) battle meshes: the raw layer. These structures hold a
// file exactly as stored (big-endian, offsets relative to the model / segment start)
// and write back byte for byte. Decoding to the scene model lives in decode.cpp.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "core/byte_reader.hpp"

namespace rigrip::sf3 {

using byte_vec = std::vector<std::uint8_t>;
using byte_span = std::span<const std::uint8_t>;

inline constexpr std::uint32_t sector = 0x800;  // chunk / slot / segment alignment
inline constexpr std::uint32_t end_marker = 0xFFFFFFFFu;

struct chunk_entry {
  std::uint32_t offset = 0;      // relative to the model start, 0x800-aligned
  std::uint32_t data_size = 0;   // bytes of data
  std::uint32_t chunk_size = 0;  // data_size rounded up to 0x800 (padding 0xFF)
  std::uint32_t reserved = 0;
};

// One bone's keys as stored (BoneKeyframes record + its arrays).
struct key_record {
  std::vector<std::uint16_t> t_frames, r_frames, s_frames;
  std::array<std::vector<std::int32_t>, 3> t;  // FIXED 16.16
  std::array<std::vector<std::int16_t>, 4> r;  // quaternion x y z w, s16 / 16384
  std::array<std::vector<std::int32_t>, 3> s;  // FIXED 16.16
};

// A BoneKeyframes table with its data, in the canonical layout every real file uses:
// per bone the three u16 frame arrays, pad to 4, Tx Ty Tz, Rx Ry Rz Rw, pad to 4,
// Sx Sy Sz; then the 64-byte records; then 0xFFFFFFFF.
struct key_table {
  std::vector<key_record> bones;
  bool canonical = true;  // offsets follow the canonical layout (every shared sample does)
  std::uint32_t end = 0;  // offset just past the 0xFFFFFFFF terminator
};

struct anim_event {
  std::uint16_t frame = 0;
  std::uint16_t code = 0;
};

struct anim_def {
  std::uint16_t start = 0;     // bit 0x1000: keys live outside this chunk (x8an / attack chunk)
  std::uint16_t count = 0;     // frames [start, start + count)
  std::uint16_t id = 0;        // 0x00 idle, 0x10 hit, 0x20 block, 0x70 attack, ...
  std::uint16_t distance = 0;  // distance from the enemy
  std::uint32_t events_offset = 0;
  std::vector<anim_event> events;
  [[nodiscard]] bool external() const { return (start & 0x1000) != 0; }
  [[nodiscard]] std::uint16_t first_frame() const { return start & 0xEFFF; }
};

// The x8pc animation chunk. `prefix` = bytes before the key data (bounding box, table
// offset, definitions, event lists) kept verbatim; only the u32 at 0x18 depends on the keys.
struct anim_chunk {
  std::array<std::int32_t, 6> bbox{};
  std::vector<anim_def> defs;
  byte_vec prefix;
  key_table keys;
  byte_vec trailer;   // bytes after the table terminator (none in real files)
  byte_vec original;  // the chunk as read; written back when the layout is not canonical
};

struct texture_def {
  std::uint16_t width = 0, height = 0, cg_address = 0, hv_size = 0;  // byte offset = cg_address * 8
};

struct model_raw {
  std::uint64_t base = 0;             // offset of this model in the file (containers)
  std::uint32_t slot_size = 0;        // bytes this model owns in the file
  std::vector<chunk_entry> entries;   // 4 standard chunks, then scenario 2/3 extra chunks
  bool extra_terminated = false;      // the extra list ends with 0xFFFFFFFF (scenario 2/3)
  byte_vec header_rest;               // header bytes after the entry list, up to 0x800
  std::vector<byte_vec> data;         // per entry, data_size bytes
  std::vector<byte_vec> padding;      // per entry, chunk_size - data_size bytes (0xFF)
  std::vector<byte_vec> gap_before;   // per entry, bytes between the previous chunk and this one
  byte_vec tail;                      // slot bytes after the last chunk
  // Parsed views (decode uses them; writing uses `data` except for the animation chunk).
  std::uint32_t vram_size = 0;
  std::vector<texture_def> textures;
  anim_chunk anim;
};

struct x8pc_file {
  std::uint32_t stride = 0;
  std::vector<model_raw> models;
};

struct x8an_segment {
  std::uint64_t offset = 0;  // 0x800-aligned position in the file
  key_table keys;
  byte_vec padding;          // bytes up to the next segment (zeros), or to the file end
  byte_vec original;         // the segment's bytes (without padding), for non-canonical layouts
};

struct x8an_file {
  std::vector<x8an_segment> segments;
};

// Work budget: hostile files can point many records at the same large arrays; every
// array read is charged here so the total work stays proportional to the file size.
struct work_budget {
  std::uint64_t left = 0;
  void spend(std::uint64_t bytes, std::uint64_t at, const char* what) {
    if (bytes > left)
      core::fail(code::limit_exceeded, std::string(what) + ": overlapping arrays would read more than twice the file size",
                 at);
    left -= bytes;
  }
};

// ---- parsing (throws core::failure with absolute offsets) ----
[[nodiscard]] x8pc_file parse_x8pc(byte_span file);
[[nodiscard]] model_raw parse_model(byte_span file, std::uint64_t base, std::uint32_t slot_size);
[[nodiscard]] x8an_file parse_x8an(byte_span file);
// Key table at `table_offset` of `r` (offsets inside relative to r's start); key data
// must start at `data_start` and follow the canonical layout.
[[nodiscard]] key_table parse_key_table(const core::byte_reader& r, std::uint32_t table_offset,
                                        std::uint32_t data_start, work_budget* budget = nullptr);

// ---- writing ----
// Appends the key data and table starting at w.size() - origin (origin = where offsets count from).
// Returns the table offset (relative to origin).
std::uint32_t write_key_table(core::byte_writer& w, std::size_t origin, const key_table& t);
[[nodiscard]] byte_vec write_anim_chunk(const anim_chunk& a);
[[nodiscard]] byte_vec write_x8pc(const x8pc_file& f);
[[nodiscard]] byte_vec write_x8an(const x8an_file& f);

// ---- detection helpers (never throw) ----
[[nodiscard]] bool looks_like_chunk_table(byte_span file, std::uint64_t at);
[[nodiscard]] bool looks_like_x8an(byte_span file);

// Texture LZSS (word based). Decodes until the end command; returns the output words
// as big-endian bytes. Fails when the output would exceed `max_bytes`.
[[nodiscard]] byte_vec lzss_decompress(const core::byte_reader& r, std::size_t max_bytes,
                                       std::size_t* consumed = nullptr);

}  // namespace rigrip::sf3
