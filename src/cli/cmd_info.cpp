// rigrip info: what a file holds (format, skeletons, animations, meshes, textures, warnings).
#include <fmt/core.h>

#include "cli/commands.hpp"
#include "cli/common.hpp"

namespace rigrip::cli {
namespace {

struct info_options {
  std::vector<std::string> files;
  common_options common;
  bool as_json = false;
};

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
  if (!s.metadata.empty()) j["metadata"] = s.metadata;
  return j;
}

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
  }
  std::cout << "  meshes: " << j["meshes"]["count"] << " (" << j["meshes"]["vertices"]
            << " vertices), textures: " << j["textures"].size() << ", materials: " << j["materials"]
            << "\n";
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
    auto s = read_scene(f, o.common.read(), d, *forced);
    if (!s) {
      code_out = fail(s.error());
      if (o.as_json) all.push_back(json{{"file", f}, {"error", error_json(s.error())}});
      continue;
    }
    json j = scene_summary(s.value());
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
  c->add_option("files", o->files, "Input files")->required()->check(CLI::ExistingFile);
  c->add_flag("--json", o->as_json, "Machine-readable output");
  add_common(c, o->common);
  c->footer("Examples:\n  rigrip info Animal_Dog_Animation.bfres\n  rigrip info --json *.anm");
  return {c, [o] { return run_info(*o); }};
}

}  // namespace rigrip::cli
