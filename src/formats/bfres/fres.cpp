#include "formats/bfres/fres.hpp"
#include "formats/bfres/bntx.hpp"
#include "formats/bfres/camera.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <iterator>
#include <utility>

#include "core/byte_patcher.hpp"
#include "core/byte_reader.hpp"
#include "formats/bfres/curve_eval.hpp"
#include "formats/bfres/fres_detail.hpp"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace rigrip::bfres {
namespace detail {
using core::byte_reader;
using core::fail;

constexpr std::uint32_t kMaxBones = 4096;
constexpr std::uint32_t kMaxDictEntries = 65535;

// Structures may share data (two bone anims pointing at one curve array), so a hostile
// file could make the parser decode the same bytes many times. Every decoded element is
// counted against a budget proportional to the file size.
thread_local std::uint64_t work_left = 0;
void spend(std::uint64_t n, std::uint64_t at) {
  if (n > work_left)
    fail(code::limit_exceeded, "the file's structures overlap so much that decoding would exceed " +
                                   std::string("the work budget (16 elements per byte)"), at);
  work_left -= n;
}
void reset_work(std::size_t file_size) { work_left = 16ull * file_size + 65536; }

// Whether float curves keep their stored arrays (frames_raw, keys_raw): false only inside
// parse_for_scene (restored on the way out, exceptions included).
thread_local bool keep_raw_arrays = true;
struct raw_arrays_scope {
  bool saved = keep_raw_arrays;
  explicit raw_arrays_scope(bool keep) { keep_raw_arrays = keep; }
  ~raw_arrays_scope() { keep_raw_arrays = saved; }
  raw_arrays_scope(const raw_arrays_scope&) = delete;
  raw_arrays_scope& operator=(const raw_arrays_scope&) = delete;
};

// Wii U offsets are signed, relative to the offset field itself; 0 is null.
std::uint32_t offset_target(std::uint64_t at, std::int32_t v, std::uint64_t size) {
  if (v == 0) return 0;
  std::int64_t target = static_cast<std::int64_t>(at) + v;
  if (target < 0 || static_cast<std::uint64_t>(target) >= size)
    fail(code::bad_offset, "offset field points outside the file (" + std::to_string(target) + ")", at);
  return static_cast<std::uint32_t>(target);
}

std::uint32_t read_offset(byte_reader& r) {
  const std::uint64_t at = r.tell();
  return offset_target(at, r.i32(), r.size());
}

std::string read_name(const byte_reader& r, std::uint32_t at) {
  if (at == 0) return {};
  return r.cstring_at(at, 1024);
}

std::string magic_at(const byte_reader& r, std::uint32_t at) {
  auto p = r.peek(at);
  return p.fixed_string(4);
}

dict parse_dict(const byte_reader& file, std::uint32_t at) {
  byte_reader r = file.peek(at);
  dict d;
  d.at = at;
  d.size = r.u32();
  std::uint32_t raw_count = r.u32();
  d.count = static_cast<std::int32_t>(raw_count);
  if (raw_count > kMaxDictEntries)
    fail(code::bad_count, "dictionary entry count " + std::to_string(raw_count) + " exceeds the limit of " +
                              std::to_string(kMaxDictEntries), at + 4);
  r.checked_count(static_cast<std::uint64_t>(d.count) + 1, 16, "dictionary nodes");
  spend(static_cast<std::uint64_t>(d.count) + 1, at);
  for (std::int32_t i = 0; i <= d.count; ++i) {
    dict_node n;
    n.at = static_cast<std::uint32_t>(r.tell());
    n.ref_bit = r.u32();
    n.left = r.u16();
    n.right = r.u16();
    n.name_at = read_offset(r);
    n.data_at = read_offset(r);
    n.name = read_name(file, n.name_at);
    d.nodes.push_back(std::move(n));
  }
  return d;
}

std::vector<user_data> parse_user_data(const byte_reader& file, std::uint32_t dict_at) {
  std::vector<user_data> out;
  if (!dict_at) return out;
  dict d = parse_dict(file, dict_at);
  for (std::size_t i = 1; i < d.nodes.size(); ++i) {
    if (!d.nodes[i].data_at) continue;
    byte_reader r = file.peek(d.nodes[i].data_at);
    user_data u;
    u.name = read_name(file, read_offset(r));
    std::uint16_t count = r.u16();
    u.type = r.u8();
    r.skip(1);
    if (u.type > 4) fail(code::bad_value, "user data type " + std::to_string(u.type) + " is not 0-4", d.nodes[i].data_at + 6);
    r.checked_count(count, u.type == 4 ? 1 : 4, "user data values");
    spend(count + 1u, d.nodes[i].data_at);
    for (std::uint32_t k = 0; k < count; ++k) {
      switch (u.type) {
        case 0: u.values.push_back(r.i32()); break;
        case 1: u.values.push_back(r.f32()); break;
        case 4: u.values.push_back(r.u8()); break;
        default: {
          std::uint32_t at = read_offset(r);
          u.values.push_back(u.type == 2 ? read_name(file, at) : std::string("(wide string)"));
        }
      }
    }
    out.push_back(std::move(u));
  }
  return out;
}

}  // namespace detail

