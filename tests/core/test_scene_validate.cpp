#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <set>
#include <string>

#include "rigrip/scene.hpp"
#include "scene/bone_name_index.hpp"
#include "scene/unit_norm.hpp"

using namespace rigrip;

namespace {
scene small() {
  scene s;
  s.skeletons.push_back({"sk", {bone{"root", -1}, bone{"child", 0}}, {}});
  animation a;
  a.name = "a";
  a.duration = 1;
  track t;
  t.bone = "child";
  t.path = path::rotation;
  t.times = {0, 1};
  t.values = {0, 0, 0, 1, 0, 0, 0, 1};
  a.tracks.push_back(t);
  s.animations.push_back(a);
  return s;
}
std::string fails(const scene& s) {
  auto r = s.validate();
  return r ? std::string() : r.error().message;
}
}  // namespace

TEST(Validate, AcceptsAGoodScene) { EXPECT_EQ(fails(small()), ""); }

TEST(Validate, ParentsMustPrecedeChildren) {
  auto s = small();
  s.skeletons[0].bones[0].parent = 1;
  EXPECT_NE(fails(s).find("must precede"), std::string::npos);
  s.skeletons[0].bones[0].parent = 0;  // self-parent is a cycle
  EXPECT_NE(fails(s).find("must precede"), std::string::npos);
}

TEST(Validate, BoneNamesUniqueAndNonEmpty) {
  auto s = small();
  s.skeletons[0].bones[1].name = "root";
  EXPECT_NE(fails(s).find("duplicate bone name"), std::string::npos);
  s.skeletons[0].bones[1].name = "";
  EXPECT_NE(fails(s).find("empty name"), std::string::npos);
}

TEST(Validate, TimesStrictlyIncreasingWithinDuration) {
  auto s = small();
  s.animations[0].tracks[0].times = {0.5f, 0.5f};
  EXPECT_NE(fails(s).find("strictly increasing"), std::string::npos);
  s.animations[0].tracks[0].times = {0, 2};
  EXPECT_NE(fails(s).find("outside [0, duration]"), std::string::npos);
  s.animations[0].tracks[0].times = {-0.1f, 0.5f};
  EXPECT_NE(fails(s).find("outside"), std::string::npos);
}

TEST(Validate, UnitQuaternionsAndFiniteNumbers) {
  auto s = small();
  s.animations[0].tracks[0].values[3] = 2;
  EXPECT_NE(fails(s).find("unit quaternion"), std::string::npos);
  s = small();
  s.animations[0].tracks[0].values[0] = std::numeric_limits<float>::quiet_NaN();
  EXPECT_NE(fails(s).find("non-finite"), std::string::npos);
  s = small();
  s.skeletons[0].bones[0].translation[1] = std::numeric_limits<float>::infinity();
  EXPECT_NE(fails(s).find("non-finite"), std::string::npos);
}

TEST(Validate, MatchingCounts) {
  auto s = small();
  s.animations[0].tracks[0].values.pop_back();
  EXPECT_NE(fails(s).find("value count"), std::string::npos);
  s = small();
  mesh m;
  m.positions = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}};
  m.normals = {{0, 0, 1}};
  s.meshes.push_back(m);
  EXPECT_NE(fails(s).find("normal count"), std::string::npos);
  s.meshes[0].normals.clear();
  s.meshes[0].indices = {0, 1, 3};
  EXPECT_NE(fails(s).find("index out of range"), std::string::npos);
}

TEST(Validate, TracksMustNameKnownBonesOnce) {
  auto s = small();
  s.animations[0].tracks[0].bone = "nope";
  EXPECT_NE(fails(s).find("not in the skeleton"), std::string::npos);
  s = small();
  s.animations[0].tracks.push_back(s.animations[0].tracks[0]);
  EXPECT_NE(fails(s).find("second track"), std::string::npos);
}

