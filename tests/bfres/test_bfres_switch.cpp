// Switch FRES (src/formats/bfres/fres_switch.cpp): a hand-built little-endian file laid
// out from the notes (../shared/specs/bfres.md §7) by an independent writer below, its
// damage cases, and the real Breath of the Wild event pack (read in place when present).
#include <array>
#include <bit>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <map>
#include <set>

#include <gtest/gtest.h>

#include "core/failure.hpp"
#include "core/math.hpp"
#include "formats/bfres/camera.hpp"
#include "formats/bfres/encode.hpp"
#include "formats/bfres/fres.hpp"
#include "rigrip/gltf.hpp"
#include "rigrip/registry.hpp"
#include "scene/pose.hpp"
#include "builder.hpp"
#include "test_support.hpp"

using namespace rigrip;

namespace {

// Little-endian bytes with absolute 64-bit offsets to labels resolved at the end.
struct le_buffer {
  std::vector<std::uint8_t> b;
  std::map<std::string, std::size_t> labels;
  std::vector<std::pair<std::size_t, std::string>> fixups;
  void u8(std::uint8_t v) { b.push_back(v); }
  void u16(std::uint16_t v) { u8(std::uint8_t(v)), u8(std::uint8_t(v >> 8)); }
  void u32(std::uint32_t v) { u16(std::uint16_t(v)), u16(std::uint16_t(v >> 16)); }
  void f32(float v) { std::uint32_t x; std::memcpy(&x, &v, 4); u32(x); }
  void raw(const char* s) { b.insert(b.end(), s, s + std::strlen(s)); }
  void ptr(const std::string& label) {
    if (!label.empty()) fixups.push_back({b.size(), label});
    u32(0), u32(0);
  }
  void mark(const std::string& l) { labels[l] = b.size(); }
  void pad_to(std::size_t n) { while (b.size() < n) u8(0); }
  void align(std::size_t a) { while (b.size() % a) u8(0); }
  void str(const std::string& l, const std::string& s) {  // u16 length, chars, NUL, align 2
    align(2);
    mark(l);
    u16(std::uint16_t(s.size()));
    raw(s.c_str());
    u8(0);
  }
  // The 0xD0-byte Switch FRES 0.5.0.3 header: the name at 0x20 ("s:file"), the u64 offset fields
  // 0x28..0xB0 given by their 0.5 position (others 0), the 7 counts. No relocation table.
  // 0.9+ (the notes: BfresLibrary's loader): 32 reserved bytes after the model dictionary
  // (0x38..0x57, filled with 0xA5 here so a reader that skips them wrongly fails), the other
  // offsets 0x20 later, and two more u16 counts (7, 9 here) after the model count: 0xF0 bytes.
  void switch_header(const std::map<std::uint32_t, std::string>& offsets, const std::array<std::uint16_t, 7>& counts,
                     std::uint32_t version = 0x00050003) {
    const bool v09 = ((version >> 16) & 0xFF) >= 9;
    raw("FRES    ");
    u32(version);
    u8(0xFF), u8(0xFE), u8(3), u8(0);
    u32(0), u16(0), u16(v09 ? 0xF0 : 0xD0), u32(0), u32(0);  // file name chars and file size: finish_switch()
    ptr("s:file");
    for (std::uint32_t at = 0x28; at <= 0xB0; at += 8) {
      if (v09 && at == 0x38)
        for (int i = 0; i < 32; ++i) u8(0xA5);
      ptr(offsets.count(at) ? offsets.at(at) : "");
    }
    u32(0);  // string table size
    u16(counts[0]);
    if (v09) u16(7), u16(9);
    for (std::size_t i = 1; i < counts.size(); ++i) u16(counts[i]);
    pad_to(v09 ? 0xF0 : 0xD0);
  }
  // Resolves the offsets, then patches the file name's characters and the file size.
  void finish_switch() {
    finish();
    const auto name_chars = std::uint32_t(labels["s:file"] + 2), size = std::uint32_t(b.size());
    std::memcpy(b.data() + 0x10, &name_chars, 4);
    std::memcpy(b.data() + 0x1C, &size, 4);
  }
  void finish() {
    for (auto& [at, l] : fixups) {
      std::uint64_t v = labels.at(l);
      for (int i = 0; i < 8; ++i) b[at + i] = std::uint8_t(v >> (8 * i));
    }
  }
};

// One FSKA "Walk" (Euler, 20 frames) with one bone animation "Hip": base S(1) R(0) T(0,5,0)
// and one linear curve on translate x: keys (1, +2) at frame 0 and (3, 0) at frame 20.
// 0.9+: the FSKA has its flags where 0.5 has the block header (0x50 bytes) and the bone
// animation a user-data array and dictionary (0, 0) before its flags (0x38 bytes).
std::vector<std::uint8_t> switch_file(std::uint32_t version = 0x00050003) {
  const bool v09 = ((version >> 16) & 0xFF) >= 9;
  le_buffer w;
  // skeletal animations (array, dictionary), string table
  w.switch_header({{0x38, "fska"}, {0x40, "dict"}, {0xB0, "s:empty"}}, {0, 1, 0, 0, 0, 0, 0}, version);
  w.mark("fska");
  if (v09) w.raw("FSKA"), w.u32(0x1000 | 4);  // Euler, loop
  else w.raw("FSKA"), w.u32(0x60), w.u32(0x60), w.u32(0);
  w.ptr("s:Walk"), w.ptr("s:Walk"), w.ptr(""), w.ptr("bind"), w.ptr("ba"), w.ptr(""), w.ptr("");
  if (!v09) w.u32(0x1000 | 4);  // Euler, loop
  w.u32(20), w.u32(1), w.u32(0), w.u16(1), w.u16(0);
  if (!v09) w.u32(0);
  w.mark("ba");
  w.ptr("s:Hip"), w.ptr("curves"), w.ptr("base");
  if (v09) w.ptr(""), w.ptr("");  // user data array, dictionary
  w.u32((1u << 3) | (1u << 4) | (1u << 5) | (1u << 13));  // base S, R, T; curve on translate x
  w.u8(3), w.u8(6), w.u8(1), w.u8(7), w.u32(0), w.u32(0);
  w.mark("curves");
  w.ptr("frames"), w.ptr("keys");
  w.u16(0x10), w.u16(2), w.u32(0x10);  // linear, f32 frames and keys; translate x
  w.f32(0), w.f32(20), w.f32(1), w.f32(0), w.f32(2), w.u32(0);
  w.mark("frames");
  w.f32(0), w.f32(20);
  w.mark("keys");
  w.f32(1), w.f32(2), w.f32(3), w.f32(0);
  w.mark("base");
  for (float v : {1.f, 1.f, 1.f, 0.f, 0.f, 0.f, 0.f, 0.f, 5.f, 0.f}) w.f32(v);
  w.mark("bind");
  w.u16(0xFFFF);
  w.align(8);
  w.mark("dict");
  w.u32(0), w.u32(1);
  w.u32(0xFFFFFFFF), w.u16(1), w.u16(0), w.ptr("s:empty");
  w.u32(0), w.u16(0), w.u16(1), w.ptr("s:Walk");
  w.str("s:empty", "");
  w.str("s:file", "tiny");
  w.str("s:Walk", "Walk");
  w.str("s:Hip", "Hip");
  w.align(8);
  w.finish_switch();
  return w.b;
}

// A .bcamanim as BotW lays it out: a Switch FRES with no animation and one embedded file
// `Cam-0.brtcamera` (path, key count, end frame, 0, then 0x28-byte keys).
struct cam_key {
  std::uint32_t flags;
  float frame, fov, eye[3], target[3], twist;
};
std::vector<std::uint8_t> bcamanim_file(const std::vector<cam_key>& keys, float end_frame) {
  le_buffer w;
  // one embedded file (array, dictionary), string table
  w.switch_header({{0x98, "ext"}, {0xA0, "extdict"}, {0xB0, "s:empty"}}, {0, 0, 0, 0, 0, 0, 1});
  w.mark("ext");
  w.ptr("cam");
  w.u32(0), w.u32(0);  // size, patched below
  w.mark("extdict");
  w.u32(0), w.u32(1);
  w.u32(0xFFFFFFFF), w.u16(1), w.u16(0), w.ptr("s:empty");
  w.u32(0), w.u16(0), w.u16(1), w.ptr("s:cam");
  w.str("s:empty", "");
  w.str("s:file", "Cam-0");
  w.str("s:cam", "Cam-0.brtcamera");
  w.align(0x100);
  w.mark("cam");
  const std::size_t cam_at = w.b.size();
  std::string path = "Demo/Cam-0";
  path.resize(0x40, '\0');
  w.b.insert(w.b.end(), path.begin(), path.end());
  w.u32(std::uint32_t(keys.size())), w.f32(end_frame), w.u32(0);
  for (const auto& k : keys) {
    w.u32(k.flags), w.f32(k.frame), w.f32(k.fov);
    for (float v : k.eye) w.f32(v);
    for (float v : k.target) w.f32(v);
    w.f32(k.twist);
  }
  const auto cam_size = std::uint32_t(w.b.size() - cam_at);
  w.align(8);
  w.finish_switch();
  std::memcpy(w.b.data() + w.labels["ext"] + 8, &cam_size, 4);
  return w.b;
}

// Three keys: a dolly from z 10 to z 20 (looking down -Z at the origin's axis), the field of
// view narrowing from 40 to 20 degrees, and a twist of 90 degrees at the last key.
std::vector<cam_key> dolly_keys() {
  return {{0, 0, 40, {0, 0, 10}, {0, 0, 0}, 0},
          {1, 30, 30, {0, 0, 20}, {0, 0, 0}, 0},
          {0, 60, 20, {0, 0, 20}, {0, 0, 0}, 90}};
}

void expect_error(std::vector<std::uint8_t> d, code c, const std::string& text) {
  try {
    (void)bfres::parse(std::move(d));
    ADD_FAILURE() << "no error; expected " << text;
  } catch (const core::failure& e) {
    EXPECT_EQ(e.error().code, c) << e.error().message;
    EXPECT_NE(e.error().message.find(text), std::string::npos) << e.error().message;
  }
}

TEST(Switch, HandBuiltFileParsesAsTheNotesSay) {
  const auto d = switch_file();
  EXPECT_EQ(bfres::detect_platform(d), bfres::platform::switch_);
  const auto f = bfres::parse(d);
  EXPECT_EQ(f.plat, bfres::platform::switch_);
  EXPECT_EQ(f.version_string(), "0.5.0.3");
  EXPECT_EQ(f.name, "tiny");
  ASSERT_EQ(f.anims.size(), 1u);
  const auto& a = f.anims[0];
  EXPECT_EQ(a.name, "Walk");
  EXPECT_EQ(a.frame_count, 20);
  EXPECT_TRUE(a.loop());
  EXPECT_TRUE(a.euler());
  ASSERT_EQ(a.bone_anims.size(), 1u);
  EXPECT_EQ(a.bone_anims[0].name, "Hip");
  EXPECT_EQ(a.bone_anims[0].base.size(), 10u);
  ASSERT_EQ(a.bone_anims[0].curves.size(), 1u);
  const auto& c = a.bone_anims[0].curves[0];
  EXPECT_EQ(c.type(), bfres::curve_type::linear);
  EXPECT_FLOAT_EQ(c.eval(10), 2.0f);
  EXPECT_FLOAT_EQ(c.eval(20), 3.0f);
  ASSERT_TRUE(f.dicts[2]);
  EXPECT_EQ(f.dicts[2]->nodes[1].name, "Walk");
  EXPECT_EQ(bfres::serialise(f), d);
  EXPECT_EQ(bfres::to_json(f)["platform"], "switch");
  // Kept in the test output: the fuzz campaign seeds its bfres target from there.
  std::filesystem::create_directories(std::string(RIGRIP_TEST_OUT) + "/bfres");
  test::write_bytes(std::string(RIGRIP_TEST_OUT) + "/bfres/switch_tiny.bfres", d);
}

TEST(Switch, SerialiseWritesTheParsedFields) {
  const auto d = switch_file();
  auto f = bfres::parse(d);
  f.anims[0].bone_anims[0].curves[0].keys_raw[2] = std::bit_cast<std::uint32_t>(7.0f);
  f.anims[0].frame_count = 40;
  f.anims[0].bone_anims[0].base[8] = 6.0f;
  const auto g = bfres::parse(bfres::serialise(f));
  EXPECT_EQ(g.anims[0].frame_count, 40);
  EXPECT_FLOAT_EQ(g.anims[0].bone_anims[0].curves[0].eval(20), 7.0f);
  EXPECT_FLOAT_EQ(g.anims[0].bone_anims[0].base[8], 6.0f);
}

TEST(Switch, SceneFromTheHandBuiltFile) {
  const auto d = switch_file();
  diagnostics diags;
  auto s = read_scene(d, "tiny.bfres", read_options{}, diags);
  ASSERT_TRUE(s) << s.error().to_string();
  EXPECT_EQ(s.value().metadata["platform"], "switch");
  ASSERT_EQ(s.value().animations.size(), 1u);
  const auto& an = s.value().animations[0];
  const auto& sk = s.value().skeletons[0];
  const auto p = scene_ops::sample_pose(sk, an, 10 / 30.0f);
  const int hip = sk.find("Hip");
  ASSERT_GE(hip, 0);
  EXPECT_NEAR(p.translation[std::size_t(hip)][0], 2.0f, 1e-5);
  EXPECT_NEAR(p.translation[std::size_t(hip)][1], 5.0f, 1e-5);
}

TEST(Switch, DamageGivesClearErrors) {
  const auto good = switch_file();
  auto d = good;
  d[0x38] = 0xF0, d[0x39] = 0xFF, d[0x3A] = 0xFF;  // animation array far outside the file
  expect_error(d, code::bad_offset, "outside the file");
  d = good;
  d[0x0A] = 11;  // version 0.11.0.3
  expect_error(d, code::unsupported_version, "supported: 0.5 to 0.10");
  d = good;
  d[0x0A] = 9;  // a 0.5 file labelled 0.9: its counts and offsets are read 0x20 later
  try {
    (void)bfres::parse(d);
  } catch (const core::failure&) {  // any clean error will do; no crash, no read past the data
  }
  d = good;
  d[0xBE] = 2;  // two animations counted, one in the dictionary
  expect_error(d, code::bad_count, "dictionary has 1 entries for 2");
  d = good;
  d[0x0C] = 0xFE, d[0x0D] = 0xFF;
  expect_error(d, code::unsupported_version, "byte-order mark");
  expect_error(std::vector<std::uint8_t>(good.begin(), good.begin() + 0x100), code::bad_value, "file size");
  d = good;
  d[0x1C] = 0x40, d[0x1D] = 0, d[0x1E] = 0, d[0x1F] = 0;
  d.resize(0x40);
  try {
    (void)bfres::parse(d);
    ADD_FAILURE() << "a 64-byte header parsed";
  } catch (const core::failure&) {
  }
}

// The real Switch file: BotW's Demo344_1 event pack (Yaz0 -> SARC -> Yaz0 -> FRES 0.5.0.3).
TEST(Switch, BreathOfTheWildEventPackModel) {
  RIGRIP_REQUIRE_SAMPLE(path, "bfres/switch/Demo344_1.sbeventpack");
  const auto raw = test::read_bytes(path);
  diagnostics diags;
  auto outer = unwrap(raw, path);  // Yaz0 around the SARC
  ASSERT_TRUE(outer) << outer.error().to_string();
  auto ar = open_archive(outer.value().data, path, diags);
  ASSERT_TRUE(ar) << ar.error().to_string();
  const auto* e = ar.value().find("Model/Demo344_1.sbfres");
  ASSERT_TRUE(e);
  auto inner = unwrap(e->data, "Demo344_1.sbfres");
  ASSERT_TRUE(inner) << inner.error().to_string();
  const auto& fres = inner.value().data;
  const auto f = bfres::parse(std::vector<std::uint8_t>(fres.begin(), fres.end()));
  EXPECT_EQ(f.version_string(), "0.5.0.3");
  ASSERT_EQ(f.anims.size(), 5u);
  ASSERT_TRUE(f.dicts[2]);
  std::size_t curves = 0;
  for (std::size_t i = 0; i < f.anims.size(); ++i) {
    const auto& a = f.anims[i];
    bool named = false;
    for (const auto& n : f.dicts[2]->nodes) named = named || n.name == a.name;
    EXPECT_TRUE(named) << a.name;
    EXPECT_TRUE(a.euler()) << a.name;
    std::int32_t n = 0;
    for (const auto& b : a.bone_anims) {
      n += b.num_curves;
      for (const auto& c : b.curves) {
        ++curves;
        EXPECT_LE(c.end, float(a.frame_count)) << a.name << "/" << b.name;
        for (float fr = c.start; fr <= c.end; fr += 1) EXPECT_TRUE(std::isfinite(c.eval(fr)));
      }
    }
    EXPECT_EQ(n, a.num_curves) << a.name;
  }
  EXPECT_GT(curves, 200u);
  EXPECT_EQ(bfres::serialise(f), std::vector<std::uint8_t>(fres.begin(), fres.end()));

  // Through the registry: the scene validates, rotations are unit and continuous.
  auto s = read_scene(ar.value(), std::size_t(e - ar.value().entries.data()), read_options{}, diags);
  ASSERT_TRUE(s) << s.error().to_string();
  ASSERT_EQ(s.value().animations.size(), 5u);
  const auto& sk = s.value().skeletons[0];
  for (const auto& an : s.value().animations) {
    const double fps = an.fps.value_or(30.0);
    const int frames = int(std::lround(an.duration * fps));
    std::vector<quat> prev;
    for (int fr = 0; fr <= frames; ++fr) {
      const auto p = scene_ops::sample_pose(sk, an, float(fr / fps));
      for (std::size_t b = 0; b < p.rotation.size(); ++b) {
        const quat& q = p.rotation[b];
        EXPECT_NEAR(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3], 1.0, 1e-4) << an.name;
        if (!prev.empty()) {
          const quat& o = prev[b];
          double dot = 0;
          for (int k = 0; k < 4; ++k) dot += double(q[k]) * o[k];
          dot = std::abs(dot);
          EXPECT_GT(dot, std::cos(0.5 / 2)) << an.name << " bone " << sk.bones[b].name << " frame " << fr;  // < 0.5 rad per frame
        }
      }
      prev = p.rotation;
    }
  }
  // The inner .sbfres through the registry: Yaz0 opened, the FRES rewritten, Yaz0 kept.
  auto rw = rewrite(e->data, "Demo344_1.sbfres", read_options{}, diags);
  ASSERT_TRUE(rw) << rw.error().to_string();
  EXPECT_EQ(rw.value(), e->data);
}

}  // namespace

