// The appending GLB packer must give detail::glb's bytes for every padding case.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "gltf/glb_pack.hpp"
#include "gltf/model_json.hpp"

TEST(GlbPack, AppendedEqualsZeroFilledGlb) {
  std::mt19937 rng(7);
  for (std::size_t jn = 0; jn < 12; ++jn)
    for (std::size_t bn = 0; bn < 12; ++bn) {
      std::string json(jn * 37 % 101 + jn, 'x');
      for (auto& c : json) c = static_cast<char>('a' + rng() % 26);
      std::vector<std::uint8_t> bin(bn == 0 ? 0 : bn * 13 + bn % 4);
      for (auto& b : bin) b = static_cast<std::uint8_t>(rng());
      const auto want = rigrip::gltf::detail::glb(json, bin);
      const auto got = rigrip::gltf::detail::glb_appended(json, bin);
      ASSERT_EQ(got, want) << jn << " " << bn;
      ASSERT_EQ(got.capacity(), got.size());  // sized once
    }
}
