// rigrip command-line tool: formats, info, list, dump, convert, rewrite, pack, diagnostics.
// Exit codes: 0 success, 1 some inputs failed, 2 usage error.
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <map>
#include <mutex>
#include <thread>

#include <CLI/CLI.hpp>
#include <fmt/core.h>
#include <stb_image_write.h>

#include "cli/cmd_report.hpp"
#include "rigrip/scene_text.hpp"
#include "rigrip/gltf.hpp"
#include "rigrip/registry.hpp"

namespace fs = std::filesystem;
using nlohmann::json;
using namespace rigrip;

namespace {

struct common_options {
  std::string skeleton;
  double fps = 0;
  std::string input_format;
  bool upper_case_bones = false;

  read_options read() const {
    read_options o;
    if (!skeleton.empty()) o.skeleton_path = skeleton;
    if (fps > 0) o.fps = fps;
    o.upper_case_bones = upper_case_bones;
    return o;
  }
};

void add_common(CLI::App* c, common_options& o) {
  c->add_option("--skeleton", o.skeleton, "Skeleton/rig file for animation-only inputs")->check(CLI::ExistingFile);
  c->add_option("--fps", o.fps, "Frame rate for formats that count frames (e.g. BFRES, default 30)")->check(CLI::PositiveNumber);
  c->add_option("--input-format", o.input_format, "Force the input format id (see `rigrip formats`)");
  c->add_flag("--upper-case-bones", o.upper_case_bones, "Upper-case bone names (morpheme / Forgelight)");
}

void print_warnings(const diagnostics& d, std::ostream& os = std::cerr) {
  for (const auto& w : d.warnings) os << "warning: " << w.to_string() << "\n";
}

const format* forced_format(const common_options& o, int& exit_code) {
  if (o.input_format.empty()) return nullptr;
  const format* f = find_format(o.input_format);
  if (!f) {
    std::cerr << "error: unknown format id '" << o.input_format << "' (see `rigrip formats`)\n";
    exit_code = 2;
  }
  return f;
}

json error_json(const error& e) {
  json j{{"code", std::string(info(e.code).id)}, {"message", e.message}, {"file", e.file}};
  if (e.offset != no_offset) j["offset"] = e.offset;
  if (!e.format.empty()) j["format"] = e.format;
  return j;
}
json warnings_json(const diagnostics& d) {
  json a = json::array();
  for (const auto& w : d.warnings) {
    json j{{"code", std::string(info(w.code).id)}, {"message", w.message}};
    if (w.offset != no_offset) j["offset"] = w.offset;
    a.push_back(j);
  }
  return a;
}

// Paths and messages can carry bytes that are not UTF-8; printing must never throw on them.
std::string text_of(const json& j, int indent = -1) {
  return j.dump(indent, ' ', false, json::error_handler_t::replace);
}

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

// ---------------------------------------------------------------- formats
int cmd_formats(bool as_json) {
  json out = json::array();
  for (const auto* f : formats()) {
    json exts = json::array();
    for (auto e : f->extensions) exts.push_back(std::string(e));
    out.push_back(json{{"id", std::string(f->id)}, {"family", std::string(f->family)},
                       {"description", std::string(f->description)}, {"extensions", exts},
                       {"read", f->read != nullptr}, {"dump_raw", f->dump_raw != nullptr},
                       {"rewrite", f->rewrite != nullptr}, {"write", f->pack != nullptr},
                       {"detection", std::string(f->detection)}});
  }
  if (as_json) {
    std::cout << text_of(out, 2) << "\n";
    return 0;
  }
  std::cout << fmt::format("{:<16} {:<10} {:<5} {:<4} {:<7} {:<5} {}\n", "ID", "FAMILY", "READ", "RAW", "REWRITE", "WRITE", "DESCRIPTION");
  for (const auto& f : out) {
    std::string exts;
    for (const auto& e : f["extensions"]) exts += (exts.empty() ? "" : " ") + e.get<std::string>();
    std::cout << fmt::format("{:<16} {:<10} {:<5} {:<4} {:<7} {:<5} {} [{}]\n", f["id"].get<std::string>(),
                             f["family"].get<std::string>(), f["read"].get<bool>() ? "yes" : "-",
                             f["dump_raw"].get<bool>() ? "yes" : "-", f["rewrite"].get<bool>() ? "yes" : "-",
                             f["write"].get<bool>() ? "yes" : "-", f["description"].get<std::string>(), exts);
    std::cout << fmt::format("{:<16}   detected by {}\n", "", f["detection"].get<std::string>());
  }
  return 0;
}

// ---------------------------------------------------------------- info / list
json scene_summary(const scene& s) {
  json j;
  j["format"] = s.format;
  j["skeletons"] = json::array();
  for (const auto& sk : s.skeletons) j["skeletons"].push_back(json{{"name", sk.name}, {"bones", sk.bones.size()}});
  j["animations"] = json::array();
  for (const auto& a : s.animations) {
    std::size_t keys = 0;
    for (const auto& t : a.tracks) keys += t.times.size();
    json ja{{"name", a.name}, {"skeleton", a.skeleton}, {"duration", a.duration},
            {"fps", a.fps ? json(*a.fps) : json(nullptr)}, {"tracks", a.tracks.size()}, {"keys", keys}};
    if (a.extras.is_object() && !a.extras.empty()) ja["extras"] = a.extras;
    j["animations"].push_back(ja);
  }
  std::size_t verts = 0;
  for (const auto& m : s.meshes) verts += m.positions.size();
  j["meshes"] = json{{"count", s.meshes.size()}, {"vertices", verts}};
  j["textures"] = json::array();
  for (const auto& t : s.textures) j["textures"].push_back(json{{"name", t.name}, {"width", t.width}, {"height", t.height}});
  j["materials"] = s.materials.size();
  if (!s.metadata.empty()) j["metadata"] = s.metadata;
  return j;
}

int cmd_info(const std::vector<std::string>& files, const common_options& co, bool as_json) {
  int code_out = 0;
  const format* forced = forced_format(co, code_out);
  if (code_out) return code_out;
  json all = json::array();
  for (const auto& f : files) {
    diagnostics d;
    d.file = f;
    auto s = read_scene(f, co.read(), d, forced);
    if (!s) {
      std::cerr << "error: " << s.error().to_string() << "\n";
      if (as_json) all.push_back(json{{"file", f}, {"error", error_json(s.error())}});
      code_out = 1;
      continue;
    }
    json j = scene_summary(s.value());
    j["file"] = f;
    j["warnings"] = warnings_json(d);
    if (as_json) {
      all.push_back(j);
      continue;
    }
    std::cout << f << "\n  format: " << s->format << "\n";
    for (const auto& sk : j["skeletons"])
      std::cout << "  skeleton '" << sk["name"].get<std::string>() << "': " << sk["bones"] << " bones\n";
    for (const auto& a : j["animations"]) {
      std::cout << fmt::format("  animation '{}': {:.3f} s, fps {}, {} tracks, {} keys\n", a["name"].get<std::string>(),
                               a["duration"].get<double>(), a["fps"].is_null() ? std::string("-") : a["fps"].dump(),
                               a["tracks"].get<std::size_t>(), a["keys"].get<std::size_t>());
    }
    std::cout << "  meshes: " << j["meshes"]["count"] << " (" << j["meshes"]["vertices"] << " vertices), textures: "
              << j["textures"].size() << ", materials: " << j["materials"] << "\n";
    if (j.contains("metadata")) std::cout << "  metadata: " << text_of(j["metadata"]) << "\n";
    print_warnings(d, std::cout);
  }
  if (as_json) std::cout << text_of(all, 2) << "\n";
  return code_out;
}

int cmd_list(const std::string& file, const common_options& co) {
  int rc = 0;
  const format* forced = forced_format(co, rc);
  if (rc) return rc;
  diagnostics d;
  auto s = read_scene(file, co.read(), d, forced);
  if (!s) {
    std::cerr << "error: " << s.error().to_string() << "\n";
    return 1;
  }
  for (const auto& a : s->animations) std::cout << a.name << "\n";
  print_warnings(d);
  return 0;
}

// ---------------------------------------------------------------- dump
int cmd_dump(const std::string& file, const common_options& co, bool raw, bool compact, const std::string& out) {
  int rc = 0;
  const format* forced = forced_format(co, rc);
  if (rc) return rc;
  auto data = load_input(file, 1ull << 31, forced);
  if (!data) {
    std::cerr << "error: " << data.error().to_string() << "\n";
    return 1;
  }
  diagnostics d;
  d.file = file;
  std::string text;
  if (raw) {
    auto r = dump_raw(data.value(), file, co.read(), d, forced);
    if (!r) {
      std::cerr << "error: " << r.error().to_string() << "\n";
      return 1;
    }
    text = compact ? text_of(r.value()) : text_of(r.value(), 1);
  } else {
    auto s = read_scene(data.value(), file, co.read(), d, forced);
    if (!s) {
      std::cerr << "error: " << s.error().to_string() << "\n";
      return 1;
    }
    text = scene_json::to_text(s.value(), compact ? -1 : 1);  // streamed, no DOM
  }
  text += "\n";
  if (out.empty()) {
    std::cout << text;
  } else {
    auto w = save_file(out, bytes(text.begin(), text.end()));
    if (!w) {
      std::cerr << "error: " << w.error().to_string() << "\n";
      return 1;
    }
  }
  print_warnings(d);
  return 0;
}

// ---------------------------------------------------------------- convert
struct job {
  std::string input;
  std::string output;
  bool from_directory = false;  // unknown files found by directory walk are skipped, not failed
};

struct convert_options {
  std::string out_format = "glb";  // glb | gltf | json
  gltf::write_options gltf;
  bool skip_existing = false;
  bool textures = false;
  std::string report;
  std::string shard;  // "I/N": only the I-th (0-based) of N shares of the sorted inputs
  unsigned threads = std::max(1u, std::thread::hardware_concurrency());
};

std::string output_extension(const std::string& f) { return f == "json" ? ".json" : "." + f; }

void write_textures(const scene& s, const std::string& output, std::vector<std::string>& written) {
  fs::path o(output);
  fs::path dir = o.parent_path();
  std::string stem = o.stem().string();
  for (std::size_t i = 0; i < s.textures.size(); ++i) {
    const auto& t = s.textures[i];
    std::string name = t.name.empty() ? std::to_string(i) : t.name;
    for (auto& c : name)
      if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '-') c = '_';
    fs::path p = dir / (stem + "_tex" + std::to_string(i) + "_" + name + ".png");
    std::vector<std::uint8_t> png;
    stbi_write_png_to_func([](void* ctx, void* data, int size) {
      auto* v = static_cast<std::vector<std::uint8_t>*>(ctx);
      v->insert(v->end(), static_cast<std::uint8_t*>(data), static_cast<std::uint8_t*>(data) + size);
    }, &png, static_cast<int>(t.width), static_cast<int>(t.height), 4, t.rgba.data(), static_cast<int>(t.width * 4));
    if (save_file(p.string(), png)) written.push_back(p.string());
  }
}

