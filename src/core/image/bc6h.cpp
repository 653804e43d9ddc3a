// BC6H (BPTC float) block decoder, written from the format description (D3D11 "BC6H format",
// Khronos Data Format spec section "BPTC Compressed Texture Image Formats" / BC6H).
// Debian packages no BC6H decoder (libsquish stops at BC5). Cross-checked by hand (not in
// the tests: Pillow is no dependency) against Debian's python3-pil 9.4 on 4000 random blocks
// per format: unsigned equal to 8-bit rounding in every mode; signed equal except where
// Pillow 9.4 skips the sign extension of a transformed endpoint after adding e0 (the
// D3D/Khronos decoders sign-extend it; so do we).
#include "core/image/bc6h.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>

namespace rigrip::core::image {

namespace {

// partition2 / anchor2: BC6H's 32 two-region shapes are the first 32 of BC7's.
#include "core/image/bc7_tables.inc"

constexpr int weights3[8] = {0, 9, 18, 27, 37, 46, 55, 64};
constexpr int weights4[16] = {0, 4, 9, 13, 17, 21, 26, 30, 34, 38, 43, 47, 51, 55, 60, 64};

// One mode: its mode-field value (2 bits for 0 and 1, 5 bits otherwise; the D3D mode number
// is given in the comment), endpoint precision, delta widths, and the endpoint bit layout in the
// spec's notation, LSB first after the mode bits: v[a:b] with a >= b puts the next stream bits
// into bits b..a of v; a < b is reversed (the first stream bit goes to bit b). The layouts are
// the Khronos table's; D3D modes 1 and 3 there lose their last field, b3[3] (D3D's "bz[3]"), which
// every 2-region layout has (77 bits, then 5 partition bits).
struct mode_desc {
  int value;
  bool transformed;
  int regions;
  int epb;       // endpoint bits
  int delta[3];  // bits of the other endpoints per channel (= epb when not transformed)
  const char* layout;
};
constexpr mode_desc mode_table[14] = {
    {0,
     true,
     2,
     10,
     {5, 5, 5},  // D3D mode 1
     "g2[4] b2[4] b3[4] r0[9:0] g0[9:0] b0[9:0] r1[4:0] g3[4] g2[3:0] g1[4:0] b3[0] g3[3:0] "
     "b1[4:0] b3[1] b2[3:0] r2[4:0] b3[2] r3[4:0] b3[3]"},
    {1,
     true,
     2,
     7,
     {6, 6, 6},  // D3D mode 2
     "g2[5] g3[4] g3[5] r0[6:0] b3[0] b3[1] b2[4] g0[6:0] b2[5] b3[2] g2[4] b0[6:0] b3[3] b3[5] "
     "b3[4] r1[5:0] g2[3:0] g1[5:0] g3[3:0] b1[5:0] b2[3:0] r2[5:0] r3[5:0]"},
    {2,
     true,
     2,
     11,
     {5, 4, 4},  // D3D mode 3
     "r0[9:0] g0[9:0] b0[9:0] r1[4:0] r0[10] g2[3:0] g1[3:0] g0[10] b3[0] g3[3:0] b1[3:0] b0[10] "
     "b3[1] b2[3:0] r2[4:0] b3[2] r3[4:0] b3[3]"},
    {6,
     true,
     2,
     11,
     {4, 5, 4},  // D3D mode 4
     "r0[9:0] g0[9:0] b0[9:0] r1[3:0] r0[10] g3[4] g2[3:0] g1[4:0] g0[10] g3[3:0] b1[3:0] b0[10] "
     "b3[1] b2[3:0] r2[3:0] b3[0] b3[2] r3[3:0] g2[4] b3[3]"},
    {10,
     true,
     2,
     11,
     {4, 4, 5},  // D3D mode 5
     "r0[9:0] g0[9:0] b0[9:0] r1[3:0] r0[10] b2[4] g2[3:0] g1[3:0] g0[10] b3[0] g3[3:0] b1[4:0] "
     "b0[10] b2[3:0] r2[3:0] b3[1] b3[2] r3[3:0] b3[4] b3[3]"},
    {14,
     true,
     2,
     9,
     {5, 5, 5},  // D3D mode 6
     "r0[8:0] b2[4] g0[8:0] g2[4] b0[8:0] b3[4] r1[4:0] g3[4] g2[3:0] g1[4:0] b3[0] g3[3:0] "
     "b1[4:0] b3[1] b2[3:0] r2[4:0] b3[2] r3[4:0] b3[3]"},
    {18,
     true,
     2,
     8,
     {6, 5, 5},  // D3D mode 7
     "r0[7:0] g3[4] b2[4] g0[7:0] b3[2] g2[4] b0[7:0] b3[3] b3[4] r1[5:0] g2[3:0] g1[4:0] b3[0] "
     "g3[3:0] b1[4:0] b3[1] b2[3:0] r2[5:0] r3[5:0]"},
    {22,
     true,
     2,
     8,
     {5, 6, 5},  // D3D mode 8
     "r0[7:0] b3[0] b2[4] g0[7:0] g2[5] g2[4] b0[7:0] g3[5] b3[4] r1[4:0] g3[4] g2[3:0] g1[5:0] "
     "g3[3:0] b1[4:0] b3[1] b2[3:0] r2[4:0] b3[2] r3[4:0] b3[3]"},
    {26,
     true,
     2,
     8,
     {5, 5, 6},  // D3D mode 9
     "r0[7:0] b3[1] b2[4] g0[7:0] b2[5] g2[4] b0[7:0] b3[5] b3[4] r1[4:0] g3[4] g2[3:0] g1[4:0] "
     "b3[0] g3[3:0] b1[5:0] b2[3:0] r2[4:0] b3[2] r3[4:0] b3[3]"},
    {30,
     false,
     2,
     6,
     {6, 6, 6},  // D3D mode 10
     "r0[5:0] g3[4] b3[0] b3[1] b2[4] g0[5:0] g2[5] b2[5] b3[2] g2[4] b0[5:0] g3[5] b3[3] b3[5] "
     "b3[4] r1[5:0] g2[3:0] g1[5:0] g3[3:0] b1[5:0] b2[3:0] r2[5:0] r3[5:0]"},
    {3,
     false,
     1,
     10,
     {10, 10, 10},  // D3D mode 11
     "r0[9:0] g0[9:0] b0[9:0] r1[9:0] g1[9:0] b1[9:0]"},
    {7,
     true,
     1,
     11,
     {9, 9, 9},  // D3D mode 12
     "r0[9:0] g0[9:0] b0[9:0] r1[8:0] r0[10] g1[8:0] g0[10] b1[8:0] b0[10]"},
    {11,
     true,
     1,
     12,
     {8, 8, 8},  // D3D mode 13
     "r0[9:0] g0[9:0] b0[9:0] r1[7:0] r0[10:11] g1[7:0] g0[10:11] b1[7:0] b0[10:11]"},
    {15,
     true,
     1,
     16,
     {4, 4, 4},  // D3D mode 14
     "r0[9:0] g0[9:0] b0[9:0] r1[3:0] r0[10:15] g1[3:0] g0[10:15] b1[3:0] b0[10:15]"},
};

// A layout expanded to one (endpoint component, bit) pair per stream bit; component =
// endpoint * 3 + channel (r0 g0 b0 r1 ... b3).
struct expanded_layout {
  std::array<std::uint8_t, 82> field{}, bit{};
  int count = 0;
};

int parse_int(const char*& p) {
  int v = 0;
  while (*p >= '0' && *p <= '9') v = v * 10 + (*p++ - '0');
  return v;
}

expanded_layout expand(const char* s) {
  expanded_layout out;
  const char* p = s;
  while (*p) {
    if (*p == ' ') {
      ++p;
      continue;
    }
    const int channel = *p == 'r' ? 0 : *p == 'g' ? 1 : 2;
    ++p;
    const int endpoint = *p++ - '0';
    ++p;  // '['
    const int a = parse_int(p);
    int b = a;
    if (*p == ':') ++p, b = parse_int(p);
    ++p;  // ']'
    const int n = std::abs(a - b) + 1, step = a >= b ? 1 : -1;
    for (int k = 0; k < n && out.count < 82; ++k, ++out.count) {
      out.field[static_cast<std::size_t>(out.count)] =
          static_cast<std::uint8_t>(endpoint * 3 + channel);
      out.bit[static_cast<std::size_t>(out.count)] = static_cast<std::uint8_t>(b + k * step);
    }
  }
  return out;
}

const std::array<expanded_layout, 14>& layouts() {
  static const std::array<expanded_layout, 14> all = [] {
    std::array<expanded_layout, 14> a{};
    for (std::size_t i = 0; i < 14; ++i) a[i] = expand(mode_table[i].layout);
    return a;
  }();
  return all;
}

// LSB-first bit stream over the 128-bit block; never reads past bit 127.
struct bits {
  const std::uint8_t* b;
  int pos = 0;
  unsigned get(int n) {
    unsigned v = 0;
    for (int i = 0; i < n && pos < 128; ++i, ++pos)
      v |= unsigned((b[pos >> 3] >> (pos & 7)) & 1u) << i;
    return v;
  }
};

int sign_extend(int v, int n) {
  const int m = 1 << (n - 1);
  v &= (1 << n) - 1;
  return (v ^ m) - m;
}

int unquantize(int x, int epb, bool is_signed) {
  if (!is_signed) {
    if (epb >= 15 || x == 0) return x;
    if (x == (1 << epb) - 1) return 0xFFFF;
    return ((x << 15) + 0x4000) >> (epb - 1);
  }
  if (epb >= 16) return x;
  const bool neg = x < 0;
  if (neg) x = -x;
  int q;
  if (x == 0)
    q = 0;
  else if (x >= (1 << (epb - 1)) - 1)
    q = 0x7FFF;
  else
    q = ((x << 15) + 0x4000) >> (epb - 1);
  return neg ? -q : q;
}

// The final scaling to a half float's bits: 31/64 unsigned; signed scales the magnitude by
// 31/32 and puts the sign back.
std::uint16_t finish(int x, bool is_signed) {
  if (!is_signed) return static_cast<std::uint16_t>((x * 31) >> 6);
  if (x < 0) return static_cast<std::uint16_t>((((-x) * 31) >> 5) | 0x8000);
  return static_cast<std::uint16_t>((x * 31) >> 5);
}

double srgb_encode(double l) {
  return l <= 0.0031308 ? l * 12.92 : 1.055 * std::pow(l, 1 / 2.4) - 0.055;
}

}  // namespace

void decode_bc6h_block_half(const std::uint8_t* block, bool is_signed, std::uint16_t* rgb,
                            std::size_t stride) {
  const unsigned low2 = block[0] & 3u;
  const int value = low2 < 2 ? static_cast<int>(low2) : block[0] & 31;
  int mi = 0;
  while (mi < 14 && mode_table[mi].value != value) ++mi;
  if (mi == 14) {  // reserved (19, 23, 27, 31): the spec decodes it as zero
    for (int y = 0; y < 4; ++y)
      for (int x = 0; x < 12; ++x) rgb[static_cast<std::size_t>(y) * stride + x] = 0;
    return;
  }
  const mode_desc& m = mode_table[mi];
  const expanded_layout& lay = layouts()[static_cast<std::size_t>(mi)];
  bits in{block, low2 < 2 ? 2 : 5};

  std::array<int, 12> ep{};  // endpoint * 3 + channel
  for (int k = 0; k < lay.count; ++k)
    ep[lay.field[static_cast<std::size_t>(k)]] |= static_cast<int>(in.get(1))
                                                  << lay.bit[static_cast<std::size_t>(k)];
  const unsigned partition = m.regions == 2 ? in.get(5) : 0;
  const int ib = m.regions == 2 ? 3 : 4;
  unsigned idx[16];
  for (int i = 0; i < 16; ++i) {
    // The first index of each region (its anchor) has one bit fewer (its top bit is 0).
    const bool anchor = i == 0 || (m.regions == 2 && i == anchor2[partition]);
    idx[i] = in.get(anchor ? ib - 1 : ib);
  }

  const int n = m.regions * 2;
  const int mask = (1 << m.epb) - 1;
  for (int c = 0; c < 3; ++c) {
    if (is_signed) ep[c] = sign_extend(ep[c], m.epb);
    for (int e = 1; e < n; ++e) {
      int& v = ep[static_cast<std::size_t>(e * 3 + c)];
      if (is_signed || m.transformed) v = sign_extend(v, m.transformed ? m.delta[c] : m.epb);
      if (m.transformed) {  // deltas from e0, wrapped at the endpoint precision
        v = (ep[static_cast<std::size_t>(c)] + v) & mask;
        if (is_signed) v = sign_extend(v, m.epb);
      }
    }
  }
  for (int k = 0; k < n * 3; ++k)
    ep[static_cast<std::size_t>(k)] = unquantize(ep[static_cast<std::size_t>(k)], m.epb, is_signed);

  const int* w = ib == 3 ? weights3 : weights4;
  for (int i = 0; i < 16; ++i) {
    const int s = m.regions == 2 ? static_cast<int>((partition2[partition] >> (2 * i)) & 3u) : 0;
    std::uint16_t* out =
        rgb + static_cast<std::size_t>(i / 4) * stride + static_cast<std::size_t>(i % 4) * 3;
    for (int c = 0; c < 3; ++c) {
      const int e0 = ep[static_cast<std::size_t>(s * 6 + c)];
      const int e1 = ep[static_cast<std::size_t>(s * 6 + 3 + c)];
      const int wt = w[idx[i]];
      out[c] = finish((e0 * (64 - wt) + e1 * wt + 32) >> 6, is_signed);
    }
  }
}

float half_to_float(std::uint16_t h) {
  const int sign = h >> 15, exp = (h >> 10) & 31, man = h & 1023;
  float v;
  if (exp == 0)
    v = std::ldexp(static_cast<float>(man), -24);
  else if (exp == 31)
    v = man ? std::nanf("") : INFINITY;
  else
    v = std::ldexp(static_cast<float>(man + 1024), exp - 25);
  return sign ? -v : v;
}

void decode_bc6h_block(const std::uint8_t* block, bool is_signed, float* rgb,
                       std::size_t stride_floats) {
  std::uint16_t h[48];
  decode_bc6h_block_half(block, is_signed, h, 12);
  for (int y = 0; y < 4; ++y)
    for (int x = 0; x < 12; ++x)
      rgb[static_cast<std::size_t>(y) * stride_floats + static_cast<std::size_t>(x)] =
          half_to_float(h[y * 12 + x]);
}

hdr_clip rgb_float_to_srgb8(const float* rgb, std::size_t count, std::uint8_t* rgba) {
  hdr_clip clip;
  for (std::size_t i = 0; i < count; ++i) {
    for (std::size_t c = 0; c < 3; ++c) {
      const float v = rgb[3 * i + c];
      if (v > 1) clip.above_one = true;
      if (v < 0) clip.below_zero = true;
      const double l = std::isnan(v) ? 0.0 : std::clamp(static_cast<double>(v), 0.0, 1.0);
      rgba[4 * i + c] = static_cast<std::uint8_t>(std::lround(srgb_encode(l) * 255));
    }
    rgba[4 * i + 3] = 255;
  }
  return clip;
}

void decode_bc6h_block_rgba8(const std::uint8_t* block, bool is_signed, std::uint8_t* rgba,
                             std::size_t stride, hdr_clip& clip) {
  float f[48];
  decode_bc6h_block(block, is_signed, f, 12);
  for (int y = 0; y < 4; ++y) {
    const hdr_clip c =
        rgb_float_to_srgb8(f + y * 12, 4, rgba + static_cast<std::size_t>(y) * stride);
    clip.above_one |= c.above_one;
    clip.below_zero |= c.below_zero;
  }
}

}  // namespace rigrip::core::image
