// CompressedSkeletonPoseKeys2. Layout and decode rules: README.md and notes §2.6.
// Decoder and encoder share the dequantisation helpers so that the encoder's
// reconstruction (used to chain deltas) is exactly what a decoder computes.
#include "formats/telltale/cspk2.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#if defined(__SSE__)
#include <xmmintrin.h>
#endif
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "core/byte_reader.hpp"

namespace rigrip::telltale {

using core::byte_reader;
using core::fail;
using q4 = std::array<float, 4>;

namespace {

constexpr float q_scale_x = 1.3487e-06f;    // sqrt(2) / (2^20 - 1)
constexpr float q_scale_yz = 3.371749e-07f; // sqrt(2) / (2^22 - 1)
constexpr float q_offset = 0.7071068f;
constexpr std::uint32_t max20 = (1u << 20) - 1, max22 = (1u << 22) - 1;

enum kind_index { k_dv = 0, k_v = 1, k_dq = 2, k_q = 3 };

// The IEEE square root (sqrtss) without the errno branch std::sqrt carries under
// -fmath-errno: the same result bits for every input (a negative one gives the default NaN,
// as sqrtf does).
[[gnu::always_inline]] inline float sqrt_ieee(float x) {
#if defined(__SSE__)
  return _mm_cvtss_f32(_mm_sqrt_ss(_mm_set_ss(x)));
#else
  return std::sqrt(x);
#endif
}

float w_from_xyz(float x, float y, float z) {
  float w = 1.0f - x * x - y * y - z * z;
  return w > 0.0f ? sqrt_ieee(w) : 0.0f;
}

// Inlined: a call per delta rotation key was a measurable part of the decode.
[[gnu::always_inline]] inline q4 hamilton(const q4& a, const q4& b) {  // a ⊗ b, x y z w
  return {a[3] * b[0] + a[0] * b[3] + a[1] * b[2] - a[2] * b[1],
          a[3] * b[1] - a[0] * b[2] + a[1] * b[3] + a[2] * b[0],
          a[3] * b[2] + a[0] * b[1] - a[1] * b[0] + a[2] * b[3],
          a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2]};
}

struct unpacked {
  std::uint32_t x, y, z;
};
unpacked unpack_delta(std::uint32_t w) { return {w & 0x3FF, (w >> 10) & 0x7FF, w >> 21}; }
unpacked unpack_abs(std::uint32_t lo, std::uint32_t hi) {
  return {((hi & 0x3FF) << 10) | (lo & 0x3FF), (((hi >> 10) & 0x7FF) << 11) | ((lo >> 10) & 0x7FF),
          ((hi >> 21) << 11) | (lo >> 21)};
}

// Dequantisation, one function per kind (shared by decoder and encoder).
std::array<float, 3> deq_delta(const unpacked& u, const float (&mn)[3], const float (&rg)[3]) {
  return {mn[0] + static_cast<float>(u.x) * (rg[0] / 1023.0f), mn[1] + static_cast<float>(u.y) * (rg[1] / 2047.0f),
          mn[2] + static_cast<float>(u.z) * (rg[2] / 2047.0f)};
}
std::array<float, 3> deq_abs_v(const unpacked& u, const float (&mn)[3], const float (&rg)[3]) {
  return {mn[0] + static_cast<float>(u.x) * (rg[0] / static_cast<float>(max20)),
          mn[1] + static_cast<float>(u.y) * (rg[1] / static_cast<float>(max22)),
          mn[2] + static_cast<float>(u.z) * (rg[2] / static_cast<float>(max22))};
}
q4 deq_abs_q(const unpacked& u) {
  float x = static_cast<float>(u.x) * q_scale_x - q_offset;
  float y = static_cast<float>(u.y) * q_scale_yz - q_offset;
  float z = static_cast<float>(u.z) * q_scale_yz - q_offset;
  return {x, y, z, w_from_xyz(x, y, z)};
}
// Slot i of the output takes decoded slot i ^ axisOrder (w rebuilt in slot 3).
q4 apply_axis_order(const q4& s, unsigned ao) { return {s[ao], s[ao ^ 1], s[ao ^ 2], s[ao ^ 3]}; }

std::uint32_t le32(const std::uint8_t* p) {  // one load on little-endian hosts
  return static_cast<std::uint32_t>(p[0]) | static_cast<std::uint32_t>(p[1]) << 8 | static_cast<std::uint32_t>(p[2]) << 16 |
         static_cast<std::uint32_t>(p[3]) << 24;
}

void read_f3(byte_reader& r, float (&v)[3]) {
  for (float& f : v) f = r.f32();
}

}  // namespace

