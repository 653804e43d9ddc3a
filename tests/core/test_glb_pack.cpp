// detail::glb's container for every padding case: header, a JSON chunk padded with spaces and a
// BIN chunk padded with zeros (none when there is no binary), lengths as the glTF 2.0 spec says.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "gltf/model_json.hpp"

namespace {
std::uint32_t u32_at(const std::vector<std::uint8_t>& v, std::size_t at) {
  return std::uint32_t{v[at]} | std::uint32_t{v[at + 1]} << 8 | std::uint32_t{v[at + 2]} << 16 |
         std::uint32_t{v[at + 3]} << 24;
}
}  // namespace

TEST(GlbPack, ChunksAndPaddingForEveryLength) {
  std::mt19937 rng(7);
  for (std::size_t jn = 0; jn < 12; ++jn)
    for (std::size_t bn = 0; bn < 12; ++bn) {
      std::string json(jn * 37 % 101 + jn, 'x');
      for (auto& c : json) c = static_cast<char>('a' + rng() % 26);
      std::vector<std::uint8_t> bin(bn == 0 ? 0 : bn * 13 + bn % 4);
      for (auto& b : bin) b = static_cast<std::uint8_t>(rng() | 1);  // never a padding zero
      const auto g = rigrip::gltf::detail::glb(json, bin);
      const std::size_t jlen = (json.size() + 3) / 4 * 4, blen = (bin.size() + 3) / 4 * 4;
      ASSERT_EQ(g.size(), 20 + jlen + (bin.empty() ? 0 : 8 + blen)) << jn << " " << bn;
      EXPECT_EQ(g.capacity(), g.size());  // sized once
      EXPECT_EQ(u32_at(g, 0), 0x46546C67u);
      EXPECT_EQ(u32_at(g, 4), 2u);
      EXPECT_EQ(u32_at(g, 8), g.size());
      EXPECT_EQ(u32_at(g, 12), jlen);
      EXPECT_EQ(u32_at(g, 16), 0x4E4F534Au);
      EXPECT_EQ(std::string(g.begin() + 20, g.begin() + 20 + static_cast<std::ptrdiff_t>(json.size())), json);
      for (std::size_t i = json.size(); i < jlen; ++i) EXPECT_EQ(g[20 + i], ' ');
      if (bin.empty()) continue;
      const std::size_t at = 20 + jlen;
      EXPECT_EQ(u32_at(g, at), blen);
      EXPECT_EQ(u32_at(g, at + 4), 0x004E4942u);
      EXPECT_TRUE(std::equal(bin.begin(), bin.end(), g.begin() + static_cast<std::ptrdiff_t>(at + 8)));
      for (std::size_t i = bin.size(); i < blen; ++i) EXPECT_EQ(g[at + 8 + i], 0);
    }
}

// write_file sends a GLB as glb_head, the binary where it lies, then glb_padding zeros: the
// same bytes as glb() lays out in one buffer, for every padding case.
TEST(GlbPack, HeadThenBinaryThenPaddingIsTheWholeFile) {
  std::mt19937 rng(11);
  for (std::size_t jn = 0; jn < 9; ++jn)
    for (std::size_t bn = 0; bn < 9; ++bn) {
      std::string json(jn * 29 % 53 + jn, 'x');
      for (auto& c : json) c = static_cast<char>('a' + rng() % 26);
      std::vector<std::uint8_t> bin(bn == 0 ? 0 : bn * 7 + bn % 4);
      for (auto& b : bin) b = static_cast<std::uint8_t>(rng() | 1);
      std::vector<std::uint8_t> parts = rigrip::gltf::detail::glb_head(json, bin.size());
      EXPECT_EQ(parts.capacity(), parts.size()) << jn << " " << bn;  // sized once
      parts.insert(parts.end(), bin.begin(), bin.end());
      parts.insert(parts.end(), rigrip::gltf::detail::glb_padding(bin.size()), std::uint8_t{0});
      EXPECT_EQ(parts, rigrip::gltf::detail::glb(json, bin)) << jn << " " << bn;
    }
}
