// Segment scale compensation: the world-matrix formula and baking it into plain T*R*S.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>

#define GLM_FORCE_CTOR_INIT
#include <glm/glm.hpp>
#include <glm/gtc/matrix_transform.hpp>
#include <glm/gtc/quaternion.hpp>
#include <glm/gtc/type_ptr.hpp>

#include "core/math.hpp"
#include "scene/pose.hpp"
#include "scene/ssc.hpp"
#include "rigrip/registry.hpp"

using namespace rigrip;

namespace {

track make(const std::string& bone, path p, interpolation i, std::vector<float> times,
           std::vector<float> values) {
  track t;
  t.bone = bone;
  t.path = p;
  t.interpolation = i;
  t.times = std::move(times);
  t.values = std::move(values);
  return t;
}

// root -> parent -> child (compensates) -> grand (plain).
scene chain(vec3 parent_scale) {
  scene s;
  skeleton sk;
  sk.name = "rig";
  bone root{"root", -1};
  root.translation = {0.5f, 0, -1};
  root.rotation = core::axis_angle({0, 1, 0}, 0.4f);
  bone parent{"parent", 0};
  parent.translation = {0, 2, 0};
  parent.rotation = core::axis_angle({1, 0, 0}, 0.3f);
  parent.scale = parent_scale;
  bone child{"child", 1};
  child.translation = {0, 1, 0.25f};
  child.rotation = core::axis_angle({0, 0, 1}, 0.5236f);  // 30 degrees
  child.scale = {1.5f, 1, 0.75f};
  child.segment_scale_compensate = true;
  bone grand{"grand", 2};
  grand.translation = {0.5f, 0.2f, 0};
  grand.rotation = core::axis_angle({0, 1, 1}, 0.2f);
  sk.bones = {root, parent, child, grand};
  s.skeletons.push_back(sk);
  return s;
}

animation anim(std::string name) {
  animation a;
  a.name = std::move(name);
  a.duration = 1;
  a.fps = 30;
  return a;
}

std::vector<float> frames(const animation& a) {
  std::vector<float> t;
  for (int k = 0; k <= 30; ++k) t.push_back(static_cast<float>(k / *a.fps));
  return t;
}

double diff(const core::mat4& x, const core::mat4& y) {
  double e = 0;
  for (std::size_t i = 0; i < 16; ++i) e = std::max(e, static_cast<double>(std::abs(x[i] - y[i])));
  return e;
}

// Largest world-matrix difference between the SSC original and the plain bake, at `times`.
double world_error(const scene& before, const scene& after, std::size_t anim_index,
                   const std::vector<float>& times, std::size_t only_bone = ~std::size_t{0}) {
  double e = 0;
  const auto& k0 = before.skeletons[0];
  const auto& k1 = after.skeletons[0];
  for (float t : times) {
    auto w0 = scene_ops::world_matrices(k0, scene_ops::sample_pose(k0, before.animations[anim_index], t));
    auto w1 = scene_ops::world_matrices(k1, scene_ops::sample_pose(k1, after.animations[anim_index], t));
    for (std::size_t b = 0; b < w0.size(); ++b)
      if (only_bone == ~std::size_t{0} || b == only_bone) e = std::max(e, diff(w0[b], w1[b]));
  }
  return e;
}

double rest_error(const scene& before, const scene& after) {
  auto w0 = scene_ops::world_matrices(before.skeletons[0]);
  auto w1 = scene_ops::world_matrices(after.skeletons[0]);
  double e = 0;
  for (std::size_t b = 0; b < w0.size(); ++b) e = std::max(e, diff(w0[b], w1[b]));
  return e;
}

bool no_flags(const scene& s) {
  for (const auto& sk : s.skeletons)
    for (const auto& b : sk.bones)
      if (b.segment_scale_compensate) return false;
  return true;
}

std::size_t lossy_count(const diagnostics& d) {
  std::size_t n = 0;
  for (const auto& w : d.warnings) n += w.code == code::w_lossy;
  return n;
}

bool all_finite(const scene& s) {
  for (const auto& sk : s.skeletons)
    for (const auto& b : sk.bones)
      if (!core::finite(b.translation) || !core::finite(b.rotation) || !core::finite(b.scale)) return false;
  for (const auto& a : s.animations)
    for (const auto& t : a.tracks)
      for (float v : t.values)
        if (!std::isfinite(v)) return false;
  return true;
}

const track* find_track(const animation& a, std::string_view bone, path p) {
  for (const auto& t : a.tracks)
    if (t.bone == bone && t.path == p) return &t;
  return nullptr;
}

}  // namespace