// A large rig: every bone animated on every path passes; the checks still name the exact
// element when the hashed lookups find a duplicate track or an unknown bone at the end.
TEST(Validate, LargeRigNamesTheOffendingTrack) {
  scene s;
  skeleton sk;
  const int bones = 3000;
  for (int i = 0; i < bones; ++i) sk.bones.push_back(bone{"bone_" + std::to_string(i), i - 1});
  s.skeletons.push_back(sk);
  animation a;
  a.duration = 1;
  for (int i = 0; i < bones; ++i)
    for (auto p : {path::translation, path::rotation, path::scale}) {
      track t;
      t.bone = "bone_" + std::to_string(i);
      t.path = p;
      t.times = {0, 1};
      t.values = p == path::rotation ? std::vector<float>{0, 0, 0, 1, 0, 0, 0, 1}
                                     : std::vector<float>{1, 1, 1, 1, 1, 1};
      a.tracks.push_back(t);
    }
  s.animations.push_back(a);
  EXPECT_EQ(fails(s), "");
  auto dup = s;
  dup.animations[0].tracks.push_back(dup.animations[0].tracks[3 * 1234 + 1]);
  EXPECT_NE(fails(dup).find("animations[0].tracks[9000]: second track for the same bone and path"),
            std::string::npos)
      << fails(dup);
  auto unknown = s;
  unknown.animations[0].tracks.back().bone = "bone_3000";
  EXPECT_NE(fails(unknown).find("animations[0].tracks[8999]: bone 'bone_3000' not in the skeleton"),
            std::string::npos)
      << fails(unknown);
  auto renamed = s;
  renamed.skeletons[0].bones[2999].name = "bone_5";
  EXPECT_NE(fails(renamed).find("skeletons[0].bones[2999]: duplicate bone name 'bone_5'"), std::string::npos)
      << fails(renamed);
}

// Found by tools/json_campaign.mjs: a scene JSON whose root_transform held a string made the
// glTF writer throw (E_INTERNAL with nlohmann's text). The keys writers act on are checked.
TEST(Validate, MetadataKeysWritersActOn) {
  auto s = small();
  s.metadata["root_transform"] = {{"rotation", {1.0, 0.0, 0.0, 0.0}}, {"scale", {2.0, 2.0, 2.0}}};
  EXPECT_EQ(fails(s), "");
  s.metadata["root_transform"]["rotation"][0] = "x";
  EXPECT_NE(fails(s).find("metadata.root_transform.rotation: must be 4 finite numbers"), std::string::npos) << fails(s);
  s.metadata["root_transform"] = {{"scale", {1.0, 2.0}}};
  EXPECT_NE(fails(s).find("metadata.root_transform.scale"), std::string::npos) << fails(s);
  s.metadata["root_transform"] = 3;
  EXPECT_NE(fails(s).find("metadata.root_transform: must be an object"), std::string::npos) << fails(s);
  s.metadata.erase("root_transform");
  s.skeletons[0].extras["display_offset"] = {1.0, nullptr, 2.0};
  EXPECT_NE(fails(s).find("skeletons[0].extras.display_offset"), std::string::npos) << fails(s);
}

