// SF3 battle meshes: raw layer -> scene model.
#include "formats/sf3/decode.hpp"

#include <algorithm>
#include <cmath>
#include <cctype>
#include <cstring>
#include <cstdio>
#include <filesystem>
#include <map>

#include "core/failure.hpp"
#include "core/math.hpp"
#include "formats/sf3/names.hpp"
#include "scene/pose.hpp"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace rigrip::sf3 {
namespace {

using core::byte_reader;
using core::endian;
using core::fail;

float srgb_to_linear(float c) { return c <= 0.04045f ? c / 12.92f : std::pow((c + 0.055f) / 1.055f, 2.4f); }

std::array<std::uint8_t, 4> rgb555(std::uint16_t p) {
  // 0x0000 is the transparent pixel (SPD off in every attribute seen); anything else
  // is drawn. 5-bit channels are widened by repeating the top bits.
  if (p == 0) return {0, 0, 0, 0};
  auto wide = [](unsigned v) { return static_cast<std::uint8_t>((v << 3) | (v >> 2)); };
  return {wide(p & 31u), wide((p >> 5) & 31u), wide((p >> 10) & 31u), 255};
}

}  // namespace

float flat_linear(unsigned v5) {
  // The 32 values srgb_to_linear gives for a widened 5-bit channel (as rgb555 widens it),
  // worked out once: a flat face took three std::pow calls.
  static const std::array<float, 32> table = [] {
    std::array<float, 32> t{};
    for (unsigned v = 0; v < 32; ++v) t[v] = srgb_to_linear(rgb555(static_cast<std::uint16_t>(0x8000 | v))[0] / 255.0f);
    return t;
  }();
  return table[v5 & 31u];
}
float flat_linear_reference(unsigned v5) { return srgb_to_linear(static_cast<float>((v5 << 3) | (v5 >> 2)) / 255.0f); }

void rgb555_pixels(const std::uint8_t* src, std::size_t n, std::uint8_t* dst) {
  // rgb555 per big-endian pixel without a branch: 0x0000 widens to 0, 0, 0 by itself and
  // only its alpha differs. Eight pixels at a time in 16-bit lanes where SSE2 exists
  // (every x86-64), the same formula one pixel at a time for the rest.
  std::size_t i = 0;
#if defined(__SSE2__)
  const __m128i five = _mm_set1_epi16(31), alpha = _mm_set1_epi16(static_cast<short>(0xFF00)), zero = _mm_setzero_si128();
  for (; i + 8 <= n; i += 8) {
    const __m128i raw = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + 2 * i));
    const __m128i p = _mm_or_si128(_mm_slli_epi16(raw, 8), _mm_srli_epi16(raw, 8));  // big-endian words
    const __m128i r = _mm_and_si128(p, five), g = _mm_and_si128(_mm_srli_epi16(p, 5), five),
                  b = _mm_and_si128(_mm_srli_epi16(p, 10), five);
    const __m128i wr = _mm_or_si128(_mm_slli_epi16(r, 3), _mm_srli_epi16(r, 2));
    const __m128i wg = _mm_or_si128(_mm_slli_epi16(g, 3), _mm_srli_epi16(g, 2));
    const __m128i wb = _mm_or_si128(_mm_slli_epi16(b, 3), _mm_srli_epi16(b, 2));
    const __m128i rg = _mm_or_si128(wr, _mm_slli_epi16(wg, 8));
    const __m128i ba = _mm_or_si128(wb, _mm_andnot_si128(_mm_cmpeq_epi16(p, zero), alpha));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + 4 * i), _mm_unpacklo_epi16(rg, ba));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + 4 * i + 16), _mm_unpackhi_epi16(rg, ba));
  }
#endif
  for (; i < n; ++i) {
    const unsigned p = static_cast<unsigned>(src[2 * i]) << 8 | src[2 * i + 1];
    const unsigned r = p & 31u, g = (p >> 5) & 31u, b = (p >> 10) & 31u;
    dst[4 * i] = static_cast<std::uint8_t>((r << 3) | (r >> 2));
    dst[4 * i + 1] = static_cast<std::uint8_t>((g << 3) | (g >> 2));
    dst[4 * i + 2] = static_cast<std::uint8_t>((b << 3) | (b >> 2));
    dst[4 * i + 3] = p != 0 ? 255 : 0;
  }
}
std::array<std::uint8_t, 4> rgb555_reference(std::uint16_t p) { return rgb555(p); }

