// Scene model -> glTF 2.0 (tinygltf). Skeleton as a node hierarchy under one root
// node that carries the axis/scale conversion, one skin per skeleton with inverse
// bind matrices from the rest pose, meshes, PNG textures, one glTF animation per
// scene animation. Everything written is checked by gltf-validator in the tests.
#include <algorithm>
#include <cmath>
#include <limits>
#include <filesystem>
#include <fnmatch.h>
#include <map>
#include <optional>
#include <set>
#include <cstdio>
#include <span>
#include <sstream>

#include <tiny_gltf.h>
#include <stb_image_write.h>

#include "rigrip/extras.hpp"
#include "core/math.hpp"
#include "scene/pose.hpp"
#include "scene/ssc.hpp"
#include "rigrip/bone_lookup.hpp"
#include "rigrip/gltf.hpp"
#include "gltf/model_json.hpp"

namespace rigrip::gltf {
namespace {
using nlohmann::json;
namespace tg = tinygltf;

tg::Value to_value(const json& j) {
  switch (j.type()) {
    case json::value_t::boolean: return tg::Value(j.get<bool>());
    case json::value_t::number_integer:
    case json::value_t::number_unsigned: {
      auto v = j.get<std::int64_t>();
      if (v >= INT32_MIN && v <= INT32_MAX) return tg::Value(static_cast<int>(v));
      return tg::Value(static_cast<double>(v));
    }
    case json::value_t::number_float: {
      double d = j.get<double>();
      return tg::Value(std::isfinite(d) ? d : 0.0);
    }
    case json::value_t::string: return tg::Value(j.get<std::string>());
    case json::value_t::array: {
      tg::Value::Array a;
      for (const auto& e : j) a.push_back(to_value(e));
      return tg::Value(std::move(a));
    }
    case json::value_t::object: {
      tg::Value::Object o;
      for (auto it = j.begin(); it != j.end(); ++it) o[it.key()] = to_value(it.value());
      return tg::Value(std::move(o));
    }
    default: return tg::Value();
  }
}

// Builds the single binary buffer and its views/accessors.
class builder {
 public:
  explicit builder(tg::Model& m) : m_(m) { m_.buffers.resize(1); }
  void reserve(std::size_t n) { m_.buffers[0].data.reserve(n); }

  int view(const void* data, std::size_t size, int target = 0) {
    auto& buf = m_.buffers[0].data;
    while (buf.size() % 4) buf.push_back(0);
    tg::BufferView v;
    v.buffer = 0;
    v.byteOffset = buf.size();
    v.byteLength = size;
    if (target) v.target = target;
    const auto* p = static_cast<const std::uint8_t*>(data);
    buf.insert(buf.end(), p, p + size);
    m_.bufferViews.push_back(v);
    return static_cast<int>(m_.bufferViews.size() - 1);
  }

  // Float accessor with min/max computed from the float32 values written.
  int floats(std::span<const float> v, int type, int ncomp, bool minmax, int target = 0) {
    int bv = view(v.data(), v.size() * sizeof(float), target);
    tg::Accessor a;
    a.bufferView = bv;
    a.componentType = TINYGLTF_COMPONENT_TYPE_FLOAT;
    a.type = type;
    a.count = v.size() / static_cast<std::size_t>(ncomp);
    if (minmax && a.count) {
      a.minValues.assign(static_cast<std::size_t>(ncomp), 0);
      a.maxValues.assign(static_cast<std::size_t>(ncomp), 0);
      for (int c = 0; c < ncomp; ++c) {
        float lo = v[static_cast<std::size_t>(c)], hi = lo;
        for (std::size_t i = static_cast<std::size_t>(c); i < v.size(); i += static_cast<std::size_t>(ncomp))
          lo = std::min(lo, v[i]), hi = std::max(hi, v[i]);
        a.minValues[static_cast<std::size_t>(c)] = lo;
        a.maxValues[static_cast<std::size_t>(c)] = hi;
      }
    }
    m_.accessors.push_back(a);
    return static_cast<int>(m_.accessors.size() - 1);
  }
  int u16x4(const std::vector<std::uint16_t>& v) {
    int bv = view(v.data(), v.size() * 2, TINYGLTF_TARGET_ARRAY_BUFFER);
    tg::Accessor a;
    a.bufferView = bv;
    a.componentType = TINYGLTF_COMPONENT_TYPE_UNSIGNED_SHORT;
    a.type = TINYGLTF_TYPE_VEC4;
    a.count = v.size() / 4;
    m_.accessors.push_back(a);
    return static_cast<int>(m_.accessors.size() - 1);
  }
  int indices(const std::vector<std::uint32_t>& v) {
    int bv = view(v.data(), v.size() * 4, TINYGLTF_TARGET_ELEMENT_ARRAY_BUFFER);
    tg::Accessor a;
    a.bufferView = bv;
    a.componentType = TINYGLTF_COMPONENT_TYPE_UNSIGNED_INT;
    a.type = TINYGLTF_TYPE_SCALAR;
    a.count = v.size();
    m_.accessors.push_back(a);
    return static_cast<int>(m_.accessors.size() - 1);
  }

