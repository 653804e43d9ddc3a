// TEX textures: 0xEC-byte header, optional BGRA palette, pixels, optional colour-key array.
#include <algorithm>
#include <map>

#include "formats/ff7/tex.hpp"

namespace rigrip::ff7 {
namespace {
constexpr std::uint64_t max_pixels = 16384ull * 16384ull;
}  // namespace

tex_file parse_tex(std::span<const std::uint8_t> data) {
  core::byte_reader r(data);
  tex_file t;
  for (auto& h : t.header) h = r.u32();
  const auto& h = t.header;
  if (h[w_version] != 1) core::fail(code::bad_magic, "TEX version is " + std::to_string(h[w_version]) + ", expected 1", 0);
  if (h[w_palette_flag]) {
    auto n = r.checked_count(h[w_palette_size], 4, "TEX palette entries");
    auto b = r.bytes(4ull * n);
    t.palette.assign(b.begin(), b.end());
  }
  std::uint64_t bpp = h[w_bytes_per_pixel];
  if (bpp < 1 || bpp > 4)
    core::fail(code::bad_value, "TEX bytes per pixel is " + std::to_string(bpp) + ", expected 1 to 4", 4 * w_bytes_per_pixel);
  std::uint64_t pixels = std::uint64_t{h[w_width]} * h[w_height];
  if (h[w_width] == 0 || h[w_height] == 0 || pixels > max_pixels)
    core::fail(code::bad_value, "TEX size " + std::to_string(h[w_width]) + "x" + std::to_string(h[w_height]) +
                                    " is empty or larger than 16384x16384", 4 * w_width);
  auto n = r.checked_count(pixels, bpp, "TEX pixels");
  auto px = r.bytes(n * bpp);
  t.pixels.assign(px.begin(), px.end());
  if (h[w_color_key_array]) {
    auto k = r.checked_count(h[w_palettes], 1, "TEX colour-key array");
    auto b = r.bytes(k);
    t.color_key_array.assign(b.begin(), b.end());
  }
  auto rest = r.bytes(r.remaining());
  t.trailing.assign(rest.begin(), rest.end());
  return t;
}

bytes serialise_tex(const tex_file& t) {
  core::byte_writer w;
  for (auto h : t.header) w.u32(h);
  w.bytes(t.palette);
  w.bytes(t.pixels);
  w.bytes(t.color_key_array);
  w.bytes(t.trailing);
  return w.take();
}

int detect_tex(std::span<const std::uint8_t> data) {
  if (data.size() < 0xEC) return score::none;
  // The header alone rules out nearly every other file (the registry probes every input with
  // every format): the parse's own first checks and the rules below, before the parse, which
  // copies the pixels and throws on failure.
  core::byte_reader hr(data);
  auto word = [&](std::size_t i) { return hr.u32_at(4 * i); };
  const std::uint64_t bpp = word(w_bytes_per_pixel), pixels = std::uint64_t{word(w_width)} * word(w_height);
  if (word(w_version) != 1 || word(w_palette_flag) > 1 || word(w_color_key) > 1 || bpp < 1 || bpp > 4 ||
      pixels == 0 || pixels > max_pixels)
    return score::none;
  try {
    auto t = parse_tex(data);
    const auto& h = t.header;
    if (h[w_palette_flag] > 1 || h[w_color_key] > 1) return score::none;
    return t.trailing.empty() ? score::structure + 20 : score::structure;
  } catch (...) {
    return score::none;
  }
}

tex_file build_tex(std::uint32_t width, std::uint32_t height, std::span<const std::uint8_t> rgba) {
  if (std::size_t{width} * height * 4 != rgba.size()) core::fail(code::bad_value, "TEX image size mismatch");
  tex_file t;
  auto& h = t.header;
  std::map<std::uint32_t, std::uint8_t> colors;
  const std::size_t n = std::size_t{width} * height;
  for (std::size_t i = 0; i < n && colors.size() <= 256; ++i) {
    std::uint32_t c = std::uint32_t{rgba[4 * i]} | std::uint32_t{rgba[4 * i + 1]} << 8 |
                      std::uint32_t{rgba[4 * i + 2]} << 16 | std::uint32_t{rgba[4 * i + 3]} << 24;
    colors.emplace(c, 0);
  }
  h[w_version] = 1;
  h[3] = 1;
  h[5] = 4;  // min/max bits per colour, alpha bits, bits per pixel: the values game files carry
  h[6] = 8;
  h[7] = 4;
  h[8] = 8;
  h[9] = 8;
  h[10] = 32;
  h[w_width] = width;
  h[w_height] = height;
  h[w_ref_alpha] = 255;
  if (colors.size() <= 256) {
    std::uint8_t next = 0;
    for (auto& [c, idx] : colors) {
      idx = next++;
      t.palette.push_back(static_cast<std::uint8_t>(c >> 16));  // B
      t.palette.push_back(static_cast<std::uint8_t>(c >> 8));   // G
      t.palette.push_back(static_cast<std::uint8_t>(c));        // R
      t.palette.push_back(static_cast<std::uint8_t>(c >> 24));  // A
    }
    for (std::size_t i = 0; i < n; ++i) {
      std::uint32_t c = std::uint32_t{rgba[4 * i]} | std::uint32_t{rgba[4 * i + 1]} << 8 |
                        std::uint32_t{rgba[4 * i + 2]} << 16 | std::uint32_t{rgba[4 * i + 3]} << 24;
      t.pixels.push_back(colors[c]);
    }
    auto count = static_cast<std::uint32_t>(colors.size());
    h[w_palettes] = 1;
    h[w_colors_per_palette] = count;
    h[w_bit_depth] = 8;
    h[w_palette_flag] = 1;
    h[w_bits_per_index] = 8;
    h[w_palette_size] = count;
    h[w_colors_per_palette2] = count;
    h[w_bits_per_pixel] = 8;
    h[w_bytes_per_pixel] = 1;
  } else {
    h[w_bit_depth] = 32;
    h[w_bits_per_pixel] = 32;
    h[w_bytes_per_pixel] = 4;
    for (std::size_t c = 0; c < 4; ++c) {
      static constexpr std::uint32_t shifts[4] = {16, 8, 0, 24};  // stored B, G, R, A
      h[w_red_bits + c] = 8;
      h[w_red_mask + c] = 0xFFu << shifts[c];
      h[w_red_shift + c] = shifts[c];
      h[39 + c] = 0;  // 8 - bits
      h[w_red_max + c] = 255;
    }
    for (std::size_t i = 0; i < n; ++i) {
      t.pixels.push_back(rgba[4 * i + 2]);
      t.pixels.push_back(rgba[4 * i + 1]);
      t.pixels.push_back(rgba[4 * i]);
      t.pixels.push_back(rgba[4 * i + 3]);
    }
  }
  return t;
}

}  // namespace rigrip::ff7