TEST(SegmentScaleCompensate, WorldMatrixMatchesMayaForm) {
  scene s = chain({2, 3, 0.5f});
  const auto& b = s.skeletons[0].bones;
  auto w = scene_ops::world_matrices(s.skeletons[0]);
  auto trs = [](const bone& x) {
    glm::quat q(x.rotation[3], x.rotation[0], x.rotation[1], x.rotation[2]);
    return glm::translate(glm::mat4(1), glm::vec3(x.translation[0], x.translation[1], x.translation[2])) *
           glm::mat4_cast(q) * glm::scale(glm::mat4(1), glm::vec3(x.scale[0], x.scale[1], x.scale[2]));
  };
  const glm::mat4 wp = trs(b[0]) * trs(b[1]);
  const glm::vec3 sp(b[1].scale[0], b[1].scale[1], b[1].scale[2]);
  const glm::vec3 t(b[2].translation[0], b[2].translation[1], b[2].translation[2]);
  glm::quat q(b[2].rotation[3], b[2].rotation[0], b[2].rotation[1], b[2].rotation[2]);
  // W_P * S_P^-1 * T(s_P . t) * R * S
  const glm::mat4 wc = wp * glm::scale(glm::mat4(1), 1.0f / sp) * glm::translate(glm::mat4(1), sp * t) *
                       glm::mat4_cast(q) *
                       glm::scale(glm::mat4(1), glm::vec3(b[2].scale[0], b[2].scale[1], b[2].scale[2]));
  const glm::mat4 wg = wc * trs(b[3]);
  const float* pc = glm::value_ptr(wc);
  const float* pg = glm::value_ptr(wg);
  for (std::size_t i = 0; i < 16; ++i) {
    EXPECT_NEAR(w[2][i], pc[i], 1e-5) << "child element " << i;
    EXPECT_NEAR(w[3][i], pg[i], 1e-5) << "grandchild element " << i;
  }
}

TEST(SegmentScaleCompensate, UniformAnimatedParentScaleIsExact) {
  scene s = chain({1, 1, 1});
  animation a = anim("pulse");
  a.tracks.push_back(make("parent", path::scale, interpolation::linear, {0, 0.5f, 1},
                          {1, 1, 1, 2, 2, 2, 0.5f, 0.5f, 0.5f}));
  // Cubic tracks elsewhere must survive untouched.
  a.tracks.push_back(make("root", path::translation, interpolation::cubic_spline, {0, 1},
                          {0, 0, 0, 0, 0, 0, 1, 0, 0, 1, 0, 0, 2, 1, 0, 0, 0, 0}));
  const quat q0 = core::axis_angle({0, 0, 1}, 0.1f), q1 = core::axis_angle({0, 0, 1}, 1.1f);
  a.tracks.push_back(make("child", path::rotation, interpolation::cubic_spline, {0, 1},
                          {0, 0, 0, 0, q0[0], q0[1], q0[2], q0[3], 0, 0, 0, 0,
                           0, 0, 0, 0, q1[0], q1[1], q1[2], q1[3], 0, 0, 0, 0}));
  a.tracks.push_back(make("grand", path::translation, interpolation::linear, {0, 1},
                          {0.5f, 0.2f, 0, 0.7f, 0.1f, 0.3f}));
  s.animations.push_back(a);
  ASSERT_TRUE(s.validate().ok());

  scene baked = s;
  diagnostics d;
  const float err = scene_ops::bake_segment_scale_compensate(baked, d);
  EXPECT_TRUE(no_flags(baked));
  EXPECT_TRUE(baked.validate().ok()) << baked.validate().error().message;
  EXPECT_LT(err, 1e-5f);
  EXPECT_EQ(lossy_count(d), 0u);
  EXPECT_LT(world_error(s, baked, 0, frames(a)), 1e-5);
  EXPECT_LT(rest_error(s, baked), 1e-5);
  for (const char* bone : {"root", "child"}) {
    const path p = std::string(bone) == "root" ? path::translation : path::rotation;
    const track* before = find_track(s.animations[0], bone, p);
    const track* after = find_track(baked.animations[0], bone, p);
    ASSERT_NE(after, nullptr) << bone;
    EXPECT_EQ(after->interpolation, interpolation::cubic_spline) << bone;
    EXPECT_EQ(after->values, before->values) << bone;
  }
  EXPECT_EQ(find_track(baked.animations[0], "grand", path::translation)->values,
            find_track(s.animations[0], "grand", path::translation)->values);
  // The child's rest and sampled scale absorb 1/s_parent.
  EXPECT_NE(find_track(baked.animations[0], "child", path::scale), nullptr);
}

TEST(SegmentScaleCompensate, ConstantUniformParentScaleKeepsCubicChildScale) {
  scene s = chain({2, 2, 2});
  animation a = anim("breathe");
  a.tracks.push_back(make("child", path::scale, interpolation::cubic_spline, {0, 1},
                          {0, 0, 0, 1, 1, 1, 0.5f, 0, 0, 0, 0, 1, 2, 2, 2, 0, 0, 0}));
  s.animations.push_back(a);
  scene baked = s;
  diagnostics d;
  EXPECT_LT(scene_ops::bake_segment_scale_compensate(baked, d), 1e-5f);
  const track* t = find_track(baked.animations[0], "child", path::scale);
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->interpolation, interpolation::cubic_spline);
  EXPECT_FLOAT_EQ(t->values[6], 0.25f);  // out-tangent halved too
  // Exact between frames as well, since the interpolation itself is kept.
  EXPECT_LT(world_error(s, baked, 0, {0.0f, 0.123f, 0.5f, 0.77f, 1.0f}), 1e-5);
}

