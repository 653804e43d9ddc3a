// BNTX (src/formats/bfres/bntx.cpp): hand-built containers from bntx_builder.hpp with
// RGBA8, R8, BC1-BC5 and BC7 textures, mips, several block heights and sizes that are not
// multiples of 4; decoded pixels against the source, byte-identical rewrite, damage cases,
// and a Switch texture FRES holding its BNTX as an embedded file. No real BNTX is at hand.
#include <gtest/gtest.h>
#include <astcenc.h>
#include <squish.h>

#include <array>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <random>

#include "bntx_builder.hpp"
#include "core/failure.hpp"
#include "formats/bfres/bntx.hpp"
#include "rigrip/registry.hpp"
#include "test_support.hpp"

using namespace rigrip;

namespace {

std::vector<std::uint8_t> random_bytes(std::size_t n, unsigned seed) {
  std::mt19937 g(seed);
  std::vector<std::uint8_t> v(n);
  for (auto& b : v) b = static_cast<std::uint8_t>(g());
  return v;
}

// The block height log2 an encoder picks for `rows` element rows (up to 16 GOBs).
std::uint32_t fitted_log2(std::uint32_t rows) {
  std::uint32_t gobs = bntx_test::pow2_up(bntx_test::div_up(rows, 8)), l = 0;
  gobs = std::min<std::uint32_t>(gobs, 16);
  while ((1u << l) < gobs) ++l;
  return l;
}

bntx_test::tex rgba8_texture(const std::string& name, std::uint32_t w, std::uint32_t h,
                             std::uint32_t mips, unsigned seed) {
  bntx_test::tex t;
  t.name = name, t.format = 0x0b01, t.width = w, t.height = h, t.bytes = 4;
  t.block_height_log2 = fitted_log2(h);
  for (std::uint32_t k = 0; k < mips; ++k)
    t.levels.push_back(
        random_bytes(std::size_t{std::max(1u, w >> k)} * std::max(1u, h >> k) * 4, seed + k));
  return t;
}

// BC blocks of a level (ew x eh elements) from libsquish, compressing a random image.
std::vector<std::uint8_t> squish_blocks(std::uint32_t ew, std::uint32_t eh, int flags,
                                        std::uint32_t bytes, unsigned seed) {
  std::vector<std::uint8_t> out;
  for (std::uint32_t i = 0; i < ew * eh; ++i) {
    auto px = random_bytes(64, seed + i);
    std::vector<std::uint8_t> blk(bytes);
    squish::Compress(px.data(), blk.data(), flags);
    out.insert(out.end(), blk.begin(), blk.end());
  }
  return out;
}

// The pixels of `blocks` (ew x eh linear blocks) cropped to w x h, through libsquish.
std::vector<std::uint8_t> squish_pixels(const std::vector<std::uint8_t>& blocks, std::uint32_t w,
                                        std::uint32_t h, int flags, std::uint32_t bytes) {
  const std::uint32_t ew = bntx_test::div_up(w, 4);
  std::vector<std::uint8_t> px(std::size_t{w} * h * 4);
  for (std::uint32_t y = 0; y < h; ++y)
    for (std::uint32_t x = 0; x < w; ++x) {
      std::uint8_t dec[64];
      squish::Decompress(dec, blocks.data() + (std::size_t{y / 4} * ew + x / 4) * bytes, flags);
      std::memcpy(px.data() + (std::size_t{y} * w + x) * 4, dec + 4 * ((y % 4) * 4 + x % 4), 4);
    }
  return px;
}

bntx_test::tex bc_texture(const std::string& name, std::uint32_t format, std::uint32_t w,
                          std::uint32_t h, std::uint32_t mips, int flags, std::uint32_t bytes,
                          unsigned seed) {
  bntx_test::tex t;
  t.name = name, t.format = format, t.width = w, t.height = h, t.bytes = bytes, t.block = true;
  t.block_height_log2 = fitted_log2(bntx_test::div_up(h, 4));
  for (std::uint32_t k = 0; k < mips; ++k) {
    const std::uint32_t lw = std::max(1u, w >> k), lh = std::max(1u, h >> k);
    t.levels.push_back(squish_blocks(bntx_test::div_up(lw, 4), bntx_test::div_up(lh, 4), flags,
                                     bytes, seed + 100 * k));
  }
  return t;
}

struct decoded {
  std::vector<bfres::bntx_texture> textures;
  diagnostics diags;
};
decoded decode(const std::vector<std::uint8_t>& d) {
  decoded out;
  read_context ctx;
  ctx.path = "test.bntx";
  ctx.data = d;
  ctx.diags = &out.diags;
  out.textures = bfres::decode_bntx(d, ctx);
  return out;
}

bool warned(const diagnostics& d, const std::string& text) {
  for (const auto& w : d.warnings)
    if (w.message.find(text) != std::string::npos) return true;
  return false;
}

void expect_failure(const std::vector<std::uint8_t>& d, code c, const std::string& text) {
  try {
    (void)bfres::parse_bntx(d);
    ADD_FAILURE() << "no failure; expected: " << text;
  } catch (const core::failure& e) {
    EXPECT_EQ(e.error().code, c) << e.error().message;
    EXPECT_NE(e.error().message.find(text), std::string::npos) << e.error().message;
  }
}

// A BC7 mode-6 block whose two endpoints are both `rgba` (7 bits + the p-bit, so every
// value is reachable): every pixel decodes to `rgba` whatever the indices.
std::array<std::uint8_t, 16> bc7_solid(std::array<std::uint8_t, 4> rgba) {
  std::array<std::uint8_t, 16> b{};
  int bit = 0;
  auto put = [&](std::uint32_t v, int n) {
    for (int i = 0; i < n; ++i, ++bit)
      if ((v >> i) & 1) b[static_cast<std::size_t>(bit / 8)] |= std::uint8_t(1u << (bit % 8));
  };
  put(1u << 6, 7);  // mode 6
  for (int c = 0; c < 4; ++c)
    put(rgba[static_cast<std::size_t>(c)] >> 1, 7), put(rgba[static_cast<std::size_t>(c)] >> 1, 7);
  // p-bits: one per endpoint, shared by the channels: only even / odd sets work, so the
  // callers pass colours whose low bits agree.
  put(rgba[0] & 1, 1), put(rgba[0] & 1, 1);
  put(0x5A5A5A5A, 31), put(0x12345678, 32);  // indices: irrelevant with equal endpoints
  return b;
}

// A BC6H mode-11 block (5-bit mode 00011, 10-bit endpoints stored directly) whose two
// endpoints are both `e`: every texel is the unquantized endpoint, whatever the indices.
std::array<std::uint8_t, 16> bc6h_solid(std::array<int, 3> e) {
  std::array<std::uint8_t, 16> b{};
  int bit = 0;
  auto put = [&](std::uint32_t v, int n) {
    for (int i = 0; i < n; ++i, ++bit)
      if ((v >> i) & 1) b[static_cast<std::size_t>(bit / 8)] |= std::uint8_t(1u << (bit % 8));
  };
  put(0b00011, 5);
  for (int k = 0; k < 2; ++k)
    for (int c : e) put(static_cast<std::uint32_t>(c) & 1023u, 10);  // signed: two's complement
  put(0x5, 3), put(0x9ABCDEF0, 32), put(0x12345678, 28);             // indices: irrelevant here
  return b;
}

}  // namespace

