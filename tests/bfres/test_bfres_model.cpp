// BFRES models: GX2 surface layouts and texel formats from hand-built vectors, vertex
// attribute formats, the Bass model + Tex1 sample (meshes, skinning, materials, the
// albedo's colours and UV placement), hostile edits, and curve precision against an
// independent double evaluation.
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <map>
#include <set>

#include <gtest/gtest.h>

#include "core/failure.hpp"
#include "formats/bfres/decode.hpp"
#include "formats/bfres/decode_model.hpp"
#include "formats/bfres/fres.hpp"
#include "formats/bfres/gx2.hpp"
#include "formats/bfres/vertex.hpp"
#include "rigrip/gltf.hpp"
#include "scene/pose.hpp"
#include "scene/tangents.hpp"
#include "test_support.hpp"

using namespace rigrip;
namespace gx2 = rigrip::bfres::gx2;

namespace {

struct loaded {
  scene s;
  diagnostics diags;
};

loaded read_path(const std::string& path, read_options o = {}) {
  loaded out;
  auto r = read_scene(path, o, out.diags);
  if (!r) ADD_FAILURE() << r.error().to_string();
  else out.s = std::move(r.value());
  return out;
}

// A FRES image, out of its Yaz0 stream when it has one.
bfres::file load_any(const std::vector<std::uint8_t>& data) {
  auto u = rigrip::unwrap(data, "test");
  if (!u) throw std::runtime_error(u.error().to_string());
  return u.value().chain.empty() ? bfres::load(data) : bfres::load(u.value().data);
}

bool has_warning(const diagnostics& d, code c, const std::string& part) {
  return std::any_of(d.warnings.begin(), d.warnings.end(),
                     [&](const warning& w) { return w.code == c && w.message.find(part) != std::string::npos; });
}

const mesh* find_mesh(const scene& s, const std::string& name, const std::string& model) {
  for (const auto& m : s.meshes)
    if (m.name == name && m.extras.value("model", std::string()) == model) return &m;
  return nullptr;
}

// ---- GX2 layouts: offsets derived by hand from the address rules (README: FTEX) --------

TEST(Gx2, MicroTiledOffsetsFollowTheBitInterleave) {
  // 1D tiled thin1: 8x8 micro tiles, element bits of x and y interleaved by element size.
  // 32 bpp: x0 x1 y0 x2 y1 y2.
  EXPECT_EQ(gx2::element_offset(1, 0, 32, 2, 8, 0), 4u);
  EXPECT_EQ(gx2::element_offset(2, 0, 32, 2, 8, 0), 8u);
  EXPECT_EQ(gx2::element_offset(0, 1, 32, 2, 8, 0), 16u);
  EXPECT_EQ(gx2::element_offset(4, 0, 32, 2, 8, 0), 32u);
  EXPECT_EQ(gx2::element_offset(0, 2, 32, 2, 8, 0), 64u);
  EXPECT_EQ(gx2::element_offset(8, 0, 32, 2, 16, 0), 256u);  // the next micro tile (256 bytes)
  EXPECT_EQ(gx2::element_offset(0, 8, 32, 2, 16, 0), 512u);  // next tile row: pitch 16 = 2 tiles
  // 8 bpp: x0 x1 x2 y1 y0 y2 (y0 and y1 swapped).
  EXPECT_EQ(gx2::element_offset(0, 1, 8, 2, 8, 0), 16u);
  EXPECT_EQ(gx2::element_offset(0, 2, 8, 2, 8, 0), 8u);
  EXPECT_EQ(gx2::element_offset(4, 0, 8, 2, 8, 0), 4u);
  // 64 bpp (a BC1/BC4 block): x0 y0 x1 x2 y1 y2.
  EXPECT_EQ(gx2::element_offset(1, 0, 64, 2, 8, 0), 8u);
  EXPECT_EQ(gx2::element_offset(0, 1, 64, 2, 8, 0), 16u);
  EXPECT_EQ(gx2::element_offset(2, 0, 64, 2, 8, 0), 32u);
  // 128 bpp (BC2/3/5): y0 x0 x1 x2 y1 y2.
  EXPECT_EQ(gx2::element_offset(0, 1, 128, 2, 8, 0), 16u);
  EXPECT_EQ(gx2::element_offset(1, 0, 128, 2, 8, 0), 32u);
  // Linear aligned: rows of `pitch` elements.
  EXPECT_EQ(gx2::element_offset(3, 2, 32, 1, 16, 0), (2u * 16 + 3) * 4);
}

TEST(Gx2, MacroTiledOffsetsSpreadTilesOverPipesAndBanks) {
  // 2D tiled thin1, 32 bpp, pitch 32 (one macro tile of 32x16 elements per row):
  // pipe = x3 ^ y3 (256-byte interleave), bank bits (y/32 ^ x3), (y/16 ^ x4) at 512 and 1024.
  EXPECT_EQ(gx2::element_offset(0, 0, 32, 4, 32, 0), 0u);
  EXPECT_EQ(gx2::element_offset(1, 0, 32, 4, 32, 0), 4u);       // inside the micro tile
  EXPECT_EQ(gx2::element_offset(0, 8, 32, 4, 32, 0), 256u);     // pipe 1
  EXPECT_EQ(gx2::element_offset(8, 0, 32, 4, 32, 0), 768u);     // pipe 1, bank 1
  EXPECT_EQ(gx2::element_offset(8, 8, 32, 4, 32, 0), 512u);     // pipe 0, bank 1
  EXPECT_EQ(gx2::element_offset(16, 0, 32, 4, 32, 0), 1024u);   // bank 2
  EXPECT_EQ(gx2::element_offset(32, 0, 32, 4, 64, 0), 2048u);   // second macro tile (2048 bytes)
  EXPECT_EQ(gx2::element_offset(0, 16, 32, 4, 32, 0), 3072u);   // next macro row, bank 2
  // The surface's pipe/bank swizzle (bits 8 and 9-10) is xor-ed into every tile.
  EXPECT_EQ(gx2::element_offset(0, 0, 32, 4, 32, 0x100), 256u);
  EXPECT_EQ(gx2::element_offset(0, 0, 32, 4, 32, 0x200), 512u);
  EXPECT_EQ(gx2::element_offset(8, 0, 32, 4, 32, 0x100), 512u);  // pipe 1 ^ 1 = 0, bank 1
}

// Linear, 2D thin2 and thin4 offsets, derived by hand from the same address rules.
TEST(Gx2, LinearThin2Thin4Offsets) {
  EXPECT_EQ(gx2::element_offset(3, 2, 32, 1, 64, 0), (2u * 64 + 3) * 4);  // linear: rows of `pitch`
  // 2D thin2 (macro tile 16x32 elements, 2048 bytes at 32 bpp), pitch 16.
  EXPECT_EQ(gx2::element_offset(0, 16, 32, 5, 16, 0), 1024u);  // bank bit 1 (y/16 ^ x4): bank 2
  EXPECT_EQ(gx2::element_offset(0, 32, 32, 5, 16, 0), 2560u);  // next macro row (2048) + bank 1
  // 2D thin4 (macro tile 8x64 elements), pitch 8.
  EXPECT_EQ(gx2::element_offset(0, 48, 32, 6, 8, 0), 1536u);   // banks 1 | 2 = 3
  EXPECT_EQ(gx2::element_offset(0, 64, 32, 6, 8, 0), 2048u);   // next macro tile
}

// Mip levels: padded to powers of two, 2D tiling falling back to 1D when a level is
// narrower than a macro tile (x the pipe-interleave factor for small elements), pitches
// aligned per mode.
TEST(Gx2, MipLayoutFollowsTheAddressRules) {
  gx2::surface bc1{128, 128, 0x31, 4, 0, 32};
  auto l1 = gx2::mip_layout(bc1, 1);
  EXPECT_EQ(l1.width, 64u);
  EXPECT_EQ(l1.tile_mode, 2u);  // 16 blocks < 32: 1D
  EXPECT_EQ(l1.pitch, 16u);
  EXPECT_EQ(l1.size, 2048u);
  EXPECT_EQ(gx2::mip_layout(bc1, 2).size, 512u);   // 8x8 blocks
  EXPECT_EQ(gx2::mip_layout(bc1, 7).size, 512u);   // 1x1 pixel: one block in an 8x8 micro tile
  EXPECT_EQ(gx2::mip_layout(bc1, 7).width, 1u);
  gx2::surface rgba{256, 256, 0x1A, 4, 0, 256};
  EXPECT_EQ(gx2::mip_layout(rgba, 1).tile_mode, 4u);  // 128 wide: still 2D
  EXPECT_EQ(gx2::mip_layout(rgba, 1).size, 128u * 128 * 4);
  EXPECT_EQ(gx2::mip_layout(rgba, 3).tile_mode, 4u);  // 32 x 32
  EXPECT_EQ(gx2::mip_layout(rgba, 4).tile_mode, 2u);  // 16 < 32
  EXPECT_EQ(gx2::mip_layout(rgba, 4).size, 16u * 16 * 4);
  gx2::surface r8{256, 256, 0x01, 4, 0, 256};
  EXPECT_EQ(gx2::mip_layout(r8, 1).tile_mode, 4u);    // 128 >= 4 x 32 (64-byte micro tiles)
  EXPECT_EQ(gx2::mip_layout(r8, 1).pitch, 128u);
  EXPECT_EQ(gx2::mip_layout(r8, 2).tile_mode, 2u);    // 64 < 128
  EXPECT_EQ(gx2::mip_layout(r8, 2).pitch, 64u);       // 1D pitch align: 256 bytes / 8 rows = 32
  EXPECT_EQ(gx2::mip_layout(r8, 2).size, 64u * 64);
  gx2::surface odd{100, 60, 0x1A, 1, 0, 128};  // linear, not a power of two
  auto o1 = gx2::mip_layout(odd, 1);
  EXPECT_EQ(o1.width, 50u);
  EXPECT_EQ(o1.height, 30u);
  EXPECT_EQ(o1.pitch, 64u);  // 64 padded, linear align 64
  EXPECT_EQ(o1.size, 64u * 32 * 4);
  // A level's own pixels come back through its layout (R8, 1D: known values per texel).
  gx2::surface base{16, 16, 0x01, 2, 0, 32};
  const auto lv = gx2::mip_layout(base, 1);
  gx2::surface ls = base;
  ls.width = lv.width, ls.height = lv.height, ls.tile_mode = lv.tile_mode, ls.pitch = lv.pitch;
  std::vector<std::uint8_t> lin(64);
  for (std::size_t i = 0; i < lin.size(); ++i) lin[i] = static_cast<std::uint8_t>(3 * i + 1);
  const auto tiled = gx2::tile(ls, lin, lv.size);
  const auto px = gx2::decode_rgba(ls, tiled, 0);
  ASSERT_EQ(px.size(), 64u * 4);
  for (std::size_t i = 0; i < 64; ++i) EXPECT_EQ(px[4 * i], lin[i]);
}

// The real BotW headers: every level's computed size matches the gaps between the mip
// offsets Nintendo's tool wrote (and the mip data size), and the first level that leaves
// 2D tiling matches the level the surface's swizzle word records (bits 16-23).
TEST(Gx2, MipLayoutMatchesTheBassHeaders) {
  RIGRIP_REQUIRE_SAMPLE(tex1, "bfres/Animal_Bass.Tex1.sbfres");
  auto raw = load_any(test::read_bytes(tex1));
  int checked = 0;
  for (const auto& t : raw.textures) {
    gx2::surface sf{t.width, t.height, t.format, t.tile_mode, t.swizzle, t.pitch};
    std::uint64_t at = 0;
    std::uint32_t first_1d = 0;
    for (std::uint32_t k = 1; k < t.mip_count; ++k) {
      const auto lv = gx2::mip_layout(sf, k);
      const std::uint64_t rel = k == 1 ? t.mip_offsets[0] - t.image_size : t.mip_offsets[k - 1];
      EXPECT_EQ(rel, at) << t.name << " level " << k;
      at = rel + lv.size;
      if (!first_1d && t.tile_mode == 4 && lv.tile_mode == 2) first_1d = k;
      ++checked;
    }
    EXPECT_EQ(at, t.mip_size) << t.name;
    if (t.tile_mode == 4) EXPECT_EQ(first_1d, (t.swizzle >> 16) & 0xFF) << t.name;
  }
  EXPECT_EQ(checked, 3 * 7 + 4 + 2 + 2 + 7 + 6);
}

// A small surface with distinct texels, tiled by the element_offset rules, must untile
// to itself for every supported mode and element size.
TEST(Gx2, TileUntileEveryModeAndSize) {
  for (std::uint32_t fmt : {0x01u, 0x07u, 0x1Au, 0x31u, 0x33u}) {
    const auto fi = gx2::describe(fmt);
    ASSERT_TRUE(fi);
    for (std::uint32_t mode : {1u, 2u, 4u, 5u, 6u}) {
      gx2::surface s;
      s.width = fi->block_compressed ? 128 : 40;
      s.height = fi->block_compressed ? 64 : 24;
      s.format = fmt;
      s.tile_mode = mode;
      s.swizzle = 0x300;
      s.pitch = mode == 1 ? 40 : 64;
      const std::uint32_t w = fi->block_compressed ? s.width / 4 : s.width, h = fi->block_compressed ? s.height / 4 : s.height;
      std::vector<std::uint8_t> lin(std::size_t(w) * h * fi->bits_per_element / 8);
      for (std::size_t i = 0; i < lin.size(); ++i) lin[i] = static_cast<std::uint8_t>(i * 7 + i / 251);
      const auto tiled = gx2::tile(s, lin, 64 * 1024);
      EXPECT_EQ(gx2::untile(s, tiled, 0), lin) << "format " << fmt << " mode " << mode;
    }
  }
}

gx2::surface one_pixel(std::uint32_t fmt) {
  gx2::surface s;
  s.width = 1;
  s.height = 1;
  s.format = fmt;
  s.tile_mode = 1;
  s.pitch = 32;
  return s;
}
std::array<int, 4> pixel(std::uint32_t fmt, std::vector<std::uint8_t> bytes, std::array<std::uint8_t, 4> sel = {0, 1, 2, 3}) {
  gx2::surface s = one_pixel(fmt);
  s.comp_sel = sel;
  bytes.resize(256);
  auto px = gx2::decode_rgba(s, bytes, 0);
  return {px[0], px[1], px[2], px[3]};
}

TEST(Gx2, UncompressedTexelsDecode) {
  // Texel bytes are little-endian GPU words, first component in the low bits.
  EXPECT_EQ(pixel(0x1A, {10, 20, 30, 40}), (std::array<int, 4>{10, 20, 30, 40}));     // RGBA8
  EXPECT_EQ(pixel(0x41A, {10, 20, 30, 40}), (std::array<int, 4>{10, 20, 30, 40}));    // RGBA8 sRGB: stored as is
  EXPECT_EQ(pixel(0x08, {0x1F, 0x00}), (std::array<int, 4>{255, 0, 0, 255}));         // RGB565: R = bits 0-4
  EXPECT_EQ(pixel(0x08, {0xE0, 0x07}), (std::array<int, 4>{0, 255, 0, 255}));         // G = bits 5-10
  EXPECT_EQ(pixel(0x08, {0x00, 0xF8}), (std::array<int, 4>{0, 0, 255, 255}));         // B = bits 11-15
  EXPECT_EQ(pixel(0x0A, {0x1F, 0x80}), (std::array<int, 4>{255, 0, 0, 255}));         // RGB5A1
  EXPECT_EQ(pixel(0x0A, {0x00, 0x7C}), (std::array<int, 4>{0, 0, 255, 0}));
  EXPECT_EQ(pixel(0x0B, {0x21, 0x43}), (std::array<int, 4>{17, 34, 51, 68}));         // RGBA4: 1,2,3,4 x 17
  EXPECT_EQ(pixel(0x01, {200}), (std::array<int, 4>{200, 0, 0, 255}));                // R8
  EXPECT_EQ(pixel(0x07, {200, 100}), (std::array<int, 4>{200, 100, 0, 255}));         // RG8
  EXPECT_EQ(pixel(0x02, {0xF1}), (std::array<int, 4>{17, 255, 0, 255}));              // R4G4: R low nibble
  // Component selection: R R R 1 (BotW specular masks), 0 = zero.
  EXPECT_EQ(pixel(0x01, {200}, {0, 0, 0, 5}), (std::array<int, 4>{200, 200, 200, 255}));
  EXPECT_EQ(pixel(0x1A, {1, 2, 3, 4}, {3, 2, 1, 4}), (std::array<int, 4>{4, 3, 2, 0}));
}

TEST(Gx2, BlockCompressedTexelsDecode) {
  // BC1 (DXT1 spec): c0 = red 0xF800, c1 = blue 0x001F (c0 > c1: four colours); texel
  // indices 0, 1, 2, 3 in the first row -> red, blue, 2/3 red + 1/3 blue, 1/3 red + 2/3 blue.
  gx2::surface s = one_pixel(0x31);
  s.width = 4;
  s.height = 4;
  std::vector<std::uint8_t> bc1{0x00, 0xF8, 0x1F, 0x00, 0b11100100, 0, 0, 0};
  bc1.resize(256);
  auto px = gx2::decode_rgba(s, bc1, 0);
  EXPECT_EQ(px[0], 255);
  EXPECT_EQ(px[2], 0);
  EXPECT_EQ(px[4], 0);
  EXPECT_EQ(px[6], 255);
  EXPECT_NEAR(px[8], 170, 1);
  EXPECT_NEAR(px[10], 85, 1);
  EXPECT_NEAR(px[12], 85, 1);
  EXPECT_NEAR(px[14], 170, 1);
  EXPECT_EQ(px[15], 255);
  // c0 <= c1: three colours and index 3 = transparent black.
  std::vector<std::uint8_t> bc1t{0x1F, 0x00, 0x00, 0xF8, 0b00000011, 0, 0, 0};
  bc1t.resize(256);
  px = gx2::decode_rgba(s, bc1t, 0);
  EXPECT_EQ(px[3], 0);
  EXPECT_EQ(px[4 + 3], 255);
  // BC4: a0 = 255, a1 = 0 (eight levels); indices 0, 1, 2 -> 255, 0, 219 (6/7 a0 + 1/7 a1).
  s.format = 0x34;
  std::vector<std::uint8_t> bc4{255, 0, 0b10001000, 0, 0, 0, 0, 0};
  bc4.resize(256);
  px = gx2::decode_rgba(s, bc4, 0);
  EXPECT_EQ(px[0], 255);
  EXPECT_EQ(px[4], 0);
  EXPECT_NEAR(px[8], 219, 1);
  EXPECT_EQ(px[1], 0);
  EXPECT_EQ(px[3], 255);
  // BC5: two BC4 blocks -> R and G.
  s.format = 0x35;
  std::vector<std::uint8_t> bc5{255, 0, 0, 0, 0, 0, 0, 0, 0, 255, 0, 0, 0, 0, 0, 0};
  bc5.resize(256);
  px = gx2::decode_rgba(s, bc5, 0);
  EXPECT_EQ(px[0], 255);
  EXPECT_EQ(px[1], 0);
  // BC3: alpha block (a0 = 0, a1 = 255, index 1 everywhere) + colour block (white).
  s.format = 0x33;
  std::vector<std::uint8_t> bc3{0, 255, 0x49, 0x92, 0x24, 0x49, 0x92, 0x24, 0xFF, 0xFF, 0xFF, 0xFF, 0, 0, 0, 0};
  bc3.resize(256);
  px = gx2::decode_rgba(s, bc3, 0);
  EXPECT_EQ(px[0], 255);
  EXPECT_EQ(px[3], 255);
}

TEST(Gx2, RefusesWhatItCannotRead) {
  gx2::surface s = one_pixel(0x816);  // R11G11B10 float
  std::vector<std::uint8_t> data(256);
  try {
    (void)gx2::decode_rgba(s, data, 0);
    FAIL() << "decoded an unsupported format";
  } catch (const core::failure& e) {
    EXPECT_EQ(e.error().code, code::unsupported_feature);
    EXPECT_NE(e.error().message.find("0x816"), std::string::npos);
  }
  s = one_pixel(0x1A);
  s.tile_mode = 13;  // 3D tiled thick
  EXPECT_THROW((void)gx2::decode_rgba(s, data, 0), core::failure);
  // Data shorter than the surface: an error naming the element, no read past the buffer.
  s = one_pixel(0x31);
  s.width = s.height = 64;
  s.tile_mode = 4;
  std::vector<std::uint8_t> shortdata(300);
  try {
    (void)gx2::decode_rgba(s, shortdata, 0x1000);
    FAIL();
  } catch (const core::failure& e) {
    EXPECT_EQ(e.error().code, code::truncated);
    EXPECT_EQ(e.error().offset, 0x1000u);
  }
}

// ---- Vertex attribute formats (GX2AttribFormat, big-endian buffers) ----------------------

std::array<float, 4> attrib(std::uint32_t fmt, std::vector<std::uint8_t> b) {
  auto f = bfres::describe_gx2_attrib(fmt);
  EXPECT_TRUE(f);
  EXPECT_EQ(f->size(), b.size());
  return bfres::decode_attrib(*f, b.data(), core::endian::big);
}

TEST(VertexFormats, DecodeEveryKind) {
  auto p = attrib(0x80F, {0x3C, 0x00, 0xC0, 0x00, 0x38, 0x00, 0x00, 0x00});  // half x4: 1, -2, 0.5, 0
  EXPECT_EQ(p, (std::array<float, 4>{1, -2, 0.5f, 0}));
  p = attrib(0x811, {0x3F, 0x80, 0, 0, 0x40, 0, 0, 0, 0xC0, 0x40, 0, 0});  // f32 x3
  EXPECT_EQ(p, (std::array<float, 4>{1, 2, -3, 1}));
  // 10_10_10_2 snorm: x = 511 (1.0), y = -511 (-1.0), z = 0, w = 1 (unsigned 2 bits).
  const std::uint32_t w = 511u | (513u << 10) | (0u << 20) | (1u << 30);
  p = attrib(0x20B, {std::uint8_t(w >> 24), std::uint8_t(w >> 16), std::uint8_t(w >> 8), std::uint8_t(w)});
  EXPECT_FLOAT_EQ(p[0], 1);
  EXPECT_FLOAT_EQ(p[1], -1);
  EXPECT_FLOAT_EQ(p[2], 0);
  EXPECT_NEAR(p[3], 1 / 3.0f, 1e-6);
  p = attrib(0x004, {255, 0});  // unorm8_8 (skin weights)
  EXPECT_EQ(p[0], 1);
  EXPECT_EQ(p[1], 0);
  p = attrib(0x104, {3, 7});  // uint8_8 (skin indices)
  EXPECT_EQ(p[0], 3);
  EXPECT_EQ(p[1], 7);
  p = attrib(0x007, {0xFF, 0xFF, 0x80, 0x00});  // unorm16_16 (UVs)
  EXPECT_EQ(p[0], 1);
  EXPECT_NEAR(p[1], 32768 / 65535.0, 1e-7);
  p = attrib(0x20A, {0x7F, 0x81, 0x80, 0x00});  // snorm8 x4: 1, -1, -1 (clamped), 0
  EXPECT_EQ(p, (std::array<float, 4>{1, -1, -1, 0}));
  p = attrib(0x207, {0x80, 0x01, 0x7F, 0xFF});  // snorm16_16
  EXPECT_EQ(p[0], -1);
  EXPECT_EQ(p[1], 1);
  p = attrib(0xA04, {0xFF, 0x02});  // sint8 -> float: -1, 2
  EXPECT_EQ(p[0], -1);
  EXPECT_EQ(p[1], 2);
  EXPECT_FALSE(bfres::describe_gx2_attrib(0x0FF));
  EXPECT_FALSE(bfres::describe_gx2_attrib(0x803 + 0x100));
  EXPECT_FALSE(bfres::describe_gx2_attrib(0x10080F));
}


// ---- The Bass model and its texture file --------------------------------------------------

TEST(BassModel, MeshesMaterialsSkinning) {
  RIGRIP_REQUIRE_SAMPLE(path, "bfres/Animal_Bass.bfres");
  auto tex1 = test::sample("bfres/Animal_Bass.Tex1.sbfres");
  const loaded l = read_path(path);
  const scene& s = l.s;
  ASSERT_EQ(s.skeletons.size(), 2u);
  ASSERT_EQ(s.meshes.size(), 4u);     // body + eye of 'Bass' and of 'Bass_Boneless'
  ASSERT_EQ(s.materials.size(), 4u);  // Mt_Body, Mt_Eye per model
  const mesh* body = find_mesh(s, "Model__Mt_Body", "Bass");
  const mesh* eye = find_mesh(s, "Model__Mt_Eye", "Bass");
  const mesh* still = find_mesh(s, "Root__Mt_Body", "Bass_Boneless");
  ASSERT_TRUE(body && eye && still);
  EXPECT_EQ(body->indices.size() / 3, 410u);  // LOD 0 of 2
  EXPECT_EQ(body->positions.size(), 358u);    // the vertices LOD 0 uses (479 in the buffer)
  EXPECT_EQ(eye->indices.size() / 3, 16u);
  EXPECT_EQ(eye->positions.size(), 18u);
  EXPECT_EQ(s.materials[static_cast<std::size_t>(body->material)].name, "Mt_Body");
  EXPECT_EQ(s.materials[static_cast<std::size_t>(eye->material)].name, "Mt_Eye");
  // Smooth skinning (2 influences) through the matrix-to-bone table: smooth matrices
  // 0-3 are bones Head, Spine_1, Spine_2, Spine_3 (2-5).
  ASSERT_EQ(body->joints.size(), body->positions.size());
  std::set<int> used;
  for (std::size_t v = 0; v < body->joints.size(); ++v) {
    float sum = 0;
    for (int k = 0; k < 4; ++k) {
      if (body->weights[v][k] > 0) used.insert(body->joints[v][k]);
      sum += body->weights[v][k];
    }
    EXPECT_NEAR(sum, 1, 1e-5);
  }
  EXPECT_EQ(used, (std::set<int>{2, 3, 4, 5}));
  EXPECT_EQ(body->skeleton, 0);
  EXPECT_EQ(s.skeletons[0].bones[5].name, "Spine_3");
  // Normals are unit vectors (10_10_10_2 snorm), UVs inside the texture.
  for (const auto& n : body->normals) EXPECT_NEAR(std::sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]), 1, 3e-3);
  ASSERT_EQ(body->uvs1.size(), body->positions.size());
  for (const auto& uv : body->uvs) EXPECT_TRUE(uv[0] >= 0 && uv[0] <= 1 && uv[1] >= 0 && uv[1] <= 1);
  // The static copy follows its one bone (skin count 0).
  EXPECT_EQ(still->bone, 0);
  EXPECT_TRUE(still->joints.empty());
  // The rest pose is the bind pose: the file's inverse model matrices invert the scene's
  // rest worlds of the bones they belong to (mtxToBone), so glTF's inverse bind matrices match.
  auto raw = load_any(test::read_bytes(path));
  const auto& fskl = *raw.models[0].skel;
  const auto world = scene_ops::world_matrices(s.skeletons[0]);
  for (std::size_t k = 0; k < fskl.inverse_matrices.size(); ++k) {
    const auto& w = world[static_cast<std::size_t>(fskl.mtx_to_bone[k])];
    const auto& inv = fskl.inverse_matrices[k];  // row-major 3x4
    for (int r = 0; r < 3; ++r)
      for (int c = 0; c < 4; ++c) {
        double v = 0;
        for (int j = 0; j < 3; ++j) v += inv[r * 4 + j] * w[c * 4 + j];
        if (c == 3) v += inv[r * 4 + 3];
        EXPECT_NEAR(v, r == c ? 1 : 0, 1e-5) << "matrix " << k;
      }
  }
  if (!tex1) GTEST_SKIP() << "shared sample not present: bfres/Animal_Bass.Tex1.sbfres (textures)";
  // Textures from the sibling Tex1 file: albedo and normal of body and eye, with the
  // sampler's wrap mode; the body's normal map reads UV set 1 (BotW shader option).
  const auto& mat = s.materials[static_cast<std::size_t>(body->material)];
  ASSERT_GE(mat.texture, 0);
  ASSERT_GE(mat.normal_texture, 0);
  EXPECT_EQ(s.textures[static_cast<std::size_t>(mat.texture)].name, "Bass_Alb.0");
  EXPECT_EQ(s.textures[static_cast<std::size_t>(mat.normal_texture)].name, "Bass_Nrm");
  EXPECT_EQ(mat.texcoord, 0);
  EXPECT_EQ(mat.normal_texcoord, 1);
  EXPECT_EQ(mat.alpha_mode, material::alpha::mask);  // render state: alpha mask, ref 0.5
  EXPECT_FALSE(mat.double_sided);                     // back faces culled
  EXPECT_EQ(s.textures[static_cast<std::size_t>(mat.texture)].wrap_s, texture_wrap::repeat);
  EXPECT_FALSE(has_warning(l.diags, code::w_missing_texture, ""));
}