 private:
  tg::Model& m_;
};

// The floats of v in order, viewed in place (a vec3 is three floats with no padding).
std::span<const float> flat(const std::vector<vec3>& v) {
  static_assert(sizeof(vec3) == 3 * sizeof(float) && alignof(vec3) == alignof(float));
  return {v.empty() ? nullptr : v.front().data(), v.size() * 3};
}

vec3 transform_point(const core::mat4& m, const vec3& p) {
  return {m[0] * p[0] + m[4] * p[1] + m[8] * p[2] + m[12],
          m[1] * p[0] + m[5] * p[1] + m[9] * p[2] + m[13],
          m[2] * p[0] + m[6] * p[1] + m[10] * p[2] + m[14]};
}
vec3 transform_dir(const core::mat4& m, const vec3& d) {
  // Normals go through the inverse transpose; for our rigid TRS bones the linear
  // part's inverse transpose equals itself up to scale, renormalised below.
  core::mat4 inv = core::inverse(m);
  vec3 r{inv[0] * d[0] + inv[1] * d[1] + inv[2] * d[2], inv[4] * d[0] + inv[5] * d[1] + inv[6] * d[2],
         inv[8] * d[0] + inv[9] * d[1] + inv[10] * d[2]};
  return r;
}
// Tangents are vectors along a surface (not normals): the linear part itself; a mirroring
// transform flips the bitangent's handedness.
vec4 transform_tangent(const core::mat4& m, const vec4& t) {
  vec3 r{m[0] * t[0] + m[4] * t[1] + m[8] * t[2], m[1] * t[0] + m[5] * t[1] + m[9] * t[2],
         m[2] * t[0] + m[6] * t[1] + m[10] * t[2]};
  const float det = m[0] * (m[5] * m[10] - m[9] * m[6]) - m[4] * (m[1] * m[10] - m[9] * m[2]) +
                    m[8] * (m[1] * m[6] - m[5] * m[2]);
  return {r[0], r[1], r[2], det < 0 ? -t[3] : t[3]};
}
vec3 unit_or_up(vec3 n) {
  float l = std::sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
  if (!(l > 1e-8f) || !std::isfinite(l)) return {0, 1, 0};
  return {n[0] / l, n[1] / l, n[2] / l};
}

// A small octahedral "bone" from a parent joint to a child joint, so skeleton-only
// files show something in viewers.
void bone_display(const skeleton& sk, const std::vector<core::mat4>& world, mesh& out) {
  std::vector<vec3> head(sk.bones.size());
  float extent = 0;
  for (std::size_t i = 0; i < sk.bones.size(); ++i) {
    head[i] = {world[i][12], world[i][13], world[i][14]};
    for (float c : head[i]) extent = std::max(extent, std::fabs(c));
  }
  float default_len = extent > 0 ? extent * 0.05f : 0.05f;
  auto add_octa = [&](vec3 a, vec3 b, float radius, std::uint16_t joint) {
    vec3 d{b[0] - a[0], b[1] - a[1], b[2] - a[2]};
    float len = std::sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
    if (len < 1e-6f) {
      d = {0, default_len, 0};
      b = {a[0], a[1] + default_len, a[2]};
      len = default_len;
    }
    vec3 u = unit_or_up(d);
    vec3 ref = std::fabs(u[1]) < 0.9f ? vec3{0, 1, 0} : vec3{1, 0, 0};
    vec3 s1 = unit_or_up({u[1] * ref[2] - u[2] * ref[1], u[2] * ref[0] - u[0] * ref[2], u[0] * ref[1] - u[1] * ref[0]});
    vec3 s2 = {u[1] * s1[2] - u[2] * s1[1], u[2] * s1[0] - u[0] * s1[2], u[0] * s1[1] - u[1] * s1[0]};
    float r = std::min(radius, len * 0.15f);
    vec3 mid{a[0] + d[0] * 0.2f, a[1] + d[1] * 0.2f, a[2] + d[2] * 0.2f};
    vec3 ring[4] = {{mid[0] + s1[0] * r, mid[1] + s1[1] * r, mid[2] + s1[2] * r},
                    {mid[0] + s2[0] * r, mid[1] + s2[1] * r, mid[2] + s2[2] * r},
                    {mid[0] - s1[0] * r, mid[1] - s1[1] * r, mid[2] - s1[2] * r},
                    {mid[0] - s2[0] * r, mid[1] - s2[1] * r, mid[2] - s2[2] * r}};
    for (int k = 0; k < 4; ++k) {
      const vec3& p = ring[k];
      const vec3& q = ring[(k + 1) % 4];
      for (const auto& tri : {std::array<vec3, 3>{a, q, p}, std::array<vec3, 3>{b, p, q}}) {
        vec3 e1{tri[1][0] - tri[0][0], tri[1][1] - tri[0][1], tri[1][2] - tri[0][2]};
        vec3 e2{tri[2][0] - tri[0][0], tri[2][1] - tri[0][1], tri[2][2] - tri[0][2]};
        vec3 n = unit_or_up({e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2], e1[0] * e2[1] - e1[1] * e2[0]});
        for (const auto& v : tri) {
          out.positions.push_back(v);
          out.normals.push_back(n);
          out.joints.push_back({joint, 0, 0, 0});
          out.weights.push_back({1, 0, 0, 0});
        }
      }
    }
  };
  std::vector<int> children(sk.bones.size(), 0);
  for (const auto& b : sk.bones)
    if (b.parent >= 0) children[static_cast<std::size_t>(b.parent)]++;
  for (std::size_t i = 0; i < sk.bones.size(); ++i) {
    int p = sk.bones[i].parent;
    if (p >= 0) add_octa(head[static_cast<std::size_t>(p)], head[i], default_len * 0.5f, static_cast<std::uint16_t>(p));
    if (children[i] == 0 || p < 0) add_octa(head[i], head[i], default_len * 0.3f, static_cast<std::uint16_t>(i));
  }
}

bool clip_selected(const std::string& name, const std::vector<std::string>& clips) {
  if (clips.empty()) return true;
  for (const auto& c : clips)
    if (c == name || fnmatch(c.c_str(), name.c_str(), 0) == 0) return true;
  return false;
}

// Folds segment scale compensation into plain locals (no helper node in the joint
// hierarchy). Exact under uniform parent scale; otherwise each clip's worst world-space
// error (units, degrees) goes into its extras and a warning.
void bake_ssc(scene& s, diagnostics& diags) {
  bool any = false;
  for (const auto& sk : s.skeletons)
    for (const auto& b : sk.bones) any = any || b.segment_scale_compensate;
  if (!any) return;
  diagnostics local;
  const auto measured = scene_ops::bake_and_measure(s, local);
  for (std::size_t ai = 0; ai < s.animations.size(); ++ai) {
    const auto& e = measured.animations[ai];
    auto& a = s.animations[ai];
    if (!a.extras.is_object()) a.extras = json::object();
    a.extras["ssc_baked"] = true;
    a.extras["ssc_bake_error"] = json{{"position", e.position}, {"degrees", e.degrees}};
    if (e.position > 1e-4 || e.degrees > 0.01) {
      char msg[160];
      std::snprintf(msg, sizeof msg, "': segment scale compensation baked with up to %.4g units and %.3g degrees "
                    "of world error (non-uniform parent scale; --ssc helpers is exact)", e.position, e.degrees);
      diags.warn(code::w_lossy, "animation '" + a.name + msg);
    }
  }
  const auto& rest = measured.rest;
  if (rest.position > 1e-4 || rest.degrees > 0.01) {
    char msg[160];
    std::snprintf(msg, sizeof msg, "rest pose: segment scale compensation baked with up to %.4g units and %.3g degrees "
                  "of world error (--ssc helpers is exact)", rest.position, rest.degrees);
    diags.warn(code::w_lossy, msg);
  }
}

// A pose clip (every key at time 0) would be a 0-second action that Blender and three.js
// cannot play: it holds its pose for one frame at the clip's rate (30 when unknown).
void hold_pose_for_a_frame(animation& a, const write_options& o) {
  float last = 0;
  bool any = false;
  for (const auto& t : a.tracks)
    for (float tm : t.times) last = std::max(last, tm), any = true;
  if (!any || last > 0) return;
  const double fps = o.resample_fps && *o.resample_fps > 0 ? *o.resample_fps : a.fps && *a.fps > 0 ? *a.fps : 30.0;
  const float frame = static_cast<float>(1.0 / fps);
  for (auto& t : a.tracks) {
    if (t.times.empty() || t.interpolation == interpolation::cubic_spline) continue;
    const std::size_t n = static_cast<std::size_t>(components(t.path));
    t.times.push_back(frame);
    t.values.insert(t.values.end(), t.values.end() - static_cast<std::ptrdiff_t>(n), t.values.end());
  }
  a.duration = std::max(a.duration, static_cast<double>(frame));
  if (!a.extras.is_object()) a.extras = json::object();
  a.extras["pose_held_for_seconds"] = frame;
}

// Blender keeps 63 bytes of a name: cut at a UTF-8 boundary, and make cut names unique
// with a ~N suffix. The full name stays in the animation's extras.
std::string short_unique_name(const std::string& name, std::set<std::string>& used) {
  auto cut = [](const std::string& s, std::size_t max) {
    if (s.size() <= max) return s;
    std::size_t n = max;
    while (n > 0 && (static_cast<unsigned char>(s[n]) & 0xC0) == 0x80) --n;  // not inside a character
    return s.substr(0, n);
  };
  std::string out = cut(name, 63);
  for (int k = 2; used.count(out); ++k) {
    const std::string suffix = "~" + std::to_string(k);
    out = cut(name, 63 - suffix.size()) + suffix;
  }
  used.insert(out);
  return out;
}

// Camera positions, their translation tracks and lens distances are lengths too.
void scale_camera_lengths(scene& s, float k) {
  for (auto& c : s.cameras) {
    for (auto& v : c.translation) v *= k;
    c.znear *= k;
    if (c.zfar) *c.zfar *= k;
    c.xmag *= k;
    c.ymag *= k;
  }
  for (auto& a : s.camera_animations)
    for (auto& t : a.tracks)
      if (t.path == path::translation)
        for (auto& v : t.values) v *= k;
}

// Multiplies every length of the scene by k: bone and track translations, mesh positions,
// placement offsets. Rotations and scales are unitless.
void scale_lengths(scene& s, float k) {
  for (auto& sk : s.skeletons) {
    for (auto& b : sk.bones)
      for (auto& c : b.translation) c *= k;
    if (sk.extras.is_object() && sk.extras.contains("display_offset") && sk.extras["display_offset"].is_array())
      for (auto& c : sk.extras["display_offset"])
        if (c.is_number()) c = c.get<double>() * k;
  }
  for (auto& a : s.animations)
    for (auto& t : a.tracks)
      if (t.path == path::translation)
        for (auto& v : t.values) v *= k;  // values and cubic tangents alike are lengths
  for (auto& m : s.meshes)
    for (auto& p : m.positions)
      for (auto& c : p) c *= k;
  scale_camera_lengths(s, k);
}

// An additive clip's keys are deltas from identity/zero (rotation, translation) or one
// (scale): on their own they fold every bone to the origin. Layered onto the rest pose
// (local: t_rest + dt, r_rest * dr, s_rest * ds) they play as the game shows them over
// an idle pose.
void apply_additive_onto_rest(scene& s) {
  for (auto& a : s.animations) {
    if (!a.extras.is_object() || !a.extras.value("additive", false)) continue;
    if (a.skeleton < 0 || static_cast<std::size_t>(a.skeleton) >= s.skeletons.size()) continue;
    scene_ops::layer_additive_onto_rest(a, s.skeletons[static_cast<std::size_t>(a.skeleton)]);
    a.extras["additive_applied"] = "onto the skeleton's rest pose (--additive raw keeps the deltas)";
  }
}

// A clip runs from time 0, but an importer starts the action at its first key (Blender:
// SF3's all-frames clip, keyed from frame 1, became a 132-frame action for 133 frames). Every
// track whose first key is after 0 gets a key at 0 holding its first value — what glTF plays
// before the first key anyway, so nothing moves; a cubic first key's unused in-tangent is zeroed.
void hold_from_zero(animation& a) {
  float first = std::numeric_limits<float>::infinity();
  for (const auto& t : a.tracks)
    if (!t.times.empty()) first = std::min(first, t.times.front());
  if (!(first > 1e-6f) || !std::isfinite(first)) return;
  for (auto& t : a.tracks) {
    if (t.times.empty() || !(t.times.front() > 1e-6f)) continue;
    const std::size_t c = static_cast<std::size_t>(components(t.path)), e = t.elements_per_key();
    std::vector<float> key(t.values.begin(), t.values.begin() + static_cast<std::ptrdiff_t>(e * c));
    if (e == 3) {  // flat tangents on the new key, none into the old first key
      std::fill(key.begin(), key.begin() + static_cast<std::ptrdiff_t>(c), 0.0f);
      std::fill(key.end() - static_cast<std::ptrdiff_t>(c), key.end(), 0.0f);
      std::fill(t.values.begin(), t.values.begin() + static_cast<std::ptrdiff_t>(c), 0.0f);
    }
    t.times.insert(t.times.begin(), 0.0f);
    t.values.insert(t.values.begin(), key.begin(), key.end());
  }
  if (!a.extras.is_object()) a.extras = json::object();
  a.extras["hold_key_at_0"] = true;  // the reader drops these keys again (pack round trips)
}

// A glTF animation lasts until its last key: a clip whose keys end before its duration
// (the engine holds the last pose) gets a key at the duration holding the last value, so
// the action's frame range is the clip's length.
void hold_clip_until_duration(animation& a) {
  {
    hold_from_zero(a);
    const float end = static_cast<float>(a.duration);
    float last = 0;
    for (const auto& t : a.tracks)
      if (!t.times.empty()) last = std::max(last, t.times.back());
    if (a.tracks.empty() || !(end > last + 1e-5f)) return;
    for (auto& t : a.tracks) {
      if (t.times.empty() || !(end > t.times.back() + 1e-5f)) continue;
      const std::size_t c = static_cast<std::size_t>(components(t.path)), e = t.elements_per_key();
      std::vector<float> key(t.values.end() - static_cast<std::ptrdiff_t>(e * c), t.values.end());
      if (e == 3) std::fill(key.begin(), key.begin() + static_cast<std::ptrdiff_t>(c), 0.0f),
                  std::fill(key.end() - static_cast<std::ptrdiff_t>(c), key.end(), 0.0f);  // flat tangents
      t.times.push_back(end);
      t.values.insert(t.values.end(), key.begin(), key.end());
    }
  }
}
void hold_until_duration(scene& s) {
  for (auto& a : s.animations) hold_clip_until_duration(a);
}

}  // namespace