namespace {

void expect_near(const vec3& a, const vec3& b, float tol = 1e-6f) {
  for (std::size_t i = 0; i < 3; ++i) EXPECT_NEAR(a[i], b[i], tol) << i;
}

TEST(SwitchCamera, AimRotationConvention) {
  // From (0,0,10) at the origin, no twist: glTF's rest camera (looks down -Z, +Y up).
  const quat id = bfres::aim_rotation({0, 0, 10}, {0, 0, 0}, 0);
  EXPECT_NEAR(std::fabs(id[3]), 1.0f, 1e-7);
  // Looking along +X: forward (local -Z) is +X, up stays +Y: -90 degrees about Y.
  const quat px = bfres::aim_rotation({0, 0, 0}, {10, 0, 0}, 0);
  expect_near(core::rotate(px, {0, 0, -1}), {1, 0, 0});
  expect_near(core::rotate(px, {0, 1, 0}), {0, 1, 0});
  // An oblique aim: forward is the unit eye -> target vector, right stays horizontal.
  const quat ob = bfres::aim_rotation({1, 2, 3}, {4, -2, 15}, 0);
  expect_near(core::rotate(ob, {0, 0, -1}), {3.0f / 13, -4.0f / 13, 12.0f / 13});
  EXPECT_NEAR(core::rotate(ob, {1, 0, 0})[1], 0.0f, 1e-6);
  EXPECT_GT(core::rotate(ob, {0, 1, 0})[1], 0.0f);
  // Twist 90 degrees: counter-clockwise as the camera sees it, so its up turns to -X.
  const quat tw = bfres::aim_rotation({0, 0, 10}, {0, 0, 0}, core::pi / 2);
  expect_near(core::rotate(tw, {0, 1, 0}), {-1, 0, 0});
  expect_near(core::rotate(tw, {0, 0, -1}), {0, 0, -1});
  // Straight down: right is world +X.
  const quat dn = bfres::aim_rotation({0, 10, 0}, {0, 0, 0}, 0);
  expect_near(core::rotate(dn, {0, 0, -1}), {0, -1, 0});
  expect_near(core::rotate(dn, {1, 0, 0}), {1, 0, 0});
}

TEST(SwitchCamera, HandBuiltBcamanimBecomesAnAnimatedCamera) {
  const auto d = bcamanim_file(dolly_keys(), 60);
  const auto f = bfres::parse(d);
  ASSERT_EQ(f.external_files.size(), 1u);
  EXPECT_EQ(f.external_files[0].name, "Cam-0.brtcamera");
  EXPECT_EQ(bfres::serialise(f), d);
  const auto raw = bfres::to_json(f);
  EXPECT_EQ(raw["external_files"][0]["camera"]["keys"].size(), 3u);
  EXPECT_EQ(raw["external_files"][0]["camera"]["path"], "Demo/Cam-0");

  diagnostics diags;
  auto r = read_scene(d, "Cam-0.bcamanim", read_options{}, diags);
  ASSERT_TRUE(r) << r.error().to_string();
  const scene& s = r.value();
  ASSERT_EQ(s.cameras.size(), 1u);
  const auto& c = s.cameras[0];
  EXPECT_EQ(c.name, "Cam-0");
  EXPECT_NEAR(c.yfov, 40 * core::pi / 180, 1e-6);
  expect_near(c.translation, {0, 0, 10});
  EXPECT_NEAR(std::fabs(c.rotation[3]), 1.0f, 1e-6);
  ASSERT_EQ(s.camera_animations.size(), 1u);
  const auto& a = s.camera_animations[0];
  EXPECT_NEAR(a.duration, 2.0, 1e-9);
  ASSERT_EQ(a.tracks.size(), 2u);
  // Translation: the keys themselves, linear (halfway through the dolly: z 15).
  const auto& t = a.tracks[0];
  EXPECT_EQ(t.times.size(), 3u);
  EXPECT_NEAR(scene_ops::sample(t, 0.5f)[2], 15.0f, 1e-5);
  // Rotation at every frame: identity until frame 30, then the twist grows linearly to
  // 90 degrees at frame 60 (frame 45: 45 degrees about the view axis).
  const auto& rt = a.tracks[1];
  EXPECT_EQ(rt.times.size(), 61u);
  const auto q45 = scene_ops::sample(rt, 1.5f);
  const quat want = core::axis_angle({0, 0, 1}, core::pi / 4);
  EXPECT_NEAR(std::fabs(core::dot({q45[0], q45[1], q45[2], q45[3]}, want)), 1.0f, 1e-6);
  // The lens: 40 -> 30 -> 20 degrees at the keys.
  ASSERT_EQ(a.lens.size(), 1u);
  ASSERT_EQ(a.lens[0].yfov.size(), 3u);
  EXPECT_NEAR(a.lens[0].yfov[1], 30 * core::pi / 180, 1e-6);

  // glTF: a camera node that moves; validator clean.
  auto enc = gltf::write(s, {}, diags);
  ASSERT_TRUE(enc) << enc.error().to_string();
  const std::string p = test::out_path("bfres/cam_dolly.glb");
  test::write_bytes(p, enc->main);
  std::string report;
  EXPECT_EQ(test::gltf_validator_errors(p, &report), 0) << report;
  EXPECT_NE(report.find("0 errors, 0 warnings"), std::string::npos) << report;
  std::filesystem::create_directories(std::string(RIGRIP_TEST_OUT) + "/bfres");
  test::write_bytes(std::string(RIGRIP_TEST_OUT) + "/bfres/switch_camera.bcamanim", d);
}

TEST(SwitchCamera, DamagedCameraGivesClearErrors) {
  const auto good = bcamanim_file(dolly_keys(), 60);
  const auto f = bfres::parse(good);
  const std::size_t cam = f.external_files[0].data_at;
  auto d = good;
  d[cam + 0x40] = 0xFF, d[cam + 0x41] = 0xFF, d[cam + 0x42] = 0xFF;  // key count 16 M
  diagnostics diags;
  auto r = read_scene(d, "x.bcamanim", read_options{}, diags);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, code::bad_count) << r.error().message;
  auto keys = dolly_keys();
  keys[1].frame = 0;  // not increasing
  r = read_scene(bcamanim_file(keys, 60), "x.bcamanim", read_options{}, diags);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("not increasing"), std::string::npos) << r.error().message;
  keys = dolly_keys();
  keys[2].eye[1] = std::nanf("");
  r = read_scene(bcamanim_file(keys, 60), "x.bcamanim", read_options{}, diags);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("non-finite eye"), std::string::npos) << r.error().message;
  r = read_scene(bcamanim_file(dolly_keys(), 50), "x.bcamanim", read_options{}, diags);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("end frame"), std::string::npos) << r.error().message;
  // The embedded file's size runs past the end of the FRES.
  d = good;
  const std::size_t entry = f.external_files[0].entry_at;
  d[entry + 8] = 0xFF, d[entry + 9] = 0xFF;
  expect_error(d, code::bad_offset, "lies outside the file");
  // The dictionary counts 2 files, the header 1: its third node is string bytes.
  d = good;
  d[f.dicts[11]->at + 4] = 2;
  expect_error(d, code::bad_offset, "outside the file");
  // The header counts 2 embedded files, the dictionary 1.
  d = good;
  d[0xC8] = 2;
  expect_error(d, code::bad_count, "does not have the 2 entries");
}

