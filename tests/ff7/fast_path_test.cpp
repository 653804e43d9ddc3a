// Fast paths of the DA decode that must equal the plain formulas bit for bit: the
// unchecked frame reader of decode_bitstream, and raw_rotation's short quaternion products.
#include <cstring>
#include <optional>
#include <random>

#include <gtest/gtest.h>

#include "formats/ff7/anim_a.hpp"
#include "formats/ff7/da.hpp"
#include "formats/ff7/da_bitstream.hpp"
#include "formats/ff7/euler.hpp"
#include "formats/ff7/tex.hpp"

using namespace rigrip;
using namespace rigrip::ff7;

namespace {
// decode_bitstream as it was before the unchecked path: every field through the checked reader.
decode_result reference_decode(std::span<const std::uint8_t> bits, int key, std::size_t nrot,
                               std::size_t max_frames, std::uint64_t base) {
  decode_result out;
  core::bit_reader r(bits, core::bit_order::msb_first, base);
  da_frame cur;
  cur.rotations.assign(nrot, triple{0, 0, 0});
  for (std::size_t f = 0; f < max_frames; ++f) {
    std::uint64_t frame_start = r.bit_pos();
    try {
      da_frame next = cur;
      if (f == 0) {
        for (auto& p : next.position) p = static_cast<std::int16_t>(r.read_signed(16));
        for (auto& t : next.rotations)
          for (auto& c : t)
            c = static_cast<std::int16_t>(r.read_signed(static_cast<unsigned>(12 - key)) * (1 << key));
      } else {
        for (auto& p : next.position) {
          int d = r.bit() ? r.read_signed(16) : r.read_signed(7);
          p = static_cast<std::int16_t>(p + d);
        }
        for (auto& t : next.rotations)
          for (auto& c : t) c = static_cast<std::int16_t>(c + read_rotation_delta(r, key));
      }
      cur = std::move(next);
      out.frames.push_back(cur);
    } catch (const core::failure& e) {
      if (e.error().code != code::truncated || f == 0) throw;
      r.seek_bit(frame_start);
      out.stopped_early = true;
      break;
    }
  }
  out.bits_used = r.bit_pos();
  return out;
}

struct outcome {
  std::optional<decode_result> result;
  std::string failure;
};
template <class F>
outcome run(F&& f) {
  outcome o;
  try {
    o.result = f();
  } catch (const core::failure& e) {
    o.failure = std::to_string(static_cast<int>(e.error().code)) + " " + e.error().to_string();
  }
  return o;
}

bool same_bits(const quat& a, const quat& b) { return std::memcmp(a.data(), b.data(), sizeof a) == 0; }
}  // namespace

TEST(Bitstream, UncheckedFramesDecodeLikeTheCheckedReader) {
  std::mt19937 rng(1234);
  for (int iter = 0; iter < 3000; ++iter) {
    const int key = static_cast<int>(rng() % 12);
    const std::size_t nrot = rng() % 40;
    const std::size_t frames = 1 + rng() % 60;
    // Random bytes decode to every code kind; real encodings bias towards short codes.
    std::vector<da_frame> anim;
    bytes data;
    if (iter % 2 == 0) {
      data.resize(rng() % 2000);
      for (auto& b : data) b = static_cast<std::uint8_t>(rng());
    } else {
      da_frame f;
      f.rotations.assign(nrot, triple{0, 0, 0});
      for (std::size_t i = 0; i < frames; ++i) {
        for (auto& p : f.position) p = static_cast<std::int16_t>(p + static_cast<int>(rng() % 200) - 100);
        for (auto& t : f.rotations)
          for (auto& c : t) c = static_cast<std::int16_t>((c + static_cast<int>(rng() % 300) - 150 + 4096) % 4096);
        anim.push_back(f);
      }
      data = encode_bitstream(quantise(anim, key), key);
      if (rng() % 3 == 0) data.resize(rng() % (data.size() + 1));  // truncated
    }
    const std::size_t max_frames = rng() % 4 == 0 ? 65535 : frames;
    auto fast = run([&] { return decode_bitstream(data, key, nrot, max_frames, 77); });
    auto slow = run([&] { return reference_decode(data, key, nrot, max_frames, 77); });
    ASSERT_EQ(fast.failure, slow.failure) << "iteration " << iter;
    ASSERT_EQ(fast.result.has_value(), slow.result.has_value());
    if (!fast.result) continue;
    ASSERT_EQ(fast.result->frames, slow.result->frames) << "iteration " << iter;
    ASSERT_EQ(fast.result->stopped_early, slow.result->stopped_early);
    ASSERT_EQ(fast.result->bits_used, slow.result->bits_used);
  }
}

