// Breath of the Wild's .brtcamera keys -> an animated scene camera (camera.hpp).
#include "formats/bfres/camera.hpp"

#include <algorithm>
#include <cmath>

#include "core/byte_reader.hpp"
#include "core/failure.hpp"
#include "core/math.hpp"

namespace rigrip::bfres {
namespace {
using core::fail;

constexpr double deg = 3.14159265358979323846 / 180.0;
// The file has no clip planes: BotW-sized defaults (metres), stated in the camera's extras.
constexpr float default_znear = 0.1f, default_zfar = 10000.0f;

float finite_at(core::byte_reader& r, const char* what) {
  const std::uint64_t at = r.abs();
  const float v = r.f32();
  if (!std::isfinite(v)) fail(code::bad_value, std::string("non-finite ") + what, at);
  return v;
}

double lerp(double a, double b, double t) { return a + (b - a) * t; }
}  // namespace

rt_camera parse_rt_camera(std::span<const std::uint8_t> data, std::uint64_t at) {
  core::byte_reader r(data, core::endian::little, at);
  rt_camera c;
  c.at = at;
  r.checked_count(1, rt_camera_header_size, "camera header");
  c.path = r.fixed_string(0x40);
  const std::uint32_t n = r.u32();
  c.end_frame = finite_at(r, "end frame");
  c.reserved = r.u32();
  if (n == 0) fail(code::bad_count, "camera without keys", at + 0x40);
  r.checked_count(n, rt_camera_key_size, "camera keys");
  c.keys.reserve(n);
  for (std::uint32_t i = 0; i < n; ++i) {
    rt_camera_key k;
    const std::uint64_t key_at = r.abs();
    k.flags = r.u32();
    k.frame = finite_at(r, "key frame");
    k.fov_degrees = finite_at(r, "field of view");
    for (auto& v : k.eye) v = finite_at(r, "eye position");
    for (auto& v : k.target) v = finite_at(r, "target position");
    k.twist_degrees = finite_at(r, "twist");
    if (k.frame < 0 || k.frame > 1e6f) fail(code::bad_value, "key frame " + std::to_string(k.frame) + " outside 0..1000000", key_at + 4);
    if (!c.keys.empty() && !(k.frame > c.keys.back().frame))
      fail(code::bad_value, "key frames not increasing (" + std::to_string(c.keys.back().frame) + " then " +
                                std::to_string(k.frame) + ")", key_at + 4);
    if (!(k.fov_degrees > 0 && k.fov_degrees < 180))
      fail(code::bad_value, "field of view " + std::to_string(k.fov_degrees) + " degrees outside (0, 180)", key_at + 8);
    c.keys.push_back(k);
  }
  if (c.end_frame < c.keys.back().frame || c.end_frame > 1e6f)
    fail(code::bad_value, "end frame " + std::to_string(c.end_frame) + " before the last key or past 1000000", at + 0x44);
  return c;
}

std::optional<rt_camera> embedded_camera(const file& f, const external_file& e) {
  const std::string ext = ".brtcamera";
  if (e.name.size() <= ext.size() || e.name.compare(e.name.size() - ext.size(), ext.size(), ext) != 0) return std::nullopt;
  // parse_switch checked that the file's bytes lie inside the image.
  return parse_rt_camera(std::span<const std::uint8_t>(f.image).subspan(static_cast<std::size_t>(e.data_at),
                                                                        static_cast<std::size_t>(e.size)),
                         e.data_at);
}

nlohmann::json to_json(const rt_camera& c) {
  nlohmann::json keys = nlohmann::json::array();
  for (const auto& k : c.keys)
    keys.push_back({{"flags", k.flags}, {"frame", k.frame}, {"fov", k.fov_degrees}, {"eye", k.eye},
                    {"target", k.target}, {"twist", k.twist_degrees}});
  return {{"path", c.path}, {"end_frame", c.end_frame}, {"reserved", c.reserved}, {"keys", keys}};
}

quat aim_rotation(const vec3& eye, const vec3& target, double twist) {
  // Camera axes in world space: z back (target -> eye), x right, y up.
  double z[3] = {double(eye[0]) - target[0], double(eye[1]) - target[1], double(eye[2]) - target[2]};
  double len = std::sqrt(z[0] * z[0] + z[1] * z[1] + z[2] * z[2]);
  if (!(len > 0)) return core::axis_angle({0, 0, 1}, static_cast<float>(twist));  // eye on target: no direction
  for (double& v : z) v /= len;
  double x[3] = {z[2], 0, -z[0]};  // up x z with up = (0, 1, 0)
  len = std::sqrt(x[0] * x[0] + x[2] * x[2]);
  if (len < 1e-9) x[0] = 1, x[1] = 0, x[2] = 0;
  else x[0] /= len, x[2] /= len;
  const double y[3] = {z[1] * x[2] - z[2] * x[1], z[2] * x[0] - z[0] * x[2], z[0] * x[1] - z[1] * x[0]};
  const double m[3][3] = {{x[0], y[0], z[0]}, {x[1], y[1], z[1]}, {x[2], y[2], z[2]}};
  const quat aim = core::from_rotation_matrix(m);
  if (twist == 0) return aim;
  return core::normalize(core::multiply(aim, core::axis_angle({0, 0, 1}, static_cast<float>(twist))));
}

void add_rt_camera(const rt_camera& c, const std::string& name, double fps, scene& s) {
  const auto& k0 = c.keys.front();
  camera cam;
  cam.name = name;
  cam.yfov = static_cast<float>(k0.fov_degrees * deg);
  cam.znear = default_znear;
  cam.zfar = default_zfar;
  cam.translation = k0.eye;
  cam.rotation = aim_rotation(k0.eye, k0.target, k0.twist_degrees * deg);
  cam.extras = {{"rotation_mode", "aim"}, {"source", "brtcamera"}, {"path", c.path},
                {"clip_planes", "not in the file: 0.1 and 10000 (metres)"},
                {"target", k0.target}, {"fov_degrees", k0.fov_degrees}};
  s.cameras.push_back(cam);

  camera_animation an;
  an.name = name;
  an.fps = fps;
  const auto frames = static_cast<std::int64_t>(std::ceil(c.end_frame));
  an.duration = static_cast<double>(c.end_frame) / fps;
  an.extras = {{"frame_count", c.end_frame}, {"rotation_mode", "aim"},
               {"interpolation", "keys interpolated linearly (eye, target, twist, fov), rotation per frame"}};
  track tt, rt;
  tt.bone = rt.bone = name;
  tt.path = path::translation;
  rt.path = path::rotation;
  camera_lens_track lens;
  lens.camera = name;
  // Translation is linear between keys: the keys themselves (and the end frame) are exact.
  auto sample = [&](double f, rt_camera_key& out) {
    const auto& ks = c.keys;
    if (f <= ks.front().frame) {
      out = ks.front();
      return;
    }
    if (f >= ks.back().frame) {
      out = ks.back();
      return;
    }
    auto it = std::upper_bound(ks.begin(), ks.end(), f, [](double v, const rt_camera_key& k) { return v < k.frame; });
    const auto& b = *it;
    const auto& a = *(it - 1);
    const double t = (f - a.frame) / (double(b.frame) - a.frame);
    out = a;
    out.fov_degrees = static_cast<float>(lerp(a.fov_degrees, b.fov_degrees, t));
    out.twist_degrees = static_cast<float>(lerp(a.twist_degrees, b.twist_degrees, t));
    for (int i = 0; i < 3; ++i) {
      out.eye[static_cast<std::size_t>(i)] = static_cast<float>(lerp(a.eye[static_cast<std::size_t>(i)], b.eye[static_cast<std::size_t>(i)], t));
      out.target[static_cast<std::size_t>(i)] = static_cast<float>(lerp(a.target[static_cast<std::size_t>(i)], b.target[static_cast<std::size_t>(i)], t));
    }
  };
  std::vector<double> key_frames{0.0};
  for (const auto& k : c.keys)
    if (k.frame > 0 && k.frame < c.end_frame) key_frames.push_back(k.frame);
  key_frames.push_back(c.end_frame);
  for (double f : key_frames) {
    rt_camera_key k;
    sample(f, k);
    const float tm = static_cast<float>(f / fps);
    if (!tt.times.empty() && !(tm > tt.times.back())) continue;
    tt.times.push_back(tm);
    tt.values.insert(tt.values.end(), k.eye.begin(), k.eye.end());
    lens.times.push_back(tm);
    lens.yfov.push_back(static_cast<float>(k.fov_degrees * deg));
  }
  // Rotation: every frame (the aim of interpolated eye/target is not a slerp of the keys').
  for (std::int64_t fr = 0; fr <= frames; ++fr) {
    const double f = std::min(static_cast<double>(fr), static_cast<double>(c.end_frame));
    rt_camera_key k;
    sample(f, k);
    const float tm = static_cast<float>(f / fps);
    if (!rt.times.empty() && !(tm > rt.times.back())) continue;
    const quat q = aim_rotation(k.eye, k.target, k.twist_degrees * deg);
    rt.times.push_back(tm);
    rt.values.insert(rt.values.end(), q.begin(), q.end());
  }
  core::make_hemisphere_continuous(rt.values);
  an.tracks.push_back(std::move(tt));
  an.tracks.push_back(std::move(rt));
  an.lens.push_back(std::move(lens));
  s.camera_animations.push_back(std::move(an));
}

namespace {
// A camera value at a frame: its curve (target = byte offset into the base values), else the base.
float camera_value(const camera_anim& c, std::size_t k, float frame) {
  for (const auto& cv : c.curves)
    if (cv.target == 4 * k && cv.is_float()) return cv.eval(frame);
  return c.base[k];
}
std::string unique_camera_name(const scene& s, std::string name) {
  if (name.empty()) name = "camera";
  std::string out = name;
  for (int n = 1;; ++n) {
    bool used = false;
    for (const auto& c : s.cameras) used = used || c.name == out;
    if (!used) return out;
    out = name + "_" + std::to_string(n);
  }
}
constexpr float min_fov = 1e-4f, max_fov = 3.14149f;
}  // namespace

std::size_t add_scene_cameras(const file& f, double fps, std::uint64_t sample_limit, scene& s) {
  std::size_t others = 0;
  std::uint64_t samples = 0;
  for (const auto& sa : f.scene_anims)
    for (const auto& c : sa.cameras) samples += static_cast<std::uint64_t>(c.frame_count) + 1;
  if (samples > sample_limit)
    fail(code::limit_exceeded, "sampling every frame of every camera would take " + std::to_string(samples) +
                                   " evaluations, over the limit of " + std::to_string(sample_limit), f.scene_anims.front().at);
  for (const auto& sa : f.scene_anims) {
    others += sa.num_lights + sa.num_fogs;
    camera_animation an;
    an.name = sa.name.empty() ? "scene_animation_" + std::to_string(s.camera_animations.size()) : sa.name;
    an.fps = fps;
    std::int32_t longest = 0;
    for (const auto& c : sa.cameras) longest = std::max(longest, c.frame_count);
    an.duration = longest / fps;
    an.extras = {{"frame_count", longest}};
    for (const auto& c : sa.cameras) {
      camera cam;
      cam.name = unique_camera_name(s, c.name);
      const float near = c.base[0], far = c.base[1], aspect = c.base[2], fov = c.base[3];
      cam.znear = near > 0 ? near : 0.1f;
      if (far > cam.znear) cam.zfar = far;
      if (c.perspective()) {
        cam.yfov = std::clamp(fov, min_fov, max_fov);
        if (aspect > 0) cam.aspect = aspect;
      } else {
        // The notes give orthographic cameras the same field: taken as the view height.
        cam.type = camera::projection::orthographic;
        cam.ymag = fov > 0 ? fov / 2 : 1.0f;
        cam.xmag = cam.ymag * (aspect > 0 ? aspect : 1.0f);
        if (!cam.zfar) cam.zfar = cam.znear + 10000.0f;
      }
      auto pose = [&](float fr, vec3& pos, quat& rot) {
        pos = {camera_value(c, 4, fr), camera_value(c, 5, fr), camera_value(c, 6, fr)};
        const vec3 r{camera_value(c, 7, fr), camera_value(c, 8, fr), camera_value(c, 9, fr)};
        rot = c.euler_zxy() ? core::from_euler(r, "ZXY") : aim_rotation(pos, r, camera_value(c, 10, fr));
      };
      pose(0, cam.translation, cam.rotation);
      cam.extras = {{"rotation_mode", c.euler_zxy() ? "euler_zxy" : "aim"}, {"source", "FCAM"}, {"scene_animation", sa.name},
                    {"flags", c.flags}, {"loop", c.loop()}, {"frame_count", c.frame_count}};
      if (!c.euler_zxy())  // the look-at point of the first frame (checked by the Blender check)
        cam.extras["target"] = {camera_value(c, 7, 0), camera_value(c, 8, 0), camera_value(c, 9, 0)};
      track tt, rt;
      tt.bone = rt.bone = cam.name;
      tt.path = path::translation;
      rt.path = path::rotation;
      camera_lens_track lens;
      lens.camera = cam.name;
      for (std::int32_t fr = 0; fr <= c.frame_count; ++fr) {
        vec3 p;
        quat q;
        pose(static_cast<float>(fr), p, q);
        const float tm = static_cast<float>(fr / fps);
        if (!tt.times.empty() && !(tm > tt.times.back())) continue;
        tt.times.push_back(tm);
        tt.values.insert(tt.values.end(), p.begin(), p.end());
        rt.times.push_back(tm);
        rt.values.insert(rt.values.end(), q.begin(), q.end());
        if (c.perspective()) {
          lens.times.push_back(tm);
          lens.yfov.push_back(std::clamp(camera_value(c, 3, static_cast<float>(fr)), min_fov, max_fov));
        }
      }
      core::make_hemisphere_continuous(rt.values);
      an.tracks.push_back(std::move(tt));
      an.tracks.push_back(std::move(rt));
      if (!lens.times.empty()) an.lens.push_back(std::move(lens));
      s.cameras.push_back(std::move(cam));
    }
    if (!an.tracks.empty()) s.camera_animations.push_back(std::move(an));
  }
  return others;
}

}  // namespace rigrip::bfres
