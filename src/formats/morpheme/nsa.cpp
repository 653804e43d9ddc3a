// NSA raw layer, decoder and encoder. Layout and maths: README.md in this folder.
#include "formats/morpheme/nsa.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "core/math.hpp"
#include "formats/morpheme/rotation_run.hpp"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#endif

namespace rigrip::morpheme {

using core::byte_reader;
using core::fail;
using hexs = core::byte_reader;

namespace {

constexpr std::uint32_t max_channels = 65536;  // channel indices are u16

std::uint32_t align4(std::uint32_t n) { return (n + 3u) & ~3u; }

// Little-endian words from bytes already bounds-checked by the caller.
std::uint16_t le16(const std::uint8_t* b) { return static_cast<std::uint16_t>(b[0] | (b[1] << 8)); }
std::uint32_t le32p(const std::uint8_t* b) {
  return static_cast<std::uint32_t>(b[0]) | (static_cast<std::uint32_t>(b[1]) << 8) |
         (static_cast<std::uint32_t>(b[2]) << 16) | (static_cast<std::uint32_t>(b[3]) << 24);
}

factors read_factors(byte_reader& r) {
  factors f;
  for (auto& v : f.min) v = r.f32();
  for (auto& v : f.extent) v = r.f32();
  return f;
}
factors read_factors_at(const byte_reader& r, std::uint64_t at) {
  auto p = r.peek(at);
  return read_factors(p);
}

// Pointer sanity: relative to `r`'s start, inside it, and (when elem bytes are given)
// the whole block fits.
void check_block(const byte_reader& r, std::uint64_t ptr, std::uint64_t count, std::uint64_t elem,
                 const char* what) {
  if (ptr > r.size())
    fail(code::bad_offset, std::string(what) + " pointer " + hexs::hex(ptr) + " is outside its " +
                               std::to_string(r.size()) + "-byte block", r.base());
  r.checked_count_at(ptr, count, elem, what);
}

std::vector<std::uint16_t> read_index_array(const byte_reader& r, std::uint64_t ptr, const char* what) {
  check_block(r, ptr, 1, 2, what);
  auto p = r.peek(ptr);
  std::uint16_t n = p.u16();
  p.checked_count(n, 2, what);
  std::vector<std::uint16_t> v(n);
  for (auto& x : v) x = p.u16();
  return v;
}

std::vector<factors> read_factor_array(const byte_reader& r, std::uint64_t ptr, std::uint32_t count,
                                       const char* what) {
  if (count == 0) return {};
  if (ptr == 0) fail(code::bad_offset, std::string(what) + ": " + std::to_string(count) + " sets but a null pointer", r.base() + 0x78);
  check_block(r, ptr, count, 24, what);
  auto p = r.peek(ptr);
  std::vector<factors> v(count);
  for (auto& f : v) f = read_factors(p);
  return v;
}

std::vector<u16x3> read_u16x3(const byte_reader& seg, std::uint64_t ptr, std::uint64_t count,
                              std::uint64_t row_stride, std::uint64_t rows, const char* what) {
  std::vector<u16x3> v;
  if (count == 0 || rows == 0) return v;
  if (ptr == 0) fail(code::bad_offset, std::string(what) + ": " + std::to_string(count) + " channels but a null data pointer", seg.base());
  if (count > max_channels || row_stride < 6 * count) fail(code::bad_count, std::string(what) + ": rows too short for their channels", seg.base());
  check_block(seg, ptr, rows, row_stride, what);
  v.resize(static_cast<std::size_t>(count * rows));
  if (seg.byte_order() == core::endian::little) {
    // check_block covered all rows: read the words straight from the bytes.
    const std::uint8_t* base = seg.data().data() + ptr;
    for (std::uint64_t s = 0; s < rows; ++s) {
      const std::uint8_t* b = base + s * row_stride;
      u16x3* out = v.data() + s * count;
      for (std::uint64_t c = 0; c < count; ++c, b += 6)
        for (int k = 0; k < 3; ++k) out[c][static_cast<std::size_t>(k)] = le16(b + 2 * k);
    }
    return v;
  }
  for (std::uint64_t s = 0; s < rows; ++s) {
    auto p = seg.peek(ptr + s * row_stride);
    for (std::uint64_t c = 0; c < count; ++c)
      for (auto& x : v[static_cast<std::size_t>(s * count + c)]) x = p.u16();
  }
  return v;
}

std::vector<deq_info> read_info(const byte_reader& seg, std::uint64_t ptr, std::uint32_t count, const char* what) {
  std::vector<deq_info> v;
  if (count == 0) return v;
  if (ptr == 0) fail(code::bad_offset, std::string(what) + ": null DequantizationInfo pointer", seg.base());
  std::uint32_t n = align4(count);
  check_block(seg, ptr, n, 6, what);
  auto p = seg.peek(ptr);
  v.resize(n);
  for (auto& d : v) {
    for (auto& b : d.init) b = p.u8();
    for (auto& b : d.index) b = p.u8();
  }
  return v;
}

// One static layout candidate: returns false when its pointers do not check out.
bool try_static_layout(const byte_reader& seg, nsa_static& st, bool compact) {
  std::uint64_t off = 0x0C;
  factors tf, rf, sf;
  auto take = [&](factors& f, bool present) {
    if (!present) return;
    if (off + 24 > seg.size()) return;
    f = read_factors_at(seg, off);
    off += 24;
  };
  take(tf, compact ? st.translation_count > 0 : true);
  take(rf, compact ? st.rotation_count > 0 : true);
  take(sf, st.scale_count > 0);
  std::uint64_t ptrs_at = off + 12;
  if (ptrs_at + 24 > seg.size()) return false;
  std::uint64_t unknown = seg.u64_at(off + 4);
  std::array<std::uint64_t, 3> ptr{seg.u64_at(ptrs_at), seg.u64_at(ptrs_at + 8), seg.u64_at(ptrs_at + 16)};
  std::array<std::uint32_t, 3> cnt{st.translation_count, st.rotation_count, st.scale_count};
  for (int i = 0; i < 3; ++i) {
    if (cnt[i] == 0) {
      if (ptr[i] != 0 && ptr[i] > seg.size()) return false;
      continue;
    }
    if (ptr[i] < ptrs_at + 24 || ptr[i] > seg.size()) return false;
    if (static_cast<std::uint64_t>(cnt[i]) * 6 > seg.size() - ptr[i]) return false;
  }
  st.translation_factors = tf;
  st.rotation_factors = rf;
  st.scale_factors = sf;
  st.unknown = unknown;
  st.layout = compact ? "compact" : "fixed";
  st.translations = read_u16x3(seg, ptr[0], cnt[0], 6ull * cnt[0], 1, "static translations");
  st.rotations = read_u16x3(seg, ptr[1], cnt[1], 6ull * cnt[1], 1, "static rotations");
  st.scales = read_u16x3(seg, ptr[2], cnt[2], 6ull * cnt[2], 1, "static scales");
  return true;
}

nsa_static parse_static(const byte_reader& seg) {
  nsa_static st;
  auto h = seg.peek(0);
  st.translation_count = h.u32();
  st.rotation_count = h.u32();
  st.scale_count = h.u32();
  for (auto n : {st.translation_count, st.rotation_count, st.scale_count})
    if (n > max_channels)
      fail(code::bad_count, "static segment channel count " + std::to_string(n) + " exceeds the u16 channel range 65536",
           seg.base());
  // The fixed runtime struct is preferred (§16.4); the compact reading is the fallback.
  if (try_static_layout(seg, st, false)) return st;
  if (try_static_layout(seg, st, true)) return st;
  fail(code::bad_offset,
       "static segment: counts T" + std::to_string(st.translation_count) + " R" + std::to_string(st.rotation_count) +
           " S" + std::to_string(st.scale_count) +
           ": the data pointers fit neither the fixed layout (pointers at 0x48) nor the compact one",
       seg.base());
}

nsa_dynamic parse_dynamic(const byte_reader& seg) {
  nsa_dynamic d;
  auto h = seg.peek(0);
  d.sample_count = h.u32();
  d.translation_count = h.u32();
  d.rotation_count = h.u32();
  d.scale_count = h.u32();
  std::array<std::uint64_t, 6> p{};
  for (auto& x : p) x = h.u64();
  d.has_scale = d.scale_count > 0;
  // Channel indices are u16, so no segment can hold more channels; this also keeps every
  // size computation below far from overflow.
  for (auto [n, what] : {std::pair{d.translation_count, "translation"}, std::pair{d.rotation_count, "rotation"},
                         std::pair{d.scale_count, "scale"}})
    if (n > max_channels)
      fail(code::bad_count, std::string("dynamic ") + what + " channel count " + std::to_string(n) +
                                " exceeds the u16 channel range 65536", seg.base());
  std::uint64_t S = d.sample_count;
  if (d.translation_count) {
    if (p[0] == 0) fail(code::bad_offset, "dynamic translations: null data pointer", seg.base() + 0x10);
    check_block(seg, p[0], S * d.translation_count, 4, "dynamic translation samples");
    d.translations.resize(static_cast<std::size_t>(S * d.translation_count));
    if (seg.byte_order() == core::endian::little) {
      const std::uint8_t* b = seg.data().data() + p[0];  // range checked just above
      for (std::size_t i = 0; i < d.translations.size(); ++i) d.translations[i] = le32p(b + 4 * i);
    } else {
      auto r = seg.peek(p[0]);
      for (auto& w : d.translations) w = r.u32();
    }
    d.translation_info = read_info(seg, p[1], d.translation_count, "dynamic translation info");
  }
  if (d.rotation_count) {
    d.rotation_row_stride = align4(6 * d.rotation_count);
    // Row stride check (§7.3/§16.1): the rows must not run into the info array behind them.
    // Padded rows are the documented reading; unpadded 6R-byte rows are accepted (with a
    // note the reader turns into a warning) only when the padded ones cannot fit but those do.
    if (p[3] > p[2] && p[3] - p[2] < S * d.rotation_row_stride && p[3] - p[2] >= S * 6ull * d.rotation_count &&
        d.rotation_row_stride != 6 * d.rotation_count) {
      d.rotation_row_stride = 6 * d.rotation_count;
      d.note = "rotation rows read unpadded (" + std::to_string(d.rotation_row_stride) +
               " bytes): the gap to the info array is too small for 4-byte-aligned rows";
    }
    d.rotations = read_u16x3(seg, p[2], d.rotation_count, d.rotation_row_stride, S, "dynamic rotation rows");
    d.rotation_info = read_info(seg, p[3], d.rotation_count, "dynamic rotation info");
    if (p[3] > p[2] && p[3] - p[2] < S * d.rotation_row_stride)
      fail(code::bad_offset,
           "dynamic rotation rows: " + std::to_string(S) + " rows of " + std::to_string(d.rotation_row_stride) +
               " bytes overlap the DequantizationInfo array " + std::to_string(p[3] - p[2]) + " bytes behind",
           seg.base() + p[2]);
  }
  return d;
}

nsa_trajectory parse_trajectory(const byte_reader& seg) {
  nsa_trajectory t;
  auto h = seg.peek(0);
  t.version = h.u32();
  for (auto& u : t.unknown) u = h.u32();
  t.data_length = h.u32();
  t.alignment = h.u32();
  t.sample_rate = h.f32();
  t.sample_count = h.u32();
  t.translation_factors = read_factors(h);
  auto block = h.peek(0x38);
  std::uint64_t tp = seg.u64_at(0x50), rp = seg.u64_at(0x58);
  t.constant_rotation = rp == 0;
  t.union_tests_agree = (seg.u64_at(0x48) != 0) == !t.constant_rotation;
  if (t.constant_rotation) {
    for (auto& v : t.rotation) v = block.f32();
  } else {
    t.rotation_factors = read_factors(block);
  }
  if (!std::isfinite(t.sample_rate) || t.sample_rate < 0)
    fail(code::bad_value, "trajectory sample rate is not a finite non-negative number", seg.base() + 0x18);
  std::uint64_t S = t.sample_count;
  if (tp) {
    t.has_translation = true;
    check_block(seg, tp, S, 4, "trajectory translation samples");
    t.translations.resize(static_cast<std::size_t>(S));
    auto r = seg.peek(tp);
    for (auto& w : t.translations) w = r.u32();
  }
  if (rp) t.rotations = read_u16x3(seg, rp, 1, 6, S, "trajectory rotation samples");
  return t;
}

// CRC-32 (reflected, polynomial 0xEDB88320) by slicing-by-8: t[0] is the usual byte table,
// t[k][i] the CRC of byte i followed by k zero bytes, so eight input bytes fold in with
// eight lookups instead of eight dependent table steps. The tables are built once.
using crc_tables = std::array<std::array<std::uint32_t, 256>, 8>;
const crc_tables& crc_table() {
  static const auto table = [] {
    crc_tables t{};
    for (std::uint32_t i = 0; i < 256; ++i) {
      std::uint32_t c = i;
      for (int k = 0; k < 8; ++k) c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
      t[0][i] = c;
    }
    for (std::size_t k = 1; k < 8; ++k)
      for (std::size_t i = 0; i < 256; ++i) t[k][i] = (t[k - 1][i] >> 8) ^ t[0][t[k - 1][i] & 0xFF];
    return t;
  }();
  return table;
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define RIGRIP_CRC_CLMUL 1
// The same CRC by carry-less multiplication (the folding method of Intel's white paper "Fast
// CRC Computation for Generic Polynomials Using PCLMULQDQ", reflected form): a 128-bit
// remainder is folded over each next 16 bytes with x^(128+64) and x^128 mod P, then reduced
// to 32 bits by x^64 mod P and a Barrett step. Needs n >= 16; consumes whole 16-byte blocks
// and leaves the rest to the table loop. `c` is the running (pre-inverted) register.
__attribute__((target("pclmul,sse2"))) std::uint32_t crc32_clmul(std::uint32_t c, const std::uint8_t*& p,
                                                                 std::size_t& n) {
  const __m128i fold = _mm_set_epi64x(0x0ccaa009eLL, 0x1751997d0LL);      // hi: x^(128-32), lo: x^(128+32) mod P
  const __m128i k64 = _mm_set_epi64x(0, 0x163cd6124LL);                   // x^64 mod P
  const __m128i barrett = _mm_set_epi64x(0x1f7011641LL, 0x1db710641LL);  // hi: floor(x^64 / P), lo: P
  const __m128i low32 = _mm_setr_epi32(-1, 0, 0, 0);
  __m128i x = _mm_xor_si128(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)),
                            _mm_cvtsi32_si128(static_cast<int>(c)));
  p += 16;
  n -= 16;
  for (; n >= 16; p += 16, n -= 16)
    x = _mm_xor_si128(_mm_xor_si128(_mm_clmulepi64_si128(x, fold, 0x00), _mm_clmulepi64_si128(x, fold, 0x11)),
                      _mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
  x = _mm_xor_si128(_mm_clmulepi64_si128(x, fold, 0x10), _mm_srli_si128(x, 8));  // 128 -> 64 bits
  x = _mm_xor_si128(_mm_srli_si128(x, 4), _mm_clmulepi64_si128(_mm_and_si128(x, low32), k64, 0x00));  // -> 32 + 32
  __m128i t = _mm_and_si128(_mm_clmulepi64_si128(_mm_and_si128(x, low32), barrett, 0x10), low32);
  x = _mm_xor_si128(x, _mm_clmulepi64_si128(t, barrett, 0x00));
  return static_cast<std::uint32_t>(_mm_cvtsi128_si32(_mm_srli_si128(x, 4)));
}

bool have_clmul() {
  static const bool yes = __builtin_cpu_supports("pclmul") && __builtin_cpu_supports("sse2");
  return yes;
}
#endif

}  // namespace

std::uint32_t crc32(std::span<const std::uint8_t> data) {
  const auto& t = crc_table();
  std::uint32_t c = 0xFFFFFFFFu;
  const std::uint8_t* p = data.data();
  std::size_t n = data.size();
#ifdef RIGRIP_CRC_CLMUL
  if (n >= 64 && have_clmul()) c = crc32_clmul(c, p, n);  // whole 16-byte blocks; the tail below
#endif
  for (; n >= 8; n -= 8, p += 8) {
    // Bytes are assembled explicitly (little-endian order), so the result is host-independent.
    const std::uint32_t lo = c ^ (std::uint32_t(p[0]) | std::uint32_t(p[1]) << 8 | std::uint32_t(p[2]) << 16 |
                                  std::uint32_t(p[3]) << 24);
    const std::uint32_t hi = std::uint32_t(p[4]) | std::uint32_t(p[5]) << 8 | std::uint32_t(p[6]) << 16 |
                             std::uint32_t(p[7]) << 24;
    c = t[7][lo & 0xFF] ^ t[6][(lo >> 8) & 0xFF] ^ t[5][(lo >> 16) & 0xFF] ^ t[4][lo >> 24] ^
        t[3][hi & 0xFF] ^ t[2][(hi >> 8) & 0xFF] ^ t[1][(hi >> 16) & 0xFF] ^ t[0][hi >> 24];
  }
  for (; n > 0; --n, ++p) c = t[0][(c ^ *p) & 0xFF] ^ (c >> 8);
  return c ^ 0xFFFFFFFFu;
}

nsa_file parse_nsa(const byte_reader& r) {
  nsa_file f;
  if (r.size() < nsa_header_size)
    fail(code::truncated, "NSA header needs " + std::to_string(nsa_header_size) + " bytes, the payload has " +
                              std::to_string(r.size()), r.base());
  auto h = r.peek(0);
  h.set_byte_order(core::endian::big);
  f.crc = h.u32();
  h.set_byte_order(core::endian::little);
  f.version = h.u32();
  h.skip(8);
  f.static_length = h.u32();
  f.alignment = h.u32();
  f.duration = h.f32();
  f.sample_rate = h.f32();
  f.total_bones = h.u32();
  f.total_animated_bones = h.u32();
  if (!std::isfinite(f.duration) || f.duration < 0)
    fail(code::bad_value, "NSA duration is not a finite non-negative number", r.base() + 0x18);
  if (!std::isfinite(f.sample_rate) || f.sample_rate < 0)
    fail(code::bad_value, "NSA sample rate is not a finite non-negative number", r.base() + 0x1C);
  if (f.total_bones > max_channels)
    fail(code::bad_count, "NSA channel count " + std::to_string(f.total_bones) + " exceeds the u16 index range 65536",
         r.base() + 0x20);
  static const char* names[6] = {"static translation indices", "static rotation indices", "static scale indices",
                                 "dynamic translation indices", "dynamic rotation indices", "dynamic scale indices"};
  for (int i = 0; i < 6; ++i) {
    std::uint64_t p = h.u64();
    if (p) f.indices[static_cast<std::size_t>(i)] = read_index_array(r, p, names[i]);
  }
  f.translation_init_factors = read_factors(h);
  h.skip(8);
  std::uint32_t tc = h.u32(), rc = h.u32(), sc = h.u32();
  h.skip(4);
  std::uint64_t tfp = h.u64(), rfp = h.u64(), sfp = h.u64();
  f.translation_factors = read_factor_array(r, tfp, tc, "translation factor sets");
  f.rotation_factors = read_factor_array(r, rfp, rc, "rotation factor sets");
  f.scale_factors = read_factor_array(r, sfp, sc, "scale factor sets");
  std::uint64_t sp = h.u64(), dp = h.u64(), ep = h.u64();
  auto seg = [&](std::uint64_t p, std::uint64_t header, const char* what) {
    if (p > r.size() || r.size() - p < header)
      fail(code::bad_offset, std::string(what) + " at " + hexs::hex(p) + " needs " + std::to_string(header) +
                                 " header bytes inside the " + std::to_string(r.size()) + "-byte NSA", r.base() + 0xA0);
    return r.sub(p, r.size() - p);
  };
  if (sp) f.static_segment = parse_static(seg(sp, 0x0C, "static segment"));
  if (dp) f.dynamic_segment = parse_dynamic(seg(dp, 0x40, "dynamic segment"));
  if (ep) f.trajectory = parse_trajectory(seg(ep, 0x60, "trajectory segment"));

  // Counts in the segments must agree with the index arrays, or samples go to the wrong channels.
  auto agree = [&](int idx, std::uint32_t count, const char* what, std::uint64_t at) {
    std::size_t n = f.indices[static_cast<std::size_t>(idx)] ? f.indices[static_cast<std::size_t>(idx)]->size() : 0;
    if (n != count)
      fail(code::bad_count, std::string(what) + ": segment count " + std::to_string(count) +
                                " but the channel index array holds " + std::to_string(n), at);
  };
  if (f.static_segment) {
    agree(0, f.static_segment->translation_count, "static translations", r.base() + sp);
    agree(1, f.static_segment->rotation_count, "static rotations", r.base() + sp + 4);
  }
  if (f.dynamic_segment) {
    agree(3, f.dynamic_segment->translation_count, "dynamic translations", r.base() + dp + 4);
    agree(4, f.dynamic_segment->rotation_count, "dynamic rotations", r.base() + dp + 8);
    auto check_idx = [&](const std::vector<deq_info>& info, std::size_t sets, const char* what) {
      for (std::size_t j = 0; j < info.size(); ++j)
        for (int c = 0; c < 3; ++c)
          if (info[j].index[static_cast<std::size_t>(c)] >= sets)
            fail(code::bad_value, std::string(what) + " entry " + std::to_string(j) + " axis " + "xyz"[c] +
                                      " uses factor set " + std::to_string(info[j].index[static_cast<std::size_t>(c)]) +
                                      " of " + std::to_string(sets), r.base() + dp);
    };
    check_idx(f.dynamic_segment->translation_info, f.translation_factors.size(), "translation DequantizationInfo");
    check_idx(f.dynamic_segment->rotation_info, f.rotation_factors.size(), "rotation DequantizationInfo");
  }
  f.computed_crc = crc32(r.data().subspan(4));
  return f;
}

// ------------------------------------------------------------------ maths

quat mrp_to_quat(const std::array<float, 3>& v) { return mrp_quat_inline(v); }

std::array<float, 3> quat_to_mrp(quat q) {
  q = core::normalize(q);
  if (q[3] < 0) q = {-q[0], -q[1], -q[2], -q[3]};
  float d = 1.0f + q[3];
  return {q[0] / d, q[1] / d, q[2] / d};
}

std::array<std::uint32_t, 3> unpack_111110(std::uint32_t w) {
  return {w >> 21, (w >> 10) & 0x7FFu, w & 0x3FFu};
}
std::uint32_t pack_111110(std::uint32_t x, std::uint32_t y, std::uint32_t z) {
  return ((x & 0x7FFu) << 21) | ((y & 0x7FFu) << 10) | (z & 0x3FFu);
}

namespace {
float deq(const factors& f, int c, float q) { return f.extent[static_cast<std::size_t>(c)] * q + f.min[static_cast<std::size_t>(c)]; }
}  // namespace

static void decode_nsa_trajectory(const nsa_file& f, nsa_decoded& d);

void fill_dynamic_translation(const nsa_file& f, std::uint32_t j, float* out) {
  const auto& dy = *f.dynamic_segment;
  const auto& info = dy.translation_info[j];
  vec3 init;
  for (int c = 0; c < 3; ++c) init[static_cast<std::size_t>(c)] = deq(f.translation_init_factors, c, info.init[static_cast<std::size_t>(c)]);
  // Per-axis factors in locals: the stores to `out` (floats) could otherwise alias
  // them and force a reload each sample. Same expression, same floats.
  float ext[3], lo[3];
  for (std::size_t c = 0; c < 3; ++c) {
    const auto& set = f.translation_factors[info.index[c]];
    ext[c] = set.extent[c];
    lo[c] = set.min[c];
  }
  decode_translation_run(dy.translations.data() + j, dy.translation_count, dy.sample_count, ext, lo, init, out);
}

void fill_dynamic_rotation(const nsa_file& f, std::uint32_t j, float* out, bool continuous) {
  const auto& dy = *f.dynamic_segment;
  const auto& info = dy.rotation_info[j];
  std::array<float, 3> iv;
  for (int c = 0; c < 3; ++c) iv[static_cast<std::size_t>(c)] = info.init[static_cast<std::size_t>(c)] / 128.0f - 1.0f;
  quat init = mrp_to_quat(iv);
  float ext[3], lo[3];  // hoisted as for translations
  for (std::size_t c = 0; c < 3; ++c) {
    const auto& set = f.rotation_factors[info.index[c]];
    ext[c] = set.extent[c];
    lo[c] = set.min[c];
  }
  // init (x) delta, four samples at a time (same floats as one at a time)
  const std::uint32_t R = dy.rotation_count, S = dy.sample_count;
  if (continuous)
    decode_rotation_run<true>(dy.rotations.data() + j, R, S, ext, lo, init, out);
  else
    decode_rotation_run<false>(dy.rotations.data() + j, R, S, ext, lo, init, out);
}

nsa_plan plan_nsa(const nsa_file& f, bool defer) {
  nsa_plan p;
  nsa_decoded& d = p.d;
  d.duration = f.duration;
  d.sample_rate = f.sample_rate;
  std::uint32_t n = f.total_bones;
  for (const auto& ix : f.indices)
    if (ix)
      for (auto c : *ix) n = std::max<std::uint32_t>(n, c + 1u);
  d.channels.resize(n);
  const auto& idx = f.indices;
  if (f.static_segment) {
    const auto& st = *f.static_segment;
    for (std::size_t i = 0; i < st.translations.size(); ++i) {
      vec3 t;
      for (int c = 0; c < 3; ++c) t[static_cast<std::size_t>(c)] = deq(st.translation_factors, c, st.translations[i][static_cast<std::size_t>(c)]);
      d.channels[(*idx[0])[i]].translation = {t};
    }
    for (std::size_t i = 0; i < st.rotations.size(); ++i) {
      std::array<float, 3> v;
      for (int c = 0; c < 3; ++c) v[static_cast<std::size_t>(c)] = deq(st.rotation_factors, c, st.rotations[i][static_cast<std::size_t>(c)]);
      d.channels[(*idx[1])[i]].rotation = {core::normalize(mrp_to_quat(v))};
    }
    d.scale_channels_skipped += st.scale_count;
  }
  if (f.dynamic_segment) {
    const auto& dy = *f.dynamic_segment;
    d.sample_count = dy.sample_count;
    const std::uint32_t S = dy.sample_count, T = dy.translation_count, R = dy.rotation_count;
    // Deferred only with two samples or more (one sample is a constant track, built as such).
    const bool later = defer && S >= 2;
    if (later) {
      p.dynamic_translation.assign(n, -1);
      p.dynamic_rotation.assign(n, -1);
    }
    // Every entry writes all S samples of its channel: of entries naming the same channel,
    // the last one wins.
    for (std::uint32_t j = 0; j < T; ++j) {
      const std::uint16_t c = (*idx[3])[j];
      auto& out = d.channels[c].translation;
      if (later) {
        out.clear();
        p.dynamic_translation[c] = static_cast<std::int32_t>(j);
        continue;
      }
      out.resize(S);
      if (S == 0) continue;  // the factor sets are looked up only when a sample uses them
      fill_dynamic_translation(f, j, out[0].data());
    }
    for (std::uint32_t j = 0; j < R; ++j) {
      const std::uint16_t c = (*idx[4])[j];
      auto& out = d.channels[c].rotation;
      if (later) {
        out.clear();
        p.dynamic_rotation[c] = static_cast<std::int32_t>(j);
        continue;
      }
      out.resize(S);
      if (S == 0) continue;
      fill_dynamic_rotation(f, j, out[0].data(), false);
    }
    d.scale_channels_skipped += dy.scale_count;
  }
  decode_nsa_trajectory(f, d);
  return p;
}

nsa_decoded decode_nsa(const nsa_file& f) { return std::move(plan_nsa(f, false).d); }

static void decode_nsa_trajectory(const nsa_file& f, nsa_decoded& d) {
  if (f.trajectory) {
    const auto& t = *f.trajectory;
    d.has_trajectory = true;
    d.trajectory_rate = t.sample_rate;
    // The sample count only sizes anything when a data array (bounds-checked at parse
    // time) backs it; a constant trajectory is one sample whatever the count says.
    std::uint32_t S = (t.has_translation || !t.constant_rotation) ? std::max<std::uint32_t>(t.sample_count, 1) : 1;
    d.trajectory_translation.assign(S, vec3{0, 0, 0});
    if (t.has_translation)
      for (std::uint32_t s = 0; s < t.sample_count && s < S; ++s) {
        auto q = unpack_111110(t.translations[s]);
        for (int c = 0; c < 3; ++c)
          d.trajectory_translation[s][static_cast<std::size_t>(c)] = deq(t.translation_factors, c, static_cast<float>(q[static_cast<std::size_t>(c)]));
      }
    if (t.constant_rotation) {
      d.trajectory_rotation.assign(S, core::normalize(t.rotation));
    } else {
      d.trajectory_rotation.resize(S, quat{0, 0, 0, 1});
      for (std::uint32_t s = 0; s < t.sample_count && s < t.rotations.size(); ++s) {
        std::array<float, 3> v;
        for (int c = 0; c < 3; ++c) v[static_cast<std::size_t>(c)] = deq(t.rotation_factors, c, t.rotations[s][static_cast<std::size_t>(c)]);
        d.trajectory_rotation[s] = core::normalize(mrp_to_quat(v));
      }
    }
  }
}

// ------------------------------------------------------------------ encoder

namespace {

constexpr std::uint32_t levels_111110[3] = {2047, 2047, 1023};

std::uint32_t quantise(float v, float min, float extent, std::uint32_t levels) {
  if (!(extent > 0)) return 0;
  double q = std::round((static_cast<double>(v) - min) / extent);
  return static_cast<std::uint32_t>(std::clamp(q, 0.0, static_cast<double>(levels)));
}

struct range {
  float lo = 0, hi = 0;
};

// Per axis, at most 256 factor sets (u8 index): one per channel when they fit, otherwise
// channels sorted by their lower bound and grouped, each group covering its members.
void assign_sets(const std::vector<std::array<range, 3>>& ranges, const std::uint32_t levels[3],
                 std::vector<factors>& sets, std::vector<deq_info>& info) {
  std::size_t n = ranges.size();
  std::size_t nsets = std::min<std::size_t>(n, 256);
  sets.assign(nsets, factors{});
  for (int c = 0; c < 3; ++c) {
    std::vector<std::size_t> order(n);
    std::iota(order.begin(), order.end(), 0);
    if (n > 256)
      std::stable_sort(order.begin(), order.end(), [&](auto a, auto b) { return ranges[a][static_cast<std::size_t>(c)].lo < ranges[b][static_cast<std::size_t>(c)].lo; });
    std::vector<range> group(nsets, range{INFINITY, -INFINITY});
    for (std::size_t k = 0; k < n; ++k) {
      std::size_t g = n > 256 ? k * nsets / n : k;
      const auto& rr = ranges[order[k]][static_cast<std::size_t>(c)];
      group[g].lo = std::min(group[g].lo, rr.lo);
      group[g].hi = std::max(group[g].hi, rr.hi);
      info[order[k]].index[static_cast<std::size_t>(c)] = static_cast<std::uint8_t>(g);
    }
    for (std::size_t g = 0; g < nsets; ++g) {
      sets[g].min[static_cast<std::size_t>(c)] = group[g].lo;
      sets[g].extent[static_cast<std::size_t>(c)] = (group[g].hi - group[g].lo) / static_cast<float>(levels[c]);
    }
  }
}

bool all_equal_vec(const std::vector<vec3>& v) {
  for (const auto& x : v)
    for (int c = 0; c < 3; ++c)
      if (std::fabs(x[static_cast<std::size_t>(c)] - v[0][static_cast<std::size_t>(c)]) > 1e-7f * std::max(1.0f, std::fabs(v[0][static_cast<std::size_t>(c)]))) return false;
  return true;
}
bool all_equal_quat(const std::vector<quat>& v) {
  for (const auto& x : v)
    if (std::fabs(core::dot(core::normalize(x), core::normalize(v[0]))) < 1.0f - 1e-7f) return false;
  return true;
}

factors span_factors(const std::vector<std::array<float, 3>>& vals, std::uint32_t levels0, std::uint32_t levels1,
                     std::uint32_t levels2) {
  factors f;
  if (vals.empty()) return f;
  std::uint32_t lv[3] = {levels0, levels1, levels2};
  for (int c = 0; c < 3; ++c) {
    float lo = INFINITY, hi = -INFINITY;
    for (const auto& v : vals) {
      lo = std::min(lo, v[static_cast<std::size_t>(c)]);
      hi = std::max(hi, v[static_cast<std::size_t>(c)]);
    }
    f.min[static_cast<std::size_t>(c)] = lo;
    f.extent[static_cast<std::size_t>(c)] = (hi - lo) / static_cast<float>(lv[c]);
  }
  return f;
}

std::vector<deq_info> padded(std::vector<deq_info> v) {
  if (!v.empty())
    while (v.size() % 4) v.push_back(v.back());
  return v;
}


// The static segment: one value per unchanging channel, 16 bits per axis over the span.
nsa_static encode_static(const std::vector<std::uint16_t>& st_t, const std::vector<vec3>& st_tv,
                         const std::vector<std::uint16_t>& st_r, const std::vector<quat>& st_rv) {
  nsa_static st;
  st.translation_count = static_cast<std::uint32_t>(st_t.size());
  st.rotation_count = static_cast<std::uint32_t>(st_r.size());
  std::vector<std::array<float, 3>> tv(st_tv.begin(), st_tv.end()), rv;
  for (const auto& q : st_rv) rv.push_back(quat_to_mrp(q));
  st.translation_factors = span_factors(tv, 65535, 65535, 65535);
  st.rotation_factors = span_factors(rv, 65535, 65535, 65535);
  for (const auto& v : tv) {
    u16x3 q;
    for (int c = 0; c < 3; ++c) q[static_cast<std::size_t>(c)] = static_cast<std::uint16_t>(quantise(v[static_cast<std::size_t>(c)], st.translation_factors.min[static_cast<std::size_t>(c)], st.translation_factors.extent[static_cast<std::size_t>(c)], 65535));
    st.translations.push_back(q);
  }
  for (const auto& v : rv) {
    u16x3 q;
    for (int c = 0; c < 3; ++c) q[static_cast<std::size_t>(c)] = static_cast<std::uint16_t>(quantise(v[static_cast<std::size_t>(c)], st.rotation_factors.min[static_cast<std::size_t>(c)], st.rotation_factors.extent[static_cast<std::size_t>(c)], 65535));
    st.rotations.push_back(q);
  }
  return st;
}

// Translations: 8-bit init per axis through the header's init factors, then per-axis
// deltas quantised 11:11:10 against per-channel (or grouped) factor sets.
void encode_translations(const nsa_input& in, const std::vector<std::uint16_t>& dy_t, std::uint32_t S, nsa_file& f,
                         nsa_dynamic& dy) {
  std::vector<std::array<float, 3>> firsts;
  for (auto ci : dy_t) firsts.push_back(in.channels[ci].translation[0]);
  f.translation_init_factors = span_factors(firsts, 255, 255, 255);
  std::vector<deq_info> info(dy_t.size());
  std::vector<std::array<range, 3>> ranges(dy_t.size());
  std::vector<vec3> init(dy_t.size());
  for (std::size_t j = 0; j < dy_t.size(); ++j) {
    const auto& tr = in.channels[dy_t[j]].translation;
    for (int c = 0; c < 3; ++c) {
      auto cc = static_cast<std::size_t>(c);
      std::uint32_t b = quantise(tr[0][cc], f.translation_init_factors.min[cc], f.translation_init_factors.extent[cc], 255);
      info[j].init[cc] = static_cast<std::uint8_t>(b);
      init[j][cc] = deq(f.translation_init_factors, c, static_cast<float>(b));
      range r{INFINITY, -INFINITY};
      for (const auto& v : tr) {
        r.lo = std::min(r.lo, v[cc] - init[j][cc]);
        r.hi = std::max(r.hi, v[cc] - init[j][cc]);
      }
      ranges[j][cc] = r;
    }
  }
  assign_sets(ranges, levels_111110, f.translation_factors, info);
  dy.translations.resize(static_cast<std::size_t>(S) * dy_t.size());
  for (std::uint32_t s = 0; s < S; ++s)
    for (std::size_t j = 0; j < dy_t.size(); ++j) {
      const auto& v = in.channels[dy_t[j]].translation[s];
      std::uint32_t q[3];
      for (int c = 0; c < 3; ++c) {
        auto cc = static_cast<std::size_t>(c);
        const auto& set = f.translation_factors[info[j].index[cc]];
        q[c] = quantise(v[cc] - init[j][cc], set.min[cc], set.extent[cc], levels_111110[c]);
      }
      dy.translations[s * dy_t.size() + j] = pack_111110(q[0], q[1], q[2]);
    }
  dy.translation_info = padded(info);
}

// Rotations: 8-bit init per axis (MRP), then 16-bit deltas from it against factor sets.
void encode_rotations(const nsa_input& in, const std::vector<std::uint16_t>& dy_r, std::uint32_t S, nsa_file& f,
                      nsa_dynamic& dy) {
  const std::uint32_t lv16[3] = {65535, 65535, 65535};
  std::vector<deq_info> info(dy_r.size());
  std::vector<std::array<range, 3>> ranges(dy_r.size());
  std::vector<std::vector<std::array<float, 3>>> deltas(dy_r.size());
  for (std::size_t j = 0; j < dy_r.size(); ++j) {
    const auto& rot = in.channels[dy_r[j]].rotation;
    auto v0 = quat_to_mrp(rot[0]);
    std::array<float, 3> iv;
    for (int c = 0; c < 3; ++c) {
      auto cc = static_cast<std::size_t>(c);
      auto b = static_cast<std::uint8_t>(std::clamp(std::round((v0[cc] + 1.0f) * 128.0f), 0.0f, 255.0f));
      info[j].init[cc] = b;
      iv[cc] = b / 128.0f - 1.0f;
    }
    quat inv_init = core::conjugate(mrp_to_quat(iv));
    for (int c = 0; c < 3; ++c) ranges[j][static_cast<std::size_t>(c)] = range{INFINITY, -INFINITY};
    for (const auto& q : rot) {
      auto v = quat_to_mrp(core::multiply(inv_init, core::normalize(q)));
      deltas[j].push_back(v);
      for (int c = 0; c < 3; ++c) {
        auto cc = static_cast<std::size_t>(c);
        ranges[j][cc].lo = std::min(ranges[j][cc].lo, v[cc]);
        ranges[j][cc].hi = std::max(ranges[j][cc].hi, v[cc]);
      }
    }
  }
  assign_sets(ranges, lv16, f.rotation_factors, info);
  dy.rotation_row_stride = align4(6 * dy.rotation_count);
  dy.rotations.resize(static_cast<std::size_t>(S) * dy_r.size());
  for (std::uint32_t s = 0; s < S; ++s)
    for (std::size_t j = 0; j < dy_r.size(); ++j) {
      u16x3 q;
      for (int c = 0; c < 3; ++c) {
        auto cc = static_cast<std::size_t>(c);
        const auto& set = f.rotation_factors[info[j].index[cc]];
        q[cc] = static_cast<std::uint16_t>(quantise(deltas[j][s][cc], set.min[cc], set.extent[cc], 65535));
      }
      dy.rotations[s * dy_r.size() + j] = q;
    }
  dy.rotation_info = padded(info);
}

// The trajectory (root motion) source.
nsa_trajectory encode_trajectory(const nsa_input& in, std::uint32_t S) {
  nsa_trajectory t;
  t.sample_rate = static_cast<float>(in.sample_rate);
  t.sample_count = S;
  t.alignment = 16;
  bool any = false;
  for (const auto& v : in.trajectory_translation)
    if (v[0] != 0 || v[1] != 0 || v[2] != 0) any = true;
  if (any) {
    std::vector<std::array<float, 3>> tv;
    for (std::uint32_t s = 0; s < S; ++s) tv.push_back(in.trajectory_translation[in.trajectory_translation.size() == 1 ? 0 : s]);
    t.translation_factors = span_factors(tv, 2047, 2047, 1023);
    t.has_translation = true;
    for (const auto& v : tv) {
      std::uint32_t q[3];
      for (int c = 0; c < 3; ++c) q[c] = quantise(v[static_cast<std::size_t>(c)], t.translation_factors.min[static_cast<std::size_t>(c)], t.translation_factors.extent[static_cast<std::size_t>(c)], levels_111110[c]);
      t.translations.push_back(pack_111110(q[0], q[1], q[2]));
    }
  }
  if (in.trajectory_rotation.empty() || all_equal_quat(in.trajectory_rotation)) {
    t.constant_rotation = true;
    t.rotation = in.trajectory_rotation.empty() ? quat{0, 0, 0, 1} : core::normalize(in.trajectory_rotation[0]);
  } else {
    t.constant_rotation = false;
    std::vector<std::array<float, 3>> rv;
    for (std::uint32_t s = 0; s < S; ++s) rv.push_back(quat_to_mrp(in.trajectory_rotation[s]));
    t.rotation_factors = span_factors(rv, 65535, 65535, 65535);
    // Readers that tell the union apart by its last 8 bytes (extent y, z) need them non-zero;
    // a tiny extent with all samples quantised to 0 decodes to the same min.
    if (t.rotation_factors.extent[1] == 0 && t.rotation_factors.extent[2] == 0) t.rotation_factors.extent[2] = 1e-30f;
    for (const auto& v : rv) {
      u16x3 q;
      for (int c = 0; c < 3; ++c) q[static_cast<std::size_t>(c)] = static_cast<std::uint16_t>(quantise(v[static_cast<std::size_t>(c)], t.rotation_factors.min[static_cast<std::size_t>(c)], t.rotation_factors.extent[static_cast<std::size_t>(c)], 65535));
      t.rotations.push_back(q);
    }
  }
  return t;
}

}  // namespace

nsa_file encode_nsa(const nsa_input& in) {
  nsa_file f;
  const std::uint32_t S = std::max<std::uint32_t>(in.sample_count, 1);
  f.version = 1;
  f.alignment = 16;
  f.sample_rate = static_cast<float>(in.sample_rate);
  f.duration = S > 1 ? static_cast<float>((S - 1) / in.sample_rate) : 0.0f;
  f.total_bones = static_cast<std::uint32_t>(in.channels.size());
  if (in.channels.size() > max_channels) fail(code::limit_exceeded, "more than 65536 channels cannot be indexed by u16");

  std::vector<std::uint16_t> st_t, st_r, dy_t, dy_r;
  std::vector<vec3> st_tv;
  std::vector<quat> st_rv;
  for (std::size_t i = 0; i < in.channels.size(); ++i) {
    const auto& ch = in.channels[i];
    auto ci = static_cast<std::uint16_t>(i);
    if (!ch.translation.empty()) {
      if (ch.translation.size() != 1 && ch.translation.size() != S) fail(code::internal, "translation sample count mismatch");
      if (all_equal_vec(ch.translation)) {
        st_t.push_back(ci);
        st_tv.push_back(ch.translation[0]);
      } else {
        dy_t.push_back(ci);
      }
    }
    if (!ch.rotation.empty()) {
      if (ch.rotation.size() != 1 && ch.rotation.size() != S) fail(code::internal, "rotation sample count mismatch");
      if (all_equal_quat(ch.rotation)) {
        st_r.push_back(ci);
        st_rv.push_back(ch.rotation[0]);
      } else {
        dy_r.push_back(ci);
      }
    }
  }
  std::vector<std::uint16_t> animated(dy_t);
  animated.insert(animated.end(), dy_r.begin(), dy_r.end());
  std::sort(animated.begin(), animated.end());
  f.total_animated_bones = static_cast<std::uint32_t>(std::unique(animated.begin(), animated.end()) - animated.begin());
  if (!st_t.empty()) f.indices[0] = st_t;
  if (!st_r.empty()) f.indices[1] = st_r;
  if (!dy_t.empty()) f.indices[3] = dy_t;
  if (!dy_r.empty()) f.indices[4] = dy_r;

  if (!st_t.empty() || !st_r.empty()) f.static_segment = encode_static(st_t, st_tv, st_r, st_rv);

  if (!dy_t.empty() || !dy_r.empty()) {
    nsa_dynamic dy;
    dy.sample_count = S;
    dy.translation_count = static_cast<std::uint32_t>(dy_t.size());
    dy.rotation_count = static_cast<std::uint32_t>(dy_r.size());
    if (!dy_t.empty()) encode_translations(in, dy_t, S, f, dy);
    if (!dy_r.empty()) encode_rotations(in, dy_r, S, f, dy);
    f.dynamic_segment = std::move(dy);
  }

  if (in.has_trajectory) f.trajectory = encode_trajectory(in, S);
  return f;
}

// ------------------------------------------------------------------ serialiser

namespace {
void put_factors(core::byte_writer& w, const factors& f) {
  for (auto v : f.min) w.f32(v);
  for (auto v : f.extent) w.f32(v);
}
void put_info(core::byte_writer& w, const std::vector<deq_info>& v) {
  for (const auto& d : v) {
    for (auto b : d.init) w.u8(b);
    for (auto b : d.index) w.u8(b);
  }
}

// Each segment starts 16-aligned; its offset goes into the header slot at `slot`.
std::size_t begin_segment(core::byte_writer& w, std::size_t slot) {
  w.align(16);
  const std::size_t s0 = w.size();
  w.patch_u64(slot, s0);
  return s0;
}

void put_static_segment(core::byte_writer& w, const nsa_static& st, std::size_t slot) {
  const std::size_t s0 = begin_segment(w, slot);
  w.u32(st.translation_count);
  w.u32(st.rotation_count);
  w.u32(0);  // no scale from our encoder
  put_factors(w, st.translation_factors);
  put_factors(w, st.rotation_factors);
  w.u32(0);
  w.u64(st.unknown);
  std::size_t p = w.size();
  w.u64(0);
  w.u64(0);
  w.u64(0);
  auto block = [&](const std::vector<u16x3>& v, std::size_t at) {
    if (v.empty()) return;
    w.align(16);
    w.patch_u64(at, w.size() - s0);
    for (const auto& q : v)
      for (auto x : q) w.u16(x);
  };
  block(st.translations, p);
  block(st.rotations, p + 8);
}

void put_dynamic_segment(core::byte_writer& w, const nsa_dynamic& dy, std::size_t slot) {
  const std::size_t s0 = begin_segment(w, slot);
  w.u32(dy.sample_count);
  w.u32(dy.translation_count);
  w.u32(dy.rotation_count);
  w.u32(0);
  std::size_t p = w.size();
  for (int i = 0; i < 6; ++i) w.u64(0);
  if (dy.translation_count) {
    w.align(16);
    w.patch_u64(p, w.size() - s0);
    for (auto x : dy.translations) w.u32(x);
    w.align(16);
    w.patch_u64(p + 8, w.size() - s0);
    put_info(w, dy.translation_info);
  }
  if (dy.rotation_count) {
    w.align(16);
    w.patch_u64(p + 16, w.size() - s0);
    std::uint32_t stride = align4(6 * dy.rotation_count);
    for (std::uint32_t s = 0; s < dy.sample_count; ++s) {
      for (std::uint32_t j = 0; j < dy.rotation_count; ++j)
        for (auto x : dy.rotations[static_cast<std::size_t>(s) * dy.rotation_count + j]) w.u16(x);
      w.fill(stride - 6 * dy.rotation_count);  // row padding to 4 bytes
    }
    w.align(16);
    w.patch_u64(p + 24, w.size() - s0);
    put_info(w, dy.rotation_info);
  }
}

void put_trajectory(core::byte_writer& w, const nsa_trajectory& t, std::size_t slot) {
  const std::size_t s0 = begin_segment(w, slot);
  w.u32(t.version);
  for (auto u : t.unknown) w.u32(u);
  std::size_t len_at = w.size();
  w.u32(0);
  w.u32(t.alignment ? t.alignment : 16);
  w.f32(t.sample_rate);
  w.u32(t.sample_count);
  put_factors(w, t.translation_factors);
  if (t.constant_rotation) {
    for (auto v : t.rotation) w.f32(v);
    w.u64(0);
  } else {
    put_factors(w, t.rotation_factors);
  }
  std::size_t p = w.size();
  w.u64(0);
  w.u64(0);
  if (t.has_translation) {
    w.align(16);
    w.patch_u64(p, w.size() - s0);
    for (auto x : t.translations) w.u32(x);
  }
  if (!t.constant_rotation) {
    w.align(16);
    w.patch_u64(p + 8, w.size() - s0);
    for (const auto& q : t.rotations)
      for (auto x : q) w.u16(x);
  }
  w.align(16);
  w.patch_u32(len_at, static_cast<std::uint32_t>(w.size() - s0));
}
}  // namespace

bytes serialise_nsa(const nsa_file& f) {
  core::byte_writer w;
  w.u32(0);  // CRC, patched big-endian at the end
  w.u32(f.version);
  w.u64(0);
  w.u32(0);  // static_length, patched: the payload size
  w.u32(f.alignment ? f.alignment : 16);
  w.f32(f.duration);
  w.f32(f.sample_rate);
  w.u32(f.total_bones);
  w.u32(f.total_animated_bones);
  std::size_t idx_ptrs = w.size();
  for (int i = 0; i < 6; ++i) w.u64(0);
  put_factors(w, f.translation_init_factors);
  w.u64(0);
  w.u32(static_cast<std::uint32_t>(f.translation_factors.size()));
  w.u32(static_cast<std::uint32_t>(f.rotation_factors.size()));
  w.u32(static_cast<std::uint32_t>(f.scale_factors.size()));
  w.u32(0);
  std::size_t fac_ptrs = w.size();
  for (int i = 0; i < 3; ++i) w.u64(0);
  std::size_t seg_ptrs = w.size();
  for (int i = 0; i < 3; ++i) w.u64(0);
  w.u64(0);
  for (std::size_t i = 0; i < 6; ++i) {
    if (!f.indices[i]) continue;
    w.align(4);
    w.patch_u64(idx_ptrs + 8 * i, w.size());
    w.u16(static_cast<std::uint16_t>(f.indices[i]->size()));
    for (auto c : *f.indices[i]) w.u16(c);
  }
  const std::vector<factors>* fa[3] = {&f.translation_factors, &f.rotation_factors, &f.scale_factors};
  for (std::size_t i = 0; i < 3; ++i) {
    if (fa[i]->empty()) continue;
    w.align(16);
    w.patch_u64(fac_ptrs + 8 * i, w.size());
    for (const auto& x : *fa[i]) put_factors(w, x);
  }
  if (f.static_segment) put_static_segment(w, *f.static_segment, seg_ptrs);
  if (f.dynamic_segment) put_dynamic_segment(w, *f.dynamic_segment, seg_ptrs + 8);
  if (f.trajectory) put_trajectory(w, *f.trajectory, seg_ptrs + 16);
  w.align(16);
  w.patch_u32(0x10, static_cast<std::uint32_t>(w.size()));
  auto out = w.take();
  std::uint32_t c = crc32(std::span<const std::uint8_t>(out).subspan(4));
  out[0] = static_cast<std::uint8_t>(c >> 24);
  out[1] = static_cast<std::uint8_t>(c >> 16);
  out[2] = static_cast<std::uint8_t>(c >> 8);
  out[3] = static_cast<std::uint8_t>(c);
  return out;
}

// ------------------------------------------------------------------ raw JSON

namespace {
nlohmann::json fj(const factors& f) { return {{"min", f.min}, {"scaled_extent", f.extent}}; }
nlohmann::json infoj(const std::vector<deq_info>& v) {
  auto a = nlohmann::json::array();
  for (const auto& d : v) a.push_back({{"init", d.init}, {"factor_index", d.index}});
  return a;
}
nlohmann::json u16j(const std::vector<u16x3>& v) {
  auto a = nlohmann::json::array();
  for (const auto& q : v) a.push_back(q);
  return a;
}
}  // namespace

nlohmann::json nsa_to_json(const nsa_file& f) {
  using nlohmann::json;
  char crc[16], ccrc[16];
  std::snprintf(crc, sizeof crc, "%08X", f.crc);
  std::snprintf(ccrc, sizeof ccrc, "%08X", f.computed_crc);
  json j{{"crc32", crc}, {"crc32_computed", ccrc}, {"crc32_matches", f.crc == f.computed_crc},
         {"version", f.version}, {"static_length", f.static_length}, {"alignment", f.alignment},
         {"duration", f.duration}, {"sample_rate", f.sample_rate}, {"total_bones", f.total_bones},
         {"total_animated_bones", f.total_animated_bones}};
  static const char* names[6] = {"static_translation", "static_rotation", "static_scale",
                                 "dynamic_translation", "dynamic_rotation", "dynamic_scale"};
  json idx = json::object();
  for (std::size_t i = 0; i < 6; ++i) idx[names[i]] = f.indices[i] ? json(*f.indices[i]) : json(nullptr);
  j["channel_indices"] = idx;
  j["translation_init_factors"] = fj(f.translation_init_factors);
  auto fa = [](const std::vector<factors>& v) {
    auto a = json::array();
    for (const auto& x : v) a.push_back(fj(x));
    return a;
  };
  j["translation_factors"] = fa(f.translation_factors);
  j["rotation_factors"] = fa(f.rotation_factors);
  j["scale_factors"] = fa(f.scale_factors);
  if (f.static_segment) {
    const auto& s = *f.static_segment;
    j["static"] = {{"layout", s.layout}, {"translation_count", s.translation_count},
                   {"rotation_count", s.rotation_count}, {"scale_count", s.scale_count},
                   {"translation_factors", fj(s.translation_factors)}, {"rotation_factors", fj(s.rotation_factors)},
                   {"translations", u16j(s.translations)}, {"rotations", u16j(s.rotations)}};
  } else {
    j["static"] = nullptr;
  }
  if (f.dynamic_segment) {
    const auto& d = *f.dynamic_segment;
    j["dynamic"] = {{"sample_count", d.sample_count}, {"translation_count", d.translation_count},
                    {"rotation_count", d.rotation_count}, {"scale_count", d.scale_count},
                    {"rotation_row_stride", d.rotation_row_stride}, {"note", d.note},
                    {"translation_info", infoj(d.translation_info)}, {"rotation_info", infoj(d.rotation_info)},
                    {"translations", d.translations}, {"rotations", u16j(d.rotations)}};
  } else {
    j["dynamic"] = nullptr;
  }
  if (f.trajectory) {
    const auto& t = *f.trajectory;
    json tj{{"version", t.version}, {"unknown", t.unknown}, {"data_length", t.data_length},
            {"alignment", t.alignment}, {"sample_rate", t.sample_rate}, {"sample_count", t.sample_count},
            {"translation_factors", fj(t.translation_factors)},
            {"rotation_form", t.constant_rotation ? "constant" : "factors"},
            {"union_tests_agree", t.union_tests_agree},
            {"translations", t.has_translation ? json(t.translations) : json(nullptr)}};
    if (t.constant_rotation) tj["rotation"] = t.rotation;
    else {
      tj["rotation_factors"] = fj(t.rotation_factors);
      tj["rotations"] = u16j(t.rotations);
    }
    j["trajectory"] = tj;
  } else {
    j["trajectory"] = nullptr;
  }
  return j;
}

}  // namespace rigrip::morpheme
