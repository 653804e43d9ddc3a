// The previewer: poses, skins and draws a scene with the rasteriser (render/raster.hpp).
// Binding rules follow the glTF writer, so a preview shows what the .glb shows:
//   skinned mesh   p' = R * D * sum_j w_j * W_j(t) * inverse(W_j(rest)) * p
//   rigid mesh     p' = R * D * W_bone(t) * p            (its vertices are in bone space)
//   static mesh    p' = R * p
// with R the root_transform rotation (the source's axes to Y up; its scale and the units only
// change the size, which the camera framing takes out) and D the skeleton's display_offset.
#include "render/preview.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "scene/pose.hpp"

namespace rigrip::render {
namespace {

using core::mat4;

vec3 sub(const vec3& a, const vec3& b) { return {a[0] - b[0], a[1] - b[1], a[2] - b[2]}; }
vec3 add(const vec3& a, const vec3& b) { return {a[0] + b[0], a[1] + b[1], a[2] + b[2]}; }
vec3 scale(const vec3& a, float k) { return {a[0] * k, a[1] * k, a[2] * k}; }
float dot3(const vec3& a, const vec3& b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }
vec3 cross(const vec3& a, const vec3& b) {
  return {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]};
}
vec3 unit(const vec3& a) {
  const float l = std::sqrt(dot3(a, a));
  return l > 0 && std::isfinite(l) ? scale(a, 1 / l) : vec3{0, 1, 0};
}
vec3 apply(const mat4& m, const vec3& p) {
  return {m[0] * p[0] + m[4] * p[1] + m[8] * p[2] + m[12], m[1] * p[0] + m[5] * p[1] + m[9] * p[2] + m[13],
          m[2] * p[0] + m[6] * p[1] + m[10] * p[2] + m[14]};
}
bool finite3(const vec3& p) { return std::isfinite(p[0]) && std::isfinite(p[1]) && std::isfinite(p[2]); }

// Display colours are sRGB bytes; the scene's factors and vertex colours are linear.
float to_srgb(float linear) { return std::pow(std::clamp(linear, 0.0f, 1.0f), 1.0f / 2.2f); }

quat root_rotation(const scene& s) {
  quat q{0, 0, 0, 1};
  if (!s.metadata.is_object() || !s.metadata.contains("root_transform")) return q;
  const auto& rt = s.metadata["root_transform"];
  if (rt.is_object() && rt.contains("rotation") && rt["rotation"].is_array() && rt["rotation"].size() == 4)
    for (std::size_t i = 0; i < 4; ++i)
      if (rt["rotation"][i].is_number()) q[i] = rt["rotation"][i].get<float>();
  q = core::normalize(q);
  return core::finite(q) ? q : quat{0, 0, 0, 1};
}

vec3 display_offset(const skeleton& sk) {
  if (!sk.extras.is_object() || !sk.extras.contains("display_offset")) return {0, 0, 0};
  const auto& off = sk.extras["display_offset"];
  if (off.is_array() && off.size() == 3 && off[0].is_number() && off[1].is_number() && off[2].is_number())
    return {off[0].get<float>(), off[1].get<float>(), off[2].get<float>()};
  return {0, 0, 0};
}

// A round grid step (1, 2 or 5 times a power of ten) near `x`.
float round_step(float x) {
  if (!(x > 0) || !std::isfinite(x)) return 1;
  const float p = std::pow(10.0f, std::floor(std::log10(x)));
  const float m = x / p;
  return (m < 1.5f ? 1 : m < 3.5f ? 2 : m < 7.5f ? 5 : 10) * p;
}

constexpr std::array<std::uint8_t, 4> background{46, 50, 58, 255};
constexpr std::array<std::uint8_t, 4> grid_colour{78, 84, 96, 255};
constexpr std::array<std::uint8_t, 4> bone_colour{255, 170, 40, 255};
constexpr std::array<std::uint8_t, 4> joint_colour{255, 235, 120, 255};

}  // namespace

