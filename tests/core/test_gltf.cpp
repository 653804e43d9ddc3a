// glTF writer and reader: validator-clean output, and scene JSON -> glb -> scene
// equal within float tolerance.
#include <cmath>
#include <fstream>

#include <gtest/gtest.h>

#include "core/math.hpp"
#include "scene/pose.hpp"
#include "rigrip/gltf.hpp"
#include "rigrip/registry.hpp"
#include "test_support.hpp"

using namespace rigrip;

namespace {
scene load_example() {
  auto bytes = test::read_bytes(std::string(RIGRIP_SOURCE_DIR) + "/examples/scene/waving_arm.json");
  diagnostics d;
  auto s = read_scene(bytes, "waving_arm.json", {}, d);
  EXPECT_TRUE(s.ok()) << (s ? "" : s.error().to_string());
  return s.value();
}

scene roundtrip(const scene& s, const gltf::write_options& o, const std::string& name, diagnostics& d) {
  auto enc = gltf::write(s, o, d);
  EXPECT_TRUE(enc.ok()) << (enc ? "" : enc.error().to_string());
  std::string p = test::out_path("core/" + name);
  test::write_bytes(p, enc->main);
  std::string report;
  EXPECT_EQ(test::gltf_validator_errors(p, &report), 0) << report;
  auto back = gltf::read(enc->main, name, d);
  EXPECT_TRUE(back.ok()) << (back ? "" : back.error().to_string());
  return back.value();
}
}  // namespace

TEST(Gltf, SceneJsonToGlbToSceneIsEqualWithinTolerance) {
  scene s = load_example();
  diagnostics d;
  scene b = roundtrip(s, {}, "roundtrip.glb", d);
  ASSERT_EQ(b.skeletons.size(), 1u);
  ASSERT_EQ(b.skeletons[0].bones.size(), s.skeletons[0].bones.size());
  for (std::size_t i = 0; i < s.skeletons[0].bones.size(); ++i) {
    const auto& x = s.skeletons[0].bones[i];
    const auto& y = b.skeletons[0].bones[i];
    EXPECT_EQ(x.name, y.name);
    EXPECT_EQ(x.parent, y.parent);
    for (int c = 0; c < 3; ++c) EXPECT_NEAR(x.translation[c], y.translation[c], 1e-6);
    for (int c = 0; c < 4; ++c) EXPECT_NEAR(x.rotation[c], y.rotation[c], 1e-6);
  }
  ASSERT_EQ(b.animations.size(), 1u);
  const auto& a = s.animations[0];
  const auto& c = b.animations[0];
  EXPECT_EQ(c.name, "wave");
  EXPECT_NEAR(c.duration, a.duration, 1e-6);
  ASSERT_TRUE(c.fps.has_value());
  EXPECT_EQ(*c.fps, 10);
  ASSERT_EQ(c.tracks.size(), a.tracks.size());
  for (std::size_t t = 0; t < a.tracks.size(); ++t) {
    EXPECT_EQ(a.tracks[t].bone, c.tracks[t].bone);
    EXPECT_EQ(a.tracks[t].path, c.tracks[t].path);
    EXPECT_EQ(a.tracks[t].interpolation, c.tracks[t].interpolation);
    ASSERT_EQ(a.tracks[t].values.size(), c.tracks[t].values.size());
    // Compare sampled poses (signs of quaternions may be flipped for continuity).
    for (float tm = 0; tm <= 1.0f; tm += 0.05f) {
      auto va = scene_ops::sample(a.tracks[t], tm), vc = scene_ops::sample(c.tracks[t], tm);
      if (a.tracks[t].path == path::rotation) {
        float dp = std::fabs(core::dot({va[0], va[1], va[2], va[3]}, {vc[0], vc[1], vc[2], vc[3]}));
        EXPECT_NEAR(dp, 1.0f, 1e-5);
      } else {
        for (std::size_t k = 0; k < va.size(); ++k) EXPECT_NEAR(va[k], vc[k], 1e-5);
      }
    }
  }
}