TEST(Battle, RawRotationShortProductsAreTheFullProductBitForBit) {
  std::mt19937 rng(99);
  auto check = [](const triple& t) {
    quat a = raw_rotation(t), b = raw_rotation_reference(t);
    ASSERT_TRUE(same_bits(a, b)) << t[0] << " " << t[1] << " " << t[2];
  };
  // Every table angle on each axis (zero, quarter and half turns included) against others.
  const std::int16_t special[] = {0, 1, 1024, 2048, 3072, 4095};
  for (int axis = 0; axis < 3; ++axis)
    for (int i = 0; i < 4096; ++i) {
      for (std::int16_t o1 : special)
        for (std::int16_t o2 : special) {
          triple t{o1, o2, o1};
          t[static_cast<std::size_t>(axis)] = static_cast<std::int16_t>(i);
          t[static_cast<std::size_t>((axis + 1) % 3)] = o2;
          check(t);
          if (HasFatalFailure()) return;
        }
      for (int k = 0; k < 16; ++k) {
        triple t{static_cast<std::int16_t>(rng() % 4096), static_cast<std::int16_t>(rng() % 4096),
                 static_cast<std::int16_t>(rng() % 4096)};
        t[static_cast<std::size_t>(axis)] = static_cast<std::int16_t>(i);
        check(t);
        if (HasFatalFailure()) return;
      }
    }
  // Many random triples, also out of range (the accumulators wrap and go negative).
  for (int k = 0; k < 500000; ++k) {
    check({static_cast<std::int16_t>(rng()), static_cast<std::int16_t>(rng()), static_cast<std::int16_t>(rng())});
    if (HasFatalFailure()) return;
  }
}

// raw_rotations (four triples per SSE2 step) against raw_rotation one at a time: every
// length 0..40 (the scalar tail included), the special angles, wrapped and negative inputs,
// and nothing written past the output.
TEST(Battle, RawRotationsBatchEqualsOneAtATime) {
  std::mt19937 rng(7);
  const std::int16_t special[] = {0, 1, 1023, 1024, 1025, 2048, 3072, 4095, 4096, -1, -2048, 32767, -32768};
  auto pick = [&]() -> std::int16_t {
    return rng() % 3 == 0 ? special[rng() % std::size(special)] : static_cast<std::int16_t>(rng());
  };
  for (int round = 0; round < 400; ++round)
    for (std::size_t len = 0; len <= 40; ++len) {
      std::vector<triple> in(len);
      for (auto& t : in) t = {pick(), pick(), pick()};
      std::vector<float> out(4 * len + 4, 12345.0f), plain(4 * len + 4, 12345.0f);
      raw_rotations(in, out.data());
      raw_rotations_scalar(in, plain.data());
      for (std::size_t i = 0; i < len; ++i) {
        quat a{out[4 * i], out[4 * i + 1], out[4 * i + 2], out[4 * i + 3]};
        ASSERT_TRUE(same_bits(a, raw_rotation(in[i]))) << "length " << len << " index " << i;
      }
      ASSERT_EQ(0, std::memcmp(out.data(), plain.data(), out.size() * sizeof(float))) << "length " << len;
      for (std::size_t c = 4 * len; c < out.size(); ++c) ASSERT_EQ(out[c], 12345.0f) << "wrote past the end";
    }
}

namespace {
// The detectors as they were: the full parse, any failure meaning "not this format".
int reference_detect_a(std::span<const std::uint8_t> data) {
  if (data.size() < 36) return score::none;
  try {
    auto a = parse_a(data);
    if (a.frames.empty()) return score::none;
    return a.trailing.empty() ? score::structure + 10 : score::name_only;
  } catch (...) {
    return score::none;
  }
}
int reference_detect_da(std::span<const std::uint8_t> data) {
  try {
    if (data.size() < 4 + 12) return score::none;
    auto p = parse_da(data);
    if (p.count == 0 || p.trailing.size() > 64) return score::none;
    bool any_anim = false;
    for (const auto& c : p.chunks) {
      if (c.special) continue;
      if (c.key != 0 && c.key != 2 && c.key != 4) return score::none;
      if (c.bones_field == 0 || c.bones_field > 1000) return score::none;
      any_anim = true;
    }
    if (!any_anim) return score::none;
    return p.trailing.empty() ? score::structure + 10 : score::structure;
  } catch (...) {
    return score::none;
  }
}

bytes mutate(bytes d, std::mt19937& rng) {
  switch (rng() % 5) {
    case 0: if (!d.empty()) d[rng() % d.size()] = static_cast<std::uint8_t>(rng()); break;
    case 1: d.resize(rng() % (d.size() + 1)); break;
    case 2: for (int k = 0; k < 1 + static_cast<int>(rng() % 70); ++k) d.push_back(static_cast<std::uint8_t>(rng())); break;
    case 3: if (d.size() > 16) d[rng() % 16] = static_cast<std::uint8_t>(rng() % 4); break;  // header fields
    default: break;
  }
  return d;
}
}  // namespace

