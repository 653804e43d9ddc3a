#include "cli/batch.hpp"

#include <fmt/core.h>
#include <fnmatch.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <map>
#include <mutex>
#include <new>

namespace fs = std::filesystem;

namespace rigrip::cli {
namespace {

void add_directory_archive_jobs(const fs::path& p, const archive_input& in, const fs::path& out_folder,
                                const std::string& ext, std::vector<job>& jobs);

void add_directory_jobs(const std::string& dir, const std::string& output_dir,
                        const std::string& ext, std::vector<job>& jobs) {
  std::error_code ec;
  std::vector<fs::path> files;
  for (auto it =
           fs::recursive_directory_iterator(dir, fs::directory_options::skip_permission_denied, ec);
       it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (ec) break;
    if (it->is_regular_file(ec)) files.push_back(it->path());
  }
  std::sort(files.begin(), files.end());
  for (const auto& p : files) {
    // Named from the path as given, never from where a symlink points: the output
    // stays inside -o (fs::relative would resolve links and could climb out of it).
    fs::path rel = p.lexically_normal().lexically_relative(fs::path(dir).lexically_normal());
    if (rel.empty() || *rel.begin() == "..") rel = p.filename();
    fs::path o = fs::path(output_dir) / rel;
    // An archive in the folder (a .pack, .sbactorpack, .lgp ...) converts entry by entry into
    // a folder named after it: out/Actor/Pack/Thing.sbactorpack/Model/Thing.glb.
    if (auto arch = open_archive_input(p.string())) {
      if (arch->ok()) {
        add_directory_archive_jobs(p, *arch->value(), o, ext, jobs);
      } else {
        job jb{p.string(), o.string(), true};
        jb.failure = std::make_shared<const error>(arch->error());
        jobs.push_back(std::move(jb));
      }
      continue;
    }
    o.replace_extension(ext);
    jobs.push_back({p.string(), o.string(), true});
  }
}

bool selected(const std::string& inner, const std::vector<std::string>& only) {
  if (only.empty()) return true;
  for (const auto& g : only)
    if (fnmatch(g.c_str(), inner.c_str(), 0) == 0) return true;
  return false;
}

// An inner path as a relative output path that cannot leave the output folder.
fs::path safe_relative(const std::string& inner) {
  fs::path rel = fs::path(inner).lexically_normal().relative_path();
  if (rel.empty() || *rel.begin() == "..") rel = fs::path(inner).filename();
  if (rel.empty() || rel == "." || rel == "..") rel = "entry";
  return rel;
}

void add_archive_jobs(const std::string& path, const std::shared_ptr<const archive_input>& in,
                      const std::string& output_dir, const std::string& ext,
                      const std::vector<std::string>& only, std::vector<job>& jobs) {
  print_warnings(in->diags);  // the archive's own (duplicate names, disagreeing tables): once
  std::size_t chosen = 0;
  for (std::size_t i = 0; i < in->a.entries.size(); ++i) {
    const auto& name = in->a.entries[i].name;
    if (!selected(name, only)) continue;
    ++chosen;
    fs::path o = fs::path(output_dir) / safe_relative(name);
    o.replace_extension(ext);
    job jb{in->a.entry_path(i), o.string(), true};
    jb.archive = in;
    jb.entry = i;
    jobs.push_back(std::move(jb));
  }
  if (!only.empty() && chosen == 0)
    std::cerr << "warning: " << path << ": --only selects none of its " << in->a.entries.size()
              << " entries\n";
}

void add_directory_archive_jobs(const fs::path& p, const archive_input& in, const fs::path& out_folder,
                                const std::string& ext, std::vector<job>& jobs) {
  print_warnings(in.diags);
  for (std::size_t i = 0; i < in.a.entries.size(); ++i) {
    fs::path o = out_folder / safe_relative(in.a.entries[i].name);
    o.replace_extension(ext);
    job jb{in.a.entry_path(i), o.string(), true};
    jb.archive_path = p.string();
    jb.entry = i;
    jb.entry_size = in.a.entries[i].data.size();
    jobs.push_back(std::move(jb));
  }
}

// Two inputs that differ only by extension (Animal_Bass.bfres / Animal_Bass.sbfres) would
// write the same output: keep both by naming such outputs after the whole input file name.
void separate_shared_outputs(std::vector<job>& jobs) {
  std::map<std::string, int> uses;
  for (const auto& j : jobs) ++uses[j.output];
  for (auto& j : jobs)
    if (uses[j.output] > 1) {
      fs::path o(j.output);
      j.output =
          (o.parent_path() / (fs::path(j.input).filename().string() + o.extension().string()))
              .string();
    }
}

json failed_job(const job& jb, const std::string& code, const std::string& message) {
  return json{{"input", jb.input},
              {"output", jb.output},
              {"status", "failed"},
              {"error", {{"code", code}, {"message", message}, {"file", jb.input}}}};
}

// A worker thread must never see an exception escape (std::terminate would take every other
// input down with it): whatever a job throws becomes that input's failure.
json run_isolated(const job& jb, const batch_options& o, const job_runner& run) {
  try {
    if (o.skip_existing && fs::exists(jb.output))
      return json{{"input", jb.input},
                  {"output", jb.output},
                  {"status", "skipped"},
                  {"reason", "output exists"}};
    return run(jb);
  } catch (const std::bad_alloc&) {
    return failed_job(jb, "E_LIMIT", "out of memory");
  } catch (const std::exception& e) {
    return failed_job(jb, "E_INTERNAL", std::string("unexpected exception: ") + e.what());
  } catch (...) {
    return failed_job(jb, "E_INTERNAL", "unexpected exception");
  }
}

// The report's error back as an error, so that it prints like every other error.
error error_of(const json& e) {
  error err{code::internal, e["message"], e["file"], e.value("offset", no_offset),
            e.value("format", std::string())};
  for (const auto& d : all_diagnostics())
    if (d.id == e["code"].get<std::string>()) err.code = d.value;
  return err;
}

void print_outcome(const job& jb, const json& r, bool tty) {
  std::string status = r["status"];
  if (tty) std::cerr << "\r\033[K";
  if (status == "failed") {
    print_error(error_of(r["error"]));
  } else if (status == "ok") {
    if (tty) {
    } else if (r.contains("note") && r.contains("textures") && r["textures"].is_array()) {
      // A texture-only file wrote PNGs and no glTF: name what exists.
      std::cout << "ok: " << jb.input << " -> " << r["textures"].size() << " PNG file(s) (textures only, no glTF)\n";
    } else {
      std::cout << "ok: " << jb.input << " -> " << jb.output << "\n";
    }
  } else if (status == "skipped") {
    std::cerr << "skipped: " << jb.input << ": " << r.value("reason", std::string("skipped")) << "\n";
  }
  if (r.contains("warnings"))
    for (const auto& w : r["warnings"])
      std::cerr << "warning: " << jb.input << ": " << w["code"].get<std::string>() << ": "
                << w["message"].get<std::string>() << "\n";
}

// Files done/total, files/s, MB/s, elapsed and remaining time: a redrawn bar on a terminal,
// else one plain line every few seconds (logs, CI).
struct progress {
  std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now(), last_line = start;
  std::uint64_t bytes = 0;
};

std::string clock_text(double s) {
  const auto t = static_cast<long long>(s + 0.5);
  return t >= 3600 ? fmt::format("{}:{:02}:{:02}", t / 3600, t / 60 % 60, t % 60)
                   : fmt::format("{}:{:02}", t / 60, t % 60);
}

void print_progress(progress& p, std::size_t done, std::size_t total, const std::string& input, bool tty) {
  const auto now = std::chrono::steady_clock::now();
  if (!tty && done < total && now - p.last_line < std::chrono::seconds(5)) return;
  p.last_line = now;
  const double el = std::max(1e-6, std::chrono::duration<double>(now - p.start).count());
  const double rate = static_cast<double>(done) / el;
  const std::string stats =
      fmt::format("{}/{} files, {:.1f} files/s, {:.1f} MB/s, elapsed {}, remaining {}", done, total, rate,
                  static_cast<double>(p.bytes) / 1e6 / el, clock_text(el),
                  rate > 0 ? clock_text(static_cast<double>(total - done) / rate) : std::string("?"));
  if (!tty) {
    std::cerr << "progress: " << stats << "\n";
    return;
  }
  std::size_t width = 20, filled = total == 0 ? width : done * width / total;
  std::cerr << "[" << std::string(filled, '#') << std::string(width - filled, '.') << "] " << stats << " "
            << fs::path(input).filename().string() << std::flush;
}

std::vector<json> run_pool(const std::vector<job>& jobs, const batch_options& o,
                           const job_runner& run) {
  std::vector<json> reports(jobs.size());
  std::atomic<std::size_t> next{0}, done{0};
  std::mutex io;
  bool tty = isatty(STDERR_FILENO) != 0;
  progress prog;
  auto worker = [&] {
    for (std::size_t i = next++; i < jobs.size(); i = next++) {
      reports[i] = run_isolated(jobs[i], o, run);
      std::lock_guard lock(io);
      ++done;
      if (jobs[i].archive) {
        prog.bytes += jobs[i].archive->a.entries[jobs[i].entry].data.size();
      } else if (!jobs[i].archive_path.empty()) {
        prog.bytes += jobs[i].entry_size;
      } else {
        std::error_code ec;
        const auto size = fs::file_size(jobs[i].input, ec);
        if (!ec) prog.bytes += size;
      }
      print_outcome(jobs[i], reports[i], tty);
      if (jobs.size() > 1) print_progress(prog, done, jobs.size(), jobs[i].input, tty);
    }
  };
  unsigned n = std::max(1u, std::min<unsigned>(o.threads, static_cast<unsigned>(jobs.size())));
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < n; ++t) pool.emplace_back(worker);
  worker();
  for (auto& t : pool) t.join();
  if (tty) std::cerr << "\r\033[K";
  return reports;
}

struct tally {
  std::size_t ok = 0, failed = 0, skipped = 0;
  json failed_inputs = json::array();
};

tally count(const std::vector<json>& reports) {
  tally t;
  for (const auto& r : reports) {
    std::string s = r["status"];
    if (s == "ok")
      ++t.ok;
    else if (s == "failed")
      ++t.failed, t.failed_inputs.push_back(r["input"]);
    else
      ++t.skipped;
  }
  return t;
}

void print_summary(const tally& t) {
  std::cout << fmt::format("converted {}, failed {}, skipped {}\n", t.ok, t.failed, t.skipped);
  for (const auto& f : t.failed_inputs) std::cout << "  failed: " << f.get<std::string>() << "\n";
}

// The report is part of the result: false (after printing why) when it could not be written.
bool write_report(const std::string& path, const tally& t, const std::vector<json>& reports) {
  json rj{{"summary",
           {{"converted", t.ok},
            {"failed", t.failed},
            {"skipped", t.skipped},
            {"failed_inputs", t.failed_inputs}}},
          {"inputs", reports}};
  auto w = save_text(path, text_of(rj, 1) + "\n");
  if (!w) print_error(w.error());
  return w.ok();
}

}  // namespace

