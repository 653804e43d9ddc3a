// Field samples (Cloud: HRC, RSD, P, TEX, A): raw layers, scene, glTF.
#include <filesystem>

#include <gtest/gtest.h>

#include "core/math.hpp"
#include "formats/ff7/decode.hpp"
#include "scene/pose.hpp"
#include "rigrip/registry.hpp"
#include "ff7_test_util.hpp"
#include "test_support.hpp"

using namespace rigrip;
using namespace rigrip::ff7;

namespace {
scene read_ok(const std::string& path, read_options o = {}) {
  auto s = ff7test::read_file(path, o);
  EXPECT_TRUE(s.ok()) << (s.ok() ? "" : s.error().to_string());
  return s.ok() ? s.value() : scene{};
}

// Converts with the real CLI (the family test binary does not link the registry or the
// glTF file writer) and runs gltf-validator on the result.
void glb_valid_file(const std::string& input, const std::string& name, const std::string& extra = "") {
  auto out = test::out_path(name);
  std::string log;
  int rc = test::run(std::string("'") + RIGRIP_CLI + "' convert '" + input + "' -o '" + out + "' " + extra, &log);
  ASSERT_EQ(rc, 0) << log;
  std::string report;
  int errors = test::gltf_validator_errors(out, &report);
  if (errors < 0) GTEST_SKIP() << "node / gltf-validator not available";
  EXPECT_EQ(errors, 0) << report;
}

vec3 world_pos(const std::vector<core::mat4>& w, int bone) {
  const auto& m = w[static_cast<std::size_t>(bone)];
  // root_transform: 180 degrees about X maps (x, y, z) to (x, -y, -z).
  return {m[12], -m[13], -m[14]};
}
}  // namespace

TEST(Field, PSampleLayoutAndByteIdenticalRewrite) {
  RIGRIP_REQUIRE_SAMPLE(path, "ff7/field/aaac.p");
  auto data = test::read_bytes(path);
  auto p = parse_p(data);
  EXPECT_EQ(p.vertices.size(), 14u);
  EXPECT_EQ(p.polys.size(), 24u);
  EXPECT_EQ(p.groups.size(), 1u);
  EXPECT_EQ(p.hundreds.size(), 1u);
  EXPECT_EQ(p.normal_index.size(), 14u);
  EXPECT_TRUE(p.trailing.empty());
  EXPECT_EQ(serialise_p(p), data);
  EXPECT_GE(detect_p(data), score::structure);
}

TEST(Field, TexSamplePalettedToRgba) {
  RIGRIP_REQUIRE_SAMPLE(path, "ff7/field/aabc.tex");
  auto data = test::read_bytes(path);
  auto t = parse_tex(data);
  EXPECT_EQ(t.width(), 32u);
  EXPECT_EQ(t.height(), 32u);
  EXPECT_EQ(t.palette.size(), 16u * 4u);
  EXPECT_EQ(serialise_tex(t), data);
  auto tex = tex_to_texture(t, "aabc.tex");
  ASSERT_EQ(tex.rgba.size(), 32u * 32u * 4u);
  // Pixel 0 uses a palette entry: RGBA from the BGRA palette.
  auto idx = t.pixels[0];
  EXPECT_EQ(tex.rgba[0], t.palette[4u * idx + 2]);
  EXPECT_EQ(tex.rgba[2], t.palette[4u * idx]);
}

TEST(Field, HrcSampleSkeleton) {
  RIGRIP_REQUIRE_SAMPLE(path, "ff7/field/aaaa.hrc");
  auto h = parse_hrc(test::read_bytes(path));
  EXPECT_EQ(h.name, "n_cloud_sk");
  ASSERT_EQ(h.bones.size(), 21u);
  EXPECT_EQ(h.bones[0].name, "hip");
  EXPECT_EQ(h.bones[0].parent, "root");
  EXPECT_FLOAT_EQ(h.bones[0].length, 1.7457236f);
  ASSERT_EQ(h.bones[0].resources.size(), 1u);
  EXPECT_EQ(h.bones[0].resources[0], "AAAB");
  EXPECT_TRUE(h.bones[3].resources.empty());
}

TEST(Field, ASampleFrame) {
  RIGRIP_REQUIRE_SAMPLE(path, "ff7/field/aafe.a");
  auto data = test::read_bytes(path);
  auto a = parse_a(data);
  ASSERT_EQ(a.frames.size(), 1u);
  EXPECT_EQ(a.bone_count, 21u);
  EXPECT_EQ(a.order[0], 1);
  EXPECT_EQ(a.order[1], 0);
  EXPECT_EQ(a.order[2], 2);
  EXPECT_NEAR(a.frames[0].root_translation[1], 13.535f, 1e-3f);
  EXPECT_FLOAT_EQ(a.frames[0].rotations[0][0], 270.0f);
  EXPECT_EQ(serialise_a(a), data);
}

