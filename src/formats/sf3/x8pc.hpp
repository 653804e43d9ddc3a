// Shining Force III (Saturn) battle models X8PC*.BIN: the raw layer. These structures hold a
// file exactly as stored (big-endian, offsets relative to the model / segment start)
// and write back byte for byte. Decoding to the scene model lives in decode.cpp.
#pragma once

#include <nlohmann/json.hpp>

#include <array>
#include <cstdint>
#include <vector>

#include "formats/sf3/key_table.hpp"

namespace rigrip::sf3 {

struct chunk_entry {
  std::uint32_t offset = 0;      // relative to the model start, 0x800-aligned
  std::uint32_t data_size = 0;   // bytes of data
  std::uint32_t chunk_size = 0;  // data_size rounded up to 0x800 (padding 0xFF)
  std::uint32_t reserved = 0;
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
  key_table keys;       // the copied arrays (left empty, but for canonical and end, when parsed without copies)
  key_table_ref key_refs;  // the same table as checked positions in the model's data[3] (always set by the parse)
  byte_vec trailer;   // bytes after the table terminator (none in real files)
  byte_vec original;  // the chunk as read when the layout is not canonical (written back then), else empty
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
// ---- parsing (throws core::failure with absolute offsets) ----
// copy_keys = false: the key tables are checked as always but only anim.key_refs is filled (the
// scene reader takes the keys from data[3]); such a file must not be written back.
[[nodiscard]] x8pc_file parse_x8pc(byte_span file, bool copy_keys = true);
[[nodiscard]] model_raw parse_model(byte_span file, std::uint64_t base, std::uint32_t slot_size, bool copy_keys = true);

// ---- writing ----
[[nodiscard]] byte_vec write_anim_chunk(const anim_chunk& a);
[[nodiscard]] byte_vec write_x8pc(const x8pc_file& f);

// ---- detection helper (never throws) ----
[[nodiscard]] bool looks_like_chunk_table(byte_span file, std::uint64_t at);

// `dump --raw` JSON of an X8PC file (x8pc_mesh parses each model's skeleton for it).
[[nodiscard]] nlohmann::json x8pc_to_json(const x8pc_file& f);

}  // namespace rigrip::sf3
