// rigrip view: a local three.js page showing the inputs (converted in memory) with their
// `rigrip info` summary. Served on 127.0.0.1 (cpp-httplib, in a module loaded on demand) until
// Ctrl-C, or written as static files with --out. The page's files (viewer/ and the pinned three.js from npm) come from the
// install: <exe dir>/viewer, <exe dir>/../share/rigrip/viewer, or RIGRIP_VIEWER_DIR.
#include <dlfcn.h>

#include <cstdlib>
#include <filesystem>
#include <memory>
#include <vector>

#include "cli/commands.hpp"
#include "cli/common.hpp"
#include "cli/view_server/view_server.hpp"
#include "rigrip/gltf.hpp"

namespace fs = std::filesystem;

namespace rigrip::cli {
namespace {

struct view_options {
  std::vector<std::string> files;
  std::string out;
  int port = 0;  // 0: a free port
  common_options common;
};

struct model {
  std::string name;  // the input's file name
  bytes glb;
  json info;
};

std::optional<fs::path> viewer_dir() {
  std::vector<fs::path> tries;
  if (const char* env = std::getenv("RIGRIP_VIEWER_DIR")) tries.emplace_back(env);
  std::error_code ec;
  const auto exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    tries.push_back(exe.parent_path() / "viewer");
    tries.push_back(exe.parent_path() / ".." / "share" / "rigrip" / "viewer");
  }
  for (const auto& t : tries)
    if (fs::exists(t / "index.html", ec) && fs::exists(t / "three" / "build" / "three.module.js", ec)) return t;
  return std::nullopt;
}

// The input as a glb in memory, with its `info` summary: a .glb/.gltf is shown as it is.
result<model> load_model(const std::string& path, const view_options& o, const format* forced) {
  diagnostics d;
  d.file = path;
  auto s = read_scene(path, o.common.read(), d, forced);
  if (!s) return s.error();
  model m;
  m.name = fs::path(path).filename().string();
  m.info = scene_summary(s.value());
  m.info["file"] = path;
  if (s->format == "gltf" && lower(fs::path(path).extension().string()) == ".glb") {
    auto b = load_file(path);
    if (!b) return b.error();
    m.glb = std::move(b.value());
    count_gltf_content(path, m.info);
  } else {
    auto enc = gltf::write(s.value(), gltf::write_options{}, d);
    if (!enc) return enc.error();
    m.glb = std::move(enc->main);
  }
  m.info["warnings"] = warnings_json(d);
  print_warnings(d);
  return m;
}

json models_json(const std::vector<model>& models) {
  json list = json::array();
  for (std::size_t i = 0; i < models.size(); ++i)
    list.push_back(json{{"name", models[i].name}, {"url", "models/" + std::to_string(i) + ".glb"}, {"info", models[i].info}});
  return list;
}

int write_static(const fs::path& assets, const std::vector<model>& models, const std::string& out) {
  std::error_code ec;
  fs::create_directories(fs::path(out) / "models", ec);
  fs::copy(assets, out, fs::copy_options::recursive | fs::copy_options::overwrite_existing, ec);
  if (ec) {
    std::cerr << "error: E_IO: cannot write the viewer into " << out << ": " << ec.message() << "\n";
    return 1;
  }
  for (std::size_t i = 0; i < models.size(); ++i) {
    auto r = save_file((fs::path(out) / "models" / (std::to_string(i) + ".glb")).string(), models[i].glb);
    if (!r) return fail(r.error());
  }
  auto r = save_text((fs::path(out) / "models.json").string(), text_of(models_json(models), 1) + "\n");
  if (!r) return fail(r.error());
  std::cout << "viewer: wrote " << out << " (" << models.size()
            << " file(s)); any web server can host it, e.g. `python3 -m http.server -d " << out << "`\n";
  return 0;
}

// The server lives in a module loaded only here (cli/view_server/view_server.hpp says why):
// beside the executable in a build, or in <prefix>/lib/rigrip once installed.
rigrip_view_serve_fn load_server() {
  std::vector<fs::path> tries;
  std::error_code ec;
  const auto exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    tries.push_back(exe.parent_path() / "librigrip_view_server.so");
    tries.push_back(exe.parent_path() / ".." / "lib" / "rigrip" / "librigrip_view_server.so");
  }
  std::string why = "not found beside the rigrip executable or in ../lib/rigrip";
  for (const auto& t : tries) {
    if (!fs::exists(t, ec)) continue;
    // Never closed: the server runs until the process ends.
    void* h = dlopen(t.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (h == nullptr) {
      const char* e = dlerror();
      why = e ? e : "dlopen failed";
      continue;
    }
    if (auto* f = reinterpret_cast<rigrip_view_serve_fn>(dlsym(h, "rigrip_view_serve"))) return f;
    why = t.string() + " has no rigrip_view_serve";
  }
  std::cerr << "error: E_IO: cannot load the viewer's server module librigrip_view_server.so (" << why
            << "); `rigrip view --out DIR` writes the page without it\n";
  return nullptr;
}

int serve(const fs::path& assets, const std::vector<model>& models, int port) {
  const auto server = load_server();
  if (server == nullptr) return 1;
  const std::string list = text_of(models_json(models));
  const std::string dir = assets.string();
  std::vector<rigrip_view_glb> glbs;
  glbs.reserve(models.size());
  for (const auto& m : models) glbs.push_back({m.glb.data(), m.glb.size()});
  const rigrip_view_request rq{rigrip_view_server_abi, dir.c_str(), list.c_str(), glbs.data(), glbs.size(), port};
  return server(&rq);
}

int run_view(const view_options& o) {
  const auto forced = forced_format(o.common);
  if (!forced) return 2;
  const auto assets = viewer_dir();
  if (!assets) {
    std::cerr << "error: E_IO: the viewer's page files were not found (viewer/ beside the rigrip "
                 "executable or in ../share/rigrip/viewer; run `npm ci` and rebuild, or set "
                 "RIGRIP_VIEWER_DIR)\n";
    return 1;
  }
  std::vector<model> models;
  for (const auto& f : o.files) {
    auto m = load_model(f, o, *forced);
    if (!m) return fail(m.error());
    models.push_back(std::move(m.value()));
  }
  if (!o.out.empty()) return write_static(*assets, models, o.out);
  return serve(*assets, models, o.port);
}

}  // namespace

command add_view_command(CLI::App& app) {
  auto o = std::make_shared<view_options>();
  auto* c = app.add_subcommand("view", "Show files in a local three.js page (127.0.0.1) or write it with --out");
  c->add_option("files", o->files, "Input files (any rigrip reads, or .glb)")->required()->check(CLI::ExistingFile);
  c->add_option("--out", o->out, "Write the page and its files into this folder instead of serving it");
  c->add_option("--port", o->port, "Port on 127.0.0.1 (0: a free one, the default)")->check(CLI::Range(0, 65535));
  add_common(c, o->common);
  c->footer("Examples:\n  rigrip view Animal_Bass.bfres\n  rigrip view walk.glb --port 8080\n"
            "  rigrip view X8PC00A.BIN --out site/");
  return {c, [o] { return run_view(*o); }};
}

}  // namespace rigrip::cli
