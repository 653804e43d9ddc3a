// Issue 16, memory: the peak RSS of converting the largest shared sample to .glb stays
// within a small multiple of its decoded scene (docs/performance.md, "Memory bound").
// The conversion runs in a child process (the real CLI); its peak comes from wait4's
// rusage (ru_maxrss). The fixed cost of the process (binary, libraries, allocator) is the
// peak of a child that converts nothing (`rigrip formats`) and is subtracted first.
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

#include "rigrip/registry.hpp"
#include "test_support.hpp"

using namespace rigrip;
namespace fs = std::filesystem;

namespace {

// Peak RSS in bytes of the CLI run with `args`, or -1 when it could not run or failed.
long long child_peak_rss(const std::vector<std::string>& args) {
  pid_t pid = fork();
  if (pid < 0) return -1;
  if (pid == 0) {
    std::vector<char*> argv;
    std::string cli = RIGRIP_CLI;
    argv.push_back(cli.data());
    std::vector<std::string> copy = args;
    for (auto& a : copy) argv.push_back(a.data());
    argv.push_back(nullptr);
    if (FILE* f = std::freopen("/dev/null", "w", stdout)) (void)f;
#if defined(__SANITIZE_ADDRESS__)
    // ASan keeps freed blocks in a quarantine (256 MB by default), which measures the
    // sanitizer, not us; without it redzones and shadow remain (the larger factor below).
    setenv("ASAN_OPTIONS", "detect_leaks=0:quarantine_size_mb=0:malloc_context_size=0", 1);
#endif
    execv(cli.c_str(), argv.data());
    _exit(127);
  }
  int status = 0;
  rusage ru{};
  if (wait4(pid, &status, 0, &ru) != pid) return -1;
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) return -1;
  return static_cast<long long>(ru.ru_maxrss) * 1024;  // Linux: kilobytes
}

// bones x 40 bytes x frames at the source rate (the measure the benchmarks report).
double pose_bytes(const scene& s) {
  double total = 0;
  for (const auto& a : s.animations) {
    if (a.skeleton < 0 || static_cast<std::size_t>(a.skeleton) >= s.skeletons.size()) continue;
    double frames = std::floor(a.duration * a.fps.value_or(30.0) + 0.5) + 1;
    total += static_cast<double>(s.skeletons[static_cast<std::size_t>(a.skeleton)].bones.size()) * 40.0 * frames;
  }
  return total;
}

#if defined(__SANITIZE_ADDRESS__)
constexpr double bound_factor = 24;  // ASan: redzones, quarantine and shadow memory
constexpr const char* build_kind = "ASan";
#else
constexpr double bound_factor = 8;
constexpr const char* build_kind = "plain";
#endif

}  // namespace

TEST(PeakRss, LargestSampleConvertWithinBound) {
  RIGRIP_REQUIRE_SAMPLE(path, "bfres/Animal_Dog_Animation.bfres");
  diagnostics d;
  auto s = read_scene(path, {}, d);
  ASSERT_TRUE(s.ok()) << s.error().to_string();
  double poses = pose_bytes(*s);
  ASSERT_GT(poses, 1e6);
  std::string out = test::out_path("peak_rss_dog.glb");
  long long base = child_peak_rss({"formats"});
  long long peak = child_peak_rss({"convert", path, "-o", out});
  ASSERT_GT(base, 0) << "rigrip formats did not run";
  ASSERT_GT(peak, 0) << "rigrip convert failed";
  EXPECT_TRUE(fs::exists(out));
  double extra = static_cast<double>(peak - base);
  std::printf("peak RSS %.1f MB, process baseline %.1f MB, decoded poses %.1f MB: %.2fx (bound %.0fx, %s build)\n",
              static_cast<double>(peak) / 1e6, static_cast<double>(base) / 1e6, poses / 1e6, extra / poses,
              bound_factor, build_kind);
  EXPECT_LE(extra, bound_factor * poses);
}