TEST(Bntx, Rgba8WithMipsDecodesToTheSourceAndRewritesIdentically) {
  const auto t = rgba8_texture("Chr_Alb", 100, 60, 4, 7);
  const auto d = bntx_test::build({t}, "chr");
  const auto f = bfres::parse_bntx(d);
  ASSERT_EQ(f.textures.size(), 1u);
  EXPECT_EQ(f.name, "chr");
  EXPECT_EQ(f.textures[0].name, "Chr_Alb");
  EXPECT_EQ(f.textures[0].mip_count, 4);
  EXPECT_EQ(f.textures[0].block_height_log2(), 3u);
  EXPECT_EQ(f.reloc_sections.size(), 2u);
  EXPECT_EQ(bfres::serialise_bntx(f), d);

  auto r = decode(d);
  ASSERT_EQ(r.textures.size(), 1u);
  const auto& tx = r.textures[0].tex;
  EXPECT_EQ(tx.width, 100u);
  EXPECT_EQ(tx.height, 60u);
  EXPECT_EQ(tx.rgba, t.levels[0]);
  ASSERT_EQ(tx.mips.size(), 3u);
  for (std::size_t k = 1; k < 4; ++k) {
    EXPECT_EQ(tx.mips[k - 1].width, 100u >> k);
    EXPECT_EQ(tx.mips[k - 1].height, 60u >> k);
    EXPECT_EQ(tx.mips[k - 1].rgba, t.levels[k]) << "level " << k;
  }
  EXPECT_EQ(tx.extras["bntx_format"], "R8_G8_B8_A8_UNORM");
  EXPECT_EQ(tx.extras["srgb"], false);
  EXPECT_TRUE(r.diags.warnings.empty());
}

TEST(Bntx, BlockHeightsFromOneToSixteenGobs) {
  // Tall textures get large blocks; single-level ones may use any block height.
  std::vector<bntx_test::tex> texs;
  for (std::uint32_t l = 0; l <= 4; ++l) {
    auto t = rgba8_texture("t" + std::to_string(l), 40, 70, 1, 50 + l);
    t.block_height_log2 = l;
    texs.push_back(t);
  }
  texs.push_back(rgba8_texture("tall", 16, 512, 6, 90));  // 16 GOBs, then halving
  const auto d = bntx_test::build(texs);
  EXPECT_EQ(bfres::serialise_bntx(bfres::parse_bntx(d)), d);
  auto r = decode(d);
  ASSERT_EQ(r.textures.size(), texs.size());
  for (std::size_t i = 0; i < texs.size(); ++i) {
    EXPECT_EQ(r.textures[i].tex.rgba, texs[i].levels[0]) << texs[i].name;
    for (std::size_t k = 1; k < texs[i].levels.size(); ++k)
      EXPECT_EQ(r.textures[i].tex.mips[k - 1].rgba, texs[i].levels[k]) << k;
  }
}

TEST(Bntx, LinearTileModeRowsWithPaddedPitch) {
  auto t = rgba8_texture("lin", 10, 7, 3, 21);  // 40-byte rows -> 64-byte pitch
  t.tile_mode = 1;
  auto b = bc_texture("lin_bc1", 0x1a01, 10, 6, 2, squish::kDxt1, 8, 22);  // 24-byte rows -> 32
  b.tile_mode = 1;
  const auto d = bntx_test::build({t, b});
  EXPECT_EQ(bfres::serialise_bntx(bfres::parse_bntx(d)), d);
  auto r = decode(d);
  ASSERT_EQ(r.textures.size(), 2u);
  EXPECT_EQ(r.textures[0].tex.rgba, t.levels[0]);
  ASSERT_EQ(r.textures[0].tex.mips.size(), 2u);
  EXPECT_EQ(r.textures[0].tex.mips[1].rgba, t.levels[2]);
  EXPECT_EQ(r.textures[1].tex.rgba, squish_pixels(b.levels[0], 10, 6, squish::kDxt1, 8));
  EXPECT_EQ(r.textures[1].tex.mips[0].rgba, squish_pixels(b.levels[1], 5, 3, squish::kDxt1, 8));
  EXPECT_EQ(r.textures[0].tex.extras["tile_mode"], "linear");
}