// Tangents come from the file (_t0 xyz, handedness from the binormal _b0): unit, orthogonal
// to the normals, one per vertex; with them the normal map goes into glTF's normalTexture and
// the glb validates with no warning. Compared with tangents made from the gradients of the
// normal map's UV set (glTF convention), they mostly point the same way.
TEST(BassModel, TangentsFromTheFileAndNormalTextureInGlb) {
  RIGRIP_REQUIRE_SAMPLE(path, "bfres/Animal_Bass.bfres");
  RIGRIP_REQUIRE_SAMPLE(tex1, "bfres/Animal_Bass.Tex1.sbfres");
  const loaded l = read_path(path);
  std::size_t total = 0, same_dir = 0, same_hand = 0, negative = 0;
  for (const auto& me : l.s.meshes) {
    ASSERT_EQ(me.tangents.size(), me.positions.size()) << me.name;
    EXPECT_EQ(me.extras.value("tangents", std::string()), "_t0 + _b0") << me.name;
    EXPECT_FALSE(me.extras.contains("unconverted_attributes")) << me.name;  // _t0 and _b0 are used
    const auto& mat = l.s.materials[static_cast<std::size_t>(me.material)];
    const auto& uv = mat.normal_texcoord == 1 ? me.uvs1 : me.uvs;
    const auto ref = scene_ops::uv_tangents(me.positions, me.normals, uv, me.indices);
    for (std::size_t v = 0; v < me.tangents.size(); ++v) {
      const auto& t = me.tangents[v];
      const auto& n = me.normals[v];
      EXPECT_NEAR(std::sqrt(t[0] * t[0] + t[1] * t[1] + t[2] * t[2]), 1, 1e-5);
      const double nl = std::sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
      EXPECT_NEAR((t[0] * n[0] + t[1] * n[1] + t[2] * n[2]) / nl, 0, 1e-5);
      EXPECT_TRUE(t[3] == 1.0f || t[3] == -1.0f);
      negative += t[3] < 0;
      ++total;
      same_dir += t[0] * ref[v][0] + t[1] * ref[v][1] + t[2] * ref[v][2] > 0.7;
      same_hand += t[3] == ref[v][3];
    }
  }
  std::printf("Bass tangents: %zu vertices, %zu with w = -1; vs UV-gradient tangents: %zu within 45 deg, %zu same handedness\n",
              total, negative, same_dir, same_hand);
  EXPECT_GE(same_dir, total * 95 / 100);  // measured: 738 of 752
  EXPECT_GE(same_hand, total * 95 / 100);  // measured: 742 of 752 (BotW binormals follow glTF's convention)
  gltf::write_options go;
  diagnostics wd;
  const std::string out = test::out_path("bfres_bass_tangents.glb");
  auto w = gltf::write_file(l.s, out, go, wd);
  ASSERT_TRUE(w) << w.error().to_string();
  const auto glb = test::read_bytes(out);
  const std::string text(glb.begin(), glb.end());
  EXPECT_NE(text.find("\"TANGENT\""), std::string::npos);
  EXPECT_NE(text.find("\"normalTexture\""), std::string::npos);
  std::string report;
  const int errors = test::gltf_validator_errors(out, &report);
  if (errors < 0) GTEST_SKIP() << "node/gltf-validator not available";
  EXPECT_EQ(errors, 0) << report;
  EXPECT_NE(report.find(" 0 warnings"), std::string::npos) << report;
}