namespace {
// ---- animation sampling over stored keys ----
// One channel's keys inside a table_channels: `n` strictly increasing frames and n * ncomp values.
struct channel_view {
  const int* frames = nullptr;
  const float* values = nullptr;
  std::size_t n = 0;
  int ncomp = 3;
};

std::array<float, 4> sample(const channel_view& c, double frame) {
  const int* f = c.frames;
  const std::size_t nc = static_cast<std::size_t>(c.ncomp);
  auto value = [&](std::size_t k) {
    std::array<float, 4> v{0, 0, 0, 0};
    // Constant sizes: inline moves, not a memcpy call per boundary key.
    if (nc == 4) std::memcpy(v.data(), c.values + k * 4, 4 * sizeof(float));
    else std::memcpy(v.data(), c.values + k * 3, 3 * sizeof(float));
    return v;
  };
  if (frame <= f[0]) return value(0);
  if (frame >= f[c.n - 1]) return value(c.n - 1);
  const int* it = std::upper_bound(f, f + c.n, frame);
  std::size_t hi = static_cast<std::size_t>(it - f), lo = hi - 1;
  float t = static_cast<float>((frame - f[lo]) / (f[hi] - f[lo]));
  const auto a = value(lo);
  const auto b = value(hi);
  if (c.ncomp == 4) {
    quat q = core::slerp({a[0], a[1], a[2], a[3]}, {b[0], b[1], b[2], b[3]}, t);
    return {q[0], q[1], q[2], q[3]};
  }
  return {a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t, a[2] + (b[2] - a[2]) * t, 0};
}

const path kPaths[3] = {path::translation, path::rotation, path::scale};

// The channels of a key table's first `nb` bones, made once per table: every clip of a
// model cuts its frames out of the same table, and re-making the channels per clip was
// most of make_clip. All channels share two flat arrays (six vectors per bone were most of
// the cost of making them); a clip copies a channel's values in one piece. Per-bone counts
// let each clip report what it did before.
struct table_channels {
  struct chan {
    std::size_t first = 0, count = 0;  // keys kept: frames[first, first + count)
    std::size_t value_first = 0;       // their values from values[value_first], ncomp each
  };
  // Sized from the counts before the keys are read, then written key by key: not zero-filled.
  std::vector<int, no_init_allocator<int>> frames;
  std::vector<float, no_init_allocator<float>> values;
  std::vector<std::array<chan, 3>> bones;
  std::vector<std::size_t> dropped, repaired;
  [[nodiscard]] channel_view view(std::size_t b, int c) const {
    const chan& ch = bones[b][static_cast<std::size_t>(c)];
    return {frames.data() + ch.first, values.data() + ch.value_first, ch.count, c == 1 ? 4 : 3};
  }
};

// One channel's keys appended at fo / vo: frames from `fa`, ncomp values per key from the
// component arrays `va` (FIXED for translation and scale, s16 for rotations); keys whose
// frame is not above the last kept one are dropped, non-unit rotations repaired (counted also
// for a dropped key, as before). The byte order is a template argument so each element is
// one load; the channel kind is one, so the loop has no per-key branch on it.
// With SSE2 (Simd, where it exists) four keys at a time when all four are kept (and, for
// rotations, unit): the same conversions (s16 / 16384 and FIXED / 65536 are exact scalings of
// float(v)), the same sum of squares in the same order and the same (correctly rounded)
// square root; any other block of four goes key by key.
template <endian E, bool Rotation, bool Simd = true>
void append_channel(const std::uint8_t* fa, const std::uint8_t* const* va, std::uint32_t n, int*& fo, float*& vo,
                    std::size_t& dropped, std::size_t& repaired) {
  int last = -1;  // frames are u16: the first key is always kept
  auto one = [&](std::uint32_t i) {
    const int fr = static_cast<int>(load_at<std::uint16_t>(fa + 2 * i, E));
    if constexpr (Rotation) {
      quat q{rot_to_float(load_at<std::int16_t>(va[0] + 2 * i, E)), rot_to_float(load_at<std::int16_t>(va[1] + 2 * i, E)),
             rot_to_float(load_at<std::int16_t>(va[2] + 2 * i, E)), rot_to_float(load_at<std::int16_t>(va[3] + 2 * i, E))};
      // Stored norms are 0.9999..1.0001: keep the values exactly as stored (so pack gives the
      // same integers back) and repair only what is not a rotation at all.
      float len = std::sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
      if (!(std::fabs(len - 1.0f) < 5e-4f)) {
        q = len > 1e-6f && std::isfinite(len) ? core::normalize(q) : quat{0, 0, 0, 1};
        ++repaired;
      }
      if (fr <= last) {
        ++dropped;
        return;
      }
      std::memcpy(vo, q.data(), 4 * sizeof(float));
      vo += 4;
    } else {
      if (fr <= last) {
        ++dropped;
        return;
      }
      vo[0] = fixed_to_float(load_at<std::int32_t>(va[0] + 4 * i, E));
      vo[1] = fixed_to_float(load_at<std::int32_t>(va[1] + 4 * i, E));
      vo[2] = fixed_to_float(load_at<std::int32_t>(va[2] + 4 * i, E));
      vo += 3;
    }
    last = fr;
    *fo++ = fr;
  };
  std::uint32_t i = 0;
#if defined(__SSE2__)
  if constexpr (Rotation && Simd) {
    const __m128 scale = _mm_set1_ps(1.0f / 16384.0f), unit = _mm_set1_ps(1.0f), tol = _mm_set1_ps(5e-4f);
    const __m128 abs_mask = _mm_castsi128_ps(_mm_set1_epi32(0x7FFFFFFF));
    for (; i + 4 <= n; i += 4) {
      int fr[4];
      for (std::uint32_t j = 0; j < 4; ++j) fr[j] = static_cast<int>(load_at<std::uint16_t>(fa + 2 * (i + j), E));
      __m128 c[4];
      for (int j = 0; j < 4; ++j) {
        __m128i v = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(va[j] + 2 * i));
        if constexpr (E == endian::big) v = _mm_or_si128(_mm_slli_epi16(v, 8), _mm_srli_epi16(v, 8));
        v = _mm_srai_epi32(_mm_unpacklo_epi16(v, v), 16);  // sign-extended to 32 bits
        c[j] = _mm_mul_ps(_mm_cvtepi32_ps(v), scale);
      }
      const __m128 len2 = _mm_add_ps(_mm_add_ps(_mm_add_ps(_mm_mul_ps(c[0], c[0]), _mm_mul_ps(c[1], c[1])), _mm_mul_ps(c[2], c[2])),
                                     _mm_mul_ps(c[3], c[3]));
      const __m128 off = _mm_and_ps(_mm_sub_ps(_mm_sqrt_ps(len2), unit), abs_mask);
      if (!(fr[0] > last && fr[1] > fr[0] && fr[2] > fr[1] && fr[3] > fr[2]) || _mm_movemask_ps(_mm_cmplt_ps(off, tol)) != 0xF) {
        for (std::uint32_t j = 0; j < 4; ++j) one(i + j);
        continue;
      }
      _MM_TRANSPOSE4_PS(c[0], c[1], c[2], c[3]);
      for (int j = 0; j < 4; ++j) _mm_storeu_ps(vo + 4 * j, c[j]);
      vo += 16;
      for (int j = 0; j < 4; ++j) fo[j] = fr[j];
      fo += 4;
      last = fr[3];
    }
  }
  if constexpr (!Rotation && Simd) {
    // FIXED / 65536 is float(v) scaled by 2^-16, exactly (scaling commutes with rounding).
    const __m128 scale = _mm_set1_ps(1.0f / 65536.0f);
    for (; i + 4 <= n; i += 4) {
      int fr[4];
      for (std::uint32_t j = 0; j < 4; ++j) fr[j] = static_cast<int>(load_at<std::uint16_t>(fa + 2 * (i + j), E));
      if (!(fr[0] > last && fr[1] > fr[0] && fr[2] > fr[1] && fr[3] > fr[2])) {
        for (std::uint32_t j = 0; j < 4; ++j) one(i + j);
        continue;
      }
      __m128 c[3];
      for (int j = 0; j < 3; ++j) {
        __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(va[j] + 4 * i));
        if constexpr (E == endian::big) {
          v = _mm_or_si128(_mm_slli_epi16(v, 8), _mm_srli_epi16(v, 8));            // bytes in each half
          v = _mm_shufflehi_epi16(_mm_shufflelo_epi16(v, 0xB1), 0xB1);              // the halves
        }
        c[j] = _mm_mul_ps(_mm_cvtepi32_ps(v), scale);
      }
      // x0..x3, y0..y3, z0..z3 -> x0 y0 z0 x1 | y1 z1 x2 y2 | z2 x3 y3 z3
      const __m128 xy_lo = _mm_unpacklo_ps(c[0], c[1]), xy_hi = _mm_unpackhi_ps(c[0], c[1]);
      const __m128 z0x1 = _mm_shuffle_ps(c[2], xy_lo, _MM_SHUFFLE(2, 2, 0, 0));
      const __m128 y1z1 = _mm_shuffle_ps(xy_lo, c[2], _MM_SHUFFLE(1, 1, 3, 3));
      const __m128 z2z3x3y3 = _mm_shuffle_ps(c[2], xy_hi, _MM_SHUFFLE(3, 2, 3, 2));
      _mm_storeu_ps(vo, _mm_shuffle_ps(xy_lo, z0x1, _MM_SHUFFLE(2, 0, 1, 0)));
      _mm_storeu_ps(vo + 4, _mm_shuffle_ps(y1z1, xy_hi, _MM_SHUFFLE(1, 0, 2, 0)));
      _mm_storeu_ps(vo + 8, _mm_shuffle_ps(z2z3x3y3, z2z3x3y3, _MM_SHUFFLE(1, 3, 2, 0)));
      vo += 12;
      for (int j = 0; j < 4; ++j) fo[j] = fr[j];
      fo += 4;
      last = fr[3];
    }
  }