TEST(SegmentScaleCompensate, NonUniformParentScaleIsSolvedPerFrame) {
  scene s = chain({1, 1, 1});
  animation a = anim("squash");
  a.tracks.push_back(make("parent", path::scale, interpolation::linear, {0, 1},
                          {1, 1, 1, 2, 1, 0.5f}));
  const quat q0 = core::axis_angle({0, 0, 1}, 0.5236f), q1 = core::axis_angle({0, 1, 1}, 1.0f);
  a.tracks.push_back(make("child", path::rotation, interpolation::linear, {0, 1},
                          {q0[0], q0[1], q0[2], q0[3], q1[0], q1[1], q1[2], q1[3]}));
  a.tracks.push_back(make("root", path::rotation, interpolation::cubic_spline, {0, 1},
                          {0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0}));
  s.animations.push_back(a);
  scene baked = s;
  diagnostics d;
  const float err = scene_ops::bake_segment_scale_compensate(baked, d);
  EXPECT_TRUE(no_flags(baked));
  EXPECT_TRUE(baked.validate().ok()) << baked.validate().error().message;
  ASSERT_EQ(lossy_count(d), 1u);
  EXPECT_NE(d.warnings[0].message.find("squash"), std::string::npos) << d.warnings[0].message;
  EXPECT_NE(d.warnings[0].message.find("'child'"), std::string::npos) << d.warnings[0].message;
  const double measured = world_error(s, baked, 0, frames(a));
  EXPECT_GT(err, 1e-4f);
  EXPECT_NEAR(err, measured, 1e-4);
  // Translations are solved exactly even where the shear is lost.
  const auto& k0 = s.skeletons[0];
  const auto& k1 = baked.skeletons[0];
  for (float t : frames(a)) {
    auto w0 = scene_ops::world_matrices(k0, scene_ops::sample_pose(k0, s.animations[0], t));
    auto w1 = scene_ops::world_matrices(k1, scene_ops::sample_pose(k1, baked.animations[0], t));
    for (std::size_t i = 12; i < 15; ++i) EXPECT_NEAR(w0[3][i], w1[3][i], 1e-4) << "t=" << t;
  }
  // The unaffected root keeps its cubic track.
  const track* root = find_track(baked.animations[0], "root", path::rotation);
  ASSERT_NE(root, nullptr);
  EXPECT_EQ(root->interpolation, interpolation::cubic_spline);
  // The solved bones got linear tracks on the frame grid.
  const track* child = find_track(baked.animations[0], "child", path::rotation);
  ASSERT_NE(child, nullptr);
  EXPECT_EQ(child->interpolation, interpolation::linear);
  EXPECT_EQ(child->times.size(), 31u);
}

TEST(SegmentScaleCompensate, RestPoseOnly) {
  scene s = chain({2, 2, 2});
  scene baked = s;
  diagnostics d;
  EXPECT_LT(scene_ops::bake_segment_scale_compensate(baked, d), 1e-5f);
  EXPECT_TRUE(d.warnings.empty());
  EXPECT_TRUE(no_flags(baked));
  EXPECT_LT(rest_error(s, baked), 1e-5);
  const auto& c = baked.skeletons[0].bones[2];
  EXPECT_EQ(c.translation, s.skeletons[0].bones[2].translation);
  EXPECT_FLOAT_EQ(c.scale[0], 0.75f);
  EXPECT_FLOAT_EQ(c.scale[2], 0.375f);
}

TEST(SegmentScaleCompensate, NonUniformRestPoseWarns) {
  scene s = chain({1, 2, 1});
  scene baked = s;
  diagnostics d;
  const float err = scene_ops::bake_segment_scale_compensate(baked, d);
  EXPECT_GT(err, 1e-4f);
  EXPECT_NEAR(err, rest_error(s, baked), 1e-4);
  ASSERT_EQ(lossy_count(d), 1u);
  EXPECT_NE(d.warnings[0].message.find("rest pose"), std::string::npos);
  EXPECT_TRUE(baked.validate().ok());
  // The grandchild's position still matches.
  auto w0 = scene_ops::world_matrices(s.skeletons[0]);
  auto w1 = scene_ops::world_matrices(baked.skeletons[0]);
  for (std::size_t i = 12; i < 15; ++i) EXPECT_NEAR(w0[3][i], w1[3][i], 1e-5);
}

TEST(SegmentScaleCompensate, RestChangeIsPinnedInAnimations) {
  // Rest fold is non-uniform (solved), the animation's parent scale is uniform: channels
  // the animation leaves to the rest pose must still see the original rest values.
  scene s = chain({1, 2, 1});
  animation a = anim("grow");
  a.tracks.push_back(make("parent", path::scale, interpolation::linear, {0, 1},
                          {1, 1, 1, 3, 3, 3}));
  s.animations.push_back(a);
  scene baked = s;
  diagnostics d;
  (void)scene_ops::bake_segment_scale_compensate(baked, d);
  EXPECT_TRUE(baked.validate().ok()) << baked.validate().error().message;
  EXPECT_LT(world_error(s, baked, 0, frames(a)), 1e-5);
}