scene prepare(const scene& in, const write_options& o, diagnostics& diags) {
  scene s = in;
  std::vector<animation> kept;
  for (auto& a : s.animations) {
    if (!clip_selected(a.name, o.clips)) continue;
    if (o.in_place && a.extras.is_object() && a.extras.contains("root_motion")) {
      std::set<std::string> roots;
      for (const auto& r : a.extras["root_motion"])
        if (r.is_string()) roots.insert(r.get<std::string>());
      std::erase_if(a.tracks, [&](const track& t) { return roots.count(t.bone) != 0; });
      a.extras["in_place"] = true;
    }
    for (auto& t : a.tracks) {
      // Duplicate key times: keep the first of each run (glTF needs strictly increasing input).
      std::size_t n = static_cast<std::size_t>(components(t.path)) * t.elements_per_key();
      std::vector<float> times, values;
      std::size_t dropped = 0;
      // (nearly every track's times already increase: then nothing is rebuilt)
      const bool increasing = std::adjacent_find(t.times.begin(), t.times.end(),
                                                 [](float a, float b) { return !(b > a); }) == t.times.end();
      for (std::size_t k = 0; !increasing && k < t.times.size(); ++k) {
        if (!times.empty() && !(t.times[k] > times.back())) {
          ++dropped;
          continue;
        }
        times.push_back(t.times[k]);
        values.insert(values.end(), t.values.begin() + static_cast<std::ptrdiff_t>(k * n),
                      t.values.begin() + static_cast<std::ptrdiff_t>((k + 1) * n));
      }
      if (dropped) {
        diags.warn(code::w_duplicate_key_time,
                   "animation '" + a.name + "' bone '" + t.bone + "' " + std::string(to_string(t.path)) +
                       ": removed " + std::to_string(dropped) + " keys with duplicate times");
        t.times = std::move(times);
        t.values = std::move(values);
      }
      // glTF needs at least two keys for CUBICSPLINE: a lone cubic key is just its value.
      if (t.interpolation == interpolation::cubic_spline && t.times.size() == 1) {
        std::size_t c = static_cast<std::size_t>(components(t.path));
        t.values = std::vector<float>(t.values.begin() + static_cast<std::ptrdiff_t>(c),
                                      t.values.begin() + static_cast<std::ptrdiff_t>(2 * c));
        t.interpolation = interpolation::linear;
      }
    }
    hold_pose_for_a_frame(a, o);
    if (o.resample_fps && *o.resample_fps > 0) {
      double fps = *o.resample_fps;
      auto frames = static_cast<std::size_t>(std::floor(a.duration * fps + 1e-6));
      for (auto& t : a.tracks) {
        track r;
        r.bone = t.bone;
        r.path = t.path;
        r.interpolation = interpolation::linear;
        for (std::size_t f = 0; f <= frames; ++f) {
          float tm = static_cast<float>(static_cast<double>(f) / fps);
          r.times.push_back(tm);
          auto v = scene_ops::sample(t, tm);
          r.values.insert(r.values.end(), v.begin(), v.end());
        }
        if (r.times.back() < static_cast<float>(a.duration) - 1e-6f) {  // keep the last key
          float tm = static_cast<float>(a.duration);
          r.times.push_back(tm);
          auto v = scene_ops::sample(t, tm);
          r.values.insert(r.values.end(), v.begin(), v.end());
        }
        t = std::move(r);
      }
      a.extras["resampled_fps"] = fps;
    }
    kept.push_back(std::move(a));
  }
  s.animations = std::move(kept);
  return s;
}

