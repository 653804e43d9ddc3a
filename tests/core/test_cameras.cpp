// Cameras in the scene model (docs/scene-model.md): validate(), scene JSON in and out (DOM
// and streamed text agree), and the glTF writer's cameras, camera nodes and camera clips
// (validator: 0 errors, 0 warnings; read back with tinygltf).
#include <cmath>
#include <cstring>

#include <gtest/gtest.h>
#include <tiny_gltf.h>

#include "rigrip/gltf.hpp"
#include "rigrip/scene_text.hpp"
#include "test_support.hpp"

using namespace rigrip;
using nlohmann::json;

namespace {

scene camera_scene() {
  scene s;
  s.format = "test";
  camera c;
  c.name = "Cam";
  c.yfov = 0.6f;
  c.aspect = 1.5f;
  c.znear = 0.5f;
  c.zfar = 500.0f;
  c.translation = {1, 2, 3};
  c.rotation = {0, 0.38268343f, 0, 0.92387953f};  // 45 degrees about +Y
  s.cameras.push_back(c);
  camera o;
  o.name = "Ortho";
  o.type = camera::projection::orthographic;
  o.xmag = 4;
  o.ymag = 3;
  o.znear = 0.01f;
  o.zfar = 100;
  s.cameras.push_back(o);
  camera_animation a;
  a.name = "Dolly";
  a.duration = 2;
  a.fps = 30;
  track t;
  t.bone = "Cam";
  t.path = path::translation;
  t.times = {0.5f, 1.5f};  // held from 0 and to 2 s by the writer (every track starts late)
  t.values = {0, 0, 10, 0, 0, 20};
  a.tracks.push_back(t);
  track r;
  r.bone = "Cam";
  r.path = path::rotation;
  r.times = {0.5f, 1.5f};
  r.values = {0, 0, 0, 1, 0, 0.70710678f, 0, 0.70710678f};
  a.tracks.push_back(r);
  a.lens.push_back({"Cam", interpolation::linear, {0, 2}, {0.6f, 0.4f}});
  s.camera_animations.push_back(a);
  return s;
}

void expect_invalid(const scene& s, const std::string& text) {
  auto r = s.validate();
  ASSERT_FALSE(r) << "valid; expected " << text;
  EXPECT_EQ(r.error().code, code::invalid_scene);
  EXPECT_NE(r.error().message.find(text), std::string::npos) << r.error().message;
}

int validator_warnings(const std::string& report) {
  auto p = report.find(" errors, ");
  return p == std::string::npos ? -1 : std::stoi(report.substr(p + 9));
}

}  // namespace

TEST(Cameras, ValidateChecksLensTracksAndNames) {
  const scene good = camera_scene();
  ASSERT_TRUE(good.validate()) << good.validate().error().to_string();
  scene s = good;
  s.cameras[0].yfov = 3.2f;
  expect_invalid(s, "cameras[0]: yfov");
  s = good;
  s.cameras[0].zfar = 0.1f;
  expect_invalid(s, "zfar must be greater than znear");
  s = good;
  s.cameras[1].zfar.reset();
  expect_invalid(s, "orthographic camera needs zfar");
  s = good;
  s.cameras[1].name = "Cam";
  expect_invalid(s, "duplicate camera name");
  s = good;
  s.cameras[0].rotation = {0, 0, 0, 2};
  expect_invalid(s, "unit quaternion");
  s = good;
  s.camera_animations[0].tracks[0].bone = "Nobody";
  expect_invalid(s, "camera_animations[0].tracks[0]: camera 'Nobody'");
  s = good;
  s.camera_animations[0].tracks[0].path = path::scale;
  expect_invalid(s, "never scales");
  s = good;
  s.camera_animations[0].tracks[0].times = {1.5f, 0.5f};
  expect_invalid(s, "camera_animations[0].tracks[0].times[1]");
  s = good;
  s.camera_animations[0].lens[0].yfov = {0.6f};
  expect_invalid(s, "one yfov per key");
  s = good;
  s.camera_animations[0].lens[0].yfov[1] = 0;
  expect_invalid(s, "lens[0].yfov[1]");
  s = good;
  s.camera_animations[0].tracks[1].values[3] = 0.5f;
  expect_invalid(s, "not a unit quaternion");
}

