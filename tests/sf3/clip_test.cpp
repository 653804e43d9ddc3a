// The clips are cut from flat per-table channel arrays (times written in place, values copied
// in one piece): they must equal, bit for bit, the plain per-key cut of the copied key table
// (channels of vectors, keys pushed one by one), including dropped keys (non-increasing
// frames), repaired rotations and the sampled boundary keys.
#include <cmath>
#include <cstring>
#include <filesystem>
#include <map>
#include <random>
#include <string>

#include <gtest/gtest.h>

#include "core/math.hpp"
#include "formats/sf3/decode.hpp"
#include "formats/sf3/x8pc.hpp"
#include "synthetic.hpp"
#include "test_support.hpp"

using namespace rigrip;
using namespace rigrip::sf3;

namespace {

struct ref_channel {
  std::vector<int> frames;
  std::vector<std::array<float, 4>> values;
  int ncomp = 3;
};

// One bone's channels as the decoder made them before (drop after repair, as it counted).
std::array<ref_channel, 3> ref_channels(const key_record& k) {
  std::array<ref_channel, 3> out;
  out[1].ncomp = 4;
  auto push = [&](ref_channel& c, int frame, std::array<float, 4> v) {
    if (!c.frames.empty() && frame <= c.frames.back()) return;
    c.frames.push_back(frame);
    c.values.push_back(v);
  };
  for (std::size_t i = 0; i < k.t_frames.size(); ++i)
    push(out[0], k.t_frames[i], {fixed_to_float(k.t[0][i]), fixed_to_float(k.t[1][i]), fixed_to_float(k.t[2][i]), 0});
  for (std::size_t i = 0; i < k.r_frames.size(); ++i) {
    quat q{rot_to_float(k.r[0][i]), rot_to_float(k.r[1][i]), rot_to_float(k.r[2][i]), rot_to_float(k.r[3][i])};
    float len = std::sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    if (!(std::fabs(len - 1.0f) < 5e-4f)) q = len > 1e-6f && std::isfinite(len) ? core::normalize(q) : quat{0, 0, 0, 1};
    push(out[1], k.r_frames[i], {q[0], q[1], q[2], q[3]});
  }
  for (std::size_t i = 0; i < k.s_frames.size(); ++i)
    push(out[2], k.s_frames[i], {fixed_to_float(k.s[0][i]), fixed_to_float(k.s[1][i]), fixed_to_float(k.s[2][i]), 0});
  return out;
}

std::array<float, 4> ref_sample(const ref_channel& c, double frame) {
  const auto& f = c.frames;
  if (frame <= f.front()) return c.values.front();
  if (frame >= f.back()) return c.values.back();
  auto it = std::upper_bound(f.begin(), f.end(), frame);
  std::size_t hi = static_cast<std::size_t>(it - f.begin()), lo = hi - 1;
  float t = static_cast<float>((frame - f[lo]) / (f[hi] - f[lo]));
  const auto& a = c.values[lo];
  const auto& b = c.values[hi];
  if (c.ncomp == 4) {
    quat q = core::slerp({a[0], a[1], a[2], a[3]}, {b[0], b[1], b[2], b[3]}, t);
    return {q[0], q[1], q[2], q[3]};
  }
  return {a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t, a[2] + (b[2] - a[2]) * t, 0};
}

// The track the plain cut gives for one channel.
void ref_track(const ref_channel& c, int f0, int f1, double fps, bool all, std::vector<float>& times, std::vector<float>& values) {
  auto add = [&](double frame, const std::array<float, 4>& v) {
    times.push_back(static_cast<float>(frame / fps));
    for (int j = 0; j < c.ncomp; ++j) values.push_back(v[static_cast<std::size_t>(j)]);
  };
  if (all) {
    for (std::size_t k = 0; k < c.frames.size(); ++k) add(c.frames[k], c.values[k]);
    return;
  }
  add(0, ref_sample(c, f0));
  for (std::size_t k = 0; k < c.frames.size(); ++k)
    if (c.frames[k] > f0 && c.frames[k] < f1) add(c.frames[k] - f0, c.values[k]);
  if (f1 > f0) add(f1 - f0, ref_sample(c, f1));
}

bool same_bits(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0);
}

