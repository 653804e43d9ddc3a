// Fast paths of the curve reader and sampler against their per-element formulas:
// read_curve_arrays (arrays built without zero-fill, type dispatch hoisted) and jumps_at.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <fstream>
#include <iterator>
#include <optional>
#include <random>

#include "core/byte_reader.hpp"
#include "core/failure.hpp"
#include "formats/bfres/curve_eval.hpp"
#include "formats/bfres/fres.hpp"
#include "formats/bfres/fres_detail.hpp"

using namespace rigrip;
using namespace rigrip::bfres;

namespace {

// The arrays as the reader decoded them before (one element at a time, the old formula).
struct reference {
  std::vector<float> frames, keys;
  std::vector<std::int64_t> frames_raw, keys_raw;
  std::optional<std::pair<code, std::uint64_t>> failure;  // first array check that fails
};

std::uint32_t word(const std::vector<std::uint8_t>& d, std::size_t at, int bytes, bool big) {
  std::uint32_t v = 0;
  for (int b = 0; b < bytes; ++b) {
    const std::uint32_t byte = d[at + static_cast<std::size_t>(b)];
    v |= big ? byte << (8 * (bytes - 1 - b)) : byte << (8 * b);
  }
  return v;
}

reference decode_reference(const std::vector<std::uint8_t>& d, const curve& c, bool big) {
  reference r;
  const int fs[] = {4, 2, 1}, ft = c.frame_type(), kt = c.key_type();
  const bool keyed = c.type() != curve_type::baked_float && c.type() != curve_type::baked_int &&
                     c.type() != curve_type::baked_bool;
  for (std::uint32_t i = 0; i < c.num_keys; ++i) {
    const std::size_t at = c.frames_at + i * static_cast<std::size_t>(fs[ft]);
    if (ft == 0) {
      const std::uint32_t bits = word(d, at, 4, big);
      r.frames_raw.push_back(bits);
      r.frames.push_back(std::bit_cast<float>(bits));
    } else if (ft == 1) {
      const auto v = static_cast<std::int16_t>(word(d, at, 2, big));
      r.frames_raw.push_back(v);
      r.frames.push_back(static_cast<float>(v) / 32.0f);
    } else {
      r.frames_raw.push_back(d[at]);
      r.frames.push_back(d[at]);
    }
    if (keyed && !r.failure && (!std::isfinite(r.frames[i]) || (i > 0 && r.frames[i] < r.frames[i - 1])))
      r.failure = {code::bad_value, at};
  }
  if (r.failure) return r;
  const bool bits = c.type() == curve_type::step_bool || c.type() == curve_type::baked_bool;
  const std::size_t n = bits ? (c.num_keys + 31u) / 32u : std::size_t{c.num_keys} * static_cast<std::size_t>(c.elements_per_key());
  for (std::size_t i = 0; i < n; ++i) {
    const std::size_t at = c.keys_at + i * static_cast<std::size_t>(fs[kt]);
    if (kt == 0) {
      const std::uint32_t b = word(d, at, 4, big);
      r.keys_raw.push_back(b);
      r.keys.push_back(c.is_float() ? std::bit_cast<float>(b) : static_cast<float>(static_cast<std::int32_t>(b)));
      if (!std::isfinite(r.keys.back()) && !r.failure) r.failure = {code::bad_value, at};
    } else if (kt == 1) {
      const auto v = static_cast<std::int16_t>(word(d, at, 2, big));
      r.keys_raw.push_back(v);
      r.keys.push_back(v);
    } else {
      const auto v = static_cast<std::int8_t>(d[at]);
      r.keys_raw.push_back(v);
      r.keys.push_back(v);
    }
  }
  return r;
}

bool same_bits(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0);
}

}  // namespace