TEST(Detect, ValueDetectorsMatchTheParsingDetectors) {
  std::mt19937 rng(7);
  int a_hits = 0, da_hits = 0;
  for (int iter = 0; iter < 4000; ++iter) {
    // A field animation.
    a_file a;
    a.bone_count = rng() % 4 == 0 ? static_cast<std::uint32_t>(rng() % 2000) : static_cast<std::uint32_t>(rng() % 5);
    if (rng() % 3 == 0) a.order = {static_cast<std::uint8_t>(rng() % 4), static_cast<std::uint8_t>(rng() % 4),
                                   static_cast<std::uint8_t>(rng() % 4), 0};
    a.frames.resize(rng() % 4);
    for (auto& f : a.frames) f.rotations.resize(std::min<std::uint32_t>(a.bone_count, 5));
    bytes ab = serialise_a(a);
    for (int m = 0; m < 3; ++m) {
      ASSERT_EQ(detect_a(ab), reference_detect_a(ab)) << iter;
      a_hits += reference_detect_a(ab) != score::none;
      ab = mutate(std::move(ab), rng);
    }
    // A DA pack of animation and special chunks.
    da_pack p;
    const int n = static_cast<int>(rng() % 4);
    for (int k = 0; k < n; ++k) {
      da_chunk c;
      if (rng() % 4 == 0) {
        c.body.assign(rng() % 11, std::uint8_t{1});
        c.chunk_size = static_cast<std::uint32_t>(c.body.size());
        c.bones_field = static_cast<std::uint32_t>(rng() % 3);
      } else {
        std::vector<da_frame> frames(1 + rng() % 3);
        const std::size_t nrot = 1 + rng() % 3;
        for (auto& f : frames) f.rotations.assign(nrot, triple{1, 2, 3});
        c = make_chunk(frames, static_cast<int>(rng() % 3) * 2, static_cast<std::uint32_t>(rng() % 1003));
        if (rng() % 4 == 0) {  // the RSAA layout: no sFrames field
          c.body.erase(c.body.begin(), c.body.begin() + 2);
          c.body.resize(c.body.size() + rng() % 3);
        }
      }
      p.chunks.push_back(std::move(c));
    }
    p.count = static_cast<std::uint32_t>(p.chunks.size());
    p.trailing.resize(rng() % 80);
    bytes db = serialise_da(p);
    for (int m = 0; m < 3; ++m) {
      ASSERT_EQ(detect_da(db), reference_detect_da(db)) << iter;
      da_hits += reference_detect_da(db) != score::none;
      db = mutate(std::move(db), rng);
    }
    bytes noise(rng() % 200);
    for (auto& b : noise) b = static_cast<std::uint8_t>(rng() % 8);
    ASSERT_EQ(detect_a(noise), reference_detect_a(noise));
    ASSERT_EQ(detect_da(noise), reference_detect_da(noise));
  }
  EXPECT_GT(a_hits, 100);  // the inputs reach the accepting paths too
  EXPECT_GT(da_hits, 100);
}

// detect_tex's header pre-check may only turn away files the parse-based verdict turns away:
// valid TEX files (with trailing bytes, palettes, colour keys) and header words set to every
// boundary value, compared against the verdict taken from parse_tex alone.
namespace {
int tex_verdict_by_parse(std::span<const std::uint8_t> d) {
  if (d.size() < 0xEC) return score::none;
  try {
    auto t = parse_tex(d);
    if (t.header[w_palette_flag] > 1 || t.header[w_color_key] > 1) return score::none;
    return t.trailing.empty() ? score::structure + 20 : score::structure;
  } catch (...) {
    return score::none;
  }
}
}  // namespace

TEST(TexDetect, HeaderPrecheckKeepsTheParseVerdict) {
  std::vector<std::uint8_t> rgba(8 * 4 * 4);
  for (std::size_t i = 0; i < rgba.size(); ++i) rgba[i] = static_cast<std::uint8_t>(i * 37 % 5 * 60);
  const bytes base = serialise_tex(build_tex(8, 4, rgba));
  ASSERT_EQ(detect_tex(base), score::structure + 20);
  const std::uint32_t values[] = {0, 1, 2, 3, 4, 5, 7, 8, 255, 16384, 16385, 65536, 0x7FFFFFFF, 0xFFFFFFFF};
  const int words[] = {w_version, w_color_key, w_width, w_height, w_palette_flag, w_palette_size,
                       w_bytes_per_pixel, w_palettes, 24};
  std::mt19937 rng(7);
  int accepted = 0, checked = 0;
  for (int extra : {0, 3}) {
    for (int w : words)
      for (std::uint32_t v : values) {
        bytes d = base;
        d.resize(d.size() + extra, 0xAB);
        std::memcpy(d.data() + 4 * w, &v, 4);
        const int want = tex_verdict_by_parse(d);
        EXPECT_EQ(detect_tex(d), want) << "word " << w << " = " << v << ", " << extra << " trailing bytes";
        accepted += want != score::none;
        ++checked;
      }
    for (int k = 0; k < 2000; ++k) {  // two random header words at once
      bytes d = base;
      d.resize(d.size() + extra, 0);
      for (int j = 0; j < 2; ++j) {
        std::uint32_t v = values[rng() % std::size(values)];
        std::memcpy(d.data() + 4 * words[rng() % std::size(words)], &v, 4);
      }
      EXPECT_EQ(detect_tex(d), tex_verdict_by_parse(d));
      ++checked;
    }
  }
  EXPECT_GT(accepted, 10) << "the cases must include files the detector accepts";
  EXPECT_GT(checked, 4000);
}