// ------------------------------------------------------------------ write(), piece by piece
namespace {

// Root node: axis conversion only. Size goes into the data (an armature under a scaled
// node must have its transform applied before anything can be exported from Blender).
void add_root(scene& s, const write_options& o, tg::Model& m, json& asset_extras) {
  tg::Node root;
  root.name = "rigrip_root";
  quat rq{0, 0, 0, 1};
  vec3 rs{1, 1, 1};
  if (s.metadata.is_object() && s.metadata.contains("root_transform")) {
    const auto& rt = s.metadata["root_transform"];
    // (shape checked by scene::validate(); a scene that skipped it still cannot throw here)
    auto number = [](const json& v, float fallback) { return v.is_number() ? v.get<float>() : fallback; };
    if (rt.is_object() && rt.contains("rotation") && rt["rotation"].is_array() && rt["rotation"].size() == 4)
      for (std::size_t i = 0; i < 4; ++i) rq[i] = number(rt["rotation"][i], i == 3 ? 1.0f : 0.0f);
    if (rt.is_object() && rt.contains("scale") && rt["scale"].is_array() && rt["scale"].size() == 3)
      for (std::size_t i = 0; i < 3; ++i) rs[i] *= number(rt["scale"][i], 1.0f);
  }
  float units = 1;
  if (!o.native_units && s.metadata.is_object() && s.metadata.contains("metres_per_unit") &&
      s.metadata["metres_per_unit"].is_number() && s.metadata["metres_per_unit"].get<double>() > 0)
    units = s.metadata["metres_per_unit"].get<float>();
  const bool stated = s.metadata.is_object() && s.metadata.contains("metres_per_unit");
  float data_scale = o.scale * units;
  if (rs[0] > 0 && rs[0] == rs[1] && rs[1] == rs[2]) {
    // A uniform root scale is a unit statement too: into the data, unless metres_per_unit
    // already says the same (SF3 states both) or the source's units are wanted.
    if (!o.native_units && !stated) data_scale *= rs[0];
    rs = {1, 1, 1};
  }
  if (data_scale != 1) scale_lengths(s, data_scale);
  asset_extras["units_scale"] = data_scale;  // the reader divides it back out for `pack`
  asset_extras["units"] = o.native_units ? "source" : "metres";
  m.asset.extras = to_value(asset_extras);
  if (o.source_up == up_axis::z) rq = core::multiply(core::axis_angle({1, 0, 0}, -core::pi / 2), rq);
  rq = core::normalize(rq);
  if (rq != quat{0, 0, 0, 1}) root.rotation = {rq[0], rq[1], rq[2], rq[3]};
  if (rs != vec3{1, 1, 1}) root.scale = {rs[0], rs[1], rs[2]};
  root.extras = to_value(json{{"rigrip_root", true}});
  m.nodes.push_back(root);
  m.scenes[0].nodes.push_back(0);
}

// The nodes written for the skeletons, by skeleton and bone.
struct skeleton_nodes {
  std::vector<std::vector<int>> bone_nodes;
  std::vector<std::vector<int>> helper_nodes;  // SSC helper per bone, or -1
  std::vector<std::vector<core::mat4>> world;  // rest-pose world matrix per bone
  std::vector<int> skin_of;                    // skin per skeleton, or -1
};

// Skeletons: a container node per skeleton under the root, bones below it.
skeleton_nodes add_skeletons(const scene& s, tg::Model& m, builder& b) {
  skeleton_nodes sn{std::vector<std::vector<int>>(s.skeletons.size()), std::vector<std::vector<int>>(s.skeletons.size()),
                   std::vector<std::vector<core::mat4>>(s.skeletons.size()), std::vector<int>(s.skeletons.size(), -1)};
  auto& bone_nodes = sn.bone_nodes;
  auto& helper_nodes = sn.helper_nodes;
  auto& world = sn.world;
  auto& skin_of = sn.skin_of;
  for (std::size_t si = 0; si < s.skeletons.size(); ++si) {
    const auto& sk = s.skeletons[si];
    tg::Node holder;
    holder.name = sk.name.empty() ? "skeleton_" + std::to_string(si) : sk.name;
    holder.extras = to_value(json{{"rigrip_skeleton", si}});
    // Optional placement of a whole skeleton with its meshes (source units, below the root
    // conversion), e.g. the models of one container file side by side instead of overlapping.
    if (sk.extras.is_object() && sk.extras.contains("display_offset")) {
      const auto& off = sk.extras["display_offset"];
      if (off.is_array() && off.size() == 3 && off[0].is_number() && off[1].is_number() && off[2].is_number())
        holder.translation = {off[0].get<double>(), off[1].get<double>(), off[2].get<double>()};
    }
    int holder_idx = static_cast<int>(m.nodes.size());
    m.nodes.push_back(holder);
    m.nodes[0].children.push_back(holder_idx);
    world[si] = scene_ops::world_matrices(sk);
    // Segment scale compensation: a helper node between parent and bone carries the
    // bone's translation and the scale 1/s_parent, so plain T*R*S inheritance gives the
    // compensated world exactly (scene-model.md). Only where the parent's scale is not 1.
    const std::vector<bool> comp = scene_ops::compensating_bones(s, si);
    helper_nodes[si].assign(sk.bones.size(), -1);
    for (std::size_t bi = 0; bi < sk.bones.size(); ++bi) {
      const auto& bn = sk.bones[bi];
      tg::Node n;
      n.name = bn.name;
      if (!comp[bi]) n.translation = {bn.translation[0], bn.translation[1], bn.translation[2]};
      quat q = core::normalize(bn.rotation);
      n.rotation = {q[0], q[1], q[2], q[3]};
      n.scale = {bn.scale[0], bn.scale[1], bn.scale[2]};
      if (!bn.extras.is_null() && !bn.extras.empty()) n.extras = to_value(bn.extras);
      int parent_node = bn.parent >= 0 ? bone_nodes[si][static_cast<std::size_t>(bn.parent)] : holder_idx;
      if (comp[bi]) {
        tg::Node h;
        h.name = bn.name + "_ssc";
        h.translation = {bn.translation[0], bn.translation[1], bn.translation[2]};
        const vec3 c = scene_ops::compensation(sk.bones[static_cast<std::size_t>(bn.parent)].scale);
        h.scale = {c[0], c[1], c[2]};
        h.extras = to_value(json{{"rigrip_ssc_helper", bn.name}});
        int hidx = static_cast<int>(m.nodes.size());
        m.nodes.push_back(h);
        m.nodes[static_cast<std::size_t>(parent_node)].children.push_back(hidx);
        helper_nodes[si][bi] = hidx;
        parent_node = hidx;
      }
      int idx = static_cast<int>(m.nodes.size());
      m.nodes.push_back(std::move(n));
      bone_nodes[si].push_back(idx);
      m.nodes[static_cast<std::size_t>(parent_node)].children.push_back(idx);
    }
    if (sk.bones.empty()) continue;
    tg::Skin skin;
    skin.name = holder.name;
    skin.skeleton = holder_idx;
    skin.joints = bone_nodes[si];
    std::vector<float> ibm;
    for (const auto& w : world[si]) {
      auto inv = core::inverse(w);
      ibm.insert(ibm.end(), inv.begin(), inv.end());
    }
    skin.inverseBindMatrices = b.floats(ibm, TINYGLTF_TYPE_MAT4, 16, false);
    m.skins.push_back(skin);
    skin_of[si] = static_cast<int>(m.skins.size() - 1);
  }
  return sn;
}

// One sampler per distinct wrap/filter combination (the scene's defaults: crisp,
// clamped texels for retro atlases).
int sampler_for(const texture& t, tg::Model& m) {
  auto wrap = [](texture_wrap w) {
    return w == texture_wrap::repeat            ? TINYGLTF_TEXTURE_WRAP_REPEAT
           : w == texture_wrap::mirrored_repeat ? TINYGLTF_TEXTURE_WRAP_MIRRORED_REPEAT
                                                : TINYGLTF_TEXTURE_WRAP_CLAMP_TO_EDGE;
  };
  auto filter = [](texture_filter f) {
    return f == texture_filter::linear ? TINYGLTF_TEXTURE_FILTER_LINEAR : TINYGLTF_TEXTURE_FILTER_NEAREST;
  };
  tg::Sampler smp;
  smp.magFilter = filter(t.mag_filter);
  smp.minFilter = filter(t.min_filter);
  smp.wrapS = wrap(t.wrap_s);
  smp.wrapT = wrap(t.wrap_t);
  // Textures whose extras ask for "wrap": "repeat" / "filter": "linear" (tiling game
  // textures of formats that keep no sampler) get glTF's linear + repeat.
  if (extra(t.extras, "wrap", std::string()) == "repeat" || extra(t.extras, "filter", std::string()) == "linear") {
    smp.magFilter = TINYGLTF_TEXTURE_FILTER_LINEAR;
    smp.minFilter = TINYGLTF_TEXTURE_FILTER_LINEAR_MIPMAP_LINEAR;
    smp.wrapS = smp.wrapT = TINYGLTF_TEXTURE_WRAP_REPEAT;
  }
  int si = -1;
  for (std::size_t k = 0; k < m.samplers.size(); ++k)
    if (m.samplers[k].magFilter == smp.magFilter && m.samplers[k].minFilter == smp.minFilter &&
        m.samplers[k].wrapS == smp.wrapS && m.samplers[k].wrapT == smp.wrapT)
      si = static_cast<int>(k);
  if (si < 0) {
    m.samplers.push_back(smp);
    si = static_cast<int>(m.samplers.size() - 1);
  }
  return si;
}

result<void> add_textures(const scene& s, tg::Model& m, builder& b) {
  for (const auto& t : s.textures) {
    std::vector<std::uint8_t> png;
    auto sink = [](void* ctx, void* data, int size) {
      auto* v = static_cast<std::vector<std::uint8_t>*>(ctx);
      auto* p = static_cast<std::uint8_t*>(data);
      v->insert(v->end(), p, p + size);
    };
    if (!stbi_write_png_to_func(sink, &png, static_cast<int>(t.width), static_cast<int>(t.height), 4,
                                t.rgba.data(), static_cast<int>(t.width * 4)))
      return make_error(code::gltf_error, "PNG encoding failed for texture '" + t.name + "'");
    tg::Image img;
    img.name = t.name;
    img.mimeType = "image/png";
    img.bufferView = b.view(png.data(), png.size());
    m.images.push_back(img);
    tg::Texture tex;
    tex.source = static_cast<int>(m.images.size() - 1);
    tex.sampler = sampler_for(t, m);
    m.textures.push_back(tex);
  }
  return {};
}

// A material's normal map goes into glTF only when every mesh drawn with it carries tangents:
// runtime-made tangent spaces differ between viewers (and the validator warns about them).
std::vector<bool> materials_with_tangents(const scene& s) {
  std::vector<bool> ok(s.materials.size(), true), used(s.materials.size(), false);
  for (const auto& me : s.meshes) {
    if (me.material < 0 || static_cast<std::size_t>(me.material) >= s.materials.size()) continue;
    used[static_cast<std::size_t>(me.material)] = true;
    if (me.tangents.empty()) ok[static_cast<std::size_t>(me.material)] = false;
  }
  for (std::size_t i = 0; i < ok.size(); ++i) ok[i] = ok[i] && used[i];
  return ok;
}

void add_materials(const scene& s, tg::Model& m) {
  bool unlit_used = false;
  const auto tangents_ok = materials_with_tangents(s);
  for (std::size_t mi = 0; mi < s.materials.size(); ++mi) {
    const auto& mt = s.materials[mi];
    tg::Material gm;
    gm.name = mt.name;
    gm.pbrMetallicRoughness.baseColorFactor = {mt.base_color[0], mt.base_color[1], mt.base_color[2], mt.base_color[3]};
    gm.pbrMetallicRoughness.metallicFactor = 0.0;
    gm.pbrMetallicRoughness.roughnessFactor = 1.0;
    if (mt.texture >= 0) {
      gm.pbrMetallicRoughness.baseColorTexture.index = mt.texture;
      gm.pbrMetallicRoughness.baseColorTexture.texCoord = mt.texcoord;
    }
    nlohmann::json mextras = mt.extras.is_object() ? mt.extras : nlohmann::json::object();
    if (mt.normal_texture >= 0 && tangents_ok[mi]) {
      gm.normalTexture.index = mt.normal_texture;
      gm.normalTexture.texCoord = mt.normal_texcoord;
    } else if (mt.normal_texture >= 0) {
      mextras["normal_texture"] = {{"index", mt.normal_texture}, {"texCoord", mt.normal_texcoord},
                                   {"not_in_material", "the meshes carry no tangents"}};
    }
    if (mt.emissive_texture >= 0) {
      gm.emissiveTexture.index = mt.emissive_texture;
      gm.emissiveTexture.texCoord = mt.emissive_texcoord;
    }
    if (mt.emissive_factor != vec3{0, 0, 0})
      gm.emissiveFactor = {mt.emissive_factor[0], mt.emissive_factor[1], mt.emissive_factor[2]};
    if (!mextras.empty()) gm.extras = to_value(mextras);
    gm.doubleSided = mt.double_sided;
    if (mt.alpha_mode == material::alpha::mask) {
      gm.alphaMode = "MASK";
      gm.alphaCutoff = mt.alpha_cutoff;
    } else if (mt.alpha_mode == material::alpha::blend) {
      gm.alphaMode = "BLEND";
    }
    if (mt.unlit) {
      gm.extensions["KHR_materials_unlit"] = tg::Value(tg::Value::Object());
      unlit_used = true;
    }
    m.materials.push_back(gm);
  }
  if (unlit_used) m.extensionsUsed.push_back("KHR_materials_unlit");
}

// Skin attributes: duplicate joints merged, zero weights dropped, the sum normalised to 1.
void add_skin_weights(const mesh& me, tg::Primitive& prim, builder& b) {
  std::vector<std::uint16_t> j;
  std::vector<float> w;
  for (std::size_t v = 0; v < me.joints.size(); ++v) {
    std::array<std::uint16_t, 4> jj{};
    std::array<float, 4> ww{};
    int used = 0;
    for (int k = 0; k < 4; ++k) {
      float wk = me.weights[v][static_cast<std::size_t>(k)];
      if (!(wk > 0)) continue;
      std::uint16_t jk = me.joints[v][static_cast<std::size_t>(k)];
      int found = -1;
      for (int u = 0; u < used; ++u)
        if (jj[static_cast<std::size_t>(u)] == jk) found = u;
      if (found >= 0) ww[static_cast<std::size_t>(found)] += wk;
      else jj[static_cast<std::size_t>(used)] = jk, ww[static_cast<std::size_t>(used++)] = wk;
    }
    float sum = ww[0] + ww[1] + ww[2] + ww[3];
    if (!(sum > 0)) jj = {0, 0, 0, 0}, ww = {1, 0, 0, 0}, sum = 1;
    for (auto& x : ww) x /= sum;
    j.insert(j.end(), jj.begin(), jj.end());
    w.insert(w.end(), ww.begin(), ww.end());
  }
  prim.attributes["JOINTS_0"] = b.u16x4(j);
  prim.attributes["WEIGHTS_0"] = b.floats(w, TINYGLTF_TYPE_VEC4, 4, false, TINYGLTF_TARGET_ARRAY_BUFFER);
}

// Meshes. Rigid meshes become skinned to their one bone so they follow the skeleton.
void add_meshes(const scene& s, const write_options& o, const skeleton_nodes& sn, tg::Model& m, builder& b) {
  const auto& world = sn.world;
  const auto& skin_of = sn.skin_of;
  // The scene's meshes are read in place; only a bone-attached one is copied (to move it into
  // its bone's world), and the bone displays are made here.
  std::vector<mesh> displays;
  bool any_geometry_for[64] = {};
  for (const auto& me : s.meshes)
    if (me.skeleton >= 0 && me.skeleton < 64) any_geometry_for[me.skeleton] = true;
  if (o.bone_display_mesh) {
    for (std::size_t si = 0; si < s.skeletons.size() && si < 64; ++si) {
      if (any_geometry_for[si] || s.skeletons[si].bones.empty()) continue;
      mesh bd;
      bd.name = "bone_display";
      bd.skeleton = static_cast<int>(si);
      bone_display(s.skeletons[si], world[si], bd);
      displays.push_back(std::move(bd));
    }
  }
  const std::size_t count = s.meshes.size() + displays.size();
  for (std::size_t mi = 0; mi < count; ++mi) {
    const mesh& source = mi < s.meshes.size() ? s.meshes[mi] : displays[mi - s.meshes.size()];
    if (source.positions.empty()) continue;
    std::optional<mesh> moved;
    if (source.bone >= 0 && source.skeleton >= 0) {
      moved = source;
      const auto& w = world[static_cast<std::size_t>(source.skeleton)][static_cast<std::size_t>(source.bone)];
      for (auto& p : moved->positions) p = transform_point(w, p);
      for (auto& n : moved->normals) n = transform_dir(w, n);
      for (auto& t : moved->tangents) t = transform_tangent(w, t);
      moved->joints.assign(moved->positions.size(), {static_cast<std::uint16_t>(source.bone), 0, 0, 0});
      moved->weights.assign(moved->positions.size(), {1, 0, 0, 0});
    }
    const mesh& me = moved ? *moved : source;
    tg::Primitive prim;
    prim.mode = TINYGLTF_MODE_TRIANGLES;
    prim.attributes["POSITION"] = b.floats(flat(me.positions), TINYGLTF_TYPE_VEC3, 3, true, TINYGLTF_TARGET_ARRAY_BUFFER);
    if (!me.normals.empty()) {
      std::vector<vec3> units(me.normals.size());  // glTF wants unit normals
      for (std::size_t k = 0; k < units.size(); ++k) units[k] = unit_or_up(me.normals[k]);
      prim.attributes["NORMAL"] = b.floats(flat(units), TINYGLTF_TYPE_VEC3, 3, false, TINYGLTF_TARGET_ARRAY_BUFFER);
      if (me.tangents.size() == me.normals.size()) {
        std::vector<float> f;
        f.reserve(me.tangents.size() * 4);
        for (const auto& t : me.tangents) {
          // glTF wants unit xyz; a degenerate tangent gets one perpendicular to its normal.
          const auto& n = units[static_cast<std::size_t>(&t - me.tangents.data())];
          vec3 u = unit_or_up({t[0], t[1], t[2]});
          if (!(std::sqrt(t[0] * t[0] + t[1] * t[1] + t[2] * t[2]) > 1e-8f))
            u = unit_or_up(std::fabs(n[0]) < 0.9f ? vec3{0, -n[2], n[1]} : vec3{-n[2], 0, n[0]});
          f.insert(f.end(), {u[0], u[1], u[2], t[3] < 0 ? -1.0f : 1.0f});
        }
        prim.attributes["TANGENT"] = b.floats(f, TINYGLTF_TYPE_VEC4, 4, false, TINYGLTF_TARGET_ARRAY_BUFFER);
      }
    }
    if (!me.uvs.empty()) {
      std::vector<float> f;
      for (const auto& e : me.uvs) f.insert(f.end(), e.begin(), e.end());
      prim.attributes["TEXCOORD_0"] = b.floats(f, TINYGLTF_TYPE_VEC2, 2, false, TINYGLTF_TARGET_ARRAY_BUFFER);
    }
    if (!me.uvs1.empty()) {
      std::vector<float> f;
      for (const auto& e : me.uvs1) f.insert(f.end(), e.begin(), e.end());
      // TEXCOORD_1 needs a TEXCOORD_0 before it.
      if (me.uvs.empty())
        prim.attributes["TEXCOORD_0"] = b.floats(std::vector<float>(f.size(), 0.0f), TINYGLTF_TYPE_VEC2, 2, false,
                                                 TINYGLTF_TARGET_ARRAY_BUFFER);
      prim.attributes["TEXCOORD_1"] = b.floats(f, TINYGLTF_TYPE_VEC2, 2, false, TINYGLTF_TARGET_ARRAY_BUFFER);
    }
    if (!me.colors.empty()) {
      std::vector<float> f;
      for (const auto& e : me.colors)
        for (float c : e) f.push_back(std::clamp(c, 0.0f, 1.0f));
      prim.attributes["COLOR_0"] = b.floats(f, TINYGLTF_TYPE_VEC4, 4, false, TINYGLTF_TARGET_ARRAY_BUFFER);
    }
    bool skinned = !me.joints.empty() && me.skeleton >= 0 && skin_of[static_cast<std::size_t>(me.skeleton)] >= 0;
    if (skinned) {
      add_skin_weights(me, prim, b);
    }
    if (!me.indices.empty()) prim.indices = b.indices(me.indices);
    if (me.material >= 0) prim.material = me.material;
    tg::Mesh gm;
    gm.name = me.name.empty() ? "mesh_" + std::to_string(mi) : me.name;
    gm.primitives.push_back(prim);
    if (!me.extras.is_null() && !me.extras.empty()) gm.extras = to_value(me.extras);
    m.meshes.push_back(gm);
    tg::Node n;
    n.name = gm.name;
    n.mesh = static_cast<int>(m.meshes.size() - 1);
    int idx = static_cast<int>(m.nodes.size());
    if (skinned) {
      n.skin = skin_of[static_cast<std::size_t>(me.skeleton)];
      m.nodes.push_back(n);
      m.scenes[0].nodes.push_back(idx);  // skinned mesh nodes are roots (their transform is ignored)
    } else {
      m.nodes.push_back(n);
      m.nodes[0].children.push_back(idx);
    }
  }
}

// Key times of an SSC helper's scale channel following the parent's scale track `ps`:
// its own keys for STEP, else every frame.
std::vector<float> compensation_times(const track& ps, const animation& a, const write_options& o) {
  std::vector<float> times;
  if (ps.interpolation == interpolation::step || ps.times.size() == 1) {
    times = ps.times;
  } else {
    const double fps = o.resample_fps && *o.resample_fps > 0 ? *o.resample_fps : a.fps && *a.fps > 0 ? *a.fps : 30.0;
    // Every frame; an absurd duration gets a coarser grid instead of unbounded memory.
    const double step = std::max(1.0 / fps, a.duration / 65536.0);
    std::vector<float> grid;
    for (double k = 0; k * step <= a.duration; k += 1) grid.push_back(static_cast<float>(k * step));
    grid.push_back(static_cast<float>(a.duration));
    grid.insert(grid.end(), ps.times.begin(), ps.times.end());
    std::sort(grid.begin(), grid.end());
    for (float tm : grid)  // merge near-duplicates (a key on a frame)
      if (times.empty() || tm - times.back() > 1e-5f) times.push_back(tm);
  }
  return times;
}

// Material tracks animate KHR_texture_transform (offset / rotation / scale) of every
// texture of the material that reads the track's UV set, through KHR_animation_pointer.
// Returns the JSON pointers of those texture infos ("/materials/i/...Texture").
std::vector<std::string> texture_info_pointers(const tg::Material& gm, int mi, int texcoord) {
  std::vector<std::string> out;
  const std::string base = "/materials/" + std::to_string(mi);
  if (gm.pbrMetallicRoughness.baseColorTexture.index >= 0 && gm.pbrMetallicRoughness.baseColorTexture.texCoord == texcoord)
    out.push_back(base + "/pbrMetallicRoughness/baseColorTexture");
  if (gm.normalTexture.index >= 0 && gm.normalTexture.texCoord == texcoord) out.push_back(base + "/normalTexture");
  if (gm.emissiveTexture.index >= 0 && gm.emissiveTexture.texCoord == texcoord) out.push_back(base + "/emissiveTexture");
  return out;
}

// Gives the animated texture infos a KHR_texture_transform holding each property's first
// key (from the first animation that moves it): the pointer targets must exist.
void add_texture_transforms(const scene& s, tg::Model& m) {
  std::map<std::pair<int, int>, std::map<std::string, std::vector<float>>> start;  // (material, texcoord) -> property -> value
  for (const auto& a : s.animations)
    for (const auto& t : a.material_tracks) {
      auto& props = start[{t.material, t.texcoord}];
      props.try_emplace(std::string(to_string(t.property)), t.values.begin(),
                        t.values.begin() + static_cast<std::ptrdiff_t>(t.components()));
    }
  if (start.empty()) return;
  for (const auto& [key, props] : start) {
    auto& gm = m.materials[static_cast<std::size_t>(key.first)];
    tg::Value::Object ext;
    for (const auto& [name, v] : props) {
      if (v.size() == 1) {
        ext[name] = tg::Value(static_cast<double>(v[0]));
      } else {
        tg::Value::Array arr;
        for (float x : v) arr.emplace_back(static_cast<double>(x));
        ext[name] = tg::Value(arr);
      }
    }
    const int texcoord = key.second;  // (clang 14 cannot capture a structured binding)
    auto put = [&](tg::ExtensionMap& e, int tc) {
      if (tc == texcoord) e["KHR_texture_transform"] = tg::Value(ext);
    };
    if (gm.pbrMetallicRoughness.baseColorTexture.index >= 0)
      put(gm.pbrMetallicRoughness.baseColorTexture.extensions, gm.pbrMetallicRoughness.baseColorTexture.texCoord);
    if (gm.normalTexture.index >= 0) put(gm.normalTexture.extensions, gm.normalTexture.texCoord);
    if (gm.emissiveTexture.index >= 0) put(gm.emissiveTexture.extensions, gm.emissiveTexture.texCoord);
  }
  m.extensionsUsed.push_back("KHR_texture_transform");
  m.extensionsUsed.push_back("KHR_animation_pointer");
}

void add_animations(const scene& s, const write_options& o, const skeleton_nodes& sn, tg::Model& m, builder& b,
                    diagnostics& diags) {
  add_texture_transforms(s, m);
  const auto& bone_nodes = sn.bone_nodes;
  const auto& helper_nodes = sn.helper_nodes;
  std::set<std::string> animation_names;
  for (const auto& a : s.animations) {
    if (a.skeleton < 0 || static_cast<std::size_t>(a.skeleton) >= s.skeletons.size()) continue;
    const auto& sk = s.skeletons[static_cast<std::size_t>(a.skeleton)];
    tg::Animation ga;
    ga.name = short_unique_name(a.name, animation_names);
    auto add_channel = [&](tg::Animation& anim, const std::vector<float>& times, const std::vector<float>& values,
                           path p, interpolation in, int node) {
      tg::AnimationSampler smp;
      smp.input = b.floats(times, TINYGLTF_TYPE_SCALAR, 1, true);
      int ncomp = components(p);
      smp.output = b.floats(values, ncomp == 4 ? TINYGLTF_TYPE_VEC4 : TINYGLTF_TYPE_VEC3, ncomp, false);
      smp.interpolation = std::string(to_string(in));
      anim.samplers.push_back(std::move(smp));
      tg::AnimationChannel ch;
      ch.sampler = static_cast<int>(anim.samplers.size() - 1);
      ch.target_node = node;
      ch.target_path = std::string(to_string(p));
      anim.channels.push_back(std::move(ch));
    };
    const bone_lookup bone_of(sk);
    for (const auto& t : a.tracks) {
      int bi = bone_of.find(t.bone);
      if (bi < 0) continue;
      std::vector<float> values;  // rotations only: renormalised copies
      if (t.path == path::rotation) {
        values = t.values;
        std::size_t e = t.elements_per_key();
        for (std::size_t k = 0; k < t.times.size(); ++k) {  // renormalise values (not tangents)
          float* q = &values[(k * e + (e == 3 ? 1 : 0)) * 4];
#if defined(__SSE2__)
          _mm_storeu_ps(q, core::simd::normalized({q[0], q[1], q[2], q[3]}));  // normalize's floats, inline
#else
          quat n = core::normalize({q[0], q[1], q[2], q[3]});
          std::copy(n.begin(), n.end(), q);
#endif
        }
        core::make_hemisphere_continuous(values, e);  // last step before writing
      }
      const auto skel = static_cast<std::size_t>(a.skeleton);
      const int helper = helper_nodes[skel][static_cast<std::size_t>(bi)];
      add_channel(ga, t.times, t.path == path::rotation ? values : t.values, t.path, t.interpolation,
                  t.path == path::translation && helper >= 0 ? helper : bone_nodes[skel][static_cast<std::size_t>(bi)]);
    }
    // SSC helpers follow their parent bone's animated scale with 1/s (per frame; exact
    // at every frame, and at every key for STEP).
    const auto& helpers = helper_nodes[static_cast<std::size_t>(a.skeleton)];
    for (std::size_t bi = 0; bi < helpers.size(); ++bi) {
      if (helpers[bi] < 0) continue;
      const std::string& parent_name = sk.bones[static_cast<std::size_t>(sk.bones[bi].parent)].name;
      const track* ps = nullptr;
      for (const auto& t : a.tracks)
        if (t.path == path::scale && t.bone == parent_name) {
          ps = &t;
          break;
        }
      if (!ps || ps->times.empty()) continue;
      const std::vector<float> times = compensation_times(*ps, a, o);
      std::vector<float> values;
      for (float tm : times) {
        auto v = scene_ops::sample(*ps, tm);
        vec3 c = scene_ops::compensation({v[0], v[1], v[2]});
        values.insert(values.end(), c.begin(), c.end());
      }
      add_channel(ga, times, values, path::scale,
                  ps->interpolation == interpolation::step ? interpolation::step : interpolation::linear, helpers[bi]);
    }
    for (const auto& t : a.material_tracks) {
      const auto& gm = m.materials[static_cast<std::size_t>(t.material)];
      for (const auto& ptr : texture_info_pointers(gm, t.material, t.texcoord)) {
        tg::AnimationSampler smp;
        smp.input = b.floats(t.times, TINYGLTF_TYPE_SCALAR, 1, true);
        const int n = static_cast<int>(t.components());
        smp.output = b.floats(t.values, n == 2 ? TINYGLTF_TYPE_VEC2 : TINYGLTF_TYPE_SCALAR, n, false);
        smp.interpolation = std::string(to_string(t.interpolation));
        ga.samplers.push_back(smp);
        tg::AnimationChannel ch;
        ch.sampler = static_cast<int>(ga.samplers.size() - 1);
        ch.target_node = -1;  // dropped when serialised (the extension requires no node)
        ch.target_path = "pointer";
        tg::Value::Object pe;
        pe["pointer"] = tg::Value(ptr + "/extensions/KHR_texture_transform/" + std::string(to_string(t.property)));
        ch.target_extensions["KHR_animation_pointer"] = tg::Value(pe);
        ga.channels.push_back(ch);
      }
    }
    if (ga.channels.empty()) {
      diags.warn(code::w_lossy, "animation '" + a.name + "' has no tracks and was not written");
      continue;
    }
    json ex = a.extras.is_object() ? a.extras : json::object();
    ex["source_format"] = s.format;
    if (ga.name != a.name) ex["name"] = a.name;  // the full name, when it had to be cut
    ex["duration"] = a.duration;
    if (a.fps) {
      ex["source_fps"] = *a.fps;
      if (!ex.contains("frame_count")) ex["frame_count"] = static_cast<long long>(std::llround(a.duration * *a.fps)) + 1;
    }
    ex["skeleton"] = a.skeleton;
    ga.extras = to_value(ex);
    m.animations.push_back(std::move(ga));
  }
}

// A camera-only file would hold no mesh: some importers (assimp) refuse such a scene and
// viewers show nothing, so each camera gets a small pyramid (apex at the eye, opening down -Z as
// the camera looks), named "camera_display" like the skeletons' "bone_display" and skipped the
// same way when read back.
void add_camera_display(tg::Model& m, builder& b, const std::map<std::string, int>& node_of) {
  const float d = 0.3f, w = 0.2f, h = 0.15f;  // output units (metres by default)
  const vec3 apex{0, 0, 0};
  const vec3 c[4] = {{-w, -h, -d}, {w, -h, -d}, {w, h, -d}, {-w, h, -d}};
  std::vector<float> pos, nrm;
  auto tri = [&](const vec3& p0, const vec3& p1, const vec3& p2) {
    const vec3 e1{p1[0] - p0[0], p1[1] - p0[1], p1[2] - p0[2]}, e2{p2[0] - p0[0], p2[1] - p0[1], p2[2] - p0[2]};
    const vec3 n = unit_or_up({e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2], e1[0] * e2[1] - e1[1] * e2[0]});
    for (const vec3* p : {&p0, &p1, &p2}) {
      pos.insert(pos.end(), p->begin(), p->end());
      nrm.insert(nrm.end(), n.begin(), n.end());
    }
  };
  for (int k = 0; k < 4; ++k) tri(apex, c[(k + 1) % 4], c[k]);
  tri(c[0], c[1], c[2]);
  tri(c[0], c[2], c[3]);
  tg::Primitive prim;
  prim.mode = TINYGLTF_MODE_TRIANGLES;
  prim.attributes["POSITION"] = b.floats(pos, TINYGLTF_TYPE_VEC3, 3, true, TINYGLTF_TARGET_ARRAY_BUFFER);
  prim.attributes["NORMAL"] = b.floats(nrm, TINYGLTF_TYPE_VEC3, 3, false, TINYGLTF_TARGET_ARRAY_BUFFER);
  tg::Mesh gm;
  gm.name = "camera_display";
  gm.primitives.push_back(prim);
  m.meshes.push_back(gm);
  for (const auto& [name, node] : node_of) {
    tg::Node n;
    n.name = name + "_display";
    n.mesh = static_cast<int>(m.meshes.size() - 1);
    m.nodes[static_cast<std::size_t>(node)].children.push_back(static_cast<int>(m.nodes.size()));
    m.nodes.push_back(n);
  }
}

