// Raw .d3dtx bodies and surface decoding. Layout: README.md ("T3Texture").
#include "formats/telltale/d3dtx.hpp"

#include <squish.h>

#include <algorithm>

#include "core/byte_reader.hpp"
#include "core/image/bc6h.hpp"
#include "core/image/bc7.hpp"
#include "formats/telltale/blocks.hpp"

namespace rigrip::telltale {

using core::byte_reader;
using core::byte_writer;
using core::fail;

namespace {

using blocks::read_block;
using blocks::read_string;
using blocks::write_block;
using blocks::write_string;

struct format_info {
  std::uint32_t id;
  const char* name;
  int block_bytes;  // bytes per 4x4 block, 0 for uncompressed
  int pixel_bytes;  // bytes per pixel for uncompressed
};
constexpr format_info formats[] = {
    {0, "ARGB8", 0, 4},        {2, "RGB565", 0, 2},       {3, "ARGB1555", 0, 2},
    {4, "ARGB4", 0, 2},        {9, "RG8", 0, 2},          {10, "RGBA8", 0, 4},
    {14, "R8", 0, 1},          {16, "A8", 0, 1},          {17, "L8", 0, 1},
    {18, "AL8", 0, 2},         {64, "DXT1 (BC1)", 8, 0},  {65, "DXT3 (BC2)", 16, 0},
    {66, "DXT5 (BC3)", 16, 0}, {67, "DXT5A (BC4)", 8, 0}, {68, "DXN (BC5)", 16, 0},
    {70, "BC6H", 16, 0},       {71, "BC7", 16, 0}};

const format_info* info(std::uint32_t f) {
  for (const auto& i : formats)
    if (i.id == f) return &i;
  return nullptr;
}

}  // namespace

const char* surface_format_name(std::uint32_t f) {
  const auto* i = info(f);
  return i ? i->name : "unknown";
}

std::uint64_t surface_bytes(std::uint32_t f, std::uint32_t w, std::uint32_t h) {
  const auto* i = info(f);
  if (!i) return 0;
  if (i->block_bytes)
    return std::uint64_t{(std::max(w, 1u) + 3) / 4} * ((std::max(h, 1u) + 3) / 4) *
           static_cast<std::uint64_t>(i->block_bytes);
  return std::uint64_t{w} * h * static_cast<std::uint64_t>(i->pixel_bytes);
}

std::vector<std::uint8_t> decode_surface(std::uint32_t f, std::uint32_t w, std::uint32_t h,
                                         std::span<const std::uint8_t> data, bool* hdr_clipped) {
  const auto* i = info(f);
  if (!i)
    fail(code::unsupported_feature, std::string("surface format ") + std::to_string(f) + " (" +
                                        surface_format_name(f) +
                                        ") cannot be decoded; BC1-BC7 and 8-bit formats are");
  std::uint64_t need = surface_bytes(f, w, h);
  if (data.size() < need)
    fail(code::truncated, "surface data of " + std::to_string(data.size()) + " bytes, " +
                              std::to_string(w) + "x" + std::to_string(h) + " " + i->name +
                              " needs " + std::to_string(need));
  std::vector<std::uint8_t> out(std::size_t{w} * h * 4);
  if (i->block_bytes) {
    const std::uint32_t bw = (w + 3) / 4, bh = (h + 3) / 4;
    std::uint8_t px[64];
    core::image::hdr_clip clip;
    for (std::uint32_t by = 0; by < bh; ++by)
      for (std::uint32_t bx = 0; bx < bw; ++bx) {
        const std::uint8_t* blk =
            data.data() + (std::size_t{by} * bw + bx) * static_cast<std::size_t>(i->block_bytes);
        switch (f) {
          case 64:
            squish::Decompress(px, blk, squish::kDxt1);
            break;
          case 65:
            squish::Decompress(px, blk, squish::kDxt3);
            break;
          case 66:
            squish::Decompress(px, blk, squish::kDxt5);
            break;
          case 67:
            squish::Decompress(px, blk, squish::kBc4);
            break;
          case 68:
            squish::Decompress(px, blk, squish::kBc5);
            break;
          case 70:  // BC6H as unsigned float (DXGI BC6H_UF16), tone-mapped to sRGB 8-bit
            core::image::decode_bc6h_block_rgba8(blk, false, px, 16, clip);
            break;
          default:
            core::image::decode_bc7_block(blk, px, 16);
            break;
        }
        for (std::uint32_t y = 0; y < 4 && by * 4 + y < h; ++y)
          for (std::uint32_t x = 0; x < 4 && bx * 4 + x < w; ++x)
            std::copy_n(px + (y * 4 + x) * 4, 4,
                        out.data() + ((std::size_t{by} * 4 + y) * w + bx * 4 + x) * 4);
      }
    if (hdr_clipped) *hdr_clipped = clip.above_one;
    return out;
  }
  const std::size_t n = std::size_t{w} * h;
  for (std::size_t k = 0; k < n; ++k) {
    const std::uint8_t* p = data.data() + k * static_cast<std::size_t>(i->pixel_bytes);
    std::uint8_t* o = out.data() + k * 4;
    std::uint16_t v = static_cast<std::uint16_t>(p[0] | (i->pixel_bytes > 1 ? p[1] << 8 : 0));
    auto x5 = [](unsigned c) { return static_cast<std::uint8_t>((c << 3) | (c >> 2)); };
    auto x6 = [](unsigned c) { return static_cast<std::uint8_t>((c << 2) | (c >> 4)); };
    auto x4 = [](unsigned c) { return static_cast<std::uint8_t>(c * 17); };
    switch (f) {
      case 0:
        o[0] = p[2], o[1] = p[1], o[2] = p[0], o[3] = p[3];
        break;  // B G R A in memory
      case 10:
        std::copy_n(p, 4, o);
        break;
      case 2:
        o[0] = x5(v >> 11), o[1] = x6((v >> 5) & 63), o[2] = x5(v & 31), o[3] = 255;
        break;
      case 3:
        o[0] = x5((v >> 10) & 31), o[1] = x5((v >> 5) & 31), o[2] = x5(v & 31),
        o[3] = (v >> 15) ? 255 : 0;
        break;
      case 4:
        o[0] = x4((v >> 8) & 15), o[1] = x4((v >> 4) & 15), o[2] = x4(v & 15), o[3] = x4(v >> 12);
        break;
      case 9:
        o[0] = p[0], o[1] = p[1], o[2] = 0, o[3] = 255;
        break;
      case 14:
        o[0] = p[0], o[1] = o[2] = 0, o[3] = 255;
        break;
      case 16:
        o[0] = o[1] = o[2] = 255, o[3] = p[0];
        break;
      case 17:
        o[0] = o[1] = o[2] = p[0], o[3] = 255;
        break;
      case 18:
        o[0] = o[1] = o[2] = p[0], o[3] = p[1];
        break;  // A8L8: L in the low byte
      default:
        break;
    }
  }
  return out;
}

nlohmann::json d3dtx_to_json(const texture_file& t) {
  using nlohmann::json;
  json regions = json::array();
  for (const auto& g : t.regions)
    regions.push_back(json{{"face", g.face},
                           {"mip", g.mip},
                           {"mip_count", g.mip_count},
                           {"data_size", g.data_size},
                           {"pitch", g.pitch},
                           {"slice_pitch", g.slice_pitch}});
  return json{{"format", "telltale-d3dtx"},
              {"stream", stream_version_name(t.ms.magic).value_or("?")},
              {"version", t.version},
              {"name", t.name},
              {"import_name", t.import_name},
              {"import_scale", t.import_scale},
              {"sampler_state", t.sampler_state},
              {"platform", t.platform},
              {"mips", t.num_mips},
              {"width", t.width},
              {"height", t.height},
              {"depth", t.depth},
              {"array_size", t.array_size},
              {"surface_format", t.surface_format},
              {"surface_format_name", surface_format_name(t.surface_format)},
              {"texture_layout", t.layout},
              {"surface_gamma", t.gamma},
              {"multisample", t.multisample},
              {"resource_usage", t.resource_usage},
              {"texture_type", t.type},
              {"swizzle", t.swizzle},
              {"specular_gloss_exponent", t.specular_gloss},
              {"hdr_lightmap_scale", t.hdr_lightmap_scale},
              {"toon_gradient_cutoff", t.toon_gradient_cutoff},
              {"alpha_mode", t.alpha_mode},
              {"color_mode", t.color_mode},
              {"uv_offset", t.uv_offset},
              {"uv_scale", t.uv_scale},
              {"array_frame_names", t.array_frame_names.size()},
              {"toon_regions", t.toon_region_count},
              {"total_data_size", t.total_size},
              {"regions", regions}};
}

std::optional<std::string> peek_d3dtx_name(std::span<const std::uint8_t> head) {
  metastream h;
  if (!probe(head, &h) || !h.has_class(sym_t3texture)) return std::nullopt;
  try {
    byte_reader r(head);
    r.skip(20 + std::uint64_t{12} * h.classes.size());
    r.skip(4 + 8 + 8);  // mVersion, sampler state block, platform block
    std::uint32_t block = r.u32();
    std::uint32_t n = r.u32();
    if (block != n + 8 || n > 1024) return std::nullopt;
    auto s = r.bytes(n);
    return std::string(s.begin(), s.end());
  } catch (const core::failure&) {
    return std::nullopt;
  }
}

texture_file parse_d3dtx(std::span<const std::uint8_t> file) {
  texture_file t;
  t.ms = parse_metastream(file);
  if (!t.ms.has_class(sym_t3texture))
    fail(code::bad_magic,
         "MetaStream without a 'T3Texture' class in its class table: not a texture", 16);
  byte_reader r(t.ms.default_section, core::endian::little, t.ms.default_offset);
  t.version = r.i32();
  if (t.version != 9)
    fail(code::unsupported_version,
         "T3Texture mVersion " + std::to_string(t.version) +
             " is not supported; mVersion 9 (The Walking Dead Definitive Series) is read",
         r.abs() - 4);
  read_block(r, "T3Texture.mSamplerState", [&](byte_reader& b) { t.sampler_state = b.u32(); });
  read_block(r, "T3Texture.mPlatform", [&](byte_reader& b) { t.platform = b.u32(); });
  t.name = read_string(r, "T3Texture.mName");
  t.import_name = read_string(r, "T3Texture.mImportName");
  t.import_scale = r.f32();
  t.tool_props = r.u8();
  if (t.tool_props != '0')
    fail(code::unsupported_feature,
         "T3Texture.mToolProps is not '0' (a PropertySet follows); not supported", r.abs() - 1);
  t.num_mips = r.u32();
  t.width = r.u32();
  t.height = r.u32();
  t.depth = r.u32();
  t.array_size = r.u32();
  t.surface_format = r.u32();
  t.layout = r.u32();
  t.gamma = r.u32();
  t.multisample = r.u32();
  t.resource_usage = r.u32();
  t.type = r.u32();
  read_block(r, "T3Texture.mSwizzle", [&](byte_reader& b) {
    for (auto& s : t.swizzle) s = b.u8();
  });
  t.specular_gloss = r.f32();
  t.hdr_lightmap_scale = r.f32();
  t.toon_gradient_cutoff = r.f32();
  t.alpha_mode = r.i32();
  t.color_mode = r.i32();
  t.uv_offset = {r.f32(), r.f32()};
  t.uv_scale = {r.f32(), r.f32()};
  read_block(r, "T3Texture.mArrayFrameNames", [&](byte_reader& b) {
    std::uint32_t n = b.u32();
    b.checked_count(n, 8, "T3Texture.mArrayFrameNames");
    for (std::uint32_t i = 0; i < n; ++i) t.array_frame_names.push_back(b.u64());
  });
  read_block(r, "T3Texture.mToonRegions", [&](byte_reader& b) {
    t.toon_region_count = b.u32();
    b.checked_count(t.toon_region_count, 24, "T3Texture.mToonRegions");
    auto d = b.bytes(std::uint64_t{t.toon_region_count} * 24);
    t.toon_regions.assign(d.begin(), d.end());
  });
  std::uint32_t regions = r.u32();
  std::uint32_t aux = r.u32();
  t.total_size = r.u32();
  if (aux != 0)
    fail(code::unsupported_feature,
         "T3Texture with " + std::to_string(aux) + " auxiliary data entries; not supported",
         r.abs() - 8);
  if (regions > 4096)
    fail(code::bad_count, "T3Texture region count " + std::to_string(regions) + " (at most 4096)",
         r.abs() - 12);
  r.checked_count(regions, 24, "T3Texture region headers");
  for (std::uint32_t i = 0; i < regions; ++i) {
    texture_region g;
    g.face = r.u32();
    g.mip = r.u32();
    g.mip_count = r.u32();
    g.data_size = r.u32();
    g.pitch = r.u32();
    g.slice_pitch = r.u32();
    t.regions.push_back(std::move(g));
  }
  if (!r.eof())
    fail(code::bad_value, std::to_string(r.remaining()) + " bytes after the region headers",
         r.abs());
  const std::uint64_t async_base =
      t.ms.default_offset + t.ms.default_section.size() + t.ms.debug_section.size();
  byte_reader a(t.ms.async_section, core::endian::little, async_base);
  std::uint64_t sum = 0;
  for (auto& g : t.regions) {
    auto d = a.bytes(g.data_size);
    g.data.assign(d.begin(), d.end());
    sum += g.data_size;
  }
  if (sum != t.total_size)
    fail(code::bad_value,
         "region sizes add up to " + std::to_string(sum) + " bytes, mTotalDataSize says " +
             std::to_string(t.total_size),
         async_base);
  auto rest = a.bytes(a.remaining());
  t.trailing_async.assign(rest.begin(), rest.end());
  return t;
}

std::vector<std::uint8_t> write_d3dtx(const texture_file& t) {
  byte_writer w;
  w.i32(t.version);
  write_block(w, [&] { w.u32(t.sampler_state); });
  write_block(w, [&] { w.u32(t.platform); });
  write_string(w, t.name);
  write_string(w, t.import_name);
  w.f32(t.import_scale);
  w.u8(t.tool_props);
  for (auto v : {t.num_mips, t.width, t.height, t.depth, t.array_size, t.surface_format, t.layout,
                 t.gamma, t.multisample, t.resource_usage, t.type})
    w.u32(v);
  write_block(w, [&] {
    for (auto s : t.swizzle) w.u8(s);
  });
  w.f32(t.specular_gloss);
  w.f32(t.hdr_lightmap_scale);
  w.f32(t.toon_gradient_cutoff);
  w.i32(t.alpha_mode);
  w.i32(t.color_mode);
  w.f32(t.uv_offset[0]);
  w.f32(t.uv_offset[1]);
  w.f32(t.uv_scale[0]);
  w.f32(t.uv_scale[1]);
  write_block(w, [&] {
    w.u32(static_cast<std::uint32_t>(t.array_frame_names.size()));
    for (auto s : t.array_frame_names) w.u64(s);
  });
  write_block(w, [&] {
    w.u32(t.toon_region_count);
    w.bytes(t.toon_regions);
  });
  w.u32(static_cast<std::uint32_t>(t.regions.size()));
  w.u32(0);
  w.u32(t.total_size);
  for (const auto& g : t.regions)
    for (auto v : {g.face, g.mip, g.mip_count, g.data_size, g.pitch, g.slice_pitch}) w.u32(v);
  metastream ms = t.ms;
  ms.default_section = w.take();
  byte_writer a;
  for (const auto& g : t.regions) a.bytes(g.data);
  a.bytes(t.trailing_async);
  ms.async_section = a.take();
  return write_metastream(ms);
}

}  // namespace rigrip::telltale