json run_job_unguarded(const job& jb, const common_options& co, const convert_options& cv, const format* forced);

// A worker thread must never see an exception escape (std::terminate would take every other
// input down with it): whatever a job throws becomes that input's failure.
json run_job(const job& jb, const common_options& co, const convert_options& cv, const format* forced) {
  try {
    return run_job_unguarded(jb, co, cv, forced);
  } catch (const std::bad_alloc&) {
    return json{{"input", jb.input}, {"output", jb.output}, {"status", "failed"},
                {"error", {{"code", "E_LIMIT"}, {"message", "out of memory"}, {"file", jb.input}}}};
  } catch (const std::exception& e) {
    return json{{"input", jb.input}, {"output", jb.output}, {"status", "failed"},
                {"error", {{"code", "E_INTERNAL"}, {"message", std::string("unexpected exception: ") + e.what()},
                           {"file", jb.input}}}};
  } catch (...) {
    return json{{"input", jb.input}, {"output", jb.output}, {"status", "failed"},
                {"error", {{"code", "E_INTERNAL"}, {"message", "unexpected exception"}, {"file", jb.input}}}};
  }
}

json run_job_unguarded(const job& jb, const common_options& co, const convert_options& cv, const format* forced) {
  auto t0 = std::chrono::steady_clock::now();
  json rep{{"input", jb.input}, {"output", jb.output}};
  diagnostics d;
  d.file = jb.input;
  if (cv.skip_existing && fs::exists(jb.output)) {
    rep["status"] = "skipped";
    rep["reason"] = "output exists";
    return rep;
  }
  // Judged by its first bytes before it is read whole: a big file no format claims costs
  // one small read (and, found in a folder, is skipped like any other unrecognised file).
  auto data = load_input(jb.input, 1ull << 31, forced);
  if (!data && data.error().code == code::unknown_format && jb.from_directory) {
    rep["status"] = "skipped";
    rep["reason"] = "not a recognised game file";
    return rep;
  }
  if (!data) {
    rep["status"] = "failed";
    rep["error"] = error_json(data.error());
    return rep;
  }
  if (!forced && jb.from_directory) {
    auto f = detect_format(data.value(), jb.input);
    if (!f || f.value()->id == "gltf") {  // not a game file, or the output of an earlier run
      rep["status"] = "skipped";
      rep["reason"] = "not a recognised game file";
      return rep;
    }
  }
  auto s = read_scene(data.value(), jb.input, co.read(), d, forced);
  if (!s) {
    rep["status"] = "failed";
    rep["error"] = error_json(s.error());
    rep["warnings"] = warnings_json(d);
    return rep;
  }
  rep["format"] = s->format;
  // A file can decode fine yet hold nothing glTF can carry (a lip-sync-only .anm): an empty
  // .glb helps nobody and some importers refuse it, so say so instead. JSON keeps the metadata.
  bool has_bones = false;
  for (const auto& sk : s->skeletons) has_bones |= !sk.bones.empty();
  if (cv.out_format != "json" && !has_bones && s->meshes.empty() && s->animations.empty()) {
    std::string why = "nothing to convert: no skeleton, animation or mesh (see `rigrip info`; "
                      "`--format json` keeps the file's metadata)";
    if (jb.from_directory) {
      rep["status"] = "skipped";
      rep["reason"] = why;
    } else {
      rep["status"] = "failed";
      rep["error"] = {{"code", "E_UNSUPPORTED_FEATURE"}, {"message", why}, {"file", jb.input},
                      {"format", s->format}};
    }
    rep["warnings"] = warnings_json(d);
    return rep;
  }
  result<void> w;
  if (cv.out_format == "json") {
    std::string text = scene_json::to_text(gltf::prepare(s.value(), cv.gltf, d), 1) + "\n";
    w = save_file(jb.output, bytes(text.begin(), text.end()));
  } else {
    w = gltf::write_file(s.value(), jb.output, cv.gltf, d);
  }
  if (!w) {
    rep["status"] = "failed";
    rep["error"] = error_json(w.error());
  } else {
    rep["status"] = "ok";
    if (cv.textures) {
      std::vector<std::string> written;
      write_textures(s.value(), jb.output, written);
      rep["textures"] = written;
    }
    rep["skeletons"] = s->skeletons.size();
    rep["animations"] = s->animations.size();
  }
  rep["warnings"] = warnings_json(d);
  rep["seconds"] = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return rep;
}

