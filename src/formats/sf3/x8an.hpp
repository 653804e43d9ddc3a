// X8AN*.BIN external attack animations: the raw layer (parse + byte-exact writing).
#pragma once

#include "formats/sf3/key_table.hpp"

namespace rigrip::sf3 {

struct x8an_segment {
  std::uint64_t offset = 0;  // 0x800-aligned position in the file
  key_table keys;            // copied arrays (empty but for canonical and end when parsed without copies)
  key_table_ref key_refs;    // the same table as checked positions from `offset` in the parsed bytes
  std::pair<int, int> frames{-1, -1};  // frame_range of the table
  byte_vec padding;          // bytes up to the next segment (zeros), or to the file end
  byte_vec original;         // the segment's bytes (without padding) of a non-canonical layout (else empty)
};

struct x8an_file {
  std::vector<x8an_segment> segments;
  byte_span source;  // the bytes parsed (valid only while the caller keeps them)
};
// copy_keys = false: every table is checked as always but only key_refs is filled (the scene
// reader takes the keys from `source`); such a file must not be written back.
[[nodiscard]] x8an_file parse_x8an(byte_span file, bool copy_keys = true);
[[nodiscard]] byte_vec write_x8an(const x8an_file& f);
// Detection helper (never throws).
[[nodiscard]] bool looks_like_x8an(byte_span file);

// Segment groups (heuristic: a new group starts when the bone count changes or a segment
// starts again at the first segment's first frame).
[[nodiscard]] std::vector<int> x8an_groups(const x8an_file& f);
// Per segment its group (as x8an_groups) and frame_range, worked out once per read.
struct x8an_layout {
  std::vector<int> groups;
  std::vector<std::pair<int, int>> ranges;
};
[[nodiscard]] x8an_layout x8an_index(const x8an_file& f);

// `dump --raw` JSON of an X8AN file.
[[nodiscard]] nlohmann::json x8an_to_json(const x8an_file& f);

}  // namespace rigrip::sf3