// The real .bcamanim files of the event pack: three animated cameras, valid glbs.
TEST(SwitchCamera, BreathOfTheWildCameras) {
  RIGRIP_REQUIRE_SAMPLE(path, "bfres/switch/Demo344_1.sbeventpack");
  const auto raw = test::read_bytes(path);
  diagnostics diags;
  auto outer = unwrap(raw, path);
  ASSERT_TRUE(outer) << outer.error().to_string();
  auto ar = open_archive(outer.value().data, path, diags);
  ASSERT_TRUE(ar) << ar.error().to_string();
  int cameras = 0;
  for (std::size_t i = 0; i < ar.value().entries.size(); ++i) {
    const auto& e = ar.value().entries[i];
    if (e.name.find(".bcamanim") == std::string::npos) continue;
    ++cameras;
    const auto f = bfres::parse(std::vector<std::uint8_t>(e.data.begin(), e.data.end()));
    EXPECT_EQ(bfres::serialise(f), std::vector<std::uint8_t>(e.data.begin(), e.data.end())) << e.name;
    auto s = read_scene(ar.value(), i, read_options{}, diags);
    ASSERT_TRUE(s) << s.error().to_string();
    ASSERT_EQ(s.value().cameras.size(), 1u) << e.name;
    ASSERT_EQ(s.value().camera_animations.size(), 1u) << e.name;
    const auto& a = s.value().camera_animations[0];
    EXPECT_GT(a.duration, 6.0) << e.name;  // 210, 380 and 660 frames
    // The camera really moves or turns, and every rotation is unit and continuous.
    const auto& rt = a.tracks[1];
    float turned = 0;
    for (std::size_t k = 1; k < rt.times.size(); ++k) {
      const float* p = &rt.values[(k - 1) * 4];
      const float* q = &rt.values[k * 4];
      const float dot = p[0] * q[0] + p[1] * q[1] + p[2] * q[2] + p[3] * q[3];
      EXPECT_GT(dot, std::cos(0.05f)) << e.name << " frame " << k;  // < 0.1 rad per frame
      turned = std::max(turned, 1 - std::fabs(dot));
    }
    EXPECT_GT(turned, 0.0f) << e.name;
    auto enc = gltf::write(s.value(), {}, diags);
    ASSERT_TRUE(enc) << enc.error().to_string();
    const std::string p = test::out_path("bfres/eventpack_" + s.value().cameras[0].name + ".glb");
    test::write_bytes(p, enc->main);
    std::string report;
    EXPECT_EQ(test::gltf_validator_errors(p, &report), 0) << report;
    EXPECT_NE(report.find("0 errors, 0 warnings"), std::string::npos) << report;
  }
  EXPECT_EQ(cameras, 3);
}

}  // namespace