#endif
  for (; i < n; ++i) one(i);
}

template <endian E>
void fill_table_channels(table_channels& tc, const key_table_ref& keys, const std::uint8_t* data, std::size_t nb) {
  int* fo = tc.frames.data();
  float* vo = tc.values.data();
  for (std::size_t b = 0; b < nb; ++b) {
    const auto& k = keys.bones[b];
    for (int c = 0; c < 3; ++c) {
      auto& ch = tc.bones[b][static_cast<std::size_t>(c)];
      ch.first = static_cast<std::size_t>(fo - tc.frames.data());
      ch.value_first = static_cast<std::size_t>(vo - tc.values.data());
      int* const f0 = fo;
      if (k.n[c]) {
        // Component arrays: Tx Ty Tz at off[3..5], Rx Ry Rz Rw at off[6..9], Sx Sy Sz at off[10..12].
        const int first = c == 0 ? 3 : c == 1 ? 6 : 10;
        const std::uint8_t* va[4];
        for (int j = 0; j < (c == 1 ? 4 : 3); ++j) va[j] = data + k.off[first + j];
        if (c == 1) append_channel<E, true>(data + k.off[c], va, k.n[c], fo, vo, tc.dropped[b], tc.repaired[b]);
        else append_channel<E, false>(data + k.off[c], va, k.n[c], fo, vo, tc.dropped[b], tc.repaired[b]);
      }
      ch.count = static_cast<std::size_t>(fo - f0);
    }
  }
}

// `data` = the bytes the table's offsets count from. Keys with non-increasing frames dropped;
// rotations that are not unit quaternions repaired.
table_channels make_table_channels(const key_table_ref& keys, const std::uint8_t* data, std::size_t nb) {
  table_channels tc;
  // Sized once from the scanned counts (each array checked against the file's bytes).
  std::size_t nkeys = 0, nvalues = 0;
  for (std::size_t b = 0; b < nb; ++b) {
    const auto& k = keys.bones[b];
    nkeys += std::size_t{k.n[0]} + k.n[1] + k.n[2];
    nvalues += 3 * std::size_t{k.n[0]} + 4 * std::size_t{k.n[1]} + 3 * std::size_t{k.n[2]};
  }
  tc.frames.resize(nkeys);
  tc.values.resize(nvalues);
  tc.bones.resize(nb);
  tc.dropped.assign(nb, 0);
  tc.repaired.assign(nb, 0);
  if (keys.order == endian::big) fill_table_channels<endian::big>(tc, keys, data, nb);
  else fill_table_channels<endian::little>(tc, keys, data, nb);
  return tc;
}

}  // namespace

std::size_t decode_channel_keys(const std::uint8_t* frames, const std::array<const std::uint8_t*, 4>& comp, std::uint32_t n,
                                bool rotation, bool big, bool simd, int* fo, float* vo, std::size_t& dropped,
                                std::size_t& repaired) {
  int* const start = fo;
  auto run = [&]<endian E>() {
    if (rotation) {
      if (simd) append_channel<E, true, true>(frames, comp.data(), n, fo, vo, dropped, repaired);
      else append_channel<E, true, false>(frames, comp.data(), n, fo, vo, dropped, repaired);
    } else {
      if (simd) append_channel<E, false, true>(frames, comp.data(), n, fo, vo, dropped, repaired);
      else append_channel<E, false, false>(frames, comp.data(), n, fo, vo, dropped, repaired);
    }
  };
  if (big) run.template operator()<endian::big>();
  else run.template operator()<endian::little>();
  return static_cast<std::size_t>(fo - start);
}