TEST(Gltf, QuaternionKeysAreMadeHemisphereContinuous) {
  scene s = load_example();
  auto& tr = s.animations[0].tracks[0];
  ASSERT_EQ(tr.path, path::rotation);
  for (std::size_t k = 1; k < tr.times.size(); k += 2)
    for (int i = 0; i < 4; ++i) tr.values[k * 4 + i] = -tr.values[k * 4 + i];
  diagnostics d;
  scene b = roundtrip(s, {}, "hemisphere.glb", d);
  const auto& v = b.animations[0].tracks[0].values;
  for (std::size_t k = 1; k < v.size() / 4; ++k) {
    float dp = v[k * 4] * v[k * 4 - 4] + v[k * 4 + 1] * v[k * 4 - 3] + v[k * 4 + 2] * v[k * 4 - 2] + v[k * 4 + 3] * v[k * 4 - 1];
    EXPECT_GE(dp, 0.0f) << "key " << k;
  }
}

TEST(Gltf, DuplicateKeyTimesAreRemovedWithAWarning) {
  scene s = load_example();
  auto& tr = s.animations[0].tracks[1];  // translation, 11 keys
  tr.times.insert(tr.times.begin() + 3, tr.times[2]);
  tr.values.insert(tr.values.begin() + 9, {9, 9, 9});
  diagnostics d;
  gltf::write_options o;
  auto enc = gltf::write(s, o, d);
  // validate() rejects duplicate times, so the writer refuses the raw scene ...
  EXPECT_FALSE(enc.ok());
  // ... while prepare() (what the CLI runs for non-validated data) drops them with a warning.
  scene p = gltf::prepare(s, o, d);
  EXPECT_EQ(p.animations[0].tracks[1].times.size(), 11u);
  ASSERT_FALSE(d.warnings.empty());
  EXPECT_EQ(d.warnings[0].code, code::w_duplicate_key_time);
  EXPECT_EQ(p.animations[0].tracks[1].values[9], s.animations[0].tracks[1].values[12]);  // key 3 kept, the duplicate dropped
}

TEST(Gltf, SkeletonOnlySceneGetsABoneDisplayMesh) {
  scene s = load_example();
  s.animations.clear();
  diagnostics d;
  auto enc = gltf::write(s, {}, d);
  ASSERT_TRUE(enc.ok());
  std::string p = test::out_path("core/skeleton_only.glb");
  test::write_bytes(p, enc->main);
  std::string report;
  EXPECT_EQ(test::gltf_validator_errors(p, &report), 0) << report;
  std::string text(enc->main.begin(), enc->main.end());
  EXPECT_NE(text.find("bone_display"), std::string::npos);
  EXPECT_NE(text.find("\"skins\""), std::string::npos);
}

TEST(Gltf, OptionsResampleClipInPlaceScaleUp) {
  scene s = load_example();
  s.animations[0].extras["root_motion"] = {"spine"};
  gltf::write_options o;
  o.resample_fps = 30;
  o.in_place = true;
  o.scale = 2;
  o.source_up = gltf::up_axis::z;
  diagnostics d;
  scene b = roundtrip(s, o, "options.glb", d);
  ASSERT_EQ(b.animations.size(), 1u);
  for (const auto& t : b.animations[0].tracks) {
    EXPECT_NE(t.bone, "spine") << "root motion should be dropped";
    EXPECT_EQ(t.interpolation, interpolation::linear);
    EXPECT_EQ(t.times.size(), 31u);
  }
  o = {};
  o.clips = {"nothing*"};
  scene c = roundtrip(s, o, "noclips.glb", d);
  EXPECT_TRUE(c.animations.empty());
}

TEST(Gltf, RigidMeshesAreSkinnedToTheirBoneAndTexturesEmbedded) {
  scene s = load_example();
  texture tx{"checker", 2, 2, {255, 0, 0, 255, 0, 255, 0, 255, 0, 0, 255, 255, 255, 255, 255, 255}, {}};
  s.textures.push_back(tx);
  material m;
  m.name = "mat";
  m.texture = 0;
  s.materials.push_back(m);
  mesh me;
  me.name = "hand_box";
  me.skeleton = 0;
  me.bone = 5;
  me.material = 0;
  me.positions = {{0, 0, 0}, {0.1f, 0, 0}, {0, 0.1f, 0}};
  me.normals = {{0, 0, 1}, {0, 0, 1}, {0, 0, 0}};  // a zero normal must not break validation
  me.uvs = {{0, 0}, {1, 0}, {0, 1}};
  me.colors = {{1, 1, 1, 1}, {1, 0, 0, 1}, {0, 1, 0, 1}};
  s.meshes.push_back(me);
  diagnostics d;
  (void)roundtrip(s, {}, "rigid.glb", d);
}