namespace {

// The same scene animation as a Switch FRES 0.5 (an independent little-endian writer of the
// notes' FSCN 0x68 / FCAM 0x48 / curve 0x30 layouts), or 0.9+ (BfresLibrary's loader: u32 flags
// in place of the FSCN block header, 0x60; FCAM {magic, u16 flags, pad, the same offsets, s32
// frames, u32 baked size, u16 user data, u8 curves, pad}, 0x40).
std::vector<std::uint8_t> switch_scene_file(const std::string& scene_name, const std::vector<bfres_test::t_camera>& cams,
                                            std::uint32_t version = 0x00050003) {
  const bool v09 = ((version >> 16) & 0xFF) >= 9;
  le_buffer w;
  w.switch_header({{0x78, "fscn"}}, {0, 0, 0, 0, 0, 1, 0}, version);  // one scene animation (array)
  w.mark("fscn");
  if (v09)
    w.raw("FSCN"), w.u32(0x5A5A);  // flags (ignored by the reader)
  else
    w.raw("FSCN"), w.u32(0), w.u32(0), w.u32(0);
  w.ptr("s:scene"), w.ptr("s:empty"), w.ptr("fcam");
  for (int i = 0; i < 7; ++i) w.ptr("");
  w.u16(0), w.u16(std::uint16_t(cams.size())), w.u16(0), w.u16(0);
  w.mark("fcam");
  for (std::size_t i = 0; i < cams.size(); ++i) {
    const auto& c = cams[i];
    const std::string C = "c" + std::to_string(i);
    if (v09) {
      w.raw("FCAM"), w.u16(c.flags), w.u16(0);
      w.ptr("s:" + c.name), w.ptr(c.curves.empty() ? "" : C + "curves"), w.ptr(C + "base"), w.ptr(""), w.ptr("");
      w.u32(std::uint32_t(c.frame_count)), w.u32(0), w.u16(0), w.u8(std::uint8_t(c.curves.size()));
      for (int k = 0; k < 5; ++k) w.u8(0);
      continue;
    }
    w.raw("FCAM"), w.u32(0), w.u32(0), w.u32(0);
    w.ptr("s:" + c.name), w.ptr(c.curves.empty() ? "" : C + "curves"), w.ptr(C + "base"), w.ptr(""), w.ptr("");
    w.u16(c.flags), w.u16(0), w.u32(std::uint32_t(c.frame_count));
    w.u8(std::uint8_t(c.curves.size())), w.u8(0), w.u16(0), w.u32(0);
  }
  for (std::size_t i = 0; i < cams.size(); ++i) {
    const auto& c = cams[i];
    const std::string C = "c" + std::to_string(i);
    w.mark(C + "base");
    for (float v : c.base) w.f32(v);
    w.align(8);
    if (!c.curves.empty()) w.mark(C + "curves");
    for (std::size_t k = 0; k < c.curves.size(); ++k) {
      const auto& cv = c.curves[k];
      const int per = ((cv.flags >> 4) & 7) == 0 ? 4 : ((cv.flags >> 4) & 7) == 1 ? 2 : 1;
      w.ptr(C + "f" + std::to_string(k)), w.ptr(C + "k" + std::to_string(k));
      w.u16(cv.flags), w.u16(std::uint16_t(cv.frames.empty() ? cv.keys.size() / std::size_t(per) : cv.frames.size()));
      w.u32(cv.target);
      w.f32(cv.start), w.f32(cv.end), w.f32(cv.scale), w.f32(cv.offset), w.f32(cv.delta), w.u32(0);
    }
    for (std::size_t k = 0; k < c.curves.size(); ++k) {  // f32 frames and keys only
      w.mark(C + "f" + std::to_string(k));
      for (auto v : c.curves[k].frames) w.u32(std::uint32_t(v));
      w.mark(C + "k" + std::to_string(k));
      for (auto v : c.curves[k].keys) w.u32(std::uint32_t(v));
    }
  }
  w.str("s:empty", "");
  w.str("s:file", "scene");
  w.str("s:scene", scene_name);
  for (const auto& c : cams) w.str("s:" + c.name, c.name);
  w.align(8);
  w.finish_switch();
  return w.b;
}

// Three cameras: an aim camera dollying along z from 10 to 20 over 30 frames (a linear f32
// curve on position z), an Euler ZXY camera turned 90 degrees about Y, an orthographic one.
std::vector<bfres_test::t_camera> scene_cameras() {
  using bfres_test::f32_bits;
  bfres_test::t_camera aim;
  aim.name = "Aim";
  aim.frame_count = 30;
  aim.base[2] = 16.0f / 9;
  bfres_test::t_curve z;
  z.flags = 0x10;  // linear, f32 frames and keys
  z.target = 0x18;
  z.end = 30;
  z.delta = 10;
  z.frames = {f32_bits(0), f32_bits(30)};
  z.keys = {f32_bits(10), f32_bits(10), f32_bits(20), f32_bits(0)};
  aim.curves.push_back(z);
  bfres_test::t_camera eul;
  eul.name = "Euler";
  eul.flags = (1u << 8) | (1u << 10);
  eul.frame_count = 30;
  eul.base[3] = 0.5f;
  eul.base[8] = core::pi / 2;
  bfres_test::t_camera ortho;
  ortho.name = "Ortho";
  ortho.flags = 0;
  ortho.frame_count = 10;
  ortho.base[2] = 2;
  ortho.base[3] = 4;
  return {aim, eul, ortho};
}

TEST(SceneCameras, WiiUAndSwitchFilesDecodeToTheSameCameras) {
  const auto wiiu = bfres_test::build_scene_fres("Cut01", scene_cameras());
  const auto sw = switch_scene_file("Cut01", scene_cameras());
  EXPECT_EQ(bfres::serialise(bfres::parse(wiiu)), wiiu);
  EXPECT_EQ(bfres::serialise(bfres::parse(sw)), sw);
  std::filesystem::create_directories(std::string(RIGRIP_TEST_OUT) + "/bfres");
  test::write_bytes(std::string(RIGRIP_TEST_OUT) + "/bfres/wiiu_scene.bfres", wiiu);
  test::write_bytes(std::string(RIGRIP_TEST_OUT) + "/bfres/switch_scene.bfres", sw);
  diagnostics diags;
  auto a = read_scene(wiiu, "cut.bfres", read_options{}, diags);
  ASSERT_TRUE(a) << a.error().to_string();
  auto b = read_scene(sw, "cut.bfres", read_options{}, diags);
  ASSERT_TRUE(b) << b.error().to_string();
  for (const scene* s : {&a.value(), &b.value()}) {
    ASSERT_EQ(s->cameras.size(), 3u);
    ASSERT_EQ(s->camera_animations.size(), 1u);
    const auto& an = s->camera_animations[0];
    EXPECT_EQ(an.name, "Cut01");
    EXPECT_NEAR(an.duration, 1.0, 1e-9);
    // Aim: the dolly is at z 15 halfway, still looking down -Z.
    EXPECT_NEAR(scene_ops::sample(an.tracks[0], 0.5f)[2], 15.0f, 1e-5);
    EXPECT_NEAR(std::fabs(s->cameras[0].rotation[3]), 1.0f, 1e-6);
    EXPECT_NEAR(*s->cameras[0].aspect, 16.0f / 9, 1e-6);
    EXPECT_NEAR(*s->cameras[0].zfar, 1000.0f, 1e-3);
    // Euler ZXY, 90 degrees about Y: looks along -X.
    expect_near(core::rotate(s->cameras[1].rotation, {0, 0, -1}), {-1, 0, 0});
    EXPECT_NEAR(s->cameras[1].yfov, 0.5f, 1e-7);
    // Orthographic: the fov field as the view height.
    EXPECT_EQ(s->cameras[2].type, camera::projection::orthographic);
    EXPECT_NEAR(s->cameras[2].ymag, 2.0f, 1e-7);
    EXPECT_NEAR(s->cameras[2].xmag, 4.0f, 1e-7);
  }
  const auto& x = a.value().camera_animations[0];
  const auto& y = b.value().camera_animations[0];
  ASSERT_EQ(x.tracks.size(), y.tracks.size());
  for (std::size_t t = 0; t < x.tracks.size(); ++t) {
    EXPECT_EQ(x.tracks[t].times, y.tracks[t].times);
    EXPECT_EQ(x.tracks[t].values, y.tracks[t].values);
  }
  auto enc = gltf::write(b.value(), {}, diags);
  ASSERT_TRUE(enc) << enc.error().to_string();
  const std::string p = test::out_path("bfres/scene_cameras.glb");
  test::write_bytes(p, enc->main);
  std::string report;
  EXPECT_EQ(test::gltf_validator_errors(p, &report), 0) << report;
  EXPECT_NE(report.find("0 errors, 0 warnings"), std::string::npos) << report;
}

// 0.9 and 0.10 scene animations (flags in place of the block headers) decode to the same
// cameras and clip as the 0.5 file, and rewrite byte for byte.
TEST(SceneCameras, Version09And010LayoutsDecodeLikeVersion05) {
  diagnostics d0;
  auto ref = read_scene(switch_scene_file("Cut01", scene_cameras()), "cut.bfres", read_options{}, d0);
  ASSERT_TRUE(ref) << ref.error().to_string();
  for (std::uint32_t v : {0x00090000u, 0x000A0000u}) {
    const auto bytes = switch_scene_file("Cut01", scene_cameras(), v);
    EXPECT_EQ(bfres::serialise(bfres::parse(bytes)), bytes) << std::hex << v;
    diagnostics diags;
    auto s = read_scene(bytes, "cut.bfres", read_options{}, diags);
    ASSERT_TRUE(s) << std::hex << v << ": " << s.error().to_string();
    ASSERT_EQ(s->cameras.size(), ref->cameras.size());
    for (std::size_t i = 0; i < s->cameras.size(); ++i) {
      EXPECT_EQ(s->cameras[i].name, ref->cameras[i].name);
      EXPECT_EQ(s->cameras[i].type, ref->cameras[i].type);
      EXPECT_FLOAT_EQ(s->cameras[i].yfov, ref->cameras[i].yfov);
    }
    ASSERT_EQ(s->camera_animations.size(), 1u);
    const auto& a = s->camera_animations[0];
    const auto& b = ref->camera_animations[0];
    EXPECT_DOUBLE_EQ(a.duration, b.duration);
    ASSERT_EQ(a.tracks.size(), b.tracks.size());
    for (std::size_t t = 0; t < a.tracks.size(); ++t) {
      EXPECT_EQ(a.tracks[t].times, b.tracks[t].times);
      EXPECT_EQ(a.tracks[t].values, b.tracks[t].values);
    }
  }
}

TEST(SceneCameras, DamageGivesClearErrors) {
  auto cams = scene_cameras();
  cams[0].curves[0].target = 0x2C;  // past the twist
  expect_error(bfres_test::build_scene_fres("Cut01", cams), code::bad_value, "not a camera value");
  cams = scene_cameras();
  cams[1].frame_count = -1;
  expect_error(switch_scene_file("Cut01", cams), code::bad_value, "frame count -1");
  cams = scene_cameras();
  cams[0].base[5] = std::nanf("");
  expect_error(switch_scene_file("Cut01", cams), code::bad_value, "non-finite camera base value");
  auto d = switch_scene_file("Cut01", scene_cameras());
  d[0xD0 + 0x62] = 0xFF, d[0xD0 + 0x63] = 0xFF;  // 65535 cameras
  expect_error(d, code::bad_count, "cameras: count 65535");
  d = switch_scene_file("Cut01", scene_cameras());
  d[0xC6] = 0xFF, d[0xC7] = 0x0F;  // 4095 scene animations
  expect_error(d, code::bad_count, "scene animations: count 4095");
  // Sampling cost: a huge frame count is refused before sampling.
  cams = scene_cameras();
  cams[0].frame_count = 900000;
  diagnostics diags;
  auto r = read_scene(switch_scene_file("Cut01", cams), "x.bfres", read_options{}, diags);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, code::limit_exceeded) << r.error().message;
}

}  // namespace

