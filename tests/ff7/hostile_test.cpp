// Damaged input: huge counts, truncation, byte flips -> clean errors with offsets, quickly.
#include <chrono>
#include <filesystem>
#include <random>

#include <gtest/gtest.h>

#include "ff7_test_util.hpp"
#include "formats/ff7/aa.hpp"
#include "formats/ff7/anim_a.hpp"
#include "formats/ff7/da.hpp"
#include "formats/ff7/euler.hpp"
#include "formats/ff7/hrc.hpp"
#include "formats/ff7/naming.hpp"
#include "formats/ff7/p_model.hpp"
#include "formats/ff7/rsd.hpp"
#include "formats/ff7/tex.hpp"
#include "synthetic.hpp"
#include "test_support.hpp"

using namespace rigrip;
using namespace rigrip::ff7;

namespace {
void put_u32(bytes& b, std::size_t at, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) b[at + static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(v >> (8 * i));
}

template <class Fn>
rigrip::error expect_failure(Fn&& fn) {
  auto t0 = std::chrono::steady_clock::now();
  try {
    fn();
  } catch (const core::failure& f) {
    EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::milliseconds(200));
    return f.error();
  }
  ADD_FAILURE() << "expected a failure";
  return {};
}

std::string dir_with_synthetic(const std::string& name) {
  auto dir = test::out_path(name);
  std::filesystem::create_directories(dir);
  for (const auto& [n, b] : ff7test::synthetic_battle_files()) test::write_bytes(dir + "/" + n, b);
  return dir;
}
}  // namespace

TEST(Hostile, CountFFFFFFFFGivesCleanErrorsWithoutHugeAllocations) {
  auto files = ff7test::synthetic_battle_files();
  {
    auto da = files["zzda"];
    put_u32(da, 0, 0xFFFFFFFF);
    auto e = expect_failure([&] { (void)parse_da(da); });
    EXPECT_EQ(e.code, code::bad_count);
    EXPECT_NE(e.message.find("4294967295"), std::string::npos) << e.message;
  }
  {
    auto da = files["zzda"];
    put_u32(da, 4 + 8, 0xFFFFFFFF);  // first chunk size
    auto e = expect_failure([&] { (void)parse_da(da); });
    EXPECT_EQ(e.code, code::truncated);
    EXPECT_EQ(e.offset, 12u);
  }
  {
    auto aa = files["zzaa"];
    put_u32(aa, 12, 0xFFFFFFFF);  // bone count -1
    EXPECT_EQ(expect_failure([&] { (void)parse_aa(aa); }).code, code::bad_count);
    put_u32(aa, 12, 0x7FFFFFFF);
    EXPECT_EQ(expect_failure([&] { (void)parse_aa(aa); }).code, code::bad_count);
  }
  for (std::size_t slot : {3u, 4u, 6u, 7u, 8u, 9u, 12u, 13u, 14u}) {
    auto p = files["zzam"];
    put_u32(p, 4 * slot, 0xFFFFFFFF);
    auto e = expect_failure([&] { (void)parse_p(p); });
    EXPECT_EQ(e.code, code::bad_count) << "P header slot " << slot;
  }
  {
    auto t = files["zzac"];
    put_u32(t, 0x58, 0xFFFFFFFF);  // palette size
    EXPECT_EQ(expect_failure([&] { (void)parse_tex(t); }).code, code::bad_count);
    t = files["zzac"];
    put_u32(t, 0x3C, 0xFFFFFFFF);  // width
    EXPECT_EQ(expect_failure([&] { (void)parse_tex(t); }).code, code::bad_value);
  }
  {
    a_file a;
    a.bone_count = 2;
    a.frames.resize(1);
    a.frames[0].rotations.resize(2);
    auto b = serialise_a(a);
    put_u32(b, 4, 0xFFFFFFFF);
    EXPECT_EQ(expect_failure([&] { (void)parse_a(b); }).code, code::bad_count);
  }
  {
    std::string h = ":HEADER_BLOCK 2\n:SKELETON x\n:BONES 4294967295\nhip\nroot\n1.0\n0\n";
    EXPECT_EQ(expect_failure([&] { (void)parse_hrc(bytes(h.begin(), h.end())); }).code, code::bad_count);
  }
}

