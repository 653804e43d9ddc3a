// Tegra X1 (Switch) block-linear surface layout, as BNTX textures store their images: bytes
// sit in GOBs of 64 bytes x 8 rows (512 bytes), GOBs stack `block_height` high (1..32, a power
// of two) into blocks, and blocks run left to right, then down. An element is a pixel or a 4x4
// compressed block of `bytes_per_element` bytes. No format knowledge here: deswizzled bytes go
// to the texel decoders.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace rigrip::bfres::tegra {

inline constexpr std::uint32_t gob_width = 64, gob_height = 8, gob_size = 512;

// Byte offset of byte column `x` (in bytes), row `y` inside one GOB (x < 64, y < 8):
// x bit 5 -> 256, y bits 1-2 -> 64, x bit 4 -> 32, y bit 0 -> 16, x bits 0-3 -> 1.
[[nodiscard]] constexpr std::uint32_t gob_offset(std::uint32_t x, std::uint32_t y) {
  return ((x % 64) / 32) * 256 + ((y % 8) / 2) * 64 + ((x % 32) / 16) * 32 + (y % 2) * 16 + (x % 16);
}

// Byte offset of byte column `x`, row `y` of a surface `row_bytes` wide (rounded up to whole
// GOBs) with blocks `block_height` GOBs high.
[[nodiscard]] std::uint64_t block_linear_offset(std::uint32_t x, std::uint32_t y, std::uint32_t row_bytes,
                                                std::uint32_t block_height);

// Bytes a block-linear surface of `width` x `height` elements occupies (whole blocks).
[[nodiscard]] std::uint64_t surface_size(std::uint32_t width, std::uint32_t height, std::uint32_t bytes_per_element,
                                         std::uint32_t block_height);

// Linear rows (width * bytes_per_element bytes each, top to bottom) from a block-linear
// surface. Throws core::failure: block height not a power of two in 1..32, element size not
// 1..16, sizes over 16384, or data shorter than surface_size() (checked before allocating).
[[nodiscard]] std::vector<std::uint8_t> deswizzle(std::span<const std::uint8_t> data, std::uint32_t width,
                                                  std::uint32_t height, std::uint32_t bytes_per_element,
                                                  std::uint32_t block_height);
// The inverse (a test and writer helper): linear rows -> a block-linear surface.
[[nodiscard]] std::vector<std::uint8_t> swizzle(std::span<const std::uint8_t> linear, std::uint32_t width,
                                                std::uint32_t height, std::uint32_t bytes_per_element,
                                                std::uint32_t block_height);

}  // namespace rigrip::bfres::tegra