namespace detail {

group_steps make_group_steps(const cspk2_header& h) {
  group_steps s{};
  // The same float quotients deq_delta / deq_abs_v form.
  const float sv[3] = {h.range_vector[0] / static_cast<float>(max20), h.range_vector[1] / static_cast<float>(max22),
                       h.range_vector[2] / static_cast<float>(max22)};
  const float sdv[3] = {h.range_delta_v[0] / 1023.0f, h.range_delta_v[1] / 2047.0f, h.range_delta_v[2] / 2047.0f};
  const float sdq[3] = {h.range_delta_q[0] / 1023.0f, h.range_delta_q[1] / 2047.0f, h.range_delta_q[2] / 2047.0f};
  for (int i = 0; i < 3; ++i) {
    s.step[k_v][i] = sv[i], s.min[k_v][i] = h.min_vector[i];
    s.step[k_dv][i] = sdv[i], s.min[k_dv][i] = h.min_delta_v[i];
    s.step[k_dq][i] = sdq[i], s.min[k_dq][i] = h.min_delta_q[i];
    s.step[k_q][i] = 0.0f, s.min[k_q][i] = 0.0f;
  }
  return s;
}

// kind: command bits 31..30 (delta, rotation); kind_index numbers the same kinds otherwise.
void decode_group_scalar(unsigned kind, const std::uint8_t* g, const group_steps& s, float (&out)[4][4]) {
  const int ki = kind == 0 ? k_v : kind == 1 ? k_q : kind == 2 ? k_dv : k_dq;
  for (int i = 0; i < 4; ++i) {
    const std::uint32_t lo = le32(g + 4 * i);
    const unpacked u = (kind & 2) ? unpack_delta(lo) : unpack_abs(lo, le32(g + 16 + 4 * i));
    float v[4];
    if (kind == 1) {
      const q4 q = deq_abs_q(u);
      v[0] = q[0], v[1] = q[1], v[2] = q[2], v[3] = q[3];
    } else {
      v[0] = s.min[ki][0] + static_cast<float>(u.x) * s.step[ki][0];
      v[1] = s.min[ki][1] + static_cast<float>(u.y) * s.step[ki][1];
      v[2] = s.min[ki][2] + static_cast<float>(u.z) * s.step[ki][2];
      v[3] = kind == 3 ? w_from_xyz(v[0], v[1], v[2]) : 0.0f;
    }
    for (int c = 0; c < 4; ++c) out[c][i] = v[c];
  }
}

void decode_group_sse2(unsigned kind, const std::uint8_t* g, const group_steps& s, float (&out)[4][4]) {
#if defined(__SSE2__)
  const __m128i lo = _mm_loadu_si128(reinterpret_cast<const __m128i*>(g));  // little-endian host
  __m128i ux, uy, uz;
  if (kind & 2) {
    ux = _mm_and_si128(lo, _mm_set1_epi32(0x3FF));
    uy = _mm_and_si128(_mm_srli_epi32(lo, 10), _mm_set1_epi32(0x7FF));
    uz = _mm_srli_epi32(lo, 21);
  } else {
    const __m128i hi = _mm_loadu_si128(reinterpret_cast<const __m128i*>(g + 16));
    ux = _mm_or_si128(_mm_slli_epi32(_mm_and_si128(hi, _mm_set1_epi32(0x3FF)), 10), _mm_and_si128(lo, _mm_set1_epi32(0x3FF)));
    uy = _mm_or_si128(_mm_slli_epi32(_mm_and_si128(_mm_srli_epi32(hi, 10), _mm_set1_epi32(0x7FF)), 11),
                      _mm_and_si128(_mm_srli_epi32(lo, 10), _mm_set1_epi32(0x7FF)));
    uz = _mm_or_si128(_mm_slli_epi32(_mm_srli_epi32(hi, 21), 11), _mm_srli_epi32(lo, 21));
  }
  // Below 2^22: exact as int32 and as float, as the scalar conversion from u32.
  const __m128 fx = _mm_cvtepi32_ps(ux), fy = _mm_cvtepi32_ps(uy), fz = _mm_cvtepi32_ps(uz);
  __m128 x, y, z, w = _mm_setzero_ps();
  if (kind == 1) {
    const __m128 off = _mm_set1_ps(q_offset);
    x = _mm_sub_ps(_mm_mul_ps(fx, _mm_set1_ps(q_scale_x)), off);
    y = _mm_sub_ps(_mm_mul_ps(fy, _mm_set1_ps(q_scale_yz)), off);
    z = _mm_sub_ps(_mm_mul_ps(fz, _mm_set1_ps(q_scale_yz)), off);
  } else {
    const int ki = kind == 0 ? k_v : kind == 2 ? k_dv : k_dq;
    x = _mm_add_ps(_mm_set1_ps(s.min[ki][0]), _mm_mul_ps(fx, _mm_set1_ps(s.step[ki][0])));
    y = _mm_add_ps(_mm_set1_ps(s.min[ki][1]), _mm_mul_ps(fy, _mm_set1_ps(s.step[ki][1])));
    z = _mm_add_ps(_mm_set1_ps(s.min[ki][2]), _mm_mul_ps(fz, _mm_set1_ps(s.step[ki][2])));
  }
  if (kind & 1) {  // w_from_xyz per lane: ((1 - x*x) - y*y) - z*z, its root where above 0, else 0
    __m128 t = _mm_sub_ps(_mm_set1_ps(1.0f), _mm_mul_ps(x, x));
    t = _mm_sub_ps(t, _mm_mul_ps(y, y));
    t = _mm_sub_ps(t, _mm_mul_ps(z, z));
    w = _mm_and_ps(_mm_cmpgt_ps(t, _mm_setzero_ps()), _mm_sqrt_ps(t));
  }
  _mm_storeu_ps(out[0], x);
  _mm_storeu_ps(out[1], y);
  _mm_storeu_ps(out[2], z);
  _mm_storeu_ps(out[3], w);
#else
  decode_group_scalar(kind, g, s, out);
#endif
}

}  // namespace detail