namespace {

// The Switch vector's animation written again as a Wii U 4.5 file by the Wii U test writer:
// both decode to the same scene (one curve evaluation, one decode for both platforms).
TEST(Switch, WiiUAndSwitchFilesOfTheSameAnimationDecodeAlike) {
  using namespace bfres_test;
  t_curve c;
  c.flags = 0x10;  // linear, f32 frames and keys
  c.target = 0x10;
  c.end = 20;
  c.delta = 2;
  c.frames = {f32_bits(0), f32_bits(20)};
  c.keys = {f32_bits(1), f32_bits(2), f32_bits(3), f32_bits(0)};
  t_bone_anim hip;
  hip.name = "Hip";
  hip.flags = (1u << 3) | (1u << 4) | (1u << 5);
  hip.base = {1, 1, 1, 0, 0, 0, 0, 0, 5, 0};
  hip.curves = {c};
  t_anim walk;
  walk.name = "Walk";
  walk.flags = 0x1000 | 4;
  walk.frame_count = 20;
  walk.bones = {hip};
  const auto wiiu = build_fres({}, {walk});
  diagnostics diags;
  auto a = read_scene(wiiu, "walk.bfres", read_options{}, diags);
  ASSERT_TRUE(a) << a.error().to_string();
  auto b = read_scene(switch_file(), "walk.bfres", read_options{}, diags);
  ASSERT_TRUE(b) << b.error().to_string();
  const scene& x = a.value();
  const scene& y = b.value();
  ASSERT_EQ(x.skeletons.size(), y.skeletons.size());
  ASSERT_EQ(x.skeletons[0].bones.size(), y.skeletons[0].bones.size());
  ASSERT_EQ(x.animations.size(), 1u);
  ASSERT_EQ(y.animations.size(), 1u);
  EXPECT_EQ(x.animations[0].name, y.animations[0].name);
  EXPECT_EQ(x.animations[0].duration, y.animations[0].duration);
  ASSERT_EQ(x.animations[0].tracks.size(), y.animations[0].tracks.size());
  for (std::size_t t = 0; t < x.animations[0].tracks.size(); ++t) {
    const auto& p = x.animations[0].tracks[t];
    const auto& q = y.animations[0].tracks[t];
    EXPECT_EQ(p.bone, q.bone);
    EXPECT_EQ(p.path, q.path);
    EXPECT_EQ(p.interpolation, q.interpolation);
    EXPECT_EQ(p.times, q.times);
    EXPECT_EQ(p.values, q.values);
  }
}

}  // namespace

namespace {

// examples/bfres holds camera files made by these tests' writers (never game files), so the
// README's main job, the Blender check and the hostile mutation campaign see cameras:
// RIGRIP_REGEN=1 rewrites them; otherwise they must match.
std::vector<std::uint8_t> run_packed_switch_v10();  // below, with the writer's tests

TEST(SwitchCamera, ExamplesMatchTheBuilders) {
  const std::string examples = std::string(RIGRIP_SOURCE_DIR) + "/examples/bfres/";
  const std::vector<std::pair<std::string, std::vector<std::uint8_t>>> files{
      {examples + "camera_dolly.bcamanim", bcamanim_file(dolly_keys(), 60)},
      {examples + "scene_cameras_wiiu.bfres", bfres_test::build_scene_fres("Cut01", scene_cameras())},
      {examples + "scene_cameras_switch.bfres", switch_scene_file("Cut01", scene_cameras())},
      {examples + "switch_v10_packed.bfres", run_packed_switch_v10()}};
  const char* regen = std::getenv("RIGRIP_REGEN");
  for (const auto& [path, bytes] : files) {
    if (regen && std::string(regen) == "1") test::write_bytes(path, bytes);
    EXPECT_EQ(test::read_bytes(path), bytes) << path;
  }
}

}  // namespace

