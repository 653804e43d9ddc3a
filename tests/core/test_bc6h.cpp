// BC6H block decoding (src/core/image/bc6h.cpp). Every block is assembled here bit by bit
// from the D3D11 "BC6H format" mode tables (D3D mode numbers; w x y z = endpoints 0 1 2 3),
// and the expected half floats are worked out by hand from the spec's formulas in the comments.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <random>

#include "core/image/bc6h.hpp"

namespace {

using rigrip::core::image::decode_bc6h_block;
using rigrip::core::image::decode_bc6h_block_half;
using rigrip::core::image::decode_bc6h_block_rgba8;
using rigrip::core::image::half_to_float;
using rigrip::core::image::hdr_clip;
using rigrip::core::image::rgb_float_to_srgb8;

// LSB-first bit writer over one 16-byte block.
struct block_writer {
  std::array<std::uint8_t, 16> b{};
  int pos = 0;
  void bit(unsigned v) {
    if (v & 1u) b[static_cast<std::size_t>(pos >> 3)] |= std::uint8_t(1u << (pos & 7));
    ++pos;
  }
  // v[hi:lo]: bits lo..hi of v, lowest first (negative v: its two's complement bits).
  void put(int v, int hi, int lo) {
    for (int k = lo; k <= hi; ++k) bit(static_cast<unsigned>(v) >> k);
  }
  void put(int v, int bit_index) { put(v, bit_index, bit_index); }
  // v[lo:hi] with lo < hi, the spec's reversed field: the first stream bit is bit hi.
  void put_reversed(int v, int lo, int hi) {
    for (int k = hi; k >= lo; --k) bit(static_cast<unsigned>(v) >> k);
  }
};

using halves = std::array<std::uint16_t, 48>;  // 16 texels x RGB

halves decode(const block_writer& w, bool is_signed) {
  EXPECT_EQ(w.pos, 128) << "a BC6H block is 128 bits";
  halves h{};
  decode_bc6h_block_half(w.b.data(), is_signed, h.data(), 12);
  return h;
}

std::array<std::uint16_t, 3> texel(const halves& h, int i) {
  return {h[static_cast<std::size_t>(3 * i)], h[static_cast<std::size_t>(3 * i + 1)],
          h[static_cast<std::size_t>(3 * i + 2)]};
}
using rgb16 = std::array<std::uint16_t, 3>;

// Mode 11 (5-bit mode 00011): one region, 10-bit endpoints stored directly, 4-bit indices,
// the first index (the anchor) 3 bits.
block_writer mode11(std::array<int, 3> e0, std::array<int, 3> e1, const std::array<int, 16>& idx) {
  block_writer w;
  w.put(0b00011, 4, 0);
  for (int c = 0; c < 3; ++c) w.put(e0[static_cast<std::size_t>(c)], 9, 0);
  for (int c = 0; c < 3; ++c) w.put(e1[static_cast<std::size_t>(c)], 9, 0);
  for (int i = 0; i < 16; ++i) w.put(idx[static_cast<std::size_t>(i)], i == 0 ? 2 : 3, 0);
  return w;
}

}  // namespace

// Unsigned 10-bit unquantize: 0 -> 0, 1023 -> 0xFFFF, else ((x << 15) + 0x4000) >> 9;
// texel = (e0 * (64 - w) + e1 * w + 32) >> 6, then * 31 >> 6 is the half.
TEST(Bc6h, Mode11DirectEndpointsExactHalves) {
  // e0 = (0, 512, 1023) -> (0, 32800, 65535); e1 = (1023, 256, 0) -> (65535, 16416, 0).
  std::array<int, 16> idx{};
  idx[1] = 15, idx[2] = 8;  // weights 64 and 34
  const auto h = decode(mode11({0, 512, 1023}, {1023, 256, 0}, idx), false);
  // Texel 0 (w 0): 0; 32800 * 31 >> 6 = 15887 (0x3E0F); 65535 * 31 >> 6 = 31743 (0x7BFF, 65504).
  EXPECT_EQ(texel(h, 0), (rgb16{0x0000, 0x3E0F, 0x7BFF}));
  // Texel 1 (w 64): e1: 0x7BFF; 16416 * 31 >> 6 = 7951 (0x1F0F); 0.
  EXPECT_EQ(texel(h, 1), (rgb16{0x7BFF, 0x1F0F, 0x0000}));
  // Texel 2 (w 34): r (65535 * 34 + 32) >> 6 = 34815 -> 16863 (0x41DF);
  // g (32800 * 30 + 16416 * 34 + 32) >> 6 = 24096 -> 11671 (0x2D97);
  // b (65535 * 30 + 32) >> 6 = 30720 -> 14880 (0x3A20).
  EXPECT_EQ(texel(h, 2), (rgb16{0x41DF, 0x2D97, 0x3A20}));
  for (int i = 3; i < 16; ++i) EXPECT_EQ(texel(h, i), texel(h, 0)) << i;

  // The float form is the same halves.
  float f[48];
  decode_bc6h_block(mode11({0, 512, 1023}, {1023, 256, 0}, idx).b.data(), false, f, 12);
  EXPECT_EQ(f[2], 65504.0f);
  EXPECT_EQ(f[8], 0.765625f);  // 0x3A20: 2^-1 * (1 + 544 / 1024)
  EXPECT_EQ(f[3], 65504.0f);
}