// Every clip of the scene read from `in` against the plain cut of its copied key table.
// Returns the number of tracks compared.
std::size_t expect_clips_equal_plain_cut(const bytes& in) {
  const x8pc_file f = parse_x8pc(in, true);
  read_context ctx;
  ctx.data = in;
  ctx.path = "X8PC99Z.BIN";  // no sibling: external entries are skipped
  diagnostics d;
  ctx.diags = &d;
  const scene s = read_x8pc_scene(ctx);
  std::map<std::string, std::size_t> model_of;
  for (std::size_t m = 0; m < f.models.size(); ++m)
    model_of[f.models.size() == 1 ? std::string("X8PC99Z") : "X8PC99Z_" + std::to_string(m)] = m;
  std::size_t compared = 0;
  for (const auto& a : s.animations) {
    const auto& m = f.models.at(model_of.at(a.extras.at("sf3_model").get<std::string>()));
    const skeleton& sk = s.skeletons.at(static_cast<std::size_t>(a.skeleton));
    const bool all = a.extras.contains("sf3_all_frames");
    int f0 = 0, f1 = 0;
    if (!all) {
      const auto& def = m.anim.defs.at(a.extras.at("sf3_def").get<std::size_t>());
      f0 = def.first_frame();
      f1 = f0 + std::max<int>(def.count, 1) - 1;
    }
    const double fps = *a.fps;
    std::size_t ti = 0;
    const std::size_t nb = std::min(m.anim.keys.bones.size(), sk.bones.size());
    for (std::size_t b = 0; b < nb; ++b) {
      const auto ch = ref_channels(m.anim.keys.bones[b]);
      for (std::size_t c = 0; c < 3; ++c) {
        if (ch[c].frames.empty()) continue;
        std::vector<float> times, values;
        ref_track(ch[c], f0, f1, fps, all, times, values);
        if (ti >= a.tracks.size()) {
          ADD_FAILURE() << a.name << ": missing track " << ti;
          return compared;
        }
        const track& t = a.tracks[ti++];
        EXPECT_EQ(t.bone, sk.bones[b].name) << a.name;
        EXPECT_EQ(static_cast<int>(t.path), static_cast<int>(c == 0 ? path::translation : c == 1 ? path::rotation : path::scale));
        EXPECT_TRUE(same_bits(t.times, times)) << a.name << " bone " << b << " channel " << c;
        EXPECT_TRUE(same_bits(t.values, values)) << a.name << " bone " << b << " channel " << c;
        ++compared;
      }
    }
    EXPECT_EQ(ti, a.tracks.size()) << a.name;
  }
  return compared;
}

std::vector<bytes> inputs() {
  std::vector<bytes> in{synthetic::x8pc()};
  for (const char* n : {"sf3/X8PC00A.BIN", "sf3/X8PC41X.BIN"}) {
    const std::string p = std::string(RIGRIP_SAMPLES_DIR) + "/" + n;
    if (std::filesystem::exists(p)) in.push_back(test::read_bytes(p));
  }
  return in;
}

}  // namespace

TEST(Clips, EqualThePlainCutOfTheCopiedTable) {
  for (const auto& in : inputs()) EXPECT_GT(expect_clips_equal_plain_cut(in), 0u);
}

