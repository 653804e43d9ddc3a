// TEX textures: 0xEC-byte header, optional BGRA palette, pixels, optional colour-key array.
#include <algorithm>
#include <map>

#include "formats/ff7/ff7.hpp"

namespace rigrip::ff7 {
namespace {
// Header word indices (offset / 4).
enum : std::size_t {
  w_version = 0, w_color_key = 2, w_palettes = 12, w_colors_per_palette = 13, w_bit_depth = 14,
  w_width = 15, w_height = 16, w_palette_flag = 19, w_bits_per_index = 20, w_palette_size = 22,
  w_colors_per_palette2 = 23, w_bits_per_pixel = 25, w_bytes_per_pixel = 26, w_red_bits = 27,
  w_red_mask = 31, w_red_shift = 35, w_red_max = 43, w_color_key_array = 47, w_ref_alpha = 49
};
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
  try {
    auto t = parse_tex(data);
    const auto& h = t.header;
    if (h[w_palette_flag] > 1 || h[w_color_key] > 1) return score::none;
    return t.trailing.empty() ? score::structure + 20 : score::structure;
  } catch (...) {
    return score::none;
  }
}

texture tex_to_texture(const tex_file& t, const std::string& name) {
  const auto& h = t.header;
  texture out;
  out.name = name;
  out.width = t.width();
  out.height = t.height();
  const std::size_t n = std::size_t{out.width} * out.height;
  out.rgba.resize(n * 4);
  const std::size_t bpp = h[w_bytes_per_pixel];
  const bool color_key = h[w_color_key] != 0;
  if (h[w_palette_flag]) {
    const std::size_t entries = t.palette.size() / 4;
    // Palette 0 only; further palettes are alternative colourings of the same pixels.
    const std::size_t per = h[w_colors_per_palette] ? std::min<std::size_t>(h[w_colors_per_palette], entries) : entries;
    bool any_alpha = false;
    std::size_t bad = 0;
    for (std::size_t i = 0; i < per; ++i) any_alpha |= t.palette[4 * i + 3] != 0;
    for (std::size_t i = 0; i < n; ++i) {
      std::uint32_t idx = 0;
      for (std::size_t b = 0; b < bpp; ++b) idx |= std::uint32_t{t.pixels[i * bpp + b]} << (8 * b);
      std::uint8_t* o = &out.rgba[4 * i];
      if (idx >= per) {  // out-of-palette index: transparent, reported in extras
        o[0] = o[1] = o[2] = o[3] = 0;
        ++bad;
        continue;
      }
      const std::uint8_t* c = &t.palette[4 * idx];
      o[0] = c[2];
      o[1] = c[1];
      o[2] = c[0];
      o[3] = any_alpha ? c[3] : 255;
      if (color_key && c[0] == 0 && c[1] == 0 && c[2] == 0) o[3] = 0;
    }
    if (bad) out.extras["bad_palette_indices"] = bad;
    out.extras["palettes"] = h[w_palettes];
    out.extras["colors_per_palette"] = h[w_colors_per_palette];
  } else {
    auto comp = [&](std::uint32_t v, std::size_t c) -> std::uint8_t {
      std::uint32_t mask = h[w_red_mask + c], shift = h[w_red_shift + c], bits = h[w_red_bits + c];
      if (bits == 0 || bits > 16 || shift > 31) return c == 3 ? 255 : 0;
      std::uint32_t max = (1u << bits) - 1;
      return static_cast<std::uint8_t>(((v & mask) >> shift) * 255u / max);
    };
    for (std::size_t i = 0; i < n; ++i) {
      std::uint32_t v = 0;
      for (std::size_t b = 0; b < bpp; ++b) v |= std::uint32_t{t.pixels[i * bpp + b]} << (8 * b);
      std::uint8_t* o = &out.rgba[4 * i];
      for (std::size_t c = 0; c < 4; ++c) o[c] = comp(v, c);
      if (color_key && o[0] == 0 && o[1] == 0 && o[2] == 0) o[3] = 0;
    }
  }
  out.extras["color_key"] = color_key;
  return out;
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