namespace {
// A clip over frames [f0, f1] from a key table: the keys inside plus sampled boundary keys,
// rebased to t = 0. `all` keeps every key at its own frame (t = frame / fps).
animation make_clip(const table_channels& tc, const skeleton& sk, int skel_index, int f0, int f1, double fps, bool all,
                    const read_context& ctx, const std::string& name) {
  animation a;
  a.name = name;
  a.skeleton = skel_index;
  a.fps = fps;
  std::size_t dropped = 0, repaired = 0, ntracks = 0;
  for (const auto& ch : tc.bones)
    for (const auto& c : ch) ntracks += c.count ? 1 : 0;
  a.tracks.reserve(ntracks);
  int max_frame = 0;
  for (std::size_t b = 0; b < tc.bones.size(); ++b) {
    dropped += tc.dropped[b];
    repaired += tc.repaired[b];
    for (int c = 0; c < 3; ++c) {
      const channel_view cc = tc.view(b, c);
      if (!cc.n) continue;
      track t;
      t.bone = sk.bones[b].name;
      t.path = kPaths[c];
      t.interpolation = interpolation::linear;
      const std::size_t nc = static_cast<std::size_t>(cc.ncomp);
      // Sized once: every key (all), else the keys strictly inside (f0, f1) (frames are
      // strictly increasing, so they are the index range [inside0, inside1)) plus the one or
      // two boundary keys. Times written in place, the values of the keys copied in one piece.
      std::size_t nkeys = cc.n, inside0 = 0, inside1 = cc.n;
      if (!all) {
        inside0 = static_cast<std::size_t>(std::upper_bound(cc.frames, cc.frames + cc.n, f0) - cc.frames);
        inside1 = static_cast<std::size_t>(std::lower_bound(cc.frames, cc.frames + cc.n, f1) - cc.frames);
        if (inside1 < inside0) inside1 = inside0;
        nkeys = (inside1 - inside0) + (f1 > f0 ? 2 : 1);
      }
      t.times.resize(nkeys);
      t.values.resize(nkeys * nc);
      float* tm = t.times.data();
      float* tv = t.values.data();
      auto put_sample = [&](double frame, double at) {
        const auto v = sample(cc, at);
        *tm++ = static_cast<float>(frame / fps);
        if (nc == 4) std::memcpy(tv, v.data(), 4 * sizeof(float));
        else std::memcpy(tv, v.data(), 3 * sizeof(float));
        tv += nc;
      };
      if (!all) put_sample(0, f0);
      const int base = all ? 0 : f0;
      for (std::size_t k = inside0; k < inside1; ++k) *tm++ = static_cast<float>(static_cast<double>(cc.frames[k] - base) / fps);
      if (inside1 > inside0) std::memcpy(tv, cc.values + inside0 * nc, (inside1 - inside0) * nc * sizeof(float));
      tv += (inside1 - inside0) * nc;
      if (all) max_frame = std::max(max_frame, cc.frames[cc.n - 1]);
      else if (f1 > f0) put_sample(f1 - f0, f1);
      a.tracks.push_back(std::move(t));
    }
  }
  if (dropped)
    ctx.warn(code::w_duplicate_key_time, "animation '" + name + "': " + std::to_string(dropped) +
                                             " keys with a frame number not above the previous key were dropped");
  if (repaired)
    ctx.warn(code::w_suspicious_value, "animation '" + name + "': " + std::to_string(repaired) +
                                            " rotation keys were not unit quaternions and were normalised");
  a.duration = all ? max_frame / fps : (f1 - f0) / fps;
  return a;
}

std::string id_name(std::uint16_t id) {
  switch (id) {
    case 0x00: return "idle";
    case 0x10: return "hit";
    case 0x20: return "block";
    case 0x70: return "attack";
    default: {
      char b[16];
      std::snprintf(b, sizeof b, "id%02X", id);
      return b;
    }
  }
}

}  // namespace

std::string tag_name(std::uint8_t code) {
  switch (code) {
    case 0x09: return "tag_chest";
    case 0x10: return "tag_weapon_base";
    case 0x11: return "tag_weapon_tip";
    case 0x20: return "tag_hand";
    case 0x30: return "tag_weapon";
    default: {
      char b[16];
      std::snprintf(b, sizeof b, "tag_%02X", code);
      return b;
    }
  }
}

decoded_textures decode_textures(const model_raw& m) {
  decoded_textures d;
  const auto& e = m.entries[1];
  byte_reader tr(m.data[1], endian::big, m.base + e.offset);
  d.vram = lzss_decode(tr, m.vram_size);
  const auto& vram = d.vram;
  d.vram_bytes = vram.size();
  d.images.reserve(m.textures.size());
  work_budget budget{2 * static_cast<std::uint64_t>(vram.size()) + 4096};
  for (std::size_t i = 0; i < m.textures.size(); ++i) {
    const auto& t = m.textures[i];
    std::uint64_t start = std::uint64_t{t.cg_address} * 8, bytes = std::uint64_t{t.width} * t.height * 2;
    if (start + bytes > vram.size())
      fail(code::bad_offset, "texture " + std::to_string(i) + " (" + std::to_string(t.width) + "x" + std::to_string(t.height) +
                                 " at VRAM " + hex(start) + ") lies outside the " + std::to_string(vram.size()) +
                                 " decompressed bytes", m.base + m.entries[0].offset + 0x14 + 8 * i);
    budget.spend(bytes, m.base + m.entries[0].offset + 0x14 + 8 * i, "texture definitions");
    d.images.push_back({t.width, t.height, static_cast<std::size_t>(start)});
  }
  return d;
}

void set_root_transform(scene& s) {
  // Saturn/SGL: Y down, Z away from the viewer. 180 degrees about X gives glTF's Y up
  // (a proper rotation, so the polygon winding stays valid). 1/16 makes the ~28-unit
  // figure about 1.75 m tall.
  s.metadata["root_transform"] = {{"rotation", {1.0, 0.0, 0.0, 0.0}}, {"scale", {0.0625, 0.0625, 0.0625}}};
  s.metadata["source_axes"] = "Saturn SGL: X right, Y down, Z forward; 1 unit = 1/16 m (assumed)";
  // The glTF writer folds the uniform 1/16 into the data (bones, keys, meshes): the armature
  // stays at scale 1 in Blender. --units native drops it.
  s.metadata["metres_per_unit"] = 0.0625;
}

