// The scene reader's parses that borrow the file's bytes (parse_animation_view,
// parse_metastream_view) against the owning parses of the raw layer: the same fields and
// bytes, the same failures (code, message, offset), on the samples and on mutated copies.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "core/failure.hpp"
#include "formats/telltale/anm.hpp"
#include "formats/telltale/decode.hpp"
#include "formats/telltale/metastream.hpp"
#include "formats/telltale/symbols.hpp"
#include "test_support.hpp"

using namespace rigrip;
using namespace rigrip::telltale;
namespace fs = std::filesystem;

namespace {

using view = std::span<const std::uint8_t>;

// Same bytes, and the view lies inside the parsed buffer.
void expect_bytes(const std::vector<std::uint8_t>& own, view v, view file, const std::string& what) {
  ASSERT_EQ(own.size(), v.size()) << what;
  EXPECT_TRUE(std::equal(own.begin(), own.end(), v.begin())) << what;
  if (!v.empty()) {
    EXPECT_GE(v.data(), file.data()) << what;
    EXPECT_LE(v.data() + v.size(), file.data() + file.size()) << what;
  }
}

template <class A, class B>
void expect_stream(const A& a, const B& b, view file, const std::string& what) {
  EXPECT_EQ(a.magic, b.magic) << what;
  ASSERT_EQ(a.classes.size(), b.classes.size()) << what;
  for (std::size_t i = 0; i < a.classes.size(); ++i) {
    EXPECT_EQ(a.classes[i].type, b.classes[i].type) << what;
    EXPECT_EQ(a.classes[i].version, b.classes[i].version) << what;
  }
  EXPECT_EQ(a.default_offset, b.default_offset) << what;
  expect_bytes(a.default_section, b.default_section, file, what + " default");
  expect_bytes(a.debug_section, b.debug_section, file, what + " debug");
  expect_bytes(a.async_section, b.async_section, file, what + " async");
}

void expect_same(const animation_file& a, const animation_view& b, view file, const std::string& what) {
  expect_stream(a.ms, b.ms, file, what);
  EXPECT_EQ(a.version, b.version) << what;
  EXPECT_EQ(a.flags, b.flags) << what;
  EXPECT_EQ(a.name, b.name) << what;
  EXPECT_EQ(a.length_bits, b.length_bits) << what;
  EXPECT_EQ(a.additive_mask_bits, b.additive_mask_bits) << what;
  EXPECT_EQ(a.tool_props, b.tool_props) << what;
  EXPECT_EQ(a.num_values, b.num_values) << what;
  EXPECT_EQ(a.data_buffer_size, b.data_buffer_size) << what;
  ASSERT_EQ(a.types.size(), b.types.size()) << what;
  for (std::size_t i = 0; i < a.types.size(); ++i) {
    EXPECT_EQ(a.types[i].type, b.types[i].type) << what;
    EXPECT_EQ(a.types[i].count, b.types[i].count) << what;
    EXPECT_EQ(a.types[i].version, b.types[i].version) << what;
  }
  ASSERT_EQ(a.values.size(), b.values.size()) << what;
  for (std::size_t i = 0; i < a.values.size(); ++i) {
    const auto& x = a.values[i];
    const auto& y = b.values[i];
    const std::string w = what + " value " + std::to_string(i);
    EXPECT_EQ(x.kind, y.kind) << w;
    EXPECT_EQ(x.offset, y.offset) << w;
    EXPECT_EQ(x.kf_name, y.kf_name) << w;
    EXPECT_EQ(x.kf_flags, y.kf_flags) << w;
    expect_bytes(x.cspk2, y.cspk2, file, w + " cspk2");
    expect_bytes(x.min_value, y.min_value, file, w + " min");
    expect_bytes(x.max_value, y.max_value, file, w + " max");
    ASSERT_EQ(x.samples.size(), y.samples.size()) << w;
    for (std::size_t k = 0; k < x.samples.size(); ++k) {
      EXPECT_EQ(x.samples[k].time_bits, y.samples[k].time_bits) << w;
      EXPECT_EQ(x.samples[k].interpolate, y.samples[k].interpolate) << w;
      EXPECT_EQ(x.samples[k].tangent_mode, y.samples[k].tangent_mode) << w;
      expect_bytes(x.samples[k].value, y.samples[k].value, file, w + " sample");
    }
  }
  expect_bytes(a.opaque_bodies, b.opaque_bodies, file, what + " opaque");
  EXPECT_EQ(a.opaque_first_type, b.opaque_first_type) << what;
  EXPECT_EQ(a.opaque_offset, b.opaque_offset) << what;
  EXPECT_EQ(a.value_flags, b.value_flags) << what;
  EXPECT_EQ(a.no_names, b.no_names) << what;
  EXPECT_EQ(a.value_names, b.value_names) << what;
  EXPECT_EQ(values_to_json(a), values_to_json(b)) << what;
}

// Runs both parses of one buffer: both fail alike or both succeed with equal results.
void check(const std::vector<std::uint8_t>& file, const std::string& what) {
  const view f(file);
  std::optional<animation_file> own;
  std::optional<animation_view> borrowed;
  std::optional<rigrip::error> e1, e2;
  try {
    own = parse_animation(f);
  } catch (const core::failure& x) {
    e1 = x.error();
  }
  try {
    borrowed = parse_animation_view(f);
  } catch (const core::failure& x) {
    e2 = x.error();
  }
  ASSERT_EQ(e1.has_value(), e2.has_value()) << what;
  if (e1) {
    EXPECT_EQ(e1->code, e2->code) << what;
    EXPECT_EQ(e1->message, e2->message) << what;
    EXPECT_EQ(e1->offset, e2->offset) << what;
  } else {
    expect_same(*own, *borrowed, f, what);
  }
  std::optional<metastream> m1;
  std::optional<metastream_view> m2;
  e1.reset();
  e2.reset();
  try {
    m1 = parse_metastream(f);
  } catch (const core::failure& x) {
    e1 = x.error();
  }
  try {
    m2 = parse_metastream_view(f);
  } catch (const core::failure& x) {
    e2 = x.error();
  }
  ASSERT_EQ(e1.has_value(), e2.has_value()) << what;
  if (e1) {
    EXPECT_EQ(e1->code, e2->code) << what;
    EXPECT_EQ(e1->message, e2->message) << what;
    EXPECT_EQ(e1->offset, e2->offset) << what;
  } else {
    expect_stream(*m1, *m2, f, what + " metastream");
  }
}

}  // namespace

