// bake_and_measure (the bake keeps the original samples for the error report) must give what
// bake_segment_scale_compensate followed by measure_bake_error gives: the same baked scene and
// warnings, and the same error doubles, bit for bit when it keeps nothing. At the times it kept,
// the report takes the solved bones' baked locals from the bake instead of sampling their
// tracks there, which differs only by the rounding of slerp at a key: within 1e-4 relative or
// 1e-6 absolute then.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>

#include "core/math.hpp"
#include "scene/ssc.hpp"

using namespace rigrip;

namespace {

bool same_bits(double x, double y) { return std::memcmp(&x, &y, sizeof x) == 0; }
bool close(double x, double want) {
  return same_bits(x, want) || std::abs(x - want) <= 1e-6 || std::abs(x - want) <= 1e-4 * std::abs(want);
}

bool same_floats(const std::vector<float>& x, const std::vector<float>& y) {
  return x.size() == y.size() && (x.empty() || std::memcmp(x.data(), y.data(), x.size() * sizeof(float)) == 0);
}

// A rig of random shape (several roots, compensating bones anywhere, uniform or not rest
// scales), a second skeleton without compensation, and clips with every interpolation, keys
// on and off the frame grid (some within 1e-5 of a frame, some at 0), random fps and
// durations, and now and then unsorted keys or a clip without a valid skeleton.
scene random_scene(std::mt19937& rng) {
  std::uniform_real_distribution<float> u(-1, 1), pos(0.5f, 1.8f), unit(0, 1);
  auto chance = [&](float p) { return unit(rng) < p; };
  scene s;
  for (int which = 0; which < 2; ++which) {
    skeleton sk;
    sk.name = which ? "plain" : "rig";
    const std::size_t n = 2 + static_cast<std::size_t>(unit(rng) * 9);
    for (std::size_t i = 0; i < n; ++i) {
      const int parent = i == 0 || chance(0.1f) ? -1 : static_cast<int>(unit(rng) * static_cast<float>(i));
      bone b{(which ? "p" : "b") + std::to_string(i), parent};
      b.translation = {u(rng), 1 + u(rng), u(rng)};
      b.rotation = core::axis_angle({u(rng), u(rng), 1}, u(rng));
      const float c = pos(rng);
      b.scale = chance(0.5f) ? vec3{c, c, c} : vec3{pos(rng), pos(rng), pos(rng)};
      b.segment_scale_compensate = which == 0 && parent >= 0 && chance(0.7f);
      sk.bones.push_back(b);
    }
    s.skeletons.push_back(sk);
  }
  const int clips = 1 + static_cast<int>(unit(rng) * 4);
  for (int c = 0; c < clips; ++c) {
    animation a;
    a.name = "clip" + std::to_string(c);
    a.skeleton = chance(0.1f) ? -1 : chance(0.2f) ? 1 : 0;
    const float fps_choice = unit(rng);
    if (fps_choice < 0.3f) a.fps = 30;
    else if (fps_choice < 0.6f) a.fps = 24;
    else if (fps_choice < 0.8f) a.fps = 60;
    a.duration = 0.1 + unit(rng) * 2;
    const double fps = a.fps ? *a.fps : 30;
    const skeleton& sk = s.skeletons[a.skeleton < 0 ? 0 : static_cast<std::size_t>(a.skeleton)];
    for (const auto& b : sk.bones)
      for (path p : {path::translation, path::rotation, path::scale}) {
        if (chance(0.35f)) continue;
        track t;
        t.bone = b.name;
        t.path = p;
        const float ip = unit(rng);
        t.interpolation = ip < 0.6f ? interpolation::linear : ip < 0.8f ? interpolation::step : interpolation::cubic_spline;
        const int keys = 2 + static_cast<int>(unit(rng) * 12);
        for (int k = 0; k < keys; ++k) {
          const float r = unit(rng);
          float tm;
          if (r < 0.4f) tm = static_cast<float>(std::floor(unit(rng) * a.duration * fps) / fps);  // a frame
          else if (r < 0.5f) tm = static_cast<float>(std::floor(unit(rng) * a.duration * fps) / fps) + 4e-6f;
          else if (r < 0.55f) tm = 0;
          else tm = static_cast<float>(unit(rng) * a.duration);
          t.times.push_back(tm);
        }
        if (!chance(0.05f)) {  // sorted and strictly increasing, as validate() wants
          std::sort(t.times.begin(), t.times.end());
          t.times.erase(std::unique(t.times.begin(), t.times.end()), t.times.end());
        }
        const bool non_uniform = chance(0.5f);
        const std::size_t e = t.interpolation == interpolation::cubic_spline ? 3 : 1;
        for (std::size_t k = 0; k < t.times.size(); ++k)
          for (std::size_t which = 0; which < e; ++which) {
            const bool tangent = e == 3 && which != 1;
            if (p == path::rotation) {
              const quat q = core::axis_angle({u(rng), 1, u(rng)}, u(rng));
              for (float v : q) t.values.push_back(tangent ? 0.1f * v : v);
            } else if (p == path::scale) {
              const float v = tangent ? 0.1f * u(rng) : pos(rng);
              t.values.insert(t.values.end(), {v, non_uniform ? v * pos(rng) : v, v});
            } else {
              t.values.insert(t.values.end(), {u(rng), u(rng), u(rng)});
            }
          }
        a.tracks.push_back(std::move(t));
      }
    s.animations.push_back(std::move(a));
  }
  return s;
}

void expect_same_scene(const scene& x, const scene& y) {
  ASSERT_EQ(x.skeletons.size(), y.skeletons.size());
  for (std::size_t si = 0; si < x.skeletons.size(); ++si) {
    ASSERT_EQ(x.skeletons[si].bones.size(), y.skeletons[si].bones.size());
    for (std::size_t i = 0; i < x.skeletons[si].bones.size(); ++i) {
      const bone& a = x.skeletons[si].bones[i];
      const bone& b = y.skeletons[si].bones[i];
      EXPECT_EQ(std::memcmp(a.translation.data(), b.translation.data(), 12), 0);
      EXPECT_EQ(std::memcmp(a.rotation.data(), b.rotation.data(), 16), 0);
      EXPECT_EQ(std::memcmp(a.scale.data(), b.scale.data(), 12), 0);
      EXPECT_EQ(a.segment_scale_compensate, b.segment_scale_compensate);
    }
  }
  ASSERT_EQ(x.animations.size(), y.animations.size());
  for (std::size_t ai = 0; ai < x.animations.size(); ++ai) {
    const auto& a = x.animations[ai].tracks;
    const auto& b = y.animations[ai].tracks;
    ASSERT_EQ(a.size(), b.size());
    for (std::size_t k = 0; k < a.size(); ++k) {
      EXPECT_EQ(a[k].bone, b[k].bone);
      EXPECT_EQ(a[k].path, b[k].path);
      EXPECT_EQ(a[k].interpolation, b[k].interpolation);
      EXPECT_TRUE(same_floats(a[k].times, b[k].times));
      EXPECT_TRUE(same_floats(a[k].values, b[k].values));
    }
  }
}

}  // namespace