TEST(Bntx, R8ChannelSelectorAndBgra) {
  bntx_test::tex g;
  g.name = "grey", g.format = 0x0201, g.width = 9, g.height = 5, g.bytes = 1;
  g.channels = {2, 2, 2, 1};  // R, R, R, one
  g.levels.push_back(random_bytes(45, 3));
  bntx_test::tex b;
  b.name = "bgra", b.format = 0x0c06, b.width = 3, b.height = 2, b.bytes = 4;
  b.levels.push_back(random_bytes(24, 4));
  auto r = decode(bntx_test::build({g, b}));
  ASSERT_EQ(r.textures.size(), 2u);
  for (std::size_t i = 0; i < 45; ++i) {
    const auto* p = &r.textures[0].tex.rgba[4 * i];
    EXPECT_EQ(p[0], g.levels[0][i]);
    EXPECT_EQ(p[1], g.levels[0][i]);
    EXPECT_EQ(p[2], g.levels[0][i]);
    EXPECT_EQ(p[3], 255);
  }
  for (std::size_t i = 0; i < 6; ++i) {
    const auto* p = &r.textures[1].tex.rgba[4 * i];
    const auto* s = &b.levels[0][4 * i];
    EXPECT_EQ(p[0], s[2]);
    EXPECT_EQ(p[1], s[1]);
    EXPECT_EQ(p[2], s[0]);
    EXPECT_EQ(p[3], s[3]);
  }
  EXPECT_EQ(r.textures[1].tex.extras["srgb"], true);

  bntx_test::tex p;  // R5G6B5: pure red, pure green, pure blue
  p.name = "565", p.format = 0x0701, p.width = 3, p.height = 1, p.bytes = 2;
  p.levels.push_back({0x00, 0xF8, 0xE0, 0x07, 0x1F, 0x00});
  auto r565 = decode(bntx_test::build({p}));
  ASSERT_EQ(r565.textures.size(), 1u);
  const std::vector<std::uint8_t> want = {255, 0, 0, 255, 0, 255, 0, 255, 0, 0, 255, 255};
  EXPECT_EQ(r565.textures[0].tex.rgba, want);
}

TEST(Bntx, Bc1Bc2Bc3WithMipsAndOddSizes) {
  const std::vector<bntx_test::tex> texs = {
      bc_texture("bc1", 0x1a01, 10, 6, 3, squish::kDxt1, 8, 1),
      bc_texture("bc2", 0x1b06, 20, 36, 4, squish::kDxt3, 16, 2),
      bc_texture("bc3", 0x1c01, 130, 70, 5, squish::kDxt5, 16, 3)};
  const int flags[] = {squish::kDxt1, squish::kDxt3, squish::kDxt5};
  const auto d = bntx_test::build(texs);
  EXPECT_EQ(bfres::serialise_bntx(bfres::parse_bntx(d)), d);
  auto r = decode(d);
  ASSERT_EQ(r.textures.size(), 3u);
  for (std::size_t i = 0; i < 3; ++i) {
    const auto& t = texs[i];
    const auto& tx = r.textures[i].tex;
    EXPECT_EQ(tx.rgba, squish_pixels(t.levels[0], t.width, t.height, flags[i], t.bytes)) << t.name;
    ASSERT_EQ(tx.mips.size(), t.levels.size() - 1) << t.name;
    for (std::size_t k = 1; k < t.levels.size(); ++k) {
      const std::uint32_t w = std::max(1u, t.width >> k), h = std::max(1u, t.height >> k);
      EXPECT_EQ(tx.mips[k - 1].rgba, squish_pixels(t.levels[k], w, h, flags[i], t.bytes))
          << t.name << " level " << k;
    }
  }
  EXPECT_EQ(r.textures[1].tex.extras["srgb"], true);
}

TEST(Bntx, Bc4Bc5UnormAndSnorm) {
  // BC4 unorm: endpoints 200, 100 (8-value palette), the pixels walk the palette.
  std::array<std::uint8_t, 8> b4{200, 100};
  std::uint64_t idx = 0;
  for (int i = 0; i < 16; ++i) idx |= std::uint64_t(i % 8) << (3 * i);
  for (int i = 0; i < 6; ++i) b4[2 + static_cast<std::size_t>(i)] = std::uint8_t(idx >> (8 * i));
  const int pal[8] = {200,
                      100,
                      (6 * 200 + 100 + 3) / 7,
                      (5 * 200 + 2 * 100 + 3) / 7,
                      (4 * 200 + 3 * 100 + 3) / 7,
                      (3 * 200 + 4 * 100 + 3) / 7,
                      (2 * 200 + 5 * 100 + 3) / 7,
                      (200 + 6 * 100 + 3) / 7};
  bntx_test::tex t4;
  t4.name = "mask", t4.format = 0x1d01, t4.width = 4, t4.height = 4, t4.bytes = 8, t4.block = true;
  t4.channels = {2, 2, 2, 1};
  t4.levels.push_back(std::vector<std::uint8_t>(b4.begin(), b4.end()));
  // BC4 snorm: endpoints +127, -127, 4-value mode off (e0 > e1): index 0 -> 255, 1 -> 0.
  bntx_test::tex s4 = t4;
  s4.name = "snorm", s4.format = 0x1d02;
  s4.levels[0] = {0x7F, 0x81, 0b00001000, 0, 0, 0, 0, 0};  // pixel 1 has index 1, the rest 0
  // BC5 unorm normal map: x = 255 (red), y = 128 (green) everywhere.
  bntx_test::tex n5;
  n5.name = "Body_Nrm", n5.format = 0x1e01, n5.width = 6, n5.height = 6, n5.bytes = 16,
  n5.block = true;
  std::vector<std::uint8_t> blk5 = {255, 255, 0, 0, 0, 0, 0, 0, 128, 128, 0, 0, 0, 0, 0, 0};
  for (int i = 0; i < 4; ++i)
    n5.levels.resize(1), n5.levels[0].insert(n5.levels[0].end(), blk5.begin(), blk5.end());
  auto r = decode(bntx_test::build({t4, s4, n5}));
  ASSERT_EQ(r.textures.size(), 3u);
  for (int i = 0; i < 16; ++i) {
    const auto* p = &r.textures[0].tex.rgba[4 * static_cast<std::size_t>(i)];
    EXPECT_EQ(p[0], pal[i % 8]) << i;
    EXPECT_EQ(p[1], pal[i % 8]);
    EXPECT_EQ(p[3], 255);
  }
  EXPECT_EQ(r.textures[1].tex.rgba[0], 255);
  EXPECT_EQ(r.textures[1].tex.rgba[4], 0);
  auto nrm = r.textures[2].tex;
  EXPECT_EQ(nrm.rgba[0], 255);
  EXPECT_EQ(nrm.rgba[1], 128);
  EXPECT_EQ(nrm.rgba[2], 0);
  bfres::to_gltf_texture(nrm, false, true);
  EXPECT_EQ(nrm.rgba[2], 128);  // x = 1, y ~ 0: z ~ 0
  EXPECT_EQ(nrm.extras["normal_z_rebuilt"], true);
}