TEST(Field, CloudStandsUprightInGltfSpace) {
  RIGRIP_REQUIRE_SAMPLE(path, "ff7/field/aafe.a");
  auto s = read_ok(path);
  ASSERT_EQ(s.skeletons.size(), 1u);
  const auto& sk = s.skeletons[0];
  auto w = scene_ops::world_matrices(sk);
  auto head = world_pos(w, sk.find("head")), hip = world_pos(w, sk.find("hip"));
  auto lfoot = world_pos(w, sk.find("l_foot")), rfoot = world_pos(w, sk.find("r_foot"));
  auto lhand = world_pos(w, sk.find("l_hand")), rhand = world_pos(w, sk.find("r_hand"));
  EXPECT_GT(head[1], hip[1] + 5);
  EXPECT_GT(hip[1], lfoot[1] + 5);
  EXPECT_GT(hip[1], rfoot[1] + 5);
  EXPECT_NEAR(lfoot[1], rfoot[1], 1.0f);
  // Hands on opposite sides of the body.
  EXPECT_LT((lhand[0] - hip[0]) * (rhand[0] - hip[0]), 0.0f);
  std::printf("[ff7] Cloud (glTF space): head y %.2f, hip y %.2f, feet y %.2f / %.2f\n", head[1], hip[1], lfoot[1], rfoot[1]);
}

TEST(Field, SamplesConvertToValidGlb) {
  RIGRIP_REQUIRE_SAMPLE(hrc, "ff7/field/aaaa.hrc");
  RIGRIP_REQUIRE_SAMPLE(anim, "ff7/field/aafe.a");
  RIGRIP_REQUIRE_SAMPLE(rsd, "ff7/field/aaab.rsd");
  RIGRIP_REQUIRE_SAMPLE(tex, "ff7/field/aabc.tex");
  RIGRIP_REQUIRE_SAMPLE(p, "ff7/field/aaac.p");
  auto s = read_ok(anim);
  EXPECT_EQ(s.animations.size(), 1u);
  EXPECT_EQ(s.meshes.size(), 1u);  // only the waist part ships with the samples
  glb_valid_file(anim, "ff7_cloud_aafe.glb");
  glb_valid_file(hrc, "ff7_cloud_aaaa.glb");
  glb_valid_file(rsd, "ff7_aaab.glb");
  glb_valid_file(tex, "ff7_aabc.glb");
  glb_valid_file(p, "ff7_aaac.glb");
}

TEST(Field, CloudTexturedThroughRsdTexList) {
  // The samples' RSD has NTEX=0; a copy of the set with an RSD that lists the sample TEX
  // checks the HRC -> RSD -> P + TEX path, with the waist group marked textured.
  RIGRIP_REQUIRE_SAMPLE(hrc, "ff7/field/aaaa.hrc");
  RIGRIP_REQUIRE_SAMPLE(tex, "ff7/field/aabc.tex");
  RIGRIP_REQUIRE_SAMPLE(pp, "ff7/field/aaac.p");
  auto dir = test::out_path("ff7_field_textured");
  std::filesystem::create_directories(dir);
  test::write_bytes(dir + "/aaaa.hrc", test::read_bytes(hrc));
  test::write_bytes(dir + "/aabc.tex", test::read_bytes(tex));
  std::string rsd = "@RSD940102\nPLY=AAAC.PLY\nMAT=AAAC.MAT\nGRP=AAAC.GRP\nNTEX=1\nTEX[0]=AABC.TIM\n";
  test::write_bytes(dir + "/aaab.rsd", std::vector<std::uint8_t>(rsd.begin(), rsd.end()));
  auto p = parse_p(test::read_bytes(pp));
  p.texcoords.clear();
  for (std::size_t i = 0; i < p.vertices.size(); ++i)
    p.texcoords.push_back({static_cast<float>(i % 4) / 3.0f, static_cast<float>(i / 4) / 3.0f});
  p.head[6] = static_cast<std::uint32_t>(p.texcoords.size());
  p.groups[0].w[0] = 2;
  p.groups[0].w[11] = 0;
  p.groups[0].w[12] = 1;
  p.groups[0].w[13] = 0;
  test::write_bytes(dir + "/aaac.p", serialise_p(p));
  auto s = read_ok(dir + "/aaaa.hrc");
  ASSERT_EQ(s.textures.size(), 1u);
  ASSERT_EQ(s.meshes.size(), 1u);
  EXPECT_EQ(s.meshes[0].uvs.size(), 14u);
  EXPECT_EQ(s.materials[static_cast<std::size_t>(s.meshes[0].material)].texture, 0);
  glb_valid_file(dir + "/aaaa.hrc", "ff7_cloud_textured.glb");
}

TEST(Field, AnimationWithoutSkeletonNamesTheOption) {
  RIGRIP_REQUIRE_SAMPLE(anim, "ff7/field/aafe.a");
  auto dir = test::out_path("ff7_lonely_a");
  std::filesystem::create_directories(dir);
  test::write_bytes(dir + "/aafe.a", test::read_bytes(anim));
  auto s = ff7test::read_file(dir + "/aafe.a");
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().code, code::missing_skeleton);
  EXPECT_NE(s.error().message.find("--skeleton"), std::string::npos);
  read_options o;
  RIGRIP_REQUIRE_SAMPLE(hrc, "ff7/field/aaaa.hrc");
  o.skeleton_path = hrc;
  auto s2 = ff7test::read_file(dir + "/aafe.a", o);
  EXPECT_TRUE(s2.ok());
}