// The albedo's colours: the mean of the decoded opaque texels equals the mean of the BC1
// endpoint colours (read from the raw blocks here, independent of libsquish and of the
// tiling), a fish's olive/brown; and the body's UVs land on the painted islands, which
// only holds with the right deswizzle and V orientation.
TEST(BassModel, AlbedoColoursAndPlacement) {
  RIGRIP_REQUIRE_SAMPLE(path, "bfres/Animal_Bass.bfres");
  RIGRIP_REQUIRE_SAMPLE(tex1, "bfres/Animal_Bass.Tex1.sbfres");
  const loaded l = read_path(path);
  const mesh* body = find_mesh(l.s, "Model__Mt_Body", "Bass");
  ASSERT_TRUE(body);
  const auto& t = l.s.textures[static_cast<std::size_t>(l.s.materials[static_cast<std::size_t>(body->material)].texture)];
  ASSERT_EQ(t.width, 128u);
  double sum[3] = {0, 0, 0};
  int opaque = 0;
  for (std::size_t i = 0; i < t.rgba.size(); i += 4)
    if (t.rgba[i + 3] > 0) {
      for (int k = 0; k < 3; ++k) sum[k] += t.rgba[i + static_cast<std::size_t>(k)];
      ++opaque;
    }
  ASSERT_GT(opaque, 5000);
  // Endpoints of every block that has an opaque texel.
  auto raw = load_any(test::read_bytes(tex1));
  const bfres::ftex* alb = nullptr;
  for (const auto& x : raw.textures)
    if (x.name == "Bass_Alb.0") alb = &x;
  ASSERT_TRUE(alb);
  double ep[3] = {0, 0, 0};
  int n = 0;
  for (std::uint32_t b = 0; b < alb->image_size; b += 8) {
    const std::uint8_t* p = raw.image.data() + alb->data_at + b;
    const unsigned c0 = p[0] | p[1] << 8, c1 = p[2] | p[3] << 8;
    const std::uint32_t idx = p[4] | p[5] << 8 | p[6] << 16 | std::uint32_t(p[7]) << 24;
    if (c0 <= c1 && idx == 0xFFFFFFFFu) continue;  // all texels transparent
    for (unsigned c : {c0, c1}) {
      ep[0] += ((c >> 11) & 31) * 255.0 / 31;
      ep[1] += ((c >> 5) & 63) * 255.0 / 63;
      ep[2] += (c & 31) * 255.0 / 31;
      ++n;
    }
  }
  for (int k = 0; k < 3; ++k) {
    EXPECT_NEAR(sum[k] / opaque, ep[k] / n, 4) << "channel " << k;
  }
  const double r = sum[0] / opaque, g = sum[1] / opaque, b = sum[2] / opaque;
  EXPECT_GT(g, b + 15);  // green-brown: red and green well above blue
  EXPECT_GT(r, b + 15);
  EXPECT_LT(std::fabs(r - g), 20);
  // Triangle centroids of the body sample opaque (painted) texels.
  int inside = 0, tris = 0;
  for (std::size_t i = 0; i + 2 < body->indices.size(); i += 3, ++tris) {
    float u = 0, v = 0;
    for (int k = 0; k < 3; ++k) {
      u += body->uvs[body->indices[i + static_cast<std::size_t>(k)]][0] / 3;
      v += body->uvs[body->indices[i + static_cast<std::size_t>(k)]][1] / 3;
    }
    const auto x = std::min<std::uint32_t>(static_cast<std::uint32_t>(u * t.width), t.width - 1);
    const auto y = std::min<std::uint32_t>(static_cast<std::uint32_t>(v * t.height), t.height - 1);
    inside += t.rgba[(std::size_t(y) * t.width + x) * 4 + 3] > 0;
  }
  EXPECT_GE(inside, tris * 98 / 100) << inside << " of " << tris;
}