TEST(Bntx, Bc7SolidBlocks) {
  bntx_test::tex t;
  t.name = "bc7", t.format = 0x2006, t.width = 8, t.height = 8, t.bytes = 16, t.block = true;
  const std::array<std::array<std::uint8_t, 4>, 4> colours = {
      {{{10, 200, 30, 254}}, {{101, 51, 33, 7}}, {{0, 0, 0, 0}}, {{255, 255, 255, 255}}}};
  t.levels.resize(1);
  for (const auto& c : colours) {
    const auto b = bc7_solid(c);
    t.levels[0].insert(t.levels[0].end(), b.begin(), b.end());
  }
  auto r = decode(bntx_test::build({t}));
  ASSERT_EQ(r.textures.size(), 1u);
  for (std::uint32_t y = 0; y < 8; ++y)
    for (std::uint32_t x = 0; x < 8; ++x) {
      const auto& c = colours[(y / 4) * 2 + x / 4];
      const auto* p = &r.textures[0].tex.rgba[(y * 8 + x) * 4];
      for (int k = 0; k < 4; ++k) EXPECT_EQ(p[k], c[static_cast<std::size_t>(k)]) << x << "," << y;
    }
}

// BC6H: 0x1F0A unsigned float, 0x1F05 signed float (nn::gfx variants; Switch-Toolbox's
// BC6H_UF16 / BC6H_SF16). Decoded through core/image/bc6h's tone mapping: clamped to [0, 1],
// sRGB-encoded (so marked srgb: to_gltf_texture leaves it), clipping recorded in extras.
TEST(Bntx, Bc6hUnsignedAndSignedAreToneMapped) {
  bntx_test::tex t;
  t.name = "Sky_Emm", t.format = 0x1f0a, t.width = 8, t.height = 8, t.bytes = 16, t.block = true;
  // 10-bit x -> ((x << 15) + 0x4000) >> 9, * 31 >> 6 = half: 400 -> 0x307F (0.1405, sRGB 105),
  // 440 -> 0x3557 (0.3337, 156), 460 -> 0x37C3 (0.4851, 185), 480 -> 0x3A2F (0.7729, 228),
  // 1023 -> 0x7BFF (65504, clipped to 255).
  const std::array<std::array<int, 3>, 4> ends = {
      {{{400, 440, 460}}, {{0, 1023, 480}}, {{0, 0, 0}}, {{480, 480, 480}}}};
  const std::array<std::array<std::uint8_t, 4>, 4> want = {
      {{{105, 156, 185, 255}}, {{0, 255, 228, 255}}, {{0, 0, 0, 255}}, {{228, 228, 228, 255}}}};
  t.levels.resize(1);
  for (const auto& e : ends) {
    const auto b = bc6h_solid(e);
    t.levels[0].insert(t.levels[0].end(), b.begin(), b.end());
  }
  // Signed: -100 -> negative, clamped to 0; 200 -> 12832 -> * 31 >> 5 = 0x308F (0.1425, 105);
  // 511 -> 0x7FFF -> 0x7BFF (65504, 255).
  bntx_test::tex s = t;
  s.name = "Sky_signed", s.format = 0x1f05, s.width = 4, s.height = 4;
  const auto sb = bc6h_solid({-100, 200, 511});
  s.levels[0].assign(sb.begin(), sb.end());
  auto r = decode(bntx_test::build({t, s}));
  ASSERT_EQ(r.textures.size(), 2u) << (r.diags.warnings.empty() ? "" : r.diags.warnings[0].message);
  const auto& u = r.textures[0].tex;
  for (std::uint32_t y = 0; y < 8; ++y)
    for (std::uint32_t x = 0; x < 8; ++x) {
      const auto& c = want[(y / 4) * 2 + x / 4];
      const auto* p = &u.rgba[(y * 8 + x) * 4];
      for (int k = 0; k < 4; ++k) EXPECT_EQ(p[k], c[static_cast<std::size_t>(k)]) << x << "," << y;
    }
  EXPECT_EQ(u.extras["bntx_format"], "BC6H_UFLOAT");
  EXPECT_EQ(u.extras["srgb"], true);
  EXPECT_EQ(u.extras["hdr_clipped"], true);
  EXPECT_FALSE(u.extras.contains("hdr_negative_clipped"));
  const auto& sg = r.textures[1].tex;
  for (std::size_t i = 0; i < 16; ++i)
    EXPECT_EQ((std::array<std::uint8_t, 4>{sg.rgba[4 * i], sg.rgba[4 * i + 1], sg.rgba[4 * i + 2],
                                           sg.rgba[4 * i + 3]}),
              (std::array<std::uint8_t, 4>{0, 105, 255, 255}))
        << i;
  EXPECT_EQ(sg.extras["bntx_format"], "BC6H_FLOAT");
  EXPECT_EQ(sg.extras["hdr_clipped"], true);
  EXPECT_EQ(sg.extras["hdr_negative_clipped"], true);

  // Nothing above 1: not clipped. A colour map is not encoded a second time.
  bntx_test::tex low = t;
  low.width = low.height = 4;
  const auto lb = bc6h_solid({400, 440, 460});
  low.levels[0].assign(lb.begin(), lb.end());
  auto r2 = decode(bntx_test::build({low}));
  ASSERT_EQ(r2.textures.size(), 1u);
  EXPECT_EQ(r2.textures[0].tex.extras["hdr_clipped"], false);
  bfres::to_gltf_texture(r2.textures[0].tex, true, false);
  EXPECT_EQ(r2.textures[0].tex.rgba[0], 105);
  EXPECT_FALSE(r2.textures[0].tex.extras.contains("encoded_to_srgb"));
}