previewer::previewer(const scene& s, const preview_options& o) : scene_(s), o_(o) {
  o_.width = std::clamp(o_.width, 1, 8192);
  o_.height = std::clamp(o_.height, 1, 8192);
  if (o_.animation >= static_cast<int>(scene_.animations.size())) o_.animation = -1;
  if (o_.animation >= 0) {
    auto& a = scene_.animations[static_cast<std::size_t>(o_.animation)];
    if (a.skeleton >= 0 && static_cast<std::size_t>(a.skeleton) < scene_.skeletons.size())
      scene_ops::layer_additive_onto_rest(a, scene_.skeletons[static_cast<std::size_t>(a.skeleton)]);
  }
  root_ = root_rotation(scene_);
  const mat4 r = core::compose({0, 0, 0}, root_, {1, 1, 1});
  for (const auto& sk : scene_.skeletons) {
    std::vector<mat4> inv;
    for (const auto& w : scene_ops::world_matrices(sk)) inv.push_back(core::inverse(w));
    rest_inverse_.push_back(std::move(inv));
    holder_.push_back(core::multiply(r, core::compose(display_offset(sk), {0, 0, 0, 1}, {1, 1, 1})));
  }

  // Bounds of everything drawn over the whole clip: the meshes and the joints.
  vec3 lo{std::numeric_limits<float>::infinity(), std::numeric_limits<float>::infinity(),
          std::numeric_limits<float>::infinity()};
  vec3 hi = scale(lo, -1);
  bool any_mesh = false;
  for (const auto& m : scene_.meshes) any_mesh = any_mesh || !m.positions.empty();
  const double dur = duration();
  const int samples = dur > 0 ? 16 : 1;
  for (int i = 0; i < samples; ++i) {
    const posed p = pose_at(samples > 1 ? dur * i / (samples - 1) : 0.0);
    auto grow = [&](const vec3& v) {
      if (!finite3(v)) return;
      for (std::size_t k = 0; k < 3; ++k) lo[k] = std::min(lo[k], v[k]), hi[k] = std::max(hi[k], v[k]);
    };
    for (const auto& m : p.positions)
      for (const auto& v : m) grow(v);
    if (!any_mesh || o_.bones)  // the skeleton is drawn too: it stays in frame
      for (const auto& j : p.joints)
        for (const auto& v : j) grow(v);
  }
  if (!(lo[0] <= hi[0])) lo = {-1, -1, -1}, hi = {1, 1, 1};  // nothing finite: an empty frame
  else empty_ = false;
  // A flat or point-like model still gets a frame of some size.
  float ext = std::max({hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2]});
  if (!(ext > 1e-6f)) ext = 1;
  for (std::size_t k = 0; k < 3; ++k)
    if (hi[k] - lo[k] < ext * 0.02f) lo[k] -= ext * 0.01f, hi[k] += ext * 0.01f;
  const vec3 centre = scale(add(lo, hi), 0.5f);

  // Three-quarter view: from the front (+Z, glTF's forward), to the right and a little above.
  forward_ = unit(vec3{-0.55f, -0.35f, -1.0f});
  right_ = unit(cross(forward_, vec3{0, 1, 0}));
  up_ = cross(right_, forward_);
  const float fov_y = 30.0f * core::pi / 180.0f;
  tan_y_ = std::tan(fov_y / 2);
  tan_x_ = tan_y_ * static_cast<float>(o_.width) / static_cast<float>(o_.height);
  // The distance at which every corner of the bounds is inside the frame, with a margin.
  float dist = 0;
  for (int c = 0; c < 8; ++c) {
    const vec3 corner{c & 1 ? hi[0] : lo[0], c & 2 ? hi[1] : lo[1], c & 4 ? hi[2] : lo[2]};
    const vec3 d = sub(corner, centre);
    const float x = dot3(d, right_), y = dot3(d, up_), z = dot3(d, forward_);
    dist = std::max(dist, -z + std::max(std::fabs(x) / tan_x_, std::fabs(y) / tan_y_) * 1.1f);
  }
  eye_ = sub(centre, scale(forward_, dist));
  near_ = std::max(dist * 1e-3f, 1e-6f);

  ground_y_ = lo[1];
  grid_step_ = round_step(std::max(hi[0] - lo[0], hi[2] - lo[2]) / 6);
  grid_centre_ = {std::round(centre[0] / grid_step_) * grid_step_, lo[1], std::round(centre[2] / grid_step_) * grid_step_};
  grid_cells_ = 5;
}