TEST(BassModel, LodOptionAndGlb) {
  RIGRIP_REQUIRE_SAMPLE(path, "bfres/Animal_Bass.bfres");
  read_options o;
  o.lod = 1;
  const loaded l = read_path(path, o);
  const mesh* body = find_mesh(l.s, "Model__Mt_Body", "Bass");
  ASSERT_TRUE(body);
  EXPECT_EQ(body->indices.size() / 3, 90u);
  o.lod = 7;  // beyond: the last LOD, with a warning
  const loaded l7 = read_path(path, o);
  EXPECT_EQ(find_mesh(l7.s, "Model__Mt_Body", "Bass")->indices.size() / 3, 90u);
  EXPECT_TRUE(has_warning(l7.diags, code::w_fallback, "--lod 7"));
  const loaded l0 = read_path(path);
  gltf::write_options go;
  diagnostics wd;
  const std::string out = test::out_path("bfres_bass_model.glb");
  auto w = gltf::write_file(l0.s, out, go, wd);
  ASSERT_TRUE(w) << w.error().to_string();
  std::string report;
  const int errors = test::gltf_validator_errors(out, &report);
  if (errors < 0) GTEST_SKIP() << "node/gltf-validator not available";
  EXPECT_EQ(errors, 0) << report;
}

// The animation file pairs with its model by name and brings the model's meshes and textures.
TEST(BassModel, AnimationFileBringsTheModel) {
  RIGRIP_REQUIRE_SAMPLE(path, "bfres/Animal_Bass_Animation.bfres");
  RIGRIP_REQUIRE_SAMPLE(model, "bfres/Animal_Bass.bfres");
  const loaded l = read_path(path);
  ASSERT_EQ(l.s.skeletons.size(), 1u);
  EXPECT_EQ(l.s.animations.size(), 7u);
  EXPECT_EQ(l.s.meshes.size(), 2u);  // the rigged model 'Bass' only
  for (const auto& m : l.s.meshes) {
    EXPECT_EQ(m.skeleton, 0);
    EXPECT_FALSE(m.joints.empty());
  }
  EXPECT_EQ(l.s.metadata.value("model_file", std::string()), "Animal_Bass.bfres");
}

