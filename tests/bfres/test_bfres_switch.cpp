// Switch FRES (src/formats/bfres/fres_switch.cpp): a hand-built little-endian file laid
// out from the notes (../shared/specs/bfres.md §7) by an independent writer below, its
// damage cases, and the real Breath of the Wild event pack (read in place when present).
#include <bit>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <map>

#include <gtest/gtest.h>

#include "core/failure.hpp"
#include "formats/bfres/fres.hpp"
#include "rigrip/registry.hpp"
#include "scene/pose.hpp"
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
  void finish() {
    for (auto& [at, l] : fixups) {
      std::uint64_t v = labels.at(l);
      for (int i = 0; i < 8; ++i) b[at + i] = std::uint8_t(v >> (8 * i));
    }
  }
};

// One FSKA "Walk" (Euler, 20 frames) with one bone animation "Hip": base S(1) R(0) T(0,5,0)
// and one linear curve on translate x: keys (1, +2) at frame 0 and (3, 0) at frame 20.
std::vector<std::uint8_t> switch_file() {
  le_buffer w;
  w.raw("FRES    ");
  w.u32(0x00050003);
  w.u8(0xFF), w.u8(0xFE), w.u8(3), w.u8(0);
  w.u32(0);  // file name (characters), patched below
  w.u16(0), w.u16(0xD0);
  w.u32(0);  // relocation table: none in this vector
  w.u32(0);  // file size, patched below
  w.ptr("s:file");                             // 0x20 name
  w.ptr(""), w.ptr("");                        // models
  w.ptr("fska"), w.ptr("dict");                // 0x38, 0x40 skeletal animations
  for (int i = 0; i < 13; ++i) w.ptr("");      // 0x48 .. 0xA8
  w.ptr("s:empty");                            // 0xB0 string table
  w.u32(0);                                    // string table size
  w.u16(0), w.u16(1);                          // models, skeletal animations
  for (int i = 0; i < 5; ++i) w.u16(0);
  w.pad_to(0xD0);
  w.mark("fska");
  w.raw("FSKA"), w.u32(0x60), w.u32(0x60), w.u32(0);
  w.ptr("s:Walk"), w.ptr("s:Walk"), w.ptr(""), w.ptr("bind"), w.ptr("ba"), w.ptr(""), w.ptr("");
  w.u32(0x1000 | 4);  // Euler, loop
  w.u32(20), w.u32(1), w.u32(0), w.u16(1), w.u16(0), w.u32(0);
  w.mark("ba");
  w.ptr("s:Hip"), w.ptr("curves"), w.ptr("base");
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
  w.finish();
  const auto name_chars = std::uint32_t(w.labels["s:file"] + 2), size = std::uint32_t(w.b.size());
  std::memcpy(w.b.data() + 0x10, &name_chars, 4);
  std::memcpy(w.b.data() + 0x1C, &size, 4);
  return w.b;
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
  d[0x0A] = 9;  // version 0.9.0.3
  expect_error(d, code::unsupported_version, "0.9+ layout is not implemented");
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
