// curve::value with a segment cursor (frames sampled in order) gives exactly value(frame).
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
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

// curve::eval_frames (a run of frames in one call) gives exactly eval(frame) per frame, for
// every curve type, wrap mode, and runs split at any point (the cursor carries over).
TEST(CurveCursor, EvalFramesSameAsPerFrame) {
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> val(-4.0f, 4.0f);
  const std::vector<std::vector<float>> frame_sets{{2.0f, 5.0f, 5.0f, 7.5f, 9.0f, 20.0f, 21.0f},
                                                   {0.0f, 1.0f, 2.0f, 3.0f, 4.0f, 5.0f, 6.0f, 7.0f, 8.0f, 9.0f},
                                                   {-3.0f, 0.25f, 40.0f},
                                                   {4.0f},
                                                   // covers every frame sampled: whole runs inside the range
                                                   {-10.0f, -2.5f, 3.0f, 3.0f, 10.0f, 33.5f, 64.0f, 90.0f},
                                                   // the whole range again, segment after segment: several keys
                                                   // between two frames, repeated keys, keys on frames
                                                   {-3.0f, -2.9f, -2.9f, -1.0f, 0.5f, 0.6f, 0.6f, 1.0f, 2.0f, 2.25f,
                                                    2.5f, 3.0f, 3.0f, 3.75f, 5.0f, 6.0f, 6.5f, 7.0f, 30.0f, 31.0f,
                                                    31.5f, 66.0f, 66.0f, 70.0f}};
  for (auto type : {curve_type::cubic, curve_type::linear, curve_type::baked_float, curve_type::step_int,
                    curve_type::baked_int, curve_type::step_bool, curve_type::baked_bool})
    for (int pre = 0; pre < 3; ++pre)
      for (int post = 0; post < 3; ++post)
        for (const auto& fs : frame_sets) {
          curve c = make(curve_type::cubic, pre, post, fs);
          c.flags = static_cast<std::uint16_t>((static_cast<int>(type) << 4) | (pre << 8) | (post << 12));
          c.keys.clear();
          for (std::size_t i = 0; i < fs.size() * static_cast<std::size_t>(c.elements_per_key()); ++i)
            c.keys.push_back(val(rng));
          c.keys_raw.assign(fs.size() / 32 + 1, static_cast<std::int64_t>(rng()));
          if (type == curve_type::step_int || type == curve_type::baked_int) {
            c.offset_bits = 3;
            for (auto& k : c.keys) k = std::round(k);
          }
          for (std::size_t split : {std::size_t{1}, std::size_t{7}, std::size_t{256}}) {
            std::vector<float> got(70);
            std::size_t cursor = 0;
            for (std::size_t at = 0; at < got.size(); at += split)
              c.eval_frames(static_cast<std::int32_t>(at) - 3, std::min(split, got.size() - at), &got[at], cursor);
            for (std::size_t j = 0; j < got.size(); ++j) {
              const float f = static_cast<float>(static_cast<int>(j) - 3);
              EXPECT_EQ(std::bit_cast<std::uint32_t>(got[j]), std::bit_cast<std::uint32_t>(c.eval(f)))
                  << "type " << static_cast<int>(type) << " wrap " << pre << post << " frame " << f;
            }
          }
        }
}