int cmd_convert(const std::vector<std::string>& inputs, const std::string& output, const common_options& co,
                convert_options cv) {
  int rc = 0;
  const format* forced = forced_format(co, rc);
  if (rc) return rc;
  if (cv.out_format != "glb" && cv.out_format != "gltf" && cv.out_format != "json") {
    std::cerr << "error: --format must be glb, gltf or json\n";
    return 2;
  }
  std::vector<job> jobs;
  std::string out_ext_lower = lower(fs::path(output).extension().string());
  bool single_file_out = inputs.size() == 1 && !fs::is_directory(inputs[0]) &&
                         (out_ext_lower == ".glb" || out_ext_lower == ".gltf" || out_ext_lower == ".json");
  if (single_file_out) {
    if (out_ext_lower == ".gltf") cv.out_format = "gltf";
    if (out_ext_lower == ".json") cv.out_format = "json";
    if (out_ext_lower == ".glb") cv.out_format = "glb";
    jobs.push_back({inputs[0], output, false});
  } else {
    for (const auto& in : inputs) {
      std::error_code ec;
      if (fs::is_directory(in, ec)) {
        std::vector<fs::path> files;
        for (auto it = fs::recursive_directory_iterator(in, fs::directory_options::skip_permission_denied, ec);
             it != fs::recursive_directory_iterator(); it.increment(ec)) {
          if (ec) break;
          if (it->is_regular_file(ec)) files.push_back(it->path());
        }
        std::sort(files.begin(), files.end());
        for (const auto& p : files) {
          // Named from the path as given, never from where a symlink points: the output
          // stays inside -o (fs::relative would resolve links and could climb out of it).
          fs::path rel = p.lexically_normal().lexically_relative(fs::path(in).lexically_normal());
          if (rel.empty() || *rel.begin() == "..") rel = p.filename();
          fs::path o = fs::path(output) / rel;
          o.replace_extension(output_extension(cv.out_format));
          jobs.push_back({p.string(), o.string(), true});
        }
      } else {
        fs::path o = fs::path(output) / fs::path(in).filename();
        o.replace_extension(output_extension(cv.out_format));
        jobs.push_back({in, o.string(), false});
      }
    }
  }
  // Two inputs that differ only by extension (Animal_Bass.bfres / Animal_Bass.sbfres) would
  // write the same output: keep both by naming such outputs after the whole input file name.
  std::map<std::string, int> uses;
  for (const auto& j : jobs) ++uses[j.output];
  for (auto& j : jobs)
    if (uses[j.output] > 1) {
      fs::path o(j.output);
      j.output = (o.parent_path() / (fs::path(j.input).filename().string() + o.extension().string())).string();
    }
  // --shard I/N: inputs sorted by path, every N-th from the I-th, so N machines given the
  // same arguments convert disjoint sets that together cover all inputs.
  const bool sharded = !cv.shard.empty();
  if (sharded) {
    unsigned si = 0, sn = 0;
    char slash = 0, extra = 0;
    if (std::sscanf(cv.shard.c_str(), "%u%c%u%c", &si, &slash, &sn, &extra) != 3 || slash != '/' || sn == 0 ||
        si >= sn) {
      std::cerr << "error: --shard takes I/N with 0 <= I < N, e.g. --shard 0/4\n";
      return 2;
    }
    std::stable_sort(jobs.begin(), jobs.end(), [](const job& a, const job& b) { return a.input < b.input; });
    std::vector<job> mine;
    for (std::size_t i = si; i < jobs.size(); i += sn) mine.push_back(jobs[i]);
    jobs = std::move(mine);
  }
  cv.gltf.binary = cv.out_format != "gltf";
  std::vector<json> reports(jobs.size());
  std::atomic<std::size_t> next{0}, done{0};
  std::mutex io;
  bool tty = isatty(STDERR_FILENO) != 0;
  auto worker = [&] {
    for (std::size_t i = next++; i < jobs.size(); i = next++) {
      reports[i] = run_job(jobs[i], co, cv, forced);
      std::lock_guard lock(io);
      ++done;
      const auto& r = reports[i];
      std::string status = r["status"];
      if (tty) std::cerr << "\r\033[K";
      if (status == "failed") {
        const auto& e = r["error"];
        error err{code::internal, e["message"], e["file"], e.value("offset", no_offset), e.value("format", std::string())};
        for (const auto& d : all_diagnostics())
          if (d.id == e["code"].get<std::string>()) err.code = d.value;
        std::cerr << "error: " << err.to_string() << "\n";
      } else if (status == "ok") {
        if (!tty) std::cout << "ok: " << jobs[i].input << " -> " << jobs[i].output << "\n";
      }
      if (r.contains("warnings"))
        for (const auto& w : r["warnings"])
          std::cerr << "warning: " << jobs[i].input << ": " << w["code"].get<std::string>() << ": "
                    << w["message"].get<std::string>() << "\n";
      if (tty) {
        std::size_t width = 30, filled = jobs.empty() ? width : done * width / jobs.size();
        std::cerr << "[" << std::string(filled, '#') << std::string(width - filled, '.') << "] " << done << "/"
                  << jobs.size() << " " << fs::path(jobs[i].input).filename().string() << std::flush;
      }
    }
  };
  unsigned n = std::max(1u, std::min<unsigned>(cv.threads, static_cast<unsigned>(jobs.size())));
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < n; ++t) pool.emplace_back(worker);
  worker();
  for (auto& t : pool) t.join();
  if (tty) std::cerr << "\r\033[K";
  std::size_t ok = 0, failed = 0, skipped = 0;
  json failed_list = json::array();
  for (const auto& r : reports) {
    std::string s = r["status"];
    if (s == "ok") ++ok;
    else if (s == "failed") ++failed, failed_list.push_back(r["input"]);
    else ++skipped;
  }
  std::cout << fmt::format("converted {}, failed {}, skipped {}\n", ok, failed, skipped);
  for (const auto& f : failed_list) std::cout << "  failed: " << f.get<std::string>() << "\n";
  if (!cv.report.empty()) {
    json rj{{"summary", {{"converted", ok}, {"failed", failed}, {"skipped", skipped}, {"failed_inputs", failed_list}}},
            {"inputs", reports}};
    std::string text = text_of(rj, 1) + "\n";
    auto w = save_file(cv.report, bytes(text.begin(), text.end()));
    if (!w) {
      std::cerr << "error: " << w.error().to_string() << "\n";
      return 1;  // the report is part of the result: no report, no success
    }
  }
  if (jobs.empty() && !sharded) {  // a shard may be empty when there are fewer files than shards
    std::cerr << "error: no input files\n";
    return 1;
  }
  return failed ? 1 : 0;
}