// Every curve type x frame type x key type x byte order, random array contents (sorted
// frames most of the time; NaN, infinite and decreasing frames, non-finite keys now and
// then): the same raw values and floats bit for bit, or the same failure (code, offset).
TEST(CurveFastPaths, ReadArraysEqualsPerElementFormula) {
  std::mt19937 rng(16);
  int compared = 0, failures = 0;
  for (int round = 0; round < 40; ++round)
    for (int type : {0, 1, 2, 4, 5, 6, 7})
      for (int ft = 0; ft < 3; ++ft)
        for (int kt = 0; kt < 3; ++kt)
          for (bool big : {true, false}) {
            const std::uint16_t num_keys = static_cast<std::uint16_t>(1 + rng() % (round < 20 ? 9 : 300));
            std::vector<std::uint8_t> d(64 + 4u * num_keys + 16u * num_keys + 64);
            for (auto& b : d) b = static_cast<std::uint8_t>(rng());
            curve c;
            c.at = 0;
            c.flags = static_cast<std::uint16_t>(ft | (kt << 2) | (type << 4));
            c.num_keys = num_keys;
            c.start = 0;
            c.end = 1000;
            c.scale_bits = std::bit_cast<std::uint32_t>(1.0f);
            c.offset_bits = 0;
            c.frames_at = 16 + static_cast<std::uint32_t>(rng() % 8);
            c.keys_at = static_cast<std::uint32_t>(c.frames_at + 4u * num_keys + rng() % 8);
            // Mostly increasing frames: write them in the stored type.
            const int mode = static_cast<int>(rng() % 4);  // 0, 1: sorted; 2: random bytes; 3: sorted with a NaN or a step back
            // The bad frame anywhere: first, last, inside or after a four-frame step of the check.
            const std::uint32_t bad_at = round % 2 ? num_keys / 2 : static_cast<std::uint32_t>(rng() % num_keys);
            if (mode != 2) {
              float f = 0;
              for (std::uint32_t i = 0; i < num_keys; ++i) {
                f += static_cast<float>(rng() % 3);
                const std::size_t at = c.frames_at + i * (ft == 0 ? 4u : ft == 1 ? 2u : 1u);
                std::uint32_t v = ft == 0 ? std::bit_cast<std::uint32_t>(f) : ft == 1 ? static_cast<std::uint32_t>(f * 32) : static_cast<std::uint32_t>(f) & 0xFF;
                if (mode == 3 && i == bad_at) v = ft == 0 ? 0x7FC00000u : 0;  // NaN, or a step back to 0
                for (int b = 0, w = ft == 0 ? 4 : ft == 1 ? 2 : 1; b < w; ++b)
                  d[at + static_cast<std::size_t>(b)] = static_cast<std::uint8_t>(big ? v >> (8 * (w - 1 - b)) : v >> (8 * b));
              }
            }
            const reference want = decode_reference(d, c, big);
            core::byte_reader file(d, big ? core::endian::big : core::endian::little);
            detail::reset_work(d.size());
            std::optional<std::pair<code, std::uint64_t>> got_failure;
            try {
              detail::read_curve_arrays(file, c);
            } catch (const core::failure& e) {
              got_failure = {e.error().code, e.error().offset};
            }
            ASSERT_EQ(got_failure.has_value(), want.failure.has_value()) << "type " << type << " ft " << ft << " kt " << kt;
            if (want.failure) {
              EXPECT_EQ(got_failure->first, want.failure->first);
              EXPECT_EQ(got_failure->second, want.failure->second);
              ++failures;
              continue;
            }
            EXPECT_TRUE(same_bits(c.frames, want.frames)) << "type " << type << " ft " << ft;
            EXPECT_TRUE(same_bits(c.keys, want.keys)) << "type " << type << " kt " << kt;
            EXPECT_EQ(c.frames_raw, want.frames_raw);
            EXPECT_EQ(c.keys_raw, want.keys_raw);
            ++compared;
          }
  EXPECT_GT(compared, 2000);
  EXPECT_GT(failures, 200);
}