// Cameras: a glTF camera and a node for each, under the root (so its axis conversion
// applies), and one glTF animation per camera clip moving those nodes. Lens keys (yfov)
// go into the clip's extras: core glTF cannot animate a camera property.
void add_cameras(const scene& s, const write_options& o, tg::Model& m, builder& b, diagnostics& diags) {
  std::map<std::string, int> node_of;
  for (const auto& c : s.cameras) {
    tg::Camera gc;
    gc.name = c.name;
    if (c.type == camera::projection::perspective) {
      gc.type = "perspective";
      gc.perspective.yfov = c.yfov;
      gc.perspective.znear = c.znear;
      // glTF's infinite projection omits zfar, but tinygltf always writes it: a far plane
      // 10^6 x znear away stands for "none", and the extras say so.
      gc.perspective.zfar = c.zfar.value_or(c.znear * 1e6f);
      if (!c.zfar) gc.extras = to_value(json{{"zfar", "infinite"}});
      gc.perspective.aspectRatio = c.aspect.value_or(0.0f);
    } else {
      gc.type = "orthographic";
      gc.orthographic.xmag = c.xmag;
      gc.orthographic.ymag = c.ymag;
      gc.orthographic.znear = c.znear;
      gc.orthographic.zfar = c.zfar.value_or(c.znear + 1.0f);
    }
    m.cameras.push_back(gc);
    tg::Node n;
    n.name = c.name;
    n.camera = static_cast<int>(m.cameras.size() - 1);
    if (c.translation != vec3{0, 0, 0}) n.translation = {c.translation[0], c.translation[1], c.translation[2]};
    const quat q = core::normalize(c.rotation);
    if (q != quat{0, 0, 0, 1}) n.rotation = {q[0], q[1], q[2], q[3]};
    json ex = c.extras.is_object() ? c.extras : json::object();
    ex["rigrip_camera"] = c.name;
    n.extras = to_value(ex);
    node_of[c.name] = static_cast<int>(m.nodes.size());
    m.nodes[0].children.push_back(static_cast<int>(m.nodes.size()));
    m.nodes.push_back(n);
  }
  if (o.bone_display_mesh && m.meshes.empty() && !s.cameras.empty()) add_camera_display(m, b, node_of);
  std::set<std::string> names;
  for (const auto& ga : m.animations) names.insert(ga.name);
  for (const auto& ca : s.camera_animations) {
    if (!clip_selected(ca.name, o.clips)) continue;
    // Each camera is its own object (an action per camera in Blender): every track is held
    // from 0 to the clip's duration on its own, as a skeletal clip's tracks are together.
    animation a;
    a.name = ca.name;
    for (const auto& t : ca.tracks) {
      animation one;
      one.duration = ca.duration;
      one.tracks = {t};
      hold_clip_until_duration(one);
      a.tracks.push_back(std::move(one.tracks[0]));
    }
    tg::Animation ga;
    ga.name = short_unique_name(ca.name, names);
    for (const auto& t : a.tracks) {
      auto it = node_of.find(t.bone);
      if (it == node_of.end()) continue;
      std::vector<float> values = t.values;
      if (t.path == path::rotation) {
        const std::size_t e = t.elements_per_key();
        for (std::size_t k = 0; k < t.times.size(); ++k) {
          float* q = &values[(k * e + (e == 3 ? 1 : 0)) * 4];
          const quat nq = core::normalize({q[0], q[1], q[2], q[3]});
          std::copy(nq.begin(), nq.end(), q);
        }
        core::make_hemisphere_continuous(values, e);
      }
      tg::AnimationSampler smp;
      smp.input = b.floats(t.times, TINYGLTF_TYPE_SCALAR, 1, true);
      const int nc = components(t.path);
      smp.output = b.floats(values, nc == 4 ? TINYGLTF_TYPE_VEC4 : TINYGLTF_TYPE_VEC3, nc, false);
      smp.interpolation = std::string(to_string(t.interpolation));
      ga.samplers.push_back(smp);
      tg::AnimationChannel ch;
      ch.sampler = static_cast<int>(ga.samplers.size() - 1);
      ch.target_node = it->second;
      ch.target_path = std::string(to_string(t.path));
      ga.channels.push_back(ch);
    }
    json ex = ca.extras.is_object() ? ca.extras : json::object();
    ex["source_format"] = s.format;
    ex["camera_animation"] = true;
    if (ga.name != ca.name) ex["name"] = ca.name;
    ex["duration"] = ca.duration;
    if (ca.fps) ex["source_fps"] = *ca.fps;
    if (!ca.lens.empty()) {
      json lens = json::array();
      for (const auto& l : ca.lens)
        lens.push_back(json{{"camera", l.camera}, {"interpolation", std::string(to_string(l.interpolation))},
                            {"times", l.times}, {"yfov", l.yfov}});
      ex["lens"] = std::move(lens);
    }
    if (ga.channels.empty()) {
      diags.warn(code::w_lossy, "camera animation '" + ca.name + "' moves no camera and was not written");
      continue;
    }
    ga.extras = to_value(ex);
    m.animations.push_back(ga);
  }
}

