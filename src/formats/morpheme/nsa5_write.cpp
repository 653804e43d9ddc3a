// Runtime-5 NSA raw layer, writing side: nsa5_file -> bytes in the layout the SDK's files use
// (README.md here, "NSA (runtime 5)": block order, 0xFFFF-padded channel lists, 16-byte
// aligned sections and trajectory). Pointers, sizes, the resident size and the largest
// section size are computed from the layout, never copied from the raw structure.
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
  void ptr(std::uint64_t v) { x64 ? w.u64(v) : w.u32(static_cast<std::uint32_t>(v)); }
  void patch_ptr(std::size_t at, std::uint64_t v) {
    x64 ? w.patch_u64(at, v) : w.patch_u32(at, static_cast<std::uint32_t>(v));
  }
  void factors_(const factors& f) {
    for (float v : f.min) w.f32(v);
    for (float v : f.extent) w.f32(v);
  }
  // {u16 count; u16 channels[align4(count)]} padded with 0xFFFF to 4 bytes.
  void list(const std::vector<std::uint16_t>& v) {
    if (v.size() > 0xFFFF) fail(code::limit_exceeded, "NSA channel list of " + std::to_string(v.size()) + " entries");
    std::size_t start = w.size();
    w.u16(static_cast<std::uint16_t>(v.size()));
    for (auto c : v) w.u16(c);
    for (std::size_t i = v.size(); i < align_up(v.size(), 4); ++i) w.u16(0xFFFF);
    while ((w.size() - start) % 4) w.u8(0xFF);
  }
  void info(const std::vector<deq_info>& v, std::uint32_t count) {
    if (v.size() != align_up(count, 4))
      fail(code::bad_count, "NSA info array holds " + std::to_string(v.size()) + " entries for " +
                                std::to_string(count) + " channels (needs them padded to a multiple of 4)");
    for (const auto& i : v) {
      for (auto b : i.init) w.u8(b);
      for (auto b : i.index) w.u8(b);
    }
  }
  void triples(const std::vector<u16x3>& v) {
    for (const auto& t : v)
      for (auto c : t) w.u16(c);
  }
};

void write_section(writer& wr, const nsa5_section& s) {
  auto& w = wr.w;
  const std::size_t at = w.size();
  const unsigned P = wr.P();
  if (s.translations.size() != static_cast<std::size_t>(s.sample_count) * s.translation_count ||
      s.rotations.size() != static_cast<std::size_t>(s.sample_count) * s.rotation_count)
    fail(code::bad_count, "NSA section sample arrays do not match its sample and channel counts");
  w.u32(s.sample_count);
  w.u32(s.translation_count);
  w.u32(s.rotation_count);
  if (wr.x64) w.u32(0);
  const std::size_t ptrs = w.size();
  for (int k = 0; k < 4; ++k) wr.ptr(0);
  if (s.translation_count) {
    wr.patch_ptr(ptrs, w.size() - at);
    for (auto v : s.translations) w.u32(v);
    wr.patch_ptr(ptrs + P, w.size() - at);
    wr.info(s.translation_info, s.translation_count);
  }
  if (s.rotation_count) {
    const std::uint32_t stride = static_cast<std::uint32_t>(align_up(6ull * s.rotation_count, 4));
    wr.patch_ptr(ptrs + 2 * P, w.size() - at);
    for (std::uint32_t t = 0; t < s.sample_count; ++t) {
      std::size_t row = w.size();
      for (std::uint32_t c = 0; c < s.rotation_count; ++c)
        for (auto q : s.rotations[static_cast<std::size_t>(t) * s.rotation_count + c]) w.u16(q);
      w.fill(stride - (w.size() - row));
    }
    wr.patch_ptr(ptrs + 3 * P, w.size() - at);
    wr.info(s.rotation_info, s.rotation_count);
  }
  w.align(16);
}

void write_trajectory(writer& wr, const source5_trajectory& t, bool qsa) {
  auto& w = wr.w;
  const std::size_t at = w.size();
  const unsigned P = wr.P();
  w.u32(t.type);
  if (wr.x64) w.u32(0);
  wr.ptr(0);
  const std::size_t size_field = w.size();
  wr.ptr(0);  // size, patched
  w.u32(t.alignment);
  if (wr.x64) w.u32(0);
  w.f32(t.sample_rate);
  if (qsa) {
    if (t.sample_count > 0xFFFF)
      fail(code::limit_exceeded, "QSA trajectory of " + std::to_string(t.sample_count) + " samples (u16 count)");
    w.u16(static_cast<std::uint16_t>(t.sample_count));
    w.u8(t.flags[0]);
    w.u8(t.flags[1]);
  } else {
    w.u32(t.sample_count);
  }
  for (float v : t.translation) w.f32(v);
  for (float v : t.rotation) w.f32(v);
  const std::size_t ptrs = w.size();
  wr.ptr(0);
  wr.ptr(0);
  if (!t.translations.empty()) {
    if (t.translations.size() != t.sample_count)
      fail(code::bad_count, "trajectory holds " + std::to_string(t.translations.size()) + " translations for " +
                                std::to_string(t.sample_count) + " samples");
    wr.patch_ptr(ptrs, w.size() - at);
    for (auto v : t.translations) w.u32(v);
  }
  if (!t.constant_rotation) {
    if (t.rotations.size() != t.sample_count)
      fail(code::bad_count, "trajectory holds " + std::to_string(t.rotations.size()) + " rotations for " +
                                std::to_string(t.sample_count) + " samples");
    wr.patch_ptr(ptrs + P, w.size() - at);
    wr.triples(t.rotations);
    w.fill(6);  // the SDK writes one spare (zero) rotation entry after the samples
  }
  w.align(16);
  wr.patch_ptr(size_field, w.size() - at);
}

}  // namespace