TEST(Bntx, UnsupportedFormatsAreSkippedWithAWarning) {
  auto r16 = rgba8_texture("hdr", 4, 4, 1, 1);
  r16.format = 0x0a01;  // R16_UNORM
  r16.bytes = 2;
  r16.levels[0].resize(32);
  auto astc = r16;  // HDR ASTC (the FLOAT variant) is not decoded
  astc.name = "astc", astc.format = 0x2d05;
  astc.bytes = 16, astc.block = true;
  astc.levels[0].resize(16);
  const auto ok = rgba8_texture("ok", 4, 4, 1, 2);
  auto r = decode(bntx_test::build({r16, astc, ok}));
  ASSERT_EQ(r.textures.size(), 1u);
  EXPECT_EQ(r.textures[0].name, "ok");
  EXPECT_TRUE(warned(r.diags, "BNTX texture 'hdr': format R16_UNORM is not supported"))
      << r.diags.warnings.size();
  EXPECT_TRUE(warned(r.diags, "format ASTC_4x4_FLOAT is not supported"));
}

TEST(Bntx, ArraysKeepTheFirstLayerWithAWarning) {
  auto t = rgba8_texture("arr", 8, 8, 1, 5);
  t.array_count = 6, t.image_dim = 3;
  auto r = decode(bntx_test::build({t}));
  ASSERT_EQ(r.textures.size(), 1u);
  EXPECT_EQ(r.textures[0].tex.rgba, t.levels[0]);
  EXPECT_TRUE(warned(r.diags, "cube map of 6 layers; only the first layer is converted"));
}

TEST(Bntx, DamagedContainersFailCleanly) {
  const auto good =
      bntx_test::build({rgba8_texture("a", 16, 16, 2, 1), rgba8_texture("b", 8, 8, 1, 2)});
  const auto f = bfres::parse_bntx(good);
  const std::uint32_t brti = f.textures[0].at;
  auto put32 = [](std::vector<std::uint8_t> d, std::size_t at, std::uint32_t v) {
    std::memcpy(d.data() + at, &v, 4);
    return d;
  };
  auto put64 = [](std::vector<std::uint8_t> d, std::size_t at, std::uint64_t v) {
    std::memcpy(d.data() + at, &v, 8);
    return d;
  };
  {  // truncated: the header's file size no longer matches
    auto d = good;
    d.resize(d.size() - 100);
    expect_failure(d, code::bad_value, "BNTX header file size");
  }
  {  // truncated to a few bytes, size field patched to match
    std::vector<std::uint8_t> d(good.begin(), good.begin() + 0x30);
    expect_failure(put32(d, 0x1C, 0x30), code::bad_count, "BNTX header and NX section");
  }
  expect_failure(put64(good, 0x28, 0xFFFFFF00ull), code::bad_offset,
                 "lies outside");  // info pointer array
  expect_failure(put64(good, f.infos_at, good.size() + 8), code::bad_offset,
                 "lies outside");  // a BRTI pointer
  expect_failure(put32(good, 0x24, 0x7FFFFFFF), code::bad_count, "texture count");
  expect_failure(put32(good, 0x24, 3), code::bad_count, "dictionary has 2 entries for 3 textures");
  expect_failure(put32(good, brti, 0x58585858), code::bad_magic, "expected 'BRTI'");
  {
    auto d = good;
    d[brti + 0x16] = 200;  // mip count
    expect_failure(d, code::bad_count, "mip count 200");
  }
  expect_failure(put64(good, f.textures[0].mips_at, 0), code::bad_offset,
                 "mip level 0 pointer is null");
  expect_failure(put32(good, f.relocation_at + 8, 0x10000000), code::bad_count,
                 "relocation section count");
  expect_failure(put32(good, f.relocation_at, 0), code::bad_magic, "_RLT");
  expect_failure(put32(good, 0x20, 0x4E4E4E4E), code::bad_magic, "NX  ");
  {  // a big-endian BOM
    auto d = good;
    d[0x0C] = 0xFE, d[0x0D] = 0xFF;
    expect_failure(d, code::unsupported_version, "byte-order mark");
  }
  {  // name length runs past the end
    auto d = good;
    const auto name_at = f.textures[1].name_at;
    d[name_at] = 0xFF, d[name_at + 1] = 0xFF;
    expect_failure(d, code::bad_count, "name characters");
  }
  // Every prefix and a byte flip at every position parse or fail, never crash.
  for (std::size_t n = 0; n < good.size(); n += 7) {
    std::vector<std::uint8_t> d(good.begin(), good.begin() + static_cast<std::ptrdiff_t>(n));
    if (d.size() >= 0x20) d = put32(d, 0x1C, static_cast<std::uint32_t>(n));
    try {
      (void)decode(d);
    } catch (const core::failure&) {
    }
  }
  for (std::size_t at = 0; at < 0x600 && at < good.size(); ++at) {
    auto d = good;
    d[at] ^= 0xA5;
    try {
      (void)decode(d);
    } catch (const core::failure&) {
    }
  }
}