// tinygltf writes every channel's target node, -1 included; a KHR_animation_pointer
// target must have none. Rewrites the GLB's JSON chunk (or the .gltf text) without them.
void drop_pointer_target_nodes(std::string& str, bool binary) {
  auto fix = [](json& j) {
    if (!j.contains("animations")) return;
    for (auto& a : j["animations"])
      for (auto& c : a["channels"])
        if (c["target"].value("path", "") == "pointer") c["target"].erase("node");
  };
  if (!binary) {
    json j = json::parse(str, nullptr, false);
    if (j.is_discarded()) return;
    fix(j);
    str = j.dump(2);
    return;
  }
  if (str.size() < 20) return;
  auto u32 = [&](std::size_t at) {
    return std::uint32_t(std::uint8_t(str[at])) | std::uint32_t(std::uint8_t(str[at + 1])) << 8 |
           std::uint32_t(std::uint8_t(str[at + 2])) << 16 | std::uint32_t(std::uint8_t(str[at + 3])) << 24;
  };
  const std::uint32_t len = u32(12);
  if (20ull + len > str.size()) return;
  json j = json::parse(str.substr(20, len), nullptr, false);
  if (j.is_discarded()) return;
  fix(j);
  std::string text = j.dump();
  while (text.size() % 4) text += ' ';
  const std::string rest = str.substr(20 + len);  // the BIN chunk, if any
  std::string out = str.substr(0, 12);
  auto put = [&](std::uint32_t v) {
    for (int k = 0; k < 4; ++k) out += static_cast<char>((v >> (8 * k)) & 0xFF);
  };
  put(static_cast<std::uint32_t>(text.size()));
  put(0x4E4F534A);  // "JSON"
  out += text + rest;
  for (int k = 0; k < 4; ++k) out[8 + static_cast<std::size_t>(k)] = static_cast<char>((out.size() >> (8 * k)) & 0xFF);
  str = std::move(out);
}

