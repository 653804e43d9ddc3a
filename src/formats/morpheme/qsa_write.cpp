// Runtime-5 QSA raw layer, writing side: qsa_file -> bytes in the layout the SDK's files use
// (README.md here, "QSA": block order). Pointers, the resident size, section sizes and the
// factor-set counts are computed from the layout; the free bytes between blocks come from the
// raw structure (the SDK leaves MSVC's 0xCD fill in some), zeros when their length changed.
#include <algorithm>

#include "formats/morpheme/anim_source.hpp"

namespace rigrip::morpheme {

using core::fail;

namespace {

std::size_t align_up(std::size_t n, std::size_t a) { return (n + a - 1) / a * a; }

struct writer {
  core::byte_writer w;
  bool x64;
  [[nodiscard]] unsigned P() const { return x64 ? 8u : 4u; }
  void ptr(std::uint64_t v) {
    if (!x64 && v > 0xFFFFFFFFu) fail(code::limit_exceeded, "QSA offset past 4 GiB in a win32 file");
    x64 ? w.u64(v) : w.u32(static_cast<std::uint32_t>(v));
  }
  void patch_ptr(std::size_t at, std::uint64_t v) {
    if (!x64 && v > 0xFFFFFFFFu) fail(code::limit_exceeded, "QSA offset past 4 GiB in a win32 file");
    x64 ? w.patch_u64(at, v) : w.patch_u32(at, static_cast<std::uint32_t>(v));
  }
  // Up to the next multiple of `a`: the kept bytes when they fit exactly, else `fill`.
  void pad_to(std::size_t a, const std::vector<std::uint8_t>& kept, std::uint8_t fill = 0) {
    const std::size_t n = align_up(w.size(), a) - w.size();
    if (kept.size() == n)
      w.bytes(kept);
    else
      w.fill(n, fill);
  }
  void six(const std::array<float, 6>& v) {
    for (float f : v) w.f32(f);
  }
  void triples(const std::vector<u16x3>& v) {
    for (const auto& t : v)
      for (auto c : t) w.u16(c);
  }
  // {u16 count; u16 channels[align4(count)]} padded to 4 bytes (0xFFFF in the SDK's files).
  void list(const std::vector<std::uint16_t>& v, const std::vector<std::uint8_t>& pad) {
    if (v.size() > 0xFFFF) fail(code::limit_exceeded, "QSA channel list of " + std::to_string(v.size()) + " entries");
    const std::size_t start = w.size();
    w.u16(static_cast<std::uint16_t>(v.size()));
    for (auto c : v) w.u16(c);
    const std::size_t n = align_up(2 + 2 * align_up(v.size(), 4), 4) - (w.size() - start);
    if (pad.size() == n)
      w.bytes(pad);
    else
      w.fill(n, 0xFF);
  }
  void infos(const std::vector<qsa_channel_info>& v, std::uint16_t count, const char* what) {
    if (v.size() != align_up(count, 4))
      fail(code::bad_count, std::string(what) + " holds " + std::to_string(v.size()) + " entries for " +
                                std::to_string(count) + " channels (needs them padded to a multiple of 4)");
    for (const auto& i : v) {
      for (auto b : i.bits) w.u8(b);
      for (auto b : i.init) w.u8(b);
      for (auto b : i.index) w.u8(b);
    }
  }
};

std::uint16_t count16(std::size_t n, const char* what) {
  if (n > 0xFFFF) fail(code::limit_exceeded, std::string(what) + ": " + std::to_string(n) + " (u16 field)");
  return static_cast<std::uint16_t>(n);
}

// A section: the 0x28-byte word header (size and set counts computed), the position init range,
// the runtime pointer block (null), then position sets, info, rows, (align 4) rotation sets,
// info, rows, padded to 16 bytes. Returns its size.
std::uint64_t write_section(writer& wr, const qsa_section& s, std::uint32_t channels) {
  auto& w = wr.w;
  const std::size_t at = w.size();
  if (s.words[1] != channels)
    fail(code::bad_value, "QSA section of " + std::to_string(s.words[1]) + " channels in a file of " +
                              std::to_string(channels));
  const std::size_t samples = s.sample_count();
  if (s.position_rows.size() != samples * s.position_row_bytes() ||
      s.rotation_rows.size() != samples * s.rotation_row_bytes())
    fail(code::bad_count, "QSA section rows do not match its sample count and row sizes");
  auto words = s.words;
  words[0] = 0;  // patched
  words[15] = count16(s.position_sets.size(), "QSA position factor sets");
  words[16] = count16(s.rotation_sets.size(), "QSA rotation factor sets");
  for (auto v : words) w.u16(v);
  wr.six(s.position_init);
  w.fill((wr.x64 ? 0xE0u : 0x9Cu) - 0x40u);  // runtime pointers, null on disk
  for (const auto& v : s.position_sets) wr.six(v);
  wr.infos(s.position_info, s.position_count(), "QSA position channel info");
  w.bytes(s.position_rows);
  wr.pad_to(4, s.rows_pad);
  for (const auto& v : s.rotation_sets) wr.six(v);
  wr.infos(s.rotation_info, s.rotation_count(), "QSA rotation channel info");
  w.bytes(s.rotation_rows);
  wr.pad_to(16, s.end_pad);
  const std::uint64_t size = w.size() - at;
  if (size > 0xFFFF) fail(code::limit_exceeded, "QSA section of " + std::to_string(size) + " bytes (u16 size field)");
  w.patch_u16(at, static_cast<std::uint16_t>(size));
  return size;
}

}  // namespace

bytes serialise_qsa(const qsa_file& f) {
  writer wr{core::byte_writer{}, f.h.x64};
  auto& w = wr.w;
  const unsigned P = wr.P();
  const std::uint32_t n = static_cast<std::uint32_t>(f.sections.size());
  if (f.section_info.size() != n)
    fail(code::bad_count, "QSA section table of " + std::to_string(f.section_info.size()) + " entries for " +
                              std::to_string(n) + " sections");
  if (f.unchanging_positions.size() != f.lists[0].size() || f.unchanging_rotations.size() != f.lists[1].size())
    fail(code::bad_count, "QSA unchanging values do not match the unchanging channel lists");
  // Shared header.
  wr.ptr(0);
  const std::size_t resident_field = w.size();
  wr.ptr(0);
  w.u32(f.h.alignment);
  if (wr.x64) w.u32(0);
  w.u32(source_type_qsa);
  if (wr.x64) w.u32(0);
  w.f32(f.h.duration);
  w.f32(f.h.sample_rate);
  w.u32(f.h.channel_count);
  w.u32(n);
  w.u32(f.h.channel_sections);
  w.u32(f.h.unknown);
  // QSA header: six channel lists, section table, unchanging block, section pointers,
  // trajectory, one more (null) pointer.
  const std::size_t ptrs = w.size();
  for (int k = 0; k < 10; ++k) wr.ptr(0);
  wr.ptr(f.last_pointer);
  for (unsigned k = 0; k < 6; ++k) {
    wr.patch_ptr(ptrs + k * P, w.size());
    wr.list(f.lists[k], f.list_pads[k]);
  }
  wr.patch_ptr(ptrs + 6ull * P, w.size());
  const std::size_t table = w.size();
  for (const auto& si : f.section_info) {
    w.u32(si[0]);
    w.u32(0);  // size, patched
  }
  wr.patch_ptr(ptrs + 8ull * P, w.size());
  const std::size_t offsets = w.size();
  for (std::uint32_t i = 0; i < n; ++i) wr.ptr(0);
  // Unchanging block (16-aligned): head, counts, ranges, (P-aligned) two pointers, then the
  // 16-aligned u16 triples, positions before rotations; the first section follows at 16.
  wr.pad_to(16, f.unchanging_lead_pad);
  const std::size_t u = w.size();
  wr.patch_ptr(ptrs + 7ull * P, u);
  for (float v : f.unchanging_head) w.f32(v);
  auto counts = f.unchanging_counts;
  counts[4] = count16(f.unchanging_positions.size(), "QSA unchanging positions");
  counts[5] = count16(f.unchanging_rotations.size(), "QSA unchanging rotations");
  for (auto c : counts) w.u16(c);
  wr.six(f.unchanging_position_range);
  wr.six(f.unchanging_rotation_range);
  wr.pad_to(P, f.unchanging_struct_pad);
  for (auto p : f.unchanging_pointers) wr.ptr(p);
  wr.pad_to(16, f.unchanging_data_pad);
  wr.triples(f.unchanging_positions);
  wr.triples(f.unchanging_rotations);
  wr.pad_to(16, f.resident_pad);
  wr.patch_ptr(resident_field, w.size());
  for (std::uint32_t i = 0; i < n; ++i) {
    wr.patch_ptr(offsets + static_cast<std::size_t>(i) * P, w.size());
    const std::uint64_t size = write_section(wr, f.sections[i], f.h.channel_count);
    w.patch_u32(table + 8ull * i + 4, static_cast<std::uint32_t>(size));
  }
  if (f.trajectory) {
    wr.patch_ptr(ptrs + 9ull * P, w.size());
    write_source5_trajectory(w, wr.x64, true, *f.trajectory);
  }
  return w.take();
}

}  // namespace rigrip::morpheme