TEST(Gltf, GltfWithSeparateBin) {
  scene s = load_example();
  diagnostics d;
  gltf::write_options o;
  o.binary = false;
  std::string p = test::out_path("core/separate/wave.gltf");
  auto r = gltf::write_file(s, p, o, d);
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  std::string report;
  EXPECT_EQ(test::gltf_validator_errors(p, &report), 0) << report;
  auto back = read_scene(p, {}, d);
  ASSERT_TRUE(back.ok()) << back.error().to_string();
  EXPECT_EQ(back->animations.size(), 1u);
}

// write_file writes a .glb in parts (the binary buffer from where the writer laid it out):
// the file is byte for byte what write() returns, with a rigid mesh (copied and moved into its
// bone's world), a zero normal and tangents, a bone display, and an animation.
TEST(Gltf, WriteFileGlbIsTheBytesOfWrite) {
  scene s = load_example();
  mesh me;
  me.name = "hand_box";
  me.skeleton = 0;
  me.bone = 5;
  me.positions = {{0, 0, 0}, {0.1f, 0, 0}, {0, 0.1f, 0}};
  me.normals = {{0, 0, 1}, {0, 0, 2}, {0, 0, 0}};
  me.tangents = {{1, 0, 0, 1}, {0, 0, 0, -1}, {2, 0, 0, 1}};
  me.uvs = {{0, 0}, {1, 0}, {0, 1}};
  me.indices = {0, 1, 2};
  for (const bool with_mesh : {false, true}) {
    scene t = s;
    if (with_mesh) t.meshes.push_back(me);
    diagnostics d;
    auto enc = gltf::write(t, {}, d);
    ASSERT_TRUE(enc.ok()) << enc.error().to_string();
    const std::string p = test::out_path(std::string("core/write_file_") + (with_mesh ? "mesh" : "bones") + ".glb");
    auto r = gltf::write_file(t, p, {}, d);
    ASSERT_TRUE(r.ok()) << r.error().to_string();
    EXPECT_EQ(test::read_bytes(p), enc->main) << with_mesh;
    if (with_mesh) {  // the scene's mesh is read in place, not moved into its bone's world
      ASSERT_EQ(t.meshes.size(), 1u);
      EXPECT_EQ(t.meshes[0].positions, me.positions);
      EXPECT_EQ(t.meshes[0].normals, me.normals);
    }
  }
}

TEST(SceneJson, DumpAndReadBackAreIdentical) {
  scene s = load_example();
  auto j = scene_json::to_json(s);
  auto back = scene_json::from_json(j);
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(scene_json::to_json(back.value()).dump(), j.dump());
  // The contract's keys.
  EXPECT_TRUE(j["skeletons"][0]["bones"][0].contains("translation"));
  EXPECT_TRUE(j["animations"][0]["fps"].is_number());
  EXPECT_EQ(j["animations"][0]["tracks"][3]["values"].size(), 6u);  // CUBICSPLINE: 3 per key
}

TEST(Docs, DiagnosticsCatalogueMatchesTheCode) {
  std::string generated;
  ASSERT_EQ(test::run(std::string("'") + RIGRIP_CLI + "' diagnostics --markdown", &generated), 0);
  std::ifstream in(std::string(RIGRIP_SOURCE_DIR) + "/docs/diagnostics.md");
  std::string file((std::istreambuf_iterator<char>(in)), {});
  EXPECT_EQ(file, generated) << "regenerate: rigrip diagnostics --markdown > docs/diagnostics.md";
}

TEST(Registry, UnknownContentIsAnErrorNamingTheFile) {
  std::vector<std::uint8_t> junk(100, 0xAB);
  diagnostics d;
  auto r = read_scene(junk, "junk.bin", {}, d);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, code::unknown_format);
  EXPECT_EQ(r.error().file, "junk.bin");
}

TEST(Gltf, SingleKeyCubicSplineTrackIsWrittenAsLinear) {
  scene s = load_example();
  track t;
  t.path = path::scale;
  for (const auto& b : s.skeletons[0].bones) {  // a bone without a scale track yet
    bool used = false;
    for (const auto& u : s.animations[0].tracks) used |= u.bone == b.name && u.path == path::scale;
    if (!used) t.bone = b.name;
  }
  ASSERT_FALSE(t.bone.empty());
  t.interpolation = interpolation::cubic_spline;
  t.times = {0.5f};
  t.values = {0, 0, 0, 2, 3, 4, 0, 0, 0};  // in-tangent, value, out-tangent
  s.animations[0].tracks.push_back(t);
  diagnostics d;
  scene p = gltf::prepare(s, {}, d);
  const auto& w = p.animations[0].tracks.back();
  EXPECT_EQ(w.interpolation, interpolation::linear);
  EXPECT_EQ(w.values, (std::vector<float>{2, 3, 4}));
  EXPECT_FALSE(s.validate().ok());  // the scene model itself refuses it ...
  EXPECT_TRUE(p.validate().ok());   // ... prepare() (for unvalidated input) repairs it
}