TEST(SegmentScaleCompensate, ZeroParentScaleStaysFinite) {
  scene s = chain({1, 0, 1});
  animation a = anim("collapse");
  a.tracks.push_back(make("parent", path::scale, interpolation::linear, {0, 1},
                          {1, 1, 1, 0, 0, 2}));
  a.tracks.push_back(make("child", path::scale, interpolation::linear, {0, 1},
                          {0, 1, 1, 1, 1, 1}));
  s.animations.push_back(a);
  scene baked = s;
  diagnostics d;
  const float err = scene_ops::bake_segment_scale_compensate(baked, d);
  EXPECT_TRUE(std::isfinite(err));
  EXPECT_TRUE(no_flags(baked));
  EXPECT_TRUE(all_finite(baked));
  EXPECT_TRUE(baked.validate().ok()) << baked.validate().error().message;
  for (float t : frames(a)) {
    auto w = scene_ops::world_matrices(baked.skeletons[0],
                                  scene_ops::sample_pose(baked.skeletons[0], baked.animations[0], t));
    for (const auto& m : w)
      for (float v : m) ASSERT_TRUE(std::isfinite(v));
  }
}

TEST(SegmentScaleCompensate, NoEffectOnlyClearsTheFlag) {
  scene s = chain({1, 1, 1});
  scene baked = s;
  diagnostics d;
  EXPECT_EQ(scene_ops::bake_segment_scale_compensate(baked, d), 0.0f);
  EXPECT_TRUE(no_flags(baked));
  EXPECT_EQ(baked.skeletons[0].bones[2].scale, s.skeletons[0].bones[2].scale);
}

TEST(SegmentScaleCompensate, RegistryFlags) {
  ASSERT_NE(find_format("scene-json"), nullptr);
  ASSERT_NE(find_format("gltf"), nullptr);
  ASSERT_NE(find_format("telltale-skl"), nullptr);
  EXPECT_TRUE(find_format("scene-json")->stores_segment_scale_compensate);
  EXPECT_TRUE(find_format("gltf")->stores_segment_scale_compensate);
  EXPECT_FALSE(find_format("telltale-skl")->stores_segment_scale_compensate);
}

TEST(SegmentScaleCompensate, PackBakesForWritersThatCannotStoreIt) {
  const format* f = find_format("telltale-skl");
  ASSERT_NE(f, nullptr);
  ASSERT_NE(f->pack, nullptr);
  scene s = chain({1, 2, 1});  // lossy rest fold: the grandchild's translation is re-solved
  diagnostics d;
  pack_context ctx;
  ctx.output_path = "ssc.skl";
  ctx.diags = &d;
  auto through_registry = rigrip::pack(s, *f, ctx);
  ASSERT_TRUE(through_registry.ok()) << through_registry.error().to_string();
  bool baked_warning = false;
  for (const auto& w : d.warnings)
    baked_warning |= w.code == code::w_lossy && w.message.find("segment scale") != std::string::npos;
  EXPECT_TRUE(baked_warning);

  scene baked = s;
  diagnostics ignored;
  (void)scene_ops::bake_segment_scale_compensate(baked, ignored);
  pack_context quiet;
  quiet.output_path = "ssc.skl";
  auto direct = rigrip::pack(baked, *f, quiet);
  ASSERT_TRUE(direct.ok());
  EXPECT_EQ(through_registry.value(), direct.value());

  scene unbaked = s;  // what the writer would have produced without the bake
  for (auto& b : unbaked.skeletons[0].bones) b.segment_scale_compensate = false;
  auto wrong = rigrip::pack(unbaked, *f, quiet);
  ASSERT_TRUE(wrong.ok());
  EXPECT_NE(through_registry.value(), wrong.value());
}

// ---- The glTF writer's helper nodes and the readers that fold them back.
#include "rigrip/gltf.hpp"
#include "test_support.hpp"

namespace {
// The exact helper-node form (--ssc helpers); the default bakes SSC into plain locals.
gltf::write_options helper_form() {
  gltf::write_options o;
  o.ssc = gltf::ssc_mode::helpers;
  return o;
}

float worst_world_difference(const scene& a, const scene& b, int anim_index, float time, const std::string& bone) {
  const auto& sa = a.skeletons[0];
  const auto& sb = b.skeletons[0];
  auto wa = scene_ops::world_matrices(sa, scene_ops::sample_pose(sa, a.animations[std::size_t(anim_index)], time));
  auto wb = scene_ops::world_matrices(sb, scene_ops::sample_pose(sb, b.animations[std::size_t(anim_index)], time));
  const auto ia = std::size_t(sa.find(bone)), ib = std::size_t(sb.find(bone));
  float e = 0;
  for (std::size_t k = 0; k < 16; ++k) e = std::max(e, std::fabs(wa[ia][k] - wb[ib][k]));
  return e;
}

scene animated_chain(interpolation parent_interp) {
  scene s = chain({2, 1, 0.5f});
  animation a = anim("Stretch");
  a.tracks.push_back(make("parent", path::scale, parent_interp, {0, 0.5f, 1}, {2, 1, 0.5f, 0.5f, 3, 1, 1, 1, 1}));
  a.tracks.push_back(make("child", path::translation, interpolation::cubic_spline, {0, 1},
                          {0, 0, 0, 0, 1, 0.25f, 1, 0, 0, 1, 0, 0, 0.5f, 1.5f, 0, 0, 0, 0}));
  s.animations.push_back(a);
  return s;
}
}  // namespace

