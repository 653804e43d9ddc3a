// hostile.Mutation.*: the mutation campaign over every shared sample, every file under
// examples/ and every committed regression input, one test per file (so CTest runs them
// in parallel and names the file that failed). RIGRIP_HOSTILE_SCALE=N multiplies the
// number of mutations (long campaign); RIGRIP_HOSTILE_ONLY='<key>:<kind>:<index>' runs one.
#include <gtest/gtest.h>

#include <cstdio>
#include <algorithm>
#include <cstdlib>
#include <string>

#include "campaign.hpp"

namespace {

double scale_from_env() {
  const char* s = std::getenv("RIGRIP_HOSTILE_SCALE");
  if (!s || !*s) return 1.0;
  double v = std::atof(s);
  return v > 0 ? v : 1.0;
}

void print_row(const std::string& fmt, const hostile::tally& t, const char* prefix = "hostile") {
  std::printf("%s: %-14s runs %7llu  valid outputs %6llu  clean errors %7llu (with offset %7llu)  "
              "failures %llu  peak %.1f MiB  slowest call %.3f s  %.1f s%s\n",
              prefix, fmt.c_str(), static_cast<unsigned long long>(t.runs), static_cast<unsigned long long>(t.valid_outputs),
              static_cast<unsigned long long>(t.clean_errors), static_cast<unsigned long long>(t.errors_with_offset),
              static_cast<unsigned long long>(t.failures), static_cast<double>(t.peak_bytes) / (1 << 20), t.slowest_op, t.seconds,
              t.budget_cut ? "  (time budget reached)" : "");
}

// Closing line(s): the totals of every campaign test this process ran.
class totals_printer : public ::testing::Environment {
 public:
  void TearDown() override {
    auto& totals = hostile::process_totals();
    if (totals.empty()) return;
    hostile::tally all;
    for (const auto& [fmt, t] : totals) {
      print_row(fmt, t, "hostile-total");
      all.add(t);
    }
    std::printf("hostile-total: ALL runs %llu, valid outputs %llu, clean errors %llu, crashes 0, hangs/slow, "
                "memory or unclean-error failures %llu\n",
                static_cast<unsigned long long>(all.runs), static_cast<unsigned long long>(all.valid_outputs),
                static_cast<unsigned long long>(all.clean_errors),
                static_cast<unsigned long long>(hostile::process_failures()));
    std::fflush(stdout);
  }
};
const auto* const g_env = ::testing::AddGlobalTestEnvironment(new totals_printer);

class Mutation : public ::testing::TestWithParam<hostile::input_file> {};

TEST_P(Mutation, EveryRunEndsInOutputOrCleanError) {
  const auto& in = GetParam();
  auto r = hostile::run_campaign(in.path, scale_from_env());
  hostile::tally all;
  for (const auto& [fmt, t] : r.by_format) {
    print_row(fmt, t);
    all.add(t);
    hostile::process_totals()[fmt].add(t);
  }
  hostile::process_failures() += r.failures.size();
  std::size_t shown = 0;
  for (const auto& f : r.failures) {
    if (shown++ == 25) {
      std::printf("hostile: ... %zu more\n", r.failures.size() - 25);
      break;
    }
    ADD_FAILURE() << f;
  }
  EXPECT_EQ(r.failures.size(), 0u) << in.path;
  EXPECT_GT(all.runs, 0u);
  // The budget holds: the mutation loop stops once its share is spent, give or take the
  // rounds in flight (each round is at most 4 calls, and a floor of 8 rounds always runs).
  if (const double b = hostile::last_budget_seconds(); b > 0) {
    const double slack = 9 * 4 * std::max(all.slowest_op, 0.01) + 1.0;
    EXPECT_LE(all.seconds, b + slack) << in.path << ": campaign budget " << b << " s overrun";
  }
}

INSTANTIATE_TEST_SUITE_P(Inputs, Mutation, ::testing::ValuesIn(hostile::campaign_inputs()),
                         [](const ::testing::TestParamInfo<hostile::input_file>& i) { return i.param.test_name; });
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(Mutation);

}  // namespace