TEST(BassModel, MissingTextureFileIsAWarningNamingIt) {
  RIGRIP_REQUIRE_SAMPLE(path, "bfres/Animal_Bass.bfres");
  namespace fs = std::filesystem;
  const fs::path dir = fs::path(test::out_path("bfres_no_tex"));
  fs::create_directories(dir);
  const std::string copy = (dir / "Animal_Bass.bfres").string();
  test::write_bytes(copy, test::read_bytes(path));
  const loaded l = read_path(copy);
  EXPECT_EQ(l.s.meshes.size(), 4u);
  EXPECT_TRUE(has_warning(l.diags, code::w_missing_texture, "Animal_Bass.Tex1.sbfres")) << "warnings name the file looked for";
  EXPECT_TRUE(has_warning(l.diags, code::w_missing_texture, "'Bass_Alb.0'"));
  EXPECT_EQ(l.s.materials[0].texture, -1);
  // --texture-file supplies it from anywhere.
  if (auto tex1 = test::sample("bfres/Animal_Bass.Tex1.sbfres")) {
    read_options o;
    o.texture_paths = {*tex1};
    const loaded lt = read_path(copy, o);
    EXPECT_FALSE(has_warning(lt.diags, code::w_missing_texture, ""));
    EXPECT_GE(lt.s.materials[0].texture, 0);
  }
}