namespace {

// Where the parts of a CSPK2 buffer are, after the header and bone table were read.
struct cspk2_layout {
  std::span<const std::uint8_t> sample_bytes;
  std::uint64_t sample_base = 0;
  const std::uint8_t* cmd_words = nullptr;
  std::uint64_t cmd_base = 0;
  std::size_t cmd_at = 0;  // index of the command list in the buffer
  std::size_t commands = 0;
  std::uint32_t bones = 0;
};

cspk2_layout read_layout(std::span<const std::uint8_t> buf, std::uint64_t base, cspk2_header& h,
                         std::vector<std::uint64_t>& bone_syms) {
  byte_reader r(buf, core::endian::little, base);
  read_f3(r, h.min_delta_v);
  read_f3(r, h.range_delta_v);
  read_f3(r, h.min_delta_q);
  read_f3(r, h.range_delta_q);
  read_f3(r, h.min_vector);
  read_f3(r, h.range_vector);
  h.range_time = r.f32();
  h.bone_count = r.u32();
  std::uint64_t sds_at = r.abs();
  h.sample_data_size = r.u64();
  h.unused = r.u64();
  cspk2_layout l;
  l.bones = h.bone_count & 0xFFFF;  // u16 count + u16 padding
  if (h.sample_data_size > r.remaining())
    fail(code::bad_count, "sampleDataSize " + std::to_string(h.sample_data_size) + " exceeds the " +
                              std::to_string(r.remaining()) + " bytes left in the CSPK2 buffer", sds_at);
  // The sample groups and the command words are read as whole little-endian words from
  // spans checked once (per group / up front), not through the byte reader per field.
  l.sample_bytes = r.bytes(h.sample_data_size);
  l.sample_base = r.abs() - h.sample_data_size;
  r.checked_count(l.bones, 8, "CSPK2 bone symbols");
  bone_syms.reserve(l.bones);
  for (std::uint32_t i = 0; i < l.bones; ++i) bone_syms.push_back(r.u64());
  if (r.remaining() % 4)
    fail(code::bad_value, "CSPK2 command list of " + std::to_string(r.remaining()) + " bytes is not a whole number of u32 words",
         r.abs());
  l.commands = r.remaining() / 4;
  l.cmd_at = r.tell();
  l.cmd_words = r.data().data() + r.tell();
  l.cmd_base = r.abs();
  return l;
}

// The decode loop shared by both outputs: `sink(bone, rotation, t16, time, value)` takes each
// key in command order (value: after delta accumulation; translation uses [0..2]). Returns
// the sample bytes used.
template <class Sink>
std::uint64_t decode_keys(const cspk2_layout& l, const cspk2_header& h, Sink& sink) {
  const std::uint32_t bones = l.bones;
  std::array<std::array<q4, 4>, 4> group{};
  std::array<unsigned, 4> slot{4, 4, 4, 4};
  std::vector<q4> last_pos(bones, q4{0, 0, 0, 0}), last_rot(bones, q4{0, 0, 0, 1});
  std::size_t spos = 0;
  for (std::size_t ci = 0; ci < l.commands; ++ci) {
    const std::uint32_t c = le32(l.cmd_words + 4 * ci);
    const auto t16 = static_cast<std::uint16_t>(c & 0xFFFF);
    const std::uint32_t bone = (c >> 16) & 0xFFF;
    const unsigned axis_order = (c >> 28) & 3;
    const bool rotation = (c >> 30) & 1;
    const bool delta = (c >> 31) != 0;
    if (bone >= bones)
      fail(code::bad_value, "CSPK2 command names bone " + std::to_string(bone) + " of " + std::to_string(bones),
           l.cmd_base + 4 * ci);
    const int kind = rotation ? (delta ? k_dq : k_q) : (delta ? k_dv : k_v);
    if (slot[kind] == 4) {
      std::size_t need = delta ? 16u : 32u;
      if (l.sample_bytes.size() - spos < need)
        fail(code::truncated, "CSPK2 sample data exhausted: command at " + byte_reader::hex(l.cmd_base + 4 * ci) +
                                  " needs a new group of " + std::to_string(need) + " bytes, " +
                                  std::to_string(l.sample_bytes.size() - spos) + " left",
             l.sample_base + spos);
      const std::uint8_t* g = l.sample_bytes.data() + spos;
      spos += need;
      for (int i = 0; i < 4; ++i) {
        std::uint32_t lo = le32(g + 4 * i);
        q4 v{};
        if (delta) {
          auto u = unpack_delta(lo);
          auto t = rotation ? deq_delta(u, h.min_delta_q, h.range_delta_q) : deq_delta(u, h.min_delta_v, h.range_delta_v);
          v = {t[0], t[1], t[2], rotation ? w_from_xyz(t[0], t[1], t[2]) : 0.0f};
        } else {
          auto u = unpack_abs(lo, le32(g + 16 + 4 * i));
          if (rotation) {
            v = deq_abs_q(u);
          } else {
            auto t = deq_abs_v(u, h.min_vector, h.range_vector);
            v = {t[0], t[1], t[2], 0.0f};
          }
        }
        group[kind][i] = v;
      }
      slot[kind] = 0;
    }
    q4 v = group[kind][slot[kind]++];
    if (kind == k_q) v = apply_axis_order(v, axis_order);
    if (kind == k_dv) v = {last_pos[bone][0] + v[0], last_pos[bone][1] + v[1], last_pos[bone][2] + v[2], 0.0f};
    if (kind == k_dq) v = hamilton(last_rot[bone], v);  // delta on the right
    if (rotation) last_rot[bone] = v;
    else last_pos[bone] = v;
    sink(bone, rotation, t16, static_cast<float>(t16) * h.range_time / 65535.0f, v);
  }
  return spos;
}

}  // namespace

