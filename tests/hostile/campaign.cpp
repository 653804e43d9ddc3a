// The mutation campaign, run in-process through the public registry API so that every
// registered reader is covered the moment it lands (no per-family code here).
//
// One "run" = one input (original or mutated) put through every entry point its format
// has: detect_format, read_scene (+ glTF write + scene JSON serialisation of the result),
// dump_raw (+ JSON serialisation), rewrite. Each call must return a value or a clean error
// (a stable code other than E_INTERNAL and a message), within the time bound and the memory
// bound. A crash or sanitizer report kills the process: the death callback prints which
// input it was and saves its bytes under <test-output>/hostile/.
#include "campaign.hpp"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <thread>
#include <vector>

#include "alloc_tracker.hpp"
#include "rigrip/gltf.hpp"
#include "rigrip/registry.hpp"

#if defined(__SANITIZE_ADDRESS__)
#define HOSTILE_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(undefined_behavior_sanitizer)
#define HOSTILE_SANITIZED 1
#endif
#endif
#ifdef HOSTILE_SANITIZED
#include <sanitizer/common_interface_defs.h>
#endif

namespace fs = std::filesystem;

namespace hostile {

void tally::add(const tally& o) {
  runs += o.runs;
  valid_outputs += o.valid_outputs;
  clean_errors += o.clean_errors;
  errors_with_offset += o.errors_with_offset;
  ops += o.ops;
  failures += o.failures;
  seconds += o.seconds;
  budget_cut += o.budget_cut;
  peak_bytes = std::max(peak_bytes, o.peak_bytes);
  slowest_op = std::max(slowest_op, o.slowest_op);
}

std::int64_t memory_bound(std::size_t input_size) {
  return 64 * static_cast<std::int64_t>(input_size) + (std::int64_t{256} << 20);
}
// The whole campaign (every input file, one CTest each) shares one CPU-time budget:
// RIGRIP_HOSTILE_TOTAL_BUDGET seconds (default 300, i.e. 5 min however many samples there
// are), times RIGRIP_HOSTILE_SCALE; each file gets its share, at least 0.5 s.
double total_budget_seconds() {
  double total = 300;
  if (const char* b = std::getenv("RIGRIP_HOSTILE_TOTAL_BUDGET"); b && *b && std::atof(b) > 0) total = std::atof(b);
  if (const char* s = std::getenv("RIGRIP_HOSTILE_SCALE"); s && *s && std::atof(s) > 0) total *= std::atof(s);
  return total;
}
double default_budget_seconds() {
  static const std::size_t files = std::max<std::size_t>(1, campaign_inputs().size());
  return std::max(0.5, total_budget_seconds() / static_cast<double>(files));
}
double time_bound_seconds(std::size_t input_size) {
  return 2.0 + 10.0 * static_cast<double>(input_size) / (1024.0 * 1024.0);
}

double& last_budget_seconds() {
  static double b = 0;
  return b;
}

std::map<std::string, tally>& process_totals() {
  static std::map<std::string, tally> t;
  return t;
}
std::uint64_t& process_failures() {
  static std::uint64_t n = 0;
  return n;
}

// ---- crash and hang reporting ------------------------------------------------------
namespace {
char g_current[768];                      // description of the run in progress
const std::uint8_t* g_current_data = nullptr;
std::size_t g_current_size = 0;
std::atomic<std::int64_t> g_run_start_ns{0};  // 0 = idle
std::atomic<std::int64_t> g_run_hard_ns{0};
char g_dump_path[1024];

std::int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch()).count();
}

// Async-signal-safe: write(2) and open(2) only.
void report_current(const char* why) {
  if (!g_current[0]) return;
  auto say = [](const char* s) { (void)!write(2, s, std::strlen(s)); };
  say("\nhostile: ");
  say(why);
  say(" while running: ");
  say(g_current);
  say("\n");
  if (g_current_data && g_dump_path[0]) {
    int fd = open(g_dump_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0) {
      (void)!write(fd, g_current_data, g_current_size);
      close(fd);
      say("hostile: the input is saved as ");
      say(g_dump_path);
      say("\n");
    }
  }
}

void on_death() { report_current("sanitizer report / fatal error"); }
void on_signal(int sig) {
  report_current(sig == SIGSEGV ? "SIGSEGV" : sig == SIGBUS ? "SIGBUS" : sig == SIGFPE ? "SIGFPE"
                 : sig == SIGABRT ? "SIGABRT" : "signal");
  raise(sig);  // SA_RESETHAND: the default action now
}