// ---- Hostile edits of the real files: clear errors or warnings, never a read past -------

struct bass_files {
  std::vector<std::uint8_t> model, tex1;  // decompressed FRES images
  bfres::file raw, raw_tex;
};
std::optional<bass_files> bass_images() {
  auto m = test::sample("bfres/Animal_Bass.bfres");
  auto t = test::sample("bfres/Animal_Bass.Tex1.sbfres");
  if (!m || !t) return std::nullopt;
  bass_files b;
  b.model = test::read_bytes(*m);
  b.raw = load_any(b.model);
  b.raw_tex = load_any(test::read_bytes(*t));
  b.tex1 = b.raw_tex.image;
  return b;
}
void put_be32(std::vector<std::uint8_t>& d, std::uint32_t at, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) d[at + static_cast<std::uint32_t>(i)] = static_cast<std::uint8_t>(v >> (24 - 8 * i));
}
// Reads a model image with a texture image beside it (as X.Tex1.bfres) in a fresh folder.
result<scene> read_pair(const std::vector<std::uint8_t>& model, const std::vector<std::uint8_t>& tex, const std::string& tag,
                        diagnostics& d) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::path(test::out_path("bfres_hostile_" + tag));
  fs::create_directories(dir);
  test::write_bytes((dir / "Animal_Bass.bfres").string(), model);
  test::write_bytes((dir / "Animal_Bass.Tex1.bfres").string(), tex);
  return read_scene((dir / "Animal_Bass.bfres").string(), {}, d);
}

