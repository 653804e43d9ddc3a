// FVIS (bone / material visibility) and FSHU (texture SRT, shader parameter) animations
// from hand-built files (no shared sample holds any): raw layer and byte-identical
// rewrite, dump keys, decode into extras and bone visibility as STEP scale tracks, glb.
#include <algorithm>
#include <bit>
#include <cmath>
#include <filesystem>

#include <gtest/gtest.h>

#include "builder.hpp"
#include "core/failure.hpp"
#include "formats/bfres/decode.hpp"
#include "formats/bfres/decode_model.hpp"
#include "formats/bfres/fres.hpp"
#include "rigrip/gltf.hpp"
#include "test_support.hpp"

using namespace rigrip;
using namespace bfres_test;

namespace {

std::int64_t bits(float f) { return f32_bits(f); }

// Root -> Arm -> Hand (leaf), Root -> Hat (leaf).
std::vector<t_bone> rig() {
  std::vector<t_bone> b(4);
  b[0].name = "Root";
  b[1].name = "Arm", b[1].parent = 0, b[1].t[0] = 1;
  b[2].name = "Hand", b[2].parent = 1, b[2].t[0] = 1, b[2].s[0] = 2;
  b[3].name = "Hat", b[3].parent = 0, b[3].t[1] = 1;
  return b;
}

t_extras extras() {
  t_extras e;
  t_vis_anim v;
  v.name = "Blink";
  v.flags = 1 << 2;  // loop
  v.frame_count = 30;
  v.names = {"Hand", "Hat", "Arm", "Nope"};
  v.base = {true, false, true, true};
  t_curve c;  // Hand: shown, hidden at 10, shown at 20 (step bool, u8 frames, u32 bit words)
  c.flags = 2 | 0 << 2 | 6 << 4;
  c.target = 0;
  c.start = 0, c.end = 20;
  c.frames = {0, 10, 20};
  c.keys = {0b101};
  t_curve arm = c;  // Arm (has a child: not exact)
  arm.target = 2;
  arm.keys = {0b001};
  t_curve nope = c;  // a bone the skeleton lacks
  nope.target = 3;
  v.curves = {c, arm, nope};
  e.vis.push_back(v);
  t_vis_anim mv;
  mv.name = "HideMat";
  mv.flags = 1 << 8;  // material visibility
  mv.dict = 8;
  mv.frame_count = 10;
  mv.names = {"Mt_A"};
  mv.base = {false};
  e.vis.push_back(mv);
  t_param_anim p;
  p.name = "Scroll";
  p.dict = 5;  // texture SRT
  p.flags = 1 << 2;
  p.frame_count = 60;
  t_param_mat m;
  m.material = "Mt_A";
  t_param_info info;
  info.name = "tex_srt0";
  info.float_curves = 1;
  info.constants = 2;
  m.params = {info};
  t_curve tx;  // translate x: linear 0 -> 1 over 60 frames (u8 frames, f32 keys)
  tx.flags = 2 | 0 << 2 | 1 << 4;
  tx.target = 16;
  tx.start = 0, tx.end = 60;
  tx.frames = {0, 60};
  tx.keys = {bits(0), bits(1), bits(1), bits(0)};
  m.curves = {tx};
  m.constants = {{0, 0}, {4, static_cast<std::uint32_t>(bits(1.0f))}};  // mode Maya, scale x 1
  p.materials = {m};
  e.params.push_back(p);
  return e;
}

std::vector<std::uint8_t> build() { return build_fres(rig(), {}, 0x04050003, 0x1200, extras()); }

std::string write_tmp(const std::string& name, const std::vector<std::uint8_t>& bytes) {
  const std::string p = test::out_path(name);
  test::write_bytes(p, bytes);
  return p;
}

}  // namespace

