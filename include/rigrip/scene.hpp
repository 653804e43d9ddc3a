// The neutral scene model every format decodes to and encodes from.
// Units and axes are the source's own; the glTF writer converts once, at the root.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "rigrip/error.hpp"
#include "rigrip/types.hpp"

namespace rigrip {

struct bone {
  std::string name;  // unique within the skeleton; "bone_<index>" when the source has none
  int parent = -1;   // index of the parent bone; parents precede children
  vec3 translation{0, 0, 0};
  quat rotation{0, 0, 0, 1};
  vec3 scale{1, 1, 1};
  // Maya-style segment scale compensation: this bone does not inherit its parent's own
  // local scale, but its translation is stretched by it:
  //   world = world(parent) * S(parent)^-1 * T(parent.scale . t) * R * S.
  // The glTF writer models it exactly with a helper node; writers that cannot store it
  // get a scene with it baked into plain T*R*S locals (scene/ssc.hpp).
  bool segment_scale_compensate = false;
  nlohmann::json extras;  // format-specific facts (flags, ids, tag kind, ...)
};

struct skeleton {
  std::string name;
  std::vector<bone> bones;
  nlohmann::json extras;
  [[nodiscard]] int find(std::string_view bone_name) const;
};

enum class path { translation, rotation, scale };
enum class interpolation { step, linear, cubic_spline };

[[nodiscard]] std::string_view to_string(path p);
[[nodiscard]] std::string_view to_string(interpolation i);
[[nodiscard]] std::optional<path> path_from_string(std::string_view s);
[[nodiscard]] std::optional<interpolation> interpolation_from_string(std::string_view s);
[[nodiscard]] int components(path p);  // 3 or 4

struct track {
  std::string bone;  // bone name in the animation's skeleton
  rigrip::path path = path::rotation;
  rigrip::interpolation interpolation = interpolation::linear;
  std::vector<float> times;  // seconds, strictly increasing, within [0, duration]
  // Flat values: components(path) floats per element; one element per key for
  // STEP/LINEAR, three per key (in-tangent, value, out-tangent) for CUBICSPLINE.
  std::vector<float> values;
  [[nodiscard]] std::size_t elements_per_key() const {
    return interpolation == interpolation::cubic_spline ? 3 : 1;
  }
};

// A material's texture-coordinate transform over time (glTF: KHR_texture_transform on
// every texture of `material` that reads UV set `texcoord`, animated through
// KHR_animation_pointer). uv' = T(offset) * R(rotation) * S(scale) * uv, as glTF defines it.
struct material_track {
  enum class target { offset, rotation, scale };
  int material = -1;  // index into scene::materials
  int texcoord = 0;   // 0 = mesh::uvs, 1 = mesh::uvs1
  target property = target::offset;
  rigrip::interpolation interpolation = interpolation::linear;  // step or linear
  std::vector<float> times;   // seconds, strictly increasing, within [0, duration]
  std::vector<float> values;  // 2 (offset, scale) or 1 (rotation, radians) per key
  [[nodiscard]] std::size_t components() const { return property == target::rotation ? 1 : 2; }
};
[[nodiscard]] std::string_view to_string(material_track::target t);

struct animation {
  std::string name;
  int skeleton = 0;      // index into scene::skeletons
  double duration = 0;   // seconds
  std::optional<double> fps;  // source frame rate, when the format has one
  std::vector<track> tracks;
  nlohmann::json extras;  // e.g. {"additive": true, "root_motion_bone": "..."}
  std::vector<material_track> material_tracks;  // material animation (optional)
};

// How a texture is sampled (glTF sampler). The defaults keep retro texels crisp and
// unbled at atlas edges; formats that store sampler state set their own.
enum class texture_wrap { clamp_to_edge, repeat, mirrored_repeat };
enum class texture_filter { nearest, linear };

struct texture {
  std::string name;
  std::uint32_t width = 0;
  std::uint32_t height = 0;
  std::vector<std::uint8_t> rgba;  // width * height * 4 bytes, rows top to bottom
  texture_wrap wrap_s = texture_wrap::clamp_to_edge, wrap_t = texture_wrap::clamp_to_edge;
  texture_filter mag_filter = texture_filter::nearest, min_filter = texture_filter::nearest;
  nlohmann::json extras;
  // The smaller mip levels (1, 2, ...) when the source stores them: each width * height * 4
  // bytes. Writers that keep one image (glTF) use `rgba`, level 0.
  struct level {
    std::uint32_t width = 0, height = 0;
    std::vector<std::uint8_t> rgba;
  };
  std::vector<level> mips;
};

struct material {
  std::string name;
  vec4 base_color{1, 1, 1, 1};
  int texture = -1;  // index into scene::textures: base colour (sRGB)
  int texcoord = 0;  // UV set of `texture`: 0 = mesh::uvs, 1 = mesh::uvs1
  int normal_texture = -1;  // tangent-space normal map (linear), or -1
  int normal_texcoord = 0;
  int emissive_texture = -1;  // emission map (sRGB), scaled by emissive_factor
  int emissive_texcoord = 0;
  vec3 emissive_factor{0, 0, 0};
  bool double_sided = false;
  enum class alpha { opaque, mask, blend } alpha_mode = alpha::opaque;
  float alpha_cutoff = 0.5f;
  bool unlit = false;
  nlohmann::json extras;
};

// One primitive's worth of geometry. Either skinned (joints/weights) or rigid
// (bound whole to one bone through `bone`), or neither (static).
struct mesh {
  std::string name;
  int skeleton = -1;  // skeleton index the joints/bone refer to, -1 for none
  int bone = -1;      // rigid binding: the bone this mesh moves with, in bone space
  int material = -1;
  std::vector<vec3> positions;
  std::vector<vec3> normals;       // empty or same count as positions
  // Tangent space for normal maps: empty, or same count as positions (with normals): xyz a unit
  // vector along +u, w = +1 or -1, the bitangent's handedness (glTF's TANGENT).
  std::vector<vec4> tangents;
  std::vector<vec2> uvs;           // empty or same count (top-left origin, as glTF)
  std::vector<vec2> uvs1;          // second UV set: empty or same count
  std::vector<vec4> colors;        // empty or same count, linear RGBA 0..1
  std::vector<std::array<std::uint16_t, 4>> joints;  // empty or same count
  std::vector<vec4> weights;                         // same count as joints
  std::vector<std::uint32_t> indices;  // triangles; empty means non-indexed triangles
  nlohmann::json extras;
};

// A camera, as glTF models one: it looks down its local -Z axis with +Y up; `translation` and
// `rotation` place it in the scene's (source) axes and units, like a root bone.
struct camera {
  std::string name;  // unique among the scene's cameras
  enum class projection { perspective, orthographic } type = projection::perspective;
  float yfov = 0.7853982f;      // perspective: vertical field of view, radians, in (0, pi)
  std::optional<float> aspect;  // perspective: width / height, when the source fixes it
  float znear = 0.1f;           // > 0, source units
  std::optional<float> zfar;    // > znear; none = infinite (perspective only)
  float xmag = 1, ymag = 1;     // orthographic: half width / height, source units
  vec3 translation{0, 0, 0};
  quat rotation{0, 0, 0, 1};
  nlohmann::json extras;
};

// Scalar keys of a camera's lens (STEP or LINEAR, one value per key).
struct camera_lens_track {
  std::string camera;  // camera name
  rigrip::interpolation interpolation = interpolation::linear;
  std::vector<float> times;   // seconds, strictly increasing, within [0, duration]
  std::vector<float> yfov;    // radians, one per key
};

// A camera clip: `tracks` move cameras (track::bone names a camera; translation and
// rotation only), `lens` changes their field of view.
struct camera_animation {
  std::string name;
  double duration = 0;
  std::optional<double> fps;
  std::vector<track> tracks;
  std::vector<camera_lens_track> lens;
  nlohmann::json extras;
};

struct scene {
  std::string format;  // format id the scene was read from, e.g. "bfres"
  std::vector<skeleton> skeletons;
  std::vector<animation> animations;
  std::vector<mesh> meshes;
  std::vector<texture> textures;
  std::vector<material> materials;
  std::vector<camera> cameras;
  std::vector<camera_animation> camera_animations;
  nlohmann::json metadata = nlohmann::json::object();  // free-form facts about the source

  // Checks every invariant of the model (see docs/scene-model.md). The error's
  // message names the offending element, e.g. "animations[2].tracks[5].times[7]".
  [[nodiscard]] result<void> validate() const;
};

}  // namespace rigrip