// ---------------------------------------------------------------- rewrite
int cmd_rewrite(const std::string& in, const std::string& out, const common_options& co, bool allow_diff) {
  int rc = 0;
  const format* forced = forced_format(co, rc);
  if (rc) return rc;
  auto data = load_input(in, 1ull << 31, forced);
  if (!data) {
    std::cerr << "error: " << data.error().to_string() << "\n";
    return 1;
  }
  diagnostics d;
  d.file = in;
  auto r = rewrite(data.value(), in, co.read(), d, forced);
  if (!r) {
    std::cerr << "error: " << r.error().to_string() << "\n";
    return 1;
  }
  const auto& a = data.value();
  const auto& b = r.value();
  if (a != b) {
    std::size_t i = 0;
    while (i < a.size() && i < b.size() && a[i] == b[i]) ++i;
    error e{code::roundtrip_mismatch,
            fmt::format("raw layer output differs from the input (sizes {} vs {})", b.size(), a.size()), in, i, {}};
    std::cerr << (allow_diff ? "warning: " : "error: ") << e.to_string() << "\n";
    if (!allow_diff) return 1;
  }
  auto w = save_file(out, b);
  if (!w) {
    std::cerr << "error: " << w.error().to_string() << "\n";
    return 1;
  }
  print_warnings(d);
  std::cout << (a == b ? "identical: " : "written (differs): ") << in << " -> " << out << " (" << b.size() << " bytes)\n";
  return 0;
}