// Signed: endpoints sign-extended; unquantize of |x|: >= 511 -> 0x7FFF, else
// ((|x| << 15) + 0x4000) >> 9, sign put back; final |v| * 31 >> 5 with the sign bit.
TEST(Bc6h, Mode11SignedNegativeEndpoints) {
  // r: -512 -> -32767, 511 -> 32767; g: -1 -> -96, 0 -> 0; b: -100 -> -6432, 100 -> 6432.
  std::array<int, 16> idx{};
  idx[1] = 15, idx[2] = 8;
  const auto h = decode(mode11({-512, -1, -100}, {511, 0, 100}, idx), true);
  // Texel 0: 32767 * 31 >> 5 = 31743 -> 0xFBFF (-65504); 96 -> 93 -> 0x805D; 6432 -> 6231 ->
  // 0x9857.
  EXPECT_EQ(texel(h, 0), (rgb16{0xFBFF, 0x805D, 0x9857}));
  EXPECT_EQ(texel(h, 1), (rgb16{0x7BFF, 0x0000, 0x1857}));
  // Texel 2 (w 34): r (-32767 * 30 + 32767 * 34 + 32) >> 6 = 2048 -> 1984 (0x07C0);
  // g (-96 * 30 + 32) >> 6 = -2848 >> 6 = -45 (arithmetic) -> 45 * 31 >> 5 = 43 -> 0x802B;
  // b (6432 * 4 + 32) >> 6 = 402 -> 389 (0x0185).
  EXPECT_EQ(texel(h, 2), (rgb16{0x07C0, 0x802B, 0x0185}));
  float f[48];
  decode_bc6h_block(mode11({-512, -1, -100}, {511, 0, 100}, idx).b.data(), true, f, 12);
  EXPECT_EQ(f[0], -65504.0f);
}

