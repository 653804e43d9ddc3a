// libFuzzer target for the LGP archive reader (FF7 PC's battle.lgp, char.lgp ...).
// Any input must either fail cleanly (core::failure with a message) or parse; what parses
// must write back byte for byte, dump to JSON, and its readable entries must build a new
// archive that parses without problems and gives the same entries back.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "containers/lgp.hpp"
#include "core/failure.hpp"

namespace lgp = rigrip::containers::lgp;

namespace {
[[noreturn]] void die(const char* what) {
  std::fprintf(stderr, "lgp: %s\n", what);
  std::abort();
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::span<const std::uint8_t> in(data, size);
  lgp::archive a;
  try {
    (void)lgp::has_signature(in);
    a = lgp::parse(in);
  } catch (const rigrip::core::failure& f) {
    if (f.error().message.empty()) die("failure without a message");
    return 0;
  }
  if (lgp::serialise(a) != std::vector<std::uint8_t>(in.begin(), in.end())) die("serialise(parse(x)) != x");
  (void)lgp::to_json(a).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  std::vector<lgp::file> files;
  std::vector<std::span<const std::uint8_t>> datas;
  for (std::size_t i = 0; i < a.toc.size() && i < 64; ++i) {
    if (a.toc[i].problem) continue;
    auto d = lgp::entry_data(a, i);
    files.push_back({"e" + std::to_string(i), d, a.toc[i].check});
    datas.push_back(d);
  }
  const auto built = lgp::build(files);
  auto rebuilt = lgp::parse(built);  // (records are views into `built`)
  if (!rebuilt.warnings.empty() || rebuilt.toc.size() != files.size()) die("rebuilt archive has warnings");
  for (std::size_t i = 0; i < rebuilt.toc.size(); ++i) {
    auto d = lgp::entry_data(rebuilt, i);
    std::size_t k = std::stoul(rebuilt.toc[i].name.substr(1));
    std::size_t j = 0;
    while (j < files.size() && files[j].path != "e" + std::to_string(k)) ++j;
    if (j == files.size() || !std::equal(d.begin(), d.end(), datas[j].begin(), datas[j].end()))
      die("rebuilt archive gives other data");
  }
  return 0;
}
