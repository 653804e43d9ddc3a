// Runtime-5 QSA raw layer (the SDK's .qsa, x64 and win32): unchanging channels at 16 bits,
// sampled channels as bit rows with per-channel widths. Layout: README.md here.
#include "formats/morpheme/anim_source.hpp"

namespace rigrip::morpheme {

using core::byte_reader;
using core::fail;
using hexs = core::byte_reader;

namespace {

using source5::align4;
using source5::ptr_at;
using source5::target;
std::uint64_t align_up(std::uint64_t v, std::uint64_t a) { return (v + a - 1) / a * a; }

std::array<float, 6> six_at(const byte_reader& r, std::uint64_t at) {
  std::array<float, 6> v{};
  for (int k = 0; k < 6; ++k) v[k] = r.f32_at(at + 4 * k);
  return v;
}

// The free bytes [from, to) as stored, for the writer; none when they run past the data.
std::vector<std::uint8_t> kept(const byte_reader& r, std::uint64_t from, std::uint64_t to) {
  if (from >= to || to > r.size()) return {};
  auto b = r.data().subspan(static_cast<std::size_t>(from), static_cast<std::size_t>(to - from));
  return {b.begin(), b.end()};
}

// Bytes between the section's position range and its factor sets: runtime pointers, null on disk.
std::uint64_t null_block_end(bool x64) { return x64 ? 0xE0 : 0x9C; }

qsa_section read_section(const byte_reader& all, std::uint64_t at, bool x64, std::uint32_t channels) {
  target(all, at, 0, null_block_end(x64), "QSA section", at);
  qsa_section s;
  s.offset = at;
  for (int k = 0; k < 20; ++k) s.words[k] = all.u16_at(at + 2 * k);
  std::uint64_t size = s.size();
  auto r = all.sub(at, std::min<std::uint64_t>(size ? size : all.size() - at, all.size() - at));
  if (s.words[1] != channels)
    fail(code::bad_value, "QSA section says " + std::to_string(s.words[1]) + " channels, the header " +
                              std::to_string(channels), r.base() + 2);
  if (s.words[6] || s.words[7] || s.words[8])
    fail(code::unsupported_feature, "QSA section with spline channels (header words " + std::to_string(s.words[6]) +
                                        ", " + std::to_string(s.words[7]) + ", " + std::to_string(s.words[8]) +
                                        "): only sampled sections are understood", r.base() + 0x0C);
  s.position_init = six_at(r, 0x28);
  for (std::uint64_t b = 0x40; b < null_block_end(x64); ++b)
    if (r.u8_at(b) != 0)
      fail(code::unsupported_feature, "QSA section pointer block at " + hexs::hex(r.base() + 0x40) +
                                          " is not null: a layout this reader does not know", r.base() + b);
  std::uint64_t p = null_block_end(x64);
  auto sets = [&](std::uint16_t n, const char* what) {
    r.checked_count_at(p, n, 24, what);
    std::vector<std::array<float, 6>> v;
    for (std::uint16_t i = 0; i < n; ++i) v.push_back(six_at(r, p + 24ull * i));
    p += 24ull * n;
    return v;
  };
  auto infos = [&](std::uint16_t count, std::size_t nsets, const char* what) {
    std::uint32_t n = align4(count);
    r.checked_count_at(p, n, 9, what);
    std::vector<qsa_channel_info> v(n);
    for (std::uint32_t i = 0; i < n; ++i) {
      for (int c = 0; c < 3; ++c) {
        v[i].bits[c] = r.u8_at(p + 9ull * i + c);
        v[i].init[c] = r.u8_at(p + 9ull * i + 3 + c);
        v[i].index[c] = r.u8_at(p + 9ull * i + 6 + c);
        if (v[i].bits[c] > 32)
          fail(code::bad_value, std::string(what) + ": " + std::to_string(v[i].bits[c]) + " bits per component",
               r.base() + p + 9ull * i + c);
        if (i < count && v[i].index[c] >= nsets)
          fail(code::bad_value, std::string(what) + ": factor set " + std::to_string(v[i].index[c]) + " of " +
                                    std::to_string(nsets), r.base() + p + 9ull * i + 6 + c);
      }
    }
    p += 9ull * n;
    return v;
  };
  auto rows = [&](std::uint16_t row_bytes, const std::vector<qsa_channel_info>& info, std::uint16_t count,
                  const char* what) {
    std::uint64_t bits = 0;
    for (std::uint16_t i = 0; i < count; ++i) bits += info[i].bits[0] + info[i].bits[1] + info[i].bits[2];
    if (bits > 8ull * row_bytes)
      fail(code::bad_value, std::string(what) + ": " + std::to_string(bits) + " bits per sample do not fit rows of " +
                                std::to_string(row_bytes) + " bytes", r.base() + 0x12);
    r.checked_count_at(p, s.sample_count(), row_bytes, what);
    auto b = r.data().subspan(static_cast<std::size_t>(p), static_cast<std::size_t>(row_bytes) * s.sample_count());
    p += b.size();
    return std::vector<std::uint8_t>(b.begin(), b.end());
  };
  if (s.position_count() > channels || s.rotation_count() > channels)
    fail(code::bad_count, "QSA section channel counts exceed the channel count", r.base() + 8);
  s.position_sets = sets(s.position_set_count(), "QSA position factor sets");
  s.position_info = infos(s.position_count(), s.position_sets.size(), "QSA position channel info");
  s.position_rows = rows(s.position_row_bytes(), s.position_info, s.position_count(), "QSA position rows");
  s.rows_pad = kept(r, p, align_up(p, 4));
  p = align_up(p, 4);
  s.rotation_sets = sets(s.rotation_set_count(), "QSA rotation factor sets");
  s.rotation_info = infos(s.rotation_count(), s.rotation_sets.size(), "QSA rotation channel info");
  s.rotation_rows = rows(s.rotation_row_bytes(), s.rotation_info, s.rotation_count(), "QSA rotation rows");
  s.end_pad = kept(r, p, align_up(p, 16));
  return s;
}

}  // namespace

qsa_file parse_qsa(const byte_reader& r) {
  qsa_file f;
  f.h = read_source5_header(r);
  const bool x = f.h.x64;
  const unsigned P = f.h.psize();
  if (f.h.type != source_type_qsa)
    fail(code::bad_value, "animation source type " + std::to_string(f.h.type) + " is not QSA (3)", r.base() + (x ? 0x18 : 0x0C));
  if (f.h.channel_sections != 1)
    fail(code::unsupported_feature, std::to_string(f.h.channel_sections) +
                                        " channel sections: only QSA files with one channel section are understood",
         r.base() + (x ? 0x30 : 0x20));
  const std::uint64_t o = x ? 0x38 : 0x28;
  target(r, 0, 0, o + 11ull * P, "QSA header", 0);
  const char* names[6] = {"QSA unchanging position channels", "QSA unchanging rotation channels",
                          "QSA sampled position channels",    "QSA sampled rotation channels",
                          "QSA spline position channels",     "QSA spline rotation channels"};
  for (unsigned k = 0; k < 6; ++k) {
    std::uint64_t a = target(r, 0, ptr_at(r, o + k * P, x), 2, names[k], o + k * P);
    f.lists[k] = read_channel_list(r, a, names[k]);
    std::uint64_t used = 2 + 2ull * f.lists[k].size();
    f.list_pads[k] = kept(r, a + used, a + align_up(2 + 2ull * align4(static_cast<std::uint32_t>(f.lists[k].size())), 4));
    for (auto c : f.lists[k])
      if (c >= f.h.channel_count)
        fail(code::bad_value, std::string(names[k]) + ": channel " + std::to_string(c) + " out of range", r.base());
  }
  if (!f.lists[4].empty() || !f.lists[5].empty())
    fail(code::unsupported_feature, "QSA with spline-compressed channels: not understood yet (no sample has them)",
         r.base() + o + 4ull * P);
  const std::uint32_t n = f.h.frame_sections;
  const std::uint64_t f_info = o + 6ull * P, f_unch = f_info + P, f_refs = f_unch + P, f_traj = f_refs + P;
  f.last_pointer = ptr_at(r, f_traj + P, x);
  std::uint64_t refs_end = 0;
  {
    std::uint64_t a = target(r, 0, ptr_at(r, f_info, x), 0, "QSA section table", f_info);
    r.checked_count_at(a, n, 8, "QSA section table");
    for (std::uint32_t i = 0; i < n; ++i) f.section_info.push_back({r.u32_at(a + 8ull * i), r.u32_at(a + 8ull * i + 4)});
    a = target(r, 0, ptr_at(r, f_refs, x), 0, "QSA section pointers", f_refs);
    r.checked_count_at(a, n, P, "QSA section pointers");
    for (std::uint32_t i = 0; i < n; ++i) f.section_offsets.push_back(ptr_at(r, a + static_cast<std::uint64_t>(i) * P, x));
    refs_end = a + static_cast<std::uint64_t>(n) * P;
  }
  // Unchanging block: 4 floats, 6 u16 counts, position range, rotation range, two null
  // pointers (P-aligned), then (16-aligned) the 16-bit position and rotation triples.
  {
    std::uint64_t u = target(r, 0, ptr_at(r, f_unch, x), align_up(0x4C, P) + 2ull * P, "QSA unchanging block", f_unch);
    if (u > refs_end && u - refs_end < 16) f.unchanging_lead_pad = kept(r, refs_end, u);
    const std::uint64_t up = u + align_up(0x4C, P);
    f.unchanging_struct_pad = kept(r, u + 0x4C, up);
    for (unsigned k = 0; k < 2; ++k) f.unchanging_pointers[k] = ptr_at(r, up + k * P, x);
    for (int k = 0; k < 4; ++k) f.unchanging_head[k] = r.f32_at(u + 4 * k);
    for (int k = 0; k < 6; ++k) f.unchanging_counts[k] = r.u16_at(u + 0x10 + 2 * k);
    f.unchanging_position_range = six_at(r, u + 0x1C);
    f.unchanging_rotation_range = six_at(r, u + 0x34);
    if (f.unchanging_counts[4] != f.lists[0].size() || f.unchanging_counts[5] != f.lists[1].size())
      fail(code::bad_count, "QSA unchanging block counts (" + std::to_string(f.unchanging_counts[4]) + ", " +
                                std::to_string(f.unchanging_counts[5]) + ") differ from the channel lists",
           r.base() + u + 0x18);
    std::uint64_t d = align_up(r.base() + up + 2ull * P, 16) - r.base();
    f.unchanging_data_pad = kept(r, up + 2ull * P, d);
    std::uint64_t np = f.lists[0].size(), nq = f.lists[1].size();
    r.checked_count_at(d, np + nq, 6, "QSA unchanging channels");
    f.resident_pad = kept(r, d + 6 * (np + nq), align_up(d + 6 * (np + nq), 16));
    for (std::uint64_t i = 0; i < np + nq; ++i) {
      u16x3 v{r.u16_at(d + 6 * i), r.u16_at(d + 6 * i + 2), r.u16_at(d + 6 * i + 4)};
      (i < np ? f.unchanging_positions : f.unchanging_rotations).push_back(v);
    }
  }
  for (std::uint32_t i = 0; i < n; ++i) {
    std::uint64_t at = target(r, 0, f.section_offsets[i], f.section_info[i][1], "QSA section", f_refs);
    auto s = read_section(r, at, x, f.h.channel_count);
    if (s.position_count() != f.lists[2].size() || s.rotation_count() != f.lists[3].size())
      fail(code::bad_count, "QSA section " + std::to_string(i) + " channel counts differ from the sampled lists",
           r.base() + at + 8);
    f.sections.push_back(std::move(s));
  }
  if (std::uint64_t tp = ptr_at(r, f_traj, x))
    f.trajectory = read_source5_trajectory(r, target(r, 0, tp, 0, "QSA trajectory", f_traj), x, true);
  return f;
}

nlohmann::json qsa_to_json(const qsa_file& f) {
  using nlohmann::json;
  const auto& h = f.h;
  json j{{"pointer_size", h.psize()},       {"resident_size", h.resident_size}, {"alignment", h.alignment},
         {"type", h.type},                  {"duration", h.duration},           {"sample_rate", h.sample_rate},
         {"channel_count", h.channel_count}, {"frame_sections", h.frame_sections},
         {"channel_sections", h.channel_sections}, {"unknown", h.unknown}};
  j["channels"] = {{"unchanging_position", f.lists[0]}, {"unchanging_rotation", f.lists[1]},
                   {"sampled_position", f.lists[2]},    {"sampled_rotation", f.lists[3]},
                   {"spline_position", f.lists[4]},     {"spline_rotation", f.lists[5]}};
  json si = json::array();
  for (const auto& s : f.section_info) si.push_back({{"start_frame", s[0]}, {"size", s[1]}});
  j["section_table"] = si;
  j["section_offsets"] = f.section_offsets;
  json up = json::array(), uq = json::array();
  for (const auto& v : f.unchanging_positions) up.push_back(v);
  for (const auto& v : f.unchanging_rotations) uq.push_back(v);
  j["unchanging"] = {{"head", f.unchanging_head},
                     {"counts", f.unchanging_counts},
                     {"position_range", f.unchanging_position_range},
                     {"rotation_range", f.unchanging_rotation_range},
                     {"positions", up},
                     {"rotations", uq}};
  json secs = json::array();
  auto infos = [](const std::vector<qsa_channel_info>& v) {
    json a = json::array();
    for (const auto& i : v) a.push_back({{"bits", i.bits}, {"init", i.init}, {"factor_index", i.index}});
    return a;
  };
  for (const auto& s : f.sections)
    secs.push_back({{"offset", s.offset},
                    {"header_words", s.words},
                    {"start_frame", s.start_frame()},
                    {"sample_count", s.sample_count()},
                    {"position_init_range", s.position_init},
                    {"position_sets", s.position_sets},
                    {"rotation_sets", s.rotation_sets},
                    {"position_info", infos(s.position_info)},
                    {"rotation_info", infos(s.rotation_info)},
                    {"position_row_bytes", s.position_row_bytes()},
                    {"rotation_row_bytes", s.rotation_row_bytes()}});
  j["sections"] = secs;
  j["trajectory"] = f.trajectory ? source5_trajectory_to_json(*f.trajectory) : json(nullptr);
  return j;
}

}  // namespace rigrip::morpheme