TEST(Hostile, DamagedInputNamesTheOffset) {
  auto dir = dir_with_synthetic("ff7_hostile_offsets");
  auto files = ff7test::synthetic_battle_files();
  // Truncated in the middle of the second chunk.
  auto da = files["zzda"];
  auto p = parse_da(da);
  da.resize(p.chunks[1].offset + 20);
  auto s = ff7test::read(da, dir + "/zzda");
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().code, code::truncated);
  EXPECT_EQ(s.error().offset, p.chunks[1].offset + 8);
  EXPECT_EQ(s.error().format, "ff7-da");
  // A polygon pointing outside its group.
  auto pm = files["zzam"];
  auto model = parse_p(pm);
  model.polys[3].v[1] = 500;
  auto bad = serialise_p(model);
  auto r = ff7test::read(bad, dir + "/bad.p");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, code::bad_value);
  EXPECT_NE(r.error().offset, no_offset);
  EXPECT_NE(r.error().message.find("polygon 3"), std::string::npos) << r.error().message;
  // A bitstream that ends inside frame 0.
  auto d2 = parse_da(files["zzda"]);
  d2.chunks[0].body[2] = 4;  // sSize 4: not even the three positions
  d2.chunks[0].body[3] = 0;
  auto e = ff7test::read(serialise_da(d2), dir + "/zzda");
  ASSERT_FALSE(e.ok());
  EXPECT_EQ(e.error().code, code::truncated);
  EXPECT_EQ(e.error().offset, d2.chunks[0].bits_offset + 4);
}

TEST(Hostile, TruncationAndByteFlipLoopGivesCleanResults) {
  auto dir = dir_with_synthetic("ff7_hostile_loop");
  std::vector<std::pair<std::string, bytes>> inputs;
  for (const auto& [n, b] : ff7test::synthetic_battle_files()) inputs.emplace_back(dir + "/" + n, b);
  for (const char* s : {"ff7/field/aaaa.hrc", "ff7/field/aaab.rsd", "ff7/field/aaac.p", "ff7/field/aabc.tex", "ff7/field/aafe.a"})
    if (auto p = test::sample(s)) inputs.emplace_back(*p, test::read_bytes(*p));
  std::mt19937 rng(99);
  std::size_t ok = 0, failed = 0;
  auto attempt = [&](const bytes& data, const std::string& name) {
    auto t0 = std::chrono::steady_clock::now();
    auto s = ff7test::read(data, name);
    if (s.ok()) {
      ++ok;
    } else {
      ++failed;
      EXPECT_FALSE(s.error().message.empty());
      EXPECT_NE(s.error().code, code::internal) << name << ": " << s.error().to_string();
    }
    if (ff7test::lower_name(name).ends_with("da")) (void)ff7test::dump(data, name);
    EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(1)) << name;
  };
  for (const auto& [name, data] : inputs) {
    for (std::size_t cut = 0; cut < data.size(); cut += std::max<std::size_t>(1, data.size() / 40)) {
      bytes t(data.begin(), data.begin() + static_cast<std::ptrdiff_t>(cut));
      attempt(t, name);
    }
    std::uniform_int_distribution<std::size_t> pos(0, data.size() - 1);
    std::uniform_int_distribution<int> val(0, 255), nflip(1, 4);
    for (int i = 0; i < 150; ++i) {
      bytes m = data;
      for (int k = nflip(rng); k > 0; --k) m[pos(rng)] = static_cast<std::uint8_t>(val(rng));
      attempt(m, name);
    }
  }
  std::printf("[ff7] mutation loop: %zu inputs read, %zu clean errors\n", ok, failed);
  EXPECT_GT(failed, 0u);
}

TEST(Hostile, DetectorsNeverThrowAndRecogniseTheirFiles) {
  auto files = ff7test::synthetic_battle_files();
  EXPECT_EQ(ff7test::detect(files["zzaa"], "zzaa")->id, "ff7-aa");
  EXPECT_EQ(ff7test::detect(files["zzda"], "zzda")->id, "ff7-da");
  EXPECT_EQ(ff7test::detect(files["zzam"], "zzam")->id, "ff7-p");
  EXPECT_EQ(ff7test::detect(files["zzac"], "zzac")->id, "ff7-tex");
  // Structure first: renamed files are still recognised.
  EXPECT_EQ(ff7test::detect(files["zzda"], "anything.bin")->id, "ff7-da");
  EXPECT_EQ(ff7test::detect(files["zzam"], "part.bin")->id, "ff7-p");
  EXPECT_EQ(ff7test::detect(files["zzac"], "image.bin")->id, "ff7-tex");
  bytes junk(300, 0xFF);
  for (const auto& f : ff7test::table()) EXPECT_LE(f.detect(junk, "junk.bin"), score::name_only) << f.id;
}
