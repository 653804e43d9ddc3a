// The DA bitstream: the seed's worked examples, code lengths, and decode(encode(x)) == x.
#include <chrono>
#include <random>
#include <string>

#include <gtest/gtest.h>

#include "formats/ff7/da.hpp"

using namespace rigrip;
using namespace rigrip::ff7;

namespace {
std::string bits_of(int delta, int key) {
  core::bit_writer w(core::bit_order::msb_first);
  write_rotation_delta(w, delta, key);
  std::string s;
  core::bit_reader r(w.bytes(), core::bit_order::msb_first);
  for (std::uint64_t i = 0; i < w.bit_pos(); ++i) s += r.bit() ? '1' : '0';
  return s;
}

int decode_one(const std::string& bits, int key) {
  core::bit_writer w(core::bit_order::msb_first);
  for (char c : bits) w.write(c == '1', 1);
  core::bit_reader r(w.bytes(), core::bit_order::msb_first);
  return read_rotation_delta(r, key);
}

std::vector<da_frame> random_anim(std::mt19937& rng, std::size_t nrot, std::size_t frames, int key) {
  std::uniform_int_distribution<int> any16(-32768, 32767), any12(0, 4095), pick(0, 9);
  std::uniform_int_distribution<int> small(-70, 70), big(-2048, 2047);
  std::vector<da_frame> out;
  da_frame f;
  f.position = {static_cast<std::int16_t>(any16(rng)), static_cast<std::int16_t>(any16(rng)), static_cast<std::int16_t>(any16(rng))};
  f.rotations.resize(nrot);
  for (auto& t : f.rotations)
    for (auto& c : t) c = static_cast<std::int16_t>(any12(rng));
  out.push_back(f);
  for (std::size_t i = 1; i < frames; ++i) {
    for (auto& p : f.position) {
      int k = pick(rng);
      p = static_cast<std::int16_t>(p + (k < 6 ? small(rng) : k < 9 ? big(rng) * 8 : any16(rng)));
    }
    for (auto& t : f.rotations)
      for (auto& c : t) {
        int k = pick(rng);
        int d = k < 3 ? 0 : k < 4 ? -1 : k < 8 ? small(rng) : big(rng);
        c = static_cast<std::int16_t>(c + d * (k == 4 ? (1 << key) : 1));
      }
    out.push_back(f);
  }
  return out;
}
}  // namespace

TEST(Seed, CloudFirstFramePosition) {
  // rtda animation 0: the first six bitstream bytes are 00 00 FE 2E 00 00 -> (0, -466, 0).
  std::vector<std::uint8_t> bits = {0x00, 0x00, 0xFE, 0x2E, 0x00, 0x00};
  // One root triple at key 0 (36 bits) follows the positions.
  bits.resize(bits.size() + 5, 0);
  auto r = decode_bitstream(bits, 0, 1, 1, 0);
  ASSERT_EQ(r.frames.size(), 1u);
  EXPECT_EQ(r.frames[0].position, (triple{0, -466, 0}));
}

TEST(Seed, DeltaEncodingsMatchQhimmTable) {
  EXPECT_EQ(bits_of(0, 0), "0");
  EXPECT_EQ(bits_of(-1, 0), "1000");
  EXPECT_EQ(bits_of(-5, 0), "1011111");
  EXPECT_EQ(bits_of(15, 0), "11000111");
  // 128 does not fit the 1-6-bit forms: type 7, raw (12 - key) bits.
  EXPECT_EQ(bits_of(128, 0), "1111000010000000");
  EXPECT_EQ(bits_of(-1, 4), "1000");
  EXPECT_EQ(bits_of(100, 4), "111101100100");  // raw at key 4: 8 bits
}

TEST(Seed, DeltaDecodingsMatchQhimmTable) {
  EXPECT_EQ(decode_one("0", 0), 0);
  EXPECT_EQ(decode_one("1000", 0), -1);
  EXPECT_EQ(decode_one("1011111", 0), -5);
  EXPECT_EQ(decode_one("11000111", 0), 15);
  EXPECT_EQ(decode_one("1111000010000000", 0), 128);
  // Reduced precision: the same codes scaled by 1 << key.
  EXPECT_EQ(decode_one("1000", 2), -4);
  EXPECT_EQ(decode_one("11000111", 4), 15 * 16);
  EXPECT_EQ(decode_one("11110000000010", 2), 8);  // raw 10 bits at key 2
}