// validate() passes a track through a fast branch-free check and words a failure on a
// detailed path; the verdict must be exactly the plain rules' verdict (reference below) on
// tracks near every edge: NaN/inf, -0, times at and just past the end, equal times, quaternion
// norms at 1 +- 1e-3, CUBICSPLINE layout, wrong value counts.
TEST(Validate, TrackFastCheckAgreesWithThePlainRules) {
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> u(-1, 1);
  const float specials[] = {std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity(),
                            -std::numeric_limits<float>::infinity(), -0.0f, 0.0f, 1e30f, -1e-30f};
  int passed = 0, failed = 0;
  for (int it = 0; it < 6000; ++it) {
    scene s = small();
    animation& a = s.animations[0];
    a.duration = it % 3 == 0 ? 1.0f : 0.5f + static_cast<float>(rng() % 100) / 7.0f;
    const double end = a.duration + 1e-4 * (1 + a.duration);
    track& t = a.tracks[0];
    t.path = static_cast<path>(rng() % 3);
    t.interpolation = static_cast<interpolation>(rng() % 3);
    const std::size_t n = static_cast<std::size_t>(components(t.path)), e = t.elements_per_key();
    const std::size_t nk = rng() % 6;
    t.times.clear();
    t.values.clear();
    float tm = 0;
    for (std::size_t k = 0; k < nk; ++k) {
      t.times.push_back(tm);
      tm += (rng() % 4) * a.duration / 8;
    }
    if (!t.times.empty() && rng() % 4 == 0) t.times.back() = static_cast<float>(end);  // at the end
    if (!t.times.empty() && rng() % 6 == 0)
      t.times.back() = std::nextafter(static_cast<float>(end), 1e9f);  // just past it
    if (!t.times.empty() && rng() % 6 == 0) t.times[rng() % nk] = specials[rng() % std::size(specials)];
    for (std::size_t k = 0; k < nk * e; ++k) {
      std::array<float, 4> q{u(rng), u(rng), u(rng), u(rng)};
      float len = std::sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
      float target = rng() % 3 ? 1.0f : 1.0f + static_cast<float>(static_cast<int>(rng() % 5) - 2) * 1e-3f;
      for (std::size_t c = 0; c < n; ++c) t.values.push_back(q[c] / len * target);
    }
    if (!t.values.empty() && rng() % 6 == 0) t.values[rng() % t.values.size()] = specials[rng() % std::size(specials)];
    if (rng() % 10 == 0) t.values.push_back(0);
    // The rules, written out plainly.
    bool ok = !t.times.empty() && !(t.interpolation == interpolation::cubic_spline && nk < 2) &&
              t.values.size() == nk * n * e;
    for (std::size_t k = 0; ok && k < nk; ++k)
      ok = std::isfinite(t.times[k]) && t.times[k] >= 0 && t.times[k] <= end && (k == 0 || t.times[k] > t.times[k - 1]);
    for (std::size_t i = 0; ok && i < t.values.size(); ++i) ok = std::isfinite(t.values[i]);
    if (ok && t.path == path::rotation)
      for (std::size_t k = 0; ok && k < nk; ++k) {
        const float* q = &t.values[(k * e + (e == 3 ? 1 : 0)) * 4];
        ok = std::fabs(std::sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]) - 1.0f) <= 1e-3f;
      }
    const std::string msg = fails(s);
    EXPECT_EQ(ok, msg.empty()) << "case " << it << ": " << msg;
    if (!ok) EXPECT_NE(msg.find("tracks[0]"), std::string::npos) << msg;
    ++(ok ? passed : failed);
  }
  EXPECT_GT(passed, 500);
  EXPECT_GT(failed, 500);
}

// The square-root-free unit test must give the sqrt formula's verdict bit for bit: every
// float in [0.25, 4) (2^25 values, the accepted interval with wide margins on both sides),
// then negatives, zeros, tiny, huge, infinite and NaN sums.
TEST(Validate, UnitNormWithoutSqrtMatchesTheSqrtFormula) {
  auto by_sqrt = [](float x) { return std::fabs(std::sqrt(x) - 1.0f) <= 1e-3f; };
  auto from_bits = [](std::uint32_t b) {
    float f;
    std::memcpy(&f, &b, 4);
    return f;
  };
  std::size_t accepted = 0, mismatches = 0;
  for (std::uint32_t b = 0x3e800000u; b < 0x40800000u; ++b) {
    const float x = from_bits(b);
    const bool want = by_sqrt(x);
    accepted += want;
    mismatches += want != detail::unit_norm_sq(x);
  }
  EXPECT_EQ(mismatches, 0u);
  EXPECT_EQ(accepted, 50324u);  // the interval found by a scan over every float
  const float edge[] = {0.0f, -0.0f, -1.0f, 1e-40f, 1e30f, std::numeric_limits<float>::max(),
                        std::numeric_limits<float>::infinity(), -std::numeric_limits<float>::infinity(),
                        std::numeric_limits<float>::quiet_NaN(), detail::unit_norm_sq_lo(), detail::unit_norm_sq_hi(),
                        std::nextafter(detail::unit_norm_sq_lo(), 0.0f), std::nextafter(detail::unit_norm_sq_hi(), 2.0f)};
  for (float x : edge) EXPECT_EQ(by_sqrt(x), detail::unit_norm_sq(x)) << x;
  std::mt19937 rng(7);
  for (int i = 0; i < 200000; ++i) {
    const float x = from_bits(static_cast<std::uint32_t>(rng()));
    EXPECT_EQ(by_sqrt(x), detail::unit_norm_sq(x)) << x;
  }
}