result<std::shared_ptr<const archive_input>> archive_for_job(const job& jb) {
  if (jb.archive) return jb.archive;
  static std::mutex m;
  static std::vector<std::pair<std::string, std::shared_ptr<const archive_input>>> recent;  // newest last
  {
    std::lock_guard lock(m);
    for (const auto& [path, in] : recent)
      if (path == jb.archive_path) return in;
  }
  // Opened outside the lock: another worker may be decompressing a different archive.
  auto opened = open_archive_input(jb.archive_path);
  if (!opened) return error{code::io_error, "no longer an archive", jb.archive_path, no_offset, {}};
  if (!opened->ok()) return opened->error();
  std::shared_ptr<const archive_input> in = opened->value();
  if (jb.entry >= in->a.entries.size())
    return error{code::io_error, "the archive changed while converting", jb.archive_path, no_offset, {}};
  std::lock_guard lock(m);
  recent.emplace_back(jb.archive_path, in);
  if (recent.size() > 4) recent.erase(recent.begin());
  return in;
}

void attach_entry(job& jb) {
  auto ref = resolve_entry(jb.input);
  if (!ref) return;
  if (!ref->ok()) {
    jb.failure = std::make_shared<const error>(ref->error());
    return;
  }
  jb.archive = ref->value().in;
  jb.entry = ref->value().entry;
}

