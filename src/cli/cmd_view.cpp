// rigrip view: a local three.js page showing the inputs (converted in memory) with their
// `rigrip info` summary. Served on 127.0.0.1 (cpp-httplib) until Ctrl-C, or written as static
// files with --out. The page's files (viewer/ and the pinned three.js from npm) come from the
// install: <exe dir>/viewer, <exe dir>/../share/rigrip/viewer, or RIGRIP_VIEWER_DIR.
#include <httplib.h>
#include <unistd.h>

#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <thread>

#include "cli/commands.hpp"
#include "cli/common.hpp"
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

int serve(const fs::path& assets, const std::vector<model>& models, int port) {
  httplib::Server svr;
  // httplib's default sets SO_REUSEPORT, which lets a second viewer share a port in use.
  svr.set_socket_options([](socket_t sock) {
    int yes = 1;
    setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, reinterpret_cast<const void*>(&yes), sizeof yes);
  });
  const std::string list = text_of(models_json(models));
  svr.Get("/models.json", [&](const httplib::Request&, httplib::Response& res) {
    res.set_content(list, "application/json");
  });
  svr.Get(R"(/models/(\d+)\.glb)", [&](const httplib::Request& req, httplib::Response& res) {
    const auto i = std::strtoul(req.matches[1].str().c_str(), nullptr, 10);
    if (i >= models.size()) {
      res.status = 404;
      return;
    }
    const auto& g = models[i].glb;
    res.set_content(reinterpret_cast<const char*>(g.data()), g.size(), "model/gltf-binary");
  });
  svr.set_file_extension_and_mimetype_mapping("js", "text/javascript");
  if (!svr.set_mount_point("/", assets.string())) {
    std::cerr << "error: E_IO: cannot serve " << assets << "\n";
    return 1;
  }
  int bound = port;
  if (port == 0) {
    bound = svr.bind_to_any_port("127.0.0.1");
  } else if (!svr.bind_to_port("127.0.0.1", port)) {
    bound = -1;
  }
  if (bound <= 0) {
    std::cerr << "error: E_IO: cannot listen on 127.0.0.1:" << port
              << (port ? " (in use? --port 0 picks a free port)" : "") << "\n";
    return 1;
  }
  // Ctrl-C / SIGTERM stop the server from a thread that waits for them (no work in a handler).
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  std::thread waiter([&] {
    int sig = 0;
    sigwait(&set, &sig);
    svr.stop();
  });
  waiter.detach();
  std::cout << "serving " << models.size() << " file(s) at http://127.0.0.1:" << bound << "/ (Ctrl-C stops)"
            << std::endl;
  svr.listen_after_bind();
  std::cout << "viewer stopped\n";
  return 0;
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