// validate()'s bone-name table: add() reports the first bone of a name exactly as a linear
// search over the bones added so far would, and find() agrees with skeleton::find, for names
// of every length around the 8-byte steps of the hash, empty names and many duplicates.
TEST(Validate, BoneNameIndexAgreesWithLinearSearch) {
  std::mt19937 rng(16);
  for (int round = 0; round < 60; ++round) {
    skeleton sk;
    const int n = static_cast<int>(rng() % 400);
    const int alphabet = 1 + static_cast<int>(rng() % 4);  // few letters: many equal names
    for (int i = 0; i < n; ++i) {
      std::string name(rng() % 26, 'a');
      for (auto& c : name) c = static_cast<char>('a' + rng() % alphabet);
      sk.bones.push_back(bone{name, -1});
    }
    detail::bone_name_index ix(sk);
    for (int b = 0; b < n; ++b) {
      int first = b;
      for (int k = 0; k < b; ++k)
        if (sk.bones[k].name == sk.bones[b].name) {
          first = k;
          break;
        }
      ASSERT_EQ(ix.add(static_cast<std::size_t>(b)), first) << "round " << round << " bone " << b;
    }
    for (int b = 0; b < n; ++b) ASSERT_EQ(ix.find(sk.bones[b].name), sk.find(sk.bones[b].name));
    for (int k = 0; k < 200; ++k) {
      std::string probe(rng() % 30, 'a');
      for (auto& c : probe) c = static_cast<char>('a' + rng() % 5);
      ASSERT_EQ(ix.find(probe), sk.find(probe)) << probe;
    }
  }
  // Equal hashes never make names equal: every name of 0..16 bytes that differs in one byte.
  skeleton sk;
  for (int len = 0; len <= 16; ++len)
    for (int at = 0; at < len; ++at) {
      std::string s(len, 'x');
      s[at] = 'y';
      sk.bones.push_back(bone{s, -1});
    }
  sk.bones.push_back(bone{"", -1});
  detail::bone_name_index ix(sk);
  for (std::size_t b = 0; b < sk.bones.size(); ++b) ASSERT_EQ(ix.add(b), static_cast<int>(b));
  EXPECT_EQ(ix.find("xxxx"), -1);
  EXPECT_EQ(ix.find("xyxx"), sk.find("xyxx"));
}

// Tracks in any order (not bone by bone) find their bones; the first unknown bone or second
// track is the one named, as a search per track would find it.
TEST(Validate, TrackLookupInAnyOrderNamesTheFirstProblem) {
  std::mt19937 rng(7);
  for (int round = 0; round < 40; ++round) {
    scene s;
    skeleton sk;
    const int n = 1 + static_cast<int>(rng() % 60);
    for (int i = 0; i < n; ++i) sk.bones.push_back(bone{"b" + std::to_string(i * 7919 % 1000), i - 1});
    s.skeletons.push_back(sk);
    animation a;
    a.duration = 1;
    const int nt = static_cast<int>(rng() % 120);
    std::vector<std::pair<int, path>> keys;  // bone (n: unknown), path
    for (int t = 0; t < nt; ++t) {
      int b = static_cast<int>(rng() % (n + 1));
      if (rng() % 3 == 0 && !keys.empty()) b = keys.back().first + static_cast<int>(rng() % 3) - 1;  // neighbours
      if (b < 0) b = 0;
      if (b > n) b = n;
      if (b == n && rng() % 4) b = n - 1;
      const path p = static_cast<path>(rng() % 3);
      keys.emplace_back(b, p);
      track tr;
      tr.bone = b == n ? "unknown" : s.skeletons[0].bones[static_cast<std::size_t>(b)].name;
      tr.path = p;
      tr.times = {0};
      tr.values = p == path::rotation ? std::vector<float>{0, 0, 0, 1} : std::vector<float>{1, 1, 1};
      a.tracks.push_back(tr);
    }
    s.animations.push_back(a);
    std::string expect;
    std::set<std::pair<int, path>> seen;
    for (int t = 0; t < nt && expect.empty(); ++t) {
      const std::string w = "animations[0].tracks[" + std::to_string(t) + "]: ";
      if (keys[t].first == n) expect = w + "bone 'unknown' not in the skeleton";
      else if (!seen.insert(keys[t]).second) expect = w + "second track for the same bone and path";
    }
    ASSERT_EQ(fails(s), expect) << "round " << round;
  }
}
