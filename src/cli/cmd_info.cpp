// rigrip info: what a file holds (format, skeletons, animations, meshes, textures, warnings).
#include <algorithm>
#include <set>

#include <fmt/core.h>

#include "cli/archive_input.hpp"
#include "cli/commands.hpp"
#include "cli/common.hpp"
#include "scene/ssc.hpp"

namespace rigrip::cli {
namespace {

struct info_options {
  std::vector<std::string> files;
  common_options common;
  bool as_json = false;
};

}  // namespace

json scene_summary(const scene& s) {
  json j;
  j["format"] = s.format;
  j["skeletons"] = json::array();
  for (const auto& sk : s.skeletons)
    j["skeletons"].push_back(json{{"name", sk.name}, {"bones", sk.bones.size()}});
  j["animations"] = json::array();
  for (const auto& a : s.animations) {
    std::size_t keys = 0;
    for (const auto& t : a.tracks) keys += t.times.size();
    json ja{{"name", a.name},
            {"skeleton", a.skeleton},
            {"duration", a.duration},
            {"fps", a.fps ? json(*a.fps) : json(nullptr)},
            {"tracks", a.tracks.size()},
            {"keys", keys}};
    if (a.extras.is_object() && !a.extras.empty()) ja["extras"] = a.extras;
    j["animations"].push_back(ja);
  }
  std::size_t verts = 0;
  for (const auto& m : s.meshes) verts += m.positions.size();
  j["meshes"] = json{{"count", s.meshes.size()}, {"vertices", verts}};
  j["textures"] = json::array();
  for (const auto& t : s.textures)
    j["textures"].push_back(json{{"name", t.name}, {"width", t.width}, {"height", t.height}});
  j["materials"] = s.materials.size();
  // Optional keys: cameras and camera clips (what the Blender check compares against).
  if (!s.cameras.empty()) {
    j["cameras"] = json::array();
    for (const auto& c : s.cameras)
      j["cameras"].push_back(json{{"name", c.name},
                                  {"projection", c.type == camera::projection::perspective ? "perspective" : "orthographic"}});
  }
  if (!s.camera_animations.empty()) {
    j["camera_animations"] = json::array();
    for (const auto& a : s.camera_animations) {
      std::size_t keys = 0;
      for (const auto& t : a.tracks) keys += t.times.size();
      std::set<std::string> moved, moving;  // cameras with tracks; those whose position changes
      for (const auto& t : a.tracks) {
        moved.insert(t.bone);
        if (t.path == path::translation && t.values.size() > 3 &&
            !std::equal(t.values.begin() + 3, t.values.end(), t.values.begin(),
                        [&, i = std::size_t{0}](float v, float) mutable { return v == t.values[i++ % 3]; }))
          moving.insert(t.bone);
      }
      j["camera_animations"].push_back(json{{"name", a.name},
                                            {"duration", a.duration},
                                            {"fps", a.fps ? json(*a.fps) : json(nullptr)},
                                            {"tracks", a.tracks.size()},
                                            {"keys", keys},
                                            {"cameras", moved},
                                            {"moving_cameras", moving}});
    }
  }
  if (!s.metadata.empty()) j["metadata"] = s.metadata;
  return j;
}

// How far the default glTF output (segment scale compensation baked into plain locals) is
// from the game's worlds, per clip: 0 unless a compensating bone has a non-uniformly scaled parent.
void add_ssc_bake_errors(const scene& s, json& j) {
  bool any = false;
  for (const auto& sk : s.skeletons)
    for (const auto& b : sk.bones) any = any || b.segment_scale_compensate;
  if (!any) return;
  scene baked = s;
  diagnostics ignored;
  // The same numbers as bake then measure_bake_error per clip, sharing the original samples.
  const auto measured = scene_ops::bake_and_measure(baked, ignored);
  for (std::size_t ai = 0; ai < s.animations.size() && ai < j["animations"].size(); ++ai) {
    const auto& e = measured.animations[ai];
    j["animations"][ai]["ssc_bake_error"] = json{{"position", e.position}, {"degrees", e.degrees}};
  }
}

// The glTF reader keeps only what write-back needs (skeletons, animations); `info` counts
// what the file holds from its JSON: meshes, their vertices, textures, materials.
void count_gltf_content(const std::string& path, json& j) {
  auto data = load_file(path);
  if (!data) return;
  const auto& b = data.value();
  std::string text;
  if (b.size() >= 20 && b[0] == 'g' && b[1] == 'l' && b[2] == 'T' && b[3] == 'F') {
    const std::size_t len = b[12] | b[13] << 8 | b[14] << 16 | static_cast<std::size_t>(b[15]) << 24;
    if (len > b.size() - 20) return;
    text.assign(b.begin() + 20, b.begin() + 20 + static_cast<std::ptrdiff_t>(len));
  } else {
    text.assign(b.begin(), b.end());
  }
  const json g = json::parse(text, nullptr, false);
  if (g.is_discarded() || !g.is_object()) return;
  auto count = [&](const char* key) { return g.contains(key) && g[key].is_array() ? g[key].size() : 0; };
  std::size_t verts = 0;
  if (g.contains("meshes") && g["meshes"].is_array() && g.contains("accessors") && g["accessors"].is_array())
    for (const auto& m : g["meshes"])
      for (const auto& p : m.value("primitives", json::array())) {
        if (!p.is_object() || !p.contains("attributes") || !p["attributes"].contains("POSITION")) continue;
        const auto& a = p["attributes"]["POSITION"];
        if (a.is_number_unsigned() && a.get<std::size_t>() < g["accessors"].size())
          verts += g["accessors"][a.get<std::size_t>()].value("count", std::size_t{0});
      }
  j["meshes"] = json{{"count", count("meshes")}, {"vertices", verts}};
  j["textures"] = json::array();
  for (std::size_t i = 0; i < count("textures"); ++i) j["textures"].push_back(json{{"name", "texture " + std::to_string(i)}});
  j["materials"] = count("materials");
}

namespace {

void print_summary(const std::string& file, const json& j, const diagnostics& d) {
  std::cout << file << "\n  format: " << j["format"].get<std::string>() << "\n";
  for (const auto& sk : j["skeletons"])
    std::cout << "  skeleton '" << sk["name"].get<std::string>() << "': " << sk["bones"]
              << " bones\n";
  for (const auto& a : j["animations"]) {
    std::cout << fmt::format("  animation '{}': {:.3f} s, fps {}, {} tracks, {} keys\n",
                             a["name"].get<std::string>(), a["duration"].get<double>(),
                             a["fps"].is_null() ? std::string("-") : a["fps"].dump(),
                             a["tracks"].get<std::size_t>(), a["keys"].get<std::size_t>());
    if (a.contains("ssc_bake_error")) {
      const auto& e = a["ssc_bake_error"];
      std::cout << fmt::format("    segment scale compensation baked (default glTF): worst world error "
                               "{:.3g} units, {:.3g} degrees\n",
                               e["position"].get<double>(), e["degrees"].get<double>());
    }
  }
  std::cout << "  meshes: " << j["meshes"]["count"] << " (" << j["meshes"]["vertices"]
            << " vertices), textures: " << j["textures"].size() << ", materials: " << j["materials"]
            << "\n";
  for (const auto& c : j.value("cameras", json::array()))
    std::cout << "  camera '" << c["name"].get<std::string>() << "': " << c["projection"].get<std::string>() << "\n";
  for (const auto& a : j.value("camera_animations", json::array()))
    std::cout << fmt::format("  camera animation '{}': {:.3f} s, fps {}, {} tracks, {} keys\n", a["name"].get<std::string>(),
                             a["duration"].get<double>(), a["fps"].is_null() ? std::string("-") : a["fps"].dump(),
                             a["tracks"].get<std::size_t>(), a["keys"].get<std::size_t>());
  if (j.contains("metadata")) std::cout << "  metadata: " << text_of(j["metadata"]) << "\n";
  print_warnings(d, std::cout);
}

int run_info(const info_options& o) {
  const auto forced = forced_format(o.common);
  if (!forced) return 2;
  int code_out = 0;
  json all = json::array();
  for (const auto& f : o.files) {
    diagnostics d;
    d.file = f;
    auto s = read_input_scene(f, o.common.read(), d, *forced);
    if (!s) {
      code_out = fail(s.error());
      if (o.as_json) all.push_back(json{{"file", f}, {"error", error_json(s.error())}});
      continue;
    }
    json j = scene_summary(s.value());
    if (s->format == "gltf") count_gltf_content(f, j);
    add_ssc_bake_errors(s.value(), j);
    j["file"] = f;
    j["warnings"] = warnings_json(d);
    if (o.as_json)
      all.push_back(j);
    else
      print_summary(f, j, d);
  }
  if (o.as_json) std::cout << text_of(all, 2) << "\n";
  return code_out;
}

}  // namespace

command add_info_command(CLI::App& app) {
  auto o = std::make_shared<info_options>();
  auto* c = app.add_subcommand("info",
                               "Show format, skeletons, animations, meshes, textures and warnings");
  c->add_option("files", o->files, "Input files, or ARCHIVE/inner/path")->required()->check(existing_path_or_entry());
  c->add_flag("--json", o->as_json, "Machine-readable output");
  add_common(c, o->common);
  c->footer("Examples:\n  rigrip info Animal_Dog_Animation.bfres\n  rigrip info --json *.anm");
  return {c, [o] { return run_info(*o); }};
}

}  // namespace rigrip::cli