// ---- Writing Switch files (src/formats/bfres/fres_switch_write.cpp) and 0.9/0.10 layouts.
namespace {

// Every pointer slot the reader follows (non-null): header name / skeletal-animation array and
// dictionary / string table, embedded-file offsets, dictionary entry names (not the root's: the
// game's files do not relocate it), FSKA, bone-animation and curve offsets.
std::set<std::uint32_t> followed_slots(const bfres::file& f) {
  std::set<std::uint32_t> s;
  const auto& h = *f.sw;
  auto add = [&](std::uint32_t at) {
    std::uint64_t v = 0;
    std::memcpy(&v, f.image.data() + at, 8);
    if (v) s.insert(at);
  };
  for (std::uint32_t at : {0x20u, 0x38u, 0x40u, 0x98u, 0xA0u, 0xB0u}) add(h.field(at));
  for (const auto& e : f.external_files) add(e.entry_at);
  for (const auto& d : {f.dicts[2], f.dicts[11]})
    if (d) for (std::size_t i = 1; i < d->nodes.size(); ++i) add(d->nodes[i].at + 8);
  for (const auto& a : f.anims) {
    const std::uint32_t p = a.at + (h.v09() ? 8 : 0x10);
    for (std::uint32_t k = 0; k < 7; ++k)
      if (k != 2) add(p + 8 * k);  // the bind skeleton (0 in every file) is not relocated by the game
    for (const auto& b : a.bone_anims) {
      for (std::uint32_t k = 0; k < 3; ++k) add(b.at + 8 * k);
      for (const auto& c : b.curves) add(c.at), add(c.at + 8);
    }
  }
  return s;
}

std::set<std::uint32_t> covered_slots(const bfres::file& f) {
  std::set<std::uint32_t> s;
  for (const auto& sec : bfres::relocated_slots(*f.sw)) s.insert(sec.begin(), sec.end());
  return s;
}

// Every followed pointer is relocated (the checker walks the table independently of the writer's
// bookkeeping: relocated_slots expands the stored entries).
void expect_relocation_covers(const bfres::file& f, const std::string& what) {
  const auto cov = covered_slots(f);
  std::size_t missing = 0;
  for (auto s : followed_slots(f))
    if (!cov.count(s)) {
      if (++missing < 5) ADD_FAILURE() << what << ": pointer at " << s << " is not in the relocation table";
    }
  EXPECT_EQ(missing, 0u) << what;
}

result<bytes> pack_into(const scene& s, const std::vector<std::uint8_t>& tpl) {
  diagnostics d;
  pack_context ctx;
  ctx.template_file = tpl;
  ctx.diags = &d;
  try {
    return bfres::pack_file(s, ctx);
  } catch (const core::failure& e) {
    return e.error();
  }
}

// The same motion: every animation of `a` exists in `b`, and at every frame each bone of b's
// skeleton that a's skeleton has is within the tolerance (local S, R, T).
void expect_same_motion(const scene& a, const scene& b, float units, float degrees, const std::string& what) {
  for (const auto& an : a.animations) {
    const animation* bn = nullptr;
    for (const auto& x : b.animations) if (x.name == an.name) bn = &x;
    ASSERT_TRUE(bn) << what << ": no animation " << an.name;
    EXPECT_NEAR(an.duration, bn->duration, 1e-6) << what << " " << an.name;
    const auto& ska = a.skeletons[std::size_t(an.skeleton)];
    const auto& skb = b.skeletons[std::size_t(bn->skeleton)];
    const int frames = int(std::lround(an.duration * 30));
    float worst_t = 0, worst_r = 0;
    for (int fr = 0; fr <= frames; ++fr) {
      const auto pa = scene_ops::sample_pose(ska, an, float(fr / 30.0));
      const auto pb = scene_ops::sample_pose(skb, *bn, float(fr / 30.0));
      for (std::size_t j = 0; j < skb.bones.size(); ++j) {
        const int i = ska.find(skb.bones[j].name);
        if (i < 0) continue;
        for (int k = 0; k < 3; ++k) {
          worst_t = std::max(worst_t, std::fabs(pa.translation[std::size_t(i)][k] - pb.translation[j][k]));
          worst_t = std::max(worst_t, std::fabs(pa.scale[std::size_t(i)][k] - pb.scale[j][k]));
        }
        // The angle between the rotations from the chord |qa - qb| (acos of a float dot near 1
        // would only resolve 0.056 degrees).
        const auto& qa = pa.rotation[std::size_t(i)];
        const auto& qb = pb.rotation[j];
        const double sign = core::dot(qa, qb) < 0 ? -1 : 1;
        double chord = 0;
        for (int k = 0; k < 4; ++k) chord += (double(qa[k]) - sign * qb[k]) * (double(qa[k]) - sign * qb[k]);
        worst_r = std::max(worst_r, float(4 * std::asin(std::min(1.0, std::sqrt(chord) / 2)) * 180 / core::pi));
      }
    }
    if (units > 0)
      std::cout << "[ measure ] " << what << " " << an.name << ": worst " << worst_t << " units, " << worst_r
                << " degrees over " << frames + 1 << " frames\n";
    EXPECT_LE(worst_t, units) << what << " " << an.name;
    EXPECT_LE(worst_r, degrees) << what << " " << an.name;
  }
}

TEST(Switch, Version09And010FilesParseDecodeAndRewrite) {
  diagnostics diags;
  auto base = read_scene(switch_file(), "walk.bfres", read_options{}, diags);
  ASSERT_TRUE(base) << base.error().to_string();
  for (std::uint32_t v : {0x00090000u, 0x000A0000u}) {
    const auto d = switch_file(v);
    const auto f = bfres::parse(d);
    ASSERT_TRUE(f.sw);
    EXPECT_TRUE(f.sw->v09());
    EXPECT_EQ(f.sw->header_size, 0xF0u);
    EXPECT_EQ(f.sw->fska_size, 0x50u);
    EXPECT_EQ(f.sw->bone_anim_size, 0x38u);
    EXPECT_EQ(f.sw->reserved[0], 0xA5);
    EXPECT_EQ(f.sw->extra_counts[0], 7);
    EXPECT_EQ(f.sw->extra_counts[1], 9);
    EXPECT_EQ(f.sw->counts[1], 1);
    ASSERT_EQ(f.anims.size(), 1u);
    EXPECT_EQ(f.anims[0].flags, 0x1004u);
    EXPECT_EQ(f.anims[0].frame_count, 20);
    ASSERT_EQ(f.anims[0].bone_anims.size(), 1u);
    EXPECT_EQ(f.anims[0].bone_anims[0].name, "Hip");
    EXPECT_EQ(f.anims[0].bone_anims[0].flags & 0xFFFF, (1u << 3) | (1u << 4) | (1u << 5) | (1u << 13));
    EXPECT_EQ(bfres::serialise(f), d) << std::hex << v;
    const auto j = bfres::to_json(f);
    EXPECT_EQ(j["platform"], "switch");
    EXPECT_EQ(j["version"], v == 0x00090000u ? "0.9.0.0" : "0.10.0.0");
    EXPECT_EQ(j["animations"][0]["bone_animations"][0]["name"], "Hip");
    // Fuzz seeds (scripts/fuzz.sh takes the test output's files).
    std::filesystem::create_directories(std::string(RIGRIP_TEST_OUT) + "/bfres");
    test::write_bytes(std::string(RIGRIP_TEST_OUT) + "/bfres/switch_v" + std::to_string(v >> 16) + ".bfres", d);
    auto s = read_scene(d, "walk.bfres", read_options{}, diags);
    ASSERT_TRUE(s) << s.error().to_string();
    expect_same_motion(base.value(), s.value(), 0, 0, "0.9+ vs 0.5");
    // Fields written back where the version puts them.
    auto g = f;
    g.anims[0].flags = 0x1200;
    g.anims[0].bone_anims[0].base[8] = 6;
    const auto h = bfres::parse(bfres::serialise(g));
    EXPECT_EQ(h.anims[0].flags, 0x1200u);
    EXPECT_FLOAT_EQ(h.anims[0].bone_anims[0].base[8], 6);
  }
}

TEST(Switch, PatriciaBuilderReproducesTheGamesDictionaries) {
  // The hand-built single entry and the event pack's 5-entry dictionary, node for node.
  const auto one = bfres::build_patricia_switch({"Walk"});
  ASSERT_EQ(one.size(), 2u);
  EXPECT_EQ(one[0].ref_bit, 0xFFFFFFFFu);
  EXPECT_EQ(one[0].left, 1);
  EXPECT_EQ(one[1].ref_bit, 0u);  // 'k' and the empty key differ at bit 0 of the last character
  EXPECT_EQ(one[1].left, 0);
  EXPECT_EQ(one[1].right, 1);
  RIGRIP_REQUIRE_SAMPLE(path, "bfres/switch/Demo344_1.sbeventpack");
  diagnostics diags;
  auto outer = unwrap(test::read_bytes(path), path);
  ASSERT_TRUE(outer);
  auto ar = open_archive(outer.value().data, path, diags);
  ASSERT_TRUE(ar);
  for (const auto& e : ar.value().entries) {
    auto inner = unwrap(e.data, e.name);
    if (!inner || inner.value().data.size() < 8 || std::memcmp(inner.value().data.data(), "FRES    ", 8) != 0) continue;
    const auto f = bfres::parse(std::vector<std::uint8_t>(inner.value().data.begin(), inner.value().data.end()));
    for (const auto& d : {f.dicts[2], f.dicts[11]}) {
      if (!d) continue;
      std::vector<std::string> names;
      for (std::size_t i = 1; i < d->nodes.size(); ++i) names.push_back(d->nodes[i].name);
      const auto built = bfres::build_patricia_switch(names);
      ASSERT_EQ(built.size(), d->nodes.size()) << e.name;
      for (std::size_t i = 0; i < built.size(); ++i) {
        EXPECT_EQ(built[i].ref_bit, d->nodes[i].ref_bit) << e.name << " node " << i;
        EXPECT_EQ(built[i].left, d->nodes[i].left) << e.name << " node " << i;
        EXPECT_EQ(built[i].right, d->nodes[i].right) << e.name << " node " << i;
      }
    }
    // The game's own relocation table covers every pointer the reader follows.
    expect_relocation_covers(f, e.name);
  }
}

// "Run" (30 frames, Euler, loop) on Hip (translate x and rotate z linear) and Leg (base values
// only), written by the Wii U test writer.
std::vector<std::uint8_t> run_anim_wiiu() {
  using namespace bfres_test;
  t_curve c;
  c.flags = 0x10;  // linear, f32
  c.target = 0x10;
  c.end = 30;
  c.delta = 4;
  c.frames = {f32_bits(0), f32_bits(30)};
  c.keys = {f32_bits(1), f32_bits(4), f32_bits(5), f32_bits(0)};
  t_curve r = c;
  r.target = 0x28;  // rotate z: a quarter turn
  r.keys = {f32_bits(0), f32_bits(1.5708f), f32_bits(1.5708f), f32_bits(0)};
  t_bone_anim hip;
  hip.name = "Hip";
  hip.flags = (1u << 3) | (1u << 4) | (1u << 5);
  hip.base = {1, 1, 1, 0, 0, 0, 0, 0, 5, 0};
  hip.curves = {c, r};
  t_bone_anim leg = hip;
  leg.name = "Leg";
  leg.curves = {};
  t_anim run;
  run.name = "Run";
  run.flags = 0x1000 | 4;
  run.frame_count = 30;
  run.bones = {hip, leg};
  return build_fres({}, {run});
}

// The Wii U "Run" packed into the Switch test writer's 0.10 file (an example file: a 0.10 file
// with a relocation table for the hostile campaign and the fuzz seeds).
std::vector<std::uint8_t> run_packed_switch_v10() {
  diagnostics diags;
  auto a = read_scene(run_anim_wiiu(), "run.bfres", read_options{}, diags);
  if (!a) return {};
  auto p = pack_into(a.value(), switch_file(0x000A0000));
  return p ? p.value() : std::vector<std::uint8_t>{};
}

// A Wii U animation (the Wii U test writer) packed into Switch templates made by the Switch test
// writer (0.5 and 0.10): both files decode to the same motion.
TEST(Switch, WiiUAnimationPackedIntoSwitchTemplatesDecodesAlike) {
  const auto wiiu = run_anim_wiiu();
  diagnostics diags;
  auto a = read_scene(wiiu, "run.bfres", read_options{}, diags);
  ASSERT_TRUE(a) << a.error().to_string();
  for (std::uint32_t v : {0x00050003u, 0x000A0000u}) {
    const auto tpl = switch_file(v);
    auto packed = pack_into(a.value(), tpl);
    ASSERT_TRUE(packed) << packed.error().to_string();
    const auto f = bfres::parse(packed.value());
    EXPECT_EQ(f.version, v);
    ASSERT_EQ(f.anims.size(), 2u);  // the template's Walk kept, Run added
    EXPECT_EQ(f.anims[0].name, "Walk");
    EXPECT_EQ(f.anims[1].name, "Run");
    EXPECT_EQ(bfres::serialise(f), packed.value());
    expect_relocation_covers(f, "packed " + std::to_string(v));
    // Every relocated slot holds a pointer (none of the writer's own entries is null).
    for (auto s : covered_slots(f)) {
      std::uint64_t x = 0;
      std::memcpy(&x, f.image.data() + s, 8);
      EXPECT_NE(x, 0u) << s;
    }
    auto b = read_scene(packed.value(), "run.bfres", read_options{}, diags);
    ASSERT_TRUE(b) << b.error().to_string();
    expect_same_motion(a.value(), b.value(), 0.011f, 0.03f, "Wii U -> Switch");
    // The template's own animation is untouched.
    auto t = read_scene(tpl, "walk.bfres", read_options{}, diags);
    ASSERT_TRUE(t);
    expect_same_motion(t.value(), b.value(), 0, 0, "kept Walk");
    std::filesystem::create_directories(std::string(RIGRIP_TEST_OUT) + "/bfres");
    test::write_bytes(std::string(RIGRIP_TEST_OUT) + "/bfres/switch_packed_" + std::to_string(v >> 16) + ".bfres",
                      packed.value());
  }
}

// The real Bass animations (Wii U) into a Switch template: the same motion, all 7 clips.
TEST(Switch, RealWiiUBassPackedIntoASwitchTemplate) {
  RIGRIP_REQUIRE_SAMPLE(path, "bfres/Animal_Bass_Animation.bfres");
  diagnostics diags;
  auto a = read_scene(path, read_options{}, diags);
  ASSERT_TRUE(a) << a.error().to_string();
  auto packed = pack_into(a.value(), switch_file());
  ASSERT_TRUE(packed) << packed.error().to_string();
  const auto f = bfres::parse(packed.value());
  EXPECT_EQ(f.anims.size(), 1 + a.value().animations.size());
  expect_relocation_covers(f, "Bass in Switch");
  auto b = read_scene(packed.value(), "bass.bfres", read_options{}, diags);
  ASSERT_TRUE(b) << b.error().to_string();
  expect_same_motion(a.value(), b.value(), 0.011f, 0.03f, "Bass Wii U -> Switch");
}

std::vector<std::uint8_t> demo_model(const std::string& path, std::vector<std::uint8_t>* entry = nullptr) {
  diagnostics diags;
  auto outer = unwrap(test::read_bytes(path), path);
  auto ar = open_archive(outer.value().data, path, diags);
  const auto* e = ar.value().find("Model/Demo344_1.sbfres");
  if (entry) entry->assign(e->data.begin(), e->data.end());
  auto inner = unwrap(e->data, "Demo344_1.sbfres");
  return {inner.value().data.begin(), inner.value().data.end()};
}

// The real file's own animations written back through the writer: same tracks within the curve
// fit's tolerance, every old and new pointer relocated.
TEST(Switch, RealEventPackAnimationsPackedBackIntoTheirOwnFile) {
  RIGRIP_REQUIRE_SAMPLE(path, "bfres/switch/Demo344_1.sbeventpack");
  const auto fres = demo_model(path);
  diagnostics diags;
  auto a = read_scene(fres, "Demo344_1.sbfres", read_options{}, diags);
  ASSERT_TRUE(a) << a.error().to_string();
  auto packed = pack_into(a.value(), fres);
  ASSERT_TRUE(packed) << packed.error().to_string();
  const auto orig = bfres::parse(fres);
  const auto f = bfres::parse(packed.value());
  ASSERT_EQ(f.anims.size(), 5u);
  for (std::size_t i = 0; i < 5; ++i) EXPECT_EQ(f.anims[i].name, orig.anims[i].name);
  // The dictionary comes out node for node as the game's.
  for (std::size_t i = 0; i < orig.dicts[2]->nodes.size(); ++i) {
    EXPECT_EQ(f.dicts[2]->nodes[i].ref_bit, orig.dicts[2]->nodes[i].ref_bit);
    EXPECT_EQ(f.dicts[2]->nodes[i].left, orig.dicts[2]->nodes[i].left);
    EXPECT_EQ(f.dicts[2]->nodes[i].right, orig.dicts[2]->nodes[i].right);
  }
  expect_relocation_covers(f, "packed Demo344_1");
  // Every pointer the game's table relocated is still relocated (nothing before the strings moved).
  const auto old_cov = covered_slots(orig), new_cov = covered_slots(f);
  for (auto s : old_cov) EXPECT_TRUE(new_cov.count(s)) << s;
  EXPECT_EQ(bfres::serialise(f), packed.value());
  auto b = read_scene(packed.value(), "Demo344_1.sbfres", read_options{}, diags);
  ASSERT_TRUE(b) << b.error().to_string();
  expect_same_motion(a.value(), b.value(), 0.011f, 0.03f, "Demo344_1 repacked");
  std::cout << "[ measure ] Demo344_1: original " << fres.size() << " bytes, repacked " << packed.value().size()
            << " bytes; relocated pointers " << old_cov.size() << " -> " << new_cov.size() << "\n";
  // Through the registry with the Yaz0 template: a compressed output that reads back.
  std::vector<std::uint8_t> entry;
  (void)demo_model(path, &entry);
  const auto* fmt = find_format("bfres");
  ASSERT_TRUE(fmt);
  pack_context ctx;
  ctx.template_file = entry;
  ctx.diags = &diags;
  auto y = pack(a.value(), *fmt, ctx);
  ASSERT_TRUE(y) << y.error().to_string();
  EXPECT_EQ(std::string(y.value().begin(), y.value().begin() + 4), "Yaz0");
  auto c = read_scene(y.value(), "Demo344_1.sbfres", read_options{}, diags);
  ASSERT_TRUE(c) << c.error().to_string();
}

// Hostile Switch input: clean errors with byte offsets.
TEST(Switch, HostileRelocationDictionaryCountsAndOffsets) {
  const auto good_tpl = switch_file();
  diagnostics diags;
  auto s = read_scene(good_tpl, "walk.bfres", read_options{}, diags);
  ASSERT_TRUE(s);
  s.value().animations[0].name = "Jog";  // a new name: the packed file has a relocation table
  auto packed = pack_into(s.value(), good_tpl);
  ASSERT_TRUE(packed) << packed.error().to_string();
  const auto good = packed.value();
  const auto f = bfres::parse(good);
  ASSERT_FALSE(f.sw->rlt_entries.empty());
  const std::uint32_t rlt = f.sw->relocation_at;
  const std::uint32_t first_entry = rlt + 16 + 24 * std::uint32_t(f.sw->rlt_sections.size());
  auto put32 = [](std::vector<std::uint8_t>& d, std::size_t at, std::uint32_t v) { std::memcpy(d.data() + at, &v, 4); };
  auto put64 = [](std::vector<std::uint8_t>& d, std::size_t at, std::uint64_t v) { std::memcpy(d.data() + at, &v, 8); };
  auto error_of = [](std::vector<std::uint8_t> d) -> error {
    try {
      (void)bfres::parse(std::move(d));
    } catch (const core::failure& e) {
      return e.error();
    }
    return error{code::internal, "no error", "", no_offset, {}};
  };
  // A relocation entry reaching outside the file.
  auto d = good;
  put32(d, first_entry, 0xFFFFFF00u);
  auto e = error_of(d);
  EXPECT_EQ(e.code, code::bad_offset) << e.message;
  EXPECT_NE(e.message.find("reaches outside the file"), std::string::npos) << e.message;
  EXPECT_EQ(e.offset, first_entry);
  // A relocated pointer holding an offset outside the file.
  d = good;
  const std::uint32_t slot = f.sw->rlt_entries[0].position;
  put64(d, slot, 0x7FFFFFFFull);
  e = error_of(d);
  EXPECT_EQ(e.code, code::bad_offset) << e.message;
  EXPECT_EQ(e.offset, slot) << e.message;
  // A huge struct count in an entry.
  d = good;
  d[first_entry + 4] = 0xFF, d[first_entry + 5] = 0xFF;
  e = error_of(d);
  EXPECT_EQ(e.code, code::bad_offset) << e.message;
  // The relocation table offset inside the header.
  d = good;
  put32(d, 0x18, 0x10);
  e = error_of(d);
  EXPECT_EQ(e.code, code::bad_offset) << e.message;
  EXPECT_EQ(e.offset, 0x18u);
  // Section count beyond the data.
  d = good;
  put32(d, rlt + 8, 1000);
  e = error_of(d);
  EXPECT_EQ(e.code, code::bad_count) << e.message;
  // Dictionary links that loop back to the root / to themselves: the search ends, the entry is
  // not found by its name.
  const auto& dict = *f.dicts[2];
  d = good;
  d[dict.nodes[0].at + 4] = 0, d[dict.nodes[0].at + 5] = 0;  // root -> root
  e = error_of(d);
  EXPECT_EQ(e.code, code::bad_value) << e.message;
  EXPECT_NE(e.message.find("not found by its name"), std::string::npos) << e.message;
  d = good;
  for (std::size_t i = 1; i < dict.nodes.size(); ++i) {  // every node -> node 1 both ways
    d[dict.nodes[i].at + 4] = 1, d[dict.nodes[i].at + 5] = 0;
    d[dict.nodes[i].at + 6] = 1, d[dict.nodes[i].at + 7] = 0;
  }
  e = error_of(d);
  EXPECT_EQ(e.code, code::bad_value) << e.message;
  // Counts that do not fit: 65535 skeletal animations, 255 curves on one bone.
  d = good;
  d[0xBE] = 0xFF, d[0xBF] = 0xFF;
  e = error_of(d);
  EXPECT_TRUE(e.code == code::bad_count || e.code == code::bad_offset) << e.message;
  d = good;
  d[f.anims[0].bone_anims[0].at + 0x1E] = 0xFF;
  e = error_of(d);
  EXPECT_NE(e.code, code::internal) << e.message;
  // A name offset outside the file / a name whose length runs past the end.
  d = good;
  put64(d, f.anims[0].at + 0x10, good.size() + 8);
  e = error_of(d);
  EXPECT_EQ(e.code, code::bad_offset) << e.message;
  EXPECT_EQ(e.offset, f.anims[0].at + 0x10) << e.message;
  d = good;
  put64(d, f.anims[0].at + 0x10, good.size() - 2);
  d[good.size() - 2] = 0xFF, d[good.size() - 1] = 0xFF;
  e = error_of(d);
  EXPECT_NE(e.code, code::internal) << e.message;
  // Offsets that overlap the header.
  d = good;
  put64(d, 0x38, 0x40);
  e = error_of(d);
  EXPECT_EQ(e.code, code::bad_offset) << e.message;
  EXPECT_NE(e.message.find("points into the header"), std::string::npos) << e.message;
  EXPECT_EQ(e.offset, 0x38u);
  d = good;
  put32(d, 0x16, 0x40);
  e = error_of(d);
  EXPECT_EQ(e.code, code::bad_offset) << e.message;
  // Truncations and byte flips of the packed file never crash.
  for (std::size_t n = 0; n < good.size(); n += 7) (void)error_of(std::vector<std::uint8_t>(good.begin(), good.begin() + n));
  for (std::size_t i = 0; i < good.size(); ++i) {
    d = good;
    d[i] ^= 0xFF;
    (void)error_of(d);
  }
}

// A Switch template that cannot be preserved is refused with the reason.
TEST(Switch, PackRefusesATemplateWithDataAfterItsRelocationTable) {
  diagnostics diags;
  auto s = read_scene(switch_file(), "walk.bfres", read_options{}, diags);
  ASSERT_TRUE(s);
  s.value().animations[0].name = "Jog";
  auto packed = pack_into(s.value(), switch_file());
  ASSERT_TRUE(packed);
  auto d = packed.value();
  d.resize(d.size() + 16, 0);
  const auto size = std::uint32_t(d.size());
  std::memcpy(d.data() + 0x1C, &size, 4);
  auto r = pack_into(s.value(), d);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, code::write_unsupported) << r.error().message;
  EXPECT_NE(r.error().message.find("relocation table is not the last block"), std::string::npos) << r.error().message;
}

}  // namespace