namespace {
using namespace detail;
using core::byte_reader;
using core::fail;

nlohmann::json user_json(const std::vector<user_data>& us) {
  nlohmann::json j = nlohmann::json::array();
  for (const auto& u : us) j.push_back({{"name", u.name}, {"type", u.type}, {"values", u.values}});
  return j;
}

std::array<float, 12> read_mtx(byte_reader& r) {
  std::array<float, 12> m{};
  for (auto& v : m) v = r.f32();
  return m;
}

skeleton parse_skeleton(const byte_reader& file, std::uint32_t at, bool v34) {
  byte_reader r = file.peek(at);
  if (r.fixed_string(4) != "FSKL") fail(code::bad_magic, "expected 'FSKL'", at);
  skeleton s;
  s.at = at;
  s.flags = r.u32();
  s.num_bones = r.u16();
  s.num_smooth = r.u16();
  s.num_rigid = r.u16();
  s.pad = r.u16();
  s.bone_dict_at = read_offset(r);
  s.bone_array_at = read_offset(r);
  s.mtx_to_bone_at = read_offset(r);
  if (v34) s.inverse_at = read_offset(r);
  s.user_ptr = r.u32();
  if (s.num_bones > kMaxBones) fail(code::bad_count, "bone count " + std::to_string(s.num_bones) + " over the limit", at + 8);
  std::uint32_t stride = v34 ? 0x40 : 0x70;
  if (s.num_bones && !s.bone_array_at) fail(code::bad_offset, "bones declared but no bone array", at + 0x14);
  if (s.num_bones) file.checked_count_at(s.bone_array_at, s.num_bones, stride, "bones");
  for (std::uint32_t i = 0; i < s.num_bones; ++i) {
    byte_reader b = file.peek(s.bone_array_at + i * stride);
    bone bn;
    spend(1, s.bone_array_at);
    bn.at = static_cast<std::uint32_t>(b.tell());
    bn.name_at = read_offset(b);
    bn.name = read_name(file, bn.name_at);
    bn.index = b.u16();
    bn.parent = b.i16();
    bn.smooth_index = b.i16();
    bn.rigid_index = b.i16();
    bn.billboard = b.u16();
    bn.num_user_data = b.u16();
    bn.flags = b.u32();
    for (auto& v : bn.scale) v = b.f32();
    for (auto& v : bn.rotate) v = b.f32();
    for (auto& v : bn.translate) v = b.f32();
    bn.user_data_at = read_offset(b);
    if (!v34) bn.inverse_matrix = read_mtx(b);
    bn.user = parse_user_data(file, bn.user_data_at);
    if (bn.parent >= static_cast<std::int32_t>(i) || bn.parent < -1)
      fail(code::bad_value, "bone '" + bn.name + "' has parent " + std::to_string(bn.parent) +
                                " (parents must precede children)", bn.at + 6);
    s.bones.push_back(std::move(bn));
  }
  std::uint32_t mtx = static_cast<std::uint32_t>(s.num_smooth) + s.num_rigid;
  if (s.mtx_to_bone_at && mtx) {
    byte_reader m = file.peek(s.mtx_to_bone_at);
    m.checked_count(mtx, 2, "matrix-to-bone table");
    for (std::uint32_t i = 0; i < mtx; ++i) s.mtx_to_bone.push_back(m.i16());
  }
  if (v34 && s.inverse_at && s.num_smooth) {
    byte_reader m = file.peek(s.inverse_at);
    m.checked_count(s.num_smooth, 48, "inverse model matrices");
    for (std::uint32_t i = 0; i < s.num_smooth; ++i) s.inverse_matrices.push_back(read_mtx(m));
  }
  return s;
}

// Bytes per stored value of a curve's frame or key type field (type 3 is undefined: 0).
std::size_t stored_size(int type) {
  switch (type) {
    case 0: return 4;
    case 1: return 2;
    case 2: return 1;
    default: return 0;
  }
}
std::size_t key_size(const curve& c) { return stored_size(c.key_type()); }
std::size_t frame_size(const curve& c) { return stored_size(c.frame_type()); }
std::size_t key_elements_stored(const curve& c) {
  if (c.type() == curve_type::step_bool || c.type() == curve_type::baked_bool)
    return (c.num_keys + 31u) / 32u;  // bit-packed, 32 per word
  return static_cast<std::size_t>(c.num_keys) * static_cast<std::size_t>(c.elements_per_key());
}

void read_curve_data(const byte_reader& file, curve& c);

// One load and at most one byte swap per word (the bytes of a big- or little-endian word).
std::uint32_t word32(const std::uint8_t* p, bool big) {
  std::uint32_t v;
  std::memcpy(&v, p, 4);
  if (big == (std::endian::native == std::endian::little)) v = __builtin_bswap32(v);
  return v;
}
std::uint16_t word16(const std::uint8_t* p, bool big) {
  std::uint16_t v;
  std::memcpy(&v, p, 2);
  if (big == (std::endian::native == std::endian::little)) v = __builtin_bswap16(v);
  return v;
}

curve parse_curve(const byte_reader& file, std::uint32_t at, bool v34) {
  byte_reader r = file.peek(at);
  curve c;
  c.at = at;
  if (const std::size_t size = v34 ? 0x24 : 0x20; r.remaining() >= size) {
    // The whole header lies in the file (one check): the fields straight from its bytes,
    // the offsets checked as read_offset checks them (same error, same offset).
    const std::uint8_t* p = r.bytes(size).data();
    const bool big = r.byte_order() == core::endian::big;
    c.flags = word16(p, big);
    c.num_keys = word16(p + 2, big);
    c.target = word32(p + 4, big);
    c.start = std::bit_cast<float>(word32(p + 8, big));
    c.end = std::bit_cast<float>(word32(p + 12, big));
    c.scale_bits = word32(p + 16, big);
    c.offset_bits = word32(p + 20, big);
    if (v34) c.delta = std::bit_cast<float>(word32(p + 24, big));
    auto offset = [&](std::uint32_t field) {
      return offset_target(std::uint64_t{at} + field, static_cast<std::int32_t>(word32(p + field, big)), file.size());
    };
    c.frames_at = offset(v34 ? 28 : 24);
    c.keys_at = offset(v34 ? 32 : 28);
    read_curve_data(file, c);
    return c;
  }
  c.flags = r.u16();
  c.num_keys = r.u16();
  c.target = r.u32();
  c.start = r.f32();
  c.end = r.f32();
  c.scale_bits = r.u32();
  c.offset_bits = r.u32();
  if (v34) c.delta = r.f32();
  c.frames_at = read_offset(r);
  c.keys_at = read_offset(r);
  read_curve_data(file, c);
  return c;
}

// An array's stored elements decoded on the fly: vector(first, last) from these allocates
// once and writes each element once (resize() would zero-fill the array first; with an
// input iterator it would grow step by step).
template <class Fn>
struct decoding_iterator {
  using iterator_category = std::random_access_iterator_tag;
  using value_type = decltype(std::declval<const Fn&>()(std::size_t{}));
  using difference_type = std::ptrdiff_t;
  using pointer = void;
  using reference = value_type;
  Fn fn;
  std::size_t i;
  value_type operator*() const { return fn(i); }
  decoding_iterator& operator++() { return ++i, *this; }
  decoding_iterator operator++(int) { auto t = *this; ++i; return t; }
  decoding_iterator& operator--() { return --i, *this; }
  decoding_iterator& operator+=(difference_type d) { return i += static_cast<std::size_t>(d), *this; }
  decoding_iterator& operator-=(difference_type d) { return i -= static_cast<std::size_t>(d), *this; }
  decoding_iterator operator+(difference_type d) const { return {fn, i + static_cast<std::size_t>(d)}; }
  decoding_iterator operator-(difference_type d) const { return {fn, i - static_cast<std::size_t>(d)}; }
  difference_type operator-(const decoding_iterator& o) const { return static_cast<difference_type>(i - o.i); }
  value_type operator[](difference_type d) const { return fn(i + static_cast<std::size_t>(d)); }
  bool operator==(const decoding_iterator& o) const { return i == o.i; }
  bool operator!=(const decoding_iterator& o) const { return i != o.i; }
  bool operator<(const decoding_iterator& o) const { return i < o.i; }
};
// out = {fn(0), ..., fn(n - 1)} in one allocation, no zero-fill.
template <class T, class Fn>
void fill_decoded(std::vector<T>& out, std::size_t n, Fn fn) {
  out = std::vector<T>(decoding_iterator<Fn>{fn, 0}, decoding_iterator<Fn>{fn, n});
}

// A stored array's raw values (integers as stored, or f32 bits) and their floats, for each
// stored type (0: 32-bit word, 1: s16, 2: u8 / s8 by `Unsigned8`); `as_float` maps a raw
// value to its float.
// `raws` is left empty when the parse does not keep raw arrays (keep_raw false).
template <int Type, bool Unsigned8, class AsFloat>
void decode_array(const std::uint8_t* raw, std::size_t n, bool big, std::vector<std::int64_t>& raws,
                  std::vector<float>& floats, AsFloat as_float, bool keep_raw) {
  auto fill = [&](auto word) {
    if (keep_raw) fill_decoded(raws, n, [raw, word](std::size_t i) { return static_cast<std::int64_t>(word(raw, i)); });
    fill_decoded(floats, n, [raw, word, as_float](std::size_t i) { return as_float(word(raw, i)); });
  };
  if constexpr (Type == 0) {
    if (big) fill([](const std::uint8_t* p, std::size_t i) { return word32(p + 4 * i, true); });
    else fill([](const std::uint8_t* p, std::size_t i) { return word32(p + 4 * i, false); });
  } else if constexpr (Type == 1) {
    if (big) fill([](const std::uint8_t* p, std::size_t i) { return static_cast<std::int16_t>(word16(p + 2 * i, true)); });
    else fill([](const std::uint8_t* p, std::size_t i) { return static_cast<std::int16_t>(word16(p + 2 * i, false)); });
  } else if constexpr (Unsigned8) {
    fill([](const std::uint8_t* p, std::size_t i) { return p[i]; });
  } else {
    fill([](const std::uint8_t* p, std::size_t i) { return static_cast<std::int8_t>(p[i]); });
  }
}

// The bytes of `count` elements of `size` bytes at `at`: straight from the data when they lie
// in it, else through the reader's checks (peek, checked_count, bytes: the same errors).
const std::uint8_t* array_in(const byte_reader& file, std::uint64_t at, std::uint64_t count, std::uint64_t size,
                             const char* what) {
  const std::span<const std::uint8_t> d = file.data();
  if (size != 0 && at <= d.size() && count <= (d.size() - at) / size) return d.data() + at;
  byte_reader r = file.peek(at);
  r.checked_count(count, size, what);
  return r.bytes(count * size).data();
}

// Checks a curve's header fields and reads its frame and key arrays (both platforms).
void read_curve_data(const byte_reader& file, curve& c) {
  const std::uint32_t at = c.at;
  if (frame_size(c) == 0) fail(code::bad_value, "curve frame type 3 is undefined", at);
  if (key_size(c) == 0) fail(code::bad_value, "curve key type 3 is undefined", at);
  int type = (c.flags >> 4) & 7;
  if (type == 3) fail(code::bad_value, "curve type 3 is undefined", at);
  if (!std::isfinite(c.start) || !std::isfinite(c.end) || c.end < c.start)
    fail(code::bad_value, "curve frame range is not finite or reversed", at + 8);
  if (c.num_keys == 0) fail(code::bad_count, "curve with no keys", at + 2);
  if (c.is_float() && (!std::isfinite(c.scale()) || !std::isfinite(c.offset())))
    fail(code::bad_value, "curve scale/offset is not finite", at + 0x10);
  if (c.frames_at) {
    // The array's length is checked once; the words are then read from the span unchecked.
    const std::uint8_t* raw = array_in(file, c.frames_at, c.num_keys, frame_size(c), "curve frames");
    const bool big = file.byte_order() == core::endian::big;
    const int ft = c.frame_type();
    // Integer and boolean curves always keep theirs: value() reads bool bits from keys_raw.
    const bool keep = keep_raw_arrays || !c.is_float();
    // f32 bits, s10.5 fixed point, u8 whole frames.
    if (ft == 0)
      decode_array<0, true>(raw, c.num_keys, big, c.frames_raw, c.frames, [](std::uint32_t b) { return std::bit_cast<float>(b); }, keep);
    else if (ft == 1)
      decode_array<1, true>(raw, c.num_keys, big, c.frames_raw, c.frames, [](std::int16_t v) { return static_cast<float>(v) / 32.0f; }, keep);
    else
      decode_array<2, true>(raw, c.num_keys, big, c.frames_raw, c.frames, [](std::uint8_t v) { return static_cast<float>(v); }, keep);
    // Baked curves index keys by frame number and never read the frame array.
    const bool keyed = c.type() != curve_type::baked_float && c.type() != curve_type::baked_int &&
                       c.type() != curve_type::baked_bool;
    if (keyed) {
      const float* fr = c.frames.data();
      bool clean = false;
#if defined(__SSE2__)
      // Four frames per step: a non-finite one or one below its predecessor sends the array
      // to the loop below, which reports the first of them (the same error, the same offset).
      const std::size_t nk = c.num_keys;
      const __m128i exponent = _mm_set1_epi32(0x7f800000);
      __m128i bad = _mm_setzero_si128();
      std::size_t i = 1;
      for (; i + 4 <= nk; i += 4) {
        const __m128 cur = _mm_loadu_ps(fr + i);
        bad = _mm_or_si128(bad, _mm_castps_si128(_mm_cmplt_ps(cur, _mm_loadu_ps(fr + i - 1))));
        bad = _mm_or_si128(bad, _mm_cmpeq_epi32(_mm_and_si128(_mm_castps_si128(cur), exponent), exponent));
      }
      clean = _mm_movemask_epi8(bad) == 0 && std::isfinite(fr[0]);
      for (; clean && i < nk; ++i) clean = std::isfinite(fr[i]) && !(fr[i] < fr[i - 1]);
#endif
      if (!clean)
        for (std::uint32_t i = 0; i < c.num_keys; ++i)
          if (!std::isfinite(fr[i]) || (i > 0 && fr[i] < fr[i - 1]))
            fail(code::bad_value, "curve frames must be finite and non-decreasing", c.frames_at + i * frame_size(c));
    }
  } else if (c.type() == curve_type::cubic || c.type() == curve_type::linear ||
             c.type() == curve_type::step_int || c.type() == curve_type::step_bool) {
    fail(code::bad_offset, "keyed curve without a frame array", at);
  }
  if (!c.keys_at) fail(code::bad_offset, "curve without a key array", at);
  std::size_t n = key_elements_stored(c);
  spend(n + c.num_keys + 1, at);
  const std::uint8_t* raw = array_in(file, c.keys_at, n, key_size(c), "curve keys");
  const bool big = file.byte_order() == core::endian::big;
  const int kt = c.key_type();
  const bool keep = keep_raw_arrays || !c.is_float();
  if (kt == 0) {
    if (c.is_float())
      decode_array<0, false>(raw, n, big, c.keys_raw, c.keys, [](std::uint32_t b) { return std::bit_cast<float>(b); }, keep);
    else
      decode_array<0, false>(raw, n, big, c.keys_raw, c.keys,
                   [](std::uint32_t b) { return static_cast<float>(static_cast<std::int32_t>(b)); }, keep);
    const float* kv = c.keys.data();
    for (std::size_t i = 0; i < n; ++i)
      if (!std::isfinite(kv[i])) fail(code::bad_value, "non-finite key", c.keys_at + i * 4);
  } else if (kt == 1) {
    decode_array<1, false>(raw, n, big, c.keys_raw, c.keys, [](std::int16_t v) { return static_cast<float>(v); }, keep);
  } else {
    decode_array<2, false>(raw, n, big, c.keys_raw, c.keys, [](std::int8_t v) { return static_cast<float>(v); }, keep);
  }
}

skeletal_anim parse_anim(const byte_reader& file, std::uint32_t at, bool v34) {
  byte_reader r = file.peek(at);
  if (r.fixed_string(4) != "FSKA") fail(code::bad_magic, "expected 'FSKA'", at);
  skeletal_anim a;
  a.at = at;
  a.name_at = read_offset(r);
  a.path_at = read_offset(r);
  a.name = read_name(file, a.name_at);
  a.path = read_name(file, a.path_at);
  a.flags = r.u32();
  if (v34) {
    a.frame_count = r.i32();
    a.num_bone_anims = r.u16();
    a.num_user_data = r.u16();
    a.num_curves = r.i32();
    a.baked_size = r.u32();
  } else {
    a.frame_count = r.i16();
    a.num_bone_anims = r.u16();
    a.num_curves = r.i32();
    a.baked_size = r.u32();
    a.num_user_data = r.u16();
    auto tail = r.bytes(2);
    a.pre34_tail = {tail[0], tail[1], 0, 0};
  }
  a.bone_anims_at = read_offset(r);
  a.bind_skeleton_at = read_offset(r);
  a.bind_index_at = read_offset(r);
  a.user_data_at = read_offset(r);
  if (a.frame_count < 0) fail(code::bad_value, "negative frame count", at + 0x10);
  if (a.num_bone_anims && !a.bone_anims_at) fail(code::bad_offset, "bone animations declared but absent", at + 0x20);
  if (a.num_bone_anims) file.checked_count_at(a.bone_anims_at, a.num_bone_anims, 0x18, "bone animations");
  a.bone_anims.reserve(a.num_bone_anims);  // checked against the file just above
  std::uint32_t curve_stride = v34 ? 0x24 : 0x20;
  std::int64_t total_curves = 0;
  for (std::uint32_t i = 0; i < a.num_bone_anims; ++i) {
    byte_reader b = file.peek(a.bone_anims_at + i * 0x18);
    bone_anim ba;
    spend(1, a.bone_anims_at);
    ba.at = static_cast<std::uint32_t>(b.tell());
    // The array lies in the file (checked above): the fields straight from the entry's bytes,
    // the offsets checked as read_offset checks them (the same errors, in the same order).
    const std::uint8_t* p = b.bytes(0x18).data();
    const bool big = b.byte_order() == core::endian::big;
    auto offset = [&](std::uint32_t field) {
      return offset_target(std::uint64_t{ba.at} + field, static_cast<std::int32_t>(word32(p + field, big)), file.size());
    };
    ba.flags = word32(p, big);
    ba.name_at = offset(4);
    ba.name = read_name(file, ba.name_at);
    ba.begin_rotate = p[8];
    ba.begin_translate = p[9];
    ba.num_curves = p[10];
    ba.begin_base_translate = p[11];
    std::copy(p + 12, p + 16, ba.begin_curve.begin());
    ba.curves_at = offset(0x10);
    ba.base_at = offset(0x14);
    if (ba.num_curves && !ba.curves_at) fail(code::bad_offset, "curves declared but absent", ba.at + 0x10);
    if (ba.num_curves) file.checked_count_at(ba.curves_at, ba.num_curves, curve_stride, "curves");
    ba.curves.reserve(ba.num_curves);  // at most 255, checked against the file
    for (std::uint32_t c = 0; c < ba.num_curves; ++c)
      ba.curves.push_back(parse_curve(file, ba.curves_at + c * curve_stride, v34));
    std::size_t nbase = (ba.has_base_scale() ? 3 : 0) + (ba.has_base_rotate() ? 4 : 0) + (ba.has_base_translate() ? 3 : 0);
    if (nbase) {
      if (!ba.base_at) fail(code::bad_offset, "base values declared but absent", ba.at + 0x14);
      byte_reader bv = file.peek(ba.base_at);
      bv.checked_count(nbase, 4, "base values");
      const std::uint8_t* q = bv.bytes(nbase * 4).data();
      const bool big_values = bv.byte_order() == core::endian::big;
      ba.base.reserve(nbase);
      for (std::size_t k = 0; k < nbase; ++k) {
        ba.base.push_back(std::bit_cast<float>(word32(q + 4 * k, big_values)));
        if (!std::isfinite(ba.base.back())) fail(code::bad_value, "non-finite base value", ba.base_at + k * 4);
      }
    }
    total_curves += ba.num_curves;
    a.bone_anims.push_back(std::move(ba));
  }
  if (a.bind_index_at && a.num_bone_anims) {
    byte_reader bi = file.peek(a.bind_index_at);
    bi.checked_count(a.num_bone_anims, 2, "bind indices");
    a.bind_indices.reserve(a.num_bone_anims);
    for (std::uint32_t i = 0; i < a.num_bone_anims; ++i) a.bind_indices.push_back(bi.u16());
  }
  (void)total_curves;
  a.user = parse_user_data(file, a.user_data_at);
  if (a.bind_skeleton_at) a.bind_skeleton = parse_skeleton(file, a.bind_skeleton_at, v34);
  return a;
}

// Big-endian patching of the image, used by serialise().
// FRES is big-endian; its offsets are relative to the field that holds them (0 = none).
struct patcher : core::byte_patcher {
  void offset(std::uint32_t at, std::uint32_t target) {
    u32(at, target == 0 ? 0 : static_cast<std::uint32_t>(static_cast<std::int32_t>(target - at)));
  }
};


// A value stored in `size` bytes (4, 2 or 1).
void put_sized(core::byte_patcher& p, std::uint32_t at, std::size_t size, std::uint32_t v) {
  if (size == 4) p.u32(at, v);
  else if (size == 2) p.u16(at, static_cast<std::uint16_t>(v));
  else p.u8(at, static_cast<std::uint8_t>(v));
}

void patch_skeleton(patcher& p, const skeleton& s, bool v34) {
  p.u32(s.at + 4, s.flags);
  p.u16(s.at + 8, s.num_bones);
  p.u16(s.at + 10, s.num_smooth);
  p.u16(s.at + 12, s.num_rigid);
  p.u16(s.at + 14, s.pad);
  p.offset(s.at + 0x10, s.bone_dict_at);
  p.offset(s.at + 0x14, s.bone_array_at);
  p.offset(s.at + 0x18, s.mtx_to_bone_at);
  if (v34) p.offset(s.at + 0x1C, s.inverse_at);
  p.u32(s.at + (v34 ? 0x20 : 0x1C), s.user_ptr);
  for (const auto& b : s.bones) {
    p.offset(b.at, b.name_at);
    p.u16(b.at + 4, b.index);
    p.u16(b.at + 6, static_cast<std::uint16_t>(b.parent));
    p.u16(b.at + 8, static_cast<std::uint16_t>(b.smooth_index));
    p.u16(b.at + 10, static_cast<std::uint16_t>(b.rigid_index));
    p.u16(b.at + 12, b.billboard);
    p.u16(b.at + 14, b.num_user_data);
    p.u32(b.at + 16, b.flags);
    for (std::uint32_t i = 0; i < 3; ++i) p.f32(b.at + 0x14 + 4 * i, b.scale[i]);
    for (std::uint32_t i = 0; i < 4; ++i) p.f32(b.at + 0x20 + 4 * i, b.rotate[i]);
    for (std::uint32_t i = 0; i < 3; ++i) p.f32(b.at + 0x30 + 4 * i, b.translate[i]);
    p.offset(b.at + 0x3C, b.user_data_at);
    if (b.inverse_matrix)
      for (std::uint32_t i = 0; i < 12; ++i) p.f32(b.at + 0x40 + 4 * i, (*b.inverse_matrix)[i]);
  }
  for (std::uint32_t i = 0; i < s.mtx_to_bone.size(); ++i)
    p.u16(s.mtx_to_bone_at + 2 * i, static_cast<std::uint16_t>(s.mtx_to_bone[i]));
  for (std::uint32_t i = 0; i < s.inverse_matrices.size(); ++i)
    for (std::uint32_t k = 0; k < 12; ++k) p.f32(s.inverse_at + 48 * i + 4 * k, s.inverse_matrices[i][k]);
}

void patch_curve_data(core::byte_patcher& p, const curve& c);

void patch_curve(patcher& p, const curve& c) {
  p.u16(c.at, c.flags);
  p.u16(c.at + 2, c.num_keys);
  p.u32(c.at + 4, c.target);
  p.f32(c.at + 8, c.start);
  p.f32(c.at + 12, c.end);
  p.u32(c.at + 16, c.scale_bits);
  p.u32(c.at + 20, c.offset_bits);
  std::uint32_t o = 24;
  if (c.delta) p.f32(c.at + 24, *c.delta), o = 28;
  p.offset(c.at + o, c.frames_at);
  p.offset(c.at + o + 4, c.keys_at);
  patch_curve_data(p, c);
}

// The frame and key arrays as stored (both platforms).
void patch_curve_data(core::byte_patcher& p, const curve& c) {
  std::size_t fs = frame_size(c), ks = key_size(c);
  for (std::uint32_t i = 0; i < c.frames_raw.size(); ++i)
    put_sized(p, c.frames_at + static_cast<std::uint32_t>(fs) * i, fs, static_cast<std::uint32_t>(c.frames_raw[i]));
  for (std::uint32_t i = 0; i < c.keys_raw.size(); ++i)
    put_sized(p, c.keys_at + static_cast<std::uint32_t>(ks) * i, ks, static_cast<std::uint32_t>(c.keys_raw[i]));
}

void patch_anim(patcher& p, const skeletal_anim& a, bool v34) {
  p.offset(a.at + 4, a.name_at);
  p.offset(a.at + 8, a.path_at);
  p.u32(a.at + 0x0C, a.flags);
  if (v34) {
    p.u32(a.at + 0x10, static_cast<std::uint32_t>(a.frame_count));
    p.u16(a.at + 0x14, a.num_bone_anims);
    p.u16(a.at + 0x16, a.num_user_data);
    p.u32(a.at + 0x18, static_cast<std::uint32_t>(a.num_curves));
    p.u32(a.at + 0x1C, a.baked_size);
  } else {
    p.u16(a.at + 0x10, static_cast<std::uint16_t>(a.frame_count));
    p.u16(a.at + 0x12, a.num_bone_anims);
    p.u32(a.at + 0x14, static_cast<std::uint32_t>(a.num_curves));
    p.u32(a.at + 0x18, a.baked_size);
    p.u16(a.at + 0x1C, a.num_user_data);
    p.u8(a.at + 0x1E, a.pre34_tail[0]);
    p.u8(a.at + 0x1F, a.pre34_tail[1]);
  }
  p.offset(a.at + 0x20, a.bone_anims_at);
  p.offset(a.at + 0x24, a.bind_skeleton_at);
  p.offset(a.at + 0x28, a.bind_index_at);
  p.offset(a.at + 0x2C, a.user_data_at);
  for (std::uint32_t i = 0; i < a.bind_indices.size(); ++i) p.u16(a.bind_index_at + 2 * i, a.bind_indices[i]);
  for (const auto& b : a.bone_anims) {
    p.u32(b.at, b.flags);
    p.offset(b.at + 4, b.name_at);
    p.u8(b.at + 8, b.begin_rotate);
    p.u8(b.at + 9, b.begin_translate);
    p.u8(b.at + 10, b.num_curves);
    p.u8(b.at + 11, b.begin_base_translate);
    for (std::uint32_t i = 0; i < 4; ++i) p.u8(b.at + 12 + i, b.begin_curve[i]);
    p.offset(b.at + 0x10, b.curves_at);
    p.offset(b.at + 0x14, b.base_at);
    for (std::uint32_t i = 0; i < b.base.size(); ++i) p.f32(b.base_at + 4 * i, b.base[i]);
    for (const auto& c : b.curves) patch_curve(p, c);
  }
}

}  // namespace

