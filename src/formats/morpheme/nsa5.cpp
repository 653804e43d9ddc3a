// Runtime-5 NSA raw layer (the SDK's .nsa, x64 and win32) and the parts QSA shares with it:
// header, channel lists and the trajectory source. Layout: README.md here.
#include <cmath>

#include "formats/morpheme/anim_source.hpp"

namespace rigrip::morpheme {

using core::byte_reader;
using core::fail;
using hexs = core::byte_reader;

namespace {

constexpr std::uint32_t max_sections = 4096;

using source5::align4;
using source5::ptr_at;
using source5::target;

factors factors_at(const byte_reader& r, std::uint64_t at) {
  factors f;
  for (int c = 0; c < 3; ++c) f.min[c] = r.f32_at(at + 4 * c);
  for (int c = 0; c < 3; ++c) f.extent[c] = r.f32_at(at + 12 + 4 * c);
  return f;
}

// Little-endian words from a block the caller has bounds-checked.
std::uint16_t le16(const std::uint8_t* b) { return static_cast<std::uint16_t>(b[0] | (b[1] << 8)); }

std::vector<deq_info> info_at(const byte_reader& r, std::uint64_t at, std::uint32_t count, const char* what) {
  std::uint32_t n = align4(count);
  r.checked_count_at(at, n, 6, what);
  std::vector<deq_info> v(n);
  if (at <= r.size()) {  // the n * 6 bytes were checked: read them directly
    const std::uint8_t* b = r.data().data() + at;
    for (std::uint32_t i = 0; i < n; ++i, b += 6)
      for (int c = 0; c < 3; ++c) {
        v[i].init[c] = b[c];
        v[i].index[c] = b[3 + c];
      }
    return v;
  }
  for (std::uint32_t i = 0; i < n; ++i)
    for (int c = 0; c < 3; ++c) {
      v[i].init[c] = r.u8_at(at + 6ull * i + c);
      v[i].index[c] = r.u8_at(at + 6ull * i + 3 + c);
    }
  return v;
}

std::vector<u16x3> u16x3_at(const byte_reader& r, std::uint64_t at, std::uint64_t rows, std::uint64_t count,
                            std::uint64_t stride, const char* what) {
  std::vector<u16x3> v;
  if (rows == 0 || count == 0) return v;
  r.checked_count_at(at, rows, stride, what);
  v.resize(static_cast<std::size_t>(rows * count));
  // Every row lies inside the checked block when it is no longer than the stride.
  if (r.byte_order() == core::endian::little && 6 * count <= stride) {
    const std::uint8_t* base = r.data().data() + at;
    for (std::uint64_t s = 0; s < rows; ++s) {
      const std::uint8_t* b = base + s * stride;
      for (std::uint64_t c = 0; c < count; ++c, b += 6)
        for (int k = 0; k < 3; ++k) v[s * count + c][k] = le16(b + 2 * k);
    }
    return v;
  }
  for (std::uint64_t s = 0; s < rows; ++s)
    for (std::uint64_t c = 0; c < count; ++c)
      for (int k = 0; k < 3; ++k) v[s * count + c][k] = r.u16_at(at + s * stride + 6 * c + 2 * k);
  return v;
}

nsa5_section read_section(const byte_reader& all, std::uint64_t at, std::uint64_t size, bool x64,
                          std::uint32_t channels) {
  const unsigned P = x64 ? 8 : 4;
  auto r = all.sub(at, size);
  const std::uint64_t hs = x64 ? 0x10 : 0x0C;
  target(r, 0, 0, hs + 4ull * P, "NSA section header", 0);
  nsa5_section s;
  s.sample_count = r.u32_at(0);
  s.translation_count = r.u32_at(4);
  s.rotation_count = r.u32_at(8);
  if (s.translation_count > channels || s.rotation_count > channels)
    fail(code::bad_count, "NSA section animates " + std::to_string(s.translation_count) + " translation and " +
                              std::to_string(s.rotation_count) + " rotation channels of " + std::to_string(channels),
         r.base());
  std::uint64_t p[4];
  for (unsigned k = 0; k < 4; ++k) p[k] = ptr_at(r, hs + k * P, x64);
  if (s.translation_count) {
    std::uint64_t d = target(r, 0, p[0], 0, "NSA section translations", hs);
    r.checked_count_at(d, s.sample_count, 4ull * s.translation_count, "NSA section translations");
    s.translations.resize(static_cast<std::size_t>(s.sample_count) * s.translation_count);
    if (r.byte_order() == core::endian::little) {
      const std::uint8_t* b = r.data().data() + d;  // checked just above
      for (std::size_t i = 0; i < s.translations.size(); ++i, b += 4)
        s.translations[i] = static_cast<std::uint32_t>(b[0]) | (static_cast<std::uint32_t>(b[1]) << 8) |
                            (static_cast<std::uint32_t>(b[2]) << 16) | (static_cast<std::uint32_t>(b[3]) << 24);
    } else {
      for (std::size_t i = 0; i < s.translations.size(); ++i) s.translations[i] = r.u32_at(d + 4 * i);
    }
    s.translation_info = info_at(r, target(r, 0, p[1], 0, "NSA section translation info", hs + P),
                                 s.translation_count, "NSA section translation info");
  }
  if (s.rotation_count) {
    s.rotation_row_stride = align4(6 * s.rotation_count);
    std::uint64_t d = target(r, 0, p[2], 0, "NSA section rotations", hs + 2 * P);
    std::uint64_t info = target(r, 0, p[3], 0, "NSA section rotation info", hs + 3 * P);
    // Rows are padded to 4 bytes; the info array follows them.
    if (info > d && (info - d) < static_cast<std::uint64_t>(s.sample_count) * s.rotation_row_stride)
      fail(code::bad_offset, "NSA section rotation rows run into their info array", r.base() + hs + 3 * P);
    s.rotations = u16x3_at(r, d, s.sample_count, s.rotation_count, s.rotation_row_stride, "NSA section rotations");
    s.rotation_info = info_at(r, info, s.rotation_count, "NSA section rotation info");
  }
  return s;
}

}  // namespace

std::optional<source5_probe> probe_source5(std::span<const std::uint8_t> d) {
  auto u32 = [&](std::size_t at) {
    return std::uint32_t(d[at]) | std::uint32_t(d[at + 1]) << 8 | std::uint32_t(d[at + 2]) << 16 |
           std::uint32_t(d[at + 3]) << 24;
  };
  auto f32 = [&](std::size_t at) { return std::bit_cast<float>(u32(at)); };
  auto sane = [&](bool x64) -> std::optional<source5_probe> {
    std::size_t hs = x64 ? 0x38 : 0x28;
    if (d.size() < hs + 0x40) return std::nullopt;
    std::uint64_t size = x64 ? (std::uint64_t(u32(0x08)) | std::uint64_t(u32(0x0C)) << 32) : u32(0x04);
    std::uint32_t align = u32(x64 ? 0x10 : 0x08), type = u32(x64 ? 0x18 : 0x0C);
    float dur = f32(x64 ? 0x20 : 0x10), rate = f32(x64 ? 0x24 : 0x14);
    std::uint32_t channels = u32(x64 ? 0x28 : 0x18), fs = u32(x64 ? 0x2C : 0x1C), cs = u32(x64 ? 0x30 : 0x20);
    if (u32(0) != 0 || (x64 && u32(4) != 0)) return std::nullopt;
    if (x64 && (u32(0x14) != 0 || u32(0x1C) != 0)) return std::nullopt;
    if (size < hs || size > d.size()) return std::nullopt;
    if (align == 0 || align > 256 || (align & (align - 1))) return std::nullopt;
    if (type != source_type_nsa && type != source_type_qsa) return std::nullopt;
    if (!std::isfinite(dur) || dur < 0 || dur > 1e5f || !std::isfinite(rate) || rate <= 0 || rate > 1e4f)
      return std::nullopt;
    if (channels == 0 || channels > 65536 || fs == 0 || fs > max_sections || cs == 0 || cs > max_sections)
      return std::nullopt;
    return source5_probe{x64, type};
  };
  if (auto p = sane(true)) return p;
  return sane(false);
}

source5_header read_source5_header(const byte_reader& r) {
  auto p = probe_source5(r.data());
  if (!p)
    fail(code::bad_magic,
         "not a morpheme 5 animation source: the header (zero word, size, alignment, type 2/3, duration, rate, "
         "channel and section counts) does not check out for x64 or win32", r.base());
  source5_header h;
  h.x64 = p->x64;
  const bool x = h.x64;
  h.resident_size = x ? r.u64_at(0x08) : r.u32_at(0x04);
  h.alignment = r.u32_at(x ? 0x10 : 0x08);
  h.type = r.u32_at(x ? 0x18 : 0x0C);
  h.duration = r.f32_at(x ? 0x20 : 0x10);
  h.sample_rate = r.f32_at(x ? 0x24 : 0x14);
  h.channel_count = r.u32_at(x ? 0x28 : 0x18);
  h.frame_sections = r.u32_at(x ? 0x2C : 0x1C);
  h.channel_sections = r.u32_at(x ? 0x30 : 0x20);
  h.unknown = r.u32_at(x ? 0x34 : 0x24);
  return h;
}

std::vector<std::uint16_t> read_channel_list(const byte_reader& r, std::uint64_t at, const char* what) {
  r.checked_count_at(at, 1, 2, what);
  std::uint16_t n = r.u16_at(at);
  r.checked_count_at(at + 2, n, 2, what);
  std::vector<std::uint16_t> v(n);
  for (std::uint16_t i = 0; i < n; ++i) v[i] = r.u16_at(at + 2 + 2ull * i);
  return v;
}

source5_trajectory read_source5_trajectory(const byte_reader& all, std::uint64_t at, bool x64, bool qsa) {
  const unsigned P = x64 ? 8 : 4;
  const std::uint64_t hs = x64 ? 0x68 : 0x50;
  target(all, at, 0, hs, "trajectory source", at);
  auto r = all.sub(at, all.size() - at);
  source5_trajectory t;
  t.type = r.u32_at(0);
  t.size = ptr_at(r, 2 * P, x64);
  t.alignment = r.u32_at(3 * P);
  const std::uint64_t o = x64 ? 0x20 : 0x10;
  t.sample_rate = r.f32_at(o);
  if (qsa) {
    t.sample_count = r.u16_at(o + 4);
    t.flags[0] = r.u8_at(o + 6);
    t.flags[1] = r.u8_at(o + 7);
  } else {
    t.sample_count = r.u32_at(o + 4);
  }
  for (int k = 0; k < 6; ++k) t.translation[k] = r.f32_at(o + 8 + 4 * k);
  for (int k = 0; k < 6; ++k) t.rotation[k] = r.f32_at(o + 32 + 4 * k);
  std::uint64_t tp = ptr_at(r, o + 56, x64), rp = ptr_at(r, o + 56 + P, x64);
  t.constant_rotation = rp == 0;
  if (t.sample_count > 1u << 20)
    fail(code::bad_count, "trajectory declares " + std::to_string(t.sample_count) + " samples", r.base() + o + 4);
  if (tp) {
    std::uint64_t a = target(r, 0, tp, 0, "trajectory translations", o + 56);
    r.checked_count_at(a, t.sample_count, 4, "trajectory translations");
    for (std::uint32_t i = 0; i < t.sample_count; ++i) t.translations.push_back(r.u32_at(a + 4ull * i));
  }
  if (rp) {
    std::uint64_t a = target(r, 0, rp, 0, "trajectory rotations", o + 56 + P);
    t.rotations = u16x3_at(r, a, t.sample_count, 1, 6, "trajectory rotations");
  }
  return t;
}

nsa5_file parse_nsa5(const byte_reader& r) {
  nsa5_file f;
  f.h = read_source5_header(r);
  const bool x = f.h.x64;
  const unsigned P = f.h.psize();
  if (f.h.type != source_type_nsa)
    fail(code::bad_value, "animation source type " + std::to_string(f.h.type) + " is not NSA (2)", r.base() + (x ? 0x18 : 0x0C));
  if (f.h.channel_sections != 1)
    fail(code::unsupported_feature,
         std::to_string(f.h.channel_sections) + " channel sections: only NSA files with one channel section are "
         "understood (every sample has one)", r.base() + (x ? 0x30 : 0x20));
  const std::uint64_t o = x ? 0x38 : 0x28;  // after the shared header
  target(r, 0, 0, o + 4ull * P + 24 + 8 + 9ull * P, "NSA header", 0);
  auto list = [&](unsigned k, const char* what) {
    return read_channel_list(r, target(r, 0, ptr_at(r, o + k * P, x), 2, what, o + k * P), what);
  };
  auto indirect = [&](unsigned k, const char* what) {  // pointer to a pointer (one per channel section)
    std::uint64_t a = target(r, 0, ptr_at(r, o + k * P, x), P, what, o + k * P);
    return read_channel_list(r, target(r, 0, ptr_at(r, a, x), 2, what, a), what);
  };
  f.static_translation = list(0, "NSA static translation channels");
  f.static_rotation = list(1, "NSA static rotation channels");
  f.dynamic_translation = indirect(2, "NSA dynamic translation channels");
  f.dynamic_rotation = indirect(3, "NSA dynamic rotation channels");
  std::uint64_t q = o + 4ull * P;
  f.init = factors_at(r, q);
  q += 24;
  std::uint32_t nt = r.u32_at(q), nr = r.u32_at(q + 4);
  q += 8;
  auto sets = [&](std::uint64_t field, std::uint32_t n, const char* what) {
    std::vector<factors> v;
    if (n == 0) return v;
    std::uint64_t a = target(r, 0, ptr_at(r, field, x), 0, what, field);
    r.checked_count_at(a, n, 24, what);
    for (std::uint32_t i = 0; i < n; ++i) v.push_back(factors_at(r, a + 24ull * i));
    return v;
  };
  f.translation_factors = sets(q, nt, "NSA translation factor sets");
  f.rotation_factors = sets(q + P, nr, "NSA rotation factor sets");
  // Static segment: counts, one factor set each, then the two data pointers.
  {
    std::uint64_t field = q + 2ull * P;
    std::uint64_t s = target(r, 0, ptr_at(r, field, x), 0x38 + 2ull * P, "NSA static segment", field);
    f.static_translation_count = r.u32_at(s);
    f.static_rotation_count = r.u32_at(s + 4);
    f.static_translation_factors = factors_at(r, s + 8);
    f.static_rotation_factors = factors_at(r, s + 32);
    if (f.static_translation_count != f.static_translation.size() ||
        f.static_rotation_count != f.static_rotation.size())
      fail(code::bad_count, "NSA static segment counts (" + std::to_string(f.static_translation_count) + ", " +
                                std::to_string(f.static_rotation_count) + ") differ from the channel lists (" +
                                std::to_string(f.static_translation.size()) + ", " +
                                std::to_string(f.static_rotation.size()) + ")", r.base() + s);
    if (f.static_translation_count)
      f.static_translations = u16x3_at(r, target(r, s, ptr_at(r, s + 0x38, x), 0, "NSA static translations", s + 0x38),
                                       1, f.static_translation_count, 6ull * f.static_translation_count,
                                       "NSA static translations");
    if (f.static_rotation_count)
      f.static_rotations = u16x3_at(r, target(r, s, ptr_at(r, s + 0x38 + P, x), 0, "NSA static rotations", s + 0x38 + P),
                                    1, f.static_rotation_count, 6ull * f.static_rotation_count, "NSA static rotations");
  }
  f.max_section_size = ptr_at(r, q + 3ull * P, x);
  const std::uint32_t n = f.h.frame_sections;
  {
    std::uint64_t field = q + 4ull * P;
    std::uint64_t a = target(r, 0, ptr_at(r, field, x), 0, "NSA section frames", field);
    r.checked_count_at(a, n + 1ull, 4, "NSA section frames");
    for (std::uint32_t i = 0; i <= n; ++i) f.section_frames.push_back(r.u32_at(a + 4ull * i));
    field += P;
    a = target(r, 0, ptr_at(r, field, x), 0, "NSA section sizes", field);
    r.checked_count_at(a, n, 4, "NSA section sizes");
    for (std::uint32_t i = 0; i < n; ++i) f.section_sizes.push_back(r.u32_at(a + 4ull * i));
    field += P;
    a = target(r, 0, ptr_at(r, field, x), 0, "NSA section pointers", field);
    r.checked_count_at(a, n, P, "NSA section pointers");
    for (std::uint32_t i = 0; i < n; ++i) f.section_offsets.push_back(ptr_at(r, a + static_cast<std::uint64_t>(i) * P, x));
  }
  for (std::uint32_t i = 0; i < n; ++i) {
    std::uint64_t at = target(r, 0, f.section_offsets[i], f.section_sizes[i], "NSA section", q + 6ull * P);
    auto s = read_section(r, at, f.section_sizes[i], x, f.h.channel_count);
    if (s.translation_count != f.dynamic_translation.size() || s.rotation_count != f.dynamic_rotation.size())
      fail(code::bad_count, "NSA section " + std::to_string(i) + " counts (" + std::to_string(s.translation_count) +
                                ", " + std::to_string(s.rotation_count) + ") differ from the dynamic channel lists",
           r.base() + at);
    for (const auto* info : {&s.translation_info, &s.rotation_info})
      for (const auto& di : *info)
        for (int c = 0; c < 3; ++c)
          if (di.index[c] >= (info == &s.translation_info ? f.translation_factors.size() : f.rotation_factors.size()))
            fail(code::bad_value, "NSA section " + std::to_string(i) + ": factor set index " +
                                      std::to_string(di.index[c]) + " out of range", r.base() + at);
    f.sections.push_back(std::move(s));
  }
  if (std::uint64_t tp = ptr_at(r, q + 7ull * P, x))
    f.trajectory = read_source5_trajectory(r, target(r, 0, tp, 0, "NSA trajectory", q + 7ull * P), x, false);
  for (auto c : f.static_translation)
    if (c >= f.h.channel_count) fail(code::bad_value, "NSA channel index " + std::to_string(c) + " out of range", r.base());
  for (const auto* l : {&f.static_rotation, &f.dynamic_translation, &f.dynamic_rotation})
    for (auto c : *l)
      if (c >= f.h.channel_count) fail(code::bad_value, "NSA channel index " + std::to_string(c) + " out of range", r.base());
  return f;
}

nlohmann::json source5_trajectory_to_json(const source5_trajectory& t) {
  using nlohmann::json;
  json rot = json::array();
  for (const auto& v : t.rotations) rot.push_back(v);
  return {{"type", t.type},          {"size", t.size},
          {"alignment", t.alignment}, {"sample_rate", t.sample_rate},
          {"sample_count", t.sample_count}, {"flags", {t.flags[0], t.flags[1]}},
          {"translation_factors", t.translation}, {"rotation_form", t.constant_rotation ? "constant" : "factors"},
          {"rotation", t.rotation},  {"translations", t.translations},
          {"rotations", rot}};
}

namespace {
nlohmann::json header_json(const source5_header& h) {
  return {{"pointer_size", h.psize()},       {"resident_size", h.resident_size}, {"alignment", h.alignment},
          {"type", h.type},                  {"duration", h.duration},           {"sample_rate", h.sample_rate},
          {"channel_count", h.channel_count}, {"frame_sections", h.frame_sections},
          {"channel_sections", h.channel_sections}, {"unknown", h.unknown}};
}
nlohmann::json factors_json(const factors& f) { return {{"min", f.min}, {"scaled_extent", f.extent}}; }
nlohmann::json info_json(const std::vector<deq_info>& v) {
  auto a = nlohmann::json::array();
  for (const auto& i : v) a.push_back({{"init", i.init}, {"factor_index", i.index}});
  return a;
}
}  // namespace

nlohmann::json nsa5_to_json(const nsa5_file& f) {
  using nlohmann::json;
  json j = header_json(f.h);
  j["channels"] = {{"static_translation", f.static_translation},
                   {"static_rotation", f.static_rotation},
                   {"dynamic_translation", f.dynamic_translation},
                   {"dynamic_rotation", f.dynamic_rotation}};
  j["translation_init_factors"] = factors_json(f.init);
  json tf = json::array(), rf = json::array();
  for (const auto& x : f.translation_factors) tf.push_back(factors_json(x));
  for (const auto& x : f.rotation_factors) rf.push_back(factors_json(x));
  j["translation_factors"] = tf;
  j["rotation_factors"] = rf;
  json st = json::array(), sr = json::array();
  for (const auto& v : f.static_translations) st.push_back(v);
  for (const auto& v : f.static_rotations) sr.push_back(v);
  j["static"] = {{"translation_factors", factors_json(f.static_translation_factors)},
                 {"rotation_factors", factors_json(f.static_rotation_factors)},
                 {"translations", st},
                 {"rotations", sr}};
  j["max_section_size"] = f.max_section_size;
  j["section_frames"] = f.section_frames;
  j["section_sizes"] = f.section_sizes;
  j["section_offsets"] = f.section_offsets;
  json secs = json::array();
  for (const auto& s : f.sections) {
    json rot = json::array();
    for (const auto& v : s.rotations) rot.push_back(v);
    secs.push_back({{"sample_count", s.sample_count},
                    {"translation_count", s.translation_count},
                    {"rotation_count", s.rotation_count},
                    {"rotation_row_stride", s.rotation_row_stride},
                    {"translation_info", info_json(s.translation_info)},
                    {"rotation_info", info_json(s.rotation_info)},
                    {"translations", s.translations},
                    {"rotations", rot}});
  }
  j["sections"] = secs;
  j["trajectory"] = f.trajectory ? source5_trajectory_to_json(*f.trajectory) : json(nullptr);
  return j;
}

}  // namespace rigrip::morpheme