TEST(Bntx, SharedTextureInfosCannotMultiplyTheOutput) {
  // 1500 texture pointers at one 256x256 BRTI: the decoded total is bounded by the file size.
  auto d = bntx_test::build({rgba8_texture("big", 256, 256, 1, 3)});
  const auto f = bfres::parse_bntx(d);
  const std::uint32_t n = 1500;
  std::vector<std::uint8_t> ptrs;
  const std::uint64_t at = d.size();
  for (std::uint32_t i = 0; i < n; ++i)
    for (int b = 0; b < 8; ++b)
      ptrs.push_back(std::uint8_t(std::uint64_t{f.textures[0].at} >> (8 * b)));
  d.insert(d.end(), ptrs.begin(), ptrs.end());
  std::memcpy(d.data() + 0x28, &at, 8);  // the pointer array
  std::memcpy(d.data() + 0x24, &n, 4);   // the count
  const std::uint64_t no_dict = 0;
  std::memcpy(d.data() + 0x38, &no_dict, 8);  // no dictionary to disagree
  const auto size = std::uint32_t(d.size());
  std::memcpy(d.data() + 0x1C, &size, 4);
  try {
    (void)decode(d);
    ADD_FAILURE() << "no limit";
  } catch (const core::failure& e) {
    EXPECT_EQ(e.error().code, code::limit_exceeded);
    EXPECT_NE(e.error().message.find("16 times the BNTX's size"), std::string::npos);
  }
}

TEST(Bntx, DamagedTexturesAreSkippedOrTrimmed) {
  const auto good =
      bntx_test::build({rgba8_texture("a", 32, 32, 3, 1), rgba8_texture("b", 8, 8, 1, 2)});
  const auto f = bfres::parse_bntx(good);
  const auto a = f.textures[0];
  auto with = [&](std::size_t at, std::uint32_t v) {
    auto d = good;
    std::memcpy(d.data() + at, &v, 4);
    return d;
  };
  {  // block height 2^7 GOBs
    auto r = decode(with(a.at + 0x34, 7));
    ASSERT_EQ(r.textures.size(), 1u);
    EXPECT_TRUE(warned(r.diags, "block height 2^7 GOBs is over 32"));
  }
  {  // image size smaller than the mip chain: level 0 fits, the rest is dropped
    auto r = decode(with(a.at + 0x50, 32 * 32 * 4));
    ASSERT_EQ(r.textures.size(), 2u);
    EXPECT_TRUE(r.textures[0].tex.mips.empty());
    EXPECT_TRUE(warned(r.diags, "mip level 1 (16x16, 1024 bytes at"));
    EXPECT_TRUE(warned(r.diags, "levels from 1 on are skipped"));
  }
  {  // image size smaller than level 0
    auto r = decode(with(a.at + 0x50, 100));
    ASSERT_EQ(r.textures.size(), 1u);
    EXPECT_TRUE(warned(r.diags, "BNTX texture 'a': mip level 0 (32x32, 4096 bytes at"));
  }
  {  // level 0 pointer near the end of the file: past the data
    auto d = good;
    const std::uint64_t p = good.size() - 16;
    std::memcpy(d.data() + a.mips_at, &p, 8);
    auto r = decode(d);
    EXPECT_TRUE(warned(r.diags, "texture skipped"));
  }
  {  // a huge size
    auto r = decode(with(a.at + 0x24, 0x40000000));
    EXPECT_TRUE(warned(r.diags, "is outside 1..16384"));
  }
  {  // an unknown tile mode
    auto d = good;
    d[a.at + 0x12] = 2;
    auto r = decode(d);
    EXPECT_TRUE(warned(r.diags, "tile mode 2 is unknown"));
  }
}

TEST(Bntx, StandaloneFileThroughTheRegistry) {
  const auto d = bntx_test::build(
      {rgba8_texture("Obj_Alb", 12, 8, 2, 4), rgba8_texture("Obj_Nrm", 8, 8, 1, 5)}, "obj");
  diagnostics diags;
  auto s = read_scene(d, "obj.bntx", read_options{}, diags);
  ASSERT_TRUE(s) << s.error().to_string();
  EXPECT_EQ(s.value().format, "bntx");
  ASSERT_EQ(s.value().textures.size(), 2u);
  EXPECT_EQ(s.value().textures[0].name, "Obj_Alb");
  EXPECT_EQ(s.value().textures[0].extras["role"], "albedo");
  EXPECT_EQ(s.value().textures[0].extras["encoded_to_srgb"], true);  // a linear colour map
  EXPECT_EQ(s.value().textures[0].mips.size(), 1u);
  auto j = dump_raw(d, "obj.bntx", read_options{}, diags);
  ASSERT_TRUE(j) << j.error().to_string();
  EXPECT_EQ(j.value()["textures"][1]["name"], "Obj_Nrm");
  EXPECT_EQ(j.value()["textures"][0]["format"], "R8_G8_B8_A8_UNORM");
  auto rw = rewrite(d, "obj.bntx", read_options{}, diags);
  ASSERT_TRUE(rw) << rw.error().to_string();
  EXPECT_EQ(rw.value(), d);
  auto bad = d;
  bad.resize(bad.size() - 1);
  auto e = read_scene(bad, "bad.bntx", read_options{}, diags);
  ASSERT_FALSE(e);
  EXPECT_EQ(e.error().code, code::bad_value);
  EXPECT_EQ(e.error().format, "bntx");
}