namespace detail {
curve parse_curve_at(const core::byte_reader& file, std::uint32_t at, bool v34) { return parse_curve(file, at, v34); }
void read_curve_arrays(const core::byte_reader& file, curve& c) { read_curve_data(file, c); }
void patch_curve_arrays(core::byte_patcher& p, const curve& c) { patch_curve_data(p, c); }
}  // namespace detail

int curve::elements_per_key() const {
  switch (type()) {
    case curve_type::cubic: return 4;
    case curve_type::linear: return 2;
    default: return 1;
  }
}
bool curve::is_float() const {
  auto t = type();
  return t == curve_type::cubic || t == curve_type::linear || t == curve_type::baked_float;
}
float curve::scale() const {
  return is_float() ? std::bit_cast<float>(scale_bits) : static_cast<float>(static_cast<std::int32_t>(scale_bits));
}
float curve::offset() const {
  return is_float() ? std::bit_cast<float>(offset_bits) : static_cast<float>(static_cast<std::int32_t>(offset_bits));
}

namespace {
// Curves are evaluated in double: `poly * scale + offset` in float loses the small result
// of a large offset (cancellation), up to ~1e-5 relative on the samples.
double wrap(const curve& c, double f) {
  const double dur = static_cast<double>(c.end) - c.start;
  if (f >= c.start && f <= c.end) return f;
  int mode = f < c.start ? c.pre_wrap() : c.post_wrap();
  if (mode == 0 || !(dur > 0)) return std::clamp<double>(f, c.start, c.end);
  const double diff = f < c.start ? c.start - f : f - c.start;
  const double count = std::floor(diff / dur);
  const double mod = diff - dur * count;
  const bool odd = static_cast<long long>(count) % 2 != 0;
  if (mode == 2 && odd) return f < c.start ? c.start + mod : c.end - mod;
  return f < c.start ? c.end - mod : c.start + mod;
}
// Index of the segment holding f: frames[i] <= f < frames[i+1], or the last key.
std::size_t segment(const curve& c, double f) {
  auto it = std::upper_bound(c.frames.begin(), c.frames.end(), f, [](double x, float fr) { return x < fr; });
  if (it == c.frames.begin()) return 0;
  return static_cast<std::size_t>(it - c.frames.begin()) - 1;
}
// segment() starting from the last one found: frames visited in order stay in it or move
// to the next one; anything else searches again.
std::size_t segment(const curve& c, double f, std::size_t& cursor) {
  const std::size_t n = c.frames.size(), i = cursor;
  auto holds = [&](std::size_t k) { return k < n && c.frames[k] <= f && (k + 1 == n || f < c.frames[k + 1]); };
  if (holds(i)) return i;
  if (holds(i + 1)) return cursor = i + 1;
  return cursor = segment(c, f);
}
// std::lower_bound(frames, f) (first key not below f) starting from the last one found:
// in a sorted array that index is the only p with frames[p - 1] < f <= frames[p] (ends
// open), so checking the hint and the next index, else searching, gives the same p.
std::size_t lower_key(const curve& c, double f, std::size_t& hint) {
  const std::size_t n = c.frames.size();
  auto is_it = [&](std::size_t p) { return p <= n && (p == 0 || c.frames[p - 1] < f) && (p == n || !(c.frames[p] < f)); };
  if (is_it(hint)) return hint;
  if (hint < n && is_it(hint + 1)) return ++hint;
  hint = static_cast<std::size_t>(std::lower_bound(c.frames.begin(), c.frames.end(), f, [](float fr, double x) { return fr < x; }) -
                                  c.frames.begin());
  return hint;
}
double poly(const curve& c, std::size_t i, double t) {
  const float* k = &c.keys[i * static_cast<std::size_t>(c.elements_per_key())];
  if (c.type() == curve_type::cubic) return ((static_cast<double>(k[3]) * t + k[2]) * t + k[1]) * t + k[0];
  return static_cast<double>(k[1]) * t + k[0];
}
}  // namespace