// A joint given as a `matrix` (not TRS) is decomposed into T, R and S.
TEST(GltfRead, MatrixNodeIsDecomposed) {
  // T(1,2,3) * Rz(90 deg) * S(2,3,4), column-major.
  const std::string text = R"({"asset":{"version":"2.0"},"scene":0,"scenes":[{"nodes":[0]}],
    "nodes":[{"name":"j","matrix":[0,2,0,0, -3,0,0,0, 0,0,4,0, 1,2,3,1]}],
    "skins":[{"joints":[0]}]})";
  diagnostics d;
  auto s = gltf::read(bytes(text.begin(), text.end()), "m.gltf", d);
  ASSERT_TRUE(s.ok()) << s.error().message;
  const auto& b = s.value().skeletons.at(0).bones.at(0);
  EXPECT_EQ(b.translation, (vec3{1, 2, 3}));
  EXPECT_NEAR(b.scale[0], 2, 1e-6);
  EXPECT_NEAR(b.scale[1], 3, 1e-6);
  EXPECT_NEAR(b.scale[2], 4, 1e-6);
  const float h = std::sqrt(0.5f);
  EXPECT_NEAR(std::fabs(b.rotation[2]), h, 1e-6);
  EXPECT_NEAR(std::fabs(b.rotation[3]), h, 1e-6);
  EXPECT_GT(b.rotation[2] * b.rotation[3], 0);  // +90 degrees about Z
  EXPECT_NEAR(b.rotation[0], 0, 1e-6);
  EXPECT_NEAR(b.rotation[1], 0, 1e-6);
}

// Issue 15: a one-key pose clip lasts one frame; names are unique within 63 bytes of UTF-8
// with the full name in extras; the source frame rate is in the extras.
TEST(Gltf, PoseClipLastsAFrameAndLongNamesStayUnique) {
  scene s = load_example();
  animation pose;
  pose.skeleton = 0;
  pose.fps = 15;
  pose.duration = 0;
  track t;
  t.bone = s.skeletons[0].bones[0].name;
  t.path = path::rotation;
  t.interpolation = interpolation::linear;
  t.times = {0};
  t.values = {0, 0, 0, 1};
  pose.tracks.push_back(t);
  // 70 bytes, 'é' (2 bytes) straddling byte 63; two names equal in their first 63 bytes.
  const std::string stem = std::string(62, 'a') + "\xC3\xA9";
  pose.name = stem + "_pose_one";
  s.animations.push_back(pose);
  pose.name = stem + "_pose_two";
  s.animations.push_back(pose);
  diagnostics d;
  scene p = gltf::prepare(s, {}, d);
  ASSERT_EQ(p.animations.size(), 3u);
  EXPECT_NEAR(p.animations[1].duration, 1 / 15.0, 1e-6);
  ASSERT_EQ(p.animations[1].tracks[0].times.size(), 2u);
  EXPECT_NEAR(p.animations[1].tracks[0].times[1], 1 / 15.0f, 1e-6);
  auto enc = gltf::write(s, {}, d);
  ASSERT_TRUE(enc.ok());
  const std::string path = test::out_path("core/pose_names.glb");
  test::write_bytes(path, enc->main);
  std::string report;
  EXPECT_EQ(test::gltf_validator_errors(path, &report), 0) << report;
  auto back = gltf::read(enc->main, "pose_names.glb", d);
  ASSERT_TRUE(back.ok());
  ASSERT_EQ(back->animations.size(), 3u);
  // In the file: cut before the 2-byte character (not inside it), the second made unique.
  const std::string text(enc->main.begin(), enc->main.end());
  EXPECT_NE(text.find("\"name\":\"" + std::string(62, 'a') + "\""), std::string::npos);
  EXPECT_NE(text.find("\"name\":\"" + std::string(61, 'a') + "~2\""), std::string::npos);
  EXPECT_NE(text.find("_pose_two\""), std::string::npos);  // full name in extras
  // Read back (what `pack` gets): the full names again.
  EXPECT_EQ(back->animations[1].name, stem + "_pose_one");
  EXPECT_EQ(back->animations[2].name, stem + "_pose_two");
  EXPECT_NE(text.find("\"source_fps\":15"), std::string::npos);
  EXPECT_GT(back->animations[1].duration, 0.0);
}

