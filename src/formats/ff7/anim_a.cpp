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

namespace {
std::uint32_t le32(std::span<const std::uint8_t> d, std::size_t at) {
  return std::uint32_t{d[at]} | std::uint32_t{d[at + 1]} << 8 | std::uint32_t{d[at + 2]} << 16 |
         std::uint32_t{d[at + 3]} << 24;
}
}  // namespace

// parse_a's checks as return values (the registry probes every file; throwing and catching
// for each non-A file was most of that probe), without building the frames.
int detect_a(std::span<const std::uint8_t> data) {
  constexpr std::size_t header = 36;
  if (data.size() < header) return score::none;
  if (le32(data, 0) != 1) return score::none;
  const std::uint32_t frames = le32(data, 4), bones = le32(data, 8);
  const std::uint8_t* o = data.data() + 12;
  if (bones > 1000) return score::none;
  if (o[0] > 2 || o[1] > 2 || o[2] > 2 || o[0] + o[1] + o[2] != 3 || o[0] == o[1]) return score::none;
  const std::uint64_t avail = data.size() - header, frame_size = 24 + 12ull * bones;
  if (frames > avail / frame_size) return score::none;
  if (frames == 0) return score::none;
  return avail == frames * frame_size ? score::structure + 10 : score::name_only;
}

}  // namespace rigrip::ff7