// ---------------------------------------------------------------- pack
// `--format telltale` names a family: pick its writable format that the output's file name
// points to (walk.anm -> telltale-anm, rtda -> ff7-da), as the issues' examples write it.
const format* writable_format_of_family(const std::string& family, const std::string& out,
                                        std::string& why) {
  std::vector<const format*> writable;
  for (const auto* f : formats())
    if (f->family == family && f->pack) writable.push_back(f);
  if (writable.size() == 1) return writable[0];
  const format* best = nullptr;
  int best_score = 0, ties = 0;
  std::string name = lower(fs::path(out).filename().string());
  for (const auto* f : writable) {
    int sc = 0;
    try {
      sc = f->detect ? f->detect({}, name) : 0;  // no content yet: the name rule alone decides
    } catch (...) {
      sc = 0;
    }
    for (auto e : f->extensions)
      if (sc == 0 && name.size() > e.size() && name.ends_with(e)) sc = score::name_only;
    if (sc > best_score) best = f, best_score = sc, ties = 0;
    else if (sc == best_score && sc > 0) ++ties;
  }
  if (best && !ties) return best;
  for (const auto* f : writable) why += (why.empty() ? "" : ", ") + std::string(f->id);
  return nullptr;
}

int cmd_pack(const std::string& in, const std::string& out, const std::string& format_id,
             const std::string& templ, const std::string& skel, double fps) {
  const format* f = find_format(format_id);
  if (!f) {
    std::string choices;
    f = writable_format_of_family(lower(format_id), out, choices);
    if (!f && !choices.empty()) {
      std::cerr << "error: family '" << format_id << "' writes several formats (" << choices
                << "); the output name does not say which: pass one of them to --format\n";
      return 2;
    }
  }
  if (!f) {
    std::cerr << "error: unknown format id '" << format_id << "' (see `rigrip formats`)\n";
    return 2;
  }
  if (!f->pack) {
    std::cerr << "error: format '" << f->id << "' cannot be written (see `rigrip formats`)\n";
    return 2;
  }
  diagnostics d;
  d.file = in;
  read_options ro;
  auto s = read_scene(in, ro, d);
  if (!s) {
    std::cerr << "error: " << s.error().to_string() << "\n";
    return 1;
  }
  pack_context ctx;
  ctx.output_path = out;
  ctx.diags = &d;
  if (fps > 0) ctx.fps = fps;
  if (!templ.empty()) {
    auto t = load_file(templ);
    if (!t) {
      std::cerr << "error: " << t.error().to_string() << "\n";
      return 1;
    }
    ctx.template_file = std::move(t.value());
    ctx.template_path = templ;
  }
  if (!skel.empty()) {
    auto t = load_file(skel);
    if (!t) {
      std::cerr << "error: " << t.error().to_string() << "\n";
      return 1;
    }
    ctx.skeleton_file = std::move(t.value());
    ctx.skeleton_path = skel;
  }
  auto r = pack(s.value(), *f, ctx);
  if (!r) {
    std::cerr << "error: " << r.error().to_string() << "\n";
    return 1;
  }
  auto w = save_file(out, r.value());
  if (!w) {
    std::cerr << "error: " << w.error().to_string() << "\n";
    return 1;
  }
  print_warnings(d);
  std::cout << "packed: " << in << " -> " << out << " (" << r->size() << " bytes, " << f->id << ")\n";
  return 0;
}

