// FF7 TEX textures: 0xEC-byte header, optional BGRA palette, pixels, optional colour-key array.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "core/byte_reader.hpp"
#include "rigrip/registry.hpp"

namespace rigrip::ff7 {

// TEX header word indices (offset / 4).
enum : std::size_t {
  w_version = 0, w_color_key = 2, w_palettes = 12, w_colors_per_palette = 13, w_bit_depth = 14,
  w_width = 15, w_height = 16, w_palette_flag = 19, w_bits_per_index = 20, w_palette_size = 22,
  w_colors_per_palette2 = 23, w_bits_per_pixel = 25, w_bytes_per_pixel = 26, w_red_bits = 27,
  w_red_mask = 31, w_red_shift = 35, w_red_max = 43, w_color_key_array = 47, w_ref_alpha = 49
};

struct tex_file {
  std::array<std::uint32_t, 59> header{};  // 0xEC bytes
  bytes palette;                           // palette size * 4 bytes (BGRA)
  bytes pixels;
  bytes color_key_array;
  bytes trailing;
  [[nodiscard]] std::uint32_t width() const { return header[15]; }
  [[nodiscard]] std::uint32_t height() const { return header[16]; }
};
[[nodiscard]] tex_file parse_tex(std::span<const std::uint8_t> data);
[[nodiscard]] bytes serialise_tex(const tex_file& t);
[[nodiscard]] int detect_tex(std::span<const std::uint8_t> data);
// Paletted 8-bit TEX when the image has at most 256 colours, else 32-bit direct colour.
[[nodiscard]] tex_file build_tex(std::uint32_t width, std::uint32_t height, std::span<const std::uint8_t> rgba);

}  // namespace rigrip::ff7