TEST(MaterialAnims, RawLayerReadsFvisAndFshuAndRewritesIdentically) {
  const auto bytes = build();
  const bfres::file f = bfres::load(bytes);
  ASSERT_EQ(f.visibility_anims.size(), 2u);
  const auto& v = f.visibility_anims[0];
  EXPECT_EQ(v.name, "Blink");
  EXPECT_FALSE(v.material());
  EXPECT_TRUE(v.loop());
  EXPECT_EQ(v.frame_count, 30);
  EXPECT_EQ(v.names, (std::vector<std::string>{"Hand", "Hat", "Arm", "Nope"}));
  EXPECT_EQ(v.base, (std::vector<bool>{true, false, true, true}));
  ASSERT_EQ(v.curves.size(), 3u);
  EXPECT_EQ(v.curves[0].type(), bfres::curve_type::step_bool);
  EXPECT_EQ(v.curves[0].value(5), 1);
  EXPECT_EQ(v.curves[0].value(10), 0);
  EXPECT_EQ(v.curves[0].value(19.5), 0);
  EXPECT_EQ(v.curves[0].value(20), 1);
  EXPECT_TRUE(f.visibility_anims[1].material());
  EXPECT_EQ(f.visibility_anims[1].dict, 8);
  ASSERT_EQ(f.shader_param_anims.size(), 1u);
  const auto& p = f.shader_param_anims[0];
  EXPECT_EQ(p.dict, 5);
  EXPECT_EQ(p.frame_count, 60);
  ASSERT_EQ(p.materials.size(), 1u);
  const auto& m = p.materials[0];
  EXPECT_EQ(m.material, "Mt_A");
  ASSERT_EQ(m.params.size(), 1u);
  EXPECT_EQ(m.params[0].name, "tex_srt0");
  EXPECT_EQ(m.params[0].num_float_curves, 1);
  EXPECT_EQ(m.params[0].num_constants, 2);
  ASSERT_EQ(m.curves.size(), 1u);
  EXPECT_DOUBLE_EQ(m.curves[0].value(30), 0.5);
  ASSERT_EQ(m.constants.size(), 2u);
  EXPECT_EQ(m.constants[1].target, 4u);
  EXPECT_EQ(std::bit_cast<float>(m.constants[1].bits), 1.0f);
  // Read-only sections stay bytes: the rewrite is the input.
  EXPECT_EQ(bfres::serialise(f), bytes);
  // dump --raw: optional keys, present because the file has these animations.
  const auto j = bfres::to_json(f);
  ASSERT_TRUE(j.contains("visibility_animations"));
  EXPECT_EQ(j["visibility_animations"][0]["type"], "bone");
  EXPECT_EQ(j["visibility_animations"][1]["type"], "material");
  ASSERT_TRUE(j.contains("shader_param_animations"));
  EXPECT_EQ(j["shader_param_animations"][0]["kind"], "texture_srt");
  EXPECT_EQ(j["shader_param_animations"][0]["materials"][0]["params"][0]["name"], "tex_srt0");
  // A file without them has neither key (the contract only grows).
  EXPECT_FALSE(bfres::to_json(bfres::load(build_fres(rig(), {}))).contains("visibility_animations"));
}

TEST(MaterialAnims, DamageIsAClearError) {
  auto bytes = build();
  const bfres::file f = bfres::load(bytes);
  // A visibility curve aimed past the name list.
  auto b1 = bytes;
  const std::uint32_t tgt = f.visibility_anims[0].curves[2].at + 4;
  b1[tgt + 3] = 9;
  try {
    (void)bfres::load(b1);
    FAIL() << "accepted a curve target beyond the names";
  } catch (const core::failure& e) {
    EXPECT_EQ(e.error().code, code::bad_value);
    EXPECT_NE(e.error().message.find("targets animation 9 of 4"), std::string::npos) << e.error().message;
    EXPECT_EQ(e.error().offset, tgt);
  }
  // A parameter claiming more curves than its material has.
  auto b2 = bytes;
  const std::uint32_t info_at = f.shader_param_anims[0].materials[0].at + 0x20;  // infos follow the 0x20 header
  b2[info_at + 3] = 5;  // float curve count 5
  try {
    (void)bfres::load(b2);
    FAIL() << "accepted curves beyond the material's";
  } catch (const core::failure& e) {
    EXPECT_EQ(e.error().code, code::bad_value);
    EXPECT_NE(e.error().message.find("tex_srt0"), std::string::npos) << e.error().message;
  }
  // Every truncation is refused cleanly (no read past the buffer).
  for (std::size_t n = 0x6C; n < bytes.size(); n += 7) {
    std::vector<std::uint8_t> cut(bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(n));
    try {
      (void)bfres::load(cut);
    } catch (const core::failure&) {
    }
  }
}