cspk2_decoded decode_cspk2(std::span<const std::uint8_t> buf, std::uint64_t base) {
  cspk2_decoded d;
  const cspk2_layout l = read_layout(buf, base, d.header, d.bones);
  d.commands = l.commands;
  d.keys.reserve(d.commands);  // filled by emplace_back: resize zero-filled every key first
  auto sink = [&d](std::uint32_t bone, bool rotation, std::uint16_t t16, float time, const q4& v) {
    cspk2_key& k = d.keys.emplace_back();
    k.bone = bone;
    k.rotation = rotation;
    k.t16 = t16;
    k.time = time;
    k.value = v;
  };
  d.sample_bytes_consumed = decode_keys(l, d.header, sink);
  // The flags of each key, from its command word (the sink is kept to what both outputs need).
  for (std::size_t ci = 0; ci < d.keys.size(); ++ci) {
    const std::uint32_t c = le32(l.cmd_words + 4 * ci);
    d.keys[ci].axis_order = static_cast<std::uint8_t>((c >> 28) & 3);
    d.keys[ci].delta = (c >> 31) != 0;
  }
  return d;
}

cspk2_tracks decode_cspk2_tracks(std::span<const std::uint8_t> buf, std::uint64_t base) {
  cspk2_tracks d;
  const cspk2_layout l = read_layout(buf, base, d.header, d.bones);
  d.commands = l.commands;
  d.command_at = l.cmd_at;
  // Keys per track counted first so that each track's arrays are allocated once at their
  // final size. Counting stops at a bad bone index: the decode loop fails there (or earlier).
  const std::size_t nt = 2 * std::size_t{l.bones};
  std::vector<std::uint32_t> count(nt, 0);
  for (std::size_t ci = 0; ci < l.commands; ++ci) {
    const std::uint32_t c = le32(l.cmd_words + 4 * ci);
    const std::uint32_t bone = (c >> 16) & 0xFFF;
    if (bone >= l.bones) break;
    ++count[2 * std::size_t{bone} + ((c >> 30) & 1)];
  }
  d.tracks.resize(nt);
  struct cursor {
    float* t;
    float* v;
  };
  std::vector<cursor> at(nt);
  for (std::size_t i = 0; i < nt; ++i) {
    auto& tk = d.tracks[i];
    tk.times.resize(count[i]);
    tk.values.resize(count[i] * (i % 2 ? 4u : 3u));
    at[i] = {tk.times.data(), tk.values.data()};
  }
  auto sink = [&at](std::uint32_t bone, bool rotation, std::uint16_t, float time, const q4& v) {
    cursor& c = at[2 * std::size_t{bone} + (rotation ? 1 : 0)];
    *c.t++ = time;
    c.v[0] = v[0], c.v[1] = v[1], c.v[2] = v[2];
    if (rotation) c.v[3] = v[3], c.v += 4;
    else c.v += 3;
  };
  d.sample_bytes_consumed = decode_keys(l, d.header, sink);
  return d;
}

