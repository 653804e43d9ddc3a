// Line helpers for the field text formats (HRC, RSD).
#include "formats/ff7/field_text.hpp"

#include <cctype>
#include <charconv>

namespace rigrip::ff7 {

std::string trim(std::string_view s) {
  std::size_t a = 0, b = s.size();
  while (a < b && std::isspace(static_cast<unsigned char>(s[a]))) ++a;
  while (b > a && std::isspace(static_cast<unsigned char>(s[b - 1]))) --b;
  return std::string(s.substr(a, b - a));
}

// Non-blank lines with their byte offsets. Text files are small; refuse binary noise.
std::vector<text_line> text_lines(std::span<const std::uint8_t> data, std::size_t max_bytes) {
  if (data.size() > max_bytes)
    core::fail(code::limit_exceeded, "text file of " + std::to_string(data.size()) + " bytes exceeds the " +
                                         std::to_string(max_bytes) + "-byte limit for this format", 0);
  std::vector<text_line> out;
  std::size_t start = 0;
  for (std::size_t i = 0; i <= data.size(); ++i) {
    if (i < data.size() && data[i] == 0) core::fail(code::bad_value, "NUL byte in a text file", i);
    if (i == data.size() || data[i] == '\n') {
      std::string_view s(reinterpret_cast<const char*>(data.data()) + start, i - start);
      auto t = trim(s);
      if (!t.empty()) out.push_back({t, start});
      start = i + 1;
    }
  }
  return out;
}

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> out;
  std::size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
    std::size_t j = i;
    while (j < s.size() && !std::isspace(static_cast<unsigned char>(s[j]))) ++j;
    if (j > i) out.push_back(s.substr(i, j - i));
    i = j;
  }
  return out;
}

long parse_int(const std::string& s, const text_line& l, const char* what) {
  long v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size())
    core::fail(code::bad_value, std::string(what) + ": expected an integer, found '" + s + "'", l.offset);
  return v;
}

}  // namespace rigrip::ff7