void install_reporters() {
  static std::once_flag once;
  std::call_once(once, [] {
    std::string dir = std::string(RIGRIP_TEST_OUT) + "/hostile";
    fs::create_directories(dir);
    std::snprintf(g_dump_path, sizeof g_dump_path, "%s/crash-input-%d.bin", dir.c_str(), static_cast<int>(getpid()));
#ifdef HOSTILE_SANITIZED
    __sanitizer_set_death_callback(on_death);
#endif
    // An alternate stack, so that a stack overflow (unbounded recursion) is reported too.
    static std::vector<char> alt(1 << 16);
    stack_t ss{};
    ss.ss_sp = alt.data();
    ss.ss_size = alt.size();
    sigaltstack(&ss, nullptr);
    for (int s : {SIGSEGV, SIGBUS, SIGFPE, SIGABRT, SIGILL}) {
      struct sigaction old {};
      sigaction(s, nullptr, &old);
      if (old.sa_handler != SIG_DFL) continue;  // leave the sanitizers' own handlers alone
      struct sigaction sa {};
      sa.sa_handler = on_signal;
      sa.sa_flags = SA_ONSTACK | SA_RESETHAND;
      sigemptyset(&sa.sa_mask);
      sigaction(s, &sa, nullptr);
    }
    // Hang detector: a run that overstays its hard limit is reported and aborted, so a
    // reader stuck in a loop shows which input did it instead of a silent CTest timeout.
    std::thread([] {
      for (;;) {
        std::this_thread::sleep_for(std::chrono::milliseconds(200));
        auto start = g_run_start_ns.load();
        if (start && now_ns() - start > g_run_hard_ns.load()) {
          report_current("HANG (hard time limit exceeded)");
          std::abort();
        }
      }
    }).detach();
  });
}

// ---- one run ----------------------------------------------------------------------------
struct subject {
  std::string key;       // stable name used for seeding and reproduction
  std::string name;      // name passed to the reader (a real path: siblings can be loaded)
  const rigrip::format* fmt = nullptr;  // nullptr: let detection choose ("auto")
  bytes data;
};

struct run_outcome {
  bool valid_output = false;
  bool clean_error = false;
  bool with_offset = false;
  int ops = 0;
  std::vector<std::string> problems;
  std::int64_t peak = 0;
  double slowest = 0;
};

bool clean(const rigrip::error& e) {
  return e.code != rigrip::code::internal && !e.message.empty() && !rigrip::info(e.code).id.empty() &&
         !e.file.empty();
}

std::string describe(const rigrip::error& e) { return e.to_string(); }

run_outcome run_one(const subject& s, const bytes& data, const std::string& desc) {
  run_outcome o;
  rigrip::read_options opts;
  const double soft = time_bound_seconds(data.size());
  const std::int64_t mem = memory_bound(data.size());
  std::snprintf(g_current, sizeof g_current, "%s", desc.c_str());
  g_current_data = data.data();
  g_current_size = data.size();
  g_run_hard_ns = static_cast<std::int64_t>((30.0 + 5.0 * soft) * 1e9);

  // Bytes a call produced (glb) beyond its input: a container that pulls sibling files (a
  // morpheme bundle and its animation sources) does work in proportion to what it builds.
  std::size_t produced = 0;
  auto timed = [&](const char* op, auto&& fn) {
    ++o.ops;
    produced = 0;
    alloc::begin(mem);
    auto t0 = now_ns();
    g_run_start_ns = t0;
    try {
      fn();
    } catch (const std::exception& e) {
      // The public API promises errors as values: anything thrown through it is a bug.
      o.problems.push_back(std::string(op) + ": exception escaped the API: " + e.what());
    } catch (...) {
      o.problems.push_back(std::string(op) + ": unknown exception escaped the API");
    }
    g_run_start_ns = 0;
    double secs = static_cast<double>(now_ns() - t0) / 1e9;
    auto st = alloc::end();
    o.peak = std::max(o.peak, st.peak_bytes);
    o.slowest = std::max(o.slowest, secs);
    const double bound = std::max(soft, time_bound_seconds(data.size() + produced));
    if (secs > bound)
      o.problems.push_back(std::string(op) + ": took " + std::to_string(secs) + " s, bound " + std::to_string(bound) + " s");
    if (st.refused_count)
      o.problems.push_back(std::string(op) + ": tried to allocate " + std::to_string(st.refused_bytes) +
                           " bytes at once, above the bound of " + std::to_string(mem) + " live bytes");
  };
  auto check_error = [&](const char* op, const rigrip::error& e) {
    if (!clean(e)) o.problems.push_back(std::string(op) + ": unclean error: " + describe(e));
  };

  timed("detect", [&] { (void)rigrip::detect_format(data, s.name); });

  rigrip::diagnostics diags;
  timed("read", [&] {
    auto r = rigrip::read_scene(data, s.name, opts, diags, s.fmt);
    if (!r) {
      check_error("read", r.error());
      o.clean_error = clean(r.error());
      o.with_offset = r.error().offset != rigrip::no_offset;
      return;
    }
    // What `convert` does with a scene: glTF, and the scene JSON of `dump`/`--format json`.
    rigrip::gltf::write_options wo;
    auto g = rigrip::gltf::write(r.value(), wo, diags);
    if (!g) {
      check_error("gltf write", g.error());
      o.clean_error = clean(g.error());
      return;
    }
    produced = g->main.size();
    if (g->main.size() < 12) o.problems.push_back("gltf write: output of " + std::to_string(g->main.size()) + " bytes");
    try {
      (void)rigrip::scene_json::to_json(r.value()).dump();
    } catch (const std::exception& e) {
      o.problems.push_back(std::string("scene JSON not serialisable (invalid UTF-8 in a name?): ") + e.what());
    }
    o.valid_output = true;
  });

  const rigrip::format* f = s.fmt;
  if (!f) {
    auto d = rigrip::detect_format(data, s.name);
    if (d) f = d.value();
  }
  if (f && f->dump_raw) {
    rigrip::diagnostics d2;
    timed("dump_raw", [&] {
      auto r = rigrip::dump_raw(data, s.name, opts, d2, f);
      if (!r) return check_error("dump_raw", r.error());
      try {
        (void)r->dump();
      } catch (const std::exception& e) {
        o.problems.push_back(std::string("dump_raw JSON not serialisable (invalid UTF-8 in a string?): ") + e.what());
      }
    });
  }
  if (f && f->rewrite) {
    rigrip::diagnostics d3;
    timed("rewrite", [&] {
      auto r = rigrip::rewrite(data, s.name, opts, d3, f);
      if (!r) check_error("rewrite", r.error());
    });
  }
  g_current[0] = 0;
  g_current_data = nullptr;
  return o;
}