// An estimate, meant to be above it, of the binary buffer's size without textures (the animation
// and mesh data, bind matrices, bone displays: 24 vertices of 48 bytes a bone; a material track
// animating several textures is counted once), and a sixteenth more, so that it is allocated once: storage reserved and never written is never touched (a large block is mapped
// on first use), while growing it would copy the whole buffer and touch twice its size.
std::size_t binary_size_estimate(const scene& s) {
  std::size_t n = 1024;
  for (const auto& sk : s.skeletons) n += sk.bones.size() * (68 + 24 * 48);
  for (const auto& a : s.animations) {
    for (const auto& t : a.tracks) n += (t.times.size() + t.values.size()) * 4 + 8;
    for (const auto& t : a.material_tracks) n += (t.times.size() + t.values.size()) * 4 + 8;
  }
  for (const auto& m : s.meshes)
    n += m.positions.size() * (12 + 12 + 16 + 8 + 8 + 16 + 8 + 16) + m.indices.size() * 4 + 64;
  return n + n / 16;
}

// The model as .glb bytes, or as .gltf JSON whose buffer is the external `bin_name`, through
// tinygltf's serialiser: kept as the reference the streaming writer is tested against.
result<encoded> serialise_with_tinygltf(tg::Model& m, const write_options& o, const std::string& bin_name) {
  tg::TinyGLTF gltf;
  std::ostringstream os;
  if (!gltf.WriteGltfSceneToStream(&m, os, !o.binary, o.binary))
    return make_error(code::gltf_error, "tinygltf could not serialise the model");
  encoded out;
  std::string str = os.str();
  if (std::find(m.extensionsUsed.begin(), m.extensionsUsed.end(), "KHR_animation_pointer") != m.extensionsUsed.end())
    drop_pointer_target_nodes(str, o.binary);
  if (o.binary) {
    out.main.assign(str.begin(), str.end());
    return out;
  }
  // .gltf: point the buffer at an external .bin instead of the embedded data URI.
  json j = json::parse(str, nullptr, false);
  if (j.is_discarded()) return make_error(code::gltf_error, "internal glTF JSON is malformed");
  if (!m.buffers.empty()) {
    j["buffers"][0]["uri"] = bin_name;
    out.bin = m.buffers[0].data;
  }
  std::string text = j.dump(1);
  out.main.assign(text.begin(), text.end());
  return out;
}