TEST(Cameras, SceneJsonRoundTripAndStreamedTextAgree) {
  const scene s = camera_scene();
  const json j = scene_json::to_json(s);
  EXPECT_EQ(json::parse(scene_json::to_text(s, 1)), json::parse(j.dump(1)));
  EXPECT_EQ(json::parse(scene_json::to_text(s, -1)), j);
  EXPECT_EQ(j["cameras"][0]["projection"], "perspective");
  EXPECT_FALSE(j["cameras"][1].contains("yfov"));
  EXPECT_EQ(j["camera_animations"][0]["tracks"][0]["camera"], "Cam");
  auto back = scene_json::from_json(j);
  ASSERT_TRUE(back) << back.error().to_string();
  const scene& b = back.value();
  ASSERT_TRUE(b.validate());
  ASSERT_EQ(b.cameras.size(), 2u);
  EXPECT_EQ(b.cameras[1].type, camera::projection::orthographic);
  EXPECT_FLOAT_EQ(b.cameras[1].xmag, 4);
  EXPECT_FLOAT_EQ(*b.cameras[0].aspect, 1.5f);
  EXPECT_FLOAT_EQ(*b.cameras[0].zfar, 500);
  ASSERT_EQ(b.camera_animations.size(), 1u);
  EXPECT_EQ(b.camera_animations[0].tracks[1].values, s.camera_animations[0].tracks[1].values);
  EXPECT_EQ(b.camera_animations[0].lens[0].yfov, s.camera_animations[0].lens[0].yfov);
  // A scene without cameras prints no camera keys (the contract's other documents are unchanged).
  scene plain;
  plain.format = "x";
  EXPECT_FALSE(scene_json::to_json(plain).contains("cameras"));
  EXPECT_EQ(scene_json::to_text(plain, 1).find("camera"), std::string::npos);
  // Bad input names the key.
  json bad = j;
  bad["cameras"][0]["projection"] = "fisheye";
  auto e = scene_json::from_json(bad);
  ASSERT_FALSE(e);
  EXPECT_NE(e.error().message.find("cameras[0].projection"), std::string::npos);
}

TEST(Cameras, GltfHasCamerasNodesAndAnimatedChannels) {
  const scene s = camera_scene();
  diagnostics d;
  gltf::write_options o;
  o.scale = 2;  // lengths are doubled: positions, planes, translation keys
  auto enc = gltf::write(s, o, d);
  ASSERT_TRUE(enc) << enc.error().to_string();
  const std::string p = test::out_path("core/cameras.glb");
  test::write_bytes(p, enc->main);
  std::string report;
  EXPECT_EQ(test::gltf_validator_errors(p, &report), 0) << report;
  EXPECT_EQ(validator_warnings(report), 0) << report;

  tinygltf::Model m;
  tinygltf::TinyGLTF loader;
  std::string err, warn;
  ASSERT_TRUE(loader.LoadBinaryFromMemory(&m, &err, &warn, enc->main.data(), static_cast<unsigned>(enc->main.size()))) << err;
  ASSERT_EQ(m.cameras.size(), 2u);
  EXPECT_EQ(m.cameras[0].type, "perspective");
  EXPECT_NEAR(m.cameras[0].perspective.yfov, 0.6, 1e-6);
  EXPECT_NEAR(m.cameras[0].perspective.znear, 1.0, 1e-6);
  EXPECT_NEAR(m.cameras[0].perspective.zfar, 1000.0, 1e-3);
  EXPECT_NEAR(m.cameras[0].perspective.aspectRatio, 1.5, 1e-6);
  EXPECT_EQ(m.cameras[1].type, "orthographic");
  EXPECT_NEAR(m.cameras[1].orthographic.xmag, 8.0, 1e-6);
  int cam_node = -1;
  for (std::size_t i = 0; i < m.nodes.size(); ++i)
    if (m.nodes[i].camera == 0) cam_node = static_cast<int>(i);
  ASSERT_GE(cam_node, 0);
  const auto& n = m.nodes[static_cast<std::size_t>(cam_node)];
  EXPECT_EQ(n.name, "Cam");
  ASSERT_EQ(n.translation.size(), 3u);
  EXPECT_NEAR(n.translation[2], 6.0, 1e-6);
  bool under_root = false;
  for (int c : m.nodes[0].children) under_root = under_root || c == cam_node;
  EXPECT_TRUE(under_root);
  ASSERT_EQ(m.animations.size(), 1u);
  const auto& a = m.animations[0];
  EXPECT_EQ(a.name, "Dolly");
  ASSERT_EQ(a.channels.size(), 2u);
  for (const auto& ch : a.channels) EXPECT_EQ(ch.target_node, cam_node);
  // Translation keys held from 0 to the duration, doubled.
  const auto& in = m.accessors[static_cast<std::size_t>(a.samplers[0].input)];
  EXPECT_EQ(in.count, 4u);
  EXPECT_NEAR(in.maxValues[0], 2.0, 1e-6);
  const auto& out = m.accessors[static_cast<std::size_t>(a.samplers[0].output)];
  const auto& view = m.bufferViews[static_cast<std::size_t>(out.bufferView)];
  ASSERT_EQ(out.count, 4u);
  float last[3];
  std::memcpy(last, m.buffers[0].data.data() + view.byteOffset + out.byteOffset + 3 * 12, 12);
  EXPECT_NEAR(last[2], 40.0f, 1e-5);  // the last key (20) held to the end, doubled
  EXPECT_TRUE(a.extras.Has("lens"));
}

TEST(Cameras, CameraOnlySceneIsWrittenAndClipFilterApplies) {
  scene s = camera_scene();
  diagnostics d;
  gltf::write_options o;
  o.clips = {"Other"};
  auto enc = gltf::write(s, o, d);
  ASSERT_TRUE(enc) << enc.error().to_string();
  tinygltf::Model m;
  tinygltf::TinyGLTF loader;
  std::string err, warn;
  ASSERT_TRUE(loader.LoadBinaryFromMemory(&m, &err, &warn, enc->main.data(), static_cast<unsigned>(enc->main.size()))) << err;
  EXPECT_EQ(m.cameras.size(), 2u);
  EXPECT_TRUE(m.animations.empty());
}