TEST(SscShare, BakeAndMeasureEqualsBakeThenMeasure) {
  std::mt19937 rng(1616);
  std::size_t nonzero = 0, exact = 0, kept = 0;
  for (int round = 0; round < 300; ++round) {
    SCOPED_TRACE("round " + std::to_string(round));
    const scene s = random_scene(rng);
    scene plain = s;
    diagnostics d1;
    const float worst = scene_ops::bake_segment_scale_compensate(plain, d1);
    std::vector<scene_ops::bake_error> want;
    for (std::size_t ai = 0; ai < s.animations.size(); ++ai)
      want.push_back(scene_ops::measure_bake_error(s, plain, static_cast<int>(ai)));
    const auto rest = scene_ops::measure_bake_error(s, plain, -1);
    const std::size_t n = s.skeletons[0].bones.size();
    // all kept, none, a few frames' worth (partly shared), less than one frame
    for (std::size_t budget : {std::size_t{1} << 16, std::size_t{0}, 3 * n, n - 1}) {
      SCOPED_TRACE("budget " + std::to_string(budget));
      scene shared = s;
      diagnostics d2;
      const auto m = scene_ops::detail::bake_and_measure(shared, d2, budget);
      EXPECT_EQ(m.worst, worst);
      expect_same_scene(plain, shared);
      ASSERT_EQ(m.animations.size(), want.size());
      for (std::size_t ai = 0; ai < want.size(); ++ai) {
        if (budget < n) {  // nothing kept: the same path
          EXPECT_TRUE(same_bits(m.animations[ai].position, want[ai].position)) << ai;
          EXPECT_TRUE(same_bits(m.animations[ai].degrees, want[ai].degrees)) << ai;
        } else {
          EXPECT_TRUE(close(m.animations[ai].position, want[ai].position)) << ai << " " << m.animations[ai].position << " " << want[ai].position;
          EXPECT_TRUE(close(m.animations[ai].degrees, want[ai].degrees)) << ai << " " << m.animations[ai].degrees << " " << want[ai].degrees;
          exact += same_bits(m.animations[ai].position, want[ai].position) && same_bits(m.animations[ai].degrees, want[ai].degrees);
          kept += 1;
        }
        nonzero += want[ai].degrees > 0;
      }
      EXPECT_TRUE(same_bits(m.rest.position, rest.position));
      EXPECT_TRUE(same_bits(m.rest.degrees, rest.degrees));
      ASSERT_EQ(d1.warnings.size(), d2.warnings.size());
      for (std::size_t w = 0; w < d1.warnings.size(); ++w) EXPECT_EQ(d1.warnings[w].message, d2.warnings[w].message);
    }
  }
  EXPECT_GT(nonzero, 100u);  // the measurements were not all trivially 0
  EXPECT_GT(exact, kept / 2);  // and mostly the very same doubles
}

