// Decoding straight into tracks: the SSE2 hemisphere flips (hemisphere.hpp), the rotation run
// with the flips fused in, and the deferred decoders (plan_nsa / plan_nsa5 + fill_*) must give
// the bits of the plain path (decode_nsa / decode_nsa5, then core::make_hemisphere_continuous).
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <filesystem>
#include <limits>
#include <random>
#include <vector>

#include "core/byte_reader.hpp"
#include "core/math.hpp"
#include "formats/morpheme/anim_source.hpp"
#include "formats/morpheme/hemisphere.hpp"
#include "formats/morpheme/nsa.hpp"
#include "formats/morpheme/rotation_run.hpp"
#include "test_support.hpp"

using namespace rigrip;
using namespace rigrip::morpheme;

namespace {

bool same_bits(const std::vector<float>& a, const std::vector<float>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (std::bit_cast<std::uint32_t>(a[i]) != std::bit_cast<std::uint32_t>(b[i])) return false;
  return true;
}

// Keys that exercise the flip rule: random signs, repeats, antipodes, zero keys and zero
// dots, NaN and infinity components, negative zeros, tiny and huge values.
std::vector<float> hostile_keys(std::mt19937& rng, std::size_t keys) {
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  std::vector<float> v(keys * 4);
  for (std::size_t k = 0; k < keys; ++k) {
    float* q = v.data() + 4 * k;
    unsigned kind = rng() % 16;
    for (int c = 0; c < 4; ++c) q[c] = u(rng);
    if (kind == 0 && k) {  // the previous key negated (a flip unless it was flipped itself)
      for (int c = 0; c < 4; ++c) q[c] = -v[4 * (k - 1) + c];
    } else if (kind == 1) {  // a zero key: dots of 0
      for (int c = 0; c < 4; ++c) q[c] = (rng() & 1) ? 0.0f : -0.0f;
    } else if (kind == 2) {
      q[rng() % 4] = std::numeric_limits<float>::quiet_NaN();
    } else if (kind == 3) {
      q[rng() % 4] = (rng() & 1) ? INFINITY : -INFINITY;
    } else if (kind == 4) {
      for (int c = 0; c < 4; ++c) q[c] *= 1e-30f;  // products underflow to (signed) zero
    } else if (kind == 5 && k) {  // orthogonal to the previous key in the xy plane: dot 0
      const float* p = v.data() + 4 * (k - 1);
      q[0] = -p[1];
      q[1] = p[0];
      q[2] = q[3] = 0;
    } else if (kind == 6) {
      for (int c = 0; c < 4; ++c) q[c] *= 3e19f;  // products overflow
    }
  }
  return v;
}

}  // namespace

TEST(DirectTracks, HemisphereRunEqualsCoreForEveryLengthAndHostileKeys) {
  std::mt19937 rng(1616);
  std::size_t flips = 0;
  for (int round = 0; round < 3000; ++round) {
    const std::size_t keys = static_cast<std::size_t>(round % 70);
    auto ref = hostile_keys(rng, keys);
    auto fast = ref, scalar = ref;
    core::make_hemisphere_continuous(ref);
    hemisphere_run(fast.data(), keys);
    hemisphere_scalar(scalar.data(), keys);
    ASSERT_TRUE(same_bits(ref, fast)) << "round " << round << " keys " << keys;
    ASSERT_TRUE(same_bits(ref, scalar)) << "round " << round << " keys " << keys;
  }
  // Runs of sign changes: a smooth track with every other key negated.
  for (std::size_t keys : {4u, 5u, 8u, 13u, 64u, 1001u}) {
    std::vector<float> v(keys * 4);
    for (std::size_t k = 0; k < keys; ++k) {
      float a = 0.01f * static_cast<float>(k), s = (k % 3 == 1 || k % 7 == 0) ? -1.0f : 1.0f;
      v[4 * k] = s * std::sin(a);
      v[4 * k + 3] = s * std::cos(a);
    }
    auto ref = v, fast = v;
    core::make_hemisphere_continuous(ref);
    hemisphere_run(fast.data(), keys);
    ASSERT_TRUE(same_bits(ref, fast)) << keys << " keys";
    for (std::size_t i = 0; i < v.size(); ++i) flips += ref[i] != v[i];
  }
  EXPECT_GT(flips, 100u);  // the tracks above do flip
}

