// hostile.Cli.*: the real binary on mutated files, and the generated diagnostics catalogue.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "campaign.hpp"
#include "mutate.hpp"
#include "test_support.hpp"

namespace fs = std::filesystem;

namespace {

struct proc {
  int exit_code = -1;  // -1: killed by a signal
  int signal = 0;
  std::string out;
};

proc run_capture(const std::string& command) {
  proc p;
  std::string cmd = command + " 2>&1";
  FILE* pipe = popen(cmd.c_str(), "r");
  if (!pipe) return p;
  std::array<char, 4096> buf;
  while (std::fgets(buf.data(), static_cast<int>(buf.size()), pipe)) p.out += buf.data();
  int status = pclose(pipe);
  if (WIFEXITED(status)) {
    p.exit_code = WEXITSTATUS(status);
    // The shell reports a signal death of its child as 128 + signal.
    if (p.exit_code > 128) p.signal = p.exit_code - 128;
  } else if (WIFSIGNALED(status)) {
    p.signal = WTERMSIG(status);
  }
  return p;
}

std::string read_text(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// A few hundred mutated copies of the samples and examples, each in its own folder under
// its original file name (detection by name keeps working), converted in one batch.
TEST(Cli, BatchOfMutatedFilesFailsCleanlyAndLeavesNoPartialOutput) {
  auto inputs = hostile::campaign_inputs();
  if (inputs.empty()) GTEST_SKIP() << "no samples or examples";
  fs::path root = rigrip::test::out_path("hostile-cli");
  fs::remove_all(root);
  fs::path in_dir = root / "in", out_dir = root / "out";
  fs::create_directories(in_dir);

  const std::size_t target = 300;
  const std::size_t per_file = std::max<std::size_t>(4, target / inputs.size());
  std::size_t written = 0;
  for (std::size_t fi = 0; fi < inputs.size(); ++fi) {
    auto data = rigrip::test::read_bytes(inputs[fi].path);
    std::string name = fs::path(inputs[fi].path).filename().string();
    // Large files cost a lot under ASan: fewer copies of them.
    std::size_t copies = data.size() > (1u << 20) ? 2 : per_file;
    auto trunc = hostile::truncation_lengths(data.size(), 64);
    for (std::size_t i = 0; i < copies; ++i) {
      auto k = static_cast<hostile::kind>(i % 3);
      std::size_t index = k == hostile::kind::truncate ? (i * 7) % std::max<std::size_t>(trunc.size(), 1)
                          : k == hostile::kind::field ? hostile::header_sweep_runs(data.size()) + i
                                                      : i;
      auto m = hostile::mutate(data, name, k, index, trunc);
      fs::path d = in_dir / (inputs[fi].test_name + "_" + std::to_string(i));
      rigrip::test::write_bytes((d / name).string(), m);
      ++written;
    }
  }

  fs::path report = root / "report.json";
  // Keep a runaway reader from taking the machine with it: the address space is capped
  // (unsanitized), or the sanitizer's own RSS / allocation-size limits are set.
#if defined(__SANITIZE_ADDRESS__)
  const std::string guard = "ASAN_OPTIONS=detect_leaks=0:hard_rss_limit_mb=4096:max_allocation_size_mb=3072 ";
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
  const std::string guard = "ASAN_OPTIONS=detect_leaks=0:hard_rss_limit_mb=4096:max_allocation_size_mb=3072 ";
#else
  const std::string guard = "ulimit -v 8388608; ";
#endif
#else
  const std::string guard = "ulimit -v 8388608; ";
#endif
  auto p = run_capture(guard + "'" + RIGRIP_CLI + "' convert '" + in_dir.string() + "' -o '" +
                       out_dir.string() + "' -j 2 --report '" + report.string() + "'");
  ASSERT_EQ(p.signal, 0) << "rigrip died of signal " << p.signal << "\n" << p.out.substr(0, 20000);
  ASSERT_TRUE(p.exit_code == 0 || p.exit_code == 1) << "exit " << p.exit_code << "\n" << p.out.substr(0, 20000);
  EXPECT_EQ(p.out.find("AddressSanitizer"), std::string::npos) << p.out.substr(0, 20000);
  EXPECT_EQ(p.out.find("runtime error"), std::string::npos) << p.out.substr(0, 20000);

  std::istringstream lines(p.out);
  std::vector<std::string> error_lines;
  for (std::string l; std::getline(lines, l);) {
    if (l.rfind("error: ", 0) == 0) error_lines.push_back(l);
    EXPECT_EQ(l.find(": E_INTERNAL"), std::string::npos) << "unclean error: " << l;
  }
  // The report is checked when it exists; the files on disk are checked in any case, so a
  // lost report does not hide a partial output.
  nlohmann::json rj;
  if (fs::exists(report))
    rj = nlohmann::json::parse(read_text(report));
  else
    ADD_FAILURE() << "--report file not written";
  std::map<std::string, nlohmann::json> by_input;
  if (rj.contains("inputs"))
    for (const auto& r : rj["inputs"]) by_input[r["input"].get<std::string>()] = r;

  std::size_t ok = 0, failed = 0, skipped = 0;
  for (const auto& d : fs::directory_iterator(in_dir)) {
    fs::path input = *fs::directory_iterator(d.path());
    fs::path output = out_dir / fs::relative(input, in_dir);
    output.replace_extension(".glb");
    std::string in_s = input.string();
    std::size_t n_err = std::count_if(error_lines.begin(), error_lines.end(), [&](const std::string& l) {
      return l.find(in_s + ":") != std::string::npos || l.find(in_s + " @ ") != std::string::npos;
    });
    if (fs::exists(output)) {
      ++ok;
      EXPECT_EQ(n_err, 0u) << in_s << " failed but left " << output;
      // A complete GLB: magic and a total length equal to the file size.
      auto b = rigrip::test::read_bytes(output.string());
      ASSERT_GE(b.size(), 12u) << output;
      EXPECT_EQ(std::string(b.begin(), b.begin() + 4), "glTF") << output;
      std::uint32_t len = b[8] | b[9] << 8 | b[10] << 16 | static_cast<std::uint32_t>(b[11]) << 24;
      EXPECT_EQ(len, b.size()) << output;
    } else if (n_err) {
      ++failed;
      EXPECT_EQ(n_err, 1u) << "expected one error line for " << in_s;
      auto it = std::find_if(error_lines.begin(), error_lines.end(),
                             [&](const std::string& l) { return l.find(in_s) != std::string::npos; });
      EXPECT_TRUE(std::regex_search(*it, std::regex(": [EW]_[A-Z_]+( \\[[a-z0-9-]+\\])?: ."))) << *it;
      if (by_input.count(in_s)) {
        const auto& r = by_input[in_s];
        EXPECT_EQ(r["status"], "failed") << in_s;
        EXPECT_NE(it->find(r["error"]["code"].get<std::string>()), std::string::npos) << *it;
      }
    } else {
      ++skipped;
      if (by_input.count(in_s)) EXPECT_EQ(by_input[in_s]["status"], "skipped") << in_s;
    }
  }
  // No temporary files of the atomic writer survive.
  std::size_t temps = 0;
  std::error_code ec;
  if (fs::exists(out_dir))
    for (const auto& e : fs::recursive_directory_iterator(out_dir, ec))
      if (e.path().filename().string().find(".rigrip-tmp-") != std::string::npos) ++temps;
  EXPECT_EQ(temps, 0u);
  EXPECT_EQ(ok + failed + skipped, written);
  EXPECT_EQ(p.exit_code, failed ? 1 : 0);
  std::printf("hostile-cli: %zu mutated files: converted %zu, failed cleanly %zu, skipped (not recognised) %zu, "
              "crashes 0, partial files 0\n",
              written, ok, failed, skipped);
}

// docs/diagnostics.md is generated from the catalogue in include/rigrip/error.hpp; this
// keeps the committed file from drifting. Regenerate with:
//   build/rigrip diagnostics --markdown > docs/diagnostics.md
TEST(Diagnostics, CommittedDocMatchesGeneratedCatalogue) {
  auto p = run_capture(std::string("'") + RIGRIP_CLI + "' diagnostics --markdown");
  ASSERT_EQ(p.exit_code, 0) << p.out;
  std::string committed = read_text(fs::path(RIGRIP_SOURCE_DIR) / "docs/diagnostics.md");
  EXPECT_EQ(committed, p.out) << "docs/diagnostics.md is stale: regenerate it with "
                                 "`rigrip diagnostics --markdown > docs/diagnostics.md`";
}

}  // namespace