TEST(SegmentScaleCompensate, GlbHelperNodeReproducesCompensatedWorlds) {
  for (auto in : {interpolation::linear, interpolation::step, interpolation::cubic_spline}) {
    scene s = animated_chain(in == interpolation::cubic_spline ? interpolation::linear : in);
    if (in == interpolation::cubic_spline) {  // a cubic parent scale: helper sampled per frame
      auto& t = s.animations[0].tracks[0];
      t.interpolation = interpolation::cubic_spline;
      std::vector<float> v;
      for (std::size_t k = 0; k < 3; ++k) {
        v.insert(v.end(), {0.3f, -0.2f, 0.1f});
        v.insert(v.end(), t.values.begin() + std::ptrdiff_t(3 * k), t.values.begin() + std::ptrdiff_t(3 * k + 3));
        v.insert(v.end(), {0.3f, -0.2f, 0.1f});
      }
      t.values = v;
    }
    ASSERT_TRUE(s.validate().ok());
    diagnostics d;
    auto glb = gltf::write(s, helper_form(), d);
    ASSERT_TRUE(glb.ok()) << glb.error().message;
    test::gltf_evaluator ev(glb.value().main);
    float worst = 0;
    for (int f = 0; f <= 30; ++f) {
      const float time = f / 30.0f;
      auto want = scene_ops::world_matrices(s.skeletons[0], scene_ops::sample_pose(s.skeletons[0], s.animations[0], time));
      for (const auto& [name, m] : ev.worlds(0, time)) {
        int bi = s.skeletons[0].find(name);
        if (bi < 0) continue;
        for (std::size_t k = 0; k < 16; ++k) worst = std::max(worst, std::fabs(m[k] - want[std::size_t(bi)][k]));
      }
    }
    EXPECT_LT(worst, 1e-5) << to_string(in);
    // Read back: the helper is folded into the bone again, same worlds.
    auto back = gltf::read(glb.value().main, "x.glb", d);
    ASSERT_TRUE(back.ok()) << back.error().message;
    ASSERT_EQ(back.value().skeletons[0].bones.size(), 4u);
    EXPECT_TRUE(back.value().skeletons[0].bones[2].segment_scale_compensate);
    EXPECT_FALSE(back.value().skeletons[0].bones[3].segment_scale_compensate);
    for (int f = 0; f <= 30; ++f)
      for (const char* b : {"child", "grand"})
        EXPECT_LT(worst_world_difference(s, back.value(), 0, f / 30.0f, b), 2e-5) << b << " frame " << f;
  }
}

TEST(SegmentScaleCompensate, NoHelperWhereTheParentScaleIsOne) {
  scene s = chain({1, 1, 1});
  s.animations.push_back(anim("Idle"));
  s.animations[0].tracks.push_back(make("child", path::translation, interpolation::linear, {0, 1}, {0, 1, 0, 0, 2, 0}));
  diagnostics d;
  auto glb = gltf::write(s, helper_form(), d);
  ASSERT_TRUE(glb.ok());
  const std::string text(glb.value().main.begin(), glb.value().main.end());
  EXPECT_EQ(text.find("rigrip_ssc_helper"), std::string::npos);
  s = chain({2, 2, 2});
  glb = gltf::write(s, helper_form(), d);
  ASSERT_TRUE(glb.ok());
  const std::string text2(glb.value().main.begin(), glb.value().main.end());
  EXPECT_NE(text2.find("rigrip_ssc_helper"), std::string::npos);  // rest scale alone needs it
}

TEST(SegmentScaleCompensate, SceneJsonKeepsTheFlag) {
  scene s = chain({2, 1, 1});
  auto j = scene_json::to_json(s);
  EXPECT_TRUE(j["skeletons"][0]["bones"][2]["segment_scale_compensate"].get<bool>());
  EXPECT_FALSE(j["skeletons"][0]["bones"][1].contains("segment_scale_compensate"));
  auto back = scene_json::from_json(j);
  ASSERT_TRUE(back.ok());
  EXPECT_TRUE(back.value().skeletons[0].bones[2].segment_scale_compensate);
  j["skeletons"][0]["bones"][2]["segment_scale_compensate"] = 1;
  auto bad = scene_json::from_json(j);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("segment_scale_compensate"), std::string::npos);
}