// decode_rotation_run<true> = decode_rotation_run, then core::make_hemisphere_continuous.
TEST(DirectTracks, ContinuousRotationRunEqualsRunThenCoreFlips) {
  std::mt19937 rng(77);
  std::uniform_real_distribution<float> wide(-3.0f, 3.0f);
  std::vector<u16x3> rows(80 * 4);
  std::size_t flipped = 0;
  for (int round = 0; round < 600; ++round) {
    for (auto& r : rows)
      for (auto& x : r) x = static_cast<std::uint16_t>(round % 3 == 0 ? (rng() & 1 ? 0 : 0xFFFF) : rng());
    float ex[3], mn[3];
    for (int c = 0; c < 3; ++c) {
      ex[c] = wide(rng) / 65535.0f * (round % 4 == 0 ? 40.0f : 1.0f);
      mn[c] = wide(rng);
    }
    if (round % 37 == 1) ex[1] = 3e38f;  // inf / NaN lanes
    if (round % 41 == 2) ex[0] = ex[1] = ex[2] = mn[0] = mn[1] = mn[2] = 0;
    quat init = round % 29 == 3 ? quat{0, 0, 0, 0} : mrp_to_quat({wide(rng), wide(rng), wide(rng)});
    const std::size_t stride = 1 + static_cast<std::size_t>(round % 4);
    const std::size_t n = static_cast<std::size_t>(round % 80);
    std::vector<float> ref(4 * n), fast(4 * n);
    decode_rotation_run(rows.data(), stride, n, ex, mn, init, ref.data());
    auto plain = ref;
    core::make_hemisphere_continuous(ref);
    decode_rotation_run<true>(rows.data(), stride, n, ex, mn, init, fast.data());
    ASSERT_TRUE(same_bits(ref, fast)) << "round " << round << " n " << n;
    flipped += !same_bits(ref, plain);
  }
  EXPECT_GT(flipped, 20u);  // rounds where the flips changed something (26 with this seed)
}

namespace {

// A random NSA through our encoder: `bones` channels, some static, some animated.
nsa_file random_nsa(std::mt19937& rng, std::uint32_t bones, std::uint32_t samples) {
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  nsa_input in;
  in.sample_rate = 30;
  in.sample_count = samples;
  in.channels.resize(bones);
  for (std::uint32_t b = 0; b < bones; ++b) {
    auto& ch = in.channels[b];
    unsigned kind = rng() % 4;
    std::size_t n = kind == 0 ? 1 : samples;
    if (kind != 3)
      for (std::size_t s = 0; s < n; ++s) ch.translation.push_back({u(rng) * 10, u(rng) * 10, u(rng) * 10});
    for (std::size_t s = 0; s < (kind == 2 ? 1 : n); ++s)
      ch.rotation.push_back(core::normalize(quat{u(rng), u(rng), u(rng), u(rng)}));
  }
  return encode_nsa(in);
}

// Channels of plan + fills, rotations passed through core's flips on the reference side.
void expect_plan_equals_decode(const nsa_file& f, const char* what) {
  auto ref = decode_nsa(f);
  auto pl = plan_nsa(f, true);
  ASSERT_EQ(pl.d.channels.size(), ref.channels.size()) << what;
  EXPECT_EQ(pl.d.sample_count, ref.sample_count) << what;
  for (std::size_t c = 0; c < ref.channels.size(); ++c) {
    const auto& rc = ref.channels[c];
    const auto& pc = pl.d.channels[c];
    if (auto j = pl.translation_entry(c); j >= 0) {
      ASSERT_TRUE(pc.translation.empty());
      std::vector<float> got(3 * ref.sample_count);
      fill_dynamic_translation(f, static_cast<std::uint32_t>(j), got.data());
      std::vector<float> want(rc.translation.front().data(), rc.translation.front().data() + 3 * rc.translation.size());
      ASSERT_TRUE(same_bits(got, want)) << what << " channel " << c;
    } else {
      ASSERT_EQ(pc.translation, rc.translation) << what << " channel " << c;
    }
    if (auto j = pl.rotation_entry(c); j >= 0) {
      ASSERT_TRUE(pc.rotation.empty());
      std::vector<float> got(4 * ref.sample_count);
      fill_dynamic_rotation(f, static_cast<std::uint32_t>(j), got.data(), true);
      std::vector<float> want(rc.rotation.front().data(), rc.rotation.front().data() + 4 * rc.rotation.size());
      core::make_hemisphere_continuous(want);
      ASSERT_TRUE(same_bits(got, want)) << what << " channel " << c;
    } else {
      ASSERT_EQ(pc.rotation, rc.rotation) << what << " channel " << c;
    }
  }
}

}  // namespace

