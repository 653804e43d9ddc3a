// SARC archives (src/containers/sarc.cpp): our writer's archives round-trip, hand-built
// headers in both byte orders, the real Switch event pack lists its files and comes
// back byte-identical, damaged tables give clear errors.
#include <algorithm>
#include <cstring>
#include <fstream>

#include <gtest/gtest.h>

#include "containers/sarc.hpp"
#include "containers/yaz0.hpp"
#include "core/failure.hpp"
#include "rigrip/registry.hpp"
#include "test_support.hpp"

using namespace rigrip;
namespace sarc = rigrip::containers::sarc;

namespace {

std::vector<sarc::build_file> three_files() {
  std::vector<sarc::build_file> f;
  f.push_back({"Model/Thing.sbfres", {'Y', 'a', 'z', '0', 1, 2, 3}, 0});
  f.push_back({"Actor/Pack/Thing.bxml", std::vector<std::uint8_t>(37, 0xAB), 0});
  f.push_back({"a.txt", {'h', 'i'}, 0x40});
  return f;
}

TEST(Sarc, NameHashIsTheSeadHash) {
  // h = h * 101 + byte, from the SFAT multiplier 0x65 (sample: every stored hash matches).
  EXPECT_EQ(sarc::name_hash("", 0x65), 0u);
  EXPECT_EQ(sarc::name_hash("a", 0x65), 97u);
  EXPECT_EQ(sarc::name_hash("ab", 0x65), 97u * 101 + 98);
  EXPECT_EQ(sarc::name_hash("Model/Demo344_1.sbfres", 0x65), 0x1AABD623u);
}

TEST(Sarc, OurWriterRoundTripsInBothByteOrders) {
  for (bool le : {false, true}) {
    const auto bytes = sarc::build(three_files(), le);
    // Hand-checked header: magic, header size 0x14, the BOM in the file's order, size.
    ASSERT_GE(bytes.size(), 0x20u);
    EXPECT_EQ(std::memcmp(bytes.data(), "SARC", 4), 0);
    EXPECT_EQ(bytes[le ? 6 : 7], 0xFF);
    EXPECT_EQ(bytes[le ? 7 : 6], le ? 0xFE : 0xFE);
    EXPECT_EQ(std::memcmp(bytes.data() + 0x14, "SFAT", 4), 0);
    const auto a = sarc::parse(bytes);
    EXPECT_EQ(a.little_endian, le);
    EXPECT_EQ(a.file_size, bytes.size());
    ASSERT_EQ(a.entries.size(), 3u);
    for (std::size_t i = 1; i < a.entries.size(); ++i) EXPECT_LT(a.entries[i - 1].hash, a.entries[i].hash);
    for (const auto& want : three_files()) {
      auto it = std::find_if(a.entries.begin(), a.entries.end(), [&](const sarc::entry& e) { return e.name == want.name; });
      ASSERT_NE(it, a.entries.end()) << want.name;
      const auto d = a.data(static_cast<std::size_t>(it - a.entries.begin()));
      EXPECT_TRUE(std::equal(d.begin(), d.end(), want.data.begin(), want.data.end())) << want.name;
      EXPECT_EQ(it->hash, sarc::name_hash(want.name, 0x65));
      if (want.name == "a.txt") EXPECT_EQ((a.data_offset + it->begin) % 0x40, 0u);
      if (want.name == "Model/Thing.sbfres") EXPECT_EQ((a.data_offset + it->begin) % 0x100, 0u);  // Yaz0 inside
    }
    EXPECT_EQ(sarc::serialise(a), bytes);
    // Kept in the test output: it seeds the SARC fuzz target (scripts/fuzz.sh).
    std::ofstream(test::out_path(le ? "sarc_ours_le.sarc" : "sarc_ours_be.sarc"), std::ios::binary)
        .write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  }
}

TEST(Sarc, ContainerUnpackRepack) {
  const container* c = find_container("sarc");
  ASSERT_TRUE(c);
  EXPECT_TRUE(c->archive);
  const auto bytes = sarc::build(three_files(), true);
  EXPECT_EQ(c->detect(bytes, "x.pack"), score::magic);
  auto entries = c->unpack(bytes);
  ASSERT_EQ(entries.size(), 3u);
  EXPECT_EQ(c->repack(bytes, entries), bytes);  // unchanged: byte-identical
  // A changed file of the same size stays in place; a longer one makes a new layout.
  for (auto& e : entries)
    if (e.name == "a.txt") e.data = {'y', 'o'};
  auto same = c->repack(bytes, entries);
  EXPECT_EQ(same.size(), bytes.size());
  for (auto& e : entries)
    if (e.name == "a.txt") e.data = std::vector<std::uint8_t>(500, 'z');
  auto bigger = sarc::parse(c->repack(bytes, entries));
  EXPECT_EQ(bigger.entries.size(), 3u);
  const auto j = c->dump_raw(bytes);
  EXPECT_EQ(j["files"].size(), 3u);
  EXPECT_EQ(j["byte_order"], "little");
}

TEST(Sarc, DamageIsAClearError) {
  auto bytes = sarc::build(three_files(), false);
  auto expect_error = [](std::vector<std::uint8_t> d, code c, const std::string& part) {
    try {
      (void)sarc::parse(std::move(d));
      ADD_FAILURE() << "parsed a damaged archive (" << part << ")";
    } catch (const core::failure& e) {
      EXPECT_EQ(e.error().code, c) << e.error().message;
      EXPECT_NE(e.error().message.find(part), std::string::npos) << part << ": " << e.error().message;
    }
  };
  auto d = bytes;
  d[0x14 + 6] = 0x7F;  // SFAT count 0x7Fxx
  d[0x14 + 7] = 0xFF;
  expect_error(d, code::bad_count, "SFAT file count");
  d = bytes;
  const std::uint32_t node = 0x14 + 0xC;
  d[node + 12] = 0x7F;  // the first file's end far past the data
  expect_error(d, code::bad_offset, "outside the");
  d = bytes;
  std::swap_ranges(d.begin() + node, d.begin() + node + 4, d.begin() + node + 16);  // hashes out of order
  expect_error(d, code::bad_value, "not sorted");
  d = bytes;
  d[6] = 0x12;
  expect_error(d, code::bad_value, "byte-order mark");
  expect_error(std::vector<std::uint8_t>(bytes.begin(), bytes.begin() + 0x30), code::bad_offset, "lies past the end");
}

// The real BotW (Switch) event pack: Yaz0 around a little-endian SARC of 15 files.
TEST(Sarc, SwitchEventPackListsAndRewrites) {
  RIGRIP_REQUIRE_SAMPLE(path, "bfres/switch/Demo344_1.sbeventpack");
  const auto raw = test::read_bytes(path);
  auto u = unwrap(raw, path);
  ASSERT_TRUE(u) << u.error().to_string();
  ASSERT_EQ(u.value().chain.size(), 1u);
  const auto& payload = u.value().data;
  const container* c = detect_container(payload, "Demo344_1.sarc");
  ASSERT_TRUE(c);
  EXPECT_EQ(c->id, "sarc");
  const auto entries = c->unpack(payload);
  ASSERT_EQ(entries.size(), 15u);
  bool model = false;
  for (const auto& e : entries)
    if (e.name == "Model/Demo344_1.sbfres") {
      model = true;
      EXPECT_EQ(e.data.size(), 152916u);
      EXPECT_TRUE(containers::is_yaz0(e.data));
    }
  EXPECT_TRUE(model);
  const auto a = sarc::parse(payload);
  EXPECT_TRUE(a.little_endian);
  EXPECT_EQ(a.multiplier, 0x65u);
  for (const auto& e : a.entries) EXPECT_EQ(e.hash, sarc::name_hash(*e.name, a.multiplier)) << *e.name;
  EXPECT_EQ(sarc::serialise(a), payload);
  EXPECT_EQ(c->repack(payload, entries), payload);
  // Our writer makes a different but equivalent layout of the same files.
  std::vector<sarc::build_file> files;
  for (const auto& e : entries) files.push_back({e.name, e.data, 0});
  const auto rebuilt = sarc::parse(sarc::build(files, true));
  ASSERT_EQ(rebuilt.entries.size(), 15u);
  for (std::size_t i = 0; i < 15; ++i) {
    EXPECT_EQ(rebuilt.entries[i].name, a.entries[i].name);
    const auto x = rebuilt.data(i), y = a.data(i);
    EXPECT_TRUE(std::equal(x.begin(), x.end(), y.begin(), y.end()));
  }
}

}  // namespace
