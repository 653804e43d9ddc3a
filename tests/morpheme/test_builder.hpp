// A tiny positional byte builder for hand-made test vectors: every field is written at
// the offset the layout tables give, so the tests do not share code with the writer.
#pragma once

#include <cstdint>
#include <cstring>
#include <vector>

namespace morpheme_test {

struct builder {
  std::vector<std::uint8_t> b;
  explicit builder(std::size_t n, std::uint8_t fill = 0) : b(n, fill) {}
  void u8(std::size_t at, std::uint8_t v) { b.at(at) = v; }
  void u16(std::size_t at, std::uint16_t v) { for (int i = 0; i < 2; ++i) b.at(at + i) = std::uint8_t(v >> (8 * i)); }
  void u32(std::size_t at, std::uint32_t v) { for (int i = 0; i < 4; ++i) b.at(at + i) = std::uint8_t(v >> (8 * i)); }
  void u32be(std::size_t at, std::uint32_t v) { for (int i = 0; i < 4; ++i) b.at(at + i) = std::uint8_t(v >> (8 * (3 - i))); }
  void u64(std::size_t at, std::uint64_t v) { for (int i = 0; i < 8; ++i) b.at(at + i) = std::uint8_t(v >> (8 * i)); }
  void f32(std::size_t at, float v) { std::uint32_t u; std::memcpy(&u, &v, 4); u32(at, u); }
  void factors(std::size_t at, float mx, float my, float mz, float ex, float ey, float ez) {
    f32(at, mx); f32(at + 4, my); f32(at + 8, mz); f32(at + 12, ex); f32(at + 16, ey); f32(at + 20, ez);
  }
  void info(std::size_t at, std::uint8_t ix, std::uint8_t iy, std::uint8_t iz, std::uint8_t fx, std::uint8_t fy, std::uint8_t fz) {
    u8(at, ix); u8(at + 1, iy); u8(at + 2, iz); u8(at + 3, fx); u8(at + 4, fy); u8(at + 5, fz);
  }
  // NSA header fields common to every vector.
  void nsa_header(float duration, float rate, std::uint32_t total, std::uint32_t animated) {
    u32(0x14, 16); f32(0x18, duration); f32(0x1C, rate); u32(0x20, total); u32(0x24, animated);
  }
};

}  // namespace morpheme_test