double previewer::duration() const {
  if (o_.animation < 0) return 0;
  const double d = scene_.animations[static_cast<std::size_t>(o_.animation)].duration;
  return std::isfinite(d) && d > 0 ? d : 0;
}

std::optional<double> previewer::fps() const {
  if (o_.animation < 0) return std::nullopt;
  return scene_.animations[static_cast<std::size_t>(o_.animation)].fps;
}

previewer::posed previewer::pose_at(double time) const {
  posed out;
  const double t = std::clamp(time, 0.0, duration());
  std::vector<std::vector<mat4>> world(scene_.skeletons.size()), skin(scene_.skeletons.size());
  out.joints.resize(scene_.skeletons.size());
  for (std::size_t si = 0; si < scene_.skeletons.size(); ++si) {
    const auto& sk = scene_.skeletons[si];
    const animation* a = o_.animation >= 0 ? &scene_.animations[static_cast<std::size_t>(o_.animation)] : nullptr;
    const auto p = a && a->skeleton == static_cast<int>(si) ? scene_ops::sample_pose(sk, *a, static_cast<float>(t))
                                                            : scene_ops::rest_pose(sk);
    world[si] = scene_ops::world_matrices(sk, p);
    for (auto& w : world[si]) w = core::multiply(holder_[si], w);
    skin[si].resize(world[si].size());
    for (std::size_t b = 0; b < world[si].size(); ++b) {
      skin[si][b] = core::multiply(world[si][b], rest_inverse_[si][b]);
      out.joints[si].push_back({world[si][b][12], world[si][b][13], world[si][b][14]});
    }
  }
  const mat4 r = core::compose({0, 0, 0}, root_, {1, 1, 1});
  out.positions.resize(scene_.meshes.size());
  for (std::size_t mi = 0; mi < scene_.meshes.size(); ++mi) {
    const auto& m = scene_.meshes[mi];
    auto& dst = out.positions[mi];
    dst.resize(m.positions.size());
    const bool has_skel = m.skeleton >= 0 && static_cast<std::size_t>(m.skeleton) < world.size() &&
                          !world[static_cast<std::size_t>(m.skeleton)].empty();
    const auto nb = has_skel ? world[static_cast<std::size_t>(m.skeleton)].size() : 0;
    if (has_skel && m.bone >= 0 && static_cast<std::size_t>(m.bone) < nb) {
      const mat4& w = world[static_cast<std::size_t>(m.skeleton)][static_cast<std::size_t>(m.bone)];
      for (std::size_t v = 0; v < m.positions.size(); ++v) dst[v] = apply(w, m.positions[v]);
    } else if (has_skel && m.joints.size() == m.positions.size() && m.weights.size() == m.positions.size()) {
      const auto& k = skin[static_cast<std::size_t>(m.skeleton)];
      for (std::size_t v = 0; v < m.positions.size(); ++v) {
        vec3 acc{0, 0, 0};
        float sum = 0;
        for (std::size_t i = 0; i < 4; ++i) {
          const float wt = m.weights[v][i];
          const std::size_t j = m.joints[v][i];
          if (!(wt > 0) || j >= nb) continue;
          acc = add(acc, scale(apply(k[j], m.positions[v]), wt));
          sum += wt;
        }
        // Weights are normalised as the writer does; none at all binds to the first bone.
        dst[v] = sum > 0 ? scale(acc, 1 / sum) : apply(k[0], m.positions[v]);
      }
    } else {
      for (std::size_t v = 0; v < m.positions.size(); ++v) dst[v] = apply(r, m.positions[v]);
    }
  }
  return out;
}

