// Segment scale compensation (bone::segment_scale_compensate) beyond the glTF writer:
// which bones it actually changes, and baking it into plain T*R*S inheritance for
// writers that cannot store it.
#pragma once

#include <array>
#include <span>
#include <vector>

#include "rigrip/error.hpp"
#include "rigrip/scene.hpp"

namespace rigrip::scene_ops {

// Per bone of skeleton `skeleton_index`: true when the bone compensates and its parent's
// scale is not 1 in the rest pose or at any key of any animation of that skeleton (only
// then does compensation change anything).
[[nodiscard]] std::vector<bool> compensating_bones(const scene& s, std::size_t skeleton_index);

// Rewrites `s` so that no bone has segment_scale_compensate, keeping every bone's world
// matrix. Exact when each compensated bone's parent scale is uniform (its scale is
// divided by the parent's); otherwise the affected bones' locals are solved per frame
// from the world matrices (closest rotation, W_LOSSY when the difference exceeds 1e-4).
// Returns the largest world-matrix element difference introduced (0 when exact).
float bake_segment_scale_compensate(scene& s, diagnostics& diags);

// How far a baked skeleton's worlds are from the original SSC-aware ones for one clip
// (every frame at the clip's fps, 30 when unknown, and every key time): the largest bone
// position difference in the file's units and the largest axis-direction difference in
// degrees. `anim` < 0 measures the rest pose only.
struct bake_error {
  double position = 0;
  double degrees = 0;
};
[[nodiscard]] bake_error measure_bake_error(const scene& original, const scene& baked, int anim);

// bake_segment_scale_compensate(s, diags), then measure_bake_error(original, s, i) for every
// animation i (`animations`) and the rest pose (`rest`), with `original` the scene as it was:
// the same numbers, for less work (the measurement reuses the original worlds the bake
// sampled at the times both use).
struct measured_bake {
  float worst = 0;  // what bake_segment_scale_compensate returns
  std::vector<bake_error> animations;
  bake_error rest;
};
[[nodiscard]] measured_bake bake_and_measure(scene& s, diagnostics& diags);

namespace detail {
// bake_segment_scale_compensate without its shortcuts (the exact per-frame paths, the
// cofactor inverse, Newton's polar iteration): every affected bone solved by SVD at every
// frame, as before they existed. The reference the tests compare the bake with.
float bake_reference(scene& s, diagnostics& diags);
// measure_bake_error measuring every bone whose worlds may differ (without taking b's world
// as a's for a bone that compensates only in a under a parent scale of exactly 1): the same
// doubles. The reference the tests compare the report with.
bake_error measure_bake_error_plain(const scene& original, const scene& baked, int anim);
// bake_and_measure keeping at most `budget` bone samples per animation for the measurement
// (the rest it samples again): the tests' way to reach the partly shared path. `plain`: as
// measure_bake_error_plain measures.
measured_bake bake_and_measure(scene& s, diagnostics& diags, std::size_t budget, bool plain = false);
// The bake's polar rotation (Newton's iteration, one cofactor pass per step) and the loop it
// replaced (det3 and inverse3 per step): the same result and the same doubles, or both false.
bool polar_rotation(const double a[3][3], double r[3][3]);
bool polar_rotation_plain(const double a[3][3], double r[3][3]);
// One Newton step of polar_rotation from the row-major 3x3 `from` (may be x) into x, with c
// the transposed cofactors of `from`, d = 1 / det and the gain g (1 after the first step):
// x <- (g * from + c * d / g) / 2, returning the largest |change|. SSE2 where available, and
// the portable form beside it (the same doubles).
double polar_step(const double from[9], double x[9], const double c[9], double d, double g);
double polar_step_scalar(const double from[9], double x[9], const double c[9], double d, double g);
// measure_bake_error's step for one bone's original and baked worlds: the largest
// translation difference into `position`, the smallest cosine between the images of a local
// axis into `min_cos`. SSE2 where available, and the portable form beside it (the same doubles).
void accumulate_pair(const std::array<float, 16>& x, const std::array<float, 16>& y, double& position,
                     double& min_cos);
void accumulate_pair_scalar(const std::array<float, 16>& x, const std::array<float, 16>& y, double& position,
                            double& min_cos);
// Whether all 16 floats of a world matrix are finite: SSE2 where available, and
// core::all_finite beside it (the same answer).
bool all_finite(const std::array<float, 16>& m);
bool all_finite_scalar(const std::array<float, 16>& m);
// Whether all 12 doubles of an affine map (row-major 3x3 `a`, translation `t`) are finite:
// SSE2 where available, and std::isfinite per element beside it (the same answer).
bool affine_finite(const double a[9], const double t[3]);
bool affine_finite_scalar(const double a[9], const double t[3]);
// The largest |difference| between the 12 doubles of two affine maps (NaN differences
// ignored): SSE2 where available, and the portable loop beside it (the same double).
double max_difference(const double a[9], const double t[3], const double b[9], const double u[3]);
double max_difference_scalar(const double a[9], const double t[3], const double b[9], const double u[3]);
// The bake's and the report's time lists: `times` plus every array appended, sorted, exact
// duplicates removed (or, `within_1e5`, values within 1e-5 of the last kept one). `share`
// skips arrays bit-equal to one already appended when that cannot change the result.
std::vector<float> merge_times(std::vector<float> times, const std::vector<const std::vector<float>*>& arrays,
                               bool within_1e5, bool share);
// The bake's affine product (row-major 3x3 and translation) in SSE2 where available, and the
// portable form beside it: the same doubles, but for which NaN payload a sum keeps.
void affine_mul(const double xa[9], const double xt[3], const double ya[9], const double yt[3], double ra[9],
                double rt[3]);
void affine_mul_scalar(const double xa[9], const double xt[3], const double ya[9], const double yt[3], double ra[9],
                       double rt[3]);
// Whether the ten floats of a solved local (t, r, s) / every float of v are finite: SSE2 where
// available, and the portable form beside it.
bool trs_finite(const float v[10]);
bool trs_finite_scalar(const float v[10]);
bool floats_finite(std::span<const float> v);
bool floats_finite_scalar(std::span<const float> v);
// Replaces a's track of t's bone and path by t (appended); replace_tracks does a batch of them
// in one pass, with the same tracks in the same order as one replace_track after another.
void replace_track(animation& a, track t);
void replace_tracks(animation& a, std::vector<track> added, const skeleton& sk);
}  // namespace detail

}  // namespace rigrip::scene_ops