// ---------------------------------------------------------------- diagnostics
int cmd_diagnostics(bool markdown) {
  if (!markdown) {
    for (const auto& d : all_diagnostics())
      std::cout << fmt::format("{:<24} {:<8} {}\n", d.id, d.severity, d.meaning);
    return 0;
  }
  std::cout << "# Diagnostics catalogue\n\n"
               "Generated by `rigrip diagnostics --markdown` from the table in `include/rigrip/error.hpp`;\n"
               "a test fails when this file and the code disagree. Every error and warning the library or\n"
               "the CLI reports carries one of these stable codes, the file, and the byte offset when known:\n\n"
               "    <file> @ 0x<offset>: <CODE> [<format>]: <message>\n\n"
               "| code | severity | meaning |\n|---|---|---|\n";
  for (const auto& d : all_diagnostics()) std::cout << "| `" << d.id << "` | " << d.severity << " | " << d.meaning << " |\n";
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  remove_temporaries_on_signals();  // Ctrl-C / kill leave no temporaries behind
  CLI::App app{"rigrip: game skeletal animation (BFRES, Shining Force III, Telltale, FF7, morpheme) to glTF 2.0 and back"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "rigrip 0.1.0");
  app.footer("Examples:\n  rigrip formats\n  rigrip info Animal_Bass.bfres\n  rigrip convert game_dump/ -o out/ -j 2 --report report.json\n  rigrip dump --raw X8PC00A.BIN");

  common_options co;
  bool json_out = false;

  auto* formats_cmd = app.add_subcommand("formats", "List format families, file kinds, read/write support and detection");
  formats_cmd->add_flag("--json", json_out, "Machine-readable output");
  formats_cmd->footer("Example:\n  rigrip formats --json");

  std::vector<std::string> info_files;
  auto* info_cmd = app.add_subcommand("info", "Show format, skeletons, animations, meshes, textures and warnings");
  info_cmd->add_option("files", info_files, "Input files")->required()->check(CLI::ExistingFile);
  info_cmd->add_flag("--json", json_out, "Machine-readable output");
  add_common(info_cmd, co);
  info_cmd->footer("Examples:\n  rigrip info Animal_Dog_Animation.bfres\n  rigrip info --json *.anm");

  std::string list_file;
  auto* list_cmd = app.add_subcommand("list", "Print the animation clip names, one per line");
  list_cmd->add_option("file", list_file, "Input file")->required()->check(CLI::ExistingFile);
  add_common(list_cmd, co);
  list_cmd->footer("Example:\n  rigrip list Animal_Dog_Animation.bfres");

  std::string dump_file, dump_out;
  bool dump_raw_flag = false, dump_compact = false;
  auto* dump_cmd = app.add_subcommand("dump", "Print the scene as JSON (native units/axes, seconds), or --raw the format's own structures");
  dump_cmd->add_option("file", dump_file, "Input file")->required()->check(CLI::ExistingFile);
  dump_cmd->add_flag("--raw", dump_raw_flag, "Print the format's decoded raw structures instead of the scene");
  dump_cmd->add_flag("--compact", dump_compact, "One-line JSON");
  dump_cmd->add_option("-o,--output", dump_out, "Write to a file instead of standard output");
  add_common(dump_cmd, co);
  dump_cmd->footer("Examples:\n  rigrip dump Animal_Bass.bfres > bass.json\n  rigrip dump --raw X8PC00A.BIN");

  std::vector<std::string> conv_in;
  std::string conv_out;
  convert_options cv;
  std::string up = "y";
  double resample = 0;
  auto* conv_cmd = app.add_subcommand("convert", "Convert files or directories (recursive) to glTF 2.0");
  conv_cmd->add_option("inputs", conv_in, "Input files or directories")->required()->check(CLI::ExistingPath);
  conv_cmd->add_option("-o,--output", conv_out, "Output file (.glb/.gltf/.json) or directory")->required();
  conv_cmd->add_option("--format", cv.out_format, "Output format: glb (default), gltf (+ .bin), json (scene JSON)")
      ->check(CLI::IsMember({"glb", "gltf", "json"}));
  conv_cmd->add_option("-j,--jobs", cv.threads, "Worker threads (default: the number of CPU cores)")->check(CLI::Range(1u, 256u));
  conv_cmd->add_flag("--skip-existing", cv.skip_existing, "Do not convert inputs whose output already exists");
  conv_cmd->add_option("--report", cv.report, "Write a JSON report of every input");
  conv_cmd->add_option("--shard", cv.shard,
                       "I/N: convert only the I-th (0-based) of N deterministic shares of the sorted inputs");
  conv_cmd->add_option("--scale", cv.gltf.scale, "Uniform scale applied at the root")->check(CLI::PositiveNumber);
  conv_cmd->add_option("--up", up, "Up axis of the source data, y or z (converted at the root)")->check(CLI::IsMember({"y", "z"}));
  conv_cmd->add_option("--resample", resample, "Bake every track to LINEAR keys at this rate")->check(CLI::PositiveNumber);
  conv_cmd->add_option("--clip", cv.gltf.clips, "Only animations with this name or glob (repeatable)");
  conv_cmd->add_flag("--in-place", cv.gltf.in_place, "Drop root motion");
  conv_cmd->add_flag("--textures", cv.textures, "Also write every decoded texture as PNG next to the output");
  bool no_bone_mesh = false;
  conv_cmd->add_flag("--no-bone-mesh", no_bone_mesh, "Do not add a bone-display mesh to skeleton-only files");
  add_common(conv_cmd, co);
  conv_cmd->footer(
      "Examples:\n  rigrip convert Animal_Bass_Animation.bfres -o bass.glb\n"
      "  rigrip convert dumps/ -o out/ -j 2 --skip-existing --report report.json\n"
      "  rigrip convert walk.anm --skeleton sk62_clementine.skl -o walk.gltf --in-place\n"
      "  rigrip convert X8PC00A.BIN -o out/ --textures");

  std::string rw_in, rw_out;
  bool allow_diff = false;
  auto* rw_cmd = app.add_subcommand("rewrite", "Read through the format's raw layer and write it back (identical bytes)");
  rw_cmd->add_option("input", rw_in, "Input file")->required()->check(CLI::ExistingFile);
  rw_cmd->add_option("-o,--output", rw_out, "Output file")->required();
  rw_cmd->add_flag("--allow-diff", allow_diff, "Write the output even when it differs from the input");
  add_common(rw_cmd, co);
  rw_cmd->footer("Example:\n  rigrip rewrite Animal_Bass.sbfres -o copy.sbfres && cmp Animal_Bass.sbfres copy.sbfres");

  std::string pk_in, pk_out, pk_format, pk_template, pk_skeleton;
  double pk_fps = 0;
  auto* pk_cmd = app.add_subcommand("pack", "Write a game format from a glTF or scene JSON");
  pk_cmd->add_option("input", pk_in, "Input .glb/.gltf/.json")->required()->check(CLI::ExistingFile);
  pk_cmd->add_option("--format", pk_format, "Target format id, or a family name when the output file name says which (see `rigrip formats`)")->required();
  pk_cmd->add_option("-o,--output", pk_out, "Output file")->required();
  pk_cmd->add_option("--template", pk_template, "Original file whose other contents are kept")->check(CLI::ExistingFile);
  pk_cmd->add_option("--skeleton", pk_skeleton, "The format's skeleton file")->check(CLI::ExistingFile);
  pk_cmd->add_option("--fps", pk_fps, "Frame rate for formats that count frames")->check(CLI::PositiveNumber);
  pk_cmd->footer("Examples:\n  rigrip pack anim.glb --format bfres --template Original.bfres -o New.bfres\n"
                 "  rigrip pack walk.glb --format telltale --skeleton x.skl -o walk.anm");

  std::vector<std::string> merge_in;
  std::string merge_out;
  auto* report_cmd = app.add_subcommand("report", "Work with convert --report files");
  report_cmd->require_subcommand(1);
  auto* merge_cmd = report_cmd->add_subcommand("merge", "Merge the reports of convert --shard runs into one");
  merge_cmd->add_option("reports", merge_in, "Report files")->required()->check(CLI::ExistingFile);
  merge_cmd->add_option("-o,--output", merge_out, "Merged report")->required();
  merge_cmd->footer("Example:\n  rigrip report merge shard-0.json shard-1.json -o all.json");
  bool markdown = false;
  auto* diag_cmd = app.add_subcommand("diagnostics", "List every error and warning code");
  diag_cmd->add_flag("--markdown", markdown, "Print docs/diagnostics.md");
  diag_cmd->footer("Examples:\n  rigrip diagnostics\n  rigrip diagnostics --markdown > docs/diagnostics.md");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int r = app.exit(e);
    return r == 0 ? 0 : 2;
  }
  try {
    if (*formats_cmd) return cmd_formats(json_out);
    if (*info_cmd) return cmd_info(info_files, co, json_out);
    if (*list_cmd) return cmd_list(list_file, co);
    if (*dump_cmd) return cmd_dump(dump_file, co, dump_raw_flag, dump_compact, dump_out);
    if (*conv_cmd) {
      cv.gltf.source_up = up == "z" ? gltf::up_axis::z : gltf::up_axis::y;
      if (resample > 0) cv.gltf.resample_fps = resample;
      cv.gltf.bone_display_mesh = !no_bone_mesh;
      return cmd_convert(conv_in, conv_out, co, cv);
    }
    if (*rw_cmd) return cmd_rewrite(rw_in, rw_out, co, allow_diff);
    if (*pk_cmd) return cmd_pack(pk_in, pk_out, pk_format, pk_template, pk_skeleton, pk_fps);
    if (*diag_cmd) return cmd_diagnostics(markdown);
    if (*merge_cmd) return cli::cmd_report_merge(merge_in, merge_out);
  } catch (const std::exception& e) {
    std::cerr << "error: E_INTERNAL: " << e.what() << "\n";
    return 1;
  }
  return 2;
}