// Issue 15: an additive clip (deltas) is layered onto the rest pose by default, so every
// bone keeps its rest length at every frame; --additive raw keeps the deltas.
// A clip keyed from after 0 gets hold keys at 0 in the file (Blender's action then covers the
// whole clip); an additive clip is applied onto the rest pose. Reading the glb back (what
// `pack` writes from) gives the source's keys and deltas again.
TEST(Gltf, WriterHoldKeysAndAdditiveAreUndoneOnRead) {
  scene s = load_example();
  const auto& sk = s.skeletons[0];
  animation a;
  a.name = "late_add";
  a.skeleton = 0;
  a.fps = 30;
  a.duration = 1;
  a.extras = {{"additive", true}};
  track r;
  r.bone = sk.bones[1].name;
  r.path = path::rotation;
  r.times = {0.25f, 1};
  for (float ang : {0.2f, -0.4f}) {
    quat q = core::axis_angle({0, 0, 1}, ang);
    r.values.insert(r.values.end(), q.begin(), q.end());
  }
  track t;
  t.bone = sk.bones[1].name;
  t.path = path::translation;
  t.times = {0.5f, 1};
  t.values = {0.1f, 0, 0, 0, 0.2f, 0};
  a.tracks = {r, t};
  s.animations = {a};
  diagnostics d;
  auto enc = gltf::write(s, {}, d);
  ASSERT_TRUE(enc.ok());
  const std::string text(enc->main.begin(), enc->main.end());
  EXPECT_NE(text.find("\"hold_key_at_0\":true"), std::string::npos);
  EXPECT_NE(text.find("\"additive_applied\""), std::string::npos);
  auto back = gltf::read(enc->main, "late_add.glb", d);
  ASSERT_TRUE(back.ok()) << back.error().to_string();
  ASSERT_EQ(back->animations.size(), 1u);
  const auto& b = back->animations[0];
  EXPECT_FALSE(b.extras.contains("hold_key_at_0"));
  EXPECT_FALSE(b.extras.contains("additive_applied"));
  EXPECT_EQ(b.extras.value("additive", false), true);
  ASSERT_EQ(b.tracks.size(), 2u);
  for (const auto& bt : b.tracks) {
    const track& want = bt.path == path::rotation ? r : t;
    ASSERT_EQ(bt.times, want.times);
    ASSERT_EQ(bt.values.size(), want.values.size());
    for (std::size_t i = 0; i < want.values.size(); ++i) EXPECT_NEAR(bt.values[i], want.values[i], 1e-5f) << i;
  }
}

