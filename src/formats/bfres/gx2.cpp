#include "formats/bfres/gx2.hpp"

#include <squish.h>

#include <algorithm>
#include <cstring>

#include "core/failure.hpp"

namespace rigrip::bfres::gx2 {
namespace {

// The Latte GPU's address configuration (2 pipes, 4 banks, 256-byte pipe interleave).
constexpr std::uint32_t num_pipes = 2, num_banks = 4;
constexpr std::uint32_t pipe_interleave_bits = 8;  // 256 bytes
constexpr std::uint32_t pipe_bits = 1, bank_bits = 2;

std::uint32_t bit(std::uint32_t v, int i) { return (v >> i) & 1u; }

// Position of an element inside its 8x8 micro tile (thin, colour surfaces): the bit
// interleave of x and y depends on the element size.
std::uint32_t pixel_index(std::uint32_t x, std::uint32_t y, std::uint32_t bpp) {
  const std::uint32_t x0 = bit(x, 0), x1 = bit(x, 1), x2 = bit(x, 2);
  const std::uint32_t y0 = bit(y, 0), y1 = bit(y, 1), y2 = bit(y, 2);
  std::array<std::uint32_t, 6> b{};
  switch (bpp) {
    case 8: b = {x0, x1, x2, y1, y0, y2}; break;
    case 16: b = {x0, x1, x2, y0, y1, y2}; break;
    case 64: b = {x0, y0, x1, x2, y1, y2}; break;
    case 128: b = {y0, x0, x1, x2, y1, y2}; break;
    default: b = {x0, x1, y0, x2, y1, y2}; break;  // 32 and 96
  }
  std::uint32_t v = 0;
  for (int i = 0; i < 6; ++i) v |= b[static_cast<std::size_t>(i)] << i;
  return v;
}

std::uint64_t micro_tiled(std::uint32_t x, std::uint32_t y, std::uint32_t bpp, std::uint32_t pitch) {
  const std::uint64_t micro_tile_bytes = bpp * 64ull / 8;
  const std::uint64_t tile = (x / 8) + static_cast<std::uint64_t>(y / 8) * (pitch / 8);
  return tile * micro_tile_bytes + bpp * pixel_index(x & 7, y & 7, bpp) / 8;
}

std::uint64_t macro_tiled(std::uint32_t x, std::uint32_t y, std::uint32_t bpp, std::uint32_t tile_mode,
                          std::uint32_t pitch, std::uint32_t swizzle) {
  const std::uint64_t elem = bpp * pixel_index(x & 7, y & 7, bpp) / 8;
  // Pipe and bank from the coordinates, then the surface's pipe/bank swizzle.
  std::uint32_t pipe = (bit(x, 3) ^ bit(y, 3));
  std::uint32_t bank = ((y / (16 * num_pipes)) ^ (x >> 3)) & 1u;
  bank |= (((y / (8 * num_pipes)) ^ (x >> 4)) & 1u) << 1;
  const std::uint32_t pipe_swizzle = (swizzle >> 8) & 1u, bank_swizzle = (swizzle >> 9) & 3u;
  std::uint32_t bank_pipe = (pipe + num_pipes * bank) ^ (pipe_swizzle + num_pipes * bank_swizzle);
  bank_pipe %= num_pipes * num_banks;
  pipe = bank_pipe % num_pipes;
  bank = bank_pipe / num_pipes;
  // Macro tiles: 32x16 elements (thin1), 16x32 (thin2), 8x64 (thin4).
  std::uint32_t mt_pitch = 8 * num_banks, mt_height = 8 * num_pipes;
  if (tile_mode == 5) mt_pitch /= 2, mt_height *= 2;
  if (tile_mode == 6) mt_pitch /= 4, mt_height *= 4;
  const std::uint64_t mt_bytes = (static_cast<std::uint64_t>(bpp) * mt_height * mt_pitch + 7) / 8;
  const std::uint64_t mt_index = (x / mt_pitch) + static_cast<std::uint64_t>(pitch / mt_pitch) * (y / mt_height);
  const std::uint64_t total = elem + ((mt_index * mt_bytes) >> (bank_bits + pipe_bits));
  const std::uint64_t group_mask = (1u << pipe_interleave_bits) - 1;
  return (static_cast<std::uint64_t>(bank) << (pipe_bits + pipe_interleave_bits)) |
         (static_cast<std::uint64_t>(pipe) << pipe_interleave_bits) | (total & group_mask) |
         ((total & ~group_mask) << (bank_bits + pipe_bits));
}

struct rgba {
  std::uint8_t c[4];
};
std::uint8_t expand(std::uint32_t v, int bits) {
  const std::uint32_t max = (1u << bits) - 1;
  return static_cast<std::uint8_t>((v * 255 + max / 2) / max);
}

std::uint32_t le16(const std::uint8_t* p) { return p[0] | (std::uint32_t(p[1]) << 8); }
std::uint32_t le32(const std::uint8_t* p) { return le16(p) | (le16(p + 2) << 16); }

// One 4x4 BC block -> 16 RGBA pixels. BC4/BC5 channels are DXT5 alpha blocks, which
// libsquish decodes (its own BC4/BC5 paths only compress).
void decode_block(layout k, const std::uint8_t* blk, std::uint8_t out[64]) {
  switch (k) {
    case layout::bc1: squish::Decompress(out, blk, squish::kDxt1); return;
    case layout::bc2: squish::Decompress(out, blk, squish::kDxt3); return;
    case layout::bc3: squish::Decompress(out, blk, squish::kDxt5); return;
    default: break;
  }
  std::uint8_t tmp[16]{}, px[64];
  const int channels = k == layout::bc5 ? 2 : 1;
  for (int ch = 0; ch < channels; ++ch) {
    std::memcpy(tmp, blk + 8 * ch, 8);
    std::memset(tmp + 8, 0, 8);
    squish::Decompress(px, tmp, squish::kDxt5);
    for (int i = 0; i < 16; ++i) out[4 * i + ch] = px[4 * i + 3];
  }
  for (int i = 0; i < 16; ++i) {
    if (channels == 1) out[4 * i + 1] = 0;
    out[4 * i + 2] = 0;
    out[4 * i + 3] = 255;
  }
}

rgba decode_texel(layout k, const std::uint8_t* p) {
  switch (k) {
    case layout::r8: return {{p[0], 0, 0, 255}};
    case layout::r4g4: return {{expand(p[0] & 15u, 4), expand(p[0] >> 4, 4), 0, 255}};
    case layout::r16: return {{static_cast<std::uint8_t>((le16(p) * 255 + 32767) / 65535), 0, 0, 255}};
    case layout::r8g8: return {{p[0], p[1], 0, 255}};
    case layout::r5g6b5: {
      const std::uint32_t v = le16(p);
      return {{expand(v & 31u, 5), expand((v >> 5) & 63u, 6), expand(v >> 11, 5), 255}};
    }
    case layout::r5g5b5a1: {
      const std::uint32_t v = le16(p);
      return {{expand(v & 31u, 5), expand((v >> 5) & 31u, 5), expand((v >> 10) & 31u, 5), static_cast<std::uint8_t>((v >> 15) ? 255 : 0)}};
    }
    case layout::a1b5g5r5: {
      const std::uint32_t v = le16(p);
      return {{expand(v >> 11, 5), expand((v >> 6) & 31u, 5), expand((v >> 1) & 31u, 5), static_cast<std::uint8_t>((v & 1u) ? 255 : 0)}};
    }
    case layout::r4g4b4a4: {
      const std::uint32_t v = le16(p);
      return {{expand(v & 15u, 4), expand((v >> 4) & 15u, 4), expand((v >> 8) & 15u, 4), expand(v >> 12, 4)}};
    }
    case layout::r10g10b10a2: {
      const std::uint32_t v = le32(p);
      return {{static_cast<std::uint8_t>(expand(v & 1023u, 10)), expand((v >> 10) & 1023u, 10), expand((v >> 20) & 1023u, 10), expand(v >> 30, 2)}};
    }
    case layout::r8g8b8a8: return {{p[0], p[1], p[2], p[3]}};
    default: return {{0, 0, 0, 255}};
  }
}

}  // namespace

std::optional<format_info> describe(std::uint32_t f) {
  const bool srgb = (f & 0xF00) == 0x400, snorm = (f & 0xF00) == 0x200;
  // Integer (0x100, 0x300) and float (0x800) variants are not colour data we can show.
  if ((f & 0xF00) != 0 && !srgb) return std::nullopt;
  switch (f & 0xFF) {
    case 0x01: return format_info{layout::r8, 8, false, false, false, "R8_UNORM"};
    case 0x02: return format_info{layout::r4g4, 8, false, false, false, "R4_G4_UNORM"};
    case 0x05: return format_info{layout::r16, 16, false, false, false, "R16_UNORM"};
    case 0x07: return format_info{layout::r8g8, 16, false, false, false, "R8_G8_UNORM"};
    case 0x08: return format_info{layout::r5g6b5, 16, false, false, false, "R5_G6_B5_UNORM"};
    case 0x0A: return format_info{layout::r5g5b5a1, 16, false, false, false, "R5_G5_B5_A1_UNORM"};
    case 0x0B: return format_info{layout::r4g4b4a4, 16, false, false, false, "R4_G4_B4_A4_UNORM"};
    case 0x0C: return format_info{layout::a1b5g5r5, 16, false, false, false, "A1_B5_G5_R5_UNORM"};
    case 0x19: return format_info{layout::r10g10b10a2, 32, false, false, false, "R10_G10_B10_A2_UNORM"};
    case 0x1A: return format_info{layout::r8g8b8a8, 32, false, srgb, false, srgb ? "R8_G8_B8_A8_SRGB" : "R8_G8_B8_A8_UNORM"};
    case 0x31: return format_info{layout::bc1, 64, true, srgb, false, srgb ? "BC1_SRGB" : "BC1_UNORM"};
    case 0x32: return format_info{layout::bc2, 128, true, srgb, false, srgb ? "BC2_SRGB" : "BC2_UNORM"};
    case 0x33: return format_info{layout::bc3, 128, true, srgb, false, srgb ? "BC3_SRGB" : "BC3_UNORM"};
    case 0x34:
      if (srgb) return std::nullopt;
      return format_info{layout::bc4, 64, true, false, false, "BC4_UNORM"};
    case 0x35:
      if (srgb) return std::nullopt;
      return format_info{layout::bc5, 128, true, false, false, "BC5_UNORM"};
    default: return std::nullopt;
  }
  (void)snorm;
}

std::string format_name(std::uint32_t f) {
  if (auto d = describe(f)) return d->name;
  char buf[32];
  std::snprintf(buf, sizeof buf, "0x%X", f);
  return buf;
}

bool tile_mode_supported(std::uint32_t m) { return m <= 2 || (m >= 4 && m <= 6) || m == 16; }

const char* tile_mode_name(std::uint32_t m) {
  static const char* names[] = {"default", "linear_aligned", "1d_tiled_thin1", "1d_tiled_thick", "2d_tiled_thin1",
                                "2d_tiled_thin2", "2d_tiled_thin4", "2d_tiled_thick", "2b_tiled_thin1",
                                "2b_tiled_thin2", "2b_tiled_thin4", "2b_tiled_thick", "3d_tiled_thin1",
                                "3d_tiled_thick", "3b_tiled_thin1", "3b_tiled_thick", "linear_special"};
  return m < 17 ? names[m] : "unknown";
}

std::uint64_t element_offset(std::uint32_t x, std::uint32_t y, std::uint32_t bpp, std::uint32_t tile_mode,
                             std::uint32_t pitch, std::uint32_t swizzle) {
  switch (tile_mode) {
    case 2: return micro_tiled(x, y, bpp, pitch);
    case 4:
    case 5:
    case 6: return macro_tiled(x, y, bpp, tile_mode, pitch, swizzle);
    default: return (static_cast<std::uint64_t>(y) * pitch + x) * bpp / 8;  // linear
  }
}

namespace {
struct dims {
  std::uint32_t w, h, bytes;
};
dims element_dims(const surface& s, const format_info& fi) {
  const std::uint32_t d = fi.block_compressed ? 4 : 1;
  return {(s.width + d - 1) / d, (s.height + d - 1) / d, fi.bits_per_element / 8};
}
format_info need_format(const surface& s) {
  auto fi = describe(s.format);
  if (!fi) core::fail(code::unsupported_feature, "GX2 surface format " + format_name(s.format) + " is not supported");
  if (!tile_mode_supported(s.tile_mode))
    core::fail(code::unsupported_feature, std::string("GX2 tile mode ") + std::to_string(s.tile_mode) + " (" +
                                              tile_mode_name(s.tile_mode) + ") is not supported");
  return *fi;
}
void check_pitch(const surface& s, const dims& d) {
  if (s.pitch < d.w)
    core::fail(code::bad_value, "GX2 surface pitch " + std::to_string(s.pitch) + " is smaller than its width of " +
                                    std::to_string(d.w) + " elements");
}
}  // namespace

std::vector<std::uint8_t> untile(const surface& s, std::span<const std::uint8_t> data, std::uint64_t data_at) {
  const format_info fi = need_format(s);
  const dims d = element_dims(s, fi);
  check_pitch(s, d);
  std::vector<std::uint8_t> out(static_cast<std::size_t>(d.w) * d.h * d.bytes);
  for (std::uint32_t y = 0; y < d.h; ++y)
    for (std::uint32_t x = 0; x < d.w; ++x) {
      const std::uint64_t at = element_offset(x, y, fi.bits_per_element, s.tile_mode, s.pitch, s.swizzle);
      if (at + d.bytes > data.size())
        core::fail(code::truncated, "texture element (" + std::to_string(x) + ", " + std::to_string(y) + ") lies at byte " +
                                        std::to_string(at) + ", past the " + std::to_string(data.size()) +
                                        " bytes of image data",
                   data_at);
      std::memcpy(out.data() + (static_cast<std::size_t>(y) * d.w + x) * d.bytes, data.data() + at, d.bytes);
    }
  return out;
}

std::vector<std::uint8_t> tile(const surface& s, std::span<const std::uint8_t> linear, std::size_t size) {
  const format_info fi = need_format(s);
  const dims d = element_dims(s, fi);
  check_pitch(s, d);
  if (linear.size() < static_cast<std::size_t>(d.w) * d.h * d.bytes)
    core::fail(code::truncated, "linear image smaller than the surface");
  std::vector<std::uint8_t> out(size);
  for (std::uint32_t y = 0; y < d.h; ++y)
    for (std::uint32_t x = 0; x < d.w; ++x) {
      const std::uint64_t at = element_offset(x, y, fi.bits_per_element, s.tile_mode, s.pitch, s.swizzle);
      if (at + d.bytes > size) core::fail(code::limit_exceeded, "tiled size too small for the surface");
      std::memcpy(out.data() + at, linear.data() + (static_cast<std::size_t>(y) * d.w + x) * d.bytes, d.bytes);
    }
  return out;
}

namespace {
std::uint32_t next_pow2(std::uint32_t v) {
  std::uint32_t p = 1;
  while (p < v && p < (1u << 31)) p <<= 1;
  return p;
}
std::uint32_t align_up(std::uint32_t v, std::uint32_t a) { return (v + a - 1) / a * a; }
}  // namespace

mip_level mip_layout(const surface& base, std::uint32_t level) {
  const format_info fi = need_format(base);
  const std::uint32_t bpp = fi.bits_per_element;
  mip_level m;
  m.width = std::max<std::uint32_t>(1, base.width >> std::min<std::uint32_t>(level, 31));
  m.height = std::max<std::uint32_t>(1, base.height >> std::min<std::uint32_t>(level, 31));
  const std::uint32_t d = fi.block_compressed ? 4 : 1;
  // Padded element grid of the level.
  const std::uint32_t ew = (next_pow2(m.width) + d - 1) / d, eh = (next_pow2(m.height) + d - 1) / d;
  std::uint32_t mode = base.tile_mode == 0 || base.tile_mode == 16 ? 1 : base.tile_mode;
  if (mode >= 4 && mode <= 6) {
    const std::uint32_t micro_tile_bytes = bpp * 64 / 8;
    const std::uint32_t factor = micro_tile_bytes < 256 ? 256 / micro_tile_bytes : 1;
    std::uint32_t mt_w = 8 * num_banks, mt_h = 8 * num_pipes;
    if (mode == 5) mt_w /= 2, mt_h *= 2;
    if (mode == 6) mt_w /= 4, mt_h *= 4;
    if (next_pow2(ew) < factor * mt_w || next_pow2(eh) < mt_h) mode = 2;
  }
  m.tile_mode = mode;
  std::uint32_t pitch_align = 1, height_align = 1;
  if (mode == 1) {
    pitch_align = std::max<std::uint32_t>(64, 2048 / bpp);
  } else if (mode == 2) {
    pitch_align = std::max<std::uint32_t>(8, 256 / bpp);
    height_align = 8;
  } else {
    std::uint32_t mt_w = 8 * num_banks, mt_h = 8 * num_pipes;
    if (mode == 5) mt_w /= 2, mt_h *= 2;
    if (mode == 6) mt_w /= 4, mt_h *= 4;
    pitch_align = std::max(mt_w, mt_w * (256 / bpp / 8));
    height_align = mt_h;
  }
  m.pitch = align_up(ew, pitch_align);
  m.size = static_cast<std::uint64_t>(m.pitch) * align_up(eh, height_align) * bpp / 8;
  return m;
}

std::vector<std::uint8_t> decode_rgba(const surface& s, std::span<const std::uint8_t> data, std::uint64_t data_at) {
  const format_info fi = need_format(s);
  const dims d = element_dims(s, fi);
  const std::vector<std::uint8_t> lin = untile(s, data, data_at);
  std::vector<std::uint8_t> px(static_cast<std::size_t>(s.width) * s.height * 4);
  auto put = [&](std::uint32_t x, std::uint32_t y, const std::uint8_t* c) {
    if (x >= s.width || y >= s.height) return;
    std::uint8_t* o = px.data() + (static_cast<std::size_t>(y) * s.width + x) * 4;
    for (int k = 0; k < 4; ++k) {
      const std::uint8_t sel = s.comp_sel[static_cast<std::size_t>(k)];
      o[k] = sel < 4 ? c[sel] : sel == 4 ? 0 : 255;
    }
  };
  for (std::uint32_t y = 0; y < d.h; ++y)
    for (std::uint32_t x = 0; x < d.w; ++x) {
      const std::uint8_t* e = lin.data() + (static_cast<std::size_t>(y) * d.w + x) * d.bytes;
      if (fi.block_compressed) {
        std::uint8_t blk[64];
        decode_block(fi.kind, e, blk);
        for (std::uint32_t i = 0; i < 16; ++i) put(x * 4 + i % 4, y * 4 + i / 4, blk + 4 * i);
      } else {
        const rgba c = decode_texel(fi.kind, e);
        put(x, y, c.c);
      }
    }
  return px;
}

}  // namespace rigrip::bfres::gx2