double curve::value(double frame) const {
  std::size_t cursor = static_cast<std::size_t>(-1);
  return value(frame, cursor);
}

double curve::value(double frame, std::size_t& cursor) const {
  const double f = wrap(*this, frame);
  const std::size_t n = num_keys;
  double v = 0;
  switch (type()) {
    case curve_type::cubic:
    case curve_type::linear: {
      const std::size_t i = segment(*this, f, cursor);
      double t = 0;
      if (i + 1 < n && f > frames[i]) {
        const double span = static_cast<double>(frames[i + 1]) - frames[i];
        t = span > 0 ? (f - frames[i]) / span : 0;
      }
      v = poly(*this, i, t);
      break;
    }
    case curve_type::baked_float:
    case curve_type::baked_int:
    case curve_type::baked_bool: {
      long long idx = static_cast<long long>(f) - static_cast<long long>(start);
      idx = std::clamp<long long>(idx, 0, static_cast<long long>(n) - 1);
      const double ratio = f - (static_cast<double>(start) + static_cast<double>(idx));
      const auto u = static_cast<std::size_t>(idx);
      if (type() == curve_type::baked_bool) {
        v = static_cast<double>((static_cast<std::uint32_t>(keys_raw[u / 32]) >> (idx % 32)) & 1);
      } else if (type() == curve_type::baked_int || u + 1 >= n) {
        v = keys[u];  // at frame == end the last key (never one past it)
      } else {
        v = static_cast<double>(keys[u + 1]) * ratio + static_cast<double>(keys[u]) * (1.0 - ratio);
      }
      break;
    }
    case curve_type::step_int: v = keys[segment(*this, f)]; break;
    case curve_type::step_bool: {
      const std::size_t i = segment(*this, f);
      v = static_cast<double>((static_cast<std::uint32_t>(keys_raw[i / 32]) >> (i % 32)) & 1);
      break;
    }
  }
  return is_float() ? v * static_cast<double>(scale()) + static_cast<double>(offset()) : v + offset();
}