std::string fmt_id(const subject& s) { return s.fmt ? std::string(s.fmt->id) : std::string("auto"); }

void mutate_subject(const subject& s, double scale, double budget_s, const char* only, file_result& out) {
  plan p = plan_for(s.data.size(), scale);
  auto trunc = truncation_lengths(s.data.size(), p.truncations);
  tally& t = out.by_format[fmt_id(s)];
  auto t0 = std::chrono::steady_clock::now();
  auto one = [&](kind k, std::size_t i) {
    std::string id = s.key + ":" + kind_name(k) + ":" + std::to_string(i);
    if (only && id != only) return;
    std::string what;
    bytes m = mutate(s.data, s.key, k, i, trunc, &what);
    if (only) {
      std::string p = std::string(RIGRIP_TEST_OUT) + "/hostile/repro.bin";
      std::ofstream(p, std::ios::binary).write(reinterpret_cast<const char*>(m.data()), static_cast<std::streamsize>(m.size()));
      std::printf("hostile: reproducing %s (%s); bytes saved as %s\n", id.c_str(), what.c_str(), p.c_str());
    }
    std::string desc = "RIGRIP_HOSTILE_ONLY='" + id + "' [" + fmt_id(s) + "] " + what;
    auto o = run_one(s, m, desc);
    ++t.runs;
    t.ops += static_cast<std::uint64_t>(o.ops);
    t.valid_outputs += o.valid_output;
    t.clean_errors += o.clean_error;
    t.errors_with_offset += o.with_offset;
    t.peak_bytes = std::max(t.peak_bytes, o.peak);
    t.slowest_op = std::max(t.slowest_op, o.slowest);
    if (!o.problems.empty()) {
      ++t.failures;
      for (const auto& pr : o.problems) out.failures.push_back(desc + ": " + pr);
    }
  };
  // The unmutated input first (index 0 of nothing: kind truncate at full length is not in
  // the grid, so run it as its own case).
  if (!only) {
    auto o = run_one(s, s.data, s.key + " (unmutated) [" + fmt_id(s) + "]");
    ++t.runs;
    t.ops += static_cast<std::uint64_t>(o.ops);
    t.valid_outputs += o.valid_output;
    t.clean_errors += o.clean_error;
    t.errors_with_offset += o.with_offset;
    t.peak_bytes = std::max(t.peak_bytes, o.peak);
    t.slowest_op = std::max(t.slowest_op, o.slowest);
    if (!o.problems.empty()) {
      ++t.failures;
      for (const auto& pr : o.problems) out.failures.push_back(s.key + " (unmutated): " + pr);
    }
  }
  // The header sweep is systematic: only on the original input, not on derived files.
  const std::size_t all_sweep = header_sweep_runs(s.data.size());
  const std::size_t field_first = scale >= 1.0 ? 0 : all_sweep;
  const std::size_t field_end = all_sweep + p.fields;
  // Kinds interleaved, so that when the time budget cuts a big file short every kind has
  // had its share; the order (and so every run's bytes) is the same on every machine.
  std::size_t done_t = 0, done_f = 0, done_d = field_first;
  bool more = true;
  // A floor of rounds even on a huge file, so that every kind is exercised.
  const std::size_t min_rounds = scale >= 1.0 ? 8 : 1;
  for (std::size_t round = 0; more; ++round) {
    more = false;
    if (budget_s > 0 && round >= min_rounds && std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() > budget_s) {
      ++t.budget_cut;
      break;
    }
    if (done_t < trunc.size()) one(kind::truncate, done_t++), more = true;
    if (done_f < p.flips) one(kind::flip, done_f++), more = true;
    // Two field runs per round: there are more field positions than truncation lengths.
    for (int k = 0; k < 2; ++k)
      if (done_d < field_end) one(kind::field, done_d++), more = true;
  }
  t.seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

std::string gtest_safe(std::string s) {
  for (auto& c : s)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return s;
}
}  // namespace