TEST(Gltf, AdditiveClipIsAppliedOntoTheRestPose) {
  scene s = load_example();
  const auto& sk = s.skeletons[0];
  animation add;
  add.name = "nod_add";
  add.skeleton = 0;
  add.duration = 1;
  add.fps = 30;
  add.extras = {{"additive", true}};
  for (const auto& b : sk.bones) {
    track r;  // a small rotation delta on every bone, no translation delta
    r.bone = b.name;
    r.path = path::rotation;
    r.interpolation = interpolation::linear;
    r.times = {0, 0.5f, 1};
    for (float ang : {0.0f, 0.4f, -0.3f}) {
      quat q = core::axis_angle({0, 0, 1}, ang);
      r.values.insert(r.values.end(), q.begin(), q.end());
    }
    add.tracks.push_back(r);
    track t;
    t.bone = b.name;
    t.path = path::translation;
    t.interpolation = interpolation::linear;
    t.times = {0, 1};
    t.values = {0, 0, 0, 0, 0, 0};
    add.tracks.push_back(t);
  }
  s.animations = {add};
  diagnostics d;
  auto enc = gltf::write(s, {}, d);
  ASSERT_TRUE(enc.ok());
  test::gltf_evaluator ev(enc->main);
  auto rest = scene_ops::world_matrices(sk);
  auto len = [](const std::array<float, 16>& a, const std::array<float, 16>& b) {
    return std::hypot(a[12] - b[12], a[13] - b[13], a[14] - b[14]);
  };
  double worst = 0, moved = 0;
  for (int f = 0; f <= 30; ++f) {
    auto w = ev.worlds(0, f / 30.0f);
    for (std::size_t bi = 0; bi < sk.bones.size(); ++bi) {
      const int p = sk.bones[bi].parent;
      if (p < 0) continue;
      const auto* c = test::find_world(w, sk.bones[bi].name);
      const auto* pp = test::find_world(w, sk.bones[std::size_t(p)].name);
      ASSERT_TRUE(c && pp);
      const double want = len(rest[bi], rest[std::size_t(p)]);
      worst = std::max(worst, std::fabs(len(*c, *pp) - want));
      moved = std::max(moved, std::fabs(double((*c)[12] - rest[bi][12])));
    }
  }
  EXPECT_LT(worst, 1e-4);  // rest bone lengths kept at every frame
  EXPECT_GT(moved, 1e-3);  // and the clip does move the bones
  const std::string text(enc->main.begin(), enc->main.end());
  EXPECT_NE(text.find("additive_applied"), std::string::npos);
  // --additive raw: the deltas as stored, bones collapse onto their parents.
  gltf::write_options raw;
  raw.additive_raw = true;
  auto enc2 = gltf::write(s, raw, d);
  ASSERT_TRUE(enc2.ok());
  test::gltf_evaluator ev2(enc2->main);
  auto w = ev2.worlds(0, 0);
  const auto* c = test::find_world(w, sk.bones.back().name);
  const auto* pp = test::find_world(w, sk.bones[std::size_t(sk.bones.back().parent)].name);
  ASSERT_TRUE(c && pp);
  EXPECT_LT(len(*c, *pp), 1e-5);
}

// Issue 15: size goes into the data (never a scaled node): the family's metres_per_unit
// and a uniform root_transform scale multiply bone translations, keys and mesh positions;
// the reader divides it back out; --units native keeps the source's units.
TEST(Gltf, RealWorldSizeGoesIntoTheDataNotANode) {
  scene s = load_example();
  s.metadata["metres_per_unit"] = 0.0625;
  s.metadata["root_transform"] = {{"rotation", {1.0, 0.0, 0.0, 0.0}}, {"scale", {0.0625, 0.0625, 0.0625}}};
  diagnostics d;
  auto enc = gltf::write(s, {}, d);
  ASSERT_TRUE(enc.ok());
  const std::string text(enc->main.begin(), enc->main.end());
  EXPECT_NE(text.find("\"units_scale\":0.0625"), std::string::npos);
  test::gltf_evaluator ev(enc->main);
  auto w = ev.worlds(0, 0.5f);
  auto want = scene_ops::world_matrices(s.skeletons[0], scene_ops::sample_pose(s.skeletons[0], s.animations[0], 0.5f));
  const auto& last = s.skeletons[0].bones.back().name;
  const auto* g = test::find_world(w, last);
  ASSERT_NE(g, nullptr);
  const auto i = std::size_t(s.skeletons[0].find(last));
  // Times 1/16 (not 1/256: metres_per_unit and the root scale state the same unit), with
  // the root node's rotation only (a sign per axis) and no scale.
  EXPECT_NEAR(std::fabs((*g)[12]), std::fabs(want[i][12]) * 0.0625f, 1e-5);
  EXPECT_NEAR(std::fabs((*g)[13]), std::fabs(want[i][13]) * 0.0625f, 1e-5);
  EXPECT_EQ(text.find("\"name\":\"rigrip_root\",\"rotation\":[1.0,0.0,0.0,0.0],\"scale\""), std::string::npos);
  auto back = gltf::read(enc->main, "units.glb", d);
  ASSERT_TRUE(back.ok());
  for (std::size_t b = 0; b < s.skeletons[0].bones.size(); ++b)
    for (std::size_t c = 0; c < 3; ++c)
      EXPECT_NEAR(back->skeletons[0].bones[b].translation[c], s.skeletons[0].bones[b].translation[c], 1e-4);
  gltf::write_options native;
  native.native_units = true;
  auto enc2 = gltf::write(s, native, d);
  ASSERT_TRUE(enc2.ok());
  test::gltf_evaluator ev2(enc2->main);
  const auto w2 = ev2.worlds(0, 0.5f);
  const auto* g2 = test::find_world(w2, last);
  ASSERT_NE(g2, nullptr);
  EXPECT_NEAR(std::fabs((*g2)[12]), std::fabs(want[i][12]), 1e-4);
}