void write_source5_trajectory(core::byte_writer& w, bool x64, bool qsa, const source5_trajectory& t) {
  writer wr{std::move(w), x64};
  write_trajectory(wr, t, qsa);
  w = std::move(wr.w);
}

bytes serialise_nsa5(const nsa5_file& f) {
  writer wr{core::byte_writer{}, f.h.x64};
  auto& w = wr.w;
  const unsigned P = wr.P();
  const std::uint32_t n = static_cast<std::uint32_t>(f.sections.size());
  if (f.section_frames.size() != n + 1ull)
    fail(code::bad_count, "NSA needs " + std::to_string(n + 1ull) + " section frames, has " +
                              std::to_string(f.section_frames.size()));
  if (f.static_translations.size() != f.static_translation.size() ||
      f.static_rotations.size() != f.static_rotation.size())
    fail(code::bad_count, "NSA static values do not match the static channel lists");
  // Shared header.
  wr.ptr(0);
  const std::size_t resident_field = w.size();
  wr.ptr(0);
  w.u32(f.h.alignment);
  if (wr.x64) w.u32(0);
  w.u32(source_type_nsa);
  if (wr.x64) w.u32(0);
  w.f32(f.h.duration);
  w.f32(f.h.sample_rate);
  w.u32(f.h.channel_count);
  w.u32(n);
  w.u32(1);  // channel sections
  w.u32(f.h.unknown);
  // NSA header.
  const std::size_t lists = w.size();
  for (int k = 0; k < 4; ++k) wr.ptr(0);
  wr.factors_(f.init);
  w.u32(static_cast<std::uint32_t>(f.translation_factors.size()));
  w.u32(static_cast<std::uint32_t>(f.rotation_factors.size()));
  const std::size_t q = w.size();
  for (int k = 0; k < 9; ++k) wr.ptr(0);
  // Channel lists, then the per-channel-section pointer arrays and their lists.
  wr.patch_ptr(lists, w.size());
  wr.list(f.static_translation);
  wr.patch_ptr(lists + P, w.size());
  wr.list(f.static_rotation);
  const std::size_t dyn_t = w.size();
  wr.patch_ptr(lists + 2 * P, dyn_t);
  wr.ptr(0);
  wr.patch_ptr(lists + 3 * P, w.size());
  wr.ptr(0);
  wr.patch_ptr(dyn_t, w.size());
  wr.list(f.dynamic_translation);
  wr.patch_ptr(dyn_t + P, w.size());
  wr.list(f.dynamic_rotation);
  // Factor sets.
  if (!f.translation_factors.empty()) wr.patch_ptr(q, w.size());
  for (const auto& s : f.translation_factors) wr.factors_(s);
  if (!f.rotation_factors.empty()) wr.patch_ptr(q + P, w.size());
  for (const auto& s : f.rotation_factors) wr.factors_(s);
  // Section tables (sizes and pointers patched once the sections are placed).
  wr.patch_ptr(q + 4ull * P, w.size());
  for (auto v : f.section_frames) w.u32(v);
  const std::size_t sizes = w.size();
  wr.patch_ptr(q + 5ull * P, sizes);
  w.fill(4ull * n);
  const std::size_t offsets = w.size();
  wr.patch_ptr(q + 6ull * P, offsets);
  for (std::uint32_t i = 0; i < n; ++i) wr.ptr(0);
  // Static segment: counts, factor sets, two data pointers relative to it, then the data.
  const std::size_t s = w.size();
  wr.patch_ptr(q + 2ull * P, s);
  w.u32(static_cast<std::uint32_t>(f.static_translation.size()));
  w.u32(static_cast<std::uint32_t>(f.static_rotation.size()));
  wr.factors_(f.static_translation_factors);
  wr.factors_(f.static_rotation_factors);
  const std::size_t sp = w.size();
  wr.ptr(0);
  wr.ptr(0);
  if (!f.static_translations.empty()) wr.patch_ptr(sp, w.size() - s);
  wr.triples(f.static_translations);
  if (!f.static_rotations.empty()) wr.patch_ptr(sp + P, w.size() - s);
  wr.triples(f.static_rotations);
  w.align(16);
  wr.patch_ptr(resident_field, w.size());
  std::uint64_t largest = 0;
  for (std::uint32_t i = 0; i < n; ++i) {
    const std::size_t at = w.size();
    write_section(wr, f.sections[i]);
    const std::uint64_t size = w.size() - at;
    if (size > 0xFFFFFFFFu) fail(code::limit_exceeded, "NSA section larger than 4 GiB");
    w.patch_u32(sizes + 4ull * i, static_cast<std::uint32_t>(size));
    wr.patch_ptr(offsets + static_cast<std::size_t>(i) * P, at);
    largest = std::max(largest, size);
  }
  wr.patch_ptr(q + 3ull * P, largest);
  if (f.trajectory) {
    wr.patch_ptr(q + 7ull * P, w.size());
    write_trajectory(wr, *f.trajectory, false);
  }
  return w.take();
}

}  // namespace rigrip::morpheme
