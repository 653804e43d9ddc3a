// The GLB container (header, JSON chunk padded with spaces, BIN chunk padded with zeros)
// built by appending into reserved storage: detail::glb's bytes without first zero-filling
// the whole output (13 MB on a large animation), each byte written once.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

namespace rigrip::gltf::detail {

inline std::vector<std::uint8_t> glb_appended(std::string_view json, std::span<const std::uint8_t> bin) {
  const std::size_t jpad = (4 - json.size() % 4) % 4, bpad = (4 - bin.size() % 4) % 4;
  const std::size_t total = 12 + 8 + json.size() + jpad + (bin.empty() ? 0 : 8 + bin.size() + bpad);
  std::vector<std::uint8_t> o;
  o.reserve(total);
  auto u32 = [&](std::uint32_t v) {
    for (int i = 0; i < 4; ++i) o.push_back(static_cast<std::uint8_t>(v >> (8 * i)));
  };
  u32(0x46546C67);  // "glTF"
  u32(2);
  u32(static_cast<std::uint32_t>(total));
  u32(static_cast<std::uint32_t>(json.size() + jpad));
  u32(0x4E4F534A);  // "JSON"
  o.insert(o.end(), json.begin(), json.end());
  o.insert(o.end(), jpad, static_cast<std::uint8_t>(' '));
  if (!bin.empty()) {
    u32(static_cast<std::uint32_t>(bin.size() + bpad));
    u32(0x004E4942);  // "BIN\0"
    o.insert(o.end(), bin.begin(), bin.end());
    o.insert(o.end(), bpad, std::uint8_t{0});
  }
  return o;
}

}  // namespace rigrip::gltf::detail
