// The scene behind examples/morpheme/forgelight_example.mrn: two rigs and five
// animations chosen to cover every NSA segment kind (pure static pose, dynamic rotations
// with no dynamic translations, dynamic translations, trajectory in factor and constant
// form, a static segment with a zero rotation count, channel counts not a multiple of 4).
#pragma once

#include <cmath>

#include "core/math.hpp"
#include "rigrip/scene.hpp"

namespace morpheme_test {

inline rigrip::quat about(float x, float y, float z, float deg) {
  return rigrip::core::axis_angle({x, y, z}, deg * rigrip::core::pi / 180.0f);
}

inline rigrip::scene example_scene() {
  using namespace rigrip;
  scene s;
  skeleton male;
  male.name = "Male";
  auto add = [](skeleton& sk, const char* n, int p, vec3 t, quat r = {0, 0, 0, 1}) {
    bone b;
    b.name = n;
    b.parent = p;
    b.translation = t;
    b.rotation = r;
    sk.bones.push_back(b);
  };
  add(male, "CharacterWorldSpaceTM", -1, {0, 0, 0});
  add(male, "Male", 0, {0, 0, 0});
  add(male, "trajectory", 0, {0, 0, 0});
  add(male, "COG", 1, {0, 1.0f, 0});
  add(male, "pelvis", 3, {0, 0.05f, 0}, about(1, 0, 0, 5));
  add(male, "spine", 4, {0, 0.2f, 0});
  add(male, "arm", 5, {0.3f, 0.1f, 0}, about(0, 0, 1, 10));
  skeleton turret;
  turret.name = "Turret";
  add(turret, "base", -1, {0, 0, 0});
  add(turret, "yaw", 0, {0, 0.5f, 0});
  add(turret, "barrel", 1, {0, 0.2f, 0.4f});
  s.skeletons = {male, turret};

  auto rot_track = [](const char* bone, std::vector<float> times, std::vector<quat> qs) {
    track t;
    t.bone = bone;
    t.path = path::rotation;
    t.times = times;
    for (auto& q : qs) t.values.insert(t.values.end(), q.begin(), q.end());
    return t;
  };
  auto pos_track = [](const char* bone, std::vector<float> times, std::vector<vec3> vs) {
    track t;
    t.bone = bone;
    t.path = path::translation;
    t.times = times;
    for (auto& v : vs) t.values.insert(t.values.end(), v.begin(), v.end());
    return t;
  };
  // 1. pure static pose: no dynamic segment.
  animation idle;
  idle.name = "Male_Idle";
  idle.duration = 1.0;
  idle.fps = 30;
  // 2. three dynamic rotations, no dynamic translation (dynamic T count 0).
  animation wave;
  wave.name = "Male_Wave";
  wave.duration = 1.0;
  wave.fps = 30;
  wave.tracks.push_back(rot_track("arm", {0, 0.5f, 1}, {about(0, 0, 1, 10), about(0, 0, 1, 80), about(0, 0, 1, 10)}));
  wave.tracks.push_back(rot_track("spine", {0, 1}, {about(0, 1, 0, -10), about(0, 1, 0, 15)}));
  wave.tracks.push_back(rot_track("pelvis", {0, 0.5f, 1}, {about(1, 0, 0, 5), about(1, 0, 0, -5), about(1, 0, 0, 5)}));
  // 3. root motion with a rotating trajectory (factor form), one dynamic translation.
  animation walk;
  walk.name = "Male_Walk";
  walk.duration = 2.0;
  walk.fps = 30;
  walk.tracks.push_back(pos_track("trajectory", {0, 2}, {{0, 0, 0}, {0.5f, 0, 3.0f}}));
  walk.tracks.push_back(rot_track("trajectory", {0, 2}, {about(0, 1, 0, 0), about(0, 1, 0, 90)}));
  walk.tracks.push_back(pos_track("COG", {0, 0.5f, 1, 1.5f, 2}, {{0, 1, 0}, {0, 0.95f, 0.02f}, {0, 1, 0}, {0, 0.95f, -0.02f}, {0, 1, 0}}));
  walk.tracks.push_back(rot_track("pelvis", {0, 1, 2}, {about(0, 1, 0, -8), about(0, 1, 0, 8), about(0, 1, 0, -8)}));
  walk.extras["root_motion"] = {"trajectory"};
  // 4. constant trajectory rotation at the origin; every other rotation animated, so the
  //    static segment has rotation count 0 (six rotation channels: not a multiple of 4).
  animation turn;
  turn.name = "Male_Turn";
  turn.duration = 0.5;
  turn.fps = 30;
  turn.tracks.push_back(rot_track("trajectory", {0, 0.5f}, {about(0, 1, 0, 45), about(0, 1, 0, 45)}));
  const char* names[] = {"CharacterWorldSpaceTM", "Male", "COG", "pelvis", "spine", "arm"};
  float k = 0;
  for (auto n : names) {
    k += 7;
    turn.tracks.push_back(rot_track(n, {0, 0.5f}, {about(0, 1, 0, -k), about(1, 0, 0, k)}));
  }
  turn.extras["root_motion"] = {"trajectory"};
  // 5. second rig, paired by the "Turret_" name prefix.
  animation fire;
  fire.name = "Turret_Fire";
  fire.skeleton = 1;
  fire.duration = 0.4;
  fire.fps = 30;
  fire.tracks.push_back(pos_track("barrel", {0, 0.1f, 0.4f}, {{0, 0.2f, 0.4f}, {0, 0.2f, 0.25f}, {0, 0.2f, 0.4f}}));
  fire.tracks.push_back(rot_track("yaw", {0, 0.4f}, {about(0, 1, 0, 0), about(0, 1, 0, 30)}));
  s.animations = {idle, wave, walk, turn, fire};
  return s;
}

}  // namespace morpheme_test