// Through read_scene: no meshes are loaded, so no bone can be hidden by a scale without
// risking more than the game hides; everything lands in metadata, with a warning.
TEST(MaterialAnims, DecodeKeepsEverythingInExtras) {
  const std::string path = write_tmp("bfres_material_anims.bfres", build());
  diagnostics d;
  auto r = read_scene(path, {}, d);
  ASSERT_TRUE(r) << r.error().to_string();
  const scene& s = r.value();
  EXPECT_TRUE(s.animations.empty());
  ASSERT_TRUE(s.metadata.contains("material_and_visibility_animations"));
  const auto& all = s.metadata["material_and_visibility_animations"];
  ASSERT_EQ(all.size(), 3u);
  const auto& scroll = all[0];
  EXPECT_EQ(scroll["kind"], "texture_srt_animation");
  const auto& ch = scroll["materials"][0]["params"][0]["channels"];
  ASSERT_EQ(ch.size(), 3u);
  EXPECT_EQ(ch[0]["component"], "translate_x");
  EXPECT_EQ(ch[0]["interpolation"], "linear");
  EXPECT_DOUBLE_EQ(ch[0]["keys"][1]["value"].get<double>(), 1.0);
  EXPECT_EQ(ch[1]["component"], "mode");
  EXPECT_EQ(ch[1]["constant"], 0);
  EXPECT_EQ(ch[2]["component"], "scale_x");
  EXPECT_EQ(ch[2]["constant"], 1.0);
  const auto& blink = all[1];
  EXPECT_EQ(blink["kind"], "bone_visibility_animation");
  const auto& hand = blink["entries"][0]["keys"];
  ASSERT_EQ(hand.size(), 3u);
  EXPECT_EQ(hand[1]["frame"], 10.0);
  EXPECT_EQ(hand[1]["visible"], false);
  EXPECT_EQ(blink["entries"][1]["keys"][0]["visible"], false);  // Hat: base value, hidden
  EXPECT_EQ(all[2]["kind"], "material_visibility_animation");
  EXPECT_TRUE(std::any_of(d.warnings.begin(), d.warnings.end(), [](const warning& w) {
    return w.code == code::w_lossy && w.message.find("Blink") != std::string::npos;
  }));
}

// With the model's meshes present: a leaf bone that only carries a rigid mesh is hidden
// exactly by a STEP scale to zero; a bone with children, or one skinned vertices follow,
// stays in extras. The glb validates with no warning.
TEST(MaterialAnims, BoneVisibilityBecomesStepScaleWhereExact) {
  const bfres::file f = bfres::load(build());
  scene s;
  s.format = "bfres";
  skeleton sk;
  sk.name = "Skeleton";
  for (const auto& b : rig()) {
    bone x;
    x.name = b.name;
    x.parent = b.parent;
    x.translation = {b.t[0], b.t[1], b.t[2]};
    x.scale = {b.s[0], b.s[1], b.s[2]};
    sk.bones.push_back(x);
  }
  s.skeletons.push_back(sk);
  auto box = [](const std::string& name, int bone) {
    mesh m;
    m.name = name;
    m.skeleton = 0;
    m.bone = bone;
    m.positions = {{0, 0, 0}, {0.1f, 0, 0}, {0, 0.1f, 0}};
    m.indices = {0, 1, 2};
    m.extras = {{"bone", bone}};
    return m;
  };
  s.meshes = {box("glove", 2), box("hat", 3)};
  mesh skin = box("body", 0);  // skinned to Root only
  skin.bone = -1;
  skin.joints.assign(3, {0, 0, 0, 0});
  skin.weights.assign(3, {1, 0, 0, 0});
  s.meshes.push_back(skin);
  read_context ctx;
  diagnostics d;
  ctx.diags = &d;
  bfres::add_material_animations(f, ctx, 30.0, s);
  ASSERT_EQ(s.animations.size(), 1u);
  const animation& a = s.animations[0];
  EXPECT_EQ(a.name, "Blink");
  EXPECT_DOUBLE_EQ(a.duration, 1.0);
  ASSERT_EQ(a.tracks.size(), 2u);  // Hand, Hat
  const track& hand = a.tracks[0];
  EXPECT_EQ(hand.bone, "Hand");
  EXPECT_EQ(hand.path, path::scale);
  EXPECT_EQ(hand.interpolation, interpolation::step);
  ASSERT_EQ(hand.times.size(), 3u);
  EXPECT_FLOAT_EQ(hand.times[1], 10.0f / 30);
  EXPECT_EQ(hand.values, (std::vector<float>{2, 1, 1, 0, 0, 0, 2, 1, 1}));  // rest scale (2,1,1) / 0
  EXPECT_EQ(a.tracks[1].bone, "Hat");
  EXPECT_EQ(a.tracks[1].values, (std::vector<float>{0, 0, 0}));
  const auto& vis = a.extras["bone_visibility"];
  EXPECT_EQ(vis["scale_tracks"], (nlohmann::json{"Hand", "Hat"}));
  ASSERT_EQ(vis["not_as_tracks"].size(), 2u);
  EXPECT_EQ(vis["not_as_tracks"][0]["bone"], "Arm");
  EXPECT_NE(vis["not_as_tracks"][0]["reason"].get<std::string>().find("children"), std::string::npos);
  EXPECT_EQ(vis["not_as_tracks"][1]["bone"], "Nope");
  ASSERT_TRUE(s.validate());
  gltf::write_options go;
  diagnostics wd;
  const std::string out = test::out_path("bfres_bone_visibility.glb");
  auto w = gltf::write_file(s, out, go, wd);
  ASSERT_TRUE(w) << w.error().to_string();
  std::string report;
  const int errors = test::gltf_validator_errors(out, &report);
  if (errors < 0) GTEST_SKIP() << "node/gltf-validator not available";
  EXPECT_EQ(errors, 0) << report;
  EXPECT_NE(report.find(" 0 warnings"), std::string::npos) << report;
}