float curve::eval(float frame) const { return static_cast<float>(value(frame)); }

namespace {
// Frame first + j as value() sees it (an int32 frame rounded to float).
double frame_of(std::int32_t first, std::size_t j) {
  return static_cast<double>(static_cast<float>(first + static_cast<std::int32_t>(j)));
}

// Segment i's polynomial at frame f, scaled, for a cubic (Cubic) or linear curve: value()'s
// operations in its order, the one formula both paths of eval_frames use.
template <bool Cubic>
float segment_at(const curve& c, std::size_t i, double f, double sc, double off) {
  double t = 0;
  if (i + 1 < c.num_keys && f > c.frames[i]) {
    const double span = static_cast<double>(c.frames[i + 1]) - c.frames[i];
    t = span > 0 ? (f - c.frames[i]) / span : 0;
  }
  const float* k = &c.keys[i * (Cubic ? 4 : 2)];
  const double v = Cubic ? ((static_cast<double>(k[3]) * t + k[2]) * t + k[1]) * t + k[0]
                         : static_cast<double>(k[1]) * t + k[0];
  return static_cast<float>(v * sc + off);
}

// eval_frames' run inside [start, end]. Whole frames below 2^24 are exact as floats, so
// frame first + j as a double is first + j (a double counter, Counter) there.
template <bool Cubic, bool Counter>
void eval_run_in(const curve& c, std::int32_t first, std::size_t count, float* out, std::size_t& cursor) {
  const std::size_t n = c.num_keys, per = Cubic ? 4 : 2, nf = c.frames.size(), keyed = std::min(n, nf);
  const float* frames = c.frames.data();
  const float* keys = c.keys.data();
  const double sc = static_cast<double>(c.scale()), off = static_cast<double>(c.offset());
  // A run inside [start, end] (checked at its ends; frames increase) is never wrapped, and
  // its segment only moves forward: after one search at the first frame, a step over the
  // keys at or before each frame finds what segment() finds (the last key <= f; frames are
  // non-decreasing). Same t, polynomial and rounding as segment_at(), so the same floats.
  std::size_t i = segment(c, frame_of(first, 0), cursor);
  std::size_t j = 0;
  double f = frame_of(first, 0);
  auto next_frame = [&] { return Counter ? f + 1.0 : frame_of(first, j); };
  while (j < count) {
    while (i + 1 < nf && frames[i + 1] <= f) ++i;
    if (i + 1 >= n || !(f >= frames[i])) {  // last key, or before the first: per frame
      out[j] = segment_at<Cubic>(c, i, f, sc, off);
      if (++j == count) break;
      f = next_frame();
      continue;
    }
    // Inside the keys: frames[i] <= f from here on (each step below takes only keys <= f),
    // so segment after segment without the before-the-first test.
    for (;;) {
      // Frames j, j + 1, ... below frames[i + 1] lie in segment i (frames[i] <= f, so span > 0):
      // segment_at()'s t = (f - frames[i]) / span for each (+0 at f == frames[i], as it gives);
      // every operation is segment_at()'s, in its order. The run ends at the next key or the block.
      const double fi = frames[i], next = frames[i + 1];
      const float* k = &keys[i * per];
      if (f == fi && k[0] != 0.0f) {
        // A frame on the key (most segments of densely keyed curves hold just this one): t is
        // +0, so every term before k0 is a zero or a key and the sum ends as exactly k0 (a
        // zero added to a nonzero k0). The other coefficients are not needed.
        out[j] = static_cast<float>(static_cast<double>(k[0]) * sc + off);
        if (++j == count) break;
        f = next_frame();
        // Keys on consecutive frames: while the new frame is exactly the next key, the last
        // key at or below it (the one after lies above it, so the step below stops there) and
        // not the last key, with a nonzero k0, the step below would land on that key and
        // come back here: the same value, without the round trip.
        // Compared as floats: every frame here is a float's value (whole frames below 2^24
        // with the counter, which stay exact plus 1).
        const std::size_t seg = i;
        float ff = static_cast<float>(f);
        while (i + 2 < keyed && ff == frames[i + 1] && frames[i + 2] > ff && keys[(i + 1) * per] != 0.0f) {
          ++i;
          out[j] = static_cast<float>(static_cast<double>(keys[i * per]) * sc + off);
          if (++j == count) break;
          f = next_frame();
          ff = Counter ? ff + 1.0f : static_cast<float>(f);
        }
        if (j == count) break;
        if (!(f < frames[i + 1])) {
          if (i + 1 < nf) ++i;
          while (i + 1 < nf && frames[i + 1] <= f) ++i;
          if (i + 1 >= n) break;
          continue;
        }
        if (i != seg) continue;  // inside the key reached, past it: its own polynomial from the top
      }
      const double span = next - fi;
      const double k0 = k[0], k1 = k[1], k2 = Cubic ? k[2] : 0.0, k3 = Cubic ? k[3] : 0.0;
      do {
        const double t = (f - fi) / span;
        out[j] = static_cast<float>((Cubic ? ((k3 * t + k2) * t + k1) * t + k0 : k1 * t + k0) * sc + off);
        if (++j == count) break;
        f = next_frame();
      } while (f < next);
      if (j == count) break;
      // f >= frames[i + 1]: the keys at or before f, then the next segment if one is left.
      if (i + 1 < nf) ++i;
      while (i + 1 < nf && frames[i + 1] <= f) ++i;
      if (i + 1 >= n) break;
    }
  }
  cursor = i;
}

template <bool Cubic>
void eval_run(const curve& c, std::int32_t first, std::size_t count, float* out, std::size_t& cursor) {
  constexpr std::int64_t exact = std::int64_t{1} << 24;
  if (first >= -exact && static_cast<std::int64_t>(first) + static_cast<std::int64_t>(count) <= exact)
    eval_run_in<Cubic, true>(c, first, count, out, cursor);
  else
    eval_run_in<Cubic, false>(c, first, count, out, cursor);
}

template <bool Cubic>
void eval_cubic_or_linear(const curve& c, std::int32_t first, std::size_t count, float* out, std::size_t& cursor) {
  if (frame_of(first, 0) >= c.start && frame_of(first, count - 1) <= c.end) {
    eval_run<Cubic>(c, first, count, out, cursor);
    return;
  }
  const double sc = static_cast<double>(c.scale()), off = static_cast<double>(c.offset());
  for (std::size_t j = 0; j < count; ++j) {
    const double f = wrap(c, frame_of(first, j));
    out[j] = segment_at<Cubic>(c, segment(c, f, cursor), f, sc, off);
  }
}
}  // namespace