std::vector<input_file> campaign_inputs() {
  std::vector<input_file> v;
  auto add_tree = [&](const fs::path& root, const std::string& prefix) {
    std::error_code ec;
    if (!fs::is_directory(root, ec)) return;
    std::vector<fs::path> files;
    for (auto it = fs::recursive_directory_iterator(root, ec); it != fs::recursive_directory_iterator();
         it.increment(ec)) {
      if (ec) break;
      if (it->is_regular_file(ec)) files.push_back(it->path());
    }
    std::sort(files.begin(), files.end());
    for (const auto& p : files)
      v.push_back({p.string(), gtest_safe(prefix + "_" + fs::relative(p, root, ec).string())});
  };
  add_tree(RIGRIP_SAMPLES_DIR, "sample");
  add_tree(fs::path(RIGRIP_SOURCE_DIR) / "examples", "example");
  add_tree(fs::path(RIGRIP_SOURCE_DIR) / "tests/hostile/regressions", "regression");
  return v;
}

file_result run_campaign(const std::string& path, double scale) {
  install_reporters();
  file_result out;
  auto loaded = rigrip::load_file(path);
  if (!loaded) {
    out.failures.push_back(path + ": cannot load: " + loaded.error().to_string());
    return out;
  }
  const char* only = std::getenv("RIGRIP_HOSTILE_ONLY");
  if (only && !*only) only = nullptr;

  subject base;
  base.key = fs::path(path).filename().string();
  base.name = path;
  base.data = std::move(loaded.value());
  auto det = rigrip::detect_format(base.data, path);
  base.fmt = det ? det.value() : nullptr;
  std::vector<subject> subjects;

  // Files our own writers produce from this input become inputs too: the glTF and scene
  // JSON the converter writes (read back by the gltf / scene-json readers), the raw
  // rewrite, and the format's own writer where it has one.
  if (base.fmt) {
    rigrip::diagnostics d;
    rigrip::read_options opts;
    auto s = rigrip::read_scene(base.data, path, opts, d, base.fmt);
    if (s) {
      rigrip::gltf::write_options wo;
      if (auto g = rigrip::gltf::write(s.value(), wo, d))
        subjects.push_back({base.key + "#glb", path + ".derived.glb", rigrip::find_format("gltf"), g->main});
      try {
        std::string text = rigrip::scene_json::to_json(s.value()).dump(1);
        subjects.push_back({base.key + "#json", path + ".derived.json", rigrip::find_format("scene-json"),
                            bytes(text.begin(), text.end())});
      } catch (const std::exception&) {
        // Reported by the runs themselves.
      }
      if (base.fmt->pack) {
        rigrip::pack_context pc;
        pc.output_path = path + ".derived.pack";
        pc.diags = &d;
        if (auto pk = rigrip::pack(s.value(), *base.fmt, pc))
          subjects.push_back({base.key + "#pack", path, base.fmt, pk.value()});
      }
    }
    if (base.fmt->rewrite) {
      auto rw = rigrip::rewrite(base.data, path, opts, d, base.fmt);
      if (rw && rw.value() != base.data) subjects.push_back({base.key + "#rewrite", path, base.fmt, rw.value()});
    }
  }
  // Time budget per file (RIGRIP_HOSTILE_BUDGET seconds, 0 = none): 70% for the input
  // itself, the rest shared by the files derived from it.
  double budget = 0;
  if (const char* b = std::getenv("RIGRIP_HOSTILE_BUDGET"); b && *b) budget = std::atof(b);
  else budget = default_budget_seconds();
  if (only) budget = 0;
  last_budget_seconds() = budget;
  mutate_subject(base, scale, budget * 0.7, only, out);
  // Derived files are mostly core-format (glTF / JSON): a quarter of the mutations each.
  for (const auto& sub : subjects)
    mutate_subject(sub, scale * 0.25, subjects.empty() ? 0 : budget * 0.3 / static_cast<double>(subjects.size()),
                   only, out);
  return out;
}

}  // namespace hostile
