// LGP raw layer: the public test archive, hand-built bytes, our writer's tables, hostile input.
#include <gtest/gtest.h>

#include <random>

#include "containers/lgp.hpp"
#include "core/byte_reader.hpp"
#include "rigrip/registry.hpp"
#include "test_support.hpp"

namespace {
using namespace rigrip;
namespace lgp = rigrip::containers::lgp;
using byte_vec = std::vector<std::uint8_t>;

byte_vec bytes_of(std::string_view s) { return byte_vec(s.begin(), s.end()); }
std::string text_of(std::span<const std::uint8_t> b) { return std::string(b.begin(), b.end()); }

bool has_warning(const lgp::archive& a, code c, const std::string& part) {
  for (const auto& w : a.warnings)
    if (w.code == c && w.message.find(part) != std::string::npos) return true;
  return false;
}

// An archive written field by field from the layout (not with lgp::build): header, TOC,
// lookup + conflict tables, file records, terminator.
struct hand_entry {
  std::string name;
  std::string data;
};
byte_vec hand_built(const std::vector<hand_entry>& files, bool tables = true) {
  core::byte_writer w;
  w.fill(2);
  w.string("SQUARESOFT", false);
  w.u32(static_cast<std::uint32_t>(files.size()));
  std::uint32_t at = 16 + 27 * static_cast<std::uint32_t>(files.size()) + (tables ? 3602 : 0);
  for (const auto& f : files) {
    byte_vec name(20, 0);
    std::copy(f.name.begin(), f.name.end(), name.begin());
    w.bytes(name);
    w.u32(at);
    w.u8(14);
    w.u16(0);
    at += 24 + static_cast<std::uint32_t>(f.data.size());
  }
  if (tables) {
    std::vector<std::pair<std::uint16_t, std::uint16_t>> lookup(900);
    for (std::size_t i = 0; i < files.size(); ++i) {
      auto v = [](char c) { return c >= '0' && c <= '9' ? c - '0' : c - 'a'; };
      std::size_t slot = v(files[i].name[0]) * 30 + v(files[i].name[1]) + 1;
      if (lookup[slot].second == 0) lookup[slot].first = static_cast<std::uint16_t>(i + 1);
      ++lookup[slot].second;
    }
    for (auto [first, count] : lookup) w.u16(first), w.u16(count);
    w.u16(0);
  }
  for (const auto& f : files) {
    byte_vec name(20, 0);
    std::copy(f.name.begin(), f.name.end(), name.begin());
    w.bytes(name);
    w.u32(static_cast<std::uint32_t>(f.data.size()));
    w.string(f.data, false);
  }
  w.string("FINAL FANTASY7", false);
  return w.take();
}

TEST(Lgp, ReferenceArchiveListsExtractsAndRewrites) {
  RIGRIP_REQUIRE_SAMPLE(path, "ff7/lgp/reference.lgp");
  auto data = test::read_bytes(path);
  ASSERT_EQ(data.size(), 160u);
  auto a = lgp::parse(data);
  ASSERT_EQ(a.toc.size(), 2u);
  EXPECT_EQ(a.toc[0].name, "Filename 1");
  EXPECT_EQ(a.toc[1].name, "max length filename!");  // 20 bytes, no NUL
  EXPECT_EQ(a.toc[1].name.size(), lgp::name_size);
  EXPECT_EQ(text_of(lgp::entry_data(a, 0)), "data of file 1 for test!");
  EXPECT_EQ(text_of(lgp::entry_data(a, 1)), "content2");
  EXPECT_EQ(a.toc[0].check, 14);
  // This test archive has no lookup table: the 10 bytes before the first file are kept.
  EXPECT_FALSE(a.tables);
  EXPECT_EQ(a.raw_tables.size(), 10u);
  EXPECT_TRUE(has_warning(a, code::w_opaque_data, "no lookup table"));
  EXPECT_TRUE(a.terminator.empty());
  EXPECT_EQ(lgp::serialise(a), data);

  // Through the registry: an archive, its two entries, rewrite identical.
  diagnostics d;
  auto ar = open_archive(data, path, d);
  ASSERT_TRUE(ar) << ar.error().to_string();
  EXPECT_EQ(ar->kind->id, "lgp");
  ASSERT_EQ(ar->entries.size(), 2u);
  EXPECT_EQ(ar->entries[1].name, "max length filename!");
  EXPECT_EQ(text_of(ar->entries[1].data), "content2");
  auto rw = rewrite(data, path, {}, d);
  ASSERT_TRUE(rw) << rw.error().to_string();
  EXPECT_EQ(rw.value(), data);
  auto f = detect_format(data, path);
  ASSERT_FALSE(f);
  EXPECT_NE(f.error().message.find("lgp archive"), std::string::npos);
}

TEST(Lgp, HandBuiltBytesParse) {
  auto data = hand_built({{"rtaa", "skeleton"}, {"rtda", "anims!"}, {"aaaa.hrc", "hrc text"}});
  auto a = lgp::parse(data);
  EXPECT_TRUE(a.tables);
  EXPECT_TRUE(a.warnings.empty()) << a.warnings[0].message;
  ASSERT_EQ(a.toc.size(), 3u);
  EXPECT_EQ(text_of(lgp::entry_data(a, 1)), "anims!");
  EXPECT_EQ(text_of(a.terminator), "FINAL FANTASY7");
  EXPECT_EQ(lgp::serialise(a), data);
  EXPECT_EQ(lgp::lookup_slot("rtaa"), 17u * 30 + 19 + 1);
  EXPECT_EQ(lgp::lookup_slot("RTaa"), lgp::lookup_slot("rtaa"));
  EXPECT_EQ(lgp::lookup_slot("0a"), lgp::lookup_slot("aa"));  // digits count like letters
  EXPECT_EQ(lgp::lookup_slot("_a"), 10u * 30 + 0 + 1);
  EXPECT_EQ(lgp::lookup_slot("a-"), 0u * 30 + 11 + 1);
  EXPECT_FALSE(lgp::lookup_slot("a.p"));
  EXPECT_FALSE(lgp::lookup_slot("x"));
  EXPECT_EQ(lgp::slot_prefix(*lgp::lookup_slot("rt")), "rt");
}

TEST(Lgp, WriterBuildsTablesTheReaderAgreesWith) {
  std::vector<std::string> names = {"rtda", "aaaa.hrc", "rtaa", "ruaa", "rtam", "zz_9", "a-b", "9abc", "rtac"};
  std::vector<byte_vec> datas;
  std::vector<lgp::file> files;
  for (std::size_t i = 0; i < names.size(); ++i) datas.push_back(byte_vec(i * 7 + 1, static_cast<std::uint8_t>(i)));
  for (std::size_t i = 0; i < names.size(); ++i) files.push_back({names[i], datas[i]});
  auto data = lgp::build(files);
  auto a = lgp::parse(data);
  EXPECT_TRUE(a.tables);
  EXPECT_TRUE(a.warnings.empty()) << a.warnings[0].message;
  ASSERT_EQ(a.toc.size(), names.size());
  // TOC ordered by lookup slot, stable within a slot; data in the order given.
  for (std::size_t i = 1; i < a.toc.size(); ++i)
    EXPECT_LE(*lgp::lookup_slot(a.toc[i - 1].name), *lgp::lookup_slot(a.toc[i].name));
  std::vector<std::string> rt;
  for (const auto& e : a.toc)
    if (e.name.starts_with("rt")) rt.push_back(e.name);
  EXPECT_EQ(rt, (std::vector<std::string>{"rtda", "rtaa", "rtam", "rtac"}));
  auto slot = *lgp::lookup_slot("rt");
  EXPECT_EQ(a.lookup[slot].count, 4);
  EXPECT_EQ(a.toc[a.lookup[slot].first - 1].name, "rtda");
  for (std::size_t i = 0; i < a.toc.size(); ++i) {
    auto k = static_cast<std::size_t>(std::find(names.begin(), names.end(), a.toc[i].name) - names.begin());
    auto d = lgp::entry_data(a, i);
    EXPECT_EQ(byte_vec(d.begin(), d.end()), datas[k]) << a.toc[i].name;
    if (i > 0) EXPECT_EQ(a.toc[i].conflict, 0);
  }
  EXPECT_EQ(a.records.front().name, "rtda");  // first given, first in the data
  EXPECT_EQ(text_of(a.terminator), "FINAL FANTASY7");
  EXPECT_EQ(lgp::serialise(a), data);
  // Empty archive: tables and terminator only.
  auto empty = lgp::build({});
  EXPECT_EQ(empty.size(), 16u + 3602u + 14u);
  auto e = lgp::parse(empty);
  EXPECT_TRUE(e.tables);
  EXPECT_EQ(text_of(e.terminator), "FINAL FANTASY7");
  EXPECT_EQ(lgp::serialise(e), empty);
}

TEST(Lgp, EqualNamesInFoldersGoThroughTheConflictTable) {
  byte_vec x = bytes_of("first"), y = bytes_of("second"), z = bytes_of("third");
  auto data = lgp::build({{"summon/wind_1.p", x}, {"wind_1.p", y}, {"magic/WIND_1.P", z}, {"wind_2.p", x}});
  auto a = lgp::parse(data);
  EXPECT_TRUE(a.warnings.empty()) << a.warnings[0].message;
  ASSERT_EQ(a.conflicts.size(), 1u);
  EXPECT_EQ(a.conflicts[0].size(), 3u);
  std::map<std::string, std::string> by_path;
  for (std::size_t i = 0; i < a.toc.size(); ++i) by_path[lgp::entry_path(a.toc[i])] = text_of(lgp::entry_data(a, i));
  EXPECT_EQ(by_path["summon/wind_1.p"], "first");
  EXPECT_EQ(by_path["wind_1.p"], "second");
  EXPECT_EQ(by_path["magic/WIND_1.P"], "third");
  EXPECT_EQ(by_path["wind_2.p"], "first");
  for (const auto& e : a.toc) EXPECT_EQ(e.conflict != 0, e.name != "wind_2.p") << e.name;
  EXPECT_EQ(lgp::serialise(a), data);
}

TEST(Lgp, WriterRefusesNamesTheGameCannotUse) {
  byte_vec d = bytes_of("x");
  auto msg = [&](std::vector<lgp::file> f) {
    try {
      (void)lgp::build(f);
    } catch (const core::failure& e) {
      return e.error().message;
    }
    return std::string("built");
  };
  EXPECT_NE(msg({{"a_name_of_21_bytes_xx", d}}).find("longer than 20"), std::string::npos);
  EXPECT_NE(msg({{".hidden", d}}).find("cannot look this name up"), std::string::npos);
  EXPECT_NE(msg({{"rtaa", d}, {"RTAA", d}}).find("given twice"), std::string::npos);
  EXPECT_EQ(msg({{"a_name_of_20_bytes_x", d}}), "built");
}

// ---- hostile input --------------------------------------------------------------------

byte_vec sample_archive() {
  return hand_built({{"rtaa", "skeleton bytes"}, {"rtda", "animation pack"}, {"rtam", "a part"}});
}

TEST(LgpHostile, EntryPastTheEndIsNamed) {
  auto data = sample_archive();
  core::byte_writer patch;
  // rtda's offset (TOC entry 1, offset field at 16 + 27 + 20) past the end of the file.
  std::uint32_t past = static_cast<std::uint32_t>(data.size() + 100);
  std::memcpy(data.data() + 16 + 27 + 20, &past, 4);
  auto a = lgp::parse(data);
  ASSERT_TRUE(a.toc[1].problem);
  EXPECT_EQ(a.toc[1].problem->code, code::bad_offset);
  EXPECT_NE(a.toc[1].problem->message.find("'rtda'"), std::string::npos) << a.toc[1].problem->message;
  EXPECT_EQ(a.toc[1].problem->offset, 16u + 27 + 20);
  EXPECT_FALSE(a.toc[0].problem);
  EXPECT_EQ(lgp::serialise(a), data);  // still written back as it was
  // The registry keeps the other entries readable and names the broken one.
  diagnostics d;
  auto ar = open_archive(data, "battle.lgp", d);
  ASSERT_TRUE(ar) << ar.error().to_string();
  ASSERT_EQ(ar->entries.size(), 3u);
  EXPECT_TRUE(ar->entries[1].problem);
  EXPECT_EQ(text_of(ar->entries[0].data), "skeleton bytes");
  auto one = read_scene(ar.value(), 1, {}, d);
  ASSERT_FALSE(one);
  EXPECT_EQ(one.error().file, "battle.lgp");
  EXPECT_NE(one.error().to_string().find("'rtda'"), std::string::npos);
  // Strict unpack (the container entry point) refuses with the same message.
  const container* c = find_container("lgp");
  ASSERT_NE(c, nullptr);
  try {
    (void)c->unpack(data);
    FAIL() << "unpack accepted an entry past the end";
  } catch (const core::failure& f) {
    EXPECT_NE(f.error().message.find("'rtda'"), std::string::npos);
  }
}

TEST(LgpHostile, DataLengthPastTheEndIsNamed) {
  auto data = sample_archive();
  auto a0 = lgp::parse(data);
  const std::uint32_t size_at = a0.toc[2].offset + 20;
  std::uint32_t huge = 0x7FFFFFF0;
  std::memcpy(data.data() + size_at, &huge, 4);
  auto a = lgp::parse(data);
  ASSERT_TRUE(a.toc[2].problem);
  EXPECT_EQ(a.toc[2].problem->code, code::truncated);
  EXPECT_NE(a.toc[2].problem->message.find("'rtam'"), std::string::npos);
  EXPECT_EQ(a.toc[2].problem->offset, size_at);
  EXPECT_EQ(lgp::serialise(a), data);
}

TEST(LgpHostile, DuplicateNamesAreWarnedAndKeptApart) {
  auto data = hand_built({{"rtaa", "one"}, {"rtaa", "two"}});
  auto a = lgp::parse(data);
  EXPECT_TRUE(has_warning(a, code::w_suspicious_value, "entry 1 'rtaa' has the same name as entry 0"));
  diagnostics d;
  auto ar = open_archive(data, "x.lgp", d);
  ASSERT_TRUE(ar);
  EXPECT_EQ(ar->entries[0].name, "rtaa");
  EXPECT_EQ(ar->entries[1].name, "rtaa~2");
  EXPECT_EQ(text_of(ar->entries[1].data), "two");
  EXPECT_FALSE(d.warnings.empty());
}

TEST(LgpHostile, LookupTableDisagreeingWithTheTocIsNamed) {
  auto data = sample_archive();
  const std::size_t table = 16 + 27 * 3, slot = *lgp::lookup_slot("rt");
  std::uint16_t count = 2;  // the slot now misses rtam (TOC entry 2)
  std::memcpy(data.data() + table + 4 * slot + 2, &count, 2);
  auto a = lgp::parse(data);
  EXPECT_TRUE(has_warning(a, code::w_suspicious_value, "entry 2 'rtam': the lookup table's slot 'rt' lists entries 0..1"))
      << (a.warnings.empty() ? "" : a.warnings[0].message);
  EXPECT_EQ(lgp::serialise(a), data);
  // A slot pointing past the TOC.
  std::uint16_t first = 40;
  std::memcpy(data.data() + table + 4 * slot, &first, 2);
  auto b = lgp::parse(data);
  EXPECT_TRUE(has_warning(b, code::w_suspicious_value, "beyond the 3 in the table of contents"));
}

TEST(LgpHostile, HeaderFailuresAreOneLineErrors) {
  auto data = sample_archive();
  auto err = [](const byte_vec& d) {
    try {
      (void)lgp::parse(d);
    } catch (const core::failure& f) {
      return f.error();
    }
    return error{};
  };
  byte_vec big = data;
  std::uint32_t n = 0x10000000;
  std::memcpy(big.data() + 12, &n, 4);
  EXPECT_EQ(err(big).code, code::bad_count);
  EXPECT_EQ(err(byte_vec(data.begin(), data.begin() + 30)).code, code::bad_count);
  EXPECT_EQ(err(byte_vec(data.begin(), data.begin() + 10)).code, code::truncated);
  // Through the registry: a value, one line, the file named.
  diagnostics d;
  auto r = rewrite(big, "big.lgp", {}, d);
  ASSERT_FALSE(r);
  auto s = r.error().to_string();
  EXPECT_EQ(s.find('\n'), std::string::npos);
  EXPECT_NE(s.find("big.lgp"), std::string::npos);
  EXPECT_NE(s.find("E_BAD_COUNT"), std::string::npos);
}

// Every truncation and many byte flips: a value or an exception of ours, never a crash, and
// whatever parses writes back byte for byte.
TEST(LgpHostile, TruncationsAndFlipsNeverCrash) {
  std::vector<lgp::file> files;
  byte_vec a = bytes_of("alpha"), b = bytes_of("bravo!"), c = bytes_of("charlie");
  auto data = lgp::build({{"rtaa", a}, {"x/rtda", b}, {"y/rtda", c}});
  std::size_t parsed = 0;
  // Every length around the header, TOC and tables, a stride through the rest, the whole tail.
  for (std::size_t n = 0; n <= data.size(); n += (n < 200 || n + 300 > data.size()) ? 1 : 7) {
    byte_vec cut(data.begin(), data.begin() + static_cast<std::ptrdiff_t>(n));
    try {
      auto p = lgp::parse(cut);
      ++parsed;
      EXPECT_EQ(lgp::serialise(p), cut) << n;
    } catch (const core::failure& f) {
      EXPECT_FALSE(f.error().message.empty());
    }
  }
  EXPECT_GT(parsed, 0u);
  std::mt19937 rng(23);
  for (int k = 0; k < 600; ++k) {
    byte_vec m = data;
    for (int f = 0; f < 3; ++f) m[rng() % m.size()] = static_cast<std::uint8_t>(rng());
    try {
      auto p = lgp::parse(m);
      EXPECT_EQ(lgp::serialise(p), m) << k;
      (void)lgp::to_json(p).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    } catch (const core::failure& f) {
      EXPECT_FALSE(f.error().message.empty());
    }
  }
}

TEST(Lgp, RepackKeepsEveryOtherEntry) {
  byte_vec a = bytes_of("alpha"), b = bytes_of("bravo!"), c = bytes_of("charlie");
  auto data = hand_built({{"rtaa", "alpha"}, {"rtda", "bravo!"}, {"zzzz", "charlie"}});
  diagnostics d;
  auto ar = open_archive(data, "t.lgp", d);
  ASSERT_TRUE(ar);
  auto same = replace_entries(ar.value(), data, {});
  ASSERT_TRUE(same);
  EXPECT_EQ(same.value(), data);  // nothing changed: byte-identical
  auto changed = replace_entries(ar.value(), data, {{"RTDA", bytes_of("a new, longer animation pack"), std::nullopt},
                                                    {"rtac", bytes_of("texture"), std::nullopt}});
  ASSERT_TRUE(changed) << changed.error().to_string();
  auto p = lgp::parse(changed.value());
  EXPECT_TRUE(p.warnings.empty()) << p.warnings[0].message;
  ASSERT_EQ(p.toc.size(), 4u);
  std::map<std::string, std::string> got;
  for (std::size_t i = 0; i < p.toc.size(); ++i) got[p.toc[i].name] = text_of(lgp::entry_data(p, i));
  EXPECT_EQ(got["rtaa"], "alpha");
  EXPECT_EQ(got["rtda"], "a new, longer animation pack");
  EXPECT_EQ(got["zzzz"], "charlie");
  EXPECT_EQ(got["rtac"], "texture");
  EXPECT_EQ(text_of(p.terminator), "FINAL FANTASY7");
  EXPECT_EQ(p.records.back().name, "rtac");  // added last; the others keep their data order
}

}  // namespace