// eval_frames' step for a frame on a key (the value is the key's k0) and its run over keys on
// consecutive frames against eval() per frame, bit for bit, on curves keyed at every frame (with
// and without repeated keys) and at every other frame, whose coefficients are
// +-0, negative, positive and tiny in every combination (a k0 of +-0 must take the full
// polynomial: its signed zero comes from the other terms), with offsets of 0 and -0.
TEST(CurveCursor, EvalFramesOnKeysEqualsPerFrame) {
  const float coef[] = {0.0f, -0.0f, 1.5f, -2.25f, 1e-30f, -7.0f};
  std::mt19937 rng(23);
  std::uniform_int_distribution<std::size_t> pick(0, std::size(coef) - 1);
  for (auto type : {curve_type::cubic, curve_type::linear})
    for (int mode = 0; mode < 3; ++mode)  // keys on every frame, every other frame, every frame with repeats
      for (float offset : {0.0f, -0.0f, 0.75f})
        for (int round = 0; round < 40; ++round) {
          const float step = mode == 1 ? 2.0f : 1.0f;
          std::vector<float> fs;
          for (int k = 0; k < 30; ++k) {
            fs.push_back(static_cast<float>(k) * step);
            if (mode == 2 && k % 4 == 1) fs.push_back(static_cast<float>(k) * step);
          }
          curve c = make(type, 0, 0, fs);
          c.offset_bits = std::bit_cast<std::uint32_t>(offset);
          if (round % 2) c.scale_bits = std::bit_cast<std::uint32_t>(-1.0f);
          for (auto& k : c.keys) k = coef[pick(rng)];
          for (std::size_t split : {std::size_t{1}, std::size_t{5}, std::size_t{256}}) {
            // Far frames too (no exact double counter past 2^24: whole frames round to floats).
            if (round == 0 && split == 256) {
              std::vector<float> far;
              for (int k = -6; k < 12; ++k) far.push_back(static_cast<float>((1 << 24) + k));  // repeats past 2^24
              curve cf = make(type, 0, 0, far);
              for (auto& k : cf.keys) k = coef[pick(rng)];
              std::vector<float> got(18);
              std::size_t cursor = 0;
              const std::int32_t first = (1 << 24) - 6;  // inside [start, end]: the run paths
              cf.eval_frames(first, got.size(), got.data(), cursor);
              for (std::size_t j = 0; j < got.size(); ++j) {
                const float f = static_cast<float>(first + static_cast<std::int32_t>(j));
                ASSERT_EQ(std::bit_cast<std::uint32_t>(got[j]), std::bit_cast<std::uint32_t>(cf.eval(f))) << "far frame " << f;
              }
            }
            std::vector<float> got(static_cast<std::size_t>(30 * step));
            std::size_t cursor = 0;
            for (std::size_t at = 0; at < got.size(); at += split)
              c.eval_frames(static_cast<std::int32_t>(at), std::min(split, got.size() - at), &got[at], cursor);
            for (std::size_t j = 0; j < got.size(); ++j) {
              const float f = static_cast<float>(j);
              ASSERT_EQ(std::bit_cast<std::uint32_t>(got[j]), std::bit_cast<std::uint32_t>(c.eval(f)))
                  << "type " << static_cast<int>(type) << " step " << step << " frame " << f;
            }
          }
        }
}

// value_left and slope with cursors (frames in increasing order, as vec3_track visits key
// frames, extra keys just before them, and frames between) give exactly the plain results;
// out of order too (the cursors fall back to a search).
TEST(CurveCursor, ValueLeftAndSlopeSameWithCursors) {
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> val(-4.0f, 4.0f);
  const std::vector<std::vector<float>> frame_sets{{2.0f, 5.0f, 5.0f, 7.5f, 9.0f, 20.0f, 21.0f},
                                                   {0.0f, 1.0f, 2.0f, 3.0f, 4.0f, 5.0f},
                                                   {-3.0f, 0.25f, 0.25f, 0.25f, 40.0f},
                                                   {4.0f}};
  for (auto type : {curve_type::cubic, curve_type::linear, curve_type::baked_float})
    for (int wrap = 0; wrap < 3; ++wrap)
      for (const auto& fs : frame_sets) {
        curve c = make(curve_type::cubic, wrap, wrap, fs);
        c.flags = static_cast<std::uint16_t>((static_cast<int>(type) << 4) | (wrap << 8) | (wrap << 12));
        c.keys.clear();
        for (std::size_t i = 0; i < fs.size() * static_cast<std::size_t>(c.elements_per_key()); ++i) c.keys.push_back(val(rng));
        std::vector<double> xs;
        for (int f = -12; f <= 90; ++f) xs.push_back(f * 0.5);
        for (float k : fs) xs.push_back(k), xs.push_back(k - 1e-4), xs.push_back(std::nextafter(static_cast<double>(k), -100.0));
        std::sort(xs.begin(), xs.end());
        std::uniform_real_distribution<double> any(-10.0, 50.0);
        for (int i = 0; i < 300; ++i) xs.push_back(any(rng));  // then out of order
        std::size_t lower = 0, cursor = 0;
        for (double x : xs) {
          const auto bits = [](double d) { return std::bit_cast<std::uint64_t>(d); };
          EXPECT_EQ(bits(c.value_left(x, lower, cursor)), bits(c.value_left(x))) << "frame " << x;
          EXPECT_EQ(bits(c.slope(x, true, lower, cursor)), bits(c.slope(x, true))) << "frame " << x;
          EXPECT_EQ(bits(c.slope(x, false, lower, cursor)), bits(c.slope(x, false))) << "frame " << x;
          EXPECT_EQ(bits(c.value(x, cursor)), bits(c.value(x))) << "frame " << x;
        }
      }
}