namespace {

// A real .bcamanim as the template: its embedded .brtcamera follows the strings, so it moves
// (by a multiple of 4 KB) and its relocated offset with it; the camera still decodes the same.
TEST(Switch, PackIntoARealBcamanimMovesItsEmbeddedFile) {
  RIGRIP_REQUIRE_SAMPLE(path, "bfres/switch/Demo344_1.sbeventpack");
  diagnostics diags;
  auto outer = unwrap(test::read_bytes(path), path);
  ASSERT_TRUE(outer);
  auto ar = open_archive(outer.value().data, path, diags);
  ASSERT_TRUE(ar);
  const auto* e = ar.value().find("Camera/Demo344_1/C51-0.bcamanim");
  ASSERT_TRUE(e);
  const std::vector<std::uint8_t> tpl(e->data.begin(), e->data.end());
  auto walk = read_scene(switch_file(), "walk.bfres", read_options{}, diags);
  ASSERT_TRUE(walk);
  auto packed = pack_into(walk.value(), tpl);
  ASSERT_TRUE(packed) << packed.error().to_string();
  const auto before = bfres::parse(tpl);
  const auto f = bfres::parse(packed.value());
  ASSERT_EQ(f.external_files.size(), 1u);
  EXPECT_EQ(f.external_files[0].data_at % 0x1000, before.external_files[0].data_at % 0x1000);
  EXPECT_GT(f.external_files[0].data_at, before.external_files[0].data_at);
  EXPECT_TRUE(std::equal(tpl.begin() + long(before.external_files[0].data_at),
                         tpl.begin() + long(before.external_files[0].data_at + before.external_files[0].size),
                         f.image.begin() + long(f.external_files[0].data_at)));
  // The embedded file's pointer stays in its own section (5), the section moved with it.
  const auto secs = bfres::relocated_slots(*f.sw);
  ASSERT_EQ(secs.size(), 5u);
  EXPECT_EQ(std::count(secs[4].begin(), secs[4].end(), f.external_files[0].entry_at), 1);
  EXPECT_EQ(f.sw->rlt_sections[4].position, f.external_files[0].data_at);
  expect_relocation_covers(f, "bcamanim + Walk");
  EXPECT_EQ(bfres::serialise(f), packed.value());
  std::cout << "[ measure ] C51-0.bcamanim: embedded file 0x" << std::hex << before.external_files[0].data_at
            << " -> 0x" << f.external_files[0].data_at << std::dec << ", " << tpl.size() << " -> "
            << packed.value().size() << " bytes\n";
  auto a = read_scene(tpl, "C51-0.bcamanim", read_options{}, diags);
  auto b = read_scene(packed.value(), "C51-0.bcamanim", read_options{}, diags);
  ASSERT_TRUE(a && b);
  ASSERT_EQ(b.value().camera_animations.size(), 1u);
  EXPECT_EQ(a.value().camera_animations[0].tracks[0].values, b.value().camera_animations[0].tracks[0].values);
  EXPECT_EQ(a.value().camera_animations[0].tracks[1].values, b.value().camera_animations[0].tracks[1].values);
  ASSERT_EQ(b.value().animations.size(), 1u);
  expect_same_motion(walk.value(), b.value(), 0.011f, 0.03f, "Walk in a bcamanim");
}

}  // namespace

