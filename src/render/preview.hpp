// Pictures of a scene without a GPU: the skeleton posed at a time of a clip, the meshes
// skinned on the CPU as the glTF writer binds them (skinned: inverse bind matrices of the rest
// pose; rigid: in their bone's space; static: as they are), drawn textured and flat-lit with
// the bones on top, from a fixed three-quarter camera framed on the model over the whole clip.
// Knows the scene model only.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "render/raster.hpp"
#include "rigrip/scene.hpp"

namespace rigrip::render {

struct preview_options {
  int width = 256, height = 256;
  int animation = -1;  // index into scene::animations; -1: the rest pose
  bool bones = true;   // the skeleton as lines on top
  bool grid = true;    // a ground grid under the model
};

class previewer {
 public:
  // Prepares the scene (additive clips layered onto the rest pose, as the glTF writer plays
  // them) and frames the camera on the model's bounds over the whole clip.
  previewer(const scene& s, const preview_options& o);
  // The picture at `time` seconds into the clip (clamped to the clip).
  [[nodiscard]] canvas render(double time) const;
  [[nodiscard]] double duration() const;  // of the clip, 0 for the rest pose
  [[nodiscard]] std::optional<double> fps() const;
  [[nodiscard]] bool empty() const { return empty_; }  // nothing to draw: no bones, no triangles

 private:
  struct posed {
    std::vector<std::vector<vec3>> positions;  // per mesh, per vertex: model space, Y up
    std::vector<std::vector<vec3>> joints;     // per skeleton, per bone: its head
  };
  [[nodiscard]] posed pose_at(double time) const;

  scene scene_;
  preview_options o_;
  std::vector<std::vector<std::array<float, 16>>> rest_inverse_;  // per skeleton, per bone
  std::vector<std::array<float, 16>> holder_;  // per skeleton: root rotation * display offset
  quat root_{0, 0, 0, 1};                      // root_transform rotation (source axes to Y up)
  // Camera: position, orthonormal basis (forward points into the picture), half-angle tangents.
  vec3 eye_{}, right_{}, up_{}, forward_{};
  float tan_x_ = 1, tan_y_ = 1, near_ = 0.01f;
  float ground_y_ = 0, grid_step_ = 1;
  vec3 grid_centre_{};
  int grid_cells_ = 0;
  bool empty_ = true;
};

}  // namespace rigrip::render
