// The in-process mutation campaign: shared by the parameterised per-file tests and the
// closing summary. See docs/fuzzing.md for the bounds and how to reproduce a failure.
#pragma once

#include <cstdint>
#include <map>
#include <ostream>
#include <string>
#include <vector>

#include "mutate.hpp"

namespace hostile {

// Per format id (or "auto" for inputs no format recognised).
struct tally {
  std::uint64_t runs = 0;            // mutated (or original) inputs put through every entry point
  std::uint64_t valid_outputs = 0;   // read + glTF write succeeded
  std::uint64_t clean_errors = 0;    // read failed with a clean error value
  std::uint64_t errors_with_offset = 0;
  std::uint64_t ops = 0;             // individual entry-point calls (detect, read, write, dump_raw, rewrite)
  std::uint64_t failures = 0;        // internal errors, empty messages, slow runs, memory violations
  double seconds = 0;
  std::uint64_t budget_cut = 0;      // subjects whose plan the time budget cut short
  std::int64_t peak_bytes = 0;       // highest peak over the runs
  double slowest_op = 0;             // seconds, the slowest single entry-point call
  void add(const tally& o);
};

// Every input the campaign mutates: shared samples, examples/, committed regressions.
struct input_file {
  std::string path;
  std::string test_name;  // gtest-safe
};
std::vector<input_file> campaign_inputs();
inline void PrintTo(const input_file& f, std::ostream* os) { *os << f.path; }

struct file_result {
  std::map<std::string, tally> by_format;
  std::vector<std::string> failures;  // descriptions, each enough to reproduce
};
file_result run_campaign(const std::string& path, double scale);

// Limits stated in docs/fuzzing.md.
std::int64_t memory_bound(std::size_t input_size);
double time_bound_seconds(std::size_t input_size);
// Per-file campaign time budget when RIGRIP_HOSTILE_BUDGET is not set: the total budget
// (RIGRIP_HOSTILE_TOTAL_BUDGET, default 300 s, x RIGRIP_HOSTILE_SCALE) over the input files.
double default_budget_seconds();
double total_budget_seconds();
// The budget run_campaign used for its last file (0 = none).
double& last_budget_seconds();

// Accumulated over the tests run by this process (printed at exit).
std::map<std::string, tally>& process_totals();
std::uint64_t& process_failures();

}  // namespace hostile
