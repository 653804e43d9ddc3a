// Typed views of runtime-5 bundle packets (rig, rig-to-animation map, file names).
#include "formats/morpheme/nmb.hpp"

#include <algorithm>
#include <bit>
#include <cstring>

#include "formats/morpheme/common.hpp"

namespace rigrip::morpheme {

using core::byte_reader;
using core::fail;
using hexs = core::byte_reader;

std::uint64_t sized_reader::target(std::uint64_t base, std::uint64_t rel, std::uint64_t need, const char* what,
                                   std::uint64_t field) const {
  std::uint64_t n = r.size();
  if (base > n || rel > n - base || need > n - base - rel)
    fail(code::bad_offset,
         std::string(what) + ": pointer " + hexs::hex(rel) + " (relative to " + hexs::hex(r.base() + base) +
             ") leaves the " + std::to_string(n) + "-byte packet",
         r.base() + field);
  return base + rel;
}

bool msb_bit(const std::vector<std::uint32_t>& words, std::uint32_t i) {
  std::size_t w = i / 32;
  return w < words.size() && ((words[w] >> (31 - i % 32)) & 1u) != 0;
}

namespace {

// {u32 bit_count, u32 word_count, u32 words[]}
void read_bitset(const sized_reader& s, std::uint64_t at, std::uint32_t& bits, std::vector<std::uint32_t>& words) {
  auto h = s.r.peek(at);
  bits = h.u32();
  std::uint32_t n = h.u32();
  h.checked_count(n, 4, "bitset words");
  if (n < (static_cast<std::uint64_t>(bits) + 31) / 32)
    fail(code::bad_count, "bitset of " + std::to_string(bits) + " bits has only " + std::to_string(n) + " words",
         s.r.base() + at + 4);
  words.resize(n);
  for (auto& w : words) w = h.u32();
}

// The NUL-terminated string at `off` of the `size` character bytes at `chars`, as a view.
std::string_view table_view(const sized_reader& s, std::uint64_t chars, std::uint32_t size, std::uint32_t off,
                            std::uint64_t field) {
  if (off >= size)
    fail(code::bad_offset, "string offset " + std::to_string(off) + " outside the " + std::to_string(size) +
                               " character bytes", s.r.base() + field);
  // Fast path: the NUL within the first 4097 bytes (a string of up to 4096 characters). Anything
  // else (unterminated, too long, range outside the packet) takes the checked reader for its error.
  const auto d = s.r.data();
  if (chars <= d.size() && size <= d.size() - chars) {
    const std::size_t n = std::min<std::size_t>(size - off, 4097);
    const auto* p = reinterpret_cast<const char*>(d.data() + chars + off);
    if (const void* z = std::memchr(p, 0, n)) return {p, static_cast<std::size_t>(static_cast<const char*>(z) - p)};
  }
  const std::string str = s.r.sub(chars, size).cstring_at(off, 4096);
  // Not reached for a range inside the bytes (the fast path covers it); else a view of the same characters.
  if (chars > d.size() || off > d.size() - chars || str.size() > d.size() - chars - off)
    fail(code::bad_offset, "string outside the packet", s.r.base() + field);
  return {reinterpret_cast<const char*>(d.data() + chars + off), str.size()};
}

std::string table_string(const sized_reader& s, std::uint64_t chars, std::uint32_t size, std::uint32_t off,
                         std::uint64_t field) {
  return std::string(table_view(s, chars, size, off, field));
}

// {count, data_size, ptr offsets, ptr strings} as strings or as views of the bytes.
template <class T>
std::vector<T> string_table(const sized_reader& s, std::uint64_t at) {
  const unsigned P = s.psize;
  (void)s.target(at, 0, 8 + 2ull * P, "string table", at);
  std::uint32_t count = s.r.u32_at(at), size = s.r.u32_at(at + 4);
  std::vector<T> out;
  if (count == 0) return out;
  std::uint64_t offs = s.target(at, s.ptr_at(at + 8), 0, "string table offsets", at + 8);
  s.r.checked_count_at(offs, count, 4, "string table offsets");
  std::uint64_t chars = s.target(at, s.ptr_at(at + 8 + P), size, "string table characters", at + 8 + P);
  out.reserve(count);
  if (s.r.byte_order() != core::endian::little) {
    for (std::uint32_t i = 0; i < count; ++i)
      out.emplace_back(table_view(s, chars, size, s.r.u32_at(offs + 4ull * i), offs + 4ull * i));
    return out;
  }
  // Offsets and characters checked above (chars + size inside the bytes): each string found
  // straight in the bytes; a bad offset or a string without its NUL takes table_view's error.
  const auto d = s.r.data();
  const auto* cs = reinterpret_cast<const char*>(d.data() + chars);
  for (std::uint32_t i = 0; i < count; ++i) {
    const std::uint32_t off = le32(d, offs + 4ull * i);
    const void* z = off < size ? std::memchr(cs + off, 0, std::min<std::size_t>(size - off, 4097)) : nullptr;
    if (z)
      out.emplace_back(cs + off, static_cast<std::size_t>(static_cast<const char*>(z) - (cs + off)));
    else
      out.emplace_back(table_view(s, chars, size, off, offs + 4ull * i));
  }
  return out;
}

}  // namespace

std::vector<std::string> read_sdk_string_table(const sized_reader& s, std::uint64_t at) {
  return string_table<std::string>(s, at);
}

std::vector<std::string_view> read_sdk_string_views(const sized_reader& s, std::uint64_t at) {
  return string_table<std::string_view>(s, at);
}

id_string_table read_sdk_id_string_table(const sized_reader& s, std::uint64_t at) {
  const unsigned P = s.psize;
  (void)s.target(at, 0, 8 + 4ull * P, "ID string table", at);
  std::uint32_t count = s.r.u32_at(at), size = s.r.u32_at(at + 4);
  id_string_table t;
  if (count == 0) return t;
  auto arr = [&](unsigned k, const char* what, std::vector<std::uint32_t>& v) {
    std::uint64_t field = at + 8 + static_cast<std::uint64_t>(k) * P;
    std::uint64_t rel = s.ptr_at(field);
    if (rel == 0) return;
    std::uint64_t a = s.target(at, rel, 0, what, field);
    s.r.checked_count_at(a, count, 4, what);
    v.resize(count);
    for (std::uint32_t i = 0; i < count; ++i) v[i] = s.r.u32_at(a + 4ull * i);
  };
  arr(0, "ID string table ids", t.ids);
  arr(1, "ID string table offsets", t.offsets);
  arr(2, "ID string table hashes", t.hashes);
  if (t.offsets.empty()) fail(code::bad_offset, "ID string table without offsets", s.r.base() + at + 8 + P);
  std::uint64_t chars = s.target(at, s.ptr_at(at + 8 + 3ull * P), size, "ID string table characters", at + 8 + 3ull * P);
  for (std::uint32_t i = 0; i < count; ++i) t.strings.push_back(table_string(s, chars, size, t.offsets[i], at));
  return t;
}

sdk_rig read_sdk_rig(const sized_reader& s) {
  const unsigned P = s.psize;
  const bool x64 = P == 8;
  sdk_rig rig;
  auto h = s.r.peek(0);
  for (auto& v : rig.blend_frame_orientation) v = h.f32();
  for (auto& v : rig.blend_frame_translation) v = h.f32();
  const std::uint64_t f_hier = 0x20, f_traj = x64 ? 0x28 : 0x24, f_root = f_traj + 4, f_names = x64 ? 0x30 : 0x2C,
                      f_bind = x64 ? 0x38 : 0x30;
  (void)s.target(0, 0, f_bind + P, "rig header", 0);
  rig.trajectory_bone = s.r.u32_at(f_traj);
  rig.character_root_bone = s.r.u32_at(f_root);
  // Hierarchy {u32 count; ptr parents} with the parents right after it (the stored pointer is
  // null on disk; a non-null one is taken relative to the hierarchy).
  std::uint64_t hier = s.target(0, s.ptr_at(f_hier), 2ull * P, "rig hierarchy", f_hier);
  rig.bone_count = s.r.u32_at(hier);
  if (rig.bone_count > 65536)
    fail(code::bad_count, "rig bone count " + std::to_string(rig.bone_count) + " exceeds the limit 65536",
         s.r.base() + hier);
  std::uint64_t prel = s.ptr_at(hier + P);
  std::uint64_t parr = s.target(hier, prel ? prel : 2ull * P, 0, "rig parent array", hier + P);
  s.r.checked_count_at(parr, rig.bone_count, 4, "rig parent array");
  rig.parents.resize(rig.bone_count);
  const bool le = s.r.byte_order() == core::endian::little;
  const std::span<const std::uint8_t> bytes = s.r.data();
  if (le)  // checked just above: straight from the bytes
    for (std::uint32_t i = 0; i < rig.bone_count; ++i) rig.parents[i] = static_cast<std::int32_t>(le32(bytes, parr + 4ull * i));
  else
    for (std::uint32_t i = 0; i < rig.bone_count; ++i) rig.parents[i] = static_cast<std::int32_t>(s.r.u32_at(parr + 4ull * i));
  if (std::uint64_t np = s.ptr_at(f_names)) rig.names = read_sdk_string_table(s, s.target(0, np, 0, "rig bone names", f_names));
  // Bind pose attribute: x64 {8 bytes, u16, u16 type, pad, ptr buffer}, win32 {4 bytes, u16, u16 type, ptr}.
  if (std::uint64_t bp = s.ptr_at(f_bind)) {
    std::uint64_t a = s.target(0, bp, x64 ? 0x18 : 0x0C, "rig bind pose", f_bind);
    rig.attrib_type = s.r.u16_at(a + (x64 ? 0x0A : 0x06));
    std::uint64_t fb = a + (x64 ? 0x10 : 0x08);
    std::uint64_t db = s.target(a, s.ptr_at(fb), x64 ? 0x38 : 0x20, "bind pose buffer", fb);
    // DataBuffer: Format{size, alignment}, u32 length, bool full, u32 element count,
    // ptr descriptors, ptr element pointers, ptr used-flags bitset.
    std::uint64_t o_len = x64 ? 0x10 : 0x08, o_full = o_len + 4, o_n = x64 ? 0x18 : 0x10,
                  o_desc = x64 ? 0x20 : 0x14;
    rig.buffer_size = x64 ? s.r.u64_at(db) : s.r.u32_at(db);
    rig.buffer_alignment = s.r.u32_at(db + (x64 ? 8 : 4));
    rig.buffer_length = s.r.u32_at(db + o_len);
    rig.buffer_full = s.r.u8_at(db + o_full) != 0;
    rig.element_count = s.r.u32_at(db + o_n);
    if (rig.element_count > 16)
      fail(code::bad_count, "bind pose buffer declares " + std::to_string(rig.element_count) + " element arrays",
           s.r.base() + db + o_n);
    std::uint64_t desc = s.target(db, s.ptr_at(db + o_desc), 12ull * rig.element_count, "bind pose element descriptors",
                                  db + o_desc);
    for (std::uint32_t e = 0; e < rig.element_count; ++e)
      rig.element_descriptors.push_back(
          {s.r.u32_at(desc + 12ull * e), s.r.u32_at(desc + 12ull * e + 4), s.r.u32_at(desc + 12ull * e + 8)});
    std::uint64_t elp = s.target(db, s.ptr_at(db + o_desc + P), static_cast<std::uint64_t>(P) * rig.element_count,
                                 "bind pose element pointers", db + o_desc + P);
    if (std::uint64_t up = s.ptr_at(db + o_desc + 2ull * P))
      read_bitset(s, s.target(db, up, 8, "bind pose used flags", db + o_desc + 2ull * P), rig.used_bits, rig.used_words);
    // Arrays for the rig's bone count (element 0 translations, element 1 rotations).
    if (rig.element_count >= 2) {
      auto array_at = [&](std::uint32_t e, std::uint32_t min_stride) {
        std::uint32_t stride = rig.element_descriptors[e][1];
        if (stride < min_stride || stride > 256)
          fail(code::bad_value, "bind pose element " + std::to_string(e) + " has stride " + std::to_string(stride),
               s.r.base() + desc + 12ull * e + 4);
        std::uint64_t a = s.target(db, s.ptr_at(elp + static_cast<std::uint64_t>(e) * P), 0, "bind pose elements",
                                   elp + static_cast<std::uint64_t>(e) * P);
        s.r.checked_count_at(a, rig.bone_count, stride, "bind pose elements");
        return std::pair{a, stride};
      };
      auto [ta, ts] = array_at(0, 12);
      auto [ra, rs] = array_at(1, 16);
      rig.bind_translation.reserve(rig.bone_count);
      rig.bind_rotation.reserve(rig.bone_count);
      if (le) {  // both arrays checked by array_at (strides at least 12 and 16 bytes)
        auto f = [&](std::uint64_t at) { return std::bit_cast<float>(le32(bytes, at)); };
        for (std::uint32_t i = 0; i < rig.bone_count; ++i) {
          const std::uint64_t t = ta + std::uint64_t{ts} * i, q = ra + std::uint64_t{rs} * i;
          rig.bind_translation.push_back({f(t), f(t + 4), f(t + 8)});
          rig.bind_rotation.push_back({f(q), f(q + 4), f(q + 8), f(q + 12)});
        }
      } else
      for (std::uint32_t i = 0; i < rig.bone_count; ++i) {
        rig.bind_translation.push_back({s.r.f32_at(ta + ts * i), s.r.f32_at(ta + ts * i + 4), s.r.f32_at(ta + ts * i + 8)});
        rig.bind_rotation.push_back({s.r.f32_at(ra + rs * i), s.r.f32_at(ra + rs * i + 4), s.r.f32_at(ra + rs * i + 8),
                                     s.r.f32_at(ra + rs * i + 12)});
      }
    }
  }
  return rig;
}

sdk_rig_to_anim_map read_sdk_rig_to_anim_map(const sized_reader& s) {
  const unsigned P = s.psize;
  const bool x64 = P == 8;
  sdk_rig_to_anim_map m;
  const std::uint64_t f_bits = x64 ? 0x08 : 0x04, f_size = f_bits + P, f_align = f_size + P, f_map = x64 ? 0x20 : 0x10;
  (void)s.target(0, 0, f_map + P, "rig-to-animation map header", 0);
  m.type = s.r.u32_at(0);
  if (std::uint64_t b = s.ptr_at(f_bits)) read_bitset(s, s.target(0, b, 8, "rig-to-animation map bitset", f_bits), m.used_bits, m.used_words);
  m.map_size = s.ptr_at(f_size);
  m.map_alignment = s.r.u32_at(f_align);
  if (std::uint64_t mp = s.ptr_at(f_map)) {
    std::uint64_t a = s.target(0, mp, 8 + P, "rig-to-animation table", f_map);
    m.channel_count = s.r.u32_at(a);
    m.unknown[0] = s.r.u16_at(a + 4);
    m.unknown[1] = s.r.u16_at(a + 6);
    if (m.type == 1) {  // AnimToRig: u16 rig bone per animation channel
      std::uint64_t arr = s.target(a, s.ptr_at(a + 8), 0, "rig-to-animation channel table", a + 8);
      s.r.checked_count_at(arr, m.channel_count, 2, "rig-to-animation channel table");
      for (std::uint32_t c = 0; c < m.channel_count; ++c) m.anim_to_rig.push_back(s.r.u16_at(arr + 2ull * c));
    }
  }
  return m;
}

sdk_file_names read_sdk_file_names(const sized_reader& s) {
  const unsigned P = s.psize;
  (void)s.target(0, 0, 5ull * P, "file-name table header", 0);
  sdk_file_names f;
  std::vector<std::string_view>* t[4] = {&f.files, &f.formats, &f.sources, &f.takes};
  for (unsigned k = 0; k < 4; ++k)
    if (std::uint64_t p = s.ptr_at(static_cast<std::uint64_t>(k) * P))
      *t[k] = read_sdk_string_views(s, s.target(0, p, 0, "file-name string table", static_cast<std::uint64_t>(k) * P));
  if (std::uint64_t p = s.ptr_at(4ull * P); p && !f.files.empty()) {
    std::uint64_t a = s.target(0, p, 0, "file-name CRCs", 4ull * P);
    s.r.checked_count_at(a, f.files.size(), 4, "file-name CRCs");
    for (std::size_t i = 0; i < f.files.size(); ++i) f.crcs.push_back(s.r.u32_at(a + 4 * i));
  }
  return f;
}

sdk_event_track read_sdk_event_track(const sized_reader& s) {
  const unsigned P = s.psize;
  (void)s.target(0, 0, 0x10 + 2ull * P, "event track header", 0);
  sdk_event_track t;
  std::uint32_t n = s.r.u32_at(0);
  t.words[0] = s.r.u32_at(4);
  t.words[1] = s.r.u32_at(8 + P);
  t.words[2] = s.r.u32_at(12 + P);
  if (std::uint64_t np = s.ptr_at(8)) t.name = s.r.cstring_at(s.target(0, np, 1, "event track name", 8), 4096);
  if (n) {
    std::uint64_t a = s.target(0, s.ptr_at(16 + P), 0, "event track events", 16 + P);
    s.r.checked_count_at(a, n, 12, "event track events");
    for (std::uint32_t i = 0; i < n; ++i)
      t.events.push_back({s.r.f32_at(a + 12ull * i), s.r.f32_at(a + 12ull * i + 4), s.r.u32_at(a + 12ull * i + 8)});
  }
  return t;
}

nlohmann::json sdk_event_track_to_json(const sdk_event_track& t) {
  auto ev = nlohmann::json::array();
  for (const auto& e : t.events) ev.push_back({{"start", e.start}, {"duration", e.duration}, {"user_data", e.user_data}});
  return {{"name", t.name}, {"words", {t.words[0], t.words[1], t.words[2]}}, {"events", ev}};
}

nlohmann::json sdk_rig_to_json(const sdk_rig& r) {
  using nlohmann::json;
  json bones = json::array();
  for (std::uint32_t i = 0; i < r.bone_count; ++i) {
    json b{{"name", i < r.names.size() ? json(r.names[i]) : json(nullptr)}, {"parent", r.parents[i]}};
    if (i < r.bind_translation.size()) {
      b["translation"] = r.bind_translation[i];
      b["rotation"] = r.bind_rotation[i];
    }
    bones.push_back(std::move(b));
  }
  json desc = json::array();
  for (const auto& d : r.element_descriptors) desc.push_back({{"type", d[0]}, {"size", d[1]}, {"alignment", d[2]}});
  return {{"bone_count", r.bone_count},
          {"trajectory_bone", r.trajectory_bone},
          {"character_root_bone", r.character_root_bone},
          {"blend_frame_orientation", r.blend_frame_orientation},
          {"blend_frame_translation", r.blend_frame_translation},
          {"bind_pose", {{"attrib_type", r.attrib_type},
                         {"buffer_size", r.buffer_size},
                         {"buffer_alignment", r.buffer_alignment},
                         {"length", r.buffer_length},
                         {"full", r.buffer_full},
                         {"element_count", r.element_count},
                         {"elements", desc},
                         {"used_bits", r.used_bits},
                         {"used_words", r.used_words}}},
          {"bones", bones}};
}

nlohmann::json sdk_map_to_json(const sdk_rig_to_anim_map& m) {
  return {{"type", m.type},
          {"type_name", m.type == 0 ? "map_pairs" : m.type == 1 ? "anim_to_rig" : m.type == 2 ? "comp_to_rig" : "unknown"},
          {"used_bits", m.used_bits},
          {"used_words", m.used_words},
          {"map_size", m.map_size},
          {"map_alignment", m.map_alignment},
          {"channel_count", m.channel_count},
          {"unknown", {m.unknown[0], m.unknown[1]}},
          {"channel_to_bone", m.anim_to_rig}};
}

nlohmann::json strings_to_json(const std::vector<std::string_view>& v) {
  nlohmann::json a = nlohmann::json::array();
  for (auto x : v) a.push_back(std::string(x));
  return a;
}

nlohmann::json sdk_file_names_to_json(const sdk_file_names& f) {
  nlohmann::json crcs = nlohmann::json::array();
  for (auto c : f.crcs) {
    char b[16];
    std::snprintf(b, sizeof b, "%08X", c);
    crcs.push_back(b);
  }
  return {{"files", strings_to_json(f.files)}, {"formats", strings_to_json(f.formats)},
          {"sources", strings_to_json(f.sources)}, {"takes", strings_to_json(f.takes)}, {"crcs", crcs}};
}

}  // namespace rigrip::morpheme