namespace {

// A track being written by decode_cspk2_finished: `w` keys kept so far.
struct finish_cursor {
  float* t;
  float* v;
  std::uint32_t w;
  std::uint32_t dupes, clamped;
};

// Where a key lands after clamping its time: the last kept key's slot when the times are
// equal (the later key replaces it), else a new slot. Counts `unordered` when the time
// decreases (finish_track would sort). Clamp = false: every time is known to be finite and
// +-0 or more, where the clamp can only lower it to hi.
template <bool Clamp>
[[gnu::always_inline]] inline std::uint32_t place_key(finish_cursor& tc, float time, float hi, unsigned& unordered) {
  float cl = time;
  if constexpr (Clamp) {
    cl = std::isfinite(time) ? std::clamp(time, 0.0f, hi) : 0.0f;
    if (cl != time) ++tc.clamped;
  } else if (hi < time) {
    cl = hi;
    ++tc.clamped;
  }
  std::uint32_t pos = tc.w;
  if (pos > 0) {
    const float prev = tc.t[pos - 1];
    if (prev == cl) {  // 0 and -0 compare equal: the later time is kept, as finish_track does
      --pos;
      ++tc.dupes;
    } else {
      unordered |= cl < prev;
    }
  }
  tc.t[pos] = cl;
  tc.w = pos + 1;
  return pos;
}

// finish_track's rotation work on one key: normalised (identity when degenerate), then its
// sign made to agree with the kept key before it.
[[gnu::always_inline]] inline void put_rotation(const finish_cursor& tc, std::uint32_t pos, const q4& q) {
  float* o = tc.v + 4 * std::size_t{pos};
  const float n = sqrt_ieee(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
  float x = 0.0f, y = 0.0f, z = 0.0f, w = 1.0f;
  // n > 1e-12 && isfinite(n): above 1e-12 (so not NaN) and finite is at most FLT_MAX.
  if (n > 1e-12f && n <= std::numeric_limits<float>::max()) x = q[0] / n, y = q[1] / n, z = q[2] / n, w = q[3] / n;
  if (pos > 0) {
    const float* p = o - 4;
    const float d = p[0] * x + p[1] * y + p[2] * z + p[3] * w;
    if (d < 0) x = -x, y = -y, z = -z, w = -w;
  }
  o[0] = x, o[1] = y, o[2] = z, o[3] = w;
}

// decode_cspk2_finished's loop over the commands; returns the sample bytes used.
template <bool Clamp>
std::size_t finish_keys(const cspk2_layout& l, const cspk2_header& h, finish_cursor* cur, float hi, unsigned& unordered_out) {
  // A local, not the reference: stores to the cursors' u32 fields could alias that, which
  // kept it in memory, read and written per key.
  unsigned unordered = 0;
  const std::uint32_t bones = l.bones;
  // Dequantisation steps once per file; each sample group is decoded whole (four entries,
  // SSE2) when a command opens it, and the commands take their entry from it.
  const detail::group_steps steps = detail::make_group_steps(h);
  const float rt = h.range_time;
  std::vector<q4> last_pos(bones, q4{0, 0, 0, 0}), last_rot(bones, q4{0, 0, 0, 1});
  // Group state per kind (command bits 31..30: delta, rotation): its decoded entries and
  // how many of its four were used.
  alignas(16) float group[4][4][4];
  unsigned slot[4] = {4, 4, 4, 4};
  std::size_t spos = 0;
  for (std::size_t ci = 0; ci < l.commands; ++ci) {
    const std::uint32_t c = le32(l.cmd_words + 4 * ci);
    const std::uint32_t bone = (c >> 16) & 0xFFF;
    if (bone >= bones)
      fail(code::bad_value, "CSPK2 command names bone " + std::to_string(bone) + " of " + std::to_string(bones),
           l.cmd_base + 4 * ci);
    const unsigned kind = c >> 30;
    const bool rotation = kind & 1;
    if (slot[kind] == 4) {
      const std::size_t need = (kind & 2) ? 16u : 32u;
      if (l.sample_bytes.size() - spos < need)
        fail(code::truncated, "CSPK2 sample data exhausted: command at " + byte_reader::hex(l.cmd_base + 4 * ci) +
                                  " needs a new group of " + std::to_string(need) + " bytes, " +
                                  std::to_string(l.sample_bytes.size() - spos) + " left",
             l.sample_base + spos);
      detail::decode_group_sse2(kind, l.sample_bytes.data() + spos, steps, group[kind]);
      spos += need;
      slot[kind] = 0;
    }
    const unsigned e = slot[kind]++;
    const float(&gk)[4][4] = group[kind];
    const float time = static_cast<float>(c & 0xFFFF) * rt / 65535.0f;
    finish_cursor& tc = cur[2 * std::size_t{bone} + (rotation ? 1 : 0)];
    const std::uint32_t pos = place_key<Clamp>(tc, time, hi, unordered);
    switch (kind) {
      case 0: {  // absolute translation
        q4& lp = last_pos[bone];
        lp[0] = gk[0][e], lp[1] = gk[1][e], lp[2] = gk[2][e];
        float* o = tc.v + 3 * std::size_t{pos};
        o[0] = lp[0], o[1] = lp[1], o[2] = lp[2];
        break;
      }
      case 2: {  // delta translation
        q4& lp = last_pos[bone];
        lp[0] = lp[0] + gk[0][e];
        lp[1] = lp[1] + gk[1][e];
        lp[2] = lp[2] + gk[2][e];
        float* o = tc.v + 3 * std::size_t{pos};
        o[0] = lp[0], o[1] = lp[1], o[2] = lp[2];
        break;
      }
      case 1: {  // absolute rotation: smallest three, slot i takes decoded slot i ^ axisOrder
        const q4 s{gk[0][e], gk[1][e], gk[2][e], gk[3][e]};
        q4 v;
        switch ((c >> 28) & 3) {  // fixed shuffles: v[i] = s[i ^ axisOrder]
          case 0: v = s; break;
          case 1: v = {s[1], s[0], s[3], s[2]}; break;
          case 2: v = {s[2], s[3], s[0], s[1]}; break;
          default: v = {s[3], s[2], s[1], s[0]}; break;
        }
        last_rot[bone] = v;
        put_rotation(tc, pos, v);
        break;
      }
      default: {  // delta rotation, on the right
        const q4 v = hamilton(last_rot[bone], q4{gk[0][e], gk[1][e], gk[2][e], gk[3][e]});
        last_rot[bone] = v;
        put_rotation(tc, pos, v);
        break;
      }
    }
  }
  unordered_out |= unordered;
  return spos;
}

}  // namespace

cspk2_finished decode_cspk2_finished(std::span<const std::uint8_t> buf, std::uint64_t base, float length) {
  cspk2_finished out;
  cspk2_tracks& d = out.d;
  const cspk2_layout l = read_layout(buf, base, d.header, d.bones);
  const cspk2_header& h = d.header;
  d.commands = l.commands;
  d.command_at = l.cmd_at;
  const std::uint32_t bones = l.bones;
  const std::size_t nt = 2 * std::size_t{bones};
  // Keys per track (2 * bone + rotation), sized by the declared bones: a command naming a
  // bone past them is skipped here (the decode loop fails there). A table over every 12-bit
  // bone index would need no check per key, but its 32 KB zero-fill per buffer costs more
  // than the check.
  std::vector<std::uint32_t> count(nt, 0);
  {
    auto add = [&count, bones](std::uint32_t c) {
      const std::uint32_t bone = (c >> 16) & 0xFFF;
      if (bone < bones) ++count[2 * std::size_t{bone} + ((c >> 30) & 1)];
    };
    const std::uint8_t* w = l.cmd_words;
    std::size_t ci = 0;
    for (; ci + 4 <= l.commands; ci += 4, w += 16) {  // four per step: less loop overhead per key
      add(le32(w));
      add(le32(w + 4));
      add(le32(w + 8));
      add(le32(w + 12));
    }
    for (; ci < l.commands; ++ci, w += 4) add(le32(w));
  }
  d.tracks.resize(nt);
  std::vector<finish_cursor> cur(nt);
  for (std::size_t i = 0; i < nt; ++i) {
    auto& tk = d.tracks[i];
    tk.times.resize(count[i]);
    tk.values.resize(count[i] * (i % 2 ? 4u : 3u));
    cur[i] = {tk.times.data(), tk.values.data(), 0, 0, 0};
  }
  const float hi = std::max(length, 0.0f);
  // With the time base finite, >= 0 and its largest time (t16 = 65535) finite, every key time
  // (monotone in t16) is finite and +-0 or more: only the upper clamp can apply.
  const bool clamp = !(std::isfinite(h.range_time) && h.range_time >= 0.0f &&
                       std::isfinite(static_cast<float>(0xFFFF) * h.range_time / 65535.0f));
  unsigned unordered = 0;
  const std::size_t spos = clamp ? finish_keys<true>(l, h, cur.data(), hi, unordered)
                                 : finish_keys<false>(l, h, cur.data(), hi, unordered);
  d.sample_bytes_consumed = spos;
  for (std::size_t i = 0; i < nt; ++i) {
    auto& tk = d.tracks[i];
    tk.times.resize(cur[i].w);
    tk.values.resize(std::size_t{cur[i].w} * (i % 2 ? 4u : 3u));
    tk.dupes = cur[i].dupes;
    tk.clamped = cur[i].clamped;
  }
  out.in_order = unordered == 0;
  return out;
}

// ------------------------------------------------------------------ encoder

namespace {

struct cmd {
  float need = 0;   // time the key is needed: the previous key's time on the track
  std::uint32_t bone = 0;
  bool rotation = false;
  std::size_t index = 0;  // key index in the track
  std::size_t order = 0;  // tie-break: stable by creation
};

std::uint32_t quant(float v, float mn, float rg, std::uint32_t maxq) {
  if (!(rg > 0)) return 0;
  double q = std::round((static_cast<double>(v) - mn) / rg * maxq);
  return static_cast<std::uint32_t>(std::clamp(q, 0.0, static_cast<double>(maxq)));
}

struct range3 {
  float mn[3] = {0, 0, 0}, rg[3] = {0, 0, 0};
  bool any = false;
  float lo[3] = {0, 0, 0}, hi[3] = {0, 0, 0};
  void add(float x, float y, float z) {
    float v[3] = {x, y, z};
    for (int i = 0; i < 3; ++i) {
      if (!any || v[i] < lo[i]) lo[i] = v[i];
      if (!any || v[i] > hi[i]) hi[i] = v[i];
    }
    any = true;
  }
  void finish(float pad) {
    for (int i = 0; i < 3; ++i) {
      float p = (hi[i] - lo[i]) * pad + (pad > 0 ? 1e-7f : 0.0f);
      mn[i] = lo[i] - p;
      rg[i] = (hi[i] - lo[i]) + 2 * p;
    }
  }
  [[nodiscard]] bool contains(float x, float y, float z) const {
    float v[3] = {x, y, z};
    for (int i = 0; i < 3; ++i)
      if (!(v[i] >= mn[i] && v[i] <= mn[i] + rg[i])) return false;
    return true;
  }
};

q4 conj(const q4& q) { return {-q[0], -q[1], -q[2], q[3]}; }

// Ranges per file: absolute translations, and the deltas between consecutive keys.
struct key_ranges {
  range3 abs_v, d_v, d_q;
};
key_ranges measure_ranges(const std::vector<cspk2_track_in>& tracks) {
  key_ranges r;
  for (const auto& t : tracks) {
    for (std::size_t i = 0; i < t.translations.size(); ++i) {
      const auto& v = t.translations[i];
      r.abs_v.add(v[0], v[1], v[2]);
      if (i) {
        const auto& p = t.translations[i - 1];
        r.d_v.add(v[0] - p[0], v[1] - p[1], v[2] - p[2]);
      }
    }
    for (std::size_t i = 1; i < t.rotations.size(); ++i) {
      q4 d = hamilton(conj(t.rotations[i - 1]), t.rotations[i]);
      if (d[3] < 0) d = {-d[0], -d[1], -d[2], -d[3]};
      r.d_q.add(d[0], d[1], d[2]);
    }
  }
  r.abs_v.finish(0);
  r.d_v.finish(0.01f);
  r.d_q.finish(0.01f);
  return r;
}

// Commands in the order the engine needs them: by the previous key's time per track.
std::vector<cmd> command_order(const std::vector<cspk2_track_in>& tracks) {
  std::vector<cmd> cmds;
  for (std::uint32_t b = 0; b < tracks.size(); ++b) {
    const auto& t = tracks[b];
    if (t.rot_times.size() != t.rotations.size() || t.pos_times.size() != t.translations.size())
      fail(code::internal, "encode_cspk2: times and values differ in count");
    for (std::size_t i = 0; i < t.rotations.size(); ++i)
      cmds.push_back({i ? t.rot_times[i - 1] : 0.0f, b, true, i, cmds.size()});
    for (std::size_t i = 0; i < t.translations.size(); ++i)
      cmds.push_back({i ? t.pos_times[i - 1] : 0.0f, b, false, i, cmds.size()});
  }
  std::stable_sort(cmds.begin(), cmds.end(), [](const cmd& a, const cmd& b) { return a.need < b.need; });
  return cmds;
}

// The value stream: per kind, groups of four entries (16 bytes for deltas, 32 for absolute
// values: four low words, then four high words).
struct value_stream {
  std::vector<std::uint8_t> bytes;
  std::array<std::size_t, 4> group_at{};
  std::array<unsigned, 4> slot{4, 4, 4, 4};