// The default glTF output holds exactly the source's bones: SSC is baked into plain locals,
// exact under uniform parent scale; under non-uniform scale the clip's worst world error
// is reported in its extras and as a warning.
TEST(SegmentScaleCompensate, DefaultOutputBakesWithoutHelperNodes) {
  for (vec3 ps : {vec3{2, 2, 2}, vec3{2, 1, 0.5f}}) {
    scene s = chain(ps);
    animation a = anim("Grow");
    a.tracks.push_back(make("parent", path::scale, interpolation::linear, {0, 1}, {ps[0], ps[1], ps[2], 3, 3, 3}));
    s.animations.push_back(a);
    diagnostics d;
    auto glb = gltf::write(s, {}, d);
    ASSERT_TRUE(glb.ok()) << glb.error().message;
    const std::string text(glb.value().main.begin(), glb.value().main.end());
    EXPECT_EQ(text.find("rigrip_ssc_helper"), std::string::npos);
    EXPECT_NE(text.find("\"ssc_bake_error\""), std::string::npos);
    test::gltf_evaluator ev(glb.value().main);
    float worst = 0;
    for (int f = 0; f <= 30; ++f) {
      const float time = f / 30.0f;
      auto want = scene_ops::world_matrices(s.skeletons[0], scene_ops::sample_pose(s.skeletons[0], s.animations[0], time));
      auto nodes = ev.worlds(0, time);
      for (const auto& [name, m] : nodes) {
        int bi = s.skeletons[0].find(name);
        if (bi < 0) continue;
        const auto& w = want[std::size_t(bi)];
        for (std::size_t k = 12; k < 15; ++k) worst = std::max(worst, std::fabs(m[k] - w[k]));
      }
    }
    bool warned = false;
    for (const auto& w : d.warnings) warned = warned || w.message.find("baked with up to") != std::string::npos;
    if (ps[0] == ps[2]) {
      EXPECT_LT(worst, 1e-5);
      EXPECT_FALSE(warned);
    } else {
      EXPECT_TRUE(warned);
    }
    auto back = gltf::read(glb.value().main, "x.glb", d);
    ASSERT_TRUE(back.ok());
    EXPECT_EQ(back.value().skeletons[0].bones.size(), 4u);
  }
}

// ---- the bake's shortcuts against the plain SVD solver (issue 16) ----------------------

namespace {

// A chain of `n` compensating bones with random rest locals (positive scales) and one clip of
// 31 frames: every bone rotates, and the scales of some bones alternate between uniform and
// non-uniform keys (`non_uniform_every` = 0: uniform at every key), so the bake solves the
// subtree per frame and its exact per-frame paths apply on the uniform keys.
scene random_rig(std::mt19937& rng, std::size_t n, int non_uniform_every,
                 bool negative_scale = false) {
  std::uniform_real_distribution<float> u(-1, 1), pos(0.6f, 1.6f);
  scene s;
  skeleton sk;
  sk.name = "rig";
  for (std::size_t i = 0; i < n; ++i) {
    bone b{"b" + std::to_string(i), static_cast<int>(i) - 1};
    b.translation = {u(rng), 1 + u(rng), u(rng)};
    b.rotation = core::axis_angle({u(rng), u(rng), 1}, u(rng));
    b.scale = {pos(rng), pos(rng), pos(rng)};
    b.segment_scale_compensate = i > 0;
    sk.bones.push_back(b);
  }
  if (negative_scale) sk.bones[n / 2].scale[1] = -sk.bones[n / 2].scale[1];
  s.skeletons.push_back(sk);
  animation a = anim("clip");
  const auto times = frames(a);
  for (std::size_t i = 0; i < n; ++i) {
    std::vector<float> rv, sv;
    for (std::size_t k = 0; k < times.size(); ++k) {
      const quat q = core::axis_angle({u(rng), 1, u(rng)}, u(rng));
      rv.insert(rv.end(), q.begin(), q.end());
      const float c = pos(rng);
      const bool skew =
          non_uniform_every > 0 && i % 2 == 1 && static_cast<int>(k) % non_uniform_every == 0;
      sv.insert(sv.end(), {c, skew ? c * pos(rng) : c, c});
    }
    a.tracks.push_back(make(sk.bones[i].name, path::rotation, interpolation::linear, times, rv));
    a.tracks.push_back(make(sk.bones[i].name, path::scale, interpolation::linear, times, sv));
  }
  s.animations.push_back(a);
  return s;
}

// Tracks of two bakes hold the same values within `tol` (a quaternion equals its negation).
void expect_same_tracks(const animation& x, const animation& y, float tol) {
  ASSERT_EQ(x.tracks.size(), y.tracks.size());
  for (const auto& t : x.tracks) {
    const track* o = find_track(y, t.bone, t.path);
    ASSERT_NE(o, nullptr) << t.bone;
    ASSERT_EQ(t.times, o->times) << t.bone;
    ASSERT_EQ(t.values.size(), o->values.size()) << t.bone;
    const std::size_t c = static_cast<std::size_t>(components(t.path));
    for (std::size_t k = 0; k + c <= t.values.size(); k += c) {
      float d = 0, dn = 0;
      for (std::size_t j = 0; j < c; ++j) {
        d = std::max(d, std::abs(t.values[k + j] - o->values[k + j]));
        dn = std::max(dn, std::abs(t.values[k + j] + o->values[k + j]));
      }
      if (t.path == path::rotation) d = std::min(d, dn);
      EXPECT_LE(d, tol) << t.bone << " " << static_cast<int>(t.path) << " key " << k / c;
    }
  }
}

// measure_bake_error written out: every bone, sample_pose and world_matrices per time, the
// angle of every axis. The library's version skips bones whose worlds are bit-identical.
scene_ops::bake_error brute_force_error(const scene& s0, const scene& s1) {
  const animation& a = s0.animations[0];
  std::vector<float> times;
  for (double k = 0; k * (1.0 / *a.fps) <= a.duration + 1e-9; k += 1)
    times.push_back(static_cast<float>(k / *a.fps));
  for (const auto& t : a.tracks) times.insert(times.end(), t.times.begin(), t.times.end());
  std::sort(times.begin(), times.end());
  times.erase(std::unique(times.begin(), times.end()), times.end());
  scene_ops::bake_error e;
  for (float t : times) {
    auto w0 =
        scene_ops::world_matrices(s0.skeletons[0], scene_ops::sample_pose(s0.skeletons[0], a, t));
    auto w1 = scene_ops::world_matrices(
        s1.skeletons[0], scene_ops::sample_pose(s1.skeletons[0], s1.animations[0], t));
    for (std::size_t b = 0; b < w0.size(); ++b) {
      for (std::size_t r = 12; r < 15; ++r)
        e.position = std::max(e.position, static_cast<double>(std::fabs(w0[b][r] - w1[b][r])));
      for (std::size_t c = 0; c < 3; ++c) {
        double dx = 0, nx = 0, ny = 0;
        for (std::size_t r = 0; r < 3; ++r) {
          const double p = w0[b][c * 4 + r], q = w1[b][c * 4 + r];
          dx += p * q, nx += p * p, ny += q * q;
        }
        if (nx < 1e-20 || ny < 1e-20) continue;
        const double cosang = std::clamp(dx / std::sqrt(nx * ny), -1.0, 1.0);
        e.degrees = std::max(e.degrees, std::acos(cosang) * 180.0 / 3.14159265358979323846);
      }
    }
  }
  return e;
}

}  // namespace

