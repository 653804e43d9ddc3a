// File-name helpers shared by detection (register.cpp) and sibling pairing (decode.cpp).
#pragma once

#include <cctype>
#include <string>
#include <string_view>

namespace rigrip::sf3 {

[[nodiscard]] inline std::string base_name(std::string_view path) {
  auto slash = path.find_last_of("/\\");
  return std::string(slash == std::string_view::npos ? path : path.substr(slash + 1));
}
[[nodiscard]] inline std::string dir_of(std::string_view path) {
  auto slash = path.find_last_of("/\\");
  return slash == std::string_view::npos ? std::string() : std::string(path.substr(0, slash + 1));
}
[[nodiscard]] inline std::string stem(std::string_view path) {
  std::string b = base_name(path);
  auto dot = b.find_last_of('.');
  return dot == std::string::npos ? b : b.substr(0, dot);
}
[[nodiscard]] inline std::string lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}
[[nodiscard]] inline std::string upper(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

}  // namespace rigrip::sf3