  void put(int kind, std::uint32_t lo, std::uint32_t hi) {
    bool delta = kind == k_dv || kind == k_dq;
    if (slot[kind] == 4) {
      group_at[kind] = bytes.size();
      bytes.resize(bytes.size() + (delta ? 16 : 32), 0);
      slot[kind] = 0;
    }
    auto wr = [&](std::size_t at, std::uint32_t v) {
      for (int i = 0; i < 4; ++i) bytes[at + i] = static_cast<std::uint8_t>(v >> (8 * i));
    };
    wr(group_at[kind] + 4 * slot[kind], lo);
    if (!delta) wr(group_at[kind] + 16 + 4 * slot[kind], hi);
    ++slot[kind];
  }
};

// Writes keys as the decoder will rebuild them: a delta from the rebuilt previous key where
// that lands within one absolute quantisation step, else the absolute value. Each call
// returns the flag bits of the key's command word.
struct key_encoder {
  const cspk2_header& h;
  const key_ranges& r;
  float rot_step, pos_step;
  value_stream& out;
  cspk2_encode_stats& st;
  std::vector<q4> rec_rot, rec_pos;  // per bone: what the decoder holds so far

  std::uint32_t rotation(std::uint32_t bone, std::size_t index, const q4& target) {
    if (index > 0) {
      q4 d = hamilton(conj(rec_rot[bone]), target);
      if (d[3] < 0) d = {-d[0], -d[1], -d[2], -d[3]};
      if (r.d_q.contains(d[0], d[1], d[2])) {
        unpacked u{quant(d[0], h.min_delta_q[0], h.range_delta_q[0], 1023), quant(d[1], h.min_delta_q[1], h.range_delta_q[1], 2047),
                   quant(d[2], h.min_delta_q[2], h.range_delta_q[2], 2047)};
        auto dv = deq_delta(u, h.min_delta_q, h.range_delta_q);
        q4 rec = hamilton(rec_rot[bone], q4{dv[0], dv[1], dv[2], w_from_xyz(dv[0], dv[1], dv[2])});
        float s = (rec[0] * target[0] + rec[1] * target[1] + rec[2] * target[2] + rec[3] * target[3]) < 0 ? -1.0f : 1.0f;
        float err = 0;
        for (int i = 0; i < 4; ++i) err = std::max(err, std::fabs(rec[i] - s * target[i]));
        if (err <= rot_step) {
          out.put(k_dq, u.x | (u.y << 10) | (u.z << 21), 0);
          rec_rot[bone] = rec;
          ++st.delta_keys;
          return (1u << 30) | (1u << 31);
        }
      }
    }
    // Smallest three: the largest component is rebuilt, so it goes in slot 3.
    int m = 0;
    for (int i = 1; i < 4; ++i)
      if (std::fabs(target[i]) > std::fabs(target[m])) m = i;
    q4 q = target[m] < 0 ? q4{-target[0], -target[1], -target[2], -target[3]} : target;
    unsigned ao = static_cast<unsigned>(m) ^ 3u;
    float s0 = q[ao], s1 = q[ao ^ 1], s2 = q[ao ^ 2];
    auto qq = [](float v, float scale, std::uint32_t mx) {
      double x = std::round((static_cast<double>(v) + q_offset) / scale);
      return static_cast<std::uint32_t>(std::clamp(x, 0.0, static_cast<double>(mx)));
    };
    unpacked u{qq(s0, q_scale_x, max20), qq(s1, q_scale_yz, max22), qq(s2, q_scale_yz, max22)};
    std::uint32_t lo = (u.x & 0x3FF) | ((u.y & 0x7FF) << 10) | ((u.z & 0x7FF) << 21);
    std::uint32_t hi = (u.x >> 10) | ((u.y >> 11) << 10) | ((u.z >> 11) << 21);
    out.put(k_q, lo, hi);
    rec_rot[bone] = apply_axis_order(deq_abs_q(u), ao);
    ++st.absolute_keys;
    return (ao << 28) | (1u << 30);
  }

