// Zstandard streams (src/containers/zstd.cpp): our frames round-trip, dictionaries come from a
// ZsDic.pack.zs-shaped pack (a zstd-compressed SARC of .zsdic files, as Tears of the Kingdom
// ships them), a missing dictionary and damaged frames give clear errors, and the CLI opens a
// .zs file with the pack found beside it.
#include <filesystem>
#include <numeric>
#include <random>

#include <gtest/gtest.h>
#include <zdict.h>
#include <zstd.h>

#include "containers/sarc.hpp"
#include "containers/zstd.hpp"
#include "core/failure.hpp"
#include "rigrip/registry.hpp"
#include "test_support.hpp"

using namespace rigrip;
namespace fs = std::filesystem;

namespace {

std::vector<std::uint8_t> some_bytes(std::size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::vector<std::uint8_t> d(n);
  for (std::size_t i = 0; i < n; ++i) d[i] = std::uint8_t(i % 61 < 40 ? "FRES skeleton curve key "[i % 24] : rng() & 0xFF);
  return d;
}

// A formatted zstd dictionary with the given ID, built by libzstd from our own sample data.
std::vector<std::uint8_t> make_dictionary(unsigned id) {
  std::vector<std::uint8_t> samples;
  std::vector<std::size_t> sizes;
  for (unsigned i = 0; i < 64; ++i) {
    auto s = some_bytes(512, 100 + i);
    samples.insert(samples.end(), s.begin(), s.end());
    sizes.push_back(s.size());
  }
  const auto content = some_bytes(4096, 7);
  std::vector<std::uint8_t> dict(16384);
  ZDICT_params_t p{};
  p.compressionLevel = 3;
  p.dictID = id;
  const std::size_t n = ZDICT_finalizeDictionary(dict.data(), dict.size(), content.data(), content.size(),
                                                 samples.data(), sizes.data(), unsigned(sizes.size()), p);
  EXPECT_FALSE(ZDICT_isError(n)) << ZDICT_getErrorName(n);
  dict.resize(ZDICT_isError(n) ? 0 : n);
  return dict;
}

// Tears of the Kingdom's shape: a zstd-compressed SARC holding .zsdic files.
std::vector<std::uint8_t> dictionary_pack(const std::vector<std::uint8_t>& dict) {
  std::vector<containers::sarc::build_file> files{{"zs.zsdic", dict, 0}, {"readme.txt", {'h', 'i'}, 0}};
  return containers::zstd_compress(containers::sarc::build(files, true));
}

void expect_failure(const std::vector<std::uint8_t>& d, code c, const std::string& text) {
  try {
    (void)containers::zstd_decompress(d);
    ADD_FAILURE() << "no error; expected " << text;
  } catch (const core::failure& e) {
    EXPECT_EQ(e.error().code, c) << e.error().message;
    EXPECT_NE(e.error().message.find(text), std::string::npos) << e.error().message;
  }
}

TEST(Zstd, RoundTripWithoutDictionary) {
  const auto d = some_bytes(100000, 1);
  const auto z = containers::zstd_compress(d);
  EXPECT_TRUE(containers::is_zstd(z));
  EXPECT_LT(z.size(), d.size());
  EXPECT_EQ(containers::zstd_dictionary_id(z), 0u);
  EXPECT_EQ(containers::zstd_decompress(z), d);
  // Two frames back to back are one stream.
  auto two = z;
  const auto z2 = containers::zstd_compress(some_bytes(10, 2));
  two.insert(two.end(), z2.begin(), z2.end());
  auto both = d;
  const auto d2 = some_bytes(10, 2);
  both.insert(both.end(), d2.begin(), d2.end());
  EXPECT_EQ(containers::zstd_decompress(two), both);
}

TEST(Zstd, DictionaryFromAPackThenMissingDictionary) {
  const auto dict = make_dictionary(0x5A5A01);
  ASSERT_FALSE(dict.empty());
  const std::string pack = test::out_path("zstd/ZsDic.pack.zs");
  fs::create_directories(fs::path(pack).parent_path());
  test::write_bytes(pack, dictionary_pack(dict));
  auto ids = add_zstd_dictionaries(pack);
  ASSERT_TRUE(ids) << ids.error().to_string();
  EXPECT_EQ(ids.value(), std::vector<std::uint32_t>{0x5A5A01});

  const auto d = some_bytes(20000, 3);
  const auto z = containers::zstd_compress(d, 0x5A5A01);
  EXPECT_EQ(containers::zstd_dictionary_id(z), 0x5A5A01u);
  EXPECT_EQ(containers::zstd_decompress(z), d);

  // Made with a dictionary nobody registered: the message says what to pass.
  const auto other = make_dictionary(0x777);
  std::vector<std::uint8_t> z2(ZSTD_compressBound(d.size()));
  z2.resize(ZSTD_compress_usingDict(ZSTD_createCCtx(), z2.data(), z2.size(), d.data(), d.size(), other.data(),
                                    other.size(), 3));
  expect_failure(z2, code::unsupported_feature, "--zstd-dict");

  auto none = add_zstd_dictionaries(test::out_path("zstd/ZsDic.pack.zs") + ".missing");
  EXPECT_FALSE(none);
  const std::string junk = test::out_path("zstd/junk.bin");
  test::write_bytes(junk, some_bytes(100, 4));
  auto bad = add_zstd_dictionaries(junk);
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message.find("no zstd dictionary"), std::string::npos);
}

