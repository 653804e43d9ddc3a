// Poses of a skeleton: rest pose, sampling an animation's tracks, world matrices
// (with segment scale compensation as scene-model.md defines it).
#pragma once

#include <vector>

#include "core/math.hpp"
#include "rigrip/scene.hpp"

namespace rigrip::scene_ops {

using core::mat4;

// Local transforms of every bone of a skeleton (one pose).
struct pose {
  std::vector<vec3> translation;
  std::vector<quat> rotation;
  std::vector<vec3> scale;
};
[[nodiscard]] pose rest_pose(const skeleton& s);
// The pose of `a` at `time` seconds: each bone's tracks sampled, else its rest value.
[[nodiscard]] pose sample_pose(const skeleton& s, const animation& a, float time);
// 1/s per component for segment scale compensation; a zero component stays 0 (the
// child collapses with its parent, which is all plain inheritance can say).
[[nodiscard]] vec3 compensation(const vec3& parent_scale);
// World (model-space) matrices of every bone. Plain T*R*S inheritance, except that a
// bone with segment_scale_compensate uses W_parent * T(t) * S(1/s_parent) * R * S,
// which equals Maya's W_parent * S_parent^-1 * T(s_parent . t) * R * S (scene-model.md).
[[nodiscard]] std::vector<mat4> world_matrices(const skeleton& s, const pose& p);
[[nodiscard]] std::vector<mat4> world_matrices(const skeleton& s);  // rest pose
// world_matrices(s, p) into `out` (resized; its storage reused across frames).
void world_matrices(const skeleton& s, const pose& p, std::vector<mat4>& out);
// Bone i's world from its parent's world (world_matrices' formula for one bone, so a
// caller computing only some bones gets the same floats); `parent_world` is unused for a root.
[[nodiscard]] mat4 bone_world(const skeleton& s, const pose& p, std::size_t i,
                              const mat4& parent_world);

// Samples a track at time t (seconds) with its own interpolation, returning
// components(path) floats. Clamps outside the key range.
[[nodiscard]] std::vector<float> sample(const track& t, float time);
// The same into out[0, components(path)) without allocating (per bone and frame in loops).
void sample(const track& t, float time, float* out);
// The same with a key cursor for times sampled in increasing order (steps forward instead of
// a binary search; any other order searches): the same segment, so the same floats. Start at 0.
void sample(const track& t, float time, float* out, std::size_t& cursor);

// An additive clip's keys are deltas from identity/zero (rotation, translation) or one
// (scale): on their own they fold every bone to the origin. Layered onto the rest pose
// (local: t_rest + dt, r_rest * dr, s_rest * ds) they play as the game shows them over an idle
// pose. Does nothing unless the clip's extras say `additive`; cubic tangents (derivatives) get
// no offset. Used by the glTF writer and the previewer alike.
void layer_additive_onto_rest(animation& a, const skeleton& sk);

}  // namespace rigrip::scene_ops