namespace {

// The writer on damaged templates: every single-byte flip of a packed file (which has a
// relocation table) used as the template gives a clean error or a file that parses again.
TEST(Switch, PackOnDamagedTemplatesFailsCleanlyOrWritesAReadableFile) {
  diagnostics diags;
  auto s = read_scene(switch_file(), "walk.bfres", read_options{}, diags);
  ASSERT_TRUE(s);
  s.value().animations[0].name = "Jog";
  auto packed = pack_into(s.value(), switch_file());
  ASSERT_TRUE(packed);
  const auto good = packed.value();
  s.value().animations[0].name = "Run";
  std::size_t written = 0, refused = 0;
  for (std::size_t i = 0; i < good.size(); ++i) {
    auto d = good;
    d[i] ^= 0xFF;
    auto r = pack_into(s.value(), d);
    if (!r) {
      EXPECT_NE(r.error().code, code::internal) << i << ": " << r.error().message;
      EXPECT_FALSE(r.error().message.empty()) << i;
      ++refused;
      continue;
    }
    ++written;
    try {
      (void)bfres::parse(r.value());
    } catch (const core::failure& e) {
      ADD_FAILURE() << "byte " << i << ": the packed file does not parse: " << e.error().message;
    }
  }
  std::cout << "[ measure ] damaged templates: " << written << " packed and re-read, " << refused << " refused\n";
  // The same over the real C51-0.bcamanim (an embedded file after the strings, 5 sections).
  RIGRIP_REQUIRE_SAMPLE(path, "bfres/switch/Demo344_1.sbeventpack");
  auto outer = unwrap(test::read_bytes(path), path);
  ASSERT_TRUE(outer);
  auto ar = open_archive(outer.value().data, path, diags);
  ASSERT_TRUE(ar);
  const auto* e = ar.value().find("Camera/Demo344_1/C51-0.bcamanim");
  ASSERT_TRUE(e);
  const std::vector<std::uint8_t> cam(e->data.begin(), e->data.end());
  written = refused = 0;
  for (std::size_t i = 0; i < cam.size(); ++i) {
    auto d = cam;
    d[i] ^= 0xFF;
    auto r = pack_into(s.value(), d);
    if (!r) {
      EXPECT_NE(r.error().code, code::internal) << i << ": " << r.error().message;
      ++refused;
      continue;
    }
    ++written;
    try {
      (void)bfres::parse(r.value());
    } catch (const core::failure& x) {
      ADD_FAILURE() << "bcamanim byte " << i << ": the packed file does not parse: " << x.error().message;
    }
  }
  std::cout << "[ measure ] damaged C51-0.bcamanim templates: " << written << " packed and re-read, " << refused
            << " refused\n";
}

}  // namespace
