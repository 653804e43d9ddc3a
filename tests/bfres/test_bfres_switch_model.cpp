// Switch models (src/formats/bfres/fres_switch_model.cpp): a hand-built little-endian
// model (tests/bfres/switch_model_builder.hpp) in every layout 0.5 to 0.10, its decoded
// scene against the values written and against the same model written as a Wii U file,
// the byte-identical rewrite, a valid glb, and damage cases that must fail cleanly.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <filesystem>

#include "bntx_builder.hpp"
#include "core/failure.hpp"
#include "formats/bfres/decode.hpp"
#include "formats/bfres/fres.hpp"
#include "formats/bfres/fres_detail.hpp"
#include "rigrip/gltf.hpp"
#include "rigrip/registry.hpp"
#include "switch_model_builder.hpp"
#include "test_support.hpp"

using namespace rigrip;
using bfres_test::build_switch_model;
using bfres_test::build_wiiu_model;
using bfres_test::sample_model;

namespace {

const mesh* find_mesh(const scene& s, const std::string& name) {
  for (const auto& m : s.meshes)
    if (m.name == name) return &m;
  return nullptr;
}

scene read_ok(const std::vector<std::uint8_t>& d, const std::string& name, diagnostics& diags) {
  auto r = read_scene(d, name, read_options{}, diags);
  if (!r) {
    ADD_FAILURE() << r.error().to_string();
    return {};
  }
  return std::move(r.value());
}

// The error of reading `d` through the registry (a default error when it reads).
error read_error(const std::vector<std::uint8_t>& d) {
  diagnostics diags;
  auto r = read_scene(d, "damaged.bfres", read_options{}, diags);
  if (r) return error{};
  return r.error();
}
void expect_error(const std::vector<std::uint8_t>& d, code c, const std::string& text) {
  const error e = read_error(d);
  EXPECT_EQ(e.code, c) << e.to_string();
  EXPECT_NE(e.message.find(text), std::string::npos) << e.to_string();
}

// A Switch model file of any layout version read without the header parser (which
// only takes 0.5-0.8 until the 0.9+ header lands): the models part and the decoder.
bfres::file parse_models_only(const std::vector<std::uint8_t>& d) {
  bfres::file f;
  f.image = d;
  f.plat = bfres::platform::switch_;
  std::memcpy(&f.version, d.data() + 8, 4);
  bfres::detail::reset_work(d.size());
  const core::byte_reader r(f.image, core::endian::little);
  bfres::detail::parse_switch_models(r, f);
  return f;
}

void patch32(std::vector<std::uint8_t>& d, std::size_t at, std::uint32_t v) {
  std::memcpy(d.data() + at, &v, 4);
}
void patch16(std::vector<std::uint8_t>& d, std::size_t at, std::uint16_t v) {
  std::memcpy(d.data() + at, &v, 2);
}

void expect_vec_near(const std::array<float, 3>& a, const std::array<float, 3>& b, float tol) {
  for (std::size_t k = 0; k < 3; ++k) EXPECT_NEAR(a[k], b[k], tol) << "component " << k;
}

TEST(SwitchModel, RawLayerReadsSkeletonShapesAndMaterials) {
  const auto d = build_switch_model(sample_model());
  const auto f = bfres::parse(d);
  ASSERT_EQ(f.models.size(), 1u);
  const auto& m = f.models[0];
  EXPECT_EQ(m.name, "Sample");
  ASSERT_TRUE(m.skel);
  const auto& sk = *m.skel;
  EXPECT_EQ(sk.flags, 0x1200u);
  ASSERT_EQ(sk.bones.size(), 3u);
  EXPECT_EQ(sk.bones[1].name, "Spine");
  EXPECT_EQ(sk.bones[1].parent, 0);
  EXPECT_EQ(sk.bones[2].parent, 1);
  EXPECT_FLOAT_EQ(sk.bones[1].translate[1], 2.0f);
  EXPECT_FLOAT_EQ(sk.bones[1].rotate[2], 1.5707963f);
  EXPECT_TRUE(sk.bones[1].euler());
  EXPECT_EQ(sk.num_smooth, 2);
  EXPECT_EQ(sk.num_rigid, 1);
  EXPECT_EQ(sk.mtx_to_bone, (std::vector<std::int16_t>{0, 1, 2}));
  EXPECT_EQ(sk.inverse_matrices.size(), 2u);
  ASSERT_EQ(m.vertex_buffers.size(), 3u);
  EXPECT_EQ(m.vertex_buffers[0].vertex_count, 4u);
  EXPECT_EQ(m.vertex_buffers[0].skin_count, 2);
  ASSERT_EQ(m.vertex_buffers[0].buffers.size(), 2u);
  EXPECT_EQ(m.vertex_buffers[0].buffers[0].stride, 20);  // f32x3 + 10_10_10_2 + snorm8x4
  EXPECT_EQ(m.vertex_buffers[0].buffers[1].stride, 12);  // unorm16x2 + u8x4 + unorm8x4
  EXPECT_EQ(m.vertex_buffers[0].attribs[0].format, 0x1805u);
  ASSERT_EQ(m.shapes.size(), 3u);
  EXPECT_EQ(m.shapes[0].name, "Body");
  EXPECT_EQ(m.shapes[1].skin_count, 1);
  EXPECT_EQ(m.shapes[2].bone, 1);
  ASSERT_EQ(m.shapes[1].meshes.size(), 1u);
  ASSERT_EQ(m.shapes[0].meshes.size(), 2u);
  EXPECT_EQ(m.shapes[0].meshes[1].index_count, 3u);
  EXPECT_EQ(m.shapes[0].radius.size(), 2u);
  EXPECT_EQ(m.shapes[1].meshes[0].index_format, 2u);  // u32
  EXPECT_EQ(m.shapes[0].meshes[0].index_format, 1u);  // u16
  EXPECT_EQ(m.shapes[0].meshes[0].primitive, 3u);     // triangle list
  EXPECT_EQ(m.shapes[0].meshes[0].index_count, 6u);
  ASSERT_EQ(m.materials.size(), 1u);
  const auto& mt = m.materials[0];
  EXPECT_EQ(mt.name, "Mat_Body");
  ASSERT_EQ(mt.textures.size(), 1u);
  EXPECT_EQ(mt.textures[0].name, "Body_Alb");
  ASSERT_EQ(mt.samplers.size(), 1u);
  EXPECT_EQ(mt.samplers[0].name, "_a0");
  EXPECT_EQ(mt.samplers[0].wrap_u(), 0);
  EXPECT_EQ(mt.samplers[0].mag_filter(), 1);
  EXPECT_EQ(mt.shader_archive, "uking_mat");
  ASSERT_EQ(mt.params.size(), 1u);
  EXPECT_EQ(mt.params[0].name, "gsys_color0");
  EXPECT_EQ(mt.params[0].type, 15);
  EXPECT_EQ(mt.params[0].value, nlohmann::json({0.25, 0.5, 0.75, 1.0}));
  ASSERT_EQ(mt.render_info.size(), 1u);
  EXPECT_EQ(mt.render_info[0].second[0], "opaque");
  // Models are read, never written: the rewrite is the file.
  EXPECT_EQ(bfres::serialise(f), d);
  diagnostics diags;
  auto rw = rewrite(d, "sample.bfres", read_options{}, diags);
  ASSERT_TRUE(rw) << rw.error().to_string();
  EXPECT_EQ(*rw, d);
  // dump --raw lists the model and its skeleton.
  const auto j = bfres::to_json(f);
  EXPECT_EQ(j["models"][0]["name"], "Sample");
  EXPECT_EQ(j["models"][0]["skeleton"]["bones"].size(), 3u);
}

TEST(SwitchModel, SceneHasTheValuesWritten) {
  const auto d = build_switch_model(sample_model());
  diagnostics diags;
  const scene s = read_ok(d, "Sample.bfres", diags);
  for (const auto& w : diags.warnings)
    EXPECT_EQ(w.message.find("models (FMDL)"), std::string::npos) << w.message;
  ASSERT_EQ(s.skeletons.size(), 1u);
  const auto& sk = s.skeletons[0];
  ASSERT_EQ(sk.bones.size(), 3u);
  EXPECT_EQ(sk.bones[2].name, "Head");
  EXPECT_EQ(sk.bones[2].parent, 1);
  expect_vec_near(sk.bones[1].translation, {0, 2, 0}, 0);
  EXPECT_NEAR(sk.bones[1].rotation[2], std::sin(1.5707963f / 2), 1e-6);  // Euler z 90 degrees
  EXPECT_NEAR(sk.bones[1].rotation[3], std::cos(1.5707963f / 2), 1e-6);
  ASSERT_EQ(s.meshes.size(), 3u);

  const mesh* body = find_mesh(s, "Body");
  ASSERT_TRUE(body);
  EXPECT_EQ(body->indices, (std::vector<std::uint32_t>{0, 1, 2, 2, 1, 3}));
  ASSERT_EQ(body->positions.size(), 4u);
  expect_vec_near(body->positions[3], {1, 1, 0.5f}, 0);
  ASSERT_EQ(body->normals.size(), 4u);
  expect_vec_near(body->normals[2], {0, 1, 0}, 1e-6f);
  expect_vec_near(body->normals[3], {1, 0, 0}, 1e-6f);
  ASSERT_EQ(body->tangents.size(), 4u);  // _t0: unit, w from the file
  EXPECT_EQ(body->tangents[0], (vec4{1, 0, 0, 1}));
  EXPECT_EQ(body->tangents[3], (vec4{0, 1, 0, -1}));
  EXPECT_EQ(body->extras["tangents"], "_t0 (w)");
  ASSERT_EQ(body->uvs.size(), 4u);
  EXPECT_NEAR(body->uvs[3][0], 0.5f, 1.0f / 65535);
  EXPECT_NEAR(body->uvs[3][1], 0.25f, 1.0f / 65535);
  EXPECT_EQ(body->skeleton, 0);
  ASSERT_EQ(body->joints.size(), 4u);
  EXPECT_EQ(body->joints[0][0], 0);
  EXPECT_FLOAT_EQ(body->weights[0][0], 1.0f);
  EXPECT_EQ(body->joints[1][0], 1);  // 0.6 on the Spine, 0.4 on the Root
  EXPECT_EQ(body->joints[1][1], 0);
  EXPECT_NEAR(body->weights[1][0], 0.6f, 1e-6);
  EXPECT_NEAR(body->weights[1][1], 0.4f, 1e-6);
  EXPECT_EQ(body->joints[2][0], 1);  // sorted: 0.8 first
  EXPECT_NEAR(body->weights[2][0], 0.8f, 1e-6);
  EXPECT_EQ(body->joints[3][0], 1);

  // Rigid: vertices in the Head's space, moved to the model's (Head at (-1, 2, 0), turned 90
  // degrees).
  const mesh* hat = find_mesh(s, "Hat");
  ASSERT_TRUE(hat);
  ASSERT_EQ(hat->positions.size(), 3u);
  expect_vec_near(hat->positions[0], {-1, 2, 0}, 1e-6f);
  expect_vec_near(hat->positions[1], {-1, 2.5f, 0}, 1e-6f);
  expect_vec_near(hat->normals[1], {0, 0, 1}, 1e-6f);
  EXPECT_FLOAT_EQ(hat->uvs[2][1], 0.75f);  // f16
  ASSERT_EQ(hat->joints.size(), 3u);
  EXPECT_EQ(hat->joints[0][0], 2);
  EXPECT_FLOAT_EQ(hat->weights[0][0], 1.0f);

  // Skin count 0: bound to the shape's bone.
  const mesh* prop = find_mesh(s, "Prop");
  ASSERT_TRUE(prop);
  EXPECT_EQ(prop->bone, 1);
  EXPECT_TRUE(prop->joints.empty());

  // The material names its texture; no texture file is at hand: a warning, not an error.
  ASSERT_EQ(s.materials.size(), 1u);
  EXPECT_EQ(s.materials[0].name, "Mat_Body");
  EXPECT_EQ(s.materials[0].extras["textures"][0]["name"], "Body_Alb");
  EXPECT_EQ(s.materials[0].extras["shader_archive"], "uking_mat");
  bool missing = false;
  for (const auto& w : diags.warnings)
    missing = missing || (w.code == code::w_missing_texture &&
                          w.message.find("Body_Alb") != std::string::npos);
  EXPECT_TRUE(missing);
}

// Meshes, skeleton and materials of two scenes are the same.
void expect_same_scene(const scene& a, const scene& b) {
  ASSERT_EQ(a.meshes.size(), b.meshes.size());
  for (std::size_t i = 0; i < a.meshes.size(); ++i) {
    const auto& x = a.meshes[i];
    const auto& y = b.meshes[i];
    SCOPED_TRACE(x.name);
    EXPECT_EQ(x.name, y.name);
    EXPECT_EQ(x.indices, y.indices);
    EXPECT_EQ(x.positions, y.positions);
    EXPECT_EQ(x.normals, y.normals);
    EXPECT_EQ(x.tangents, y.tangents);
    EXPECT_EQ(x.uvs, y.uvs);
    EXPECT_EQ(x.joints, y.joints);
    EXPECT_EQ(x.weights, y.weights);
    EXPECT_EQ(x.bone, y.bone);
    EXPECT_EQ(x.skeleton, y.skeleton);
    EXPECT_EQ(x.material, y.material);
  }
  ASSERT_EQ(a.skeletons.size(), b.skeletons.size());
  for (std::size_t k = 0; k < a.skeletons.size(); ++k) {
    ASSERT_EQ(a.skeletons[k].bones.size(), b.skeletons[k].bones.size());
    for (std::size_t i = 0; i < a.skeletons[k].bones.size(); ++i) {
      const auto& p = a.skeletons[k].bones[i];
      const auto& q = b.skeletons[k].bones[i];
      EXPECT_EQ(p.name, q.name);
      EXPECT_EQ(p.parent, q.parent);
      EXPECT_EQ(p.translation, q.translation);
      EXPECT_EQ(p.rotation, q.rotation);
      EXPECT_EQ(p.scale, q.scale);
    }
  }
  ASSERT_EQ(a.materials.size(), b.materials.size());
  for (std::size_t i = 0; i < a.materials.size(); ++i) {
    EXPECT_EQ(a.materials[i].name, b.materials[i].name);
    EXPECT_EQ(a.materials[i].extras["textures"][0]["name"],
              b.materials[i].extras["textures"][0]["name"]);
    EXPECT_EQ(a.materials[i].extras["textures"][0]["wrap"],
              b.materials[i].extras["textures"][0]["wrap"]);
    EXPECT_EQ(a.materials[i].extras["render_info"], b.materials[i].extras["render_info"]);
    EXPECT_EQ(a.materials[i].extras["shader_params"], b.materials[i].extras["shader_params"]);
    EXPECT_EQ(a.materials[i].alpha_mode, b.materials[i].alpha_mode);
  }
}

TEST(SwitchModel, SameSceneAsTheWiiUModel) {
  const auto model = sample_model();
  const auto sw = build_switch_model(model);
  const auto wu = build_wiiu_model(model);
  ASSERT_EQ(bfres::detect_platform(wu), bfres::platform::wiiu);
  diagnostics d1, d2;
  const scene a = read_ok(sw, "Sample.bfres", d1);
  const scene b = read_ok(wu, "Sample.bfres", d2);
  EXPECT_EQ(a.metadata["platform"], "switch");
  EXPECT_EQ(b.metadata["platform"], "wiiu");
  expect_same_scene(a, b);
}

TEST(SwitchModel, LodOptionPicksTheMeshLikeOnWiiU) {
  const auto model = sample_model();
  read_options o;
  o.lod = 1;
  diagnostics d1, d2;
  auto a = read_scene(build_switch_model(model), "Sample.bfres", o, d1);
  auto b = read_scene(build_wiiu_model(model), "Sample.bfres", o, d2);
  ASSERT_TRUE(a) << a.error().to_string();
  ASSERT_TRUE(b) << b.error().to_string();
  const mesh* body = find_mesh(a.value(), "Body");
  ASSERT_TRUE(body);
  EXPECT_EQ(body->extras["lod"], 1);
  EXPECT_EQ(body->extras["lod_count"], 2);
  EXPECT_EQ(body->positions.size(), 3u);  // vertices 0, 1, 3
  expect_vec_near(body->positions[2], {1, 1, 0.5f}, 0);
  expect_same_scene(a.value(), b.value());
  bool clamped = false;
  for (const auto& w : d1.warnings)
    clamped = clamped || w.message.find("--lod 1 is beyond") != std::string::npos;
  EXPECT_TRUE(clamped);  // Hat and Prop have one LOD
}

TEST(SwitchModel, EveryLayoutVersionDecodesTheSame) {
  const auto model = sample_model();
  diagnostics diags;
  const scene ref = read_ok(build_wiiu_model(model), "Sample.bfres", diags);
  for (std::uint32_t v :
       {0x00050003u, 0x00060000u, 0x00070001u, 0x00080000u, 0x00090000u, 0x000A0000u}) {
    SCOPED_TRACE(std::to_string(v >> 16));
    const auto d = build_switch_model(model, v);
    const bfres::file f = parse_models_only(d);
    ASSERT_EQ(f.models.size(), 1u);
    ASSERT_TRUE(f.models[0].skel);
    EXPECT_EQ(f.models[0].skel->bones.size(), 3u);
    EXPECT_EQ(f.models[0].skel->flags, 0x1200u);
    EXPECT_EQ(f.models[0].materials[0].textures[0].name, "Body_Alb");
    EXPECT_EQ(f.models[0].materials[0].samplers[0].name, "_a0");
    read_context ctx;
    ctx.path = "Sample.bfres";
    ctx.diags = &diags;
    scene s = bfres::to_scene(f, ctx);
    expect_same_scene(s, ref);
    {  // the header parser takes every version whole
      const auto full = bfres::parse(d);
      EXPECT_EQ(full.models.size(), 1u);
      EXPECT_EQ(bfres::serialise(full), d);
    }
  }
}

TEST(SwitchModel, Version08SkeletonsOfEitherNotesAreRead) {
  // 0.8: bfrespy reads 16 reserved bytes in the FSKL and in each bone, BfresLibrary none.
  // The reader takes the version's choice and falls back to the other one when only it is
  // consistent (bone count = dictionary count, bone index fields 0, 1, 2 ...).
  diagnostics diags;
  const scene ref = read_ok(build_wiiu_model(sample_model()), "Sample.bfres", diags);
  for (int gap : {16, 0}) {
    SCOPED_TRACE(gap);
    auto m = sample_model();
    m.skeleton_gap = gap, m.bone_gap = gap;
    const auto d = build_switch_model(m, 0x00080000);
    const auto f = bfres::parse(d);
    ASSERT_TRUE(f.models[0].skel);
    EXPECT_EQ(f.models[0].skel->bones.size(), 3u);
    EXPECT_EQ(f.models[0].skel->flags, 0x1200u);
    EXPECT_EQ(f.models[0].skel->bones[2].name, "Head");
    expect_same_scene(read_ok(d, "Sample.bfres", diags), ref);
  }
  // 0.5 written with 0.8's 16-byte gaps is read too (the other way round).
  auto m = sample_model();
  m.skeleton_gap = 16, m.bone_gap = 16;
  expect_same_scene(read_ok(build_switch_model(m), "Sample.bfres", diags), ref);
}

TEST(SwitchModel, SamplerAndTextureCountsFollowTheSamplerDictionary) {
  auto d = build_switch_model(sample_model());
  const auto mat = bfres::parse(d).models[0].materials[0].at;
  const std::size_t counts =
      mat + 0x10 + 0x90 + 4 + 4;  // after the flags, index, render-info count
  ASSERT_EQ(d[counts], 1);
  d[counts] = 0, d[counts + 1] = 1;  // 0 samplers, 1 texture: the dictionary names 1 sampler
  const auto f = bfres::parse(d);
  EXPECT_EQ(f.models[0].materials[0].samplers.size(), 1u);
  EXPECT_EQ(f.models[0].materials[0].textures.size(), 0u);
}

TEST(SwitchModel, GlbIsValidAndTheExampleIsCurrent) {
  const auto d = build_switch_model(sample_model());
  diagnostics diags;
  const scene s = read_ok(d, "switch_model.bfres", diags);
  auto enc = gltf::write(s, {}, diags);
  ASSERT_TRUE(enc) << enc.error().to_string();
  const std::string p = test::out_path("bfres/switch_model.glb");
  test::write_bytes(p, enc->main);
  std::string report;
  const int errors = test::gltf_validator_errors(p, &report);
  if (errors < 0) GTEST_SKIP() << "gltf-validator (node) not available";
  EXPECT_EQ(errors, 0) << report;
  // The committed example (CLI tests convert it) is this writer's output.
  const std::string example = std::string(RIGRIP_SOURCE_DIR) + "/examples/bfres/switch_model.bfres";
  ASSERT_TRUE(std::filesystem::exists(example)) << example;
  EXPECT_EQ(test::read_bytes(example), d)
      << "regenerate " << example << " from build_switch_model(sample_model())";
}

// A 4x4 RGBA8 BNTX holding the material's albedo "Body_Alb" (red, opaque).
std::vector<std::uint8_t> albedo_bntx(const std::string& name = "Body_Alb") {
  bntx_test::tex t;
  t.name = name;
  t.format = 0x0b01;  // R8G8B8A8 unorm
  t.width = 4, t.height = 4, t.bytes = 4;
  std::vector<std::uint8_t> px;
  for (int i = 0; i < 16; ++i) px.insert(px.end(), {255, 0, 0, 255});
  t.levels = {px};
  return bntx_test::build({t}, "textures");
}

void expect_red_albedo(const scene& s) {
  ASSERT_EQ(s.materials.size(), 1u);
  const int ti = s.materials[0].texture;
  ASSERT_GE(ti, 0);
  const auto& t = s.textures[static_cast<std::size_t>(ti)];
  EXPECT_EQ(t.name, "Body_Alb");
  EXPECT_EQ(t.width, 4u);
  ASSERT_EQ(t.rgba.size(), 64u);
  EXPECT_EQ(t.rgba[0], 255);
  EXPECT_EQ(t.rgba[1], 0);
  EXPECT_EQ(t.rgba[3], 255);
  EXPECT_EQ(t.wrap_s, texture_wrap::repeat);
  EXPECT_EQ(t.mag_filter, texture_filter::linear);
}

TEST(SwitchModelTextures, EmbeddedBntxGivesTheMaterialItsTexture) {
  const auto d = build_switch_model(sample_model(), 0x00050003, {{"textures.bntx", albedo_bntx()}});
  EXPECT_EQ(bfres::serialise(bfres::parse(d)), d);
  diagnostics diags;
  const scene s = read_ok(d, "Sample.bfres", diags);
  expect_red_albedo(s);
  for (const auto& w : diags.warnings) {
    EXPECT_NE(w.code, code::w_missing_texture) << w.message;
    EXPECT_EQ(w.message.find("embedded files"), std::string::npos) << w.message;
  }
  auto enc = gltf::write(s, {}, diags);
  ASSERT_TRUE(enc) << enc.error().to_string();
  const std::string p = test::out_path("bfres/switch_model_textured.glb");
  test::write_bytes(p, enc->main);
  std::string report;
  const int errors = test::gltf_validator_errors(p, &report);
  if (errors >= 0) EXPECT_EQ(errors, 0) << report;
}

TEST(SwitchModelTextures, EmbeddedBntxPaddedPastItsOwnSize) {
  auto bntx = albedo_bntx();
  bntx.resize(bntx.size() + 0x40, 0);  // the embedded entry is longer than the BNTX
  const auto d = build_switch_model(sample_model(), 0x00050003, {{"textures.bntx", bntx}});
  diagnostics diags;
  expect_red_albedo(read_ok(d, "Sample.bfres", diags));
}

TEST(SwitchModelTextures, SiblingTextureFileAndBareBntx) {
  const std::string dir = test::out_path("bfres/switch_model_sibling");
  std::filesystem::create_directories(dir);
  const std::string model = dir + "/Sample.bfres";
  test::write_bytes(model, build_switch_model(sample_model()));
  // X.Tex.sbfres: a Switch FRES whose embedded textures.bntx holds the texture (written by
  // this file's builder, whose one-entry dictionaries are valid Patricia trees; the texture
  // lookup takes any Switch FRES's embedded BNTX, with or without models).
  bfres_test::t_model tex_model = sample_model();
  tex_model.name = "Sample.Tex";
  test::write_bytes(dir + "/Sample.Tex.sbfres",
                    build_switch_model(tex_model, 0x00050003, {{"textures.bntx", albedo_bntx()}}));
  {
    diagnostics diags;
    auto r = read_scene(model, read_options{}, diags);
    ASSERT_TRUE(r) << r.error().to_string();
    expect_red_albedo(r.value());
    EXPECT_EQ(r.value().textures[0].extras["source_file"], "Sample.Tex.sbfres");
  }
  std::filesystem::remove(dir + "/Sample.Tex.sbfres");
  // --texture-file with a bare .bntx.
  test::write_bytes(dir + "/other.bntx", albedo_bntx());
  read_options o;
  o.texture_paths = {dir + "/other.bntx"};
  diagnostics diags;
  auto r = read_scene(model, o, diags);
  ASSERT_TRUE(r) << r.error().to_string();
  expect_red_albedo(r.value());
  // A damaged embedded BNTX is a warning; the meshes still convert.
  auto bad = albedo_bntx();
  bad[0x1C] ^= 0x40;  // the BNTX's file size
  const auto d = build_switch_model(sample_model(), 0x00050003, {{"textures.bntx", bad}});
  diagnostics d2;
  const scene s = read_ok(d, "Sample.bfres", d2);
  EXPECT_EQ(s.meshes.size(), 3u);
  EXPECT_EQ(s.materials[0].texture, -1);
}

TEST(SwitchModel, AnimationInTheSameFileBindsToItsSkeleton) {
  bfres_test::t_const_anim a;
  a.name = "Nod";
  a.bone = "Spine";
  a.base = {1, 1, 1, 0, 0, 0, 1, 0, 3, 0};  // S 1, R 0 (Euler), T (0, 3, 0)
  const auto d = build_switch_model(sample_model(), 0x00050003, {}, {a});
  const auto f = bfres::parse(d);
  ASSERT_EQ(f.anims.size(), 1u);
  ASSERT_EQ(f.models.size(), 1u);
  EXPECT_EQ(bfres::serialise(f), d);
  diagnostics diags;
  const scene s = read_ok(d, "Sample.bfres", diags);
  ASSERT_EQ(s.skeletons.size(), 1u);
  EXPECT_EQ(s.skeletons[0].bones.size(), 3u);  // the model's FSKL, not bones made from names
  EXPECT_EQ(s.meshes.size(), 3u);
  ASSERT_EQ(s.animations.size(), 1u);
  bool moved = false;
  for (const auto& t : s.animations[0].tracks)
    if (t.bone == "Spine" && t.path == path::translation) {
      moved = true;
      EXPECT_FLOAT_EQ(t.values[1], 3.0f);
    }
  EXPECT_TRUE(moved);
  for (const auto& w : diags.warnings) EXPECT_NE(w.code, code::w_pairing) << w.message;
}

TEST(SwitchModel, AnimationFileBindsToItsSiblingModelFile) {
  // X_Animation.bfres next to X.bfres (both Switch): the animation takes the model's FSKL and
  // brings its meshes, as with Wii U files.
  const std::string dir = test::out_path("bfres/switch_model_pair");
  std::filesystem::create_directories(dir);
  test::write_bytes(dir + "/Sample.bfres", build_switch_model(sample_model()));
  bfres_test::t_model empty;
  empty.name = "Sample_Animation";
  bfres_test::t_const_anim a;
  a.name = "Tilt";
  a.bone = "Head";
  a.base = {2, 2, 2, 0, 0, 0, 1, 0, 1, 0};  // scale 2
  test::write_bytes(dir + "/Sample_Animation.bfres",
                    build_switch_model(empty, 0x00050003, {}, {a}));
  diagnostics diags;
  auto r = read_scene(dir + "/Sample_Animation.bfres", read_options{}, diags);
  ASSERT_TRUE(r) << r.error().to_string();
  const scene& s = r.value();
  ASSERT_EQ(s.skeletons.size(), 1u);
  EXPECT_EQ(s.skeletons[0].bones.size(), 3u);
  EXPECT_EQ(s.metadata["skeleton_file"], "Sample.bfres");
  EXPECT_EQ(s.metadata["model_file"], "Sample.bfres");
  EXPECT_EQ(s.meshes.size(), 3u);
  ASSERT_EQ(s.animations.size(), 1u);
  bool scaled = false;
  for (const auto& t : s.animations[0].tracks)
    if (t.bone == "Head" && t.path == path::scale) scaled = t.values[0] == 2.0f;
  EXPECT_TRUE(scaled);
  for (const auto& w : diags.warnings) EXPECT_NE(w.code, code::w_missing_bone) << w.message;
}

TEST(SwitchModel, AnimationPackedIntoAModelTemplateKeepsTheModel) {
  // A scene with the model and an animation, packed into the model file (no FSKA) as the
  // template: the output holds both, the meshes decode as before, and rewrites identically.
  bfres_test::t_const_anim a;
  a.name = "Tilt";
  a.bone = "Head";
  a.base = {2, 2, 2, 0, 0, 0, 1, 0, 1, 0};
  const auto with_anim = build_switch_model(sample_model(), 0x00050003, {}, {a});
  const auto tpl = build_switch_model(sample_model());
  diagnostics diags;
  const scene src = read_ok(with_anim, "Sample.bfres", diags);
  const auto* fmt = find_format("bfres");
  ASSERT_TRUE(fmt);
  pack_context ctx;
  ctx.template_file = tpl;
  ctx.diags = &diags;
  auto packed = pack(src, *fmt, ctx);
  ASSERT_TRUE(packed) << packed.error().to_string();
  const auto f = bfres::parse(packed.value());
  EXPECT_EQ(f.models.size(), 1u);
  EXPECT_EQ(f.anims.size(), 1u);
  EXPECT_EQ(bfres::serialise(f), packed.value());
  const scene back = read_ok(packed.value(), "Sample.bfres", diags);
  ASSERT_EQ(back.animations.size(), 1u);
  EXPECT_EQ(back.animations[0].name, "Tilt");
  const scene plain = read_ok(tpl, "Sample.bfres", diags);
  ASSERT_EQ(back.meshes.size(), plain.meshes.size());
  for (std::size_t i = 0; i < back.meshes.size(); ++i) {
    EXPECT_EQ(back.meshes[i].positions, plain.meshes[i].positions);
    EXPECT_EQ(back.meshes[i].joints, plain.meshes[i].joints);
  }
}

// ---- damage ---------------------------------------------------------------------------

struct positions {
  std::size_t fvtx0, mesh0, attrib0, shape2, skel, fmdl, shape_dict;
  std::uint32_t pool;
};
positions where(const std::vector<std::uint8_t>& d) {
  const auto f = bfres::parse(d);
  const auto& m = f.models[0];
  positions p{};
  p.fmdl = m.at;
  p.fvtx0 = m.vertex_buffers[0].at;
  p.attrib0 = m.vertex_buffers[0].attribs[0].at;
  p.mesh0 = m.shapes[0].meshes[0].at;
  p.shape2 = m.shapes[2].at;
  p.skel = m.skel->at;
  p.pool = m.shapes[0].meshes[0].index_buffer.data_at;  // the first index buffer opens the pool
  std::uint64_t dict = 0;
  std::memcpy(&dict, d.data() + m.at + 0x10 + 0x28, 8);
  p.shape_dict = dict;
  return p;
}

TEST(SwitchModelDamage, BufferOffsetOutsideThePool) {
  auto d = build_switch_model(sample_model());
  const auto p = where(d);
  patch32(d, p.fvtx0 + 0x50, 0x7FFFFFF0);  // the FVTX's pool offset
  expect_error(d, code::bad_offset, "outside the buffer pool");
  auto e = build_switch_model(sample_model());
  patch32(e, p.mesh0 + 0x20, 0x10000000);  // the mesh's index buffer offset
  expect_error(e, code::bad_offset, "index buffer of shape 'Body'");
}

TEST(SwitchModelDamage, IndexCountBeyondTheBuffer) {
  auto d = build_switch_model(sample_model());
  const auto p = where(d);
  patch32(d, p.mesh0 + 0x2C, 1000);
  expect_error(d, code::truncated, "1000 indices need 2000 bytes");
  auto e = build_switch_model(sample_model());
  patch16(e, p.pool + 2, 40);  // the second index of Body
  expect_error(e, code::bad_value, "index 40");
}

TEST(SwitchModelDamage, AttributeOffsetBeyondTheStride) {
  auto d = build_switch_model(sample_model());
  const auto p = where(d);
  patch16(d, p.attrib0 + 0xC, 14);  // _p0 (12 bytes) at 14 of a 20-byte stride
  expect_error(d, code::bad_value, "does not fit the buffer's stride of 20");
  auto e = build_switch_model(sample_model());
  patch32(e, p.attrib0 + 8,
          0x7777);  // an unknown format: skipped with a warning (no position: shape skipped)
  diagnostics diags;
  auto r = read_scene(e, "x.bfres", read_options{}, diags);
  ASSERT_TRUE(r) << r.error().to_string();
  EXPECT_EQ(find_mesh(r.value(), "Body"), nullptr);
  bool warned = false;
  for (const auto& w : diags.warnings)
    warned = warned || w.message.find("unknown format 0x7777") != std::string::npos;
  EXPECT_TRUE(warned);
}

TEST(SwitchModelDamage, BoneIndexBeyondTheSkeleton) {
  auto d = build_switch_model(sample_model());
  const auto p = where(d);
  patch16(d, p.shape2 + 0x10 + 0x4C + 4, 9);  // Prop's bone (0.5: fields after the flags at +0x5C)
  expect_error(d, code::bad_value, "bone index 9 but the skeleton has 3 bones");
  // A skin index beyond the matrix palette (Hat's first vertex uses matrix 7).
  auto e = build_switch_model(sample_model());
  const auto f = bfres::parse(e);
  const auto hat_vb = f.models[0].vertex_buffers[1];
  e[hat_vb.buffers[0].data_at + hat_vb.attribs[3].offset] = 7;
  expect_error(e, code::bad_value, "uses matrix 7, beyond the skeleton's 3 matrices");
  // A parent after its child.
  auto g = build_switch_model(sample_model());
  patch16(g, f.models[0].skel->bones[1].at + 0x18 + 2, 2);
  expect_error(g, code::bad_value, "parents must precede children");
}

TEST(SwitchModelDamage, HugeCountsAndOffsetsOutsideTheFile) {
  const auto good = build_switch_model(sample_model());
  const auto p = where(good);
  auto d = good;
  patch16(d, p.skel + 0x10 + 0x20 + 8 + 4,
          0xFFFF);  // bone count (0.5: after the user pointer and flags)
  expect_error(d, code::bad_count, "bone count 65535");
  auto e = good;
  patch16(e, p.fmdl + 0x10 + 0x58 + 2, 0xFFFF);  // shape count
  expect_error(e, code::bad_count, "shapes (FSHP): count 65535");
  auto g = good;
  patch16(g, 0xBC, 0x4000);  // model count
  expect_error(g, code::bad_count, "models (FMDL)");
  auto h = good;
  patch32(h, p.fmdl + 0x10 + 0x10, 0xFFFFFFF0);  // skeleton offset past the end
  expect_error(h, code::bad_offset, "outside the file");
  auto k = good;
  patch16(k, p.fmdl + 0x10 + 0x58, 0xFFFF);  // vertex buffer count
  expect_error(k, code::bad_count, "vertex buffers (FVTX): count 65535");
}

TEST(SwitchModelDamage, CyclicDictionaryLinksAreNotFollowed) {
  auto d = build_switch_model(sample_model());
  const auto p = where(d);
  // Root -> node 1 -> node 2 -> node 1 ...: readers take the entries in order.
  patch16(d, p.shape_dict + 8 + 16 * 1 + 4, 2), patch16(d, p.shape_dict + 8 + 16 * 1 + 6, 2);
  patch16(d, p.shape_dict + 8 + 16 * 2 + 4, 1), patch16(d, p.shape_dict + 8 + 16 * 2 + 6, 1);
  diagnostics diags;
  auto r = read_scene(d, "cycle.bfres", read_options{}, diags);
  ASSERT_TRUE(r) << r.error().to_string();
  EXPECT_EQ(r.value().meshes.size(), 3u);
  // A dictionary that names more entries than the array holds is an error.
  auto e = build_switch_model(sample_model());
  patch32(e, p.shape_dict + 4, 2);
  expect_error(e, code::bad_count, "shape dictionary has 2 entries for 3 shapes");
}

TEST(SwitchModelDamage, EveryByteFlippedReadsOrFailsCleanly) {
  // Each byte of the model structures (not the pool's vertex data) inverted in turn, and the
  // file cut at every 64 bytes: read_scene returns a scene or an error, never crashes or throws.
  const auto good =
      build_switch_model(sample_model(), 0x00050003, {{"textures.bntx", albedo_bntx()}});
  const auto pool = where(good).pool;
  std::size_t errors = 0, scenes = 0;
  for (std::size_t i = 0; i < pool; ++i) {
    auto d = good;
    d[i] ^= 0xFF;
    diagnostics diags;
    auto r = read_scene(d, "flip.bfres", read_options{}, diags);
    (r ? scenes : errors) += 1;
    if (!r)
      EXPECT_NE(r.error().code, code::internal) << "byte " << i << ": " << r.error().to_string();
  }
  EXPECT_GT(errors, 0u);
  EXPECT_GT(scenes, 0u);
  for (std::size_t n = 0; n < good.size(); n += 64) {
    const std::vector<std::uint8_t> d(good.begin(), good.begin() + static_cast<std::ptrdiff_t>(n));
    diagnostics diags;
    auto r = read_scene(d, "cut.bfres", read_options{}, diags);
    if (!r)
      EXPECT_NE(r.error().code, code::internal) << "cut at " << n << ": " << r.error().to_string();
  }
}

}  // namespace
