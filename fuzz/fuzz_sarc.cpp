// libFuzzer target for the SARC archive reader (Nintendo .pack/.sbactorpack/.szs inner
// archives). Any input either fails cleanly (core::failure with a message) or parses; what
// parses must write back byte for byte, and its entries rebuilt by our writer (in the same
// byte order) must parse again and give the same names and bytes. A Yaz0 stream is opened
// first (as the registry does for .sbactorpack/.szs), so compressed packs seed it too.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "containers/sarc.hpp"
#include "containers/yaz0.hpp"
#include "core/failure.hpp"

namespace sarc = rigrip::containers::sarc;

namespace {
[[noreturn]] void die(const char* what) {
  std::fprintf(stderr, "sarc: %s\n", what);
  std::abort();
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::vector<std::uint8_t> in(data, data + size);
  sarc::archive a;
  try {
    if (rigrip::containers::is_yaz0(in)) {
      auto payload = rigrip::containers::yaz0_decompress(in);
      if (payload.size() > (16u << 20)) return 0;
      in = std::move(payload);
    }
    (void)sarc::is_sarc(in);
    a = sarc::parse(in);
  } catch (const rigrip::core::failure& f) {
    if (f.error().message.empty()) die("failure without a message");
    return 0;
  }
  if (sarc::serialise(a) != in) die("serialise(parse(x)) != x");
  std::vector<sarc::build_file> files;
  for (std::size_t i = 0; i < a.entries.size() && i < 64; ++i) {
    if (!a.entries[i].name || a.entries[i].name->empty()) continue;
    bool dup = false;
    for (const auto& f : files) dup = dup || f.name == *a.entries[i].name;
    if (dup) continue;
    auto d = a.data(i);
    files.push_back({*a.entries[i].name, std::vector<std::uint8_t>(d.begin(), d.end()), 0});
  }
  sarc::archive b;
  try {
    b = sarc::parse(sarc::build(files, a.little_endian, a.multiplier));
  } catch (const rigrip::core::failure&) {
    die("our writer's archive does not parse");
  }
  if (b.entries.size() != files.size()) die("rebuilt archive has another file count");
  for (std::size_t i = 0; i < b.entries.size(); ++i) {
    auto it = std::find_if(files.begin(), files.end(), [&](const auto& f) { return b.entries[i].name && f.name == *b.entries[i].name; });
    auto d = b.data(i);
    if (it == files.end() || !std::equal(d.begin(), d.end(), it->data.begin(), it->data.end())) die("rebuilt archive gives other data");
  }
  return 0;
}