namespace {
// random_scene with many parents whose scale is exactly 1 (no scale track, or a track of
// ones: linear keeps 1, cubic may not, a short track samples to 0), so that compensating bones with equal
// locals in both scenes are common, and now and then a special value (±inf, NaN, -0, a huge
// translation whose products overflow, a zero or negative scale) in a local or a key.
scene twin_scene(std::mt19937& rng) {
  std::uniform_real_distribution<float> unit(0, 1);
  auto chance = [&](float p) { return unit(rng) < p; };
  scene s = random_scene(rng);
  const float specials[] = {std::numeric_limits<float>::infinity(), -std::numeric_limits<float>::infinity(),
                            std::numeric_limits<float>::quiet_NaN(), -0.0f, 0.0f, 3e38f, -1e30f};
  auto special = [&] { return specials[static_cast<std::size_t>(unit(rng) * 6.999f)]; };
  for (auto& sk : s.skeletons)
    for (auto& b : sk.bones) {
      if (chance(0.6f)) b.scale = {1, 1, 1};
      if (chance(0.05f)) b.translation[static_cast<std::size_t>(unit(rng) * 2.999f)] = special();
      if (chance(0.02f)) b.scale[static_cast<std::size_t>(unit(rng) * 2.999f)] = chance(0.5f) ? 0.0f : -1.0f;
      if (chance(0.02f)) b.rotation[static_cast<std::size_t>(unit(rng) * 3.999f)] = special();
    }
  for (auto& a : s.animations)
    for (std::size_t k = 0; k < a.tracks.size(); ++k) {
      track& t = a.tracks[k];
      if (t.path == path::scale && chance(0.6f)) {
        if (chance(0.5f)) {
          a.tracks.erase(a.tracks.begin() + static_cast<std::ptrdiff_t>(k--));
          continue;
        }
        // ones (cubic: zero tangents, whose curve need not stay 1), sometimes too few of them
        const std::size_t e = t.interpolation == interpolation::cubic_spline ? 3 : 1;
        for (std::size_t v = 0; v < t.values.size(); ++v) t.values[v] = e == 3 && (v / 3) % 3 != 1 ? 0.0f : 1.0f;
        if (chance(0.1f)) t.values.resize(t.values.size() / 2);
      }
      if (!t.values.empty() && chance(0.05f))
        t.values[static_cast<std::size_t>(unit(rng) * static_cast<float>(t.values.size() - 1))] = special();
    }
  return s;
}
}  // namespace

