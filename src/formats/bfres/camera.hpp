// Cameras of BFRES files -> scene cameras: Breath of the Wild's `.brtcamera` key lists
// (embedded in `.bcamanim` Switch FRES files) and the aim / Euler conventions shared with
// FCAM scene animations (README: Cameras).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "formats/bfres/fres.hpp"
#include "rigrip/scene.hpp"

namespace rigrip::bfres {

// One key of a .brtcamera (0x28 bytes, little-endian).
struct rt_camera_key {
  std::uint32_t flags = 0;  // 0 or 1 in the samples (meaning unknown; kept)
  float frame = 0;
  float fov_degrees = 0;  // field of view, degrees (taken as vertical)
  std::array<float, 3> eye{}, target{};
  float twist_degrees = 0;  // roll about the view axis, degrees
};

// A .brtcamera: a 0x40-byte path, u32 key count, f32 end frame, u32 (0), then the keys.
struct rt_camera {
  std::uint64_t at = 0;  // position in the enclosing file (error offsets)
  std::string path;
  float end_frame = 0;
  std::uint32_t reserved = 0;
  std::vector<rt_camera_key> keys;
};

inline constexpr std::uint32_t rt_camera_header_size = 0x4C, rt_camera_key_size = 0x28;

// Parses a .brtcamera held in `data` at file offset `at`; throws core::failure on damage
// (key count past the data, non-finite values, frames not increasing, end before the last key).
[[nodiscard]] rt_camera parse_rt_camera(std::span<const std::uint8_t> data, std::uint64_t at);
[[nodiscard]] nlohmann::json to_json(const rt_camera& c);
// The camera of an embedded file whose name ends in `.brtcamera` (nullopt for other files).
[[nodiscard]] std::optional<rt_camera> embedded_camera(const file& f, const external_file& e);

// The rotation of a camera at `eye` looking at `target` (glTF's convention: the camera
// looks down its local -Z with +Y up), world +Y up, then turned by `twist` radians about
// its view axis (positive: counter-clockwise as the camera sees it, i.e. about local +Z).
// Looking straight up or down, local +X is world +X.
[[nodiscard]] quat aim_rotation(const vec3& eye, const vec3& target, double twist);

// The camera and its clip: eye, target, twist and fov interpolated linearly between keys
// and the rotation computed at every frame (exact for that reading of the keys).
void add_rt_camera(const rt_camera& c, const std::string& name, double fps, scene& s);

// FSCN cameras: one scene camera per FCAM (named after it), one camera clip per FSCN,
// sampled at every frame through the runtime's curve evaluation. Aim mode: position and
// target, twist (radians) about the view axis; Euler mode: angles (radians) applied Z, then
// X, then Y (R = Ry * Rx * Rz). Field of view in radians. Returns the number of lights and
// fogs (not read). Fails with E_LIMIT when sampling would cost more than `sample_limit`.
std::size_t add_scene_cameras(const file& f, double fps, std::uint64_t sample_limit, scene& s);

}  // namespace rigrip::bfres