// ---- add_model, one step per part of the model ----
namespace {


// Push bones first (index = keyframe slot), then the tags as attachment bones.
// `weapon_bone` = the first tag with a rotation (0x30/0x81), -1 when none.
skeleton build_skeleton(const model_geometry& g, const std::string& name, const read_context& ctx, int& weapon_bone) {
  skeleton sk;
  sk.name = name;
  for (std::size_t i = 0; i < g.skel.parent.size(); ++i) {
    bone b;
    b.name = "bone_" + std::to_string(i);
    b.parent = g.skel.parent[i];
    b.extras = json_object("sf3_bone", i);
    sk.bones.push_back(std::move(b));
  }
  std::map<std::string, int> used;
  weapon_bone = -1;
  for (const auto& t : g.skel.tags) {
    bone b;
    b.name = tag_name(t.code);
    if (int n = ++used[b.name]; n > 1) b.name += "_" + std::to_string(n);
    b.parent = t.parent;
    b.translation = t.position;
    if (t.has_rotation) {
      float len = std::sqrt(t.rotation[0] * t.rotation[0] + t.rotation[1] * t.rotation[1] + t.rotation[2] * t.rotation[2] +
                            t.rotation[3] * t.rotation[3]);
      if (len > 1e-6f && std::isfinite(len)) b.rotation = core::normalize(t.rotation);
      else ctx.warn(code::w_suspicious_value, name + ": " + b.name + " has a zero rotation; identity used");
      b.scale = t.scale;
      if (weapon_bone < 0) weapon_bone = static_cast<int>(sk.bones.size());
    }
    b.extras = json_object("sf3_tag", t.code, "attachment", true);
    for (float v : b.translation) if (!std::isfinite(v)) fail(code::bad_value, name + ": tag position is not finite");
    sk.bones.push_back(std::move(b));
  }
  sk.extras = json_object("sf3_bones", g.skel.parent.size(), "sf3_tags", g.skel.tags.size());
  return sk;
}

void check_mesh_count(const model_geometry& g, const std::string& name, const read_context& ctx) {
  if (g.skel.mesh_bone.size() != g.body.size())
    ctx.warn(code::w_suspicious_value, name + ": skeleton draws " + std::to_string(g.skel.mesh_bone.size()) +
                                           " meshes, the body list has " + std::to_string(g.body.size()));
}

// Where each texture sits in the model's atlas.
struct atlas_layout {
  std::vector<std::array<std::uint64_t, 2>> place;
  std::uint32_t width = 0, height = 0;
};

// Shelf-packs the textures, plus a white block for flat-coloured faces; appends the atlas texture.
atlas_layout add_atlas(scene& s, const model_raw& m, const decoded_textures& tex, const std::string& name) {
  const std::uint32_t atlas_w = 256;
  std::vector<std::size_t> order(tex.images.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](auto a, auto b) { return tex.images[a].height > tex.images[b].height; });
  std::vector<std::array<std::uint64_t, 2>> place(tex.images.size());
  std::uint64_t x = 4, y = 0, shelf = 4;  // the first 4x4 texels are the white block
  std::uint32_t width = atlas_w;
  for (auto i : order) width = std::max(width, tex.images[i].width);
  for (auto i : order) {
    const auto& t = tex.images[i];
    if (x + t.width > width) {
      x = 0;
      y += shelf;
      shelf = 0;
    }
    place[i] = {x, y};
    x += t.width;
    shelf = std::max<std::uint64_t>(shelf, t.height);
  }
  std::uint64_t height64 = std::max<std::uint64_t>(4, y + shelf);
  height64 = (height64 + 3) / 4 * 4;
  if (std::uint64_t{width} * height64 > (16u << 20))
    fail(code::limit_exceeded, name + ": texture atlas would be " + std::to_string(width) + "x" + std::to_string(height64) +
                                   " texels (limit 16M)", m.base + m.entries[0].offset);
  const auto height = static_cast<std::uint32_t>(height64);
  texture atlas;
  atlas.name = name + "_atlas";
  atlas.width = width;
  atlas.height = height;
  // Built row by row in a scratch row appended to the reserved image: zero-filling the whole
  // image first (a byte-wise `rep stosb` in glibc) cost more than converting the texels. A
  // texture covers rows [y, y + height) of its shelf; `order` visits them by nondecreasing y,
  // and the rectangles do not overlap, so each row takes the rows of the active textures.
  const std::size_t row_bytes = std::size_t{width} * 4;
  atlas.rgba.reserve(row_bytes * height);
  std::vector<std::uint8_t, no_init_allocator<std::uint8_t>> row(row_bytes);
  std::vector<std::size_t> active;
  std::size_t next = 0;
  for (std::uint32_t yy = 0; yy < height; ++yy) {
    std::memset(row.data(), 0, row_bytes);
    if (yy < 4) std::memset(row.data(), 255, 16);  // the white block
    while (next < order.size() && place[order[next]][1] <= yy) active.push_back(order[next++]);
    for (std::size_t a = 0; a < active.size();) {
      const std::size_t i = active[a];
      const auto& t = tex.images[i];
      const std::uint64_t r = yy - place[i][1];
      if (r >= t.height) {  // done (or empty): drop it
        active[a] = active.back();
        active.pop_back();
        continue;
      }
      rgb555_pixels(tex.vram.data() + t.start + static_cast<std::size_t>(r) * t.width * 2, t.width,
                    row.data() + static_cast<std::size_t>(place[i][0]) * 4);
      ++a;
    }
    atlas.rgba.insert(atlas.rgba.end(), row.begin(), row.end());
  }
  nlohmann::json rects(nlohmann::json::value_t::array);
  auto& rect_list = rects.get_ref<nlohmann::json::array_t&>();
  rect_list.reserve(tex.images.size());
  for (std::size_t i = 0; i < tex.images.size(); ++i)
    rect_list.push_back(json_array(place[i][0], place[i][1], tex.images[i].width, tex.images[i].height));
  atlas.extras = json_object("sf3_texture_rects", std::move(rects), "vram_size", m.vram_size);
  s.textures.push_back(std::move(atlas));
  return {std::move(place), width, height};
}

// Two unlit materials on the atlas (single- and double-sided); returns the first index.
int add_materials(scene& s, int tex_index, const std::string& name) {
  const int mat_base = static_cast<int>(s.materials.size());
  for (int ds = 0; ds < 2; ++ds) {
    material mt;
    mt.name = name + (ds ? "_double_sided" : "_single_sided");
    mt.texture = tex_index;
    mt.double_sided = ds != 0;
    mt.alpha_mode = material::alpha::mask;  // RGB 0x0000 is the transparent pixel
    mt.unlit = true;                        // VDP1 polygons are pre-lit (Gouraud tables are off)
    s.materials.push_back(mt);
  }
  return mat_base;
}

// What one model's meshes share.
struct mesh_context {
  const std::string& name;
  int skel_index;
  int mat_base;
  const decoded_textures& tex;
  const atlas_layout& atlas;
  const read_context& ctx;
};