TEST(Bntx, SwitchTextureFresWithAnEmbeddedBntx) {
  const auto t = bc_texture("Animal_Fox_Alb", 0x1a06, 16, 16, 2, squish::kDxt1, 8, 9);
  const auto bntx = bntx_test::build({t}, "Animal_Fox");
  const auto fres = bntx_test::switch_fres_with(bntx);
  diagnostics diags;
  auto s = read_scene(fres, "Animal_Fox.Tex.sbfres", read_options{}, diags);
  ASSERT_TRUE(s) << s.error().to_string();
  ASSERT_EQ(s.value().textures.size(), 1u);
  const auto& tx = s.value().textures[0];
  EXPECT_EQ(tx.name, "Animal_Fox_Alb");
  EXPECT_EQ(tx.rgba,
            squish_pixels(t.levels[0], 16, 16, squish::kDxt1, 8));  // sRGB already: unchanged
  EXPECT_EQ(tx.extras["source_file"], "textures.bntx");
  for (const auto& w : diags.warnings)
    EXPECT_EQ(w.message.find("embedded files not read"), std::string::npos) << w.message;
  auto rw = rewrite(fres, "Animal_Fox.Tex.sbfres", read_options{}, diags);
  ASSERT_TRUE(rw) << rw.error().to_string();
  EXPECT_EQ(rw.value(), fres);
  auto j = dump_raw(fres, "Animal_Fox.Tex.sbfres", read_options{}, diags);
  ASSERT_TRUE(j) << j.error().to_string();
  EXPECT_EQ(j.value()["external_files"][0]["bntx"]["textures"][0]["name"], "Animal_Fox_Alb");

  // A damaged embedded BNTX is a warning; the FRES still reads.
  auto bad = fres;
  const std::size_t at = 0x1000;  // where switch_fres_with puts it
  ASSERT_EQ(std::memcmp(bad.data() + at, "BNTX", 4), 0);
  bad[at + 0x1C] ^= 1;  // its file size
  diagnostics d2;
  auto s2 = read_scene(bad, "Animal_Fox.Tex.sbfres", read_options{}, d2);
  ASSERT_TRUE(s2) << s2.error().to_string();
  EXPECT_TRUE(s2.value().textures.empty());
  EXPECT_TRUE(warned(d2, "embedded 'textures.bntx'"));

  // The embedded entry longer than the BNTX (padding after it): read up to the BNTX's own size.
  {
    auto padded = bntx;
    padded.resize(padded.size() + 64, 0);
    diagnostics d4;
    auto s4 =
        read_scene(bntx_test::switch_fres_with(padded), "Padded.Tex.sbfres", read_options{}, d4);
    ASSERT_TRUE(s4) << s4.error().to_string();
    EXPECT_EQ(s4.value().textures.size(), 1u);
  }

  // A texture the decoder skips: the warning names the embedded file and counts in the FRES.
  auto hdr = rgba8_texture("Hdr_Emm", 4, 4, 1, 1);
  hdr.format = 0x0a01, hdr.bytes = 2;  // R16_UNORM: not decoded
  hdr.levels[0].resize(32);
  const auto inner = bntx_test::build({hdr});
  const auto fres3 = bntx_test::switch_fres_with(inner);
  diagnostics d3;
  auto s3 = read_scene(fres3, "Hdr.Tex.sbfres", read_options{}, d3);
  ASSERT_TRUE(s3) << s3.error().to_string();
  bool found = false;
  for (const auto& w : d3.warnings)
    if (w.message.find(
            "embedded 'textures.bntx' (at 0x1000): BNTX texture 'Hdr_Emm': format R16_UNORM") ==
        0) {
      found = true;
      EXPECT_EQ(w.offset, 0x1000 + bfres::parse_bntx(inner).textures[0].at + 0x1C);
    }
  EXPECT_TRUE(found);
}

// examples/bfres/tiny_textures.bntx and switch_textures.bfres (the CLI tests' files, and
// seeds for the hostile campaign and the fuzzers) and tests/bfres/data/damaged_size.bntx are
// this builder's output: RIGRIP_REGEN=1 rewrites them; otherwise they must match.
TEST(Bntx, CommittedFilesMatchTheBuilder) {
  const auto tiny =
      bntx_test::build({rgba8_texture("Tiny_Alb", 8, 8, 2, 11),
                        bc_texture("Tiny_Nrm", 0x1a01, 8, 4, 1, squish::kDxt1, 8, 12)},
                       "tiny");
  auto damaged = tiny;
  damaged.resize(damaged.size() - 8);
  const auto fres = bntx_test::switch_fres_with(
      bntx_test::build({bc_texture("Tiny_Alb", 0x1a06, 12, 12, 2, squish::kDxt1, 8, 13),
                        bc_texture("Tiny_Nrm", 0x1e01, 8, 8, 1, squish::kBc5, 16, 14)},
                       "Tiny"),
      "textures.bntx", "Tiny");
  const std::string src = RIGRIP_SOURCE_DIR;
  const std::vector<std::pair<std::string, std::vector<std::uint8_t>>> files{
      {src + "/examples/bfres/tiny_textures.bntx", tiny},
      {src + "/examples/bfres/switch_textures.bfres", fres},
      {src + "/tests/bfres/data/damaged_size.bntx", damaged}};
  const char* regen = std::getenv("RIGRIP_REGEN");
  for (const auto& [path, bytes] : files) {
    if (regen && std::string(regen) == "1") test::write_bytes(path, bytes);
    EXPECT_EQ(test::read_bytes(path), bytes) << path;
  }
}

// ------------------------------------------------------------------ ASTC (nn::gfx 0x2D-0x3A)
namespace {
// An ASTC void-extent block (ASTC spec, "Void-Extent Blocks"): bits 0-8 = 0x1FC, bit 9 = 0 (LDR),
// bits 10-11 = 1, the four 13-bit extents all ones (no extent), then R, G, B, A as UNORM16.
std::array<std::uint8_t, 16> astc_constant(const std::array<std::uint8_t, 4>& c) {
  std::array<std::uint8_t, 16> b{0xFC, 0xFD, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF};
  for (int k = 0; k < 4; ++k) b[8 + 2 * k] = b[9 + 2 * k] = c[static_cast<std::size_t>(k)];  // v * 257
  return b;
}
}  // namespace

