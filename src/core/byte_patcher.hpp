// Writes fixed-size values at given offsets of an existing byte image (the write-back of
// raw layers that keep the file image whole and patch the fields they model).
#pragma once

#include <bit>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "core/failure.hpp"

namespace rigrip::core {

struct byte_patcher {
  std::vector<std::uint8_t>& image;
  bool little_endian = false;
  const char* what = "serialise";  // starts the message of a write outside the image

  void check(std::uint32_t at, std::uint32_t n) const {
    if (static_cast<std::uint64_t>(at) + n > image.size())
      fail(code::internal, std::string(what) + " outside the image", at);
  }
  void u8(std::uint32_t at, std::uint8_t v) {
    check(at, 1);
    image[at] = v;
  }
  void u16(std::uint32_t at, std::uint16_t v) {
    check(at, 2);
    for (std::uint32_t i = 0; i < 2; ++i)
      image[at + (little_endian ? i : 1 - i)] = static_cast<std::uint8_t>(v >> (8 * i));
  }
  void u32(std::uint32_t at, std::uint32_t v) {
    check(at, 4);
    for (std::uint32_t i = 0; i < 4; ++i)
      image[at + (little_endian ? i : 3 - i)] = static_cast<std::uint8_t>(v >> (8 * i));
  }
  void f32(std::uint32_t at, float v) { u32(at, std::bit_cast<std::uint32_t>(v)); }
  void magic(std::uint32_t at, const char* m) {
    check(at, 4);
    std::memcpy(image.data() + at, m, 4);
  }
};

}  // namespace rigrip::core