std::vector<job> plan_jobs(const std::vector<std::string>& inputs, const std::string& output_dir,
                           const std::string& ext, const std::vector<std::string>& only) {
  std::vector<job> jobs;
  for (const auto& in : inputs) {
    std::error_code ec;
    if (fs::is_directory(in, ec)) {
      add_directory_jobs(in, output_dir, ext, jobs);
    } else if (auto arch = open_archive_input(in)) {
      if (arch->ok()) {
        add_archive_jobs(in, arch->value(), output_dir, ext, only, jobs);
      } else {
        job jb{in, (fs::path(output_dir) / fs::path(in).filename()).string(), false};
        jb.failure = std::make_shared<const error>(arch->error());
        jobs.push_back(std::move(jb));
      }
    } else {
      fs::path o = fs::path(output_dir) / fs::path(in).filename();
      o.replace_extension(ext);
      job jb{in, o.string(), false};
      attach_entry(jb);  // ARCHIVE/inner
      jobs.push_back(std::move(jb));
    }
  }
  separate_shared_outputs(jobs);
  return jobs;
}

bool apply_shard(std::vector<job>& jobs, const std::string& shard) {
  unsigned si = 0, sn = 0;
  char slash = 0, extra = 0;
  if (std::sscanf(shard.c_str(), "%u%c%u%c", &si, &slash, &sn, &extra) != 3 || slash != '/' ||
      sn == 0 || si >= sn) {
    std::cerr << "error: --shard takes I/N with 0 <= I < N, e.g. --shard 0/4\n";
    return false;
  }
  std::stable_sort(jobs.begin(), jobs.end(),
                   [](const job& a, const job& b) { return a.input < b.input; });
  std::vector<job> mine;
  for (std::size_t i = si; i < jobs.size(); i += sn) mine.push_back(jobs[i]);
  jobs = std::move(mine);
  return true;
}

int run_batch(const std::vector<job>& jobs, const batch_options& o, const job_runner& run) {
  auto reports = run_pool(jobs, o, run);
  tally t = count(reports);
  print_summary(t);
  if (!o.report.empty() && !write_report(o.report, t, reports)) return 1;  // no report, no success
  if (jobs.empty() && o.shard.empty()) {  // a shard may be empty: fewer files than shards
    std::cerr << "error: no input files\n";
    return 1;
  }
  return t.failed ? 1 : 0;
}

}  // namespace rigrip::cli