// jumps_at equals value_left(f) != value(f) for keyed curves with jumps, repeated keys,
// frames on and between keys and outside the range, in order (hints carried) and not.
TEST(CurveFastPaths, JumpsAtEqualsLeftValueComparison) {
  std::mt19937 rng(21);
  int jumps = 0;
  for (int round = 0; round < 400; ++round)
    for (auto type : {curve_type::cubic, curve_type::linear, curve_type::baked_float, curve_type::step_int}) {
      curve c;
      c.flags = static_cast<std::uint16_t>((static_cast<int>(type) << 4) | ((round % 3) << 8) | ((round % 3) << 12));
      const std::uint16_t n = static_cast<std::uint16_t>(1 + rng() % 40);
      c.num_keys = n;
      float f = static_cast<float>(rng() % 5) - 2.0f;
      for (std::uint16_t i = 0; i < n; ++i) {
        c.frames.push_back(f);
        f += static_cast<float>(rng() % 4) * (rng() % 5 == 0 ? 0.5f : 1.0f);  // repeats and half frames
      }
      c.start = c.frames.front();
      c.end = c.frames.back() + static_cast<float>(rng() % 2);
      c.scale_bits = std::bit_cast<std::uint32_t>(rng() % 2 ? 0.25f : 1.0f);
      c.offset_bits = std::bit_cast<std::uint32_t>(rng() % 2 ? 0.0f : -3.5f);
      const std::size_t per = type == curve_type::cubic ? 4 : type == curve_type::linear ? 2 : 1;
      std::uniform_int_distribution<int> small(-3, 3);
      for (std::size_t i = 0; i < n * per; ++i) c.keys.push_back(static_cast<float>(small(rng)) * 0.5f);
      c.keys_raw.assign(c.keys.size(), 0);
      std::size_t lower = 0, cursor = 0, lower2 = 0, cursor2 = 0;
      for (int k = -8; k < 2 * (static_cast<int>(c.end) + 6); ++k) {
        const double x = k * 0.5;
        const bool want = c.value_left(x, lower2, cursor2) != c.value(x, cursor2);
        EXPECT_EQ(jumps_at(c, x, lower, cursor), want) << "frame " << x;
        std::size_t l = static_cast<std::size_t>(-1), cu = l;  // no hints
        EXPECT_EQ(jumps_at(c, x, l, cu), want) << "frame " << x;
        jumps += want;
      }
    }
  EXPECT_GT(jumps, 500);
}

namespace {
bool same_double(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }
}  // namespace

