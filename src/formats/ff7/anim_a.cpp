// A field animations (binary): version 1, frame count, bone count, rotation order, frames.
#include "formats/ff7/anim_a.hpp"

namespace rigrip::ff7 {

a_file parse_a(std::span<const std::uint8_t> data) {
  core::byte_reader r(data);
  a_file a;
  a.version = r.u32();
  if (a.version != 1) core::fail(code::bad_magic, "A version is " + std::to_string(a.version) + ", expected 1", 0);
  std::uint32_t frames = r.u32();
  a.bone_count = r.u32();
  for (auto& o : a.order) o = r.u8();
  for (auto& x : a.runtime) x = r.u32();
  if (a.bone_count > 1000) core::fail(code::bad_count, "A bone count " + std::to_string(a.bone_count) + " exceeds 1000", 8);
  for (int i = 0; i < 3; ++i)
    if (a.order[static_cast<std::size_t>(i)] > 2 ||
        a.order[0] + a.order[1] + a.order[2] != 3 || a.order[0] == a.order[1])
      core::fail(code::bad_value, "rotation order bytes must be a permutation of 0, 1, 2", 12);
  r.checked_count(frames, 24 + 12ull * a.bone_count, "A frames");
  a.frames.resize(frames);
  for (auto& f : a.frames) {
    f.root_rotation = {r.f32(), r.f32(), r.f32()};
    f.root_translation = {r.f32(), r.f32(), r.f32()};
    f.rotations.resize(a.bone_count);
    for (auto& v : f.rotations) v = {r.f32(), r.f32(), r.f32()};
  }
  auto rest = r.bytes(r.remaining());
  a.trailing.assign(rest.begin(), rest.end());
  return a;
}

bytes serialise_a(const a_file& a) {
  core::byte_writer w;
  w.u32(a.version);
  w.u32(static_cast<std::uint32_t>(a.frames.size()));
  w.u32(a.bone_count);
  w.bytes(a.order);
  for (auto x : a.runtime) w.u32(x);
  for (const auto& f : a.frames) {
    for (float v : f.root_rotation) w.f32(v);
    for (float v : f.root_translation) w.f32(v);
    for (const auto& t : f.rotations)
      for (float v : t) w.f32(v);
  }
  w.bytes(a.trailing);
  return w.take();
}

int detect_a(std::span<const std::uint8_t> data) {
  if (data.size() < 36) return score::none;
  try {
    auto a = parse_a(data);
    if (a.frames.empty()) return score::none;
    return a.trailing.empty() ? score::structure + 10 : score::name_only;
  } catch (...) {
    return score::none;
  }
}

}  // namespace rigrip::ff7