TEST(SegmentScaleCompensate, ShortcutsMatchTheSvdSolver) {
  std::mt19937 rng(16);
  for (int round = 0; round < 24; ++round) {
    const int every = round % 4;  // 0: uniform at every key; else non-uniform every 1st/2nd/3rd key
    const scene s = random_rig(rng, 3 + static_cast<std::size_t>(round % 5), every, round % 6 == 5);
    scene fast = s, ref = s;
    diagnostics d1, d2;
    const float e_fast = scene_ops::bake_segment_scale_compensate(fast, d1);
    const float e_ref = scene_ops::detail::bake_reference(ref, d2);
    SCOPED_TRACE("round " + std::to_string(round));
    EXPECT_TRUE(fast.validate().ok());
    EXPECT_NEAR(e_fast, e_ref, 1e-5f + 1e-4f * e_ref);
    EXPECT_EQ(lossy_count(d1), lossy_count(d2));
    for (std::size_t b = 0; b < s.skeletons[0].bones.size(); ++b) {
      const auto& x = fast.skeletons[0].bones[b];
      const auto& y = ref.skeletons[0].bones[b];
      for (std::size_t j = 0; j < 3; ++j) {
        EXPECT_NEAR(x.translation[j], y.translation[j], 1e-5f);
        EXPECT_NEAR(x.scale[j], y.scale[j], 1e-5f);
      }
    }
    expect_same_tracks(fast.animations[0], ref.animations[0], 2e-5f);
    // Both reproduce the compensated worlds equally well.
    const auto times = frames(s.animations[0]);
    EXPECT_NEAR(world_error(s, fast, 0, times), world_error(s, ref, 0, times), 1e-4);
    if (every == 0) EXPECT_LT(world_error(s, fast, 0, times), 1e-4);  // uniform everywhere: exact
  }
}

TEST(SegmentScaleCompensate, MeasuredErrorEqualsTheBruteForceOne) {
  std::mt19937 rng(61);
  for (int round = 0; round < 12; ++round) {
    const scene s = random_rig(rng, 3 + static_cast<std::size_t>(round % 4), round % 3);
    scene baked = s;
    diagnostics d;
    (void)scene_ops::bake_segment_scale_compensate(baked, d);
    const auto e = scene_ops::measure_bake_error(s, baked, 0);
    const auto want = brute_force_error(s, baked);
    EXPECT_EQ(e.position, want.position) << round;  // the same doubles, not just close
    EXPECT_EQ(e.degrees, want.degrees) << round;
  }
}