// curve_sampler equals the separate members (slope from the left, value,
// slope from the right, jumps_at) bit for bit: every curve type, wrap modes, one key,
// repeated keys, -0 keys, frames on, between and outside the keys, in order (hints carried).
TEST(CurveFastPaths, SamplerEqualsSeparateMembers) {
  std::mt19937 rng(33);
  int compared = 0, jumps = 0;
  for (int round = 0; round < 600; ++round)
    for (auto type : {curve_type::cubic, curve_type::linear, curve_type::baked_float, curve_type::step_int}) {
      curve c;
      c.flags = static_cast<std::uint16_t>((static_cast<int>(type) << 4) | ((round % 3) << 8) | (((round / 3) % 3) << 12));
      const std::uint16_t n = static_cast<std::uint16_t>(1 + rng() % (round % 7 == 0 ? 2 : 40));
      c.num_keys = n;
      float f = static_cast<float>(rng() % 5) - 2.0f;
      for (std::uint16_t i = 0; i < n; ++i) {
        c.frames.push_back(f);
        f += static_cast<float>(rng() % 4) * (rng() % 5 == 0 ? 0.5f : 1.0f);  // repeats and half frames
      }
      c.start = c.frames.front() - static_cast<float>(rng() % 2);
      // A range starting on a later key (no jump at the start, where the range begins).
      if (n > 2 && round % 5 == 1) c.start = c.frames[1 + rng() % (n - 2u)];
      c.end = c.frames.back() + static_cast<float>(rng() % 2);
      c.scale_bits = std::bit_cast<std::uint32_t>(rng() % 2 ? 0.25f : 1.0f);
      c.offset_bits = std::bit_cast<std::uint32_t>(rng() % 3 == 0 ? -0.0f : rng() % 2 ? 0.0f : -3.5f);
      const std::size_t per = type == curve_type::cubic ? 4 : type == curve_type::linear ? 2 : 1;
      std::uniform_int_distribution<int> small(-3, 3);
      for (std::size_t i = 0; i < n * per; ++i) c.keys.push_back(rng() % 9 == 0 ? -0.0f : static_cast<float>(small(rng)) * 0.5f);
      c.keys_raw.assign(c.keys.size(), 0);
      curve_sampler sampler(c);
      for (int k = -8; k < 4 * (static_cast<int>(c.end) + 6); ++k) {
        const double x = k * 0.25 + (k % 5 == 0 ? 1e-9 : 0.0);
        std::size_t l = static_cast<std::size_t>(-1), cu = l;  // no hints
        const curve_sample want{c.slope(x, true), c.value(x), c.slope(x, false), jumps_at(c, x, l, cu)};
        {
          const curve_sample got = sampler.at(x);
          EXPECT_TRUE(same_double(got.left, want.left)) << "frame " << x << " round " << round;
          EXPECT_TRUE(same_double(got.value, want.value)) << "frame " << x << " round " << round;
          EXPECT_TRUE(same_double(got.right, want.right)) << "frame " << x << " round " << round;
          EXPECT_EQ(got.jump, want.jump) << "frame " << x << " round " << round;
        }
        // A copy stepping back a little (the extra key before a jump), then on from x.
        const double back_x = x - (k % 3 == 0 ? 0.125 : 1e-4);
        curve_sampler back = sampler;
        std::size_t l2 = static_cast<std::size_t>(-1), cu2 = l2;
        const curve_sample got = back.at(back_x);
        EXPECT_TRUE(same_double(got.left, c.slope(back_x, true))) << "frame " << back_x << " round " << round;
        EXPECT_TRUE(same_double(got.value, c.value(back_x))) << "frame " << back_x << " round " << round;
        EXPECT_TRUE(same_double(got.right, c.slope(back_x, false))) << "frame " << back_x << " round " << round;
        EXPECT_EQ(got.jump, jumps_at(c, back_x, l2, cu2)) << "frame " << back_x << " round " << round;
        // peek: the same look back on the sampler itself, its hints left at x (the next
        // at() calls above compare with the members from there).
        const curve_sample peeked = sampler.peek(back_x);
        EXPECT_TRUE(same_double(peeked.left, got.left) && same_double(peeked.value, got.value) &&
                    same_double(peeked.right, got.right) && peeked.jump == got.jump)
            << "frame " << back_x << " round " << round;
        ++compared;
        jumps += want.jump;
      }
    }
  EXPECT_GT(compared, 50000);
  EXPECT_GT(jumps, 500);
}

namespace {
// Every curve of a parsed file, in a fixed order.
std::vector<const curve*> all_curves(const file& f) {
  std::vector<const curve*> out;
  auto add = [&](const std::vector<curve>& cs) {
    for (const auto& c : cs) out.push_back(&c);
  };
  for (const auto& a : f.anims)
    for (const auto& b : a.bone_anims) add(b.curves);
  for (const auto& a : f.texture_patterns)
    for (const auto& m : a.materials) add(m.curves);
  for (const auto& a : f.shader_param_anims)
    for (const auto& m : a.materials) add(m.curves);
  for (const auto& a : f.visibility_anims) add(a.curves);
  for (const auto& s : f.scene_anims)
    for (const auto& c : s.cameras) add(c.curves);
  return out;
}
}  // namespace