// value(frame, cursor)'s cubic/linear case with the same operations in the same order.
void curve::eval_frames(std::int32_t first, std::size_t count, float* out, std::size_t& cursor) const {
  const curve_type ty = type();
  if (ty != curve_type::cubic && ty != curve_type::linear) {
    for (std::size_t j = 0; j < count; ++j)
      out[j] = eval(static_cast<float>(first + static_cast<std::int32_t>(j)), cursor);
    return;
  }
  if (count == 0) return;
  if (ty == curve_type::cubic) eval_cubic_or_linear<true>(*this, first, count, out, cursor);
  else eval_cubic_or_linear<false>(*this, first, count, out, cursor);
}

double curve::value_left(double frame) const {
  std::size_t lower = static_cast<std::size_t>(-1), cursor = lower;  // no hints: plain searches
  return value_left(frame, lower, cursor);
}

double curve::value_left(double frame, std::size_t& lower, std::size_t& cursor) const {
  if ((type() != curve_type::cubic && type() != curve_type::linear) || frame <= start || frame > end) return value(frame, cursor);
  const std::size_t at = lower_key(*this, frame, lower);
  if (at == 0 || at == frames.size() || frames[at] != frame) return value(frame, cursor);
  const std::size_t i = at - 1;
  if (!(frames[i + 1] > frames[i])) return value(frame, cursor);
  return poly(*this, i, 1.0) * static_cast<double>(scale()) + static_cast<double>(offset());
}

// value_left()'s paths that return value(frame, cursor) compare equal to it (a value is
// never NaN: finite keys, frames, scale and offset), so only its key path is evaluated.
bool jumps_at(const curve& c, double frame, std::size_t& lower, std::size_t& cursor) {
  if ((c.type() != curve_type::cubic && c.type() != curve_type::linear) || frame <= c.start || frame > c.end) return false;
  const std::size_t at = lower_key(c, frame, lower);
  if (at == 0 || at == c.frames.size() || c.frames[at] != frame) return false;
  const std::size_t i = at - 1;
  if (!(c.frames[i + 1] > c.frames[i])) return false;
  return poly(c, i, 1.0) * static_cast<double>(c.scale()) + static_cast<double>(c.offset()) != c.value(frame, cursor);
}

float curve::eval_left(float frame) const { return static_cast<float>(value_left(frame)); }

double curve::slope(double f, bool from_left) const {
  std::size_t lower = static_cast<std::size_t>(-1), cursor = lower;  // no hints: plain searches
  return slope(f, from_left, lower, cursor);
}

namespace {
// slope()'s formula in segment i of a cubic or linear curve (n >= 2 keys).
double slope_in(const curve& c, std::size_t i, double f) {
  if (i + 1 >= c.num_keys) return 0;
  const double span = static_cast<double>(c.frames[i + 1]) - c.frames[i];
  if (!(span > 0)) return 0;
  const double t = std::clamp((f - c.frames[i]) / span, 0.0, 1.0);
  const float* k = &c.keys[i * static_cast<std::size_t>(c.elements_per_key())];
  const double d = c.type() == curve_type::cubic ? k[1] + 2.0 * k[2] * t + 3.0 * k[3] * t * t : static_cast<double>(k[1]);
  return d / span * static_cast<double>(c.scale());
}
}  // namespace

double curve::slope(double f, bool from_left, std::size_t& lower, std::size_t& cursor) const {
  if (type() != curve_type::cubic && type() != curve_type::linear) return 0;
  if (num_keys < 2) return 0;
  std::size_t i;
  if (from_left) {
    const std::size_t at = lower_key(*this, f, lower);
    if (at == 0) return 0;
    i = at - 1;
  } else {
    i = segment(*this, f, cursor);
    if (f < frames.front()) return 0;
  }
  return slope_in(*this, i, f);
}

float curve::derivative(float f, bool from_left) const { return static_cast<float>(slope(f, from_left)); }

curve_sampler::curve_sampler(const curve& c) : c_(&c) {
  const curve_type ty = c.type();
  fast_ = (ty == curve_type::cubic || ty == curve_type::linear) && c.num_keys >= 2 && c.frames.size() == c.num_keys &&
          c.keys.size() >= std::size_t{c.num_keys} * static_cast<std::size_t>(c.elements_per_key());
  cubic_ = ty == curve_type::cubic;
  frames_ = c.frames.data(), keys_ = c.keys.data(), n_ = c.num_keys;
  start_ = c.start, end_ = c.end;
  scale_ = static_cast<double>(c.scale()), offset_ = static_cast<double>(c.offset());
}