TEST(TelltaleViews, ViewParsesEqualOwningParsesOnSamplesAndMutations) {
  auto probe = test::sample("telltale/sk54_idle_crawfordDocDead.anm");
  if (!probe) GTEST_SKIP() << "no Telltale samples";
  const fs::path dir = fs::path(*probe).parent_path();
  std::vector<std::vector<std::uint8_t>> files;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().extension() == ".anm") files.push_back(test::read_bytes(e.path().string()));
  ASSERT_GE(files.size(), 10u);
  std::mt19937 rng(77);
  std::size_t parsed = 0;
  for (std::size_t fi = 0; fi < files.size(); ++fi) {
    check(files[fi], "file " + std::to_string(fi));
    for (int it = 0; it < 60; ++it) {  // truncations and flipped bytes anywhere (headers, counts, sizes)
      auto m = files[fi];
      if (it % 3 == 0) {
        m.resize(std::uniform_int_distribution<std::size_t>(0, m.size())(rng));
      } else {
        // Most flips early on, where the tables and sizes are.
        const std::size_t span = it % 3 == 1 ? std::min<std::size_t>(m.size(), 400) : m.size();
        for (int k = 0; k < 1 + it % 4; ++k)
          m[std::uniform_int_distribution<std::size_t>(0, span - 1)(rng)] ^= static_cast<std::uint8_t>(1 + rng() % 255);
      }
      check(m, "file " + std::to_string(fi) + " mutation " + std::to_string(it));
      try {
        (void)parse_animation_view(m);
        ++parsed;
      } catch (const core::failure&) {
      }
    }
  }
  EXPECT_GT(parsed, 50u);  // the mutations also reach the bodies, not only early failures
}

// ------------------------------------------------------------------ skeleton pairing