// Mode 1 (2-bit mode 00): two regions, 10-bit w, 5-bit deltas x y z (transformed), 3-bit
// indices. Partition 17 (rows 0111 / 0001 / 0000 / 0000) has its second anchor at texel 2:
// texels 0 and 2 carry 2-bit indices, the rest 3.
TEST(Bc6h, Mode1TwoRegionsDeltasAndAnchors) {
  const int rw = 100, gw = 200, bw = 300;
  const int rx = 5, gx = -3, bx = -16;  // x = w + delta = (105, 197, 284)
  const int ry = -1, gy = 15, by = 0;   // y = (99, 215, 300)
  const int rz = 7, gz = -8, bz = 1;    // z = (107, 192, 301)
  block_writer w;
  w.put(0b00, 1, 0);
  w.put(gy, 4), w.put(by, 4), w.put(bz, 4);
  w.put(rw, 9, 0), w.put(gw, 9, 0), w.put(bw, 9, 0);
  w.put(rx, 4, 0), w.put(gz, 4), w.put(gy, 3, 0);
  w.put(gx, 4, 0), w.put(bz, 0), w.put(gz, 3, 0);
  w.put(bx, 4, 0), w.put(bz, 1), w.put(by, 3, 0);
  w.put(ry, 4, 0), w.put(bz, 2), w.put(rz, 4, 0), w.put(bz, 3);
  w.put(17, 4, 0);  // partition
  const int idx[16] = {3, 7, 2, 5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 6};
  for (int i = 0; i < 16; ++i) w.put(idx[i], i == 0 || i == 2 ? 1 : 2, 0);
  const auto h = decode(w, false);
  // Unquantized (10-bit: 64x + 32): w (6432, 12832, 19232), x (6752, 12640, 18208),
  // y (6368, 13792, 19232), z (6880, 12320, 19296).
  // Texel 0, region 0, index 3 (w 27): r (6432 * 37 + 6752 * 27 + 32) >> 6 = 6567 -> 3180.
  EXPECT_EQ(texel(h, 0), (rgb16{0x0C6C, 0x1820, 0x2392}));
  // Texel 1, region 1, index 7 (w 64): z -> 6880 * 31 >> 6 = 3332 (0x0D04).
  EXPECT_EQ(texel(h, 1), (rgb16{0x0D04, 0x174F, 0x2482}));
  // Texel 2: the anchor, 2 bits, index 2 (w 18): r (6368 * 46 + 6880 * 18 + 32) >> 6 = 6512.
  EXPECT_EQ(texel(h, 2), (rgb16{0x0C52, 0x194F, 0x246C}));
  EXPECT_EQ(texel(h, 3), (rgb16{0x0CBE, 0x1818, 0x2479}));   // region 1, w 46
  EXPECT_EQ(texel(h, 7), (rgb16{0x0C0C, 0x1A18, 0x2463}));   // region 1, w 0: y
  EXPECT_EQ(texel(h, 15), (rgb16{0x0CB0, 0x17F7, 0x22B9}));  // region 0, w 55
  // Texel 4, region 0, w 0 = w: 6432 * 31 >> 6 = 3115 (0x0C2B), 6215, 9315.
  EXPECT_EQ(texel(h, 4), (rgb16{0x0C2B, 0x1847, 0x2463}));
}