TEST(DirectTracks, DeferredNsaEqualsDecodeNsa) {
  std::mt19937 rng(5);
  for (std::uint32_t samples : {1u, 2u, 3u, 7u, 40u}) {
    auto f = random_nsa(rng, 23, samples);
    expect_plan_equals_decode(f, "encoded");
    if (f.dynamic_segment) {  // a dynamic segment of no samples empties its channels
      auto g = f;
      g.dynamic_segment->sample_count = 0;
      expect_plan_equals_decode(g, "no samples");
    }
    // Two dynamic entries naming one channel (the last wins), and a channel both static and
    // dynamic (dynamic wins, or empties it with no samples).
    if (f.dynamic_segment && f.indices[4] && f.indices[4]->size() >= 2) {
      auto g = f;
      (*g.indices[4])[1] = (*g.indices[4])[0];
      expect_plan_equals_decode(g, "duplicate rotation entry");
    }
    if (f.dynamic_segment && f.indices[3] && f.indices[3]->size() >= 2) {
      auto g = f;
      (*g.indices[3])[0] = (*g.indices[3])[1];
      expect_plan_equals_decode(g, "duplicate translation entry");
    }
    if (f.static_segment && f.indices[1] && !f.indices[1]->empty() && f.indices[4] && !f.indices[4]->empty()) {
      auto g = f;
      (*g.indices[1])[0] = (*g.indices[4])[0];
      expect_plan_equals_decode(g, "static and dynamic");
    }
  }
}

// Every SDK .nsa (both pointer sizes): plan_nsa5 + fills = decode_nsa5 then core's flips; and
// the same with the sections split and overlapping, as written by hand below.
TEST(DirectTracks, DeferredNsa5EqualsDecodeNsa5OnTheSdkSamples) {
  auto root = test::sample("morpheme/sdk");
  if (!root) GTEST_SKIP() << "../shared/samples/morpheme/sdk not present";
  std::size_t files = 0, tracks = 0;
  for (const auto& e : std::filesystem::recursive_directory_iterator(*root)) {
    if (e.path().extension() != ".nsa") continue;
    auto data = test::read_bytes(e.path().string());
    core::byte_reader r(data);
    auto f = parse_nsa5(r);
    auto check = [&](const nsa5_file& g, const std::string& what) {
      auto ref = decode_nsa5(g);
      auto pl = plan_nsa5(g, true);
      ASSERT_EQ(pl.d.channels.size(), ref.channels.size()) << what;
      ASSERT_EQ(pl.d.sample_count, ref.sample_count) << what;
      ASSERT_EQ(pl.d.trajectory_rotation, ref.trajectory_rotation) << what;
      ASSERT_EQ(pl.d.trajectory_translation, ref.trajectory_translation) << what;
      for (std::size_t c = 0; c < ref.channels.size(); ++c) {
        const auto& rc = ref.channels[c];
        const auto& pc = pl.d.channels[c];
        if (auto j = pl.translation_entry(c); j >= 0) {
          std::vector<float> got(3 * ref.sample_count);
          fill_nsa5_translation(g, static_cast<std::uint32_t>(j), got.data());
          std::vector<float> want(rc.translation.front().data(),
                                  rc.translation.front().data() + 3 * rc.translation.size());
          ASSERT_TRUE(same_bits(got, want)) << what << " channel " << c;
          ++tracks;
        } else {
          ASSERT_EQ(pc.translation, rc.translation) << what << " channel " << c;
        }
        if (auto j = pl.rotation_entry(c); j >= 0) {
          std::vector<float> got(4 * ref.sample_count);
          fill_nsa5_rotation(g, static_cast<std::uint32_t>(j), ref.sample_count, got.data());
          std::vector<float> want(rc.rotation.front().data(), rc.rotation.front().data() + 4 * rc.rotation.size());
          core::make_hemisphere_continuous(want);
          ASSERT_TRUE(same_bits(got, want)) << what << " channel " << c;
          ++tracks;
        } else {
          ASSERT_EQ(pc.rotation, rc.rotation) << what << " channel " << c;
        }
      }
    };
    check(f, e.path().string());
    // A second section over the later half (overlapping the first section there): the later
    // section wins, the flips run over the merged track.
    if (f.sections.size() == 1 && f.sections[0].sample_count >= 4) {
      auto g = f;
      auto s2 = g.sections[0];
      const std::uint32_t half = s2.sample_count / 2;
      s2.sample_count -= half;
      s2.translations.erase(s2.translations.begin(),
                            s2.translations.begin() + static_cast<std::ptrdiff_t>(half) * s2.translation_count);
      s2.rotations.erase(s2.rotations.begin(),
                         s2.rotations.begin() + static_cast<std::ptrdiff_t>(half) * s2.rotation_count);
      // Reverse the rotations of the second section so the overlap frame differs.
      for (std::uint32_t t = 0; t < s2.sample_count / 2; ++t)
        for (std::uint32_t j = 0; j < s2.rotation_count; ++j)
          std::swap(s2.rotations[t * s2.rotation_count + j],
                    s2.rotations[(s2.sample_count - 1 - t) * s2.rotation_count + j]);
      g.sections.push_back(s2);
      g.section_frames = {0, half, g.section_frames.back()};
      check(g, e.path().string() + " split");
    }
    ++files;
  }
  EXPECT_GT(files, 0u);
  EXPECT_GT(tracks, 100u);
}
