// The JSON of `rigrip dump --raw` for X8PC and X8AN files.
#include "formats/sf3/dump.hpp"

#include "formats/sf3/x8pc_mesh.hpp"

namespace rigrip::sf3 {
namespace {

using nlohmann::json;

json keys_json(const key_table& t) {
  json out = json::array();
  for (std::size_t b = 0; b < t.bones.size(); ++b) {
    const auto& k = t.bones[b];
    json tr = json::array(), ro = json::array(), sc = json::array();
    for (std::size_t i = 0; i < k.t_frames.size(); ++i)
      tr.push_back({k.t_frames[i], k.t[0][i] / 65536.0, k.t[1][i] / 65536.0, k.t[2][i] / 65536.0});
    for (std::size_t i = 0; i < k.r_frames.size(); ++i)
      ro.push_back({k.r_frames[i], k.r[0][i] / 16384.0, k.r[1][i] / 16384.0, k.r[2][i] / 16384.0, k.r[3][i] / 16384.0});
    for (std::size_t i = 0; i < k.s_frames.size(); ++i)
      sc.push_back({k.s_frames[i], k.s[0][i] / 65536.0, k.s[1][i] / 65536.0, k.s[2][i] / 65536.0});
    out.push_back({{"bone", b}, {"translation", tr}, {"rotation", ro}, {"scale", sc}});
  }
  return out;
}

}  // namespace

json dump_x8pc_json(const x8pc_file& f) {
  json models = json::array();
  for (const auto& m : f.models) {
    model_geometry g = parse_geometry(m);
    json chunks = json::array();
    for (const auto& e : m.entries)
      chunks.push_back({{"offset", e.offset}, {"data_size", e.data_size}, {"chunk_size", e.chunk_size}});
    json defs = json::array();
    for (const auto& d : m.anim.defs) {
      json ev = json::array();
      for (const auto& e : d.events) ev.push_back({e.frame, e.code});
      defs.push_back({{"start", d.first_frame()}, {"external", d.external()}, {"count", d.count}, {"id", d.id},
                      {"distance", d.distance}, {"events", ev}});
    }
    json tags = json::array();
    for (const auto& t : g.skel.tags) tags.push_back({{"code", t.code}, {"bone", t.parent}, {"position", t.position}});
    models.push_back({{"bones", g.skel.parent.size()},
                      {"meshes", g.body.size() + (g.weapon ? 1 : 0)},
                      {"textures", m.textures.size()},
                      {"keyframes", keys_json(m.anim.keys)},
                      {"offset", m.base},
                      {"body_meshes", g.body.size()},
                      {"weapon", g.weapon.has_value()},
                      {"vram_size", m.vram_size},
                      {"chunks", chunks},
                      {"animations", defs},
                      {"tags", tags},
                      {"mesh_bones", g.skel.mesh_bone},
                      {"bone_parents", g.skel.parent}});
  }
  return json{{"format", "sf3-x8pc"}, {"models", models}};
}

json dump_x8an_json(const x8an_file& an) {
  auto groups = x8an_groups(an);
  json segs = json::array();
  for (std::size_t i = 0; i < an.segments.size(); ++i) {
    const auto& sg = an.segments[i];
    auto fr = frame_range(sg.keys);
    segs.push_back({{"offset", sg.offset}, {"group", groups[i]}, {"bones", sg.keys.bones.size()},
                    {"first_frame", fr.first}, {"last_frame", fr.second}, {"keyframes", keys_json(sg.keys)}});
  }
  return json{{"format", "sf3-x8an"}, {"segments", segs}};
}

}  // namespace rigrip::sf3