// Inside [start, end] value() does not wrap, so value() and slope(f, false) share one segment
// search, and lower_key's index follows from it (the segment's key when it is below f, else
// the first of the keys equal to f, or 0 before the first key). The operations of poly,
// slope_in and value's t, in their order, with the curve's type, scale and offset known: the
// same doubles. Elsewhere (wrapping, other curve types) the members themselves.
curve_sample curve_sampler::sample(double f, std::size_t& seg, std::size_t& lower) const {
  if (!fast_ || !(f >= start_ && f <= end_))
    return {c_->slope(f, true, lower, seg), c_->value(f, seg), c_->slope(f, false, lower, seg), jumps_at(*c_, f, lower, seg)};
  const float* fr = frames_;
  const std::size_t n = n_;
  // segment(): the last key <= f (0 before the first), the only index that `holds`;
  // frames mostly increase, so try the previous one and its neighbours before searching.
  auto holds = [&](std::size_t k) { return k < n && fr[k] <= f && (k + 1 == n || f < fr[k + 1]); };
  std::size_t i = seg;
  if (!holds(i)) i = holds(i + 1) ? i + 1 : i > 0 && holds(i - 1) ? i - 1 : segment(*c_, f);
  seg = i;
  const std::size_t per = cubic_ ? 4 : 2;
  // slope_in's derivative at t in segment s, scaled (its operations in its order).
  auto slope_t = [&](std::size_t s, double t, double span) __attribute__((always_inline)) {
    const float* k = keys_ + s * per;
    const double d = cubic_ ? k[1] + 2.0 * k[2] * t + 3.0 * k[3] * t * t : static_cast<double>(k[1]);
    return d / span * scale_;
  };
  auto poly_t = [&](std::size_t s, double t) __attribute__((always_inline)) {
    const float* k = keys_ + s * per;
    if (cubic_) return ((static_cast<double>(k[3]) * t + k[2]) * t + k[1]) * t + k[0];
    return static_cast<double>(k[1]) * t + k[0];
  };
  // The two common cases, with what the general path below computes for them (frames sorted,
  // so fr[0] <= fr[i]; checked anyway):
  if (i + 1 < n && !(f < fr[0])) {
    const double fi = fr[i], next = fr[i + 1];
    if (fi < f) {
      // Strictly inside segment i (holds: f < next): value's t and the slope's clamped t are
      // the same quotient, in (0, 1] (the rounded f - fi is at most the exact span); the
      // first key not below f is i + 1, so the left slope is the right one; no key at f, no jump.
      lower = i + 1;
      const double span = next - fi, t = (f - fi) / span;
      const double d = slope_t(i, t, span);
      return {d, poly_t(i, t) * scale_ + offset_, d, false};
    }
    if (i > 0 && fi == f && fr[i - 1] < f) {
      // On key i, the first key at f: value's t is +0, the right slope's clamp(+0 / span) is +0,
      // the left slope's clamp((f - fr[i-1]) / (fr[i] - fr[i-1])) is exactly 1.
      lower = i;
      const double before = fr[i - 1];
      const double v = poly_t(i, 0.0) * scale_ + offset_;
      const bool jump = f > start_ && poly_t(i - 1, 1.0) * scale_ + offset_ != v;
      return {slope_t(i - 1, 1.0, fi - before), v, slope_t(i, 0.0, next - fi), jump};
    }
  }
  std::size_t at;
  if (f < fr[0]) at = 0;
  else if (fr[i] < f) at = i + 1;
  else for (at = i; at > 0 && !(fr[at - 1] < f); --at) {}
  lower = at;
  auto poly_at = [&](std::size_t s, double t) {
    const float* k = keys_ + s * per;
    if (cubic_) return ((static_cast<double>(k[3]) * t + k[2]) * t + k[1]) * t + k[0];
    return static_cast<double>(k[1]) * t + k[0];
  };
  auto slope_at = [&](std::size_t s) __attribute__((always_inline)) {  // inline: two calls per key frame
    if (s + 1 >= n) return 0.0;
    const double span = static_cast<double>(fr[s + 1]) - fr[s];
    if (!(span > 0)) return 0.0;
    const double t = std::clamp((f - fr[s]) / span, 0.0, 1.0);
    const float* k = keys_ + s * per;
    const double d = cubic_ ? k[1] + 2.0 * k[2] * t + 3.0 * k[3] * t * t : static_cast<double>(k[1]);
    return d / span * scale_;
  };
  curve_sample r{};
  double t = 0;
  if (i + 1 < n && f > fr[i]) {
    const double span = static_cast<double>(fr[i + 1]) - fr[i];
    t = span > 0 ? (f - fr[i]) / span : 0;
  }
  r.value = poly_at(i, t) * scale_ + offset_;
  r.right = f < fr[0] ? 0 : slope_at(i);
  // Strictly inside segment i the left slope is the same call (at - 1 == i).
  r.left = at == 0 ? 0 : at - 1 == i ? r.right : slope_at(at - 1);
  r.jump = f > start_ && at != 0 && at != n && fr[at] == f && fr[at] > fr[at - 1] && poly_at(at - 1, 1.0) * scale_ + offset_ != r.value;
  return r;
}

std::string file::version_string() const {
  return std::to_string(version >> 24) + "." + std::to_string((version >> 16) & 0xFF) + "." +
         std::to_string((version >> 8) & 0xFF) + "." + std::to_string(version & 0xFF);
}

platform detect_platform(std::span<const std::uint8_t> d) {
  if (d.size() < 8 || std::memcmp(d.data(), "FRES", 4) != 0) return platform::unknown;
  if (std::memcmp(d.data() + 4, "    ", 4) == 0) return platform::switch_;
  return platform::wiiu;
}

file parse_for_scene(std::vector<std::uint8_t> image) {
  const detail::raw_arrays_scope scope(false);
  return parse(std::move(image));
}

file parse(std::vector<std::uint8_t> image) {
  file f;
  f.image = std::move(image);
  detail::work_left = 16ull * f.image.size() + 65536;
  byte_reader r(f.image, core::endian::big);
  if (r.fixed_string(4) != "FRES") fail(code::bad_magic, "expected 'FRES'", 0);
  if (detect_platform(f.image) == platform::switch_) return parse_switch(std::move(f.image));
  f.version = r.u32();
  f.bom = r.u16();
  if (f.bom != 0xFEFF) fail(code::bad_value, "byte-order mark is not FEFF (big-endian Wii U)", 8);
  if (f.version < 0x02040000 || f.version >= 0x05000000)
    fail(code::unsupported_version, "FRES version " + f.version_string() + " (supported: 2.4 to 4.x)", 4);
  f.header_size = r.u16();
  f.file_size = r.u32();
  f.alignment = r.u32();
  f.name_at = read_offset(r);
  f.name = read_name(r, f.name_at);
  f.string_pool_size = r.u32();
  f.string_pool_at = read_offset(r);
  for (auto& d : f.dict_at) d = read_offset(r);
  for (auto& c : f.counts) c = r.u16();
  f.user_ptr = r.u32();
  for (std::size_t i = 0; i < 12; ++i)
    if (f.dict_at[i]) f.dicts[i] = parse_dict(r, f.dict_at[i]);
  const bool v34 = f.v34();
  if (f.dicts[0])
    for (std::size_t i = 1; i < f.dicts[0]->nodes.size(); ++i) {
      std::uint32_t at = f.dicts[0]->nodes[i].data_at;
      if (!at) fail(code::bad_offset, "model dictionary entry without data", f.dicts[0]->nodes[i].at + 12);
      if (magic_at(r, at) != "FMDL") fail(code::bad_magic, "expected 'FMDL'", at);
      byte_reader m = r.peek(at + 4);
      model md;
      md.at = at;
      md.name = read_name(r, read_offset(m));
      (void)read_offset(m);  // path
      md.skeleton_at = read_offset(m);
      if (md.skeleton_at) md.skel = parse_skeleton(r, md.skeleton_at, v34);
      const std::uint32_t vb_at = read_offset(m);
      const std::uint32_t shape_dict_at = read_offset(m);
      const std::uint32_t material_dict_at = read_offset(m);
      (void)read_offset(m);  // user data
      const std::uint16_t num_vb = m.u16();
      md.vertex_buffers = parse_vertex_buffers(r, vb_at, num_vb);
      if (shape_dict_at) {
        const dict d = parse_dict(r, shape_dict_at);
        for (std::size_t k = 1; k < d.nodes.size(); ++k)
          if (d.nodes[k].data_at) md.shapes.push_back(parse_shape(r, d.nodes[k].data_at, f.version));
      }
      if (material_dict_at) {
        const dict d = parse_dict(r, material_dict_at);
        for (std::size_t k = 1; k < d.nodes.size(); ++k)
          if (d.nodes[k].data_at) md.materials.push_back(parse_material(r, d.nodes[k].data_at, f.version));
      }
      f.models.push_back(std::move(md));
    }
  if (f.dicts[1])
    for (std::size_t i = 1; i < f.dicts[1]->nodes.size(); ++i)
      if (f.dicts[1]->nodes[i].data_at) f.textures.push_back(parse_ftex(r, f.dicts[1]->nodes[i].data_at));
  if (f.dicts[6] && v34)
    for (std::size_t i = 1; i < f.dicts[6]->nodes.size(); ++i)
      if (f.dicts[6]->nodes[i].data_at) f.texture_patterns.push_back(parse_texture_pattern(r, f.dicts[6]->nodes[i].data_at));
  for (int di : {3, 4, 5})
    if (f.dicts[static_cast<std::size_t>(di)])
      for (const auto& n : f.dicts[static_cast<std::size_t>(di)]->nodes)
        if (&n != &f.dicts[static_cast<std::size_t>(di)]->nodes[0] && n.data_at)
          f.shader_param_anims.push_back(parse_shader_param_anim(r, n.data_at, v34, di));
  for (int di : {7, 8})
    if (f.dicts[static_cast<std::size_t>(di)])
      for (const auto& n : f.dicts[static_cast<std::size_t>(di)]->nodes)
        if (&n != &f.dicts[static_cast<std::size_t>(di)]->nodes[0] && n.data_at)
          f.visibility_anims.push_back(parse_visibility_anim(r, n.data_at, v34, di));
  if (f.dicts[2])
    for (std::size_t i = 1; i < f.dicts[2]->nodes.size(); ++i) {
      std::uint32_t at = f.dicts[2]->nodes[i].data_at;
      if (!at) fail(code::bad_offset, "animation dictionary entry without data", f.dicts[2]->nodes[i].at + 12);
      f.anims.push_back(parse_anim(r, at, v34));
    }
  if (f.dicts[10]) f.scene_anims = parse_scene_anims_wiiu(r, *f.dicts[10], v34);
  return f;
}