// The same with damaged keys (counts kept, so the layout stays): frames out of order and
// repeated (dropped keys), rotations scaled or zero (repaired), in random bones and channels.
TEST(Clips, DroppedAndRepairedKeysEqualThePlainCut) {
  std::mt19937 rng(1601);
  for (const auto& in : inputs()) {
    for (int iter = 0; iter < 6; ++iter) {
      x8pc_file f = parse_x8pc(in, true);
      for (auto& m : f.models)
        for (auto& k : m.anim.keys.bones) {
          auto scramble = [&](auto& frames) {
            if (frames.size() >= 2 && rng() % 3 == 0) std::swap(frames[rng() % frames.size()], frames[rng() % frames.size()]);
            if (frames.size() >= 2 && rng() % 4 == 0) frames[rng() % frames.size()] = frames[rng() % frames.size()];
          };
          scramble(k.t_frames);
          scramble(k.r_frames);
          scramble(k.s_frames);
          for (std::size_t i = 0; i < k.r_frames.size(); ++i) {
            const unsigned pick = rng() % 8;
            if (pick == 0)
              for (auto& c : k.r) c[i] = 0;
            else if (pick == 1)
              for (auto& c : k.r) c[i] = static_cast<std::int16_t>(c[i] / 2);
          }
        }
      const bytes damaged = write_x8pc(f);
      ASSERT_EQ(damaged.size(), in.size());
      EXPECT_GT(expect_clips_equal_plain_cut(damaged), 0u) << iter;
    }
  }
}

namespace {
// Equal values of equal JSON types all the way down (operator== takes 5u and 5 as equal).
bool same_json(const nlohmann::json& a, const nlohmann::json& b) {
  if (a.type() != b.type()) return false;
  if (a.is_object()) {
    if (a.size() != b.size()) return false;
    for (auto it = a.begin(), jt = b.begin(); it != a.end(); ++it, ++jt)
      if (it.key() != jt.key() || !same_json(*it, *jt)) return false;
    return true;
  }
  if (a.is_array()) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i)
      if (!same_json(a[i], b[i])) return false;
    return true;
  }
  return a == b;
}
}  // namespace

// The extras of meshes, bones, skeletons, the atlas and clips are built key by key: the same
// object, with the same value types, as the initializer-list form they replaced.
TEST(Extras, KeyByKeyEqualsTheInitializerListForm) {
  const std::size_t size = 7;
  const std::uint16_t u16 = 0x1234;
  const std::uint8_t code = 0x30;
  const int negative = -3;
  const std::uint64_t offset = 0x800;
  const std::string part = "body03";
  nlohmann::json ev = nlohmann::json::array();
  ev.push_back({std::uint16_t{12}, std::uint16_t{6}});
  EXPECT_TRUE(same_json(json_object("sf3_bone", size), nlohmann::json{{"sf3_bone", size}}));
  EXPECT_TRUE(same_json(json_object("sf3_tag", code, "attachment", true), nlohmann::json{{"sf3_tag", code}, {"attachment", true}}));
  EXPECT_TRUE(same_json(json_object("sf3_part", part, "textured_faces", size, "flat_faces", std::size_t{0}),
                        nlohmann::json{{"sf3_part", part}, {"textured_faces", size}, {"flat_faces", std::size_t{0}}}));
  EXPECT_TRUE(same_json(json_object("sf3_def", size, "id", u16, "first_frame", negative, "frame_count", u16, "distance", u16,
                                    "events", ev, "sf3_model", part),
                        nlohmann::json{{"sf3_def", size}, {"id", u16}, {"first_frame", negative}, {"frame_count", u16},
                                       {"distance", u16}, {"events", ev}, {"sf3_model", part}}));
  EXPECT_TRUE(same_json(json_object("x8an_segment", size, "group", negative, "first_frame", 5, "offset", offset),
                        nlohmann::json{{"x8an_segment", size}, {"group", negative}, {"first_frame", 5}, {"offset", offset}}));
  EXPECT_TRUE(same_json(json_object("sf3_all_frames", true, "sf3_model", part), nlohmann::json{{"sf3_all_frames", true}, {"sf3_model", part}}));
  EXPECT_TRUE(same_json(json_object(), nlohmann::json::object()));
  // same_json tells the types apart.
  EXPECT_FALSE(same_json(json_object("a", 5), json_object("a", 5u)));
}

