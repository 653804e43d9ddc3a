// libFuzzer target for every registered reader. ONE executable, one fuzz target per
// format id: the id comes from the environment (RIGRIP_FUZZ_FORMAT=<id>), so a reader is
// fuzzed the moment its family registers it, with no per-family code here.
// scripts/fuzz.sh runs it once per id listed by RIGRIP_FUZZ_LIST=1, each with its own
// corpus. RIGRIP_FUZZ_FORMAT=detect fuzzes detection itself (every detector, then the
// reader detection picks).
//
// Each input goes through what the CLI does with a file of that format: detect_format,
// read_scene (+ glTF write + scene JSON serialisation), dump_raw (+ JSON serialisation),
// rewrite, dump_graph (animation networks). Errors are fine; a crash, a sanitizer report, an exception escaping the API,
// an E_INTERNAL error, a timeout (-timeout) or a huge allocation (-malloc_limit_mb) is a
// finding.
//
// Helper modes (run from LLVMFuzzerInitialize, then exit):
//   RIGRIP_FUZZ_LIST=1                      print the fuzzable format ids, one a line
//   RIGRIP_FUZZ_SEED_LIST=<file of paths> RIGRIP_FUZZ_SEED_OUT=<dir>
//       sort seed files into <dir>/<format id>/ by detected format, and add what our own
//       writers make from each (glTF and scene JSON of the scene, the raw rewrite, the
//       format's writer output) to the corpora of the formats that read them back.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>

#include "rigrip/gltf.hpp"
#include "rigrip/registry.hpp"

namespace {

const rigrip::format* g_format = nullptr;  // nullptr with g_detect: detection decides
bool g_detect = false;

[[noreturn]] void finding(const char* what, const std::string& detail) {
  std::fprintf(stderr, "rigrip_fuzz: %s: %s\n", what, detail.c_str());
  std::abort();
}

void check_error(const char* op, const rigrip::error& e) {
  if (e.code == rigrip::code::internal || e.message.empty())
    finding(op, "unclean error: " + e.to_string());
}

std::uint64_t hash_bytes(const std::vector<std::uint8_t>& b) {
  std::uint64_t h = 0xcbf29ce484222325ull;
  for (auto c : b) h = (h ^ c) * 0x100000001b3ull;
  return h;
}

void put_seed(const std::filesystem::path& dir, std::string_view id, const std::vector<std::uint8_t>& b) {
  if (b.empty() || b.size() > (8u << 20)) return;
  auto d = dir / std::string(id);
  std::filesystem::create_directories(d);
  char name[32];
  std::snprintf(name, sizeof name, "%016llx", static_cast<unsigned long long>(hash_bytes(b)));
  std::ofstream(d / name, std::ios::binary).write(reinterpret_cast<const char*>(b.data()),
                                                  static_cast<std::streamsize>(b.size()));
}

int sort_seeds(const char* list, const char* out) {
  std::ifstream in(list);
  std::filesystem::path dir(out);
  int n = 0;
  for (std::string path; std::getline(in, path);) {
    if (path.empty()) continue;
    auto data = rigrip::load_file(path, 8u << 20);
    if (!data) continue;
    auto f = rigrip::detect_format(data.value(), path);
    if (!f) continue;
    const rigrip::format* fmt = f.value();
    put_seed(dir, fmt->id, data.value());
    put_seed(dir, "detect", data.value());
    ++n;
    rigrip::diagnostics d;
    rigrip::read_options o;
    auto s = rigrip::read_scene(data.value(), path, o, d, fmt);
    if (s) {
      rigrip::gltf::write_options wo;
      if (auto g = rigrip::gltf::write(s.value(), wo, d)) put_seed(dir, "gltf", g->main);
      try {
        std::string t = rigrip::scene_json::to_json(s.value()).dump(1);
        put_seed(dir, "scene-json", std::vector<std::uint8_t>(t.begin(), t.end()));
      } catch (const std::exception&) {
      }
      if (fmt->pack) {
        rigrip::pack_context pc;
        pc.output_path = "seed.out";
        pc.diags = &d;
        if (auto p = rigrip::pack(s.value(), *fmt, pc)) put_seed(dir, fmt->id, p.value());
      }
    }
    if (fmt->rewrite)
      if (auto r = rigrip::rewrite(data.value(), path, o, d, fmt)) put_seed(dir, fmt->id, r.value());
  }
  std::fprintf(stderr, "rigrip_fuzz: sorted %d seed files into %s\n", n, out);
  return 0;
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  if (const char* l = std::getenv("RIGRIP_FUZZ_LIST"); l && *l == '1') {
    std::printf("detect\n");
    for (const auto* f : rigrip::formats())
      if (f->read) std::printf("%.*s\n", static_cast<int>(f->id.size()), f->id.data());
    std::fflush(stdout);
    std::exit(0);
  }
  const char* list = std::getenv("RIGRIP_FUZZ_SEED_LIST");
  const char* out = std::getenv("RIGRIP_FUZZ_SEED_OUT");
  if (list && out) std::exit(sort_seeds(list, out));

  const char* id = std::getenv("RIGRIP_FUZZ_FORMAT");
  if (!id || !*id) {
    std::fprintf(stderr, "rigrip_fuzz: set RIGRIP_FUZZ_FORMAT to a format id (RIGRIP_FUZZ_LIST=1 lists them)\n");
    std::exit(2);
  }
  if (std::strcmp(id, "detect") == 0) {
    g_detect = true;
  } else {
    g_format = rigrip::find_format(id);
    if (!g_format) {
      std::fprintf(stderr, "rigrip_fuzz: unknown format id '%s'\n", id);
      std::exit(2);
    }
  }
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  rigrip::byte_view in(data, size);
  // A logical name with the format's first extension, so name-based detection and sibling
  // lookups behave as for a real file; no sibling exists, which must fail cleanly.
  std::string name = "fuzz-input";
  if (g_format && !g_format->extensions.empty()) name += std::string(g_format->extensions.front());
  rigrip::read_options opts;
  try {
    auto det = rigrip::detect_format(in, name);
    const rigrip::format* f = g_detect ? (det ? det.value() : nullptr) : g_format;
    if (!f) return 0;
    {
      rigrip::diagnostics d;
      auto s = rigrip::read_scene(in, name, opts, d, f);
      if (!s) {
        check_error("read", s.error());
      } else {
        rigrip::gltf::write_options wo;
        auto g = rigrip::gltf::write(s.value(), wo, d);
        if (!g) check_error("gltf write", g.error());
        (void)rigrip::scene_json::to_json(s.value()).dump();
      }
    }
    if (f->dump_raw) {
      rigrip::diagnostics d;
      auto r = rigrip::dump_raw(in, name, opts, d, f);
      if (!r)
        check_error("dump_raw", r.error());
      else
        (void)r->dump();
    }
    if (f->rewrite) {
      rigrip::diagnostics d;
      auto r = rigrip::rewrite(in, name, opts, d, f);
      if (!r) check_error("rewrite", r.error());
    }
    if (f->dump_graph) {
      rigrip::diagnostics d;
      auto r = rigrip::dump_graph(in, name, opts, d, f);
      if (!r)
        check_error("dump_graph", r.error());
      else
        (void)r->dump();
    }
  } catch (const std::exception& e) {
    finding("exception escaped the API", e.what());
  }
  return 0;
}