TEST(Bitstream, ShortestCodeForEveryDelta) {
  for (int key : {0, 2, 4}) {
    const int half = 1 << (11 - key);
    for (int d = -half; d < half; ++d) {
      auto s = bits_of(d, key);
      // Brute force: the shortest of every form that decodes to d.
      std::size_t best = 1000;
      if (d == 0) best = 1;
      if (d == -1) best = std::min<std::size_t>(best, 4);
      for (int n = 1; n <= 6; ++n) {
        bool in = (d >= (1 << (n - 1)) && d <= (1 << n) - 1) || (d <= -(1 << (n - 1)) - 1 && d >= -(1 << n));
        if (in) best = std::min<std::size_t>(best, 4u + static_cast<std::size_t>(n));
      }
      best = std::min<std::size_t>(best, 16u - static_cast<std::size_t>(key));
      ASSERT_EQ(s.size(), best) << "delta " << d << " key " << key;
      ASSERT_EQ(decode_one(s, key), d * (1 << key)) << "delta " << d << " key " << key;
      ASSERT_EQ(static_cast<int>(s.size()), rotation_delta_bits(d, key));
    }
  }
}

TEST(Bitstream, PositionDeltasUse7Or16Bits) {
  std::vector<da_frame> f(3);
  for (auto& x : f) x.rotations = {{0, 0, 0}};
  f[1].position = {63, -64, 0};   // 7-bit forms
  f[2].position = {127, -64, 0};  // +64 needs 16 bits
  auto bits = encode_bitstream(f, 0);
  // frame 0: 48 + 36; frame 1: 3 x 8 + 3 x 1; frame 2: 17 + 8 + 8 + 3.
  EXPECT_EQ(bits.size(), (84u + 27u + 36u + 7u) / 8u);
  auto r = decode_bitstream(bits, 0, 1, 3, 0);
  ASSERT_EQ(r.frames.size(), 3u);
  EXPECT_EQ(r.frames[2].position, (triple{127, -64, 0}));
}

TEST(Bitstream, WrapAroundPast4095) {
  // 4000 -> 100 (+196 across the wrap) and an accumulator that climbs past 4095.
  std::vector<da_frame> f(4);
  std::int16_t seq[4] = {4000, 100, 300, 4095};
  for (int i = 0; i < 4; ++i) f[static_cast<std::size_t>(i)].rotations = {{seq[i], 0, 0}};
  auto bits = encode_bitstream(f, 0);
  auto r = decode_bitstream(bits, 0, 1, 4, 0);
  ASSERT_EQ(r.frames.size(), 4u);
  EXPECT_EQ(canonical(r.frames), canonical(f));
  // Hand-built stream: frame 0 rotation 4095 stored as -1 (12-bit signed), then +1 each frame.
  core::bit_writer w(core::bit_order::msb_first);
  for (int i = 0; i < 3; ++i) w.write(0, 16);
  w.write_signed(-1, 12);
  w.write(0, 12);
  w.write(0, 12);
  for (int fr = 0; fr < 3; ++fr) {
    for (int i = 0; i < 3; ++i) w.write(0, 8);
    write_rotation_delta(w, 1, 0);
    w.write(0, 2);
  }
  auto h = decode_bitstream(w.bytes(), 0, 1, 4, 0);
  ASSERT_EQ(h.frames.size(), 4u);
  EXPECT_EQ(h.frames[0].rotations[0][0], -1);  // accumulator as stored
  EXPECT_EQ(canonical(h.frames)[3].rotations[0][0], 2);  // 4095 + 3 wraps to 2
}