  std::uint32_t translation(std::uint32_t bone, std::size_t index, const std::array<float, 3>& tv) {
    if (index > 0) {
      const auto& p = rec_pos[bone];
      float dx = tv[0] - p[0], dy = tv[1] - p[1], dz = tv[2] - p[2];
      if (r.d_v.contains(dx, dy, dz)) {
        unpacked u{quant(dx, h.min_delta_v[0], h.range_delta_v[0], 1023), quant(dy, h.min_delta_v[1], h.range_delta_v[1], 2047),
                   quant(dz, h.min_delta_v[2], h.range_delta_v[2], 2047)};
        auto dv = deq_delta(u, h.min_delta_v, h.range_delta_v);
        q4 rec{p[0] + dv[0], p[1] + dv[1], p[2] + dv[2], 0};
        float err = std::max({std::fabs(rec[0] - tv[0]), std::fabs(rec[1] - tv[1]), std::fabs(rec[2] - tv[2])});
        if (err <= pos_step) {
          out.put(k_dv, u.x | (u.y << 10) | (u.z << 21), 0);
          rec_pos[bone] = rec;
          ++st.delta_keys;
          return 1u << 31;
        }
      }
    }
    unpacked u{quant(tv[0], h.min_vector[0], h.range_vector[0], max20), quant(tv[1], h.min_vector[1], h.range_vector[1], max22),
               quant(tv[2], h.min_vector[2], h.range_vector[2], max22)};
    std::uint32_t lo = (u.x & 0x3FF) | ((u.y & 0x7FF) << 10) | ((u.z & 0x7FF) << 21);
    std::uint32_t hi = (u.x >> 10) | ((u.y >> 11) << 10) | ((u.z >> 11) << 21);
    out.put(k_v, lo, hi);
    auto rv = deq_abs_v(u, h.min_vector, h.range_vector);
    rec_pos[bone] = {rv[0], rv[1], rv[2], 0};
    ++st.absolute_keys;
    return 0;
  }
};

}  // namespace

std::vector<std::uint8_t> encode_cspk2(const std::vector<std::uint64_t>& bones, const std::vector<cspk2_track_in>& tracks,
                                       float range_time, cspk2_encode_stats* stats) {
  if (bones.size() != tracks.size()) fail(code::internal, "encode_cspk2: bones and tracks differ in count");
  if (bones.size() > 4096) fail(code::limit_exceeded, "CSPK2 holds at most 4096 bones (12-bit index), got " + std::to_string(bones.size()));
  const key_ranges r = measure_ranges(tracks);

  cspk2_header h;
  for (int i = 0; i < 3; ++i) {
    h.min_delta_v[i] = r.d_v.mn[i], h.range_delta_v[i] = r.d_v.rg[i];
    h.min_delta_q[i] = r.d_q.mn[i], h.range_delta_q[i] = r.d_q.rg[i];
    h.min_vector[i] = r.abs_v.mn[i], h.range_vector[i] = r.abs_v.rg[i];
  }
  h.range_time = range_time > 0 ? range_time : 0.0f;
  float rot_step = q_scale_x, pos_step = 0;
  for (int i = 0; i < 3; ++i) {
    rot_step = std::max(rot_step, h.range_delta_q[i] / (i ? 2047.0f : 1023.0f));
    pos_step = std::max({pos_step, h.range_delta_v[i] / (i ? 2047.0f : 1023.0f),
                         h.range_vector[i] / static_cast<float>(i ? max22 : max20)});
  }

  const std::vector<cmd> cmds = command_order(tracks);
  value_stream stream;
  cspk2_encode_stats st;
  key_encoder enc{h, r, rot_step, pos_step, stream, st, std::vector<q4>(tracks.size(), q4{0, 0, 0, 1}),
                  std::vector<q4>(tracks.size(), q4{0, 0, 0, 0})};
  std::vector<std::uint32_t> words;
  for (const auto& c : cmds) {
    const auto& t = tracks[c.bone];
    float time = c.rotation ? t.rot_times[c.index] : t.pos_times[c.index];
    std::uint32_t t16 = range_time > 0 ? static_cast<std::uint32_t>(std::clamp(std::round(time / range_time * 65535.0f), 0.0f, 65535.0f)) : 0;
    std::uint32_t word = t16 | (c.bone << 16);
    word |= c.rotation ? enc.rotation(c.bone, c.index, t.rotations[c.index])
                       : enc.translation(c.bone, c.index, t.translations[c.index]);
    words.push_back(word);
  }
  st.max_rot_step = rot_step;
  st.max_pos_step = pos_step;
  if (stats) *stats = st;

  core::byte_writer w;
  auto f3 = [&](const float (&v)[3]) {
    for (float f : v) w.f32(f);
  };
  f3(h.min_delta_v);
  f3(h.range_delta_v);
  f3(h.min_delta_q);
  f3(h.range_delta_q);
  f3(h.min_vector);
  f3(h.range_vector);
  w.f32(h.range_time);
  w.u32(static_cast<std::uint32_t>(bones.size()));
  w.u64(stream.bytes.size());
  w.u64(0);
  w.bytes(stream.bytes);
  for (auto b : bones) w.u64(b);
  for (auto c : words) w.u32(c);
  return w.take();
}

}  // namespace rigrip::telltale