// parse_for_scene reads the same file as parse (same curves, floats bit for bit, same raw
// dump) and leaves out only the stored arrays of float curves; parse keeps them, and what
// it reads still writes back byte for byte. Integer and boolean curves keep theirs.
TEST(CurveFastPaths, SceneParseDropsOnlyFloatCurvesRawArrays) {
  const std::string examples = std::string(RIGRIP_SOURCE_DIR) + "/examples/bfres/";
  int float_curves = 0, files = 0;
  for (const char* name : {"seed_linear.bfres", "softimage_scale_mode.bfres", "ssc_nonuniform_parent.bfres",
                           "scene_cameras_wiiu.bfres", "scene_cameras_switch.bfres", "switch_v10_packed.bfres"}) {
    std::ifstream in(examples + name, std::ios::binary);
    ASSERT_TRUE(in) << name;
    const std::vector<std::uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const file full = parse(bytes), lean = parse_for_scene(bytes);
    EXPECT_EQ(to_json(full), to_json(lean)) << name;
    EXPECT_EQ(full.plat == platform::switch_ ? serialise_switch(full) : serialise(full), bytes) << name;
    const auto a = all_curves(full), b = all_curves(lean);
    ASSERT_EQ(a.size(), b.size()) << name;
    for (std::size_t i = 0; i < a.size(); ++i) {
      EXPECT_TRUE(same_bits(a[i]->frames, b[i]->frames)) << name << " curve " << i;
      EXPECT_TRUE(same_bits(a[i]->keys, b[i]->keys)) << name << " curve " << i;
      EXPECT_EQ(a[i]->keys_raw.size(), a[i]->keys.size()) << name << " curve " << i;
      EXPECT_EQ(a[i]->frames_raw.size(), a[i]->frames.size()) << name << " curve " << i;
      if (a[i]->is_float()) {
        EXPECT_TRUE(b[i]->frames_raw.empty() && b[i]->keys_raw.empty()) << name << " curve " << i;
        ++float_curves;
      } else {
        EXPECT_EQ(a[i]->frames_raw, b[i]->frames_raw) << name << " curve " << i;
        EXPECT_EQ(a[i]->keys_raw, b[i]->keys_raw) << name << " curve " << i;
      }
    }
    // The flag does not outlive parse_for_scene.
    const file again = parse(bytes);
    const auto c = all_curves(again);
    for (std::size_t i = 0; i < c.size(); ++i) EXPECT_EQ(c[i]->keys_raw, a[i]->keys_raw) << name << " curve " << i;
    ++files;
  }
  EXPECT_EQ(files, 6);
  EXPECT_GT(float_curves, 10);
}

// eval_frames' runs inside the curve's range count frames as doubles below 2^24 and convert
// each frame number through float above it (where floats step by 2): the same floats as
// eval per frame on both sides of 2^24, for cubic and linear curves, runs split anywhere.
TEST(CurveFastPaths, EvalFramesAroundTwoToThe24) {
  std::mt19937 rng(24);
  std::uniform_real_distribution<float> val(-4.0f, 4.0f);
  const float big = 16777216.0f;  // 2^24
  int compared = 0;
  for (auto type : {curve_type::cubic, curve_type::linear})
    for (float base : {0.0f, big - 40.0f, -big - 8.0f}) {
      curve c;
      c.flags = static_cast<std::uint16_t>(static_cast<int>(type) << 4);
      for (float step : {0.0f, 3.0f, 7.0f, 8.0f, 9.0f, 16.0f, 30.0f, 44.0f, 60.0f, 61.0f, 80.0f})
        c.frames.push_back(base + step);
      c.num_keys = static_cast<std::uint16_t>(c.frames.size());
      c.start = c.frames.front() - 4.0f, c.end = c.frames.back() + 4.0f;
      c.scale_bits = std::bit_cast<std::uint32_t>(0.5f), c.offset_bits = std::bit_cast<std::uint32_t>(1.25f);
      for (std::size_t i = 0; i < c.frames.size() * static_cast<std::size_t>(c.elements_per_key()); ++i) c.keys.push_back(val(rng));
      const auto first = static_cast<std::int32_t>(c.start);
      for (std::size_t split : {std::size_t{1}, std::size_t{5}, std::size_t{256}}) {
        std::vector<float> got(88);
        std::size_t cursor = 0;
        for (std::size_t at = 0; at < got.size(); at += split)
          c.eval_frames(first + static_cast<std::int32_t>(at), std::min(split, got.size() - at), &got[at], cursor);
        for (std::size_t j = 0; j < got.size(); ++j) {
          const float f = static_cast<float>(first + static_cast<std::int32_t>(j));
          EXPECT_EQ(std::bit_cast<std::uint32_t>(got[j]), std::bit_cast<std::uint32_t>(c.eval(f))) << "frame " << first + static_cast<std::int32_t>(j);
          ++compared;
        }
      }
    }
  EXPECT_EQ(compared, 2 * 3 * 3 * 88);
}

