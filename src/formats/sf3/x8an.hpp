// X8AN*.BIN external attack animations: the raw layer (parse + byte-exact writing).
#pragma once

#include "formats/sf3/key_table.hpp"

namespace rigrip::sf3 {

struct x8an_segment {
  std::uint64_t offset = 0;  // 0x800-aligned position in the file
  key_table keys;
  byte_vec padding;          // bytes up to the next segment (zeros), or to the file end
  byte_vec original;         // the segment's bytes (without padding) of a non-canonical layout (else empty)
};

struct x8an_file {
  std::vector<x8an_segment> segments;
};
[[nodiscard]] x8an_file parse_x8an(byte_span file);
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
