// Bounds for the JSON that users write by hand (scene JSON, glTF). JSON libraries recurse
// on nesting (parsing, copying, destroying, printing), so depth is checked by a flat scan
// of the bytes before any library sees them.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "rigrip/error.hpp"

namespace rigrip::json_limits {

// Deepest nesting of arrays/objects accepted in scene JSON and glTF (docs/fuzzing.md).
// Real files nest < 20 levels; 256 keeps every recursive walk far from the stack limit.
inline constexpr int max_depth = 256;

// The offset of the bracket that opens level max_depth + 1, if any. Strings (with their
// escapes) are skipped, so brackets inside names do not count.
[[nodiscard]] inline std::optional<std::uint64_t> too_deep(byte_view d, int limit = max_depth) {
  int depth = 0;
  bool in_string = false;
  for (std::size_t i = 0; i < d.size(); ++i) {
    const auto c = d[i];
    if (in_string) {
      if (c == '\\') ++i;
      else if (c == '"') in_string = false;
      continue;
    }
    if (c == '"') in_string = true;
    else if (c == '[' || c == '{') {
      if (++depth > limit) return i;
    } else if ((c == ']' || c == '}') && depth > 0) --depth;
  }
  return std::nullopt;
}

// Keys of the top-level object found in `d` (a prefix of the file is enough): what
// detection looks at, so a key inside extras or a long array never misleads it.
[[nodiscard]] inline std::vector<std::string> top_level_keys(byte_view d, std::size_t max_keys = 64) {
  std::vector<std::string> keys;
  std::size_t i = 0;
  auto ws = [&] {
    while (i < d.size() && (d[i] == ' ' || d[i] == '\n' || d[i] == '\r' || d[i] == '\t')) ++i;
  };
  ws();
  if (i >= d.size() || d[i] != '{') return keys;
  ++i;
  int depth = 1;
  bool expect_key = true;  // after '{' or ',' at depth 1
  while (i < d.size() && depth > 0 && keys.size() < max_keys) {
    const auto c = d[i];
    if (c == '"') {
      const std::size_t start = ++i;
      while (i < d.size() && d[i] != '"') i += d[i] == '\\' ? 2 : 1;
      if (i >= d.size()) break;
      if (depth == 1 && expect_key)
        keys.emplace_back(reinterpret_cast<const char*>(d.data()) + start, i - start);
      expect_key = false;
      ++i;
      continue;
    }
    if (c == '{' || c == '[') ++depth;
    else if (c == '}' || c == ']') --depth;
    else if (c == ',' && depth == 1) expect_key = true;
    ++i;
  }
  return keys;
}

}  // namespace rigrip::json_limits