// Mode 2 (2-bit mode 01): 7-bit w, 6-bit deltas; signed, w negative, negative deltas.
TEST(Bc6h, Mode2SignedNegativeDeltas) {
  const int rw = -20, gw = 10, bw = -63;
  const int rx = -5, gx = 3, bx = 0;     // x = (-25, 13, -63)
  const int ry = 10, gy = -20, by = 31;  // y = (-10, -10, -32)
  const int rz = -32, gz = 0, bz = -1;   // z = (-52, 10, -64)
  block_writer w;
  w.put(0b01, 1, 0);
  w.put(gy, 5), w.put(gz, 4), w.put(gz, 5);
  w.put(rw, 6, 0), w.put(bz, 0), w.put(bz, 1), w.put(by, 4);
  w.put(gw, 6, 0), w.put(by, 5), w.put(bz, 2), w.put(gy, 4);
  w.put(bw, 6, 0), w.put(bz, 3), w.put(bz, 5), w.put(bz, 4);
  w.put(rx, 5, 0), w.put(gy, 3, 0), w.put(gx, 5, 0), w.put(gz, 3, 0);
  w.put(bx, 5, 0), w.put(by, 3, 0), w.put(ry, 5, 0), w.put(rz, 5, 0);
  w.put(0, 4, 0);  // partition 0: columns 0-1 region 0, 2-3 region 1; anchor 15
  const int idx[16] = {0, 4, 7, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
  for (int i = 0; i < 16; ++i) w.put(idx[i], i == 0 || i == 15 ? 1 : 2, 0);
  const auto h = decode(w, true);
  // Signed 7-bit unquantize: |x| >= 63 -> 32767, else ((|x| << 15) + 0x4000) >> 6:
  // w (-10496, 5376, -32767), x (-13056, 6912, -32767), y (-5376, -5376, -16640),
  // z (-26880, 5376, -32767).
  // Texel 0 = w: 10496 * 31 >> 5 = 10168 -> 0xA7B8; 5376 -> 5208 (0x1458); 0xFBFF.
  EXPECT_EQ(texel(h, 0), (rgb16{0xA7B8, 0x1458, 0xFBFF}));
  // Texel 1, region 0, w 37: r (-10496 * 27 - 13056 * 37 + 32) >> 6 = -11976 -> 0xAD51.
  EXPECT_EQ(texel(h, 1), (rgb16{0xAD51, 0x17B4, 0xFBFF}));
  // Texel 2, region 1, w 64 = z: 26880 -> 26040 | sign = 0xE5B8.
  EXPECT_EQ(texel(h, 2), (rgb16{0xE5B8, 0x1458, 0xFBFF}));
  // Texel 3, region 1, w 37: g (-5376 * 27 + 5376 * 37 + 32) >> 6 = 840 -> 813 (0x032D).
  EXPECT_EQ(texel(h, 3), (rgb16{0xC363, 0x032D, 0xE23F}));
  EXPECT_EQ(texel(h, 15), (rgb16{0x9458, 0x9458, 0xBEF8}));  // region 1, w 0 = y
}

// Mode 13 (5-bit 01011): 12-bit w whose bits 10 and 11 are stored reversed (w[10:11]: the
// first stream bit is bit 11), 8-bit deltas.
TEST(Bc6h, Mode13ReversedHighBits) {
  const int rw = 1024, gw = 2048, bw = 0;  // r has bit 10, g bit 11
  const int rx = 1, gx = -1, bx = 0;       // x = (1025, 2047, 0)
  block_writer w;
  w.put(0b01011, 4, 0);
  w.put(rw, 9, 0), w.put(gw, 9, 0), w.put(bw, 9, 0);
  w.put(rx, 7, 0), w.put_reversed(rw, 10, 11);
  w.put(gx, 7, 0), w.put_reversed(gw, 10, 11);
  w.put(bx, 7, 0), w.put_reversed(bw, 10, 11);
  std::array<int, 16> idx{};
  idx[1] = 15;
  for (int i = 0; i < 16; ++i) w.put(idx[static_cast<std::size_t>(i)], i == 0 ? 2 : 3, 0);
  const auto h = decode(w, false);
  // 12-bit unquantize ((x << 15) + 0x4000) >> 11: 1024 -> 16392, 2048 -> 32776,
  // 1025 -> 16408, 2047 -> 32760; * 31 >> 6: 7939, 15875, 7947, 15868.
  EXPECT_EQ(texel(h, 0), (rgb16{0x1F03, 0x3E03, 0x0000}));
  EXPECT_EQ(texel(h, 1), (rgb16{0x1F0B, 0x3DFC, 0x0000}));
}

// Mode values 10011, 10111, 11011, 11111 are reserved: the block decodes to zero.
TEST(Bc6h, ReservedModesDecodeToZero) {
  for (int mode : {19, 23, 27, 31})
    for (bool is_signed : {false, true}) {
      std::array<std::uint8_t, 16> b;
      b.fill(0xFF);
      b[0] = static_cast<std::uint8_t>(0xE0 | mode);
      std::array<std::uint16_t, 4 * 16> out;
      out.fill(0x1234);
      decode_bc6h_block_half(b.data(), is_signed, out.data(), 16);  // wider rows: padding kept
      for (int y = 0; y < 4; ++y)
        for (int x = 0; x < 16; ++x)
          EXPECT_EQ(out[static_cast<std::size_t>(y * 16 + x)], x < 12 ? 0 : 0x1234) << mode;
    }
}

// Independent formula path: for the direct single-region mode, every texel equals the
// lerp of the unquantized endpoints with the 4-bit weights, finished as the spec says.
TEST(Bc6h, Mode11MatchesTheFormulaOnRandomBlocks) {
  static const int weights[16] = {0, 4, 9, 13, 17, 21, 26, 30, 34, 38, 43, 47, 51, 55, 60, 64};
  auto unq = [](int x, bool s) {
    if (!s) return x == 0 ? 0 : x == 1023 ? 0xFFFF : ((x << 15) + 0x4000) >> 9;
    const int a = std::abs(x);
    const int u = a == 0 ? 0 : a >= 511 ? 0x7FFF : ((a << 15) + 0x4000) >> 9;
    return x < 0 ? -u : u;
  };
  auto fin = [](int v, bool s) -> std::uint16_t {
    if (!s) return static_cast<std::uint16_t>(v * 31 / 64);
    return static_cast<std::uint16_t>(v < 0 ? (-v * 31 / 32) | 0x8000 : v * 31 / 32);
  };
  std::mt19937 rng(6);
  for (int n = 0; n < 500; ++n) {
    const bool s = n % 2 == 1;
    std::array<int, 3> e0{}, e1{};
    std::array<int, 16> idx{};
    for (int c = 0; c < 3; ++c) {
      e0[static_cast<std::size_t>(c)] = static_cast<int>(rng() % 1024) - (s ? 512 : 0);
      e1[static_cast<std::size_t>(c)] = static_cast<int>(rng() % 1024) - (s ? 512 : 0);
    }
    for (int i = 0; i < 16; ++i)
      idx[static_cast<std::size_t>(i)] = static_cast<int>(rng() % (i ? 16 : 8));
    const auto h = decode(mode11(e0, e1, idx), s);
    for (int i = 0; i < 16; ++i)
      for (int c = 0; c < 3; ++c) {
        const int wt = weights[idx[static_cast<std::size_t>(i)]];
        const int v = (unq(e0[static_cast<std::size_t>(c)], s) * (64 - wt) +
                       unq(e1[static_cast<std::size_t>(c)], s) * wt + 32) >>
                      6;
        ASSERT_EQ(h[static_cast<std::size_t>(3 * i + c)], fin(v, s)) << n << " " << i << " " << c;
      }
  }
}

TEST(Bc6h, HalfToFloat) {
  EXPECT_EQ(half_to_float(0x3C00), 1.0f);
  EXPECT_EQ(half_to_float(0x7BFF), 65504.0f);
  EXPECT_EQ(half_to_float(0x0001), std::ldexp(1.0f, -24));  // subnormal
  EXPECT_EQ(half_to_float(0x8000), -0.0f);
  EXPECT_TRUE(std::isinf(half_to_float(0xFC00)) && half_to_float(0xFC00) < 0);
  EXPECT_EQ(half_to_float(0xC000), -2.0f);
}

// The 8-bit tone mapping: clamp to [0, 1], sRGB-encode, alpha 255; clipping reported.
TEST(Bc6h, ToneMappingToSrgb8) {
  const float rgb[12] = {0.0f, 1.0f, 0.5f, 2.0f, -1.0f, 0.0031308f, 0.2141f, 0, 0, 1, 1, 1};
  std::uint8_t px[16];
  const hdr_clip c = rgb_float_to_srgb8(rgb, 4, px);
  EXPECT_EQ(px[0], 0);
  EXPECT_EQ(px[1], 255);
  EXPECT_EQ(px[2], 188);  // 1.055 * 0.5^(1/2.4) - 0.055 = 0.7354
  EXPECT_EQ(px[3], 255);
  EXPECT_EQ(px[4], 255);  // 2.0 clipped
  EXPECT_EQ(px[5], 0);    // -1 clipped
  EXPECT_EQ(px[6], 10);   // 0.0031308 * 12.92 * 255 = 10.3
  EXPECT_EQ(px[8], 128);  // 0.2141 encodes to 0.50006 (0.214041 is sRGB 0.5)
  EXPECT_TRUE(c.above_one);
  EXPECT_TRUE(c.below_zero);
  const hdr_clip none = rgb_float_to_srgb8(rgb + 9, 1, px);
  EXPECT_FALSE(none.above_one || none.below_zero);

  // A whole block: mode 11's texel 0 has blue 65504 -> clipped to 255.
  std::array<int, 16> idx{};
  const auto w = mode11({0, 0, 1023}, {0, 0, 1023}, idx);
  std::uint8_t rgba[4 * 20];
  hdr_clip clip;
  decode_bc6h_block_rgba8(w.b.data(), false, rgba, 20, clip);
  EXPECT_EQ(rgba[0], 0);
  EXPECT_EQ(rgba[2], 255);
  EXPECT_EQ(rgba[3], 255);
  EXPECT_EQ(rgba[3 * 20 + 12 + 2], 255);  // row 3, texel 3
  EXPECT_TRUE(clip.above_one);
}

// Arbitrary bytes never crash and, unsigned, never give a negative, NaN or infinite value.
TEST(Bc6h, ArbitraryBlocksStayFinite) {
  std::mt19937 rng(9);
  for (int n = 0; n < 4000; ++n) {
    std::array<std::uint8_t, 16> b;
    for (auto& x : b) x = static_cast<std::uint8_t>(rng());
    float f[48];
    decode_bc6h_block(b.data(), false, f, 12);
    for (float v : f) ASSERT_TRUE(std::isfinite(v) && v >= 0 && v <= 65504.0f) << n;
    decode_bc6h_block(b.data(), true, f, 12);
    for (float v : f) ASSERT_FALSE(std::isnan(v)) << n;
  }
}