// Material-level animations go into the materials' extras when the material is in the scene.
TEST(MaterialAnims, MaterialExtrasCarryTheirAnimations) {
  const bfres::file f = bfres::load(build());
  scene s;
  material m;
  m.name = "Mt_A";
  s.materials.push_back(m);
  read_context ctx;
  diagnostics d;
  ctx.diags = &d;
  bfres::add_material_animations(f, ctx, 30.0, s);
  const auto& ex = s.materials[0].extras;
  ASSERT_TRUE(ex.contains("shader_param_animations"));
  EXPECT_EQ(ex["shader_param_animations"][0]["animation"], "Scroll");
  EXPECT_EQ(ex["shader_param_animations"][0]["params"][0]["name"], "tex_srt0");
  ASSERT_TRUE(ex.contains("visibility_animations"));
  EXPECT_EQ(ex["visibility_animations"][0]["keys"][0]["visible"], false);
}

// A texture SRT scroll (Maya mode, uniform scale, no rotation) on a material in the scene
// becomes glTF texture-transform tracks through KHR_animation_pointer: offset = (-tx, ty)
// here (the runtime's Maya matrix), sampled at every frame; the glb validates with no warning.
TEST(MaterialAnims, TextureSrtBecomesKhrTextureTransformTracks) {
  const bfres::file f = bfres::load(build());
  scene s;
  s.format = "bfres";
  skeleton sk;
  sk.name = "Skeleton";
  sk.bones.push_back(bone{"Root"});
  s.skeletons.push_back(sk);
  s.textures.push_back(texture{"t", 1, 1, {200, 100, 50, 255}});
  material m;
  m.name = "Mt_A";
  m.texture = 0;
  s.materials.push_back(m);
  mesh me;
  me.name = "quad";
  me.skeleton = 0;
  me.bone = 0;
  me.material = 0;
  me.positions = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}};
  me.uvs = {{0, 0}, {1, 0}, {0, 1}};
  me.indices = {0, 1, 2};
  s.meshes.push_back(me);
  read_context ctx;
  diagnostics d;
  ctx.diags = &d;
  bfres::add_material_animations(f, ctx, 30.0, s);
  const animation* scroll = nullptr;
  for (const auto& a : s.animations)
    if (a.name == "Scroll") scroll = &a;
  ASSERT_TRUE(scroll);
  ASSERT_EQ(scroll->material_tracks.size(), 1u);  // offset only: no rotation, unit scale
  const auto& t = scroll->material_tracks[0];
  EXPECT_EQ(t.property, material_track::target::offset);
  EXPECT_EQ(t.texcoord, 0);  // tex_srt0
  ASSERT_EQ(t.times.size(), 61u);
  EXPECT_NEAR(t.values[2 * 30], -0.5f, 1e-6);
  EXPECT_NEAR(t.values[2 * 30 + 1], 0.0f, 1e-6);
  EXPECT_NEAR(t.values[2 * 60], -1.0f, 1e-6);
  EXPECT_EQ(scroll->extras["material_animation"]["texture_srt"][0]["gltf"], "KHR_texture_transform");
  ASSERT_TRUE(s.validate());
  gltf::write_options go;
  diagnostics wd;
  const std::string out = test::out_path("bfres_texture_srt.glb");
  auto w = gltf::write_file(s, out, go, wd);
  ASSERT_TRUE(w) << w.error().to_string();
  const auto glb = test::read_bytes(out);
  const std::string text(glb.begin(), glb.end());
  EXPECT_NE(text.find("KHR_texture_transform/offset"), std::string::npos);
  EXPECT_EQ(text.find("\"node\":-1"), std::string::npos);
  std::string report;
  const int errors = test::gltf_validator_errors(out, &report);
  if (errors < 0) GTEST_SKIP() << "node/gltf-validator not available";
  EXPECT_EQ(errors, 0) << report;
  EXPECT_NE(report.find(" 0 warnings"), std::string::npos) << report;
}
