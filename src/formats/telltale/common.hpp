// Small helpers shared by detection (register.cpp), decode.cpp and encode.cpp; internal
// to the family.
#pragma once

#include <cctype>
#include <filesystem>
#include <string>
#include <string_view>

namespace rigrip::telltale {

// Name of the root-motion node decode makes from the "absoluteNode" track and encode
// writes back to it.
inline constexpr const char* mover_name = "absoluteNode";

inline std::string lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

inline bool ends_with_ci(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && lower(std::string(s.substr(s.size() - suffix.size()))) == suffix;
}

// The engine names an animation by crc64 of its file name (with extension).
inline std::string file_name(const std::string& path) { return std::filesystem::path(path).filename().string(); }

}  // namespace rigrip::telltale