// parse_curve_at reads a header that lies wholly in the file straight from its bytes: the
// same fields, offsets and arrays as reading it field by field through byte_reader (and
// read_offset), the same error code and offset where an offset points outside the file or
// the arrays fail; headers running past the end fail as before. Both layouts, both byte orders.
TEST(CurveFastPaths, HeaderFromBytesEqualsFieldReader) {
  std::mt19937 rng(36);
  int parsed = 0, failed = 0;
  for (int round = 0; round < 3000; ++round) {
    const bool v34 = round % 2 != 0, big = round % 4 < 2;
    std::vector<std::uint8_t> d(160 + rng() % 64);
    for (auto& b : d) b = static_cast<std::uint8_t>(rng() % 4 == 0 ? rng() : 0);
    const auto at = static_cast<std::uint32_t>(round % 10 == 0 ? d.size() - rng() % 0x24 : rng() % 64);
    auto put32 = [&](std::size_t pos, std::uint32_t v) {
      for (std::size_t b = 0; b < 4 && pos + b < d.size(); ++b)
        d[pos + b] = static_cast<std::uint8_t>(big ? v >> (8 * (3 - b)) : v >> (8 * b));
    };
    // Mostly sane headers: cubic/linear/baked, a few keys, ranges and offsets into the file.
    const std::uint32_t type = std::array<std::uint32_t, 4>{0, 1, 2, static_cast<std::uint32_t>(rng() % 8)}[rng() % 4];
    const std::uint32_t nk = 1 + rng() % 6;
    put32(at, big ? ((2u | (1u << 2) | (type << 4)) << 16) | nk : (nk << 16) | (2u | (1u << 2) | (type << 4)));
    put32(at + 4, 0x10);
    put32(at + 8, std::bit_cast<std::uint32_t>(0.0f));
    put32(at + 12, std::bit_cast<std::uint32_t>(rng() % 3 == 0 ? -1.0f : 30.0f));
    put32(at + 16, std::bit_cast<std::uint32_t>(1.0f));
    put32(at + 20, 0);
    const std::uint32_t frames_field = at + (v34 ? 28 : 24), keys_field = frames_field + 4;
    put32(frames_field, static_cast<std::uint32_t>(static_cast<std::int32_t>(rng() % 5 == 0 ? 4000 : 96) - static_cast<std::int32_t>(frames_field)));
    put32(keys_field, static_cast<std::uint32_t>(static_cast<std::int32_t>(rng() % 7 == 0 ? -8000 : 120) - static_cast<std::int32_t>(keys_field)));
    for (std::uint32_t i = 0; i < nk && 96 + i < d.size(); ++i) d[96 + i] = static_cast<std::uint8_t>(i * (rng() % 3));
    const core::byte_reader file(d, big ? core::endian::big : core::endian::little);
    using outcome = std::pair<std::optional<curve>, std::optional<std::pair<code, std::uint64_t>>>;
    auto run = [&](auto read) -> outcome {
      detail::reset_work(d.size());
      try {
        return {read(), std::nullopt};
      } catch (const core::failure& e) {
        return {std::nullopt, std::pair{e.error().code, e.error().offset}};
      }
    };
    const outcome got = run([&] { return detail::parse_curve_at(file, at, v34); });
    const outcome want = run([&] {
      core::byte_reader r = file.peek(at);
      curve c;
      c.at = at;
      c.flags = r.u16();
      c.num_keys = r.u16();
      c.target = r.u32();
      c.start = r.f32();
      c.end = r.f32();
      c.scale_bits = r.u32();
      c.offset_bits = r.u32();
      if (v34) c.delta = r.f32();
      c.frames_at = detail::read_offset(r);
      c.keys_at = detail::read_offset(r);
      detail::read_curve_arrays(file, c);
      return c;
    });
    ASSERT_EQ(got.second, want.second) << "round " << round;
    ASSERT_EQ(got.first.has_value(), want.first.has_value());
    if (!got.first) {
      ++failed;
      continue;
    }
    const curve& a = *got.first;
    const curve& b = *want.first;
    EXPECT_EQ(a.flags, b.flags);
    EXPECT_EQ(a.num_keys, b.num_keys);
    EXPECT_EQ(a.target, b.target);
    EXPECT_EQ(std::bit_cast<std::uint32_t>(a.start), std::bit_cast<std::uint32_t>(b.start));
    EXPECT_EQ(std::bit_cast<std::uint32_t>(a.end), std::bit_cast<std::uint32_t>(b.end));
    EXPECT_EQ(a.scale_bits, b.scale_bits);
    EXPECT_EQ(a.offset_bits, b.offset_bits);
    EXPECT_EQ(a.delta.has_value(), b.delta.has_value());
    EXPECT_EQ(a.frames_at, b.frames_at);
    EXPECT_EQ(a.keys_at, b.keys_at);
    EXPECT_TRUE(same_bits(a.frames, b.frames));
    EXPECT_TRUE(same_bits(a.keys, b.keys));
    ++parsed;
  }
  EXPECT_GT(parsed, 500);
  EXPECT_GT(failed, 500);
}