// The atlas rectangles and event pairs are built element by element: the same array, with the
// same number types, as the initializer-list form.
TEST(Extras, ArrayElementByElementEqualsTheInitializerListForm) {
  const std::uint64_t x = 4, y = 260;
  const std::uint32_t w = 32, h = 16;
  const std::uint16_t frame = 12, code = 6;
  EXPECT_TRUE(same_json(json_array(x, y, w, h), nlohmann::json{x, y, w, h}));
  EXPECT_TRUE(same_json(json_array(frame, code), nlohmann::json{frame, code}));
  nlohmann::json list = nlohmann::json::array();
  list.push_back({frame, code});
  nlohmann::json built = nlohmann::json::array();
  built.push_back(json_array(frame, code));
  EXPECT_TRUE(same_json(built, list));
  EXPECT_FALSE(same_json(json_array(5), nlohmann::json{-5}));
  EXPECT_FALSE(same_json(json_array(5u), nlohmann::json{5}));
}

// Rotation keys in SSE2 blocks of four equal the key-by-key decode bit for bit: both byte
// orders, every length 0..41, unit and non-unit rotations (zero, halved, random), frames in
// order, repeated and going back (dropped keys), blocks where only some keys qualify.
TEST(Clips, RotationBlocksOfFourEqualKeyByKey) {
  std::mt19937 rng(1611);
  for (int iter = 0; iter < 6000; ++iter) {
    const std::uint32_t n = static_cast<std::uint32_t>(iter % 42);
    const bool big = iter % 2 == 0;
    auto put16 = [&](std::vector<std::uint8_t>& v, std::size_t i, unsigned x) {
      v[2 * i + (big ? 0 : 1)] = static_cast<std::uint8_t>(x >> 8);
      v[2 * i + (big ? 1 : 0)] = static_cast<std::uint8_t>(x);
    };
    std::vector<std::uint8_t> frames(2 * n + 1), comp[4];
    for (auto& c : comp) c.assign(2 * n + 1, 0);
    unsigned f = rng() % 50;
    const unsigned damage = iter % 4;  // 0: clean, else a key in `damage` of 8 is damaged
    for (std::uint32_t i = 0; i < n; ++i) {
      f += (damage && rng() % 8 < damage) ? 0 : 1 + rng() % 5;
      unsigned fr = f;
      if (damage && rng() % 8 < damage) fr = rng() % 0x10000;  // out of order
      put16(frames, i, fr);
      // A random unit quaternion at 1/16384 resolution (as stored), or damaged.
      std::array<float, 4> q{};
      float len = 0;
      do {
        for (auto& c : q) c = static_cast<float>(static_cast<int>(rng() % 2001) - 1000) / 1000.0f;
        len = std::sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
      } while (len < 0.1f);
      std::array<int, 4> s{};
      for (int j = 0; j < 4; ++j) s[static_cast<std::size_t>(j)] = static_cast<int>(std::lround(q[static_cast<std::size_t>(j)] / len * 16384.0f));
      if (damage && rng() % 8 < damage) {
        const unsigned pick = rng() % 3;
        for (auto& v : s) v = pick == 0 ? 0 : pick == 1 ? v / 2 : static_cast<int>(rng() % 65536) - 32768;
      }
      for (int j = 0; j < 4; ++j) put16(comp[j], i, static_cast<unsigned>(s[static_cast<std::size_t>(j)]) & 0xFFFFu);
    }
    // Odd addresses too: the arrays start one byte in on odd iterations.
    const std::size_t o = (iter / 2) % 2;
    if (o) {
      frames.insert(frames.begin(), 0);
      for (auto& c : comp) c.insert(c.begin(), 0);
    }
    const std::array<const std::uint8_t*, 4> cp{comp[0].data() + o, comp[1].data() + o, comp[2].data() + o, comp[3].data() + o};
    std::vector<int> fa(n + 1, -7), fb(n + 1, -7);
    std::vector<float> va(4 * n + 4, -7.0f), vb(4 * n + 4, -7.0f);
    std::size_t da = 0, ra = 0, db = 0, rb = 0;
    const std::size_t ka = decode_channel_keys(frames.data() + o, cp, n, true, big, true, fa.data(), va.data(), da, ra);
    const std::size_t kb = decode_channel_keys(frames.data() + o, cp, n, true, big, false, fb.data(), vb.data(), db, rb);
    ASSERT_EQ(ka, kb) << iter;
    ASSERT_EQ(da, db) << iter;
    ASSERT_EQ(ra, rb) << iter;
    ASSERT_EQ(ka + da, n) << iter;
    ASSERT_EQ(fa, fb) << iter;
    ASSERT_EQ(std::memcmp(va.data(), vb.data(), va.size() * sizeof(float)), 0) << iter;
  }
}