// The report takes b's world as a's for a bone compensating only in a under a parent scale
// of exactly 1 (and does not measure that pair): the same doubles as measuring every bone,
// with and without the samples the bake keeps.
TEST(SscShare, TwinBonesMeasureAsEveryBone) {
  std::mt19937 rng(2016);
  std::size_t nonzero = 0, special = 0;
  for (int round = 0; round < 400; ++round) {
    SCOPED_TRACE("round " + std::to_string(round));
    const scene s = twin_scene(rng);
    scene plain = s;
    diagnostics d1;
    (void)scene_ops::bake_segment_scale_compensate(plain, d1);
    std::vector<scene_ops::bake_error> want;
    for (int ai = -1; ai < static_cast<int>(s.animations.size()); ++ai) {
      const auto w = scene_ops::detail::measure_bake_error_plain(s, plain, ai);
      const auto m = scene_ops::measure_bake_error(s, plain, ai);
      EXPECT_TRUE(same_bits(m.position, w.position)) << ai << " " << m.position << " " << w.position;
      EXPECT_TRUE(same_bits(m.degrees, w.degrees)) << ai << " " << m.degrees << " " << w.degrees;
      nonzero += w.degrees > 0;
      special += !std::isfinite(w.position) || !std::isfinite(w.degrees);
      if (ai >= 0) want.push_back(w);
    }
    for (std::size_t budget : {std::size_t{0}, std::size_t{1} << 16}) {  // sampled again, or kept
      SCOPED_TRACE("budget " + std::to_string(budget));
      scene x = s, y = s;
      diagnostics d2, d3;
      const auto m = scene_ops::detail::bake_and_measure(x, d2, budget);
      const auto p = scene_ops::detail::bake_and_measure(y, d3, budget, true);
      ASSERT_EQ(m.animations.size(), want.size());
      ASSERT_EQ(p.animations.size(), want.size());
      for (std::size_t ai = 0; ai < want.size(); ++ai) {
        EXPECT_TRUE(same_bits(m.animations[ai].position, p.animations[ai].position)) << ai;
        EXPECT_TRUE(same_bits(m.animations[ai].degrees, p.animations[ai].degrees)) << ai;
        if (budget == 0) {  // the same path as measure_bake_error
          EXPECT_TRUE(same_bits(m.animations[ai].position, want[ai].position)) << ai;
          EXPECT_TRUE(same_bits(m.animations[ai].degrees, want[ai].degrees)) << ai;
        }
      }
      EXPECT_TRUE(same_bits(m.rest.position, p.rest.position));
      EXPECT_TRUE(same_bits(m.rest.degrees, p.rest.degrees));
    }
  }
  EXPECT_GT(nonzero, 100u);
}


// measure_bake_error between two scenes that both compensate (not a bake's output): b's
// locals are read only for the bones whose worlds may differ and, compensating in b, for
// their parents' scales; the same doubles as the reference, which copies every bone's.
TEST(SscShare, CompensatingSecondSceneMeasuresAsPlain) {
  std::mt19937 rng(1612);
  std::uniform_real_distribution<float> unit(0, 1), pos(0.5f, 1.8f);
  std::size_t nonzero = 0;
  for (int round = 0; round < 400; ++round) {
    SCOPED_TRACE("round " + std::to_string(round));
    const scene s = twin_scene(rng);
    scene b = s;
    for (auto& sk : b.skeletons)
      for (auto& bone : sk.bones) {
        if (unit(rng) < 0.15f) bone.segment_scale_compensate = !bone.segment_scale_compensate && bone.parent >= 0;
        if (unit(rng) < 0.1f) bone.scale = {pos(rng), pos(rng), pos(rng)};
      }
    for (auto& a : b.animations)
      for (auto& t : a.tracks)
        if (!t.values.empty() && unit(rng) < 0.3f) t.values[static_cast<std::size_t>(unit(rng) * static_cast<float>(t.values.size() - 1))] *= pos(rng);
    for (int ai = -1; ai < static_cast<int>(s.animations.size()); ++ai) {
      const auto w = scene_ops::detail::measure_bake_error_plain(s, b, ai);
      const auto m = scene_ops::measure_bake_error(s, b, ai);
      EXPECT_TRUE(same_bits(m.position, w.position)) << ai << " " << m.position << " " << w.position;
      EXPECT_TRUE(same_bits(m.degrees, w.degrees)) << ai << " " << m.degrees << " " << w.degrees;
      nonzero += w.degrees > 0;
    }
  }
  EXPECT_GT(nonzero, 100u);
}