// Hand-built constant blocks in a non-square footprint (8x5) on a size that is not a multiple
// of it (13x7: 2x2 blocks, cropped), block-linear: every pixel has its block's colour.
TEST(Bntx, AstcConstantBlocksInEveryFootprintPlace) {
  for (std::uint32_t variant : {0x01u, 0x06u}) {
    bntx_test::tex t;
    t.name = "astc", t.format = (0x32u << 8) | variant, t.width = 13, t.height = 7, t.bytes = 16,
    t.block = true, t.block_w = 8, t.block_h = 5;
    const std::array<std::array<std::uint8_t, 4>, 4> colours = {
        {{{10, 200, 30, 254}}, {{101, 51, 33, 7}}, {{0, 0, 0, 0}}, {{255, 255, 255, 255}}}};
    t.levels.resize(1);
    for (const auto& c : colours) {
      const auto b = astc_constant(c);
      t.levels[0].insert(t.levels[0].end(), b.begin(), b.end());
    }
    auto r = decode(bntx_test::build({t}));
    ASSERT_EQ(r.textures.size(), 1u) << variant;
    ASSERT_EQ(r.textures[0].tex.width, 13u);
    ASSERT_EQ(r.textures[0].tex.height, 7u);
    EXPECT_EQ(r.textures[0].tex.extras["bntx_format"], variant == 6 ? "ASTC_8x5_SRGB" : "ASTC_8x5_UNORM");
    for (std::uint32_t y = 0; y < 7; ++y)
      for (std::uint32_t x = 0; x < 13; ++x) {
        const auto& c = colours[(y / 5) * 2 + x / 8];
        const auto* p = &r.textures[0].tex.rgba[(y * 13 + x) * 4];
        for (int k = 0; k < 4; ++k)
          EXPECT_EQ(p[k], c[static_cast<std::size_t>(k)]) << x << "," << y << " variant " << variant;
      }
  }
}

// A gradient compressed by astcenc itself in three footprints, with mips, block-linear:
// the decoded texture is close to the source (ASTC is lossy: PSNR over 30 dB, 24 dB for 12x12).
TEST(Bntx, AstcCompressedByAstcencDecodesCloseToTheSource) {
  for (const auto& fp : std::vector<std::array<std::uint32_t, 3>>{{0x2D, 4, 4}, {0x31, 6, 6}, {0x3A, 12, 12}}) {
    bntx_test::tex t;
    t.name = "Grad_Alb", t.format = (fp[0] << 8) | 1, t.width = 50, t.height = 37, t.bytes = 16, t.block = true,
    t.block_w = fp[1], t.block_h = fp[2];
    t.block_height_log2 = fitted_log2(bntx_test::div_up(37, fp[2]));
    std::vector<std::vector<std::uint8_t>> sources;
    for (std::uint32_t k = 0; k < 3; ++k) {
      const std::uint32_t w = std::max(1u, t.width >> k), h = std::max(1u, t.height >> k);
      std::vector<std::uint8_t> src(std::size_t{w} * h * 4);
      for (std::uint32_t y = 0; y < h; ++y)
        for (std::uint32_t x = 0; x < w; ++x) {
          auto* p = &src[(std::size_t{y} * w + x) * 4];
          p[0] = std::uint8_t(x * 255 / std::max(1u, w - 1)), p[1] = std::uint8_t(y * 255 / std::max(1u, h - 1));
          p[2] = std::uint8_t((x + y) * 4), p[3] = 255;
        }
      astcenc_config config{};
      ASSERT_EQ(astcenc_config_init(ASTCENC_PRF_LDR, fp[1], fp[2], 1, ASTCENC_PRE_MEDIUM, 0, &config), ASTCENC_SUCCESS);
      astcenc_context* ctx = nullptr;
      ASSERT_EQ(astcenc_context_alloc(&config, 1, &ctx), ASTCENC_SUCCESS);
      void* slice = src.data();
      astcenc_image img{w, h, 1, ASTCENC_TYPE_U8, &slice};
      const astcenc_swizzle sw{ASTCENC_SWZ_R, ASTCENC_SWZ_G, ASTCENC_SWZ_B, ASTCENC_SWZ_A};
      std::vector<std::uint8_t> blocks(std::size_t{bntx_test::div_up(w, fp[1])} * bntx_test::div_up(h, fp[2]) * 16);
      EXPECT_EQ(astcenc_compress_image(ctx, &img, &sw, blocks.data(), blocks.size(), 0), ASTCENC_SUCCESS);
      astcenc_context_free(ctx);
      t.levels.push_back(blocks);
      sources.push_back(src);
    }
    auto r = decode(bntx_test::build({t}));
    ASSERT_EQ(r.textures.size(), 1u) << fp[1];
    const auto& tex = r.textures[0].tex;
    ASSERT_EQ(tex.mips.size(), 2u);
    for (std::uint32_t k = 0; k < 3; ++k) {
      const auto& px = k == 0 ? tex.rgba : tex.mips[k - 1].rgba;
      ASSERT_EQ(px.size(), sources[k].size());
      double se = 0;
      for (std::size_t i = 0; i < px.size(); ++i) se += std::pow(double(px[i]) - sources[k][i], 2);
      const double psnr = se == 0 ? 99 : 10 * std::log10(255.0 * 255.0 / (se / double(px.size())));
      // Lossy, more so at 0.89 bits per pixel (12x12); a wrong block order or swizzle gives ~10 dB.
      EXPECT_GT(psnr, fp[1] == 12 ? 24 : 30) << fp[1] << "x" << fp[2] << " level " << k;
    }
  }
}
