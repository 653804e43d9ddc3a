// BC7 (BPTC unorm) block decoder, written from the format description
// (D3D11 "BC7 format mode reference", Khronos Data Format spec section BPTC).
// Debian packages no BC7 decoder (libsquish stops at BC5).
#include "core/image/bc7.hpp"

#include <array>

namespace rigrip::core::image {

namespace {

#include "core/image/bc7_tables.inc"

struct mode_info {
  int subsets, partition_bits, rotation_bits, selector_bits, color_bits, alpha_bits;
  int endpoint_pbits, shared_pbits, index_bits, index2_bits;
};
constexpr mode_info modes[8] = {{3, 4, 0, 0, 4, 0, 1, 0, 3, 0}, {2, 6, 0, 0, 6, 0, 0, 1, 3, 0},
                                {3, 6, 0, 0, 5, 0, 0, 0, 2, 0}, {2, 6, 0, 0, 7, 0, 1, 0, 2, 0},
                                {1, 0, 2, 1, 5, 6, 0, 0, 2, 3}, {1, 0, 2, 0, 7, 8, 0, 0, 2, 2},
                                {1, 0, 0, 0, 7, 7, 1, 0, 4, 0}, {2, 6, 0, 0, 5, 5, 1, 0, 2, 0}};

constexpr int weights2[4] = {0, 21, 43, 64};
constexpr int weights3[8] = {0, 9, 18, 27, 37, 46, 55, 64};
constexpr int weights4[16] = {0, 4, 9, 13, 17, 21, 26, 30, 34, 38, 43, 47, 51, 55, 60, 64};

// LSB-first bit stream over the 128-bit block.
struct bits {
  const std::uint8_t* b;
  int pos = 0;
  unsigned get(int n) {
    unsigned v = 0;
    for (int i = 0; i < n; ++i, ++pos) v |= unsigned((b[pos >> 3] >> (pos & 7)) & 1u) << i;
    return v;
  }
};

int interpolate(int e0, int e1, unsigned index, int index_bits) {
  const int* w = index_bits == 2 ? weights2 : index_bits == 3 ? weights3 : weights4;
  return (e0 * (64 - w[index]) + e1 * w[index] + 32) >> 6;
}

int subset_of(const mode_info& m, unsigned partition, int pixel) {
  if (m.subsets == 2) return static_cast<int>((partition2[partition] >> (2 * pixel)) & 3u);
  if (m.subsets == 3) return static_cast<int>((partition3[partition] >> (2 * pixel)) & 3u);
  return 0;
}

bool is_anchor(const mode_info& m, unsigned partition, int pixel) {
  if (pixel == 0) return true;
  if (m.subsets == 2) return pixel == anchor2[partition];
  if (m.subsets == 3) return pixel == anchor3a[partition] || pixel == anchor3b[partition];
  return false;
}

}  // namespace

void decode_bc7_block(const std::uint8_t* block, std::uint8_t* rgba, std::size_t stride) {
  int mode = 0;
  while (mode < 8 && !((block[0] >> mode) & 1)) ++mode;
  if (mode == 8) {  // reserved: the spec decodes it as transparent black
    for (int y = 0; y < 4; ++y)
      for (int x = 0; x < 16; ++x) rgba[y * stride + static_cast<std::size_t>(x)] = 0;
    return;
  }
  const mode_info& m = modes[mode];
  bits in{block, mode + 1};
  unsigned partition = in.get(m.partition_bits);
  unsigned rotation = in.get(m.rotation_bits);
  unsigned selector = in.get(m.selector_bits);

  // endpoints[subset * 2 + e][channel]
  std::array<std::array<int, 4>, 6> ep{};
  const int ne = m.subsets * 2;
  for (int c = 0; c < 3; ++c)
    for (int e = 0; e < ne; ++e) ep[e][c] = static_cast<int>(in.get(m.color_bits));
  for (int e = 0; e < ne; ++e)
    ep[e][3] = m.alpha_bits ? static_cast<int>(in.get(m.alpha_bits)) : 255;
  int cbits = m.color_bits, abits = m.alpha_bits;
  if (m.endpoint_pbits || m.shared_pbits) {
    std::array<unsigned, 6> p{};
    if (m.endpoint_pbits)
      for (int e = 0; e < ne; ++e) p[e] = in.get(1);
    else
      for (int s = 0; s < m.subsets; ++s) p[2 * s] = p[2 * s + 1] = in.get(1);
    for (int e = 0; e < ne; ++e) {
      for (int c = 0; c < 3; ++c) ep[e][c] = (ep[e][c] << 1) | static_cast<int>(p[e]);
      if (m.alpha_bits) ep[e][3] = (ep[e][3] << 1) | static_cast<int>(p[e]);
    }
    ++cbits;
    if (abits) ++abits;
  }
  auto expand = [](int v, int n) { return (v << (8 - n)) | (v >> (2 * n - 8)); };
  for (int e = 0; e < ne; ++e) {
    for (int c = 0; c < 3; ++c) ep[e][c] = expand(ep[e][c], cbits);
    if (abits) ep[e][3] = expand(ep[e][3], abits);
  }

  unsigned idx1[16], idx2[16];
  for (int i = 0; i < 16; ++i)
    idx1[i] = in.get(is_anchor(m, partition, i) ? m.index_bits - 1 : m.index_bits);
  if (m.index2_bits)
    for (int i = 0; i < 16; ++i) idx2[i] = in.get(i == 0 ? m.index2_bits - 1 : m.index2_bits);

  for (int i = 0; i < 16; ++i) {
    int s = subset_of(m, partition, i);
    const auto& e0 = ep[2 * s];
    const auto& e1 = ep[2 * s + 1];
    int px[4];
    if (m.index2_bits) {
      // Mode 4/5: colour and alpha use separate index sets; mode 4's selector swaps them.
      unsigned ci = selector ? idx2[i] : idx1[i], ai = selector ? idx1[i] : idx2[i];
      int cb = selector ? m.index2_bits : m.index_bits,
          ab = selector ? m.index_bits : m.index2_bits;
      for (int c = 0; c < 3; ++c) px[c] = interpolate(e0[c], e1[c], ci, cb);
      px[3] = interpolate(e0[3], e1[3], ai, ab);
    } else {
      for (int c = 0; c < 4; ++c) px[c] = interpolate(e0[c], e1[c], idx1[i], m.index_bits);
      if (!m.alpha_bits) px[3] = 255;
    }
    if (rotation) std::swap(px[3], px[rotation - 1]);
    std::uint8_t* out =
        rgba + static_cast<std::size_t>(i / 4) * stride + static_cast<std::size_t>(i % 4) * 4;
    for (int c = 0; c < 4; ++c) out[c] = static_cast<std::uint8_t>(px[c]);
  }
}

}  // namespace rigrip::core::image