canvas previewer::render(double time) const {
  canvas c(o_.width, o_.height, background);
  const posed p = pose_at(time);
  const float w2 = static_cast<float>(o_.width) * 0.5f, h2 = static_cast<float>(o_.height) * 0.5f;
  // World point -> pixel position, depth (-1/distance: affine in screen space) and w = distance.
  auto project = [&](const vec3& q, vertex& out) {
    const vec3 d = sub(q, eye_);
    const float dist = dot3(d, forward_);
    out.w = dist;
    if (!(dist > near_)) return false;
    out.x = (1 + dot3(d, right_) / (dist * tan_x_)) * w2;
    out.y = (1 - dot3(d, up_) / (dist * tan_y_)) * h2;
    out.z = -1 / dist;
    return std::isfinite(out.x) && std::isfinite(out.y);
  };
  // The light comes from above, left and in front of the camera; both sides of a face are lit.
  const vec3 light = unit(add(add(scale(right_, -0.35f), scale(up_, 0.8f)), scale(forward_, -0.6f)));

  for (std::size_t mi = 0; mi < scene_.meshes.size(); ++mi) {
    const auto& m = scene_.meshes[mi];
    const auto& pos = p.positions[mi];
    const std::size_t n = pos.size();
    const material* mat = m.material >= 0 && static_cast<std::size_t>(m.material) < scene_.materials.size()
                              ? &scene_.materials[static_cast<std::size_t>(m.material)]
                              : nullptr;
    triangle_style style;
    const std::vector<vec2>* uvs = nullptr;
    if (mat && mat->texture >= 0 && static_cast<std::size_t>(mat->texture) < scene_.textures.size()) {
      uvs = mat->texcoord == 1 ? &m.uvs1 : &m.uvs;
      if (uvs->size() == n) style.tex = &scene_.textures[static_cast<std::size_t>(mat->texture)];
      else uvs = nullptr;
    }
    if (mat && mat->alpha_mode == material::alpha::mask) style.alpha_cutoff = mat->alpha_cutoff;
    if (mat && mat->alpha_mode == material::alpha::blend) style.alpha_cutoff = 0.5f;  // no blending: a cut
    const bool colours = m.colors.size() == n;
    std::array<float, 4> base{1, 1, 1, 1};
    if (mat)
      for (std::size_t k = 0; k < 4; ++k) base[k] = k < 3 ? to_srgb(mat->base_color[k]) : mat->base_color[k];
    // Untextured, uncoloured, white: a neutral clay so the shape reads.
    if (!style.tex && !colours && base[0] == 1 && base[1] == 1 && base[2] == 1) base = {0.78f, 0.74f, 0.68f, 1};
    const bool unlit = mat && mat->unlit;
    const std::size_t count = m.indices.empty() ? n - n % 3 : m.indices.size() - m.indices.size() % 3;
    for (std::size_t t = 0; t < count; t += 3) {
      std::size_t idx[3];
      bool ok = true;
      for (std::size_t k = 0; k < 3; ++k) {
        idx[k] = m.indices.empty() ? t + k : m.indices[t + k];
        ok = ok && idx[k] < n;
      }
      if (!ok) continue;
      const vec3 normal = unit(cross(sub(pos[idx[1]], pos[idx[0]]), sub(pos[idx[2]], pos[idx[0]])));
      const float shade = unlit ? 1.0f : 0.38f + 0.62f * std::fabs(dot3(normal, light));
      vertex v[3];
      for (std::size_t k = 0; k < 3; ++k) {
        if (!project(pos[idx[k]], v[k])) ok = false;
        v[k].color = base;
        if (colours)
          for (std::size_t ch = 0; ch < 4; ++ch)
            v[k].color[ch] *= ch < 3 ? to_srgb(m.colors[idx[k]][ch]) : std::clamp(m.colors[idx[k]][ch], 0.0f, 1.0f);
        for (std::size_t ch = 0; ch < 3; ++ch) v[k].color[ch] *= shade;
        if (uvs) v[k].u = (*uvs)[idx[k]][0], v[k].v = (*uvs)[idx[k]][1];
      }
      if (ok) draw_triangle(c, v[0], v[1], v[2], style);
    }
  }

  if (o_.grid) {
    for (int i = -grid_cells_; i <= grid_cells_; ++i) {
      const float a = static_cast<float>(i) * grid_step_, e = static_cast<float>(grid_cells_) * grid_step_;
      const vec3 lines[2][2] = {{{grid_centre_[0] + a, ground_y_, grid_centre_[2] - e}, {grid_centre_[0] + a, ground_y_, grid_centre_[2] + e}},
                                {{grid_centre_[0] - e, ground_y_, grid_centre_[2] + a}, {grid_centre_[0] + e, ground_y_, grid_centre_[2] + a}}};
      for (const auto& l : lines) {
        vertex p0, p1;
        if (project(l[0], p0) && project(l[1], p1)) draw_line(c, p0.x, p0.y, p0.z, p1.x, p1.y, p1.z, grid_colour, 1, true);
      }
    }
  }

  if (o_.bones) {
    const int thick = std::max(1, std::min(o_.width, o_.height) / 200);
    for (std::size_t si = 0; si < scene_.skeletons.size(); ++si) {
      const auto& sk = scene_.skeletons[si];
      const auto& j = p.joints[si];
      for (std::size_t b = 0; b < sk.bones.size() && b < j.size(); ++b) {
        const int parent = sk.bones[b].parent;
        if (parent < 0 || static_cast<std::size_t>(parent) >= j.size()) continue;
        vertex p0, p1;
        if (project(j[static_cast<std::size_t>(parent)], p0) && project(j[b], p1))
          draw_line(c, p0.x, p0.y, 0, p1.x, p1.y, 0, bone_colour, thick, false);
      }
      for (const auto& h : j) {
        vertex q;
        if (project(h, q)) draw_dot(c, q.x, q.y, joint_colour, thick);
      }
    }
  }
  return c;
}