TEST(SegmentScaleCompensate, SampleWithCursorIsTheSameAsWithout) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> u(-1, 1);
  for (interpolation ip : {interpolation::linear, interpolation::step, interpolation::cubic_spline})
    for (path p : {path::translation, path::rotation}) {
      track t;
      t.path = p;
      t.interpolation = ip;
      const std::size_t e = ip == interpolation::cubic_spline ? 3 : 1;
      for (int k = 0; k < 20; ++k) {
        t.times.push_back(0.1f * static_cast<float>(k) + (k == 7 ? 0.05f : 0.0f));
        for (std::size_t j = 0; j < e * static_cast<std::size_t>(components(p)); ++j)
          t.values.push_back(u(rng));
      }
      std::vector<float> times;
      for (int k = -3; k < 230; ++k) times.push_back(0.01f * static_cast<float>(k));
      times.insert(times.end(), t.times.begin(), t.times.end());  // exactly at keys
      std::sort(times.begin(), times.end());
      for (int pass = 0; pass < 2; ++pass) {  // in order, then shuffled (the cursor must search)
        if (pass == 1) std::shuffle(times.begin(), times.end(), rng);
        std::size_t cursor = 0;
        for (float tm : times) {
          float a[4], b[4];
          scene_ops::sample(t, tm, a);
          scene_ops::sample(t, tm, b, cursor);
          EXPECT_EQ(std::memcmp(a, b, sizeof(float) * static_cast<std::size_t>(components(p))), 0)
              << tm;
        }
      }
    }
}

namespace {
// The general sampler sample() was specialised from (component count read at run time),
// kept here as the reference the per-type fast path must match bit for bit.
void generic_sample(const track& t, float time, float* out) {
  const std::size_t n = static_cast<std::size_t>(components(t.path));
  const std::size_t e = t.elements_per_key(), keys = t.times.size();
  std::fill_n(out, n, 0.0f);
  if (keys == 0 || t.values.size() < keys * n * e) return;
  auto value = [&](std::size_t k, std::size_t which) { return &t.values[(k * e + (e == 3 ? which : 0)) * n]; };
  if (time <= t.times.front() || keys == 1) return (void)std::copy_n(value(0, 1), n, out);
  if (time >= t.times.back()) return (void)std::copy_n(value(keys - 1, 1), n, out);
  const std::size_t k =
      static_cast<std::size_t>(std::upper_bound(t.times.begin(), t.times.end(), time) - t.times.begin()) - 1;
  const float t0 = t.times[k], dt = t.times[k + 1] - t0;
  const float u = dt > 0 ? (time - t0) / dt : 0.0f;
  if (t.interpolation == interpolation::step) return (void)std::copy_n(value(k, 1), n, out);
  if (t.interpolation == interpolation::linear) {
    const float *a = value(k, 1), *b = value(k + 1, 1);
    if (t.path == path::rotation) {
      const quat q = core::slerp({a[0], a[1], a[2], a[3]}, {b[0], b[1], b[2], b[3]}, u);
      std::copy(q.begin(), q.end(), out);
    } else {
      for (std::size_t i = 0; i < n; ++i) out[i] = a[i] + (b[i] - a[i]) * u;
    }
    return;
  }
  const float *p0 = value(k, 1), *m0 = value(k, 2), *p1 = value(k + 1, 1), *m1 = value(k + 1, 0);
  const float u2 = u * u, u3 = u2 * u;
  const float h00 = 2 * u3 - 3 * u2 + 1, h10 = u3 - 2 * u2 + u, h01 = -2 * u3 + 3 * u2, h11 = u3 - u2;
  for (std::size_t i = 0; i < n; ++i) out[i] = h00 * p0[i] + h10 * dt * m0[i] + h01 * p1[i] + h11 * dt * m1[i];
  if (t.path == path::rotation) {
    const quat q = core::normalize({out[0], out[1], out[2], out[3]});
    std::copy(q.begin(), q.end(), out);
  }
}
}  // namespace

TEST(SegmentScaleCompensate, SpecialisedSampleIsTheGeneralOne) {
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> u(-2, 2);
  for (interpolation ip : {interpolation::linear, interpolation::step, interpolation::cubic_spline})
    for (path p : {path::translation, path::rotation, path::scale})
      for (int keys : {0, 1, 2, 17}) {
        track t;
        t.path = p;
        t.interpolation = ip;
        const std::size_t e = ip == interpolation::cubic_spline ? 3 : 1;
        for (int k = 0; k < keys; ++k) {
          t.times.push_back(0.1f * static_cast<float>(k) + (k == 5 ? 0.0f : 0.03f));
          for (std::size_t j = 0; j < e * static_cast<std::size_t>(components(p)); ++j) t.values.push_back(u(rng));
        }
        for (int cut : {0, 1}) {  // too few values: both give zeros
          if (cut && !t.values.empty()) t.values.pop_back();
          for (int k = -3; k < 200; ++k) {
            const float tm = 0.0097f * static_cast<float>(k);
            float a[4] = {9, 9, 9, 9}, b[4] = {9, 9, 9, 9};
            scene_ops::sample(t, tm, a);
            generic_sample(t, tm, b);
            EXPECT_EQ(std::memcmp(a, b, sizeof a), 0) << tm << " keys " << keys;
          }
        }
      }
}