TEST(Zstd, DamagedFramesGiveClearErrors) {
  const auto d = some_bytes(50000, 5);
  const auto z = containers::zstd_compress(d);
  expect_failure(std::vector<std::uint8_t>(z.begin(), z.begin() + std::ptrdiff_t(z.size() / 2)), code::bad_value, "zstd");
  // A frame that declares a terabyte: refused before anything is allocated.
  std::vector<std::uint8_t> big{0x28, 0xB5, 0x2F, 0xFD, 0xE0, 0, 0, 0, 0, 0, 1, 0, 0, 0x01, 0x00, 0x00};
  expect_failure(big, code::bad_count, "over the limit");
  auto flipped = z;
  for (std::size_t i = 20; i < flipped.size(); i += 97) flipped[i] ^= 0x5A;
  try {
    auto out = containers::zstd_decompress(flipped);
    EXPECT_LE(out.size(), std::size_t(1) << 30);
  } catch (const core::failure& e) {
    EXPECT_FALSE(e.error().message.empty());
  }
}

// Through the CLI: romfs/Model/x.bfres.zs with romfs/Pack/ZsDic.pack.zs found by itself.
TEST(Zstd, CliFindsTheDictionaryPackAboveTheInput) {
  const auto dict = make_dictionary(0x5A5A02);
  ASSERT_FALSE(dict.empty());
  const fs::path root = test::out_path("zstd/romfs");
  fs::remove_all(root);
  fs::create_directories(root / "Pack");
  fs::create_directories(root / "Model");
  test::write_bytes((root / "Pack" / "ZsDic.pack.zs").string(), dictionary_pack(dict));
  ASSERT_TRUE(add_zstd_dictionaries((root / "Pack" / "ZsDic.pack.zs").string()));  // to compress here
  const auto model = test::read_bytes(std::string(RIGRIP_SOURCE_DIR) + "/examples/bfres/seed_linear.bfres");
  const std::string zs = (root / "Model" / "seed_linear.bfres.zs").string();
  test::write_bytes(zs, containers::zstd_compress(model, 0x5A5A02));
  const std::string cli = RIGRIP_CLI;
  std::string out;
  EXPECT_EQ(test::run(cli + " info '" + zs + "'", &out), 0) << out;
  EXPECT_NE(out.find("format: bfres"), std::string::npos) << out;
  const std::string rw = test::out_path("zstd/rewritten.bfres.zs");
  EXPECT_EQ(test::run(cli + " rewrite '" + zs + "' -o '" + rw + "'", &out), 0) << out;
  EXPECT_EQ(test::read_bytes(rw), test::read_bytes(zs));
  // A .pack.zs (a SARC in zstd, as the game's Pack/Actor files): listed and converted entry by entry.
  std::vector<containers::sarc::build_file> files{{"Model/seed_linear.bfres", model, 0}};
  const std::string pack = (root / "Model" / "Thing.pack.zs").string();
  test::write_bytes(pack, containers::zstd_compress(containers::sarc::build(files, true), 0x5A5A02));
  EXPECT_EQ(test::run(cli + " list '" + pack + "'", &out), 0) << out;
  EXPECT_NE(out.find("sarc in zstd archive, 1 entries"), std::string::npos) << out;
  EXPECT_NE(out.find("Model/seed_linear.bfres"), std::string::npos) << out;
  EXPECT_EQ(test::run(cli + " info '" + pack + "/Model/seed_linear.bfres'", &out), 0) << out;
  // Elsewhere, without the pack: a one-line error naming the option; with it: fine.
  const std::string lone = test::out_path("zstd/lone.bfres.zs");
  fs::copy_file(zs, lone, fs::copy_options::overwrite_existing);
  EXPECT_EQ(test::run(cli + " info '" + lone + "'", &out), 1) << out;
  EXPECT_NE(out.find("dictionary 5921282"), std::string::npos) << out;
  EXPECT_NE(out.find("--zstd-dict"), std::string::npos) << out;
  EXPECT_EQ(test::run(cli + " info '" + lone + "' --zstd-dict '" + (root / "Pack" / "ZsDic.pack.zs").string() + "'", &out), 0)
      << out;
  const std::string plain = std::string(RIGRIP_SOURCE_DIR) + "/examples/bfres/seed_linear.bfres";
  EXPECT_EQ(test::run(cli + " info '" + lone + "' --zstd-dict '" + plain + "'", &out), 2) << out;  // not a dictionary
  EXPECT_NE(out.find("no zstd dictionary"), std::string::npos) << out;
}

}  // namespace