namespace {

std::string lower_s(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// pair_skeleton as it was before it read the folder with readdir (fs::directory_iterator,
// a path per entry): the reference the fast folder scan must equal.
std::string pair_skeleton_reference(const std::string& anm_path, std::string* note) {
  fs::path p(anm_path);
  std::string ls = lower_s(p.stem().string());
  if (ls.size() < 5 || ls.compare(0, 2, "sk") || !std::isdigit(static_cast<unsigned char>(ls[2])) ||
      !std::isdigit(static_cast<unsigned char>(ls[3])) || ls[4] != '_') {
    if (note) *note = "'" + p.filename().string() + "' does not follow the skNN_<character> naming rule; no skeleton paired (use --skeleton)";
    return {};
  }
  std::string prefix = ls.substr(0, 5);
  std::string rest = ls.substr(5);
  for (std::size_t i = 0; i + 6 <= rest.size(); ++i)
    if (rest[i] == '_' && rest[i + 1] == 's' && rest[i + 2] == 'k' && std::isdigit(static_cast<unsigned char>(rest[i + 3])) &&
        std::isdigit(static_cast<unsigned char>(rest[i + 4])) && rest[i + 5] == '_') {
      rest.resize(i);
      break;
    }
  std::error_code ec;
  fs::path dir = p.has_parent_path() ? p.parent_path() : fs::path(".");
  std::vector<std::pair<std::size_t, std::string>> found;
  for (auto it = fs::directory_iterator(dir, ec); !ec && it != fs::directory_iterator(); it.increment(ec)) {
    if (!it->is_regular_file(ec)) continue;
    std::string fn = it->path().filename().string();
    if (!(fn.size() >= 4 && lower_s(fn.substr(fn.size() - 4)) == ".skl")) continue;
    std::string ks = lower_s(it->path().stem().string());
    if (ks.size() <= 5 || ks.compare(0, 5, prefix)) continue;
    std::string ch = ks.substr(5);
    bool match = rest.compare(0, ch.size(), ch) == 0 || rest.find("_" + ch) != std::string::npos;
    if (match) found.emplace_back(ch.size(), it->path().string());
  }
  if (found.empty()) {
    if (note)
      *note = "no " + prefix + "<character>.skl next to '" + p.filename().string() +
              "' (naming rule); exporting without a skeleton (use --skeleton)";
    return {};
  }
  std::sort(found.begin(), found.end(), [](const auto& a, const auto& b) { return a.first != b.first ? a.first > b.first : a.second < b.second; });
  if (found.size() > 1 && found[0].first == found[1].first && note)
    *note = "several skeletons match '" + p.filename().string() + "'; using " + found[0].second;
  return found[0].second;
}

}  // namespace

TEST(TelltaleViews, PairSkeletonFolderScanEqualsDirectoryIterator) {
  const fs::path root = fs::path(test::out_path("telltale/pairing_scan"));
  std::error_code ec;
  fs::remove_all(root, ec);
  fs::create_directories(root / "sub");
  auto touch = [&](const std::string& n) { std::ofstream(root / n) << "x"; };
  for (const char* n : {"sk62_clementine.skl", "sk62_clementine400.SKL", "SK62_Clem.skl", "sk62_hood.skl", "sk62_.skl",
                        "sk62_c.skl", "sk61_zombie400.skl", "sk61_zombie.skl", "sk61_zombie400.skl.bak", ".skl",
                        "sk62_clementine400standa.skl", "sk62_x.sklx", "sk62_clementine400.anm", "sk6_a.skl", "sk62_ac.skl",
                        "sk62_action.skl", "sk62_clementine400killzombie.skl"})
    touch(n);
  fs::create_directories(root / "sk62_clementine40.skl");  // a folder named like a skeleton
  fs::create_symlink(root / "sk62_hood.skl", root / "sk62_clementine4.skl", ec);   // a link to a file
  fs::create_symlink(root / "missing.skl", root / "sk62_clementin.skl", ec);      // a broken link
  fs::create_directory_symlink(root / "sub", root / "sk62_clemen.skl", ec);      // a link to a folder
  const std::string names[] = {"sk62_clementine400StandA_talkWithHandsGestureB.anm",
                               "sk62_action_clementine400KillZombieWithKnifeTwoHit05.anm",
                               "sk61_zombie400_sk62_action_clementine400KillZombie.anm",
                               "sk62_clementine_hoodDown.anm",
                               "sk62_.anm",
                               "sk62_c.anm",
                               "sk63_nobody.anm",
                               "notarig.anm",
                               "SK62_CLEMENTINE400standA.ANM",
                               "sk62_hood.anm",
                               "sk62_clementine4x.anm",     // best match: the link to a file
                               "sk62_clementin_x.anm",      // the broken link would win
                               "sk62_clemen_x.anm",         // the link to a folder would win
                               "sk62_clementine40x.anm"};   // the folder would win
  std::size_t paired = 0;
  for (const auto& n : names)
    for (const fs::path& d : {root, root / "sub", root / "none"}) {
      const std::string path = (d / n).string();
      std::string note_a, note_b;
      const std::string a = pair_skeleton(path, &note_a);
      const std::string b = pair_skeleton_reference(path, &note_b);
      EXPECT_EQ(a, b) << path;
      EXPECT_EQ(note_a, note_b) << path;
      paired += !a.empty();
    }
  EXPECT_GE(paired, 5u);
  fs::remove_all(root, ec);
}

// ------------------------------------------------------------------ symbol lookup

TEST(TelltaleViews, SymbolIndexEqualsBinarySearchAndHexDigits) {
  const auto syms = detail::symbol_database_symbols();
  ASSERT_GT(syms.size(), 1000u);
  std::mt19937_64 rng(5);
  std::vector<std::uint64_t> probe = syms;
  for (auto s : syms) {  // near misses: neighbours in value and in the low (slot) bits
    probe.push_back(s + 1);
    probe.push_back(s ^ (1ull << 40));
    probe.push_back(s ^ 1ull);
  }
  for (int i = 0; i < 20000; ++i) probe.push_back(rng());
  probe.push_back(0);
  probe.push_back(~0ull);
  std::size_t known = 0;
  for (auto s : probe) {
    const auto a = symbol_name(s);
    const auto b = detail::symbol_name_by_search(s);
    ASSERT_EQ(a.has_value(), b.has_value()) << std::hex << s;
    if (a) {
      EXPECT_EQ(*a, *b);
      ++known;
    }
    char want[17];
    std::snprintf(want, sizeof want, "%016llx", static_cast<unsigned long long>(s));
    EXPECT_EQ(hex16(s), std::string(want));
    EXPECT_EQ(symbol_label(s), a ? *a : std::string(want));
  }
  EXPECT_GE(known, syms.size());
}
