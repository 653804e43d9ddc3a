// The JSON of `rigrip dump --raw` for the ff7 file kinds that have one (AA, DA).
#include "formats/ff7/dump.hpp"

#include <filesystem>

namespace rigrip::ff7 {
namespace {

nlohmann::json animations_json(const std::vector<decoded_chunk>& chunks) {
  nlohmann::json anims = nlohmann::json::array();
  for (const auto& d : chunks) {
    nlohmann::json frames = nlohmann::json::array();
    for (const auto& f : d.frames) {
      nlohmann::json rots = nlohmann::json::array();
      for (const auto& t : f.rotations)
        rots.push_back({((t[0] % 4096) + 4096) % 4096, ((t[1] % 4096) + 4096) % 4096, ((t[2] % 4096) + 4096) % 4096});
      frames.push_back({{"position", {f.position[0], f.position[1], f.position[2]}}, {"rotations", rots}});
    }
    nlohmann::json a{{"index", d.index}, {"kind", std::string(to_string(d.kind))}, {"frames", frames}};
    const auto& c = *d.chunk;
    a["chunk_offset"] = c.offset;
    a["chunk_size"] = c.chunk_size;
    a["bones_field"] = c.bones_field;
    a["frames_field"] = c.frames_field;
    if (!c.special) {
      a["s_frames"] = c.s_frames;
      a["s_size"] = c.s_size;
      a["key"] = c.key;
      if (c.no_frames_field) a["missing_s_frames"] = true;
      if (d.stopped_early) a["bitstream_ended_early"] = true;
    }
    anims.push_back(std::move(a));
  }
  return {{"format", "ff7-da"}, {"animations", anims}};
}

}  // namespace

nlohmann::json dump_da_json(const read_context& c) {
  auto p = parse_da(c.data);
  auto src = load_skeleton_for_da(c);
  auto j = animations_json(decode_pack(p, src.aa, &c));
  j["skeleton"] = std::filesystem::path(src.path).filename().string();
  if (!p.trailing.empty()) j["trailing_bytes"] = p.trailing.size();
  return j;
}

nlohmann::json dump_aa_json(const aa_file& a) {
  nlohmann::json bones = nlohmann::json::array();
  for (const auto& b : a.bones) bones.push_back({{"parent", b.parent}, {"length", b.length}, {"has_model", b.has_model}});
  return nlohmann::json{{"format", "ff7-aa"}, {"header", a.header}, {"bones", bones}, {"trailing_bytes", a.trailing.size()}};
}

}  // namespace rigrip::ff7
