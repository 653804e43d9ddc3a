// The batch runner: many inputs, one job each, on a pool of worker threads, with progress,
// per-input isolation (one bad file never takes the others down), a summary and a JSON report.
#pragma once

#include <algorithm>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "cli/archive_input.hpp"
#include "cli/common.hpp"

namespace rigrip::cli {

struct job {
  std::string input;
  std::string output;
  bool from_directory = false;  // unknown files found by directory walk are skipped, not failed
  // An archive entry ("battle.lgp/rtda"): the opened archive and the entry's index.
  std::shared_ptr<const archive_input> archive;
  std::size_t entry = 0;
  // An entry of an archive found by a directory walk: the archive is opened when the job
  // runs (archive_for_job), not held from planning on, so a game's thousands of packs do
  // not all sit in memory at once. `entry` is its index; `entry_size` its bytes.
  std::string archive_path;
  std::uint64_t entry_size = 0;
  std::shared_ptr<const error> failure;  // the input could not even be opened (a broken archive)
};

// The archive a job's entry lives in: its own, or the directory walk's archive opened now
// (the last few opened are kept, as a walk's entries of one archive run one after another).
[[nodiscard]] result<std::shared_ptr<const archive_input>> archive_for_job(const job& jb);

struct batch_options {
  unsigned threads = std::max(1u, std::thread::hardware_concurrency());
  std::string report;          // path of the JSON report; empty: none
  bool skip_existing = false;  // inputs whose output exists are skipped
  std::string shard;           // "I/N": only the I-th (0-based) of N shares of the sorted inputs
};

// --shard I/N: the inputs sorted by path, every N-th from the I-th, so N machines given the
// same arguments convert disjoint sets that together cover all inputs. False (after printing
// why) when `shard` is not I/N with 0 <= I < N.
[[nodiscard]] bool apply_shard(std::vector<job>& jobs, const std::string& shard);

// One job per input file: directories are walked recursively (sorted), every output goes under
// output_dir with extension ext (".glb"), keeping the relative path of directory inputs.
// An archive (LGP, SARC) is expanded like a folder: one job per entry (those whose inner path
// matches a glob of `only`, when given), output under output_dir keeping the inner folders.
// "ARCHIVE/inner" names one entry.
[[nodiscard]] std::vector<job> plan_jobs(const std::vector<std::string>& inputs,
                                         const std::string& output_dir, const std::string& ext,
                                         const std::vector<std::string>& only = {});
// Fills job.archive/entry (or job.failure) when job.input names an archive entry.
void attach_entry(job& jb);

// Converts one input and returns its report entry: "input", "output", "status" ("ok",
// "failed" with "error", or "skipped" with "reason"), optionally "warnings" and more.
using job_runner = std::function<json(const job&)>;

// Runs every job, prints each outcome, a progress bar on a terminal and a summary, writes the
// report. Returns the exit code: 1 when any input failed, there was none or the report could
// not be written, else 0.
[[nodiscard]] int run_batch(const std::vector<job>& jobs, const batch_options& o,
                            const job_runner& run);

}  // namespace rigrip::cli