// One mesh per sidedness, rigid on `bone`.
void add_part(scene& s, const mesh_context& mc, const xpdata& x, int bone, const std::string& part) {
  const auto& [name, skel_index, mat_base, tex, atlas, ctx] = mc;
  const auto& place = atlas.place;
  const std::uint32_t width = atlas.width, height = atlas.height;
  for (int ds = 0; ds < 2; ++ds) {
    mesh me;
    me.name = name + "_" + part + (ds ? "_ds" : "");
    me.skeleton = bone >= 0 ? skel_index : -1;
    me.bone = bone;
    me.material = mat_base + ds;
    std::size_t flat = 0, textured = 0;
    // At most two triangles (six corners) per face of this sidedness: reserved once instead
    // of growing four arrays corner by corner.
    std::size_t corners = 0;
    for (const auto& f : x.faces) corners += ((f.flag & 1) != 0) == (ds != 0) ? 6 : 0;
    me.positions.reserve(corners);
    me.normals.reserve(corners);
    me.uvs.reserve(corners);
    me.colors.reserve(corners);
    for (const auto& f : x.faces) {
      if (((f.flag & 1) != 0) != (ds != 0)) continue;
      bool is_tex = (f.dir & 0x0F) == 2;
      if (is_tex && f.texno >= tex.images.size()) {
        ctx.warn(code::w_suspicious_value, name + " " + part + ": texture number " + std::to_string(f.texno) +
                                               " of " + std::to_string(tex.images.size()) + "; drawn flat");
        is_tex = false;
      }
      std::array<vec2, 4> uv;
      vec4 colour{1, 1, 1, 1};
      if (is_tex) {
        const auto& t = tex.images[f.texno];
        const auto& p = place[f.texno];
        const std::array<vec2, 4> corner{vec2{0, 0}, vec2{1, 0}, vec2{1, 1}, vec2{0, 1}};
        for (int k = 0; k < 4; ++k) {
          vec2 c = corner[static_cast<std::size_t>(k)];
          if (f.dir & 0x10) c[0] = 1 - c[0];  // horizontal flip
          if (f.dir & 0x20) c[1] = 1 - c[1];  // vertical flip
          // Texel centres of the corner texels, so nearest sampling never bleeds.
          float w = static_cast<float>(std::max<std::uint32_t>(t.width, 1)), h = static_cast<float>(std::max<std::uint32_t>(t.height, 1));
          uv[static_cast<std::size_t>(k)] = {(static_cast<float>(p[0]) + 0.5f + c[0] * (w - 1)) / static_cast<float>(width),
                                             (static_cast<float>(p[1]) + 0.5f + c[1] * (h - 1)) / static_cast<float>(height)};
        }
        ++textured;
      } else {
        uv.fill({2.0f / static_cast<float>(width), 2.0f / static_cast<float>(height)});
        const unsigned p = f.colno;
        colour = {flat_linear(p & 31u), flat_linear((p >> 5) & 31u), flat_linear((p >> 10) & 31u), 1};
        ++flat;
      }
      auto same = [&](int a, int b) { return x.points[f.v[static_cast<std::size_t>(a)]] == x.points[f.v[static_cast<std::size_t>(b)]]; };
      for (const auto& tri : {std::array<int, 3>{0, 1, 2}, std::array<int, 3>{0, 2, 3}}) {
        if (same(tri[0], tri[1]) || same(tri[1], tri[2]) || same(tri[0], tri[2])) continue;  // degenerate: quad is a triangle
        for (int k : tri) {
          auto vi = f.v[static_cast<std::size_t>(k)];
          me.positions.push_back(x.points[vi]);
          vec3 n = x.normals.empty() ? f.normal : x.normals[vi];
          if (!(std::fabs(n[0]) + std::fabs(n[1]) + std::fabs(n[2]) > 1e-6f)) n = f.normal;
          if (!(std::fabs(n[0]) + std::fabs(n[1]) + std::fabs(n[2]) > 1e-6f)) n = {0, -1, 0};
          me.normals.push_back(n);
          me.uvs.push_back(uv[static_cast<std::size_t>(k)]);
          me.colors.push_back(colour);
        }
      }
    }
    for (const auto& p : me.positions)
      if (!core::all_finite(p)) fail(code::bad_value, name + " " + part + ": vertex is not finite");  // inline, per vertex
    if (me.positions.empty()) continue;
    me.extras = json_object("sf3_part", part, "textured_faces", textured, "flat_faces", flat);
    s.meshes.push_back(std::move(me));
  }
}

// Every key as stored, then one clip per animation-table entry.
void add_model_clips(scene& s, const model_raw& m, const model_geometry& g, const std::string& name, int skel_index,
                     double fps, const read_context& ctx, const sibling_animations& an) {
  const skeleton& skr = s.skeletons[static_cast<std::size_t>(skel_index)];
  std::map<const key_table_ref*, table_channels> channels_of;  // made on first use
  auto channels_for = [&](const key_table_ref& k, const std::uint8_t* data) -> const table_channels& {
    auto it = channels_of.find(&k);
    if (it == channels_of.end())
      it = channels_of.emplace(&k, make_table_channels(k, data, std::min(k.bones.size(), skr.bones.size()))).first;
    return it->second;
  };
  s.animations.push_back(make_clip(channels_for(m.anim.key_refs, m.data[3].data()), skr, skel_index, 0, 0, fps, true, ctx, name + "_all_frames"));
  s.animations.back().extras = json_object("sf3_all_frames", true, "sf3_model", name);
  static const std::vector<int> no_groups;
  const std::vector<int>& groups = an.file ? an.layout->groups : no_groups;
  int external_index = 0;
  std::size_t clip_keys = 0;
  const bool scenario1 = m.entries.size() == 4;
  for (std::size_t i = 0; i < m.anim.defs.size(); ++i) {
    const auto& d = m.anim.defs[i];
    int f0 = d.first_frame(), f1 = f0 + std::max<int>(d.count, 1) - 1;
    char base[160];
    std::snprintf(base, sizeof base, "%s_anim%02zu_%s_f%d-%d", name.c_str(), i, id_name(d.id).c_str(), f0, f1);
    std::string nm = base;
    nlohmann::json ev = nlohmann::json::array();
    if (!d.events.empty()) {
      nm += "_ev";
      for (std::size_t k = 0; k < d.events.size(); ++k) {
        if (k) nm += '-';
        nm += std::to_string(d.events[k].code);
      }
    }
    for (const auto& e : d.events) ev.push_back(json_array(e.frame, e.code));
    nlohmann::json ex = json_object("sf3_def", i, "id", d.id, "first_frame", f0, "frame_count", d.count, "distance", d.distance,
                                    "events", std::move(ev), "sf3_model", name);
    const key_table_ref* keys = &m.anim.key_refs;
    const std::uint8_t* key_bytes = m.data[3].data();
    if (d.external()) {
      int k = external_index++;
      if (!scenario1) {
        ctx.warn(code::w_opaque_data, nm + ": keys are in attack-animation chunk " + std::to_string(k) +
                                          " (compressed, format not public); clip skipped");
        continue;
      }
      if (!an.file) {
        ctx.warn(code::w_pairing, nm + ": keys are in the x8an animation file, which was not found; clip skipped");
        continue;
      }
      // The k-th external entry is the k-th segment of the model's x8an group.
      int seen = 0;
      const x8an_segment* seg = nullptr;
      std::size_t seg_index = 0;
      for (std::size_t si = 0; si < an.file->segments.size(); ++si)
        if (groups[si] == an.group && seen++ == k) seg = &an.file->segments[si], seg_index = si;
      if (!seg || seg->key_refs.bones.size() != skr.bones.size() - g.skel.tags.size()) {
        ctx.warn(code::w_pairing, nm + ": no matching segment " + std::to_string(k) + " in group " + std::to_string(an.group) +
                                      " of " + an.name + "; clip skipped");
        continue;
      }
      const auto fr = an.layout->ranges[seg_index];
      if (fr.first > f0 || fr.second < f1)
        ctx.warn(code::w_pairing, nm + ": x8an segment " + std::to_string(seg_index) + " covers frames " +
                                      std::to_string(fr.first) + "-" + std::to_string(fr.second) + ", not the whole clip");
      keys = &seg->key_refs;
      key_bytes = an.file->source.data() + seg->offset;
      ex["source"] = an.name + " segment " + std::to_string(seg_index);
    } else {
      ex["source"] = "x8pc";
    }
    animation a = make_clip(channels_for(*keys, key_bytes), skr, skel_index, f0, f1, fps, false, ctx, nm);
    for (const auto& t : a.tracks) clip_keys += t.times.size();
    if (clip_keys > (4u << 20))
      fail(code::limit_exceeded, name + ": the animation clips would hold more than 4M keys", m.base + m.entries[3].offset);
    a.extras = std::move(ex);
    s.animations.push_back(std::move(a));
  }
}

}  // namespace

