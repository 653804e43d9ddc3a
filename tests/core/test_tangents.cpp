// scene_ops::uv_tangents / add_missing_tangents: tangent spaces from UV gradients; and the
// scene model's material tracks (validation, scene JSON).
#include <cmath>

#include <gtest/gtest.h>

#include "rigrip/gltf.hpp"
#include "rigrip/scene_text.hpp"
#include "scene/tangents.hpp"

using namespace rigrip;

namespace {

// A unit quad in the xy plane facing +z; u runs along +x, v (top-left origin) along -y.
mesh quad(bool mirror_u) {
  mesh m;
  m.positions = {{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0}};
  m.normals.assign(4, vec3{0, 0, 1});
  const float u0 = mirror_u ? 1.0f : 0.0f, u1 = mirror_u ? 0.0f : 1.0f;
  m.uvs = {{u0, 1}, {u1, 1}, {u1, 0}, {u0, 0}};
  m.indices = {0, 1, 2, 0, 2, 3};
  return m;
}

}  // namespace

TEST(Tangents, AlongPlusUWithGltfHandedness) {
  const mesh m = quad(false);
  const auto t = scene_ops::uv_tangents(m.positions, m.normals, m.uvs, m.indices);
  ASSERT_EQ(t.size(), 4u);
  for (const auto& x : t) {
    EXPECT_NEAR(x[0], 1, 1e-6);
    EXPECT_NEAR(x[1], 0, 1e-6);
    EXPECT_NEAR(x[2], 0, 1e-6);
    // glTF: bitangent = cross(n, t) * w = +y here, and +y is where v decreases (image up).
    EXPECT_EQ(x[3], 1.0f);
  }
  // Direct3D-style maps (green = +v) get the other handedness.
  const auto d = scene_ops::uv_tangents(m.positions, m.normals, m.uvs, m.indices, scene_ops::bitangent_dir::plus_v);
  for (const auto& x : d) EXPECT_EQ(x[3], -1.0f);
}

TEST(Tangents, MirroredUvsFlipTangentNotHandednessRule) {
  const mesh m = quad(true);  // u runs along -x
  const auto t = scene_ops::uv_tangents(m.positions, m.normals, m.uvs, m.indices);
  for (const auto& x : t) {
    EXPECT_NEAR(x[0], -1, 1e-6);
    // cross(+z, -x) = -y; image up is still +y, so w = -1.
    EXPECT_EQ(x[3], -1.0f);
  }
}

TEST(Tangents, OrthogonalToTheNormalAndDegenerateUvsStillUnit) {
  mesh m = quad(false);
  m.normals[2] = {0, 0.6f, 0.8f};  // tilted: the tangent is made perpendicular to it
  auto t = scene_ops::uv_tangents(m.positions, m.normals, m.uvs, m.indices);
  const auto& x = t[2];
  EXPECT_NEAR(x[0] * 0 + x[1] * 0.6f + x[2] * 0.8f, 0, 1e-6);
  EXPECT_NEAR(std::sqrt(x[0] * x[0] + x[1] * x[1] + x[2] * x[2]), 1, 1e-6);
  m.uvs.assign(4, vec2{0.5f, 0.5f});  // no gradient at all
  t = scene_ops::uv_tangents(m.positions, m.normals, m.uvs, m.indices);
  for (std::size_t i = 0; i < 4; ++i) {
    const auto& y = t[i];
    const auto& n = m.normals[i];
    EXPECT_NEAR(std::sqrt(y[0] * y[0] + y[1] * y[1] + y[2] * y[2]), 1, 1e-6);
    EXPECT_NEAR(y[0] * n[0] + y[1] * n[1] + y[2] * n[2], 0, 1e-6);
  }
  // Out-of-range indices are ignored, never read.
  const std::vector<std::uint32_t> bad{0, 1, 99};
  EXPECT_EQ(scene_ops::uv_tangents(m.positions, m.normals, m.uvs, bad).size(), 4u);
}

TEST(Tangents, AddMissingOnlyWhereANormalMapNeedsThem) {
  scene s;
  s.textures.push_back(texture{"n", 1, 1, {128, 128, 255, 255}});
  material with;
  with.normal_texture = 0;
  with.normal_texcoord = 1;
  s.materials = {with, material{}};
  mesh a = quad(false);
  a.uvs1 = a.uvs;
  a.material = 0;
  mesh b = quad(false);
  b.material = 1;  // no normal map: left alone
  mesh c = quad(false);
  c.material = 0;  // the map reads UV set 1, which c lacks: left alone
  s.meshes = {a, b, c};
  EXPECT_EQ(scene_ops::add_missing_tangents(s), 1);
  EXPECT_EQ(s.meshes[0].tangents.size(), 4u);
  EXPECT_TRUE(s.meshes[1].tangents.empty());
  EXPECT_TRUE(s.meshes[2].tangents.empty());
  EXPECT_TRUE(s.validate());
}

// Material tracks: validated, and both scene-JSON writers print the same optional key.

TEST(MaterialTracks, ValidatedAndInSceneJson) {
  scene s;
  skeleton sk;
  sk.bones.push_back(bone{"root"});
  s.skeletons.push_back(sk);
  s.materials.push_back(material{});
  animation a;
  a.name = "scroll";
  a.duration = 1;
  material_track t;
  t.material = 0;
  t.times = {0, 1};
  t.values = {0, 0, 0.5f, 0};
  a.material_tracks.push_back(t);
  s.animations.push_back(a);
  ASSERT_TRUE(s.validate());
  const auto dom = scene_json::to_json(s);
  ASSERT_TRUE(dom["animations"][0].contains("material_tracks"));
  EXPECT_EQ(dom["animations"][0]["material_tracks"][0]["property"], "offset");
  EXPECT_EQ(nlohmann::json::parse(scene_json::to_text(s, 1)), nlohmann::json::parse(dom.dump()));
  s.animations[0].material_tracks[0].values.pop_back();  // 3 values for 2 keys
  EXPECT_FALSE(s.validate());
  s.animations[0].material_tracks[0].values.push_back(0);
  s.animations[0].material_tracks[0].material = 4;
  EXPECT_FALSE(s.validate());
}
