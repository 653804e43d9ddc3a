// Wii U GX2 surfaces: the texture formats and the tiled memory layouts (linear,
// 1D micro-tiled, 2D macro-tiled with the Latte GPU's 2 pipes and 4 banks), so that an
// FTEX image can be read as plain rows of pixels. Independent of FRES: anything that
// holds a GX2 surface (FTEX, GTX) can use it.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace rigrip::bfres::gx2 {

// GX2SurfaceFormat values the decoder knows (low byte = layout, 0x100.. = type bits).
enum class layout {
  r8, r4g4, r16, r8g8, r5g6b5, r5g5b5a1, r4g4b4a4, a1b5g5r5, r10g10b10a2, r8g8b8a8, r16g16b16a16_float,
  bc1, bc2, bc3, bc4, bc5
};

struct format_info {
  layout kind;
  std::uint32_t bits_per_element;  // per pixel, or per 4x4 block for BC formats
  bool block_compressed;
  bool srgb;
  bool snorm;
  const char* name;
};
// The format, or nothing when the decoder does not handle it.
[[nodiscard]] std::optional<format_info> describe(std::uint32_t gx2_format);
[[nodiscard]] std::string format_name(std::uint32_t gx2_format);

// GX2TileMode values with a known layout: 1 linear aligned, 2 1D tiled thin1,
// 4 2D tiled thin1, 5 2D thin2, 6 2D thin4 (0 default and 16 linear special are read as linear).
[[nodiscard]] bool tile_mode_supported(std::uint32_t tile_mode);
[[nodiscard]] const char* tile_mode_name(std::uint32_t tile_mode);

// Byte offset of element (x, y) of slice 0 in a surface with `pitch` elements per row.
// Elements are pixels, or 4x4 blocks for BC formats. `swizzle` is GX2Surface.swizzle
// (bits 8-10: pipe and bank swizzle of macro-tiled surfaces).
[[nodiscard]] std::uint64_t element_offset(std::uint32_t x, std::uint32_t y, std::uint32_t bits_per_element,
                                           std::uint32_t tile_mode, std::uint32_t pitch, std::uint32_t swizzle);

struct surface {
  std::uint32_t width = 0, height = 0;  // pixels
  std::uint32_t format = 0, tile_mode = 0, swizzle = 0, pitch = 0;
  std::array<std::uint8_t, 4> comp_sel{0, 1, 2, 3};  // source of R, G, B, A: 0-3 channel, 4 zero, 5 one
};

// Reorders the base level of `data` into linear element rows (pitch = element width).
// Fails (core::failure, E_TRUNCATED) when an element lies past the data; `data_at` is
// the data's file offset for the message.
[[nodiscard]] std::vector<std::uint8_t> untile(const surface& s, std::span<const std::uint8_t> data,
                                               std::uint64_t data_at);
// The inverse (linear element rows -> tiled bytes of `size`), for tests and writers.
[[nodiscard]] std::vector<std::uint8_t> tile(const surface& s, std::span<const std::uint8_t> linear,
                                             std::size_t size);

// Layout of mip level `level` (>= 1) of a 2D single-sample surface whose base level is
// `base` (its width, height, format, tile mode and pitch), by the GX2 address library's
// rules: the level's size is max(1, base >> level) rounded up to a power of two; 2D
// macro tiling falls back to 1D (thin1) once the padded level is narrower than a macro
// tile times the pipe-interleave factor or lower than one; the pitch is the padded width
// aligned for its tile mode (linear: 64 elements or 256 bytes; 1D: 8 elements or
// 256 bytes per micro-tile row; 2D: a macro tile, 32 / 16 / 8 elements wide). `size` is
// pitch x aligned height x element bytes. Where the level sits comes from the surface's
// mip offsets, not from here.
struct mip_level {
  std::uint32_t width = 0, height = 0;  // pixels (unpadded: what the level shows)
  std::uint32_t tile_mode = 0;
  std::uint32_t pitch = 0;              // elements
  std::uint64_t size = 0;               // bytes
};
[[nodiscard]] mip_level mip_layout(const surface& base, std::uint32_t level);

// Decodes the base level to RGBA8, rows top to bottom, after the component selection.
// Block formats go through libsquish. Fails with E_UNSUPPORTED_FEATURE for a format or
// tile mode the decoder does not know.
[[nodiscard]] std::vector<std::uint8_t> decode_rgba(const surface& s, std::span<const std::uint8_t> data,
                                                    std::uint64_t data_at);

}  // namespace rigrip::bfres::gx2