void add_model(scene& s, const model_raw& m, const std::string& name, double fps, const read_context& ctx,
               const sibling_animations& an, bool include_clips) {
  model_geometry g = parse_geometry(m);
  decoded_textures tex = decode_textures(m);
  if (tex.vram_bytes != m.vram_size)
    ctx.warn(code::w_suspicious_value, name + ": texture LZSS gave " + std::to_string(tex.vram_bytes) +
                                           " bytes, vram_size says " + std::to_string(m.vram_size),
             m.base + m.entries[1].offset);

  const int skel_index = static_cast<int>(s.skeletons.size());
  int weapon_bone = -1;
  skeleton sk = build_skeleton(g, name, ctx, weapon_bone);
  check_mesh_count(g, name, ctx);

  const int tex_index = static_cast<int>(s.textures.size());
  const atlas_layout atlas = add_atlas(s, m, tex, name);
  const int mat_base = add_materials(s, tex_index, name);

  const mesh_context mc{name, skel_index, mat_base, tex, atlas, ctx};
  for (std::size_t i = 0; i < g.body.size(); ++i) {
    int bone = i < g.skel.mesh_bone.size() ? g.skel.mesh_bone[i] : -1;
    char part[32];
    std::snprintf(part, sizeof part, "body%02zu", i);
    add_part(s, mc, g.body[i], bone, part);
  }
  if (g.weapon) {
    if (weapon_bone < 0)
      ctx.warn(code::w_fallback, name + ": weapon mesh without a 0x30 weapon tag; left at the model origin");
    add_part(s, mc, *g.weapon, weapon_bone, "weapon");
  }
  s.skeletons.push_back(std::move(sk));

  if (m.anim.key_refs.bones.size() != g.skel.parent.size())
    ctx.warn(code::w_suspicious_value, name + ": keyframe table has " + std::to_string(m.anim.key_refs.bones.size()) +
                                           " bones, the skeleton " + std::to_string(g.skel.parent.size()));
  if (!include_clips) return;
  add_model_clips(s, m, g, name, skel_index, fps, ctx, an);
}

void add_x8an_animations(scene& s, int skel, const x8an_file& f, const x8an_layout& layout, int group, double fps,
                         const read_context& ctx, const std::string& prefix) {
  const auto& groups = layout.groups;
  const skeleton& sk = s.skeletons[static_cast<std::size_t>(skel)];
  std::size_t push_bones = 0;
  for (const auto& b : sk.bones)
    if (b.extras.contains("sf3_bone")) ++push_bones;
  std::size_t added = 0;
  for (std::size_t i = 0; i < f.segments.size(); ++i) {
    if (groups[i] != group) continue;
    const auto& seg = f.segments[i];
    if (seg.key_refs.bones.size() != push_bones) {
      ctx.warn(code::w_name_mismatch, "segment " + std::to_string(i) + " has " + std::to_string(seg.key_refs.bones.size()) +
                                          " bones, the model " + std::to_string(push_bones) + "; skipped", seg.offset);
      continue;
    }
    const auto fr = layout.ranges[i];
    if (fr.first < 0) continue;
    char nm[96];
    std::snprintf(nm, sizeof nm, "%sseg%02zu_f%d-%d", prefix.c_str(), i, fr.first, fr.second);
    animation a = make_clip(make_table_channels(seg.key_refs, f.source.data() + seg.offset, std::min(seg.key_refs.bones.size(), sk.bones.size())), sk, skel, fr.first,
                            fr.second, fps, false, ctx, nm);
    a.extras = json_object("x8an_segment", i, "group", group, "first_frame", fr.first, "offset", seg.offset);
    s.animations.push_back(std::move(a));
    ++added;
  }
  if (!added)
    ctx.warn(code::w_pairing, "no x8an segment of group " + std::to_string(group) + " matches the model's " +
                                  std::to_string(push_bones) + " bones");
}