TEST(BassModelHostile, ShortVertexBufferIsAnError) {
  auto b = bass_images();
  if (!b) GTEST_SKIP() << "shared samples not present: bfres/Animal_Bass.bfres + .Tex1.sbfres";
  auto m = b->model;
  put_be32(m, b->raw.models[0].vertex_buffers[0].buffers[0].at + 4, 100);  // positions: 100 of 3832 bytes
  diagnostics d;
  auto r = read_pair(m, b->tex1, "short_vb", d);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, code::truncated);
  EXPECT_NE(r.error().message.find("Model__Mt_Body"), std::string::npos) << r.error().message;
  EXPECT_NE(r.error().message.find("shorter than 479 vertices"), std::string::npos) << r.error().message;
}

TEST(BassModelHostile, IndexBeyondTheVerticesIsAnError) {
  auto b = bass_images();
  if (!b) GTEST_SKIP() << "shared samples not present";
  auto m = b->model;
  const auto& ib = b->raw.models[0].shapes[0].meshes[0].index_buffer;
  m[ib.data_at] = 0xFF;
  m[ib.data_at + 1] = 0xF0;
  diagnostics d;
  auto r = read_pair(m, b->tex1, "big_index", d);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, code::bad_value);
  EXPECT_NE(r.error().message.find("beyond the vertex count 479"), std::string::npos) << r.error().message;
  EXPECT_EQ(r.error().offset, ib.data_at);
}

TEST(BassModelHostile, UnknownFormatsAreSkippedWithWarnings) {
  auto b = bass_images();
  if (!b) GTEST_SKIP() << "shared samples not present";
  auto m = b->model;
  for (const auto& a : b->raw.models[0].vertex_buffers[0].attribs)
    if (a.name == "_n0") put_be32(m, a.at + 8, 0x0FF);
  auto t = b->tex1;
  for (const auto& x : b->raw_tex.textures) {
    if (x.name == "Bass_Alb.0") put_be32(t, x.at + 0x18, 0x99);             // unknown texture format
    if (x.name == "Bass_Nrm") put_be32(t, x.at + 0x24, 0x7FFFFF00);         // image past the data
    if (x.name == "Bass_Eye_Alb") put_be32(t, x.at + 0x2C, 0x7FFFFF00);     // mip chain past the data
  }
  // Not a BotW .Tex1 name any more, so the mip chain must fit in this file.
  const std::string tex_name = "Animal_Bass.Tex1";
  auto it = std::search(t.begin(), t.end(), tex_name.begin(), tex_name.end());
  ASSERT_NE(it, t.end());
  it[15] = '9';
  diagnostics d;
  auto r = read_pair(m, t, "formats", d);
  ASSERT_TRUE(r) << r.error().to_string();
  EXPECT_TRUE(has_warning(d, code::w_unsupported_part, "attribute '_n0' has the unknown format 0xFF"));
  EXPECT_TRUE(find_mesh(r.value(), "Model__Mt_Body", "Bass")->normals.empty());
  EXPECT_TRUE(has_warning(d, code::w_unsupported_part, "texture 'Bass_Alb.0'"));
  EXPECT_TRUE(has_warning(d, code::w_unsupported_part, "format 0x99 is not supported"));
  EXPECT_TRUE(has_warning(d, code::w_unsupported_part, "runs past the file"));
  EXPECT_TRUE(has_warning(d, code::w_suspicious_value, "mip chain"));
  EXPECT_EQ(r.value().materials[0].texture, -1);
}

// A mip chain inside the file is decoded level by level (here the eye albedo's mip data
// offset is pointed at bytes of the file, as a non-BotW file would hold them): every level
// comes out with its size; a chain longer than its data stops with a warning naming the level.
TEST(BassModelHostile, MipLevelsInsideTheFileAreDecoded) {
  auto b = bass_images();
  if (!b) GTEST_SKIP() << "shared samples not present";
  auto t = b->tex1;
  const bfres::ftex *eye = nullptr, *alb = nullptr;
  for (const auto& x : b->raw_tex.textures) {
    if (x.name == "Bass_Eye_Alb") eye = &x;
    if (x.name == "Bass_Alb.0") alb = &x;
  }
  ASSERT_TRUE(eye && alb);
  const std::uint32_t field = eye->at + 0xB4;  // mip data offset (self-relative)
  put_be32(t, field, alb->data_at - field);    // the mips "are" the first 2048 bytes of another image
  const std::string tex_name = "Animal_Bass.Tex1";
  auto it = std::search(t.begin(), t.end(), tex_name.begin(), tex_name.end());
  ASSERT_NE(it, t.end());
  it[15] = '9';  // not a BotW .Tex1 name: mips must be in this file
  {  // The BotW .Tex1 as it is: its mip offsets point at .Tex2 data, even where they land
     // inside this file; nothing is read and nothing is said.
    diagnostics d0;
    auto r0 = read_pair(b->model, b->tex1, "mips_botw", d0);
    ASSERT_TRUE(r0) << r0.error().to_string();
    for (const auto& x : r0.value().textures) EXPECT_TRUE(x.mips.empty()) << x.name;
    EXPECT_FALSE(has_warning(d0, code::w_suspicious_value, "mip"));
  }
  diagnostics d;
  auto r = read_pair(b->model, t, "mips", d);
  ASSERT_TRUE(r) << r.error().to_string();
  const texture* tx = nullptr;
  for (const auto& x : r.value().textures)
    if (x.name == "Bass_Eye_Alb") tx = &x;
  ASSERT_TRUE(tx);
  ASSERT_EQ(tx->mips.size(), 4u);  // 8, 4, 2, 1
  for (std::size_t k = 0; k < 4; ++k) {
    EXPECT_EQ(tx->mips[k].width, 8u >> k);
    EXPECT_EQ(tx->mips[k].rgba.size(), std::size_t(8u >> k) * (8u >> k) * 4);
  }
  EXPECT_EQ(tx->extras.value("mips_decoded", 0), 4);
  EXPECT_TRUE(r.value().validate());
  // The same with a mip data size too small for level 3: levels 1-2 only, and a warning.
  auto t2 = t;
  put_be32(t2, eye->at + 0x2C, 1024 + 256);
  diagnostics d2;
  auto r2 = read_pair(b->model, t2, "mips_short", d2);
  ASSERT_TRUE(r2) << r2.error().to_string();
  for (const auto& x : r2.value().textures)
    if (x.name == "Bass_Eye_Alb") EXPECT_EQ(x.mips.size(), 2u);
  EXPECT_TRUE(has_warning(d2, code::w_suspicious_value, "mip chain level 3"));
}

// ---- Curve precision: the scene equals an independent double evaluation --------------------