TEST(Bitstream, PropertyDecodeEncodeIsIdentityOverThousandsOfAnimations) {
  std::mt19937 rng(1234);
  std::uniform_int_distribution<int> nrot_d(1, 24), frames_d(1, 40), key_d(0, 2);
  std::size_t ours = 0, naive = 0;
  for (int iter = 0; iter < 3000; ++iter) {
    int key = 2 * key_d(rng);
    auto nrot = static_cast<std::size_t>(nrot_d(rng));
    auto frames = static_cast<std::size_t>(frames_d(rng));
    auto x = quantise(random_anim(rng, nrot, frames, key), key);
    auto bits = encode_bitstream(x, key);
    auto r = decode_bitstream(bits, key, nrot, frames, 0);
    ASSERT_FALSE(r.stopped_early) << "iteration " << iter;
    ASSERT_EQ(canonical(r.frames), x) << "iteration " << iter << " key " << key;
    // Re-encoding what we decoded reproduces the same bytes.
    ASSERT_EQ(encode_bitstream(canonical(r.frames), key), bits);
    auto kimera = encode_bitstream(x, key, encode_options{true});
    ASSERT_EQ(canonical(decode_bitstream(kimera, key, nrot, frames, 0).frames), x);
    ours += bits.size();
    naive += kimera.size();
  }
  EXPECT_LT(ours, naive);
  std::printf("[ff7] random animations: shortest-code encoder %zu bytes, negatives-raw encoder %zu bytes (%.1f%% smaller)\n",
              ours, naive, 100.0 * (1.0 - static_cast<double>(ours) / static_cast<double>(naive)));
}

TEST(Bitstream, TruncatedStreamStopsOrFailsWithOffset) {
  std::mt19937 rng(7);
  auto x = quantise(random_anim(rng, 5, 30, 0), 0);
  auto bits = encode_bitstream(x, 0);
  for (std::size_t cut = 0; cut < bits.size(); ++cut) {
    std::vector<std::uint8_t> part(bits.begin(), bits.begin() + static_cast<std::ptrdiff_t>(cut));
    auto t0 = std::chrono::steady_clock::now();
    try {
      auto r = decode_bitstream(part, 0, 5, 30, 100);
      EXPECT_TRUE(r.stopped_early);
      EXPECT_LT(r.frames.size(), 30u);
      for (std::size_t i = 0; i < r.frames.size(); ++i) EXPECT_EQ(canonical({r.frames[i]})[0], x[i]);
    } catch (const core::failure& f) {
      EXPECT_EQ(f.error().code, code::truncated);
      EXPECT_GE(f.error().offset, 100u);  // absolute offset of the bitstream
      EXPECT_LE(f.error().offset, 100u + cut);
    }
    EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(1));
  }
  // A frame count far beyond the data: bounded by the bits, not by the count.
  auto r = decode_bitstream(bits, 0, 5, 65535, 0);
  EXPECT_EQ(r.frames.size(), 30u);
  EXPECT_TRUE(r.stopped_early);
}

TEST(Bitstream, KeyChoiceFitsTheLimitWithLeastError) {
  std::mt19937 rng(3);
  // Multiples of 16: key 4 is lossless and smallest.
  auto x = quantise(random_anim(rng, 4, 10, 4), 4);
  auto c = choose_key(x);
  EXPECT_EQ(c.key, 4);
  EXPECT_EQ(c.error, 0);
  // Arbitrary values: key 0 is exact.
  auto y = canonical(random_anim(rng, 4, 10, 0));
  y[0].rotations[0][0] = 1;
  EXPECT_EQ(choose_key(y).key, 0);
  // Too big for key 0 (> 65535 bytes) but fits at a lower precision.
  std::vector<da_frame> big;
  std::uniform_int_distribution<int> step(-100, 100);
  da_frame f;
  f.rotations.resize(20);
  for (int i = 0; i < 1000; ++i) {  // 60000 smooth deltas: ~11 bits each at key 0, ~7 at key 4
    for (auto& t : f.rotations)
      for (auto& v : t) v = static_cast<std::int16_t>(((v + step(rng)) % 4096 + 4096) % 4096);
    big.push_back(f);
  }
  EXPECT_GT(encode_bitstream(big, 0).size(), 65535u);
  auto cb = choose_key(big);
  EXPECT_GT(cb.key, 0);
  EXPECT_LE(cb.bits.size(), 65535u);
}
