// Scene animations (FSCN) and their cameras (FCAM), Wii U and Switch (README: Cameras).
// Layout from the notes (BfresLibrary / NintenTools field order); no real file with an FSCN
// has been at hand, so every path is checked by hand-built vectors only.
#include <cmath>

#include "core/byte_reader.hpp"
#include "formats/bfres/fres.hpp"
#include "formats/bfres/fres_detail.hpp"

namespace rigrip::bfres::detail {
namespace {
using core::byte_reader;
using core::fail;

constexpr std::uint32_t kMaxFrames = 1000000;

// Base values (11 floats) and the frame count, shared checks of both platforms.
void check_camera(const byte_reader& file, camera_anim& c, std::uint32_t base_at) {
  if (c.frame_count < 0 || static_cast<std::uint32_t>(c.frame_count) > kMaxFrames)
    fail(code::bad_value, "camera animation '" + c.name + "' frame count " + std::to_string(c.frame_count) +
                              " outside 0.." + std::to_string(kMaxFrames), c.at);
  if (!base_at) fail(code::bad_offset, "camera animation '" + c.name + "' has no base values", c.at);
  byte_reader b = file.peek(base_at);
  b.checked_count(11, 4, "camera base values");
  for (std::size_t k = 0; k < 11; ++k) {
    c.base[k] = b.f32();
    if (!std::isfinite(c.base[k])) fail(code::bad_value, "non-finite camera base value", base_at + 4 * k);
  }
  for (const auto& cv : c.curves)
    if (cv.target % 4 != 0 || cv.target > 0x28)
      fail(code::bad_value, "camera curve target " + std::to_string(cv.target) + " is not a camera value", cv.at);
}

// The FCAM fields both platforms store in this order: u16 flags, pad, s32 frame count, u8 curve
// count, pad, u16 user data, u32 baked size. Returns the curve count.
std::uint8_t read_camera_fields(byte_reader r, camera_anim& c) {
  c.flags = r.u16();
  r.skip(2);
  c.frame_count = r.i32();
  const std::uint8_t n_curves = r.u8();
  r.skip(1);
  c.num_user_data = r.u16();
  c.baked_size = r.u32();
  return n_curves;
}

// Wii U FCAM (0x24): magic, u16 flags, pad, s32 frames, u8 curves, pad, u16 user data,
// u32 baked size, offsets name, curves, base values, user-data dictionary.
camera_anim parse_fcam_wiiu(const byte_reader& file, std::uint32_t at, bool v34) {
  file.checked_count_at(at, 1, 0x24, "camera animation");
  if (file.peek(at).fixed_string(4) != "FCAM") fail(code::bad_magic, "expected 'FCAM'", at);
  camera_anim c;
  c.at = at;
  const std::uint8_t n_curves = read_camera_fields(file.peek(at + 4), c);
  byte_reader r = file.peek(at + 0x14);
  c.name = read_name(file, read_offset(r));
  const std::uint32_t curves_at = read_offset(r), base_at = read_offset(r);
  const std::uint32_t curve_size = v34 ? 0x24 : 0x20;
  if (n_curves && !curves_at) fail(code::bad_offset, "camera curves declared but absent", at + 0x18);
  if (n_curves) file.checked_count_at(curves_at, n_curves, curve_size, "camera curves");
  for (std::uint32_t i = 0; i < n_curves; ++i) c.curves.push_back(parse_curve_at(file, curves_at + i * curve_size, v34));
  check_camera(file, c, base_at);
  return c;
}

// Switch FCAM (0x48 in 0.5-0.8): magic, block header, u64 offsets name, curves, base
// values, user data and its dictionary; u16 flags, pad, s32 frames, u8 curves, pad,
// u16 user data, u32 baked size. From 0.9 (0x40; BfresLibrary's loader): magic, u16 flags,
// pad, the same five offsets, then s32 frames, u32 baked size, u16 user data, u8 curves, pad.
camera_anim parse_fcam_switch(const byte_reader& file, std::uint32_t at, bool v09) {
  file.checked_count_at(at, 1, v09 ? 0x40 : 0x48, "camera animation");
  if (file.peek(at).fixed_string(4) != "FCAM") fail(code::bad_magic, "expected 'FCAM'", at);
  camera_anim c;
  c.at = at;
  const std::uint32_t b = at + (v09 ? 8 : 0x10);  // the first offset
  c.name = switch_name_at(file, switch_offset_at(file, b));
  const std::uint32_t curves_at = switch_offset_at(file, b + 8), base_at = switch_offset_at(file, b + 0x10);
  std::uint8_t n_curves = 0;
  if (v09) {
    c.flags = file.peek(at + 4).u16();
    byte_reader r = file.peek(b + 0x28);
    c.frame_count = r.i32();
    c.baked_size = r.u32();
    c.num_user_data = r.u16();
    n_curves = r.u8();
  } else {
    n_curves = read_camera_fields(file.peek(at + 0x38), c);
  }
  if (n_curves && !curves_at) fail(code::bad_offset, "camera curves declared but absent", at + 0x18);
  if (n_curves) file.checked_count_at(curves_at, n_curves, 0x30, "camera curves");
  for (std::uint32_t i = 0; i < n_curves; ++i) c.curves.push_back(parse_switch_curve_at(file, curves_at + i * 0x30));
  check_camera(file, c, base_at);
  return c;
}

}  // namespace

// Wii U FSCN (0x24): magic, offsets name, path, u16 user data, cameras, lights, fogs, then
// offsets of the camera, light, fog and user-data dictionaries.
std::vector<scene_anim> parse_scene_anims_wiiu(const byte_reader& file, const dict& d, bool v34) {
  std::vector<scene_anim> out;
  if (!v34) return out;  // pre-3.4 scene animations are not described by the notes
  for (std::size_t i = 1; i < d.nodes.size(); ++i) {
    const std::uint32_t at = d.nodes[i].data_at;
    if (!at) fail(code::bad_offset, "scene-animation dictionary entry without data", d.nodes[i].at + 12);
    file.checked_count_at(at, 1, 0x24, "scene animation");
    if (file.peek(at).fixed_string(4) != "FSCN") fail(code::bad_magic, "expected 'FSCN'", at);
    spend(1, at);
    scene_anim s;
    s.at = at;
    byte_reader r = file.peek(at + 4);
    s.name = read_name(file, read_offset(r));
    s.path = read_name(file, read_offset(r));
    r.skip(2);
    const std::uint16_t n_cam = r.u16();
    s.num_lights = r.u16();
    s.num_fogs = r.u16();
    const std::uint32_t cam_dict = read_offset(r);
    if (n_cam) {
      if (!cam_dict) fail(code::bad_offset, "cameras counted but no dictionary", at + 0x14);
      const dict cd = parse_dict(file, cam_dict);
      if (cd.count != n_cam)
        fail(code::bad_count, "camera dictionary has " + std::to_string(cd.count) + " entries for " +
                                  std::to_string(n_cam) + " cameras", cam_dict + 4);
      for (std::size_t k = 1; k < cd.nodes.size(); ++k) {
        if (!cd.nodes[k].data_at) fail(code::bad_offset, "camera dictionary entry without data", cd.nodes[k].at + 12);
        spend(1, cd.nodes[k].data_at);
        s.cameras.push_back(parse_fcam_wiiu(file, cd.nodes[k].data_at, v34));
      }
    }
    out.push_back(std::move(s));
  }
  return out;
}

// Switch FSCN (0x68 in 0.5-0.8, back to back): magic, block header, u64 offsets name, path,
// camera array and dictionary, light array and dictionary, fog array and dictionary,
// user-data array and dictionary, then u16 user data, cameras, lights, fogs. From 0.9 a u32
// of flags replaces the block header (0x60; the fields start 8 bytes earlier).
std::vector<scene_anim> parse_scene_anims_switch(const byte_reader& file, std::uint32_t array_at, std::uint32_t count,
                                                 bool v09) {
  const std::uint32_t fscn_size = v09 ? 0x60 : 0x68, fcam_size = v09 ? 0x40 : 0x48, first = v09 ? 8 : 0x10;
  file.checked_count_at(array_at, count, fscn_size, "scene animations");
  std::vector<scene_anim> out;
  for (std::uint32_t i = 0; i < count; ++i) {
    const std::uint32_t at = array_at + i * fscn_size;
    if (file.peek(at).fixed_string(4) != "FSCN") fail(code::bad_magic, "expected 'FSCN'", at);
    spend(1, at);
    scene_anim s;
    s.at = at;
    s.name = switch_name_at(file, switch_offset_at(file, at + first));
    s.path = switch_name_at(file, switch_offset_at(file, at + first + 8));
    const std::uint32_t cam_array = switch_offset_at(file, at + first + 0x10);
    byte_reader r = file.peek(at + first + 0x50);
    r.skip(2);
    const std::uint16_t n_cam = r.u16();
    s.num_lights = r.u16();
    s.num_fogs = r.u16();
    if (n_cam) {
      if (!cam_array) fail(code::bad_offset, "cameras counted but no array", at + first + 0x10);
      file.checked_count_at(cam_array, n_cam, fcam_size, "cameras");
      for (std::uint32_t k = 0; k < n_cam; ++k) {
        spend(1, cam_array + k * fcam_size);
        s.cameras.push_back(parse_fcam_switch(file, cam_array + k * fcam_size, v09));
      }
    }
    out.push_back(std::move(s));
  }
  return out;
}

}  // namespace rigrip::bfres::detail