// The file's polynomial at integer frame f, in double (bfres.md section 3), clamped.
double ref_value(const bfres::curve& c, int frame) {
  double f = std::clamp<double>(frame, c.start, c.end);
  std::size_t i = 0;
  while (i + 1 < c.frames.size() && c.frames[i + 1] <= f) ++i;
  double t = 0;
  if (i + 1 < c.frames.size() && c.frames[i + 1] > c.frames[i]) t = (f - c.frames[i]) / (c.frames[i + 1] - c.frames[i]);
  const float* k = &c.keys[i * 4];
  return (k[0] + k[1] * t + k[2] * t * t + k[3] * t * t * t) * double(c.scale()) + double(c.offset());
}
// A glTF track at `time` seconds in double: Hermite (CUBICSPLINE) or linear.
double track_value(const track& t, double time, int comp) {
  const std::size_t n = t.times.size(), e = t.elements_per_key();
  std::size_t i = 0;
  while (i + 1 < n && t.times[i + 1] <= time) ++i;
  auto val = [&](std::size_t k, std::size_t part) { return double(t.values[(k * e + part) * 3 + std::size_t(comp)]); };
  if (i + 1 >= n || time <= t.times[0]) return val(i, e == 3 ? 1 : 0);
  const double dt = double(t.times[i + 1]) - t.times[i], s = (time - t.times[i]) / dt;
  if (e == 1) return val(i, 0) + (val(i + 1, 0) - val(i, 0)) * s;
  const double s2 = s * s, s3 = s2 * s;
  return (2 * s3 - 3 * s2 + 1) * val(i, 1) + (s3 - 2 * s2 + s) * dt * val(i, 2) + (-2 * s3 + 3 * s2) * val(i + 1, 1) +
         (s3 - s2) * dt * val(i + 1, 0);
}

// Every translation and scale value at every source frame of Bass and Dog. The one
// unavoidable difference is glTF's float time: frame f and the keys around it lie at
// float(f / fps), off by up to a float ulp of the time, times the curve's slope. Before
// the fix (quantisation gaps ignored, float evaluation) 4,871 Dog values were off by more
// than 1e-6 relative, up to 9.0e-5 (Move_Run, root z).
TEST(CurvePrecision, SceneEqualsDoubleEvaluationAtEverySourceFrame) {
  std::size_t checked = 0, beyond = 0;
  double worst = 0;
  for (const char* name : {"bfres/Animal_Bass_Animation.bfres", "bfres/Animal_Dog_Animation.bfres"}) {
    auto p = test::sample(name);
    if (!p) continue;
    const bfres::file raw = load_any(test::read_bytes(*p));
    const loaded l = read_path(*p);
    const auto& sk = l.s.skeletons[0];
    for (std::size_t ai = 0; ai < raw.anims.size(); ++ai) {
      const auto& a = raw.anims[ai];
      const animation& an = l.s.animations[ai];
      const double fps = an.fps.value_or(30);
      for (const auto& ba : a.bone_anims) {
        if (sk.find(ba.name) < 0) continue;
        for (const auto& c : ba.curves) {
          const bool tr = c.target >= 0x10 && c.target <= 0x18, sc = c.target >= 0x04 && c.target <= 0x0C;
          if ((!tr && !sc) || c.type() != bfres::curve_type::cubic) continue;
          const track* t = nullptr;
          for (const auto& x : an.tracks)
            if (x.bone == ba.name && x.path == (tr ? path::translation : path::scale)) t = &x;
          ASSERT_TRUE(t) << a.name << " " << ba.name;
          const int comp = static_cast<int>((c.target - (tr ? 0x10 : 0x04)) / 4);
          for (int f = 0; f <= a.frame_count; ++f) {
            const double ref = ref_value(c, f);
            const float tq = static_cast<float>(f / fps);
            const double slope = (ref_value(c, std::min(f + 1, a.frame_count)) - ref_value(c, std::max(f - 1, 0))) / 2;
            // glTF stores times as floats: the query and the keys around it sit up to one float
            // ulp of time away from their frames (2.9e-5 frames at 9.5 s), times the slope.
            const double ulp_frames = (double(std::nextafter(tq, 1e30f)) - tq) * fps;
            const double time_error = (std::fabs(double(tq) * fps - f) + ulp_frames) * std::fabs(slope) * 1.5;
            const double got = track_value(*t, tq, comp);
            const double err = std::fabs(got - ref);
            const double allowed = 1e-6 * std::max(1.0, std::fabs(ref)) + time_error;
            ++checked;
            if (err > allowed) {
              ++beyond;
              std::printf("  %s %s target 0x%X frame %d: ref %.9g got %.9g err %.3g allowed %.3g (time part %.3g)\n",
                          a.name.c_str(), ba.name.c_str(), c.target, f, ref, got, err, allowed, time_error);
            }
            worst = std::max(worst, (err - time_error) / std::max(1.0, std::fabs(ref)));
            // The reader's own evaluation (double, rounded once) agrees to float precision.
            EXPECT_NEAR(c.eval(float(f)), ref, 1e-7 * std::max(1.0, std::fabs(ref)));
          }
        }
      }
    }
  }
  if (!checked) GTEST_SKIP() << "shared samples not present: bfres animation files";
  std::printf("curve precision: %zu values, %zu beyond 1e-6 relative (+ float time), worst %.3g\n", checked, beyond, worst);
  EXPECT_EQ(beyond, 0u);
}


// FTXP: the Bass's colour variants (Bass_Alb.0/.1/.2 on the body's albedo sampler, one per frame).
TEST(BassModel, TexturePatternAnimation) {
  RIGRIP_REQUIRE_SAMPLE(path, "bfres/Animal_Bass.bfres");
  const auto raw = load_any(test::read_bytes(path));
  ASSERT_EQ(raw.texture_patterns.size(), 1u);
  const auto& tp = raw.texture_patterns[0];
  EXPECT_EQ(tp.name, "Bass_Color");
  EXPECT_EQ(tp.frame_count, 2);
  EXPECT_EQ(tp.textures, (std::vector<std::string>{"Bass_Alb.0", "Bass_Alb.1", "Bass_Alb.2"}));
  ASSERT_EQ(tp.materials.size(), 1u);
  EXPECT_EQ(tp.materials[0].material, "Mt_Body");
  ASSERT_EQ(tp.materials[0].patterns.size(), 1u);
  EXPECT_EQ(tp.materials[0].patterns[0].sampler, "_a0");
  const loaded l = read_path(path);
  const auto& ex = l.s.materials[0].extras;
  ASSERT_TRUE(ex.contains("texture_pattern_animations"));
  const auto& keys = ex["texture_pattern_animations"][0]["keys"];
  ASSERT_EQ(keys.size(), 3u);
  EXPECT_EQ(keys[0]["texture"], "Bass_Alb.0");
  EXPECT_EQ(keys[1]["texture"], "Bass_Alb.1");
  EXPECT_EQ(keys[2]["texture"], "Bass_Alb.2");
  EXPECT_EQ(keys[2]["frame"], 2);
}

}  // namespace