std::vector<std::uint8_t> serialise(const file& f) {
  if (f.plat == platform::switch_) return serialise_switch(f);
  std::vector<std::uint8_t> out = f.image;
  patcher p{{out, false, "serialise"}};
  std::memcpy(out.data(), "FRES", 4);
  p.u32(4, f.version);
  p.u16(8, f.bom);
  p.u16(10, f.header_size);
  p.u32(12, f.file_size);
  p.u32(16, f.alignment);
  p.offset(0x14, f.name_at);
  p.u32(0x18, f.string_pool_size);
  p.offset(0x1C, f.string_pool_at);
  for (std::uint32_t i = 0; i < 12; ++i) p.offset(0x20 + 4 * i, f.dict_at[i]);
  for (std::uint32_t i = 0; i < 12; ++i) p.u16(0x50 + 2 * i, f.counts[i]);
  p.u32(0x68, f.user_ptr);
  for (const auto& d : f.dicts) {
    if (!d) continue;
    p.u32(d->at, d->size);
    p.u32(d->at + 4, static_cast<std::uint32_t>(d->count));
    for (const auto& n : d->nodes) {
      p.u32(n.at, n.ref_bit);
      p.u16(n.at + 4, n.left);
      p.u16(n.at + 6, n.right);
      p.offset(n.at + 8, n.name_at);
      p.offset(n.at + 12, n.data_at);
    }
  }
  const bool v34 = f.v34();
  for (const auto& m : f.models)
    if (m.skel) patch_skeleton(p, *m.skel, v34);
  for (const auto& a : f.anims) patch_anim(p, a, v34);
  return out;
}

namespace {
// A skeletal or camera curve in the raw dump (the contract's curve keys).
nlohmann::json curve_json(const curve& c) {
  using nlohmann::json;
  return json{{"target", c.target}, {"flags", c.flags}, {"curve_type", static_cast<int>(c.type())},
              {"frame_type", c.frame_type()}, {"key_type", c.key_type()},
              {"start", c.start}, {"end", c.end}, {"scale", c.scale()}, {"offset", c.offset()},
              {"delta", c.delta ? json(*c.delta) : json(nullptr)},
              {"frames", c.frames}, {"keys", c.keys}};
}
}  // namespace

nlohmann::json to_json(const file& f) {
  using nlohmann::json;
  json j;
  j["format"] = "bfres";
  j["platform"] = f.plat == platform::switch_ ? "switch" : "wiiu";
  j["version"] = f.version_string();
  j["name"] = f.name;
  j["alignment"] = f.alignment;
  j["counts"] = f.counts;
  j["models"] = json::array();
  for (const auto& m : f.models) {
    json jm{{"name", m.name}};
    if (m.skel) {
      const auto& s = *m.skel;
      json bones = json::array();
      for (const auto& b : s.bones)
        bones.push_back(json{{"name", b.name}, {"index", b.index}, {"parent", b.parent},
                             {"smooth_index", b.smooth_index}, {"rigid_index", b.rigid_index},
                             {"flags", b.flags}, {"scale", b.scale}, {"rotate", b.rotate}, {"translate", b.translate},
                             {"user_data", user_json(b.user)}});
      jm["skeleton"] = json{{"flags", s.flags}, {"scale_mode", s.scale_mode()},
                            {"rotation_mode", s.euler() ? "euler_xyz" : "quaternion"},
                            {"smooth_matrices", s.num_smooth}, {"rigid_matrices", s.num_rigid},
                            {"matrix_to_bone", s.mtx_to_bone}, {"bones", bones}};
    }
    j["models"].push_back(jm);
  }
  j["texture_pattern_animations"] = json::array();
  for (const auto& tp : f.texture_patterns) {
    json mats = json::array();
    for (const auto& m : tp.materials) {
      json pats = json::array();
      for (const auto& p : m.patterns) pats.push_back(json{{"sampler", p.sampler}, {"curve", p.curve}, {"base", p.base}});
      json curves = json::array();
      for (const auto& c : m.curves)
        curves.push_back(json{{"target", c.target}, {"flags", c.flags}, {"curve_type", static_cast<int>(c.type())},
                              {"start", c.start}, {"end", c.end}, {"offset", c.offset()}, {"frames", c.frames}, {"keys", c.keys}});
      mats.push_back(json{{"material", m.material}, {"patterns", pats}, {"curves", curves}});
    }
    j["texture_pattern_animations"].push_back(json{{"name", tp.name}, {"flags", tp.flags}, {"loop", tp.loop()},
                                                   {"frame_count", tp.frame_count}, {"baked_size", tp.baked_size},
                                                   {"textures", tp.textures}, {"materials", mats}});
  }
  // Optional keys (present only when the file has such animations).
  if (!f.shader_param_anims.empty()) {
    json arr = json::array();
    for (const auto& a : f.shader_param_anims) {
      json mats = json::array();
      for (const auto& m : a.materials) {
        json params = json::array();
        for (const auto& p : m.params)
          params.push_back(json{{"name", p.name}, {"begin_curve", p.begin_curve}, {"float_curves", p.num_float_curves},
                                {"int_curves", p.num_int_curves}, {"begin_constant", p.begin_constant},
                                {"constants", p.num_constants}, {"sub_bind", p.sub_bind}});
        json curves = json::array();
        for (const auto& c : m.curves) curves.push_back(curve_json(c));
        json consts = json::array();
        for (const auto& c : m.constants) consts.push_back(json{{"target", c.target}, {"bits", c.bits}});
        mats.push_back(json{{"material", m.material}, {"begin_curve", m.begin_curve}, {"begin_param", m.begin_param},
                            {"params", params}, {"curves", curves}, {"constants", consts}});
      }
      static const char* const kinds[] = {"shader_param", "color", "texture_srt"};
      arr.push_back(json{{"name", a.name}, {"kind", kinds[a.dict - 3]}, {"flags", a.flags}, {"loop", a.loop()},
                         {"frame_count", a.frame_count}, {"param_anim_count", a.num_param_anims},
                         {"curve_count", a.num_curves}, {"baked_size", a.baked_size}, {"bind_indices", a.bind_indices},
                         {"user_data", user_json(a.user)}, {"materials", mats}});
    }
    j["shader_param_animations"] = arr;
  }
  if (!f.visibility_anims.empty()) {
    json arr = json::array();
    for (const auto& a : f.visibility_anims) {
      json curves = json::array();
      for (const auto& c : a.curves) curves.push_back(curve_json(c));
      arr.push_back(json{{"name", a.name}, {"type", a.material() ? "material" : "bone"}, {"flags", a.flags},
                         {"loop", a.loop()}, {"frame_count", a.frame_count}, {"baked_size", a.baked_size},
                         {"names", a.names}, {"bind_indices", a.bind_indices}, {"base", a.base},
                         {"user_data", user_json(a.user)}, {"curves", curves}});
    }
    j["visibility_animations"] = arr;
  }
  j["animations"] = json::array();
  for (const auto& a : f.anims) {
    json bas = json::array();
    for (const auto& b : a.bone_anims) {
      json curves = json::array();
      for (const auto& c : b.curves) curves.push_back(curve_json(c));
      bas.push_back(json{{"name", b.name}, {"flags", b.flags}, {"base", b.base},
                         {"segment_scale_compensate", b.segment_scale_compensate()}, {"curves", curves}});
    }
    j["animations"].push_back(json{{"name", a.name}, {"flags", a.flags}, {"loop", a.loop()},
                                   {"rotation_mode", a.euler() ? "euler_xyz" : "quaternion"},
                                   {"scale_mode", a.scale_mode()}, {"frame_count", a.frame_count},
                                   {"curve_count", a.num_curves}, {"baked_size", a.baked_size},
                                   {"user_data", user_json(a.user)}, {"bone_animations", bas}});
  }
  if (!f.scene_anims.empty()) {  // optional key: FSCN with their FCAM cameras
    j["scene_animations"] = json::array();
    for (const auto& sa : f.scene_anims) {
      json cams = json::array();
      for (const auto& c : sa.cameras) {
        json curves = json::array();
        for (const auto& cv : c.curves) curves.push_back(curve_json(cv));
        cams.push_back(json{{"name", c.name}, {"flags", c.flags}, {"frame_count", c.frame_count},
                            {"rotation_mode", c.euler_zxy() ? "euler_zxy" : "aim"}, {"perspective", c.perspective()},
                            {"base", c.base}, {"curves", curves}});
      }
      j["scene_animations"].push_back(json{{"name", sa.name}, {"path", sa.path}, {"cameras", cams},
                                           {"lights", sa.num_lights}, {"fogs", sa.num_fogs}});
    }
  }
  // Switch: embedded files (optional key), a BotW camera decoded in place.
  if (!f.external_files.empty()) {
    j["external_files"] = json::array();
    for (const auto& e : f.external_files) {
      json je{{"name", e.name}, {"offset", e.data_at}, {"size", e.size}};
      if (const auto cam = embedded_camera(f, e)) je["camera"] = to_json(*cam);
      if (is_bntx(std::span<const std::uint8_t>(f.image).subspan(e.data_at, e.size))) je["bntx"] = embedded_bntx_json(f, e);
      j["external_files"].push_back(std::move(je));
    }
  }
  return j;
}

}  // namespace rigrip::bfres
