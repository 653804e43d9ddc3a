// BNTX raw layer and texture decoding (bntx.hpp). Field positions from the public readers
// (BNTX-Extractor, Switch-Toolbox's Bntx library, the EPD BntxLibrary notes); no real BNTX
// has been at hand, so every file so far was built by our own test writer.
#include "formats/bfres/bntx.hpp"

#include <squish.h>

#include <algorithm>
#include <cmath>
#include <cstring>

#include "core/byte_patcher.hpp"
#include "core/byte_reader.hpp"
#include "core/image/astc.hpp"
#include "core/image/bc6h.hpp"
#include "core/image/bc7.hpp"
#include "formats/bfres/fres_detail.hpp"
#include "formats/bfres/tegra.hpp"

namespace rigrip::bfres {
namespace {
using core::byte_reader;
using core::fail;

constexpr std::uint32_t kHeaderSize = 0x20;
constexpr std::uint32_t kNxEnd = 0x58;  // header + NX section
constexpr std::uint32_t kInfoSize = 0xA0;
constexpr std::uint32_t kMaxTextures = 65535;
constexpr std::uint32_t kMaxMips = 17;  // 65536 >> 16 = 1
constexpr std::uint32_t kMaxRelocs = 1u << 20;

std::string hex(std::uint64_t v) {
  return byte_reader::hex(v);
}

// An absolute u64 pointer at `field` (0 = null), checked to land in the data.
std::uint64_t pointer_at(const byte_reader& r, std::uint64_t field) {
  const std::uint64_t v = r.u64_at(field);
  if (v >= r.size() && v != 0)
    fail(code::bad_offset,
         "pointer " + hex(v) + " lies outside the " + std::to_string(r.size()) + "-byte BNTX",
         field);
  return v;
}

// A name: the pointer is to its u16 length, then the characters, as in a Switch FRES (every
// pointer passed here was checked by pointer_at or against the data size, so it fits 32 bits).
std::string name_at(const byte_reader& r, std::uint64_t at) {
  return detail::switch_name_at(r, static_cast<std::uint32_t>(at));
}

// "_DIC", u32 count, count + 1 nodes {u32 ref bit, u16 left, u16 right, u64 name}.
dict parse_dict(const byte_reader& r, std::uint32_t at) {
  byte_reader d = r.peek(at);
  dict out;
  out.at = at;
  out.size = d.u32();  // the magic word
  const std::uint32_t n = d.u32();
  if (n > kMaxTextures)
    fail(code::bad_count,
         "dictionary entry count " + std::to_string(n) + " exceeds the limit of " +
             std::to_string(kMaxTextures),
         at + 4);
  out.count = static_cast<std::int32_t>(n);
  d.checked_count(n + 1ull, 16, "dictionary nodes");
  for (std::uint32_t i = 0; i <= n; ++i) {
    dict_node node;
    node.at = static_cast<std::uint32_t>(d.tell());
    node.ref_bit = d.u32();
    node.left = d.u16();
    node.right = d.u16();
    node.name_at = static_cast<std::uint32_t>(pointer_at(r, node.at + 8));
    d.skip(8);
    node.name = name_at(r, node.name_at);
    if (i > 0 && (node.left > n || node.right > n))
      fail(code::bad_value, "dictionary node " + std::to_string(i) + " links past the last node",
           node.at + 4);
    out.nodes.push_back(std::move(node));
  }
  return out;
}

bntx_info parse_info(const byte_reader& r, std::uint32_t at) {
  r.checked_count_at(at, 1, kInfoSize, "texture info (BRTI)");
  byte_reader b = r.peek(at);
  if (b.fixed_string(4) != "BRTI") fail(code::bad_magic, "expected 'BRTI'", at);
  bntx_info t;
  t.at = at;
  t.next_block = b.u32();
  t.block_size = b.u32();
  t.block_reserved = b.u32();
  t.flags = b.u8();
  t.storage_dim = b.u8();
  t.tile_mode = b.u16();
  t.swizzle = b.u16();
  t.mip_count = b.u16();
  t.sample_count = b.u32();
  t.format = b.u32();
  t.access_flags = b.u32();
  t.width = b.u32();
  t.height = b.u32();
  t.depth = b.u32();
  t.array_count = b.u32();
  t.layout = b.u32();
  t.layout2 = b.u32();
  b.skip(20);  // reserved
  t.image_size = b.u32();
  t.alignment = b.u32();
  for (auto& c : t.channels) c = b.u8();
  t.image_dim = b.u8();
  t.name_at = pointer_at(r, at + 0x60);
  t.parent_at = pointer_at(r, at + 0x68);
  t.mips_at = pointer_at(r, at + 0x70);
  t.user_data_at = pointer_at(r, at + 0x78);
  t.texture_region_at = pointer_at(r, at + 0x80);
  t.view_region_at = pointer_at(r, at + 0x88);
  t.descriptor_slot = r.u64_at(at + 0x90);  // a runtime slot, not an offset
  t.user_data_dict_at = pointer_at(r, at + 0x98);
  t.name = name_at(r, t.name_at);
  if (t.mip_count == 0 || t.mip_count > kMaxMips)
    fail(code::bad_count,
         "texture '" + t.name + "': mip count " + std::to_string(t.mip_count) + " is outside 1.." +
             std::to_string(kMaxMips),
         at + 0x16);
  if (!t.mips_at)
    fail(code::bad_offset, "texture '" + t.name + "' has no mip pointer array", at + 0x70);
  r.checked_count_at(t.mips_at, t.mip_count, 8, "mip pointers");
  for (std::uint32_t k = 0; k < t.mip_count; ++k) {
    const std::uint64_t p = pointer_at(r, t.mips_at + 8 * k);
    if (p == 0)
      fail(code::bad_offset,
           "texture '" + t.name + "': mip level " + std::to_string(k) + " pointer is null",
           t.mips_at + 8 * k);
    t.mip_offsets.push_back(p);
  }
  return t;
}

void parse_relocations(const byte_reader& r, bntx_file& f) {
  const std::uint32_t at = f.relocation_at;
  byte_reader b = r.peek(at);
  if (b.fixed_string(4) != "_RLT")
    fail(code::bad_magic, "expected '_RLT' at the relocation-table offset", at);
  f.reloc_self = b.u32();
  f.reloc_count = b.u32();
  b.skip(4);
  if (f.reloc_count > kMaxRelocs)
    fail(code::bad_count,
         "relocation section count " + std::to_string(f.reloc_count) + " is too large", at + 8);
  b.checked_count(f.reloc_count, 0x18, "relocation sections");
  std::uint64_t entries = 0;
  for (std::uint32_t i = 0; i < f.reloc_count; ++i) {
    bntx_reloc_section s;
    s.base = b.u64();
    s.offset = b.u32();
    s.size = b.u32();
    s.first_entry = b.u32();
    s.entry_count = b.u32();
    entries = std::max<std::uint64_t>(entries, std::uint64_t{s.first_entry} + s.entry_count);
    f.reloc_sections.push_back(s);
  }
  b.checked_count(entries, 8, "relocation entries");
  for (std::uint64_t i = 0; i < entries; ++i) {
    bntx_reloc_entry e;
    e.offset = b.u32();
    e.array_count = b.u16();
    e.pointer_count = b.u8();
    e.stride = b.u8();
    f.reloc_entries.push_back(e);
  }
}

}  // namespace

bool is_bntx(std::span<const std::uint8_t> bytes) {
  return bytes.size() >= 4 && std::memcmp(bytes.data(), "BNTX", 4) == 0;
}

bntx_file parse_bntx(std::vector<std::uint8_t> image) {
  bntx_file f;
  f.image = std::move(image);
  const byte_reader r(f.image, core::endian::little);
  r.checked_count_at(0, 1, kNxEnd, "BNTX header and NX section");
  if (r.peek(0).fixed_string(4) != "BNTX") fail(code::bad_magic, "expected 'BNTX'", 0);
  f.version = r.u32_at(8);
  f.bom = r.u16_at(0x0C);
  if (f.bom != 0xFEFF)
    fail(code::unsupported_version,
         "BNTX byte-order mark is not FF FE (big-endian BNTX files are not supported)", 0x0C);
  f.alignment_log2 = r.u8_at(0x0E);
  f.address_size = r.u8_at(0x0F);
  f.file_name_at = r.u32_at(0x10);
  f.flags = r.u16_at(0x14);
  f.first_block = r.u16_at(0x16);
  f.relocation_at = r.u32_at(0x18);
  f.file_size = r.u32_at(0x1C);
  if (f.file_size != f.image.size())
    fail(code::bad_value,
         "BNTX header file size " + std::to_string(f.file_size) + " differs from the data's " +
             std::to_string(f.image.size()) + " bytes",
         0x1C);
  if (f.file_name_at >= 2 && f.file_name_at < f.image.size()) {
    const std::uint16_t len = r.u16_at(f.file_name_at - 2);
    if (len <= f.image.size() - f.file_name_at) f.name = name_at(r, f.file_name_at - 2);
  } else if (f.file_name_at != 0) {
    fail(code::bad_offset, "file name offset " + hex(f.file_name_at) + " lies outside the BNTX",
         0x10);
  }

  byte_reader nx = r.peek(kHeaderSize);
  f.target = nx.fixed_string(4);
  if (f.target != "NX  ")
    fail(code::bad_magic, "expected the 'NX  ' texture container, found '" + f.target + "'",
         kHeaderSize);
  f.texture_count = nx.u32();
  f.infos_at = pointer_at(r, 0x28);
  f.data_block_at = pointer_at(r, 0x30);
  f.dict_at = pointer_at(r, 0x38);
  f.pool_at = pointer_at(r, 0x40);
  f.user_pool_at = pointer_at(r, 0x48);
  f.pool_base = r.u32_at(0x50);
  f.nx_reserved = r.u32_at(0x54);
  if (f.texture_count > kMaxTextures)
    fail(code::bad_count,
         "texture count " + std::to_string(f.texture_count) + " exceeds the limit of " +
             std::to_string(kMaxTextures),
         0x24);

  if (f.first_block) {  // the first block is the string pool
    byte_reader s = r.peek(f.first_block);
    if (s.remaining() >= 0x14 && s.fixed_string(4) == "_STR") {
      f.strings_at = f.first_block;
      f.strings_next = s.u32();
      f.strings_size = s.u32();
      s.skip(4);
      f.strings_count = s.u32();
    }
  }
  if (f.dict_at) {
    f.names = parse_dict(r, static_cast<std::uint32_t>(f.dict_at));
    if (f.names->count != static_cast<std::int32_t>(f.texture_count))
      fail(code::bad_count,
           "texture dictionary has " + std::to_string(f.names->count) + " entries for " +
               std::to_string(f.texture_count) + " textures",
           f.dict_at + 4);
  }
  if (f.texture_count) {
    if (!f.infos_at) fail(code::bad_offset, "textures counted but no texture pointer array", 0x28);
    r.checked_count_at(f.infos_at, f.texture_count, 8, "texture pointers");
    r.checked_count_at(0, f.texture_count, kInfoSize,
                       "texture infos");  // each needs a BRTI of its own
    for (std::uint32_t i = 0; i < f.texture_count; ++i) {
      const std::uint64_t p = pointer_at(r, f.infos_at + 8 * i);
      if (!p)
        fail(code::bad_offset, "texture " + std::to_string(i) + " pointer is null",
             f.infos_at + 8 * i);
      f.textures.push_back(parse_info(r, static_cast<std::uint32_t>(p)));
    }
  }
  if (f.data_block_at) {
    byte_reader d = r.peek(f.data_block_at);
    if (d.remaining() < 0x10 || d.fixed_string(4) != "BRTD")
      fail(code::bad_magic, "expected 'BRTD' at the data-block pointer", f.data_block_at);
    f.data_next = d.u32();
    f.data_size = d.u32();
  }
  if (f.relocation_at) {
    if (f.relocation_at >= f.image.size())
      fail(code::bad_offset,
           "relocation table offset " + hex(f.relocation_at) + " lies outside the BNTX", 0x18);
    parse_relocations(r, f);
  }
  return f;
}

std::vector<std::uint8_t> serialise_bntx(const bntx_file& f) {
  std::vector<std::uint8_t> out = f.image;
  core::byte_patcher p{out, true, "serialise"};
  auto u64 = [&](std::uint64_t at, std::uint64_t v) {
    p.u32(static_cast<std::uint32_t>(at), static_cast<std::uint32_t>(v));
    p.u32(static_cast<std::uint32_t>(at + 4), static_cast<std::uint32_t>(v >> 32));
  };
  p.magic(0, "BNTX");
  p.u32(8, f.version);
  p.u16(0x0C, f.bom);
  p.u8(0x0E, f.alignment_log2);
  p.u8(0x0F, f.address_size);
  p.u32(0x10, f.file_name_at);
  p.u16(0x14, f.flags);
  p.u16(0x16, f.first_block);
  p.u32(0x18, f.relocation_at);
  p.u32(0x1C, f.file_size);
  p.u32(0x24, f.texture_count);
  u64(0x28, f.infos_at);
  u64(0x30, f.data_block_at);
  u64(0x38, f.dict_at);
  u64(0x40, f.pool_at);
  u64(0x48, f.user_pool_at);
  p.u32(0x50, f.pool_base);
  p.u32(0x54, f.nx_reserved);
  if (f.strings_at) {
    p.magic(f.strings_at, "_STR");
    p.u32(f.strings_at + 4, f.strings_next);
    p.u32(f.strings_at + 8, f.strings_size);
    p.u32(f.strings_at + 0x10, f.strings_count);
  }
  if (f.names) {
    p.u32(f.names->at, f.names->size);
    p.u32(f.names->at + 4, static_cast<std::uint32_t>(f.names->count));
    for (const auto& n : f.names->nodes) {
      p.u32(n.at, n.ref_bit);
      p.u16(n.at + 4, n.left);
      p.u16(n.at + 6, n.right);
      u64(n.at + 8, n.name_at);
    }
  }
  for (std::uint32_t i = 0; i < f.textures.size(); ++i) {
    const bntx_info& t = f.textures[i];
    u64(f.infos_at + 8 * i, t.at);
    const std::uint32_t a = t.at;
    p.magic(a, "BRTI");
    p.u32(a + 4, t.next_block);
    p.u32(a + 8, t.block_size);
    p.u32(a + 0xC, t.block_reserved);
    p.u8(a + 0x10, t.flags);
    p.u8(a + 0x11, t.storage_dim);
    p.u16(a + 0x12, t.tile_mode);
    p.u16(a + 0x14, t.swizzle);
    p.u16(a + 0x16, t.mip_count);
    p.u32(a + 0x18, t.sample_count);
    p.u32(a + 0x1C, t.format);
    p.u32(a + 0x20, t.access_flags);
    p.u32(a + 0x24, t.width);
    p.u32(a + 0x28, t.height);
    p.u32(a + 0x2C, t.depth);
    p.u32(a + 0x30, t.array_count);
    p.u32(a + 0x34, t.layout);
    p.u32(a + 0x38, t.layout2);
    p.u32(a + 0x50, t.image_size);
    p.u32(a + 0x54, t.alignment);
    for (std::uint32_t c = 0; c < 4; ++c) p.u8(a + 0x58 + c, t.channels[c]);
    p.u8(a + 0x5C, t.image_dim);
    u64(a + 0x60, t.name_at);
    u64(a + 0x68, t.parent_at);
    u64(a + 0x70, t.mips_at);
    u64(a + 0x78, t.user_data_at);
    u64(a + 0x80, t.texture_region_at);
    u64(a + 0x88, t.view_region_at);
    u64(a + 0x90, t.descriptor_slot);
    u64(a + 0x98, t.user_data_dict_at);
    for (std::uint32_t k = 0; k < t.mip_offsets.size(); ++k)
      u64(t.mips_at + 8 * k, t.mip_offsets[k]);
  }
  if (f.data_block_at) {
    p.magic(static_cast<std::uint32_t>(f.data_block_at), "BRTD");
    p.u32(static_cast<std::uint32_t>(f.data_block_at + 4), f.data_next);
    p.u32(static_cast<std::uint32_t>(f.data_block_at + 8), f.data_size);
  }
  if (f.relocation_at) {
    const std::uint32_t a = f.relocation_at;
    p.magic(a, "_RLT");
    p.u32(a + 4, f.reloc_self);
    p.u32(a + 8, f.reloc_count);
    std::uint32_t at = a + 0x10;
    for (const auto& s : f.reloc_sections) {
      u64(at, s.base);
      p.u32(at + 8, s.offset);
      p.u32(at + 12, s.size);
      p.u32(at + 16, s.first_entry);
      p.u32(at + 20, s.entry_count);
      at += 0x18;
    }
    for (const auto& e : f.reloc_entries) {
      p.u32(at, e.offset);
      p.u16(at + 4, e.array_count);
      p.u8(at + 6, e.pointer_count);
      p.u8(at + 7, e.stride);
      at += 8;
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------
// Texel formats.
namespace {

enum class kind { r8, r8g8, r5g6b5, rgba8, bgra8, bc1, bc2, bc3, bc4, bc5, bc6h, bc7, astc };
struct format_info {
  kind k;
  std::uint32_t bytes;  // per element: a pixel, or a block
  bool block;
  bool srgb, snorm;
  std::uint32_t bw = 0, bh = 0;  // block footprint in pixels (0: 4x4 for a block format, else 1x1)
  [[nodiscard]] std::uint32_t block_w() const { return bw ? bw : block ? 4 : 1; }
  [[nodiscard]] std::uint32_t block_h() const { return bh ? bh : block ? 4 : 1; }
};

// ASTC footprints by nn::gfx type (0x2D ASTC_4x4 ... 0x3A ASTC_12x12).
constexpr std::uint32_t astc_footprints[][2] = {{4, 4}, {5, 4}, {5, 5}, {6, 5},  {6, 6},   {8, 5},   {8, 6},
                                                {8, 8}, {10, 5}, {10, 6}, {10, 8}, {10, 10}, {12, 10}, {12, 12}};

std::optional<format_info> describe(std::uint32_t format) {
  const std::uint32_t type = format >> 8, variant = format & 0xFF;
  // BC6H: variant 0x0A unsigned float (UF16), 0x05 signed float (SF16). Decoded through the
  // tone mapping of core/image/bc6h.hpp, whose bytes are sRGB-encoded: marked srgb so that
  // to_gltf_texture does not encode them again. `snorm` carries "signed".
  if (type == 0x1F && (variant == 0x0A || variant == 0x05))
    return format_info{kind::bc6h, 16, true, true, variant == 0x05};
  const bool srgb = variant == 6, snorm = variant == 2;
  if (type >= 0x2D && type <= 0x3A) {  // ASTC: UNORM or SRGB (LDR); HDR (FLOAT) is not decoded
    if (variant != 1 && variant != 6) return std::nullopt;
    const auto& fp = astc_footprints[type - 0x2D];
    return format_info{kind::astc, 16, true, srgb, false, fp[0], fp[1]};
  }
  if (variant != 1 && variant != 2 && variant != 6) return std::nullopt;
  switch (type) {
    case 0x02:
      return format_info{kind::r8, 1, false, srgb, snorm};
    case 0x07:
      return format_info{kind::r5g6b5, 2, false, srgb, snorm};
    case 0x09:
      return format_info{kind::r8g8, 2, false, srgb, snorm};
    case 0x0B:
      return format_info{kind::rgba8, 4, false, srgb, snorm};
    case 0x0C:
      return format_info{kind::bgra8, 4, false, srgb, snorm};
    case 0x1A:
      return format_info{kind::bc1, 8, true, srgb, false};
    case 0x1B:
      return format_info{kind::bc2, 16, true, srgb, false};
    case 0x1C:
      return format_info{kind::bc3, 16, true, srgb, false};
    case 0x1D:
      return format_info{kind::bc4, 8, true, false, snorm};
    case 0x1E:
      return format_info{kind::bc5, 16, true, false, snorm};
    case 0x20:
      return format_info{kind::bc7, 16, true, srgb, false};
    default:
      return std::nullopt;
  }
}

// A signed normalised byte as an unsigned one: -1 -> 0, 0 -> 128, 1 -> 255.
std::uint8_t snorm_to_unorm(std::int8_t v) {
  const double f = std::max(-127, static_cast<int>(v)) / 127.0;
  return static_cast<std::uint8_t>(std::lround((f + 1) * 127.5));
}

// One BC4 channel (8 bytes) -> 16 values; snorm endpoints are signed.
void decode_bc4_channel(const std::uint8_t* b, bool snorm, std::uint8_t out[16]) {
  int pal[8];
  int e0 = b[0], e1 = b[1], lo = 0, hi = 255;
  if (snorm) {
    e0 = std::max(-127, static_cast<int>(static_cast<std::int8_t>(b[0])));
    e1 = std::max(-127, static_cast<int>(static_cast<std::int8_t>(b[1])));
    lo = -127, hi = 127;
  }
  pal[0] = e0, pal[1] = e1;
  if (e0 > e1) {
    for (int i = 1; i < 7; ++i) pal[i + 1] = ((7 - i) * e0 + i * e1 + 3) / 7;
  } else {
    for (int i = 1; i < 5; ++i) pal[i + 1] = ((5 - i) * e0 + i * e1 + 2) / 5;
    pal[6] = lo, pal[7] = hi;
  }
  std::uint64_t bits = 0;
  for (int i = 0; i < 6; ++i) bits |= std::uint64_t{b[2 + i]} << (8 * i);
  for (int i = 0; i < 16; ++i) {
    const int v = pal[(bits >> (3 * i)) & 7];
    out[i] = snorm ? snorm_to_unorm(static_cast<std::int8_t>(v)) : static_cast<std::uint8_t>(v);
  }
}

std::uint8_t expand(std::uint32_t v, int bits) {
  const std::uint32_t max = (1u << bits) - 1;
  return static_cast<std::uint8_t>((v * 255 + max / 2) / max);
}

// One element -> its pixels (1, or 16 for a block) as R, G, B, A before the channel selector.
void decode_element(const format_info& fi, const std::uint8_t* e, std::uint8_t out[64],
                    core::image::hdr_clip& clip) {
  auto u = [&](std::uint8_t v) {
    return fi.snorm ? snorm_to_unorm(static_cast<std::int8_t>(v)) : v;
  };
  switch (fi.k) {
    case kind::r8:
      out[0] = u(e[0]), out[1] = 0, out[2] = 0, out[3] = 255;
      return;
    case kind::r8g8:
      out[0] = u(e[0]), out[1] = u(e[1]), out[2] = 0, out[3] = 255;
      return;
    case kind::r5g6b5: {  // red in the high bits (Switch-Toolbox reads it as DXGI B5G6R5)
      const std::uint32_t v = e[0] | (std::uint32_t{e[1]} << 8);
      out[0] = expand(v >> 11, 5), out[1] = expand((v >> 5) & 63u, 6), out[2] = expand(v & 31u, 5),
      out[3] = 255;
      return;
    }
    case kind::rgba8:
      for (int c = 0; c < 4; ++c) out[c] = u(e[c]);
      return;
    case kind::bgra8:
      out[0] = e[2], out[1] = e[1], out[2] = e[0], out[3] = e[3];
      return;
    case kind::bc1:
      squish::Decompress(out, e, squish::kDxt1);
      return;
    case kind::bc2:
      squish::Decompress(out, e, squish::kDxt3);
      return;
    case kind::bc3:
      squish::Decompress(out, e, squish::kDxt5);
      return;
    case kind::bc7:
      core::image::decode_bc7_block(e, out, 16);
      return;
    case kind::bc6h:
      core::image::decode_bc6h_block_rgba8(e, fi.snorm, out, 16, clip);
      return;
    case kind::astc:  // whole levels at a time (decode_level)
      return;
    case kind::bc4:
    case kind::bc5: {
      std::uint8_t ch[2][16]{};
      decode_bc4_channel(e, fi.snorm, ch[0]);
      if (fi.k == kind::bc5) decode_bc4_channel(e + 8, fi.snorm, ch[1]);
      for (int i = 0; i < 16; ++i)
        out[4 * i] = ch[0][i], out[4 * i + 1] = ch[1][i], out[4 * i + 2] = 0, out[4 * i + 3] = 255;
      return;
    }
  }
}

std::uint32_t div_up(std::uint32_t a, std::uint32_t b) {
  return (a + b - 1) / b;
}

// Linear (pitch) levels: rows of elements, each row 32-byte aligned (Switch-Toolbox's
// "round pitch" for NX textures).
std::uint64_t linear_pitch(std::uint32_t ew, std::uint32_t bytes) {
  return (std::uint64_t{ew} * bytes + 31) / 32 * 32;
}

// One level: deswizzle (block_height 0: linear rows), decode the elements, apply the
// channel selector. `data` holds at least the level's bytes (checked by the caller).
std::vector<std::uint8_t> decode_level(const format_info& fi,
                                       const std::array<std::uint8_t, 4>& channels,
                                       std::span<const std::uint8_t> data, std::uint32_t w,
                                       std::uint32_t h, std::uint32_t block_height,
                                       core::image::hdr_clip& clip) {
  const std::uint32_t bw = fi.block_w(), bhp = fi.block_h();
  const std::uint32_t ew = div_up(w, bw), eh = div_up(h, bhp);
  std::vector<std::uint8_t> lin;
  if (block_height == 0) {
    const std::uint64_t pitch = linear_pitch(ew, fi.bytes), row = std::uint64_t{ew} * fi.bytes;
    if (data.size() < pitch * eh) fail(code::truncated, "linear level shorter than its rows");
    lin.resize(row * eh);
    for (std::uint32_t y = 0; y < eh; ++y)
      std::memcpy(lin.data() + y * row, data.data() + y * pitch, row);
  } else {
    lin = tegra::deswizzle(data, ew, eh, fi.bytes, block_height);
  }
  std::vector<std::uint8_t> px(std::size_t{w} * h * 4);
  if (fi.k == kind::astc) {
    // astcenc decodes the level's blocks (raster order once deswizzled) to RGBA8.
    const auto rgba = core::image::decode_astc(lin, w, h, bw, bhp, fi.srgb);
    for (std::size_t i = 0; i < std::size_t{w} * h; ++i)
      for (int c = 0; c < 4; ++c) {
        const std::uint8_t sel = channels[static_cast<std::size_t>(c)];
        px[4 * i + c] = sel == 0 ? 0 : sel == 1 ? 255 : sel <= 5 ? rgba[4 * i + sel - 2] : rgba[4 * i + c];
      }
    return px;
  }
  std::uint8_t tmp[64];
  for (std::uint32_t y = 0; y < eh; ++y)
    for (std::uint32_t x = 0; x < ew; ++x) {
      decode_element(fi, lin.data() + (std::size_t{y} * ew + x) * fi.bytes, tmp, clip);
      for (std::uint32_t i = 0; i < bw * bhp; ++i) {
        const std::uint32_t px_x = x * bw + i % bw, px_y = y * bhp + i / bw;
        if (px_x >= w || px_y >= h) continue;
        std::uint8_t* o = px.data() + (std::size_t{px_y} * w + px_x) * 4;
        for (int c = 0; c < 4; ++c) {
          const std::uint8_t sel = channels[static_cast<std::size_t>(c)];
          o[c] = sel == 0 ? 0 : sel == 1 ? 255 : sel <= 5 ? tmp[4 * i + sel - 2] : tmp[4 * i + c];
        }
      }
    }
  return px;
}

// The block height (GOBs) of a level: the stored one, halved while the level's height in
// elements fits in half a block (yuzu's AdjustMipBlockSize; a single-level texture keeps the
// stored height). For chains whose base block fits the image, the readers' running shift
// (BNTX-Editor, Switch-Toolbox) gives the same heights.
std::uint32_t level_block_height(std::uint32_t base, std::uint32_t rows, bool single_level) {
  std::uint32_t bh = base;
  if (single_level) return bh;
  while (bh > 1 && rows <= (bh / 2) * tegra::gob_height) bh /= 2;
  return bh;
}

}  // namespace

std::string bntx_format_name(std::uint32_t format) {
  static const std::pair<std::uint32_t, const char*> types[] = {{0x01, "R4_G4"},
                                                                {0x02, "R8"},
                                                                {0x03, "R4_G4_B4_A4"},
                                                                {0x04, "A4_B4_G4_R4"},
                                                                {0x05, "R5_G5_B5_A1"},
                                                                {0x06, "A1_B5_G5_R5"},
                                                                {0x07, "R5_G6_B5"},
                                                                {0x08, "B5_G6_R5"},
                                                                {0x09, "R8_G8"},
                                                                {0x0A, "R16"},
                                                                {0x0B, "R8_G8_B8_A8"},
                                                                {0x0C, "B8_G8_R8_A8"},
                                                                {0x0D, "R9_G9_B9_E5"},
                                                                {0x0E, "R10_G10_B10_A2"},
                                                                {0x0F, "R11_G11_B10"},
                                                                {0x10, "B10_G11_R11"},
                                                                {0x11, "R16_G16"},
                                                                {0x14, "R16_G16_B16_A16"},
                                                                {0x18, "R32_G32_B32_A32"},
                                                                {0x1A, "BC1"},
                                                                {0x1B, "BC2"},
                                                                {0x1C, "BC3"},
                                                                {0x1D, "BC4"},
                                                                {0x1E, "BC5"},
                                                                {0x1F, "BC6H"},
                                                                {0x20, "BC7"},
                                                                {0x2D, "ASTC_4x4"},
                                                                {0x2E, "ASTC_5x4"},
                                                                {0x2F, "ASTC_5x5"},
                                                                {0x30, "ASTC_6x5"},
                                                                {0x31, "ASTC_6x6"},
                                                                {0x32, "ASTC_8x5"},
                                                                {0x33, "ASTC_8x6"},
                                                                {0x34, "ASTC_8x8"},
                                                                {0x35, "ASTC_10x5"},
                                                                {0x36, "ASTC_10x6"},
                                                                {0x37, "ASTC_10x8"},
                                                                {0x38, "ASTC_10x10"},
                                                                {0x39, "ASTC_12x10"},
                                                                {0x3A, "ASTC_12x12"}};
  static const char* variants[] = {"", "UNORM", "SNORM", "UINT", "SINT", "FLOAT", "SRGB", "DEPTH"};
  std::string t = "0x" + hex(format).substr(2);
  for (const auto& [v, n] : types)
    if (v == format >> 8) t = n;
  const std::uint32_t var = format & 0xFF;
  return t + "_" + (var < 8 && var ? variants[var] : var == 0x0A ? "UFLOAT" : hex(var));
}

nlohmann::json bntx_to_json(const bntx_file& f) {
  using nlohmann::json;
  json j{{"format", "bntx"},
         {"version", f.version},
         {"name", f.name},
         {"alignment_log2", f.alignment_log2},
         {"address_size", f.address_size},
         {"file_size", f.file_size},
         {"relocation_table", f.relocation_at},
         {"target", f.target},
         {"texture_count", f.texture_count},
         {"data_block", {{"offset", f.data_block_at}, {"size", f.data_size}}},
         {"string_pool",
          {{"offset", f.strings_at}, {"size", f.strings_size}, {"count", f.strings_count}}},
         {"relocation_sections", f.reloc_sections.size()},
         {"relocation_entries", f.reloc_entries.size()}};
  json texs = json::array();
  for (const auto& t : f.textures) {
    json mips = json::array();
    for (auto m : t.mip_offsets) mips.push_back(m);
    texs.push_back({{"name", t.name},
                    {"offset", t.at},
                    {"format", bntx_format_name(t.format)},
                    {"format_value", t.format},
                    {"width", t.width},
                    {"height", t.height},
                    {"depth", t.depth},
                    {"array_count", t.array_count},
                    {"mip_count", t.mip_count},
                    {"sample_count", t.sample_count},
                    {"tile_mode", t.tile_mode},
                    {"storage_dim", t.storage_dim},
                    {"image_dim", t.image_dim},
                    {"block_height_log2", t.block_height_log2()},
                    {"texture_layout", t.layout},
                    {"swizzle", t.swizzle},
                    {"flags", t.flags},
                    {"access_flags", t.access_flags},
                    {"image_size", t.image_size},
                    {"alignment", t.alignment},
                    {"channels", {t.channels[0], t.channels[1], t.channels[2], t.channels[3]}},
                    {"mip_offsets", mips}});
  }
  j["textures"] = texs;
  return j;
}

std::vector<bntx_texture> decode_bntx(std::span<const std::uint8_t> bytes,
                                      const read_context& ctx) {
  const bntx_file f = parse_bntx(std::vector<std::uint8_t>(bytes.begin(), bytes.end()));
  std::vector<bntx_texture> out;
  const std::span<const std::uint8_t> img(f.image);
  // Textures may share a BRTI or image bytes: the decoded output is bounded by the input
  // (BC1, the densest, gives 8 RGBA bytes per stored byte).
  const std::uint64_t budget = 16 * std::uint64_t{img.size()} + (16u << 20);
  std::uint64_t spent = 0;
  for (const bntx_info& t : f.textures) {
    const std::string where = "BNTX texture '" + t.name + "'";
    auto skip = [&](const std::string& why, std::uint64_t at) {
      ctx.warn(code::w_unsupported_part, where + ": " + why + "; texture skipped", at);
    };
    const auto fi = describe(t.format);
    if (!fi) {
      skip("format " + bntx_format_name(t.format) +
               " is not supported (decoded: R8, R8G8, R5G6B5, RGBA8, BGRA8, BC1-BC5, BC6H, BC7, "
                   "ASTC UNORM/SRGB)",
           t.at + 0x1C);
      continue;
    }
    if (t.tile_mode > 1) {
      skip("tile mode " + std::to_string(t.tile_mode) + " is unknown (0 block linear, 1 linear)",
           t.at + 0x12);
      continue;
    }
    const bool linear = t.tile_mode == 1;
    if (t.sample_count > 1) {
      skip("multisampled texture", t.at + 0x18);
      continue;
    }
    if (t.depth > 1) {
      skip("3D texture (depth " + std::to_string(t.depth) + ")", t.at + 0x2C);
      continue;
    }
    if (t.width == 0 || t.height == 0 || t.width > 16384 || t.height > 16384) {
      skip("size " + std::to_string(t.width) + "x" + std::to_string(t.height) +
               " is outside 1..16384",
           t.at + 0x24);
      continue;
    }
    if (!linear && t.block_height_log2() > 5) {
      skip("block height 2^" + std::to_string(t.block_height_log2()) + " GOBs is over 32",
           t.at + 0x34);
      continue;
    }
    if (t.array_count > 1 || t.image_dim == 3)
      ctx.warn(code::w_lossy,
               where + ": " + (t.image_dim == 3 ? std::string("cube map") : "texture array") +
                   " of " + std::to_string(t.array_count) +
                   " layers; only the first layer is converted",
               t.at + 0x30);
    const std::uint32_t bw = fi->block_w(), bhp = fi->block_h();
    const std::uint32_t base_bh = 1u << t.block_height_log2();
    bntx_texture bt;
    bt.name = t.name;
    core::image::hdr_clip clip;
    bt.tex.name = t.name;
    const std::uint32_t levels = t.mip_count;
    for (std::uint32_t k = 0; k < levels; ++k) {
      const std::uint32_t w = std::max(1u, t.width >> k), h = std::max(1u, t.height >> k);
      const std::uint32_t bh = linear ? 0 : level_block_height(base_bh, div_up(h, bhp), levels == 1);
      const std::uint64_t size =
          linear ? linear_pitch(div_up(w, bw), fi->bytes) * div_up(h, bhp)
                 : tegra::surface_size(div_up(w, bw), div_up(h, bhp), fi->bytes, bh);
      const std::uint64_t at = t.mip_offsets[k];
      const std::uint64_t first = t.mip_offsets[0];
      const bool past_image = at < first || at - first + size > t.image_size;
      if (past_image || at + size > img.size()) {
        const std::string why =
            "mip level " + std::to_string(k) + " (" + std::to_string(w) + "x" + std::to_string(h) +
            ", " + std::to_string(size) + " bytes at " + hex(at) + ") runs past " +
            (past_image ? "the texture's " + std::to_string(t.image_size) + "-byte image"
                        : "the " + std::to_string(img.size()) + "-byte BNTX");
        if (k == 0)
          skip(why, t.mips_at);
        else
          ctx.warn(code::w_suspicious_value,
                   where + ": " + why + "; levels from " + std::to_string(k) + " on are skipped",
                   t.mips_at + 8 * k);
        break;
      }
      spent += std::uint64_t{w} * h * 4;
      if (spent > budget)
        fail(code::limit_exceeded,
             "decoded textures exceed " + std::to_string(budget) +
                 " bytes, 16 times the BNTX's size (do textures share data?)",
             t.at);
      std::vector<std::uint8_t> px;
      try {
        px = decode_level(*fi, t.channels, img.subspan(at, size), w, h, bh, clip);
      } catch (const core::failure& e) {
        if (k == 0)
          skip(e.error().message, at);
        else
          ctx.warn(code::w_suspicious_value,
                   where + ": mip level " + std::to_string(k) + ": " + e.error().message, at);
        break;
      }
      if (k == 0) {
        bt.tex.width = w, bt.tex.height = h, bt.tex.rgba = std::move(px);
      } else {
        bt.tex.mips.push_back({w, h, std::move(px)});
      }
    }
    if (bt.tex.rgba.empty()) continue;
    bt.tex.wrap_s = bt.tex.wrap_t = texture_wrap::repeat;
    bt.tex.mag_filter = bt.tex.min_filter = texture_filter::linear;
    bt.tex.extras = {{"bntx_format", bntx_format_name(t.format)},
                     {"srgb", fi->srgb},
                     {"mip_count", t.mip_count},
                     {"block_height_log2", t.block_height_log2()},
                     {"tile_mode", linear ? "linear" : "block_linear"},
                     {"channels", {t.channels[0], t.channels[1], t.channels[2], t.channels[3]}}};
    if (t.mip_count > 1) bt.tex.extras["mips_decoded"] = bt.tex.mips.size();
    if (fi->k == kind::bc6h) {  // HDR in an 8-bit image: say what was lost
      bt.tex.extras["hdr_tone_map"] = "clamped to [0,1], sRGB-encoded";
      bt.tex.extras["hdr_clipped"] = clip.above_one;
      if (fi->snorm) bt.tex.extras["hdr_negative_clipped"] = clip.below_zero;
    }
    out.push_back(std::move(bt));
  }
  return out;
}

void to_gltf_texture(rigrip::texture& t, bool colour, bool normal) {
  const bool srgb = t.extras.is_object() && t.extras.value("srgb", false);
  const std::string fmt =
      t.extras.is_object() ? t.extras.value("bntx_format", std::string()) : std::string();
  const bool two_channel = fmt.rfind("BC5", 0) == 0 || fmt.rfind("R8_G8_", 0) == 0;
  const bool encode = colour && !srgb;
  const bool rebuild_z = normal && two_channel;
  auto finish = [&](std::vector<std::uint8_t>& px) {
    if (encode)  // the GPU returns these values as linear colour; glTF colour textures are sRGB
      for (std::size_t i = 0; i < px.size(); ++i)
        if (i % 4 != 3) {
          const double l = px[i] / 255.0;
          const double s = l <= 0.0031308 ? l * 12.92 : 1.055 * std::pow(l, 1 / 2.4) - 0.055;
          px[i] = static_cast<std::uint8_t>(std::lround(std::clamp(s, 0.0, 1.0) * 255));
        }
    if (rebuild_z)
      for (std::size_t i = 0; i + 3 < px.size(); i += 4) {
        const double x = px[i] / 127.5 - 1, y = px[i + 1] / 127.5 - 1;
        px[i + 2] = static_cast<std::uint8_t>(
            std::lround((std::sqrt(std::max(0.0, 1 - x * x - y * y)) + 1) * 127.5));
        px[i + 3] = 255;
      }
  };
  finish(t.rgba);
  for (auto& m : t.mips) finish(m.rgba);
  if (encode) t.extras["encoded_to_srgb"] = true;
  if (rebuild_z) t.extras["normal_z_rebuilt"] = true;
}

namespace {
bool has(const std::string& n, const char* a, const char* b) {
  return n.find(a) != std::string::npos || n.find(b) != std::string::npos;
}
// An embedded file's bytes (its range is checked by the FRES reader). A BNTX whose own file
// size is smaller than the entry (padding after it) is cut to that size.
std::span<const std::uint8_t> embedded_bytes(const file& f, const external_file& e) {
  auto b = std::span<const std::uint8_t>(f.image).subspan(e.data_at, e.size);
  if (is_bntx(b) && b.size() >= kHeaderSize) {
    const std::uint32_t own =
        b[0x1C] | (b[0x1D] << 8) | (b[0x1E] << 16) | (std::uint32_t{b[0x1F]} << 24);
    if (own >= kHeaderSize && own < b.size()) b = b.first(own);
  }
  return b;
}
}  // namespace

void add_bntx_textures(std::vector<bntx_texture> textures, const std::string& source, scene& s) {
  for (auto& t : textures) {
    const bool colour =
        has(t.name, "_Alb", "_alb") || has(t.name, "_Emm", "_emm") || has(t.name, "_Emi", "_emi");
    const bool normal = has(t.name, "_Nrm", "_nrm");
    to_gltf_texture(t.tex, colour, normal);
    t.tex.extras["role"] = colour   ? (has(t.name, "_Alb", "_alb") ? "albedo" : "emission")
                           : normal ? "normal"
                                    : "other";
    t.tex.extras["source_file"] = source;
    s.textures.push_back(std::move(t.tex));
  }
}

scene bntx_scene(std::span<const std::uint8_t> bytes, const read_context& ctx) {
  scene s;
  s.format = "bntx";
  const bntx_file f = parse_bntx(std::vector<std::uint8_t>(bytes.begin(), bytes.end()));
  s.metadata = {{"bntx_version", f.version}, {"name", f.name}, {"texture_count", f.texture_count}};
  std::string source = ctx.path;
  if (const auto slash = source.find_last_of("/\\"); slash != std::string::npos)
    source = source.substr(slash + 1);
  add_bntx_textures(decode_bntx(bytes, ctx), source, s);
  return s;
}

std::size_t add_embedded_bntx(const file& f, const read_context& ctx, scene& s) {
  std::size_t n = 0;
  for (const auto& e : f.external_files) {
    const auto bytes = embedded_bytes(f, e);
    if (!is_bntx(bytes)) continue;
    ++n;
    // The BNTX's own offsets count from its first byte: warnings are re-based on the FRES.
    diagnostics inner;
    read_context sub = ctx;
    sub.diags = &inner;
    const std::string where = "embedded '" + e.name + "' (at " + hex(e.data_at) + "): ";
    try {
      add_bntx_textures(decode_bntx(bytes, sub), e.name, s);
    } catch (const core::failure& err) {
      const std::uint64_t at = err.error().offset;
      ctx.warn(code::w_unsupported_part, where + err.error().message + "; its textures are skipped",
               at == no_offset ? e.data_at : e.data_at + at);
    }
    for (const auto& w : inner.warnings)
      ctx.warn(w.code, where + w.message, w.offset == no_offset ? w.offset : e.data_at + w.offset);
  }
  return n;
}

nlohmann::json embedded_bntx_json(const file& f, const external_file& e) {
  try {
    return bntx_to_json(parse_bntx(
        std::vector<std::uint8_t>(embedded_bytes(f, e).begin(), embedded_bytes(f, e).end())));
  } catch (const core::failure& err) {
    return {{"error", err.error().message}, {"error_offset", err.error().offset}};
  }
}

}  // namespace rigrip::bfres
