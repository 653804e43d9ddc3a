// AA battle skeletons: 13-word header + 12-byte bone records, byte-faithful both ways.
#include <cmath>
#include <filesystem>

#include "core/math.hpp"
#include "formats/ff7/aa.hpp"

namespace rigrip::ff7 {

aa_file parse_aa(std::span<const std::uint8_t> data) {
  core::byte_reader r(data);
  aa_file a;
  for (auto& h : a.header) h = r.i32();
  std::int32_t n = a.bone_count();
  if (n < 0) core::fail(code::bad_count, "bone count " + std::to_string(n) + " is negative", 12);
  r.checked_count(static_cast<std::uint64_t>(n), 12, "AA bone records");
  a.bones.resize(static_cast<std::size_t>(n));
  for (std::size_t i = 0; i < a.bones.size(); ++i) {
    auto at = r.abs();
    auto& b = a.bones[i];
    b.parent = r.i32();
    b.length = r.f32();
    b.has_model = r.i32();
    // Parents precede children (the game walks a joint stack in file order).
    if (b.parent < -1 || b.parent >= static_cast<std::int32_t>(i))
      core::fail(code::bad_value, "bone " + std::to_string(i) + " has parent " + std::to_string(b.parent) +
                                      "; expected -1 or an earlier bone", at);
    if (!std::isfinite(b.length))
      core::fail(code::bad_value, "bone " + std::to_string(i) + " length is not a finite number", at + 4);
  }
  auto rest = r.bytes(r.remaining());
  a.trailing.assign(rest.begin(), rest.end());
  return a;
}

bytes serialise_aa(const aa_file& a) {
  core::byte_writer w;
  for (auto h : a.header) w.i32(h);
  for (const auto& b : a.bones) {
    w.i32(b.parent);
    w.f32(b.length);
    w.i32(b.has_model);
  }
  w.bytes(a.trailing);
  return w.take();
}

namespace {
// Plausible counts: bones, textures (<= 10 suffixes), animations, weapons.
bool plausible(const std::array<std::int32_t, 13>& h) {
  return !(h[3] > 200 || h[5] < 0 || h[5] > 200 || h[6] < 0 || h[6] > 10 || h[7] < 0 || h[7] > 1000 ||
           h[9] < 0 || h[9] > 16 || h[10] < 0 || h[10] > 1000);
}
}  // namespace

int detect_aa(std::span<const std::uint8_t> data) {
  try {
    if (data.size() < 52) return score::none;
    // The header alone rules out nearly every other file (detection probes every input with
    // every format): checked before the parse, which copies the file and throws on failure.
    std::array<std::int32_t, 13> head{};
    core::byte_reader hr(data);
    for (auto& v : head) v = hr.i32();
    if (!plausible(head)) return score::none;
    auto a = parse_aa(data);
    const auto& h = a.header;
    if (!plausible(h)) return score::none;
    for (const auto& b : a.bones)
      if (b.has_model != 0 && b.has_model != 1) return score::none;
    if (!a.trailing.empty()) return score::name_only;  // AA files end with the bone table
    return score::structure;
  } catch (...) {
    return score::none;
  }
}

// `dump --raw` of an AA file.
nlohmann::json aa_to_json(const aa_file& a) {
  nlohmann::json bones = nlohmann::json::array();
  for (const auto& b : a.bones) bones.push_back({{"parent", b.parent}, {"length", b.length}, {"has_model", b.has_model}});
  return nlohmann::json{{"format", "ff7-aa"}, {"header", a.header}, {"bones", bones}, {"trailing_bytes", a.trailing.size()}};
}

}  // namespace rigrip::ff7