// ---------------------------------------------------------------- file readers
namespace {

double fps_of(const read_context& ctx) {
  double f = ctx.options.fps.value_or(30.0);  // battle scenes: 30 fps assumed (unconfirmed)
  return f > 0 && f < 1000 ? f : 30.0;
}

// Loads a sibling trying the name as written, upper case and lower case.
std::optional<bytes> load_sibling(const read_context& ctx, const std::string& dir, const std::string& name,
                                  std::string* found) {
  if (!ctx.load) return std::nullopt;
  std::string up = upper(name), lo = lower(name);
  for (const auto& n : {name, up, lo}) {
    std::string p = dir + n;
    std::error_code ec;
    if (!std::filesystem::is_regular_file(p, ec)) continue;
    auto r = ctx.load(p);
    if (r) {
      if (found) *found = p;
      return std::move(r.value());
    }
  }
  return std::nullopt;
}

// Container models share one origin; the glTF writer places each skeleton's holder node at
// extras.display_offset, so they stand side by side along X (bones keep their identity rest).
void line_up(scene& s) {
  std::vector<std::array<float, 2>> span(s.skeletons.size(), {1e30f, -1e30f});
  std::vector<std::vector<core::mat4>> world;
  for (const auto& sk : s.skeletons) world.push_back(scene_ops::world_matrices(sk));
  for (const auto& m : s.meshes) {
    if (m.skeleton < 0) continue;
    const auto& w = world[static_cast<std::size_t>(m.skeleton)][static_cast<std::size_t>(m.bone)];
    auto& sp = span[static_cast<std::size_t>(m.skeleton)];
    for (const auto& p : m.positions) {
      float x = w[0] * p[0] + w[4] * p[1] + w[8] * p[2] + w[12];
      sp[0] = std::min(sp[0], x);
      sp[1] = std::max(sp[1], x);
    }
  }
  float cursor = 0;
  for (std::size_t i = 0; i < s.skeletons.size(); ++i) {
    auto sp = span[i];
    if (sp[0] > sp[1]) sp = {0, 0};
    float dx = i == 0 ? 0 : cursor - sp[0];
    if (i == 0) cursor = sp[1];
    else cursor = sp[1] + dx;
    cursor += 4;  // a small gap (source units)
    s.skeletons[i].extras["display_offset"] = {dx, 0.0, 0.0};
  }
}

// Scenario 1 keeps some clips in X8ANnn.BIN; model X8PCnnL is group L ('a' = 0). Fills `an`
// and returns the pairing when the model wants external clips and the sibling reads.
sibling_animations pair_x8an(const read_context& ctx, const x8pc_file& f, const std::string& st, bytes& an_bytes,
                             x8an_file& an, x8an_layout& layout) {
  sibling_animations sib;
  bool wants_an = false;
  for (const auto& m : f.models)
    if (m.entries.size() == 4)
      for (const auto& d : m.anim.defs) wants_an |= d.external();
  const std::string ust = upper(st);
  if (!(wants_an && f.models.size() == 1 && ust.size() == 7 && ust.starts_with("X8PC") &&
        std::isalpha(static_cast<unsigned char>(ust[6]))))
    return sib;
  std::string found;
  auto b = load_sibling(ctx, dir_of(ctx.path), "X8AN" + ust.substr(4, 2) + ".BIN", &found);
  if (!b) return sib;
  an_bytes = std::move(*b);  // the keys are read from these bytes: kept by the caller
  auto parsed = core::guarded(found, "sf3-x8an", [&]() -> x8an_file { return parse_x8an(an_bytes, false); });
  if (parsed) {
    an = std::move(parsed.value());
    layout = x8an_index(an);
    sib.file = &an;
    sib.layout = &layout;
    sib.group = ust[6] - 'A';
    sib.name = base_name(found);
  } else {
    ctx.warn(code::w_pairing, "sibling " + found + " could not be read: " + parsed.error().message);
  }
  return sib;
}

// The model an x8an file animates: --skeleton, else X8PCnnA.BIN next to it.
struct x8an_model {
  bytes data;
  std::string path;
};
x8an_model load_x8an_model(const read_context& ctx, const std::string& ust) {
  std::optional<bytes> model;
  std::string model_path;
  if (ctx.options.skeleton_path) {
    if (!ctx.load) fail(code::missing_skeleton, "--skeleton given but no file system is available");
    auto r = ctx.load(*ctx.options.skeleton_path);
    if (!r) fail(code::missing_skeleton, "--skeleton " + *ctx.options.skeleton_path + ": " + r.error().message);
    model = std::move(r.value());
    model_path = *ctx.options.skeleton_path;
  } else if (ust.size() >= 6 && ust.starts_with("X8AN")) {
    model = load_sibling(ctx, dir_of(ctx.path), "X8PC" + ust.substr(4, 2) + "A.BIN", &model_path);
  }
  if (!model)
    fail(code::missing_skeleton, "x8an animations need their model: " +
                                     (ust.size() >= 6 ? "X8PC" + ust.substr(4, 2) + "A.BIN" : std::string("X8PCnnA.BIN")) +
                                     " was not found next to the file; pass --skeleton X8PCnnL.BIN");
  return {std::move(*model), model_path};
}

}  // namespace

scene read_x8pc_scene(const read_context& ctx) {
  x8pc_file f = parse_x8pc(ctx.data, false);
  scene s;
  s.format = "sf3-x8pc";
  const std::string st = stem(ctx.path.empty() ? std::string("model") : ctx.path);
  const double fps = fps_of(ctx);
  bytes an_bytes;
  x8an_file an;
  x8an_layout layout;
  const sibling_animations sib = pair_x8an(ctx, f, st, an_bytes, an, layout);
  for (std::size_t i = 0; i < f.models.size(); ++i) {
    const auto& m = f.models[i];
    std::string name = f.models.size() == 1 ? st : st + "_" + std::to_string(i);
    for (std::size_t c = 4; c < m.entries.size(); ++c)
      ctx.warn(code::w_opaque_data, name + ": chunk " + std::to_string(c) + " (attack animation, " +
                                        std::to_string(m.entries[c].data_size) +
                                        " bytes, compression not public) kept as opaque bytes",
               m.base + m.entries[c].offset);
    add_model(s, m, name, fps, ctx, sib, true);
  }
  if (s.skeletons.size() > 1) line_up(s);
  s.metadata["sf3"] = {{"models", f.models.size()}, {"slot_size", f.stride}, {"fps_assumed", fps}};
  set_root_transform(s);
  return s;
}

scene read_x8an_scene(const read_context& ctx) {
  x8an_file an = parse_x8an(ctx.data, false);
  const std::string st = stem(ctx.path.empty() ? std::string("x8an") : ctx.path);
  const x8an_model model = load_x8an_model(ctx, upper(st));
  x8pc_file pc = parse_x8pc(model.data, false);
  const std::string mst = upper(stem(model.path));
  int group = 0;
  if (mst.size() == 7 && std::isalpha(static_cast<unsigned char>(mst[6]))) group = mst[6] - 'A';
  else ctx.warn(code::w_fallback, "model name " + mst + " has no variant letter; x8an group 0 used");
  scene s;
  s.format = "sf3-x8an";
  const double fps = fps_of(ctx);
  add_model(s, pc.models[0], stem(model.path), fps, ctx, {}, false);
  const x8an_layout layout = x8an_index(an);
  add_x8an_animations(s, 0, an, layout, group, fps, ctx, st + "_");
  const auto& groups = layout.groups;
  s.metadata["sf3"] = {{"segments", an.segments.size()}, {"groups", groups.empty() ? 0 : groups.back() + 1},
                       {"group", group}, {"model", base_name(model.path)}, {"fps_assumed", fps}};
  set_root_transform(s);
  return s;
}

}  // namespace rigrip::sf3