// A curve's frame and key arrays near the end of the data: read when they end at or before
// it, and otherwise the reader's error (bad_count at the array's offset, naming the array),
// both byte orders, every start position and key count up to the end.
TEST(CurveFastPaths, ArraysAtTheEndFitOrFailAsTheReaderChecks) {
  int read = 0, failed = 0;
  for (const bool big : {true, false})
    for (std::uint32_t nk = 1; nk <= 9; ++nk)
      for (int which = 0; which < 2; ++which)  // 0: the frame array moves, 1: the key array moves
        for (std::uint32_t pos = 96; pos < 128; ++pos) {
          std::vector<std::uint8_t> d(128, 0);
          auto put32 = [&](std::size_t p, std::uint32_t v) {
            for (std::size_t b = 0; b < 4; ++b) d[p + b] = static_cast<std::uint8_t>(big ? v >> (8 * (3 - b)) : v >> (8 * b));
          };
          const std::uint32_t flags = 1u | (1u << 2) | (1u << 4);  // s16 frames, s16 keys, linear
          put32(0, big ? (flags << 16) | nk : (nk << 16) | flags);
          put32(4, 0x10);
          put32(8, std::bit_cast<std::uint32_t>(0.0f));
          put32(12, std::bit_cast<std::uint32_t>(30.0f));
          put32(16, std::bit_cast<std::uint32_t>(1.0f));
          put32(20, 0);
          const std::uint32_t frames_at = which == 0 ? pos : 40, keys_at = which == 1 ? pos : 60;
          put32(24, frames_at - 24);
          put32(28, keys_at - 28);
          const core::byte_reader file(d, big ? core::endian::big : core::endian::little);
          detail::reset_work(d.size());
          const std::uint32_t at = which == 0 ? frames_at : keys_at;
          const std::uint32_t bytes = which == 0 ? 2 * nk : 4 * nk;  // two s16 elements per linear key
          try {
            const curve c = detail::parse_curve_at(file, 0, false);
            EXPECT_LE(at + bytes, d.size()) << "read an array past the end";
            EXPECT_EQ(c.frames.size(), nk);
            EXPECT_EQ(c.keys.size(), 2 * nk);
            ++read;
          } catch (const core::failure& e) {
            EXPECT_GT(at + bytes, d.size()) << e.error().message;
            EXPECT_EQ(e.error().code, code::bad_count) << e.error().message;
            EXPECT_EQ(e.error().offset, at) << e.error().message;
            EXPECT_NE(e.error().message.find(which == 0 ? "curve frames" : "curve keys"), std::string::npos) << e.error().message;
            ++failed;
          }
        }
  EXPECT_GT(read, 300);
  EXPECT_GT(failed, 300);
}
