// Tegra X1 block-linear layout (src/formats/bfres/tegra.cpp): offsets derived by hand from
// the GOB rules (64 bytes x 8 rows, 512 bytes; 16-byte runs; blocks of block-height GOBs),
// hand-built surfaces, round trips, refusals.
#include <gtest/gtest.h>

#include <numeric>
#include <optional>

#include "core/failure.hpp"
#include "formats/bfres/tegra.hpp"

using namespace rigrip;
using namespace rigrip::bfres;

TEST(Tegra, GobOffsetsFromTheRules) {
  EXPECT_EQ(tegra::gob_offset(0, 0), 0u);
  EXPECT_EQ(tegra::gob_offset(15, 0), 15u);   // one 16-byte run
  EXPECT_EQ(tegra::gob_offset(0, 1), 16u);    // the next row follows the run
  EXPECT_EQ(tegra::gob_offset(16, 0), 32u);   // the second run after two rows
  EXPECT_EQ(tegra::gob_offset(16, 1), 48u);
  EXPECT_EQ(tegra::gob_offset(0, 2), 64u);    // rows 2-3 after the first 32x2 quarter
  EXPECT_EQ(tegra::gob_offset(0, 6), 192u);
  EXPECT_EQ(tegra::gob_offset(32, 0), 256u);  // the right half after the whole left half
  EXPECT_EQ(tegra::gob_offset(63, 7), 511u);
  // Every byte of a GOB once.
  std::vector<int> seen(512, 0);
  for (std::uint32_t y = 0; y < 8; ++y)
    for (std::uint32_t x = 0; x < 64; ++x) ++seen[tegra::gob_offset(x, y)];
  for (int n : seen) EXPECT_EQ(n, 1);
}

TEST(Tegra, BlocksRunAcrossThenDown) {
  // 128 bytes wide (2 GOBs), block height 1: GOB (1, 0) at 512, GOB (0, 1) at 1024.
  EXPECT_EQ(tegra::block_linear_offset(64, 0, 128, 1), 512u);
  EXPECT_EQ(tegra::block_linear_offset(0, 8, 128, 1), 1024u);
  // Block height 2: the GOB below comes next, then the block to the right.
  EXPECT_EQ(tegra::block_linear_offset(0, 8, 128, 2), 512u);
  EXPECT_EQ(tegra::block_linear_offset(64, 0, 128, 2), 1024u);
  EXPECT_EQ(tegra::block_linear_offset(0, 16, 128, 2), 2048u);
  EXPECT_EQ(tegra::block_linear_offset(65, 9, 128, 2), 1024u + 512u + 17u);
  // A row narrower than a GOB still takes a whole GOB.
  EXPECT_EQ(tegra::block_linear_offset(0, 8, 16, 1), 512u);
  EXPECT_EQ(tegra::surface_size(4, 4, 4, 1), 512u);
  EXPECT_EQ(tegra::surface_size(20, 20, 4, 2), 2u * 2 * 1024);  // 80 bytes: 2 GOBs across; 20 rows: 2 blocks of 16
}

TEST(Tegra, HandBuiltSurfaceDeswizzles) {
  // 8x2 RGBA8 pixels (32 bytes a row), block height 1: row 0 is bytes 0-15 and 32-47 of the
  // GOB, row 1 is 16-31 and 48-63.
  std::vector<std::uint8_t> tiled(512, 0);
  for (std::uint32_t i = 0; i < 64; ++i) tiled[i] = std::uint8_t(i);
  const auto lin = tegra::deswizzle(tiled, 8, 2, 4, 1);
  ASSERT_EQ(lin.size(), 64u);
  for (std::uint32_t i = 0; i < 16; ++i) {
    EXPECT_EQ(lin[i], i);            // row 0, first run
    EXPECT_EQ(lin[16 + i], 32 + i);  // row 0, second run
    EXPECT_EQ(lin[32 + i], 16 + i);  // row 1, first run
    EXPECT_EQ(lin[48 + i], 48 + i);
  }
}

TEST(Tegra, RoundTripsForEveryElementSizeAndBlockHeight) {
  for (std::uint32_t bpe : {1u, 2u, 4u, 8u, 16u})
    for (std::uint32_t bh : {1u, 2u, 4u, 8u, 16u, 32u})
      for (auto [w, h] : {std::pair{1u, 1u}, {7u, 5u}, {33u, 70u}, {100u, 9u}}) {
        std::vector<std::uint8_t> lin(std::size_t(w) * h * bpe);
        std::iota(lin.begin(), lin.end(), std::uint8_t(7));
        const auto tiled = tegra::swizzle(lin, w, h, bpe, bh);
        EXPECT_EQ(tiled.size(), tegra::surface_size(w, h, bpe, bh));
        EXPECT_EQ(tegra::deswizzle(tiled, w, h, bpe, bh), lin) << bpe << " " << bh << " " << w << "x" << h;
      }
}

TEST(Tegra, RefusalsAreClearErrors) {
  std::vector<std::uint8_t> d(512);
  auto code_of = [&](auto f) -> std::optional<code> {
    try {
      (void)f();
    } catch (const core::failure& e) {
      return e.error().code;
    }
    return std::nullopt;
  };
  EXPECT_EQ(code_of([&] { return tegra::deswizzle(d, 4, 4, 4, 3); }), code::bad_value);   // block height
  EXPECT_EQ(code_of([&] { return tegra::deswizzle(d, 4, 4, 17, 1); }), code::bad_value);  // element size
  EXPECT_EQ(code_of([&] { return tegra::deswizzle(d, 0, 4, 4, 1); }), code::bad_value);
  EXPECT_EQ(code_of([&] { return tegra::deswizzle(d, 100000, 4, 4, 1); }), code::bad_value);
  EXPECT_EQ(code_of([&] { return tegra::deswizzle(d, 64, 64, 4, 1); }), code::truncated);  // needs 16 KB
}
