// curve::value with a segment cursor (frames sampled in order) gives exactly value(frame).
#include <gtest/gtest.h>

#include <bit>
#include <random>

#include "formats/bfres/fres.hpp"

using namespace rigrip::bfres;

namespace {
curve make(curve_type type, int pre_wrap, int post_wrap, std::vector<float> frames) {
  curve c;
  c.flags = static_cast<std::uint16_t>((static_cast<int>(type) << 4) | (pre_wrap << 8) | (post_wrap << 12));
  c.num_keys = static_cast<std::uint16_t>(frames.size());
  c.start = frames.front();
  c.end = frames.back();
  c.scale_bits = std::bit_cast<std::uint32_t>(0.5f);
  c.offset_bits = std::bit_cast<std::uint32_t>(3.0f);
  c.frames = std::move(frames);
  const std::size_t per = type == curve_type::cubic ? 4 : 2;
  for (std::size_t i = 0; i < c.frames.size() * per; ++i) c.keys.push_back(static_cast<float>(i % 7) * 0.37f - 1.0f);
  return c;
}
}  // namespace

TEST(CurveCursor, SameValuesInOrderAndOutOfOrder) {
  std::mt19937 rng(7);
  for (auto type : {curve_type::cubic, curve_type::linear})
    for (int wrap = 0; wrap < 3; ++wrap) {
      // repeated frames (a jump), a key between frames, a range starting after 0
      const curve c = make(type, wrap, wrap, {2.0f, 5.0f, 5.0f, 7.5f, 9.0f, 20.0f, 21.0f});
      std::size_t cursor = 0;
      for (int f = -5; f <= 60; ++f) {
        const double x = f * 0.5;
        EXPECT_EQ(c.value(x, cursor), c.value(x)) << "frame " << x << " wrap " << wrap;
      }
      std::uniform_real_distribution<double> any(-30.0, 60.0);
      for (int i = 0; i < 2000; ++i) {
        const double x = any(rng);
        EXPECT_EQ(c.value(x, cursor), c.value(x)) << "frame " << x;
      }
    }
}