// The same document written straight to text (detail::model_json) and laid out once into
// the GLB; the binary buffer is copied once (into the GLB) or moved out (.gltf's .bin).
result<encoded> serialise_model(tg::Model& m, const write_options& o, const std::string& bin_name, bool reference) {
  if (m.buffers[0].data.empty()) m.buffers.clear();
  if (reference) return serialise_with_tinygltf(m, o, bin_name);
  encoded out;
  if (o.binary) {
    const std::string text = detail::model_json(m, -1, {});
    out.main = detail::glb(text, m.buffers.empty() ? byte_view() : byte_view(m.buffers[0].data));
    return out;
  }
  const std::string text = detail::model_json(m, 1, bin_name);
  out.main.assign(text.begin(), text.end());
  if (!m.buffers.empty()) out.bin = std::move(m.buffers[0].data);
  return out;
}

// The glTF model of `input` (validated, prepared, baked), its binary buffer laid out.
result<void> build_model(const scene& input, const write_options& o, diagnostics& diags, tg::Model& m) {
  auto valid = input.validate();
  if (!valid) return valid.error();
  scene s = prepare(input, o, diags);
  hold_until_duration(s);
  if (!o.additive_raw) apply_additive_onto_rest(s);
  if (o.ssc == ssc_mode::bake) bake_ssc(s, diags);

  m.asset.version = "2.0";
  m.asset.generator = "rigrip";
  json asset_extras{{"source_format", s.format}};
  if (!s.metadata.is_null() && !s.metadata.empty()) asset_extras["source_metadata"] = s.metadata;
  m.asset.extras = to_value(asset_extras);
  builder b(m);
  b.reserve(binary_size_estimate(s));
  m.scenes.resize(1);
  m.defaultScene = 0;

  add_root(s, o, m, asset_extras);
  const skeleton_nodes sn = add_skeletons(s, m, b);
  auto textures = add_textures(s, m, b);
  if (!textures) return textures.error();
  add_materials(s, m);
  add_meshes(s, o, sn, m, b);
  add_animations(s, o, sn, m, b, diags);
  add_cameras(s, o, m, b, diags);
  return {};
}

result<encoded> write_model(const scene& input, const write_options& o, diagnostics& diags,
                            const std::string& bin_name, bool reference) {
  tg::Model m;
  if (auto built = build_model(input, o, diags, m); !built) return built.error();
  return serialise_model(m, o, bin_name, reference);
}

}  // namespace

result<encoded> write(const scene& input, const write_options& o, diagnostics& diags,
                      const std::string& bin_name) {
  return write_model(input, o, diags, bin_name, false);
}

result<encoded> detail::write_with_tinygltf(const scene& input, const write_options& o, diagnostics& diags,
                                            const std::string& bin_name) {
  return write_model(input, o, diags, bin_name, true);
}

result<void> write_file(const scene& s, const std::string& path, const write_options& o,
                        diagnostics& diags) {
  std::string bin_name;
  std::string bin_path;
  if (!o.binary) {
    auto slash = path.find_last_of('/');
    std::string base = slash == std::string::npos ? path : path.substr(slash + 1);
    auto dot = base.find_last_of('.');
    bin_name = (dot == std::string::npos ? base : base.substr(0, dot)) + ".bin";
    bin_path = (slash == std::string::npos ? std::string() : path.substr(0, slash + 1)) + bin_name;
  }
  if (o.binary) {  // the binary buffer goes to the file from where it is, not copied behind the JSON
    tg::Model m;
    if (auto built = build_model(s, o, diags, m); !built) {
      auto e = built.error();
      if (e.file.empty()) e.file = path;
      return e;
    }
    if (m.buffers[0].data.empty()) m.buffers.clear();
    const byte_view bin = m.buffers.empty() ? byte_view() : byte_view(m.buffers[0].data);
    const std::vector<std::uint8_t> head = detail::glb_head(detail::model_json(m, -1, {}), bin.size());
    static constexpr std::uint8_t zeros[4] = {};
    const byte_view parts[] = {head, bin, byte_view(zeros, detail::glb_padding(bin.size()))};
    return save_file_parts(path, parts);
  }
  auto enc = write(s, o, diags, bin_name.empty() ? "scene.bin" : bin_name);
  if (!enc) {
    auto e = enc.error();
    if (e.file.empty()) e.file = path;
    return e;
  }
  if (!o.binary && !enc->bin.empty()) {
    auto r = save_file(bin_path, enc->bin);
    if (!r) return r;
  }
  auto r = save_file(path, enc->main);
  if (!r && !bin_path.empty()) {  // no partial output: the .bin alone is useless
    std::error_code ec;
    std::filesystem::remove(bin_path, ec);
  }
  return r;
}

}  // namespace rigrip::gltf
