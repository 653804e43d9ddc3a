// Line helpers for the field text formats (HRC, RSD).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/failure.hpp"

namespace rigrip::ff7 {

struct text_line {
  std::string text;
  std::uint64_t offset;
};

[[nodiscard]] std::string trim(std::string_view s);
// Non-blank lines with their byte offsets. Text files are small; refuse binary noise.
[[nodiscard]] std::vector<text_line> text_lines(std::span<const std::uint8_t> data, std::size_t max_bytes);
// Whitespace-separated words.
[[nodiscard]] std::vector<std::string> split(const std::string& s);
// A whole-string integer; fails with E_BAD_VALUE at the line's offset.
[[nodiscard]] long parse_int(const std::string& s, const text_line& l, const char* what);

}  // namespace rigrip::ff7