canvas draw_texture(const texture& t, int w, int h) {
  canvas c(w, h, {40, 44, 52, 255});
  if (t.width == 0 || t.height == 0 || t.rgba.size() < std::size_t(t.width) * t.height * 4) return c;
  const double scale = std::min(double(w) / t.width, double(h) / t.height);
  const int dw = std::max(1, int(t.width * scale)), dh = std::max(1, int(t.height * scale));
  const int x0 = (w - dw) / 2, y0 = (h - dh) / 2;
  for (int y = 0; y < dh; ++y)
    for (int x = 0; x < dw; ++x) {
      const std::size_t tx = std::min<std::size_t>(t.width - 1, std::size_t(x / scale));
      const std::size_t ty = std::min<std::size_t>(t.height - 1, std::size_t(y / scale));
      const std::uint8_t* p = &t.rgba[(ty * t.width + tx) * 4];
      const int check = ((x / 8) + (y / 8)) % 2 ? 200 : 150;
      const float a = p[3] / 255.0f;
      std::uint8_t* q = &c.rgba[(std::size_t(y0 + y) * w + std::size_t(x0 + x)) * 4];
      for (int k = 0; k < 3; ++k) q[k] = std::uint8_t(std::lround(p[k] * a + check * (1 - a)));
      q[3] = 255;
    }
  return c;
}

}  // namespace rigrip::render