// Translation and scale keys (FIXED 16.16) in SSE2 blocks of four equal the key-by-key decode
// bit for bit: both byte orders, every length 0..41, values over the whole int32 range (float
// rounding included), small values, frames in order, repeated and going back.
TEST(Clips, VectorBlocksOfFourEqualKeyByKey) {
  std::mt19937 rng(1613);
  for (int iter = 0; iter < 6000; ++iter) {
    const std::uint32_t n = static_cast<std::uint32_t>(iter % 42);
    const bool big = iter % 2 == 0;
    const std::size_t o = (iter / 2) % 4;  // odd and unaligned addresses
    std::vector<std::uint8_t> frames(2 * n + o), comp[3];
    for (auto& c : comp) c.assign(4 * n + o, 0);
    auto put = [&](std::vector<std::uint8_t>& v, std::size_t at, std::uint32_t x, int size) {
      for (int k = 0; k < size; ++k) v[at + static_cast<std::size_t>(big ? size - 1 - k : k)] = static_cast<std::uint8_t>(x >> (8 * k));
    };
    unsigned f = rng() % 50;
    const unsigned damage = iter % 4;
    for (std::uint32_t i = 0; i < n; ++i) {
      f += (damage && rng() % 8 < damage) ? 0 : 1 + rng() % 5;
      put(frames, o + 2 * i, (damage && rng() % 8 < damage) ? rng() % 0x10000 : f, 2);
      for (auto& c : comp) {
        const std::uint32_t v = (iter / 8) % 2 ? static_cast<std::uint32_t>(rng()) : static_cast<std::uint32_t>(static_cast<int>(rng() % 2000001) - 1000000);
        put(c, o + 4 * i, v, 4);
      }
    }
    const std::array<const std::uint8_t*, 4> cp{comp[0].data() + o, comp[1].data() + o, comp[2].data() + o, nullptr};
    std::vector<int> fa(n + 1, -7), fb(n + 1, -7);
    std::vector<float> va(3 * n + 3, -7.0f), vb(3 * n + 3, -7.0f);
    std::size_t da = 0, ra = 0, db = 0, rb = 0;
    const std::size_t ka = decode_channel_keys(frames.data() + o, cp, n, false, big, true, fa.data(), va.data(), da, ra);
    const std::size_t kb = decode_channel_keys(frames.data() + o, cp, n, false, big, false, fb.data(), vb.data(), db, rb);
    ASSERT_EQ(ka, kb) << iter;
    ASSERT_EQ(da, db) << iter;
    ASSERT_EQ(ra, 0u) << iter;
    ASSERT_EQ(rb, 0u) << iter;
    ASSERT_EQ(ka + da, n) << iter;
    ASSERT_EQ(fa, fb) << iter;
    ASSERT_EQ(std::memcmp(va.data(), vb.data(), va.size() * sizeof(float)), 0) << iter;
  }
}
