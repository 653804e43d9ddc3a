// FRES raw layer -> scene: FSKL skeletons and FSKA animations with the runtime's
// exact curve semantics, skeleton pairing, and Segment Scale Compensate folded into
// plain T*R*S locals so that any standard consumer shows the game's pose (README.md).
#include "formats/bfres/decode.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <deque>
#include <filesystem>
#include <iterator>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <span>

#include "core/failure.hpp"
#include "core/euler.hpp"
#include "core/math.hpp"
#include "formats/bfres/bntx.hpp"
#include "formats/bfres/camera.hpp"
#include "formats/bfres/curve_eval.hpp"
#include "formats/bfres/decode_model.hpp"
#include "formats/bfres/euler_block.hpp"
#include "scene/pose.hpp"

namespace rigrip::bfres {
namespace {

constexpr float two_pi = 2.0f * core::pi;

quat rotation_of(const std::array<float, 4>& r, bool euler) {
  if (euler) return euler_to_quat({r[0], r[1], r[2]});
  return core::normalize({r[0], r[1], r[2], r[3]});
}

struct channel_source {
  std::array<const curve*, 10> curves{};
  std::array<float, 10> constant{};  // base value, else the bind bone's value
  // The segment each curve was last evaluated in: frames are sampled in increasing order,
  // so the next one is found by a step (curve::value with a cursor; same values).
  mutable std::array<std::size_t, 10> cursor{};
  [[nodiscard]] float at(int comp, float frame) const {
    const auto k = static_cast<std::size_t>(comp);
    const curve* c = curves[k];
    return c ? c->eval(frame, cursor[k]) : constant[k];
  }
  [[nodiscard]] bool animated(int first, int n) const {
    for (int k = first; k < first + n; ++k)
      if (curves[static_cast<std::size_t>(k)]) return true;
    return false;
  }
};

// A curve can be written as an exact spline over its keys when evaluating it never
// wraps inside the clip: it covers [0, end] or clamps outside its own range.
bool spline_exact(const curve& c, float end) {
  bool covers = c.start <= 0 && c.end >= end;
  return (c.type() == curve_type::cubic || c.type() == curve_type::linear) &&
         (covers || (c.pre_wrap() == 0 && c.post_wrap() == 0));
}

float seconds(float frame, double fps) { return static_cast<float>(frame / fps); }

// Keeps times strictly increasing after the division by fps: drops, in place, each frame
// whose time is not above the last kept one's.
void keep_distinct_times(std::vector<float>& frames, double fps) {
  std::size_t kept = 0;
  for (const float f : frames)
    if (kept == 0 || seconds(f, fps) > seconds(frames[kept - 1], fps)) frames[kept++] = f;
  frames.resize(kept);
}

// Translation or scale from curves (components first..first+2), kept as curves:
// cubic -> CUBICSPLINE with exact tangents, linear -> LINEAR on the union of keys,
// anything else (baked, wrapping) -> LINEAR per frame.
void vec3_track(const channel_source& src, int first, const std::string& bone_name, path p,
                std::int32_t frame_count, double fps, animation& out) {
  const float end = static_cast<float>(frame_count);
  std::array<const curve*, 3> present{};  // the animated components' curves, in order
  std::size_t n_present = 0;
  for (int k = 0; k < 3; ++k)
    if (auto* c = src.curves[static_cast<std::size_t>(first + k)]) present[n_present++] = c;
  const std::span<const curve* const> cs(present.data(), n_present);
  track t;
  t.bone = bone_name;
  t.path = p;
  t.interpolation = interpolation::linear;
  const bool exact = std::all_of(cs.begin(), cs.end(), [&](const curve* c) { return spline_exact(*c, end); });
  const bool cubic = std::any_of(cs.begin(), cs.end(), [](const curve* c) { return c->type() == curve_type::cubic; });
  // The key frames (sorted, distinct) in [0, end], or every frame.
  std::vector<float> frames;
  if (exact) {
    // Each keyed curve's frames are finite and sorted (parse checks), so the keys inside
    // (0, end) are one run of each and merging the runs sorts them (no zeros among them).
    // frames holds 0 and the merged runs (room for all of them and the end, reserved once).
    std::array<std::pair<const float*, const float*>, 3> runs{};
    std::size_t total = 2;
    for (std::size_t k = 0; k < cs.size(); ++k) {
      const curve* c = cs[k];
      const float* lo = std::upper_bound(c->frames.data(), c->frames.data() + c->frames.size(), 0.0f);
      runs[k] = {lo, std::lower_bound(lo, c->frames.data() + c->frames.size(), end)};
      total += static_cast<std::size_t>(runs[k].second - runs[k].first);
    }
    frames.reserve(total);
    frames.push_back(0.0f);
    std::vector<float> next;
    for (std::size_t k = 0; k < cs.size(); ++k) {
      const auto [lo, hi] = runs[k];
      const std::size_t merged = frames.size() - 1;
      // The same keys as a curve before (components keyed together): merging would only
      // double them for std::unique below.
      if (static_cast<std::size_t>(hi - lo) == merged && std::equal(lo, hi, frames.begin() + 1)) continue;
      if (merged == 0) {
        frames.insert(frames.end(), lo, hi);
        continue;
      }
      next.resize(merged + static_cast<std::size_t>(hi - lo));
      std::merge(frames.begin() + 1, frames.end(), lo, hi, next.begin());
      frames.resize(1);
      frames.insert(frames.end(), next.begin(), next.end());
    }
    frames.push_back(end);
    frames.erase(std::unique(frames.begin(), frames.end()), frames.end());
  } else {
    frames.reserve(static_cast<std::size_t>(std::max(frame_count, 0)) + 1);
    frames.push_back(0.0f);
    for (std::int32_t f = 1; f < frame_count; ++f) frames.push_back(static_cast<float>(f));
    if (end != 0.0f) frames.push_back(end);
    if (end < 0) std::sort(frames.begin(), frames.end());
  }
  keep_distinct_times(frames, fps);
  const std::vector<float>& fr = frames;
  // A key whose value differs from the previous segment's end makes a jump: the seed's
  // deliberate ones, and the quantisation gaps of nearly every third cubic key (up to 2
  // key units: 9e-5 on the Dog's root). A CUBICSPLINE key has one value, so the segment
  // before it would bend towards the new value over all its frames; an extra key just
  // before the key holds the segment's own end (value and slope), so every source frame
  // keeps the file's polynomial exactly (README: curve precision).
  const bool spline = exact && cubic && fr.size() >= 2;
  if (spline) t.interpolation = interpolation::cubic_spline;
  if (exact) {
    // Written through pointers into buffers with room for the most keys (an extra one before
    // every frame), then copied out once: no vector growth checks per key.
    const int sides = spline ? 3 : 1;
    const std::size_t width = 3 * static_cast<std::size_t>(sides);
    const auto time_buf = std::make_unique_for_overwrite<float[]>(2 * fr.size());
    const auto value_buf = std::make_unique_for_overwrite<float[]>(2 * fr.size() * width);
    float* tw = time_buf.get();
    float* vw = value_buf.get();
    // Keyed curves: one curve_sampler call per curve and frame gives the jump test, both
    // slopes and the value (the doubles of jumps_at, curve::slope and curve::value).
    std::array<std::optional<curve_sampler>, 3> sampler;
    for (int k = 0; k < 3; ++k)
      if (const curve* c = src.curves[static_cast<std::size_t>(first + k)]) sampler[static_cast<std::size_t>(k)].emplace(*c);
    for (std::size_t i = 0; i < fr.size(); ++i) {
      const float f = fr[i];
      const float tf = seconds(f, fps);
      std::array<curve_sample, 3> at{};
      bool jump = false;
      for (std::size_t k = 0; k < 3; ++k)
        if (sampler[k]) at[k] = sampler[k]->at(f), jump = jump || at[k].jump;
      float row[9];
      if (i > 0 && jump) {
        const float gap = tf - tw[-1];
        const float pre = tf - std::min(1e-4f, gap * 0.25f);
        if (pre > tw[-1] && pre < tf) {
          *tw++ = pre;
          // Values and slopes of the segment that ends at f, taken at the extra key's frame
          // (both slopes from the left). In double: a float frame number near 300 is off by
          // up to 1.5e-5 frames.
          const double pf = std::min(static_cast<double>(pre) * fps, static_cast<double>(f));
          for (std::size_t k = 0; k < 3; ++k) {
            const std::size_t comp = static_cast<std::size_t>(first) + k;
            // A look back (the sampler's hints stay at f for the next frame).
            const curve_sample p = sampler[k] ? sampler[k]->peek(pf) : curve_sample{};
            const float v = sampler[k] ? static_cast<float>(p.value) : src.constant[comp];
            const float d = sampler[k] ? static_cast<float>(p.left * fps) : 0.0f;
            if (spline) row[k] = d, row[3 + k] = v, row[6 + k] = d;
            else row[k] = v;
          }
          vw = spline ? std::copy(row, row + 9, vw) : std::copy(row, row + 3, vw);
        }
      }
      *tw++ = tf;
      for (std::size_t k = 0; k < 3; ++k) {
        const std::size_t comp = static_cast<std::size_t>(first) + k;
        const float v = sampler[k] ? static_cast<float>(at[k].value) : src.constant[comp];
        if (!spline) {
          row[k] = v;
          continue;
        }
        row[k] = sampler[k] ? static_cast<float>(at[k].left * fps) : 0.0f;
        row[3 + k] = v;
        row[6 + k] = sampler[k] ? static_cast<float>(at[k].right * fps) : 0.0f;
      }
      vw = spline ? std::copy(row, row + 9, vw) : std::copy(row, row + 3, vw);
    }
    t.times.assign(time_buf.get(), tw);
    t.values.assign(value_buf.get(), vw);
    out.tracks.push_back(std::move(t));
    return;
  }
  t.times.reserve(fr.size());
  t.values.reserve(fr.size() * 3);
  // Sampled per frame (baked or wrapping curves): no jumps to mark, no slopes; src.at walks
  // each curve with its cursor (frames only increase).
  for (const float f : fr) {
    t.times.push_back(seconds(f, fps));
    for (int k = 0; k < 3; ++k) t.values.push_back(src.at(first + k, f));
  }
  out.tracks.push_back(std::move(t));
}

// One key at 0 (and one at the end when the clip has length) holding v; each array made
// in one allocation.
void constant_track(const std::string& bone_name, path p, std::span<const float> v,
                    std::int32_t frame_count, double fps, animation& out) {
  track t;
  t.bone = bone_name;
  t.path = p;
  t.interpolation = interpolation::linear;
  const std::size_t keys = frame_count > 0 ? 2 : 1;
  t.times.reserve(keys);
  t.values.reserve(keys * v.size());
  t.times.push_back(0);
  t.values.insert(t.values.end(), v.begin(), v.end());
  if (frame_count > 0) {
    t.times.push_back(seconds(static_cast<float>(frame_count), fps));
    t.values.insert(t.values.end(), v.begin(), v.end());
  }
  out.tracks.push_back(std::move(t));
}

// A chosen rig: the scene skeleton and, when it comes from an FSKL, the raw bones
// (their flags, raw rotation values and SSC bits matter for the animations).
struct rig {
  const skeleton* raw = nullptr;
  std::string source;  // file the FSKL came from
  bool same_file = false;
  std::string model_name;
  const file* owner = nullptr;  // the FRES holding the FMDL (nullptr: an FSKA's bind skeleton)
  std::size_t model_index = 0;
};

rigrip::skeleton to_skeleton(const rig& r) {
  rigrip::skeleton sk;
  sk.name = r.model_name;
  const auto& s = *r.raw;
  sk.extras = {{"scale_mode", s.scale_mode()}, {"flags", s.flags}, {"source_file", r.source}};
  std::set<std::string> names;
  for (std::size_t i = 0; i < s.bones.size(); ++i) {
    const auto& b = s.bones[i];
    rigrip::bone out;
    out.name = b.name.empty() ? "bone_" + std::to_string(i) : b.name;
    if (!names.insert(out.name).second) out.name += "_" + std::to_string(i);
    out.parent = b.parent;
    out.translation = b.translate;
    out.rotation = rotation_of(b.rotate, b.euler());
    out.scale = b.scale;
    // Maya scale mode honours the SSC bit (scene-model.md); other modes ignore it.
    out.segment_scale_compensate = s.scale_mode() == 2 && b.segment_scale_compensate() && b.parent >= 0;
    out.extras = {{"flags", b.flags}, {"smooth_index", b.smooth_index}, {"rigid_index", b.rigid_index},
                  {"segment_scale_compensate", b.segment_scale_compensate()}};  // the raw bit, any mode
    sk.bones.push_back(std::move(out));
  }
  return sk;
}

// Scale modes None (0) and Softimage (3) rewritten into the scene's segment-scale-
// compensation semantics, exactly (README: scale modes). The tracks hold the file's raw
// locals when this runs. With SSC on every non-root bone, the scene world is
// W_p * T(t) * S(1/s_p) * R * S; with W_p = RT_p * S(s_p) that is RT_p * T(s_p . t) * R * S.
//  - None: the game's world is RT_p * T(t) * R * S_local, so t := t / s_p (s_p = raw scale).
//  - Softimage: RT_p * T(Sacc_p . t) * R * S(Sacc), so S := Sacc (accumulated scale).
void express_scale_mode(scene& s, int mode) {
  if ((mode != 0 && mode != 3) || s.skeletons.empty()) return;
  const scene raw = s;
  auto& sk = s.skeletons[0];
  const auto& rsk = raw.skeletons[0];
  const std::size_t nb = sk.bones.size();
  auto parent_of = [&](std::size_t i) { return rsk.bones[i].parent; };
  // Rest pose.
  std::vector<vec3> acc(nb);
  for (std::size_t i = 0; i < nb; ++i) {
    const int p = parent_of(i);
    const vec3& sc = rsk.bones[i].scale;
    acc[i] = p < 0 ? sc : vec3{acc[static_cast<std::size_t>(p)][0] * sc[0], acc[static_cast<std::size_t>(p)][1] * sc[1], acc[static_cast<std::size_t>(p)][2] * sc[2]};
    if (p < 0) continue;
    sk.bones[i].segment_scale_compensate = true;
    if (mode == 3) {
      sk.bones[i].scale = acc[i];
    } else {
      const vec3 c = scene_ops::compensation(rsk.bones[static_cast<std::size_t>(p)].scale);
      for (std::size_t k = 0; k < 3; ++k) sk.bones[i].translation[k] = rsk.bones[i].translation[k] * c[k];
    }
  }
  for (std::size_t ai = 0; ai < s.animations.size(); ++ai) {
    auto& an = s.animations[ai];
    const auto& ra = raw.animations[ai];
    // Each bone's raw tracks, looked up once (the work below is frames x bones).
    std::vector<const track*> raw_t(nb, nullptr), raw_s(nb, nullptr);
    for (const auto& t : ra.tracks) {
      const int bi = rsk.find(t.bone);
      if (bi < 0) continue;
      if (t.path == path::translation) raw_t[static_cast<std::size_t>(bi)] = &t;
      if (t.path == path::scale) raw_s[static_cast<std::size_t>(bi)] = &t;
    }
    std::vector<bool> chain_animated(nb, false), retrack(nb, false);
    bool any = false;
    for (std::size_t i = 0; i < nb; ++i) {
      const int p = parent_of(i);
      chain_animated[i] = raw_s[i] || (p >= 0 && chain_animated[static_cast<std::size_t>(p)]);
      if (p < 0) continue;
      retrack[i] = mode == 3 ? chain_animated[i] : raw_s[static_cast<std::size_t>(p)] != nullptr;
      any = any || retrack[i];
    }
    if (mode == 0)  // constant parent scale: divide values and tangents (cubic stays cubic)
      for (auto& t : an.tracks) {
        const int bi = rsk.find(t.bone);
        if (t.path != path::translation || bi < 0 || retrack[static_cast<std::size_t>(bi)]) continue;
        const int p = parent_of(static_cast<std::size_t>(bi));
        if (p < 0) continue;
        const vec3 c = scene_ops::compensation(rsk.bones[static_cast<std::size_t>(p)].scale);
        for (std::size_t k = 0; k < t.values.size(); ++k) t.values[k] *= c[k % 3];
      }
    if (!any) continue;
    const std::int32_t frames = std::max(0, ra.extras.value("bfres_frame_count", 0));
    const double fps = ra.fps.value_or(30.0);
    std::vector<track> made(nb);
    for (std::size_t i = 0; i < nb; ++i) {
      made[i].bone = rsk.bones[i].name;
      made[i].path = mode == 3 ? path::scale : path::translation;
      made[i].interpolation = interpolation::linear;
    }
    auto at = [](const track* t, const vec3& rest, float time) {
      if (!t) return rest;
      auto v = scene_ops::sample(*t, time);
      return vec3{v[0], v[1], v[2]};
    };
    std::vector<vec3> scl(nb), acc_f(nb);
    for (std::int32_t fr = 0; fr <= frames; ++fr) {
      const float time = seconds(static_cast<float>(fr), fps);
      for (std::size_t i = 0; i < nb; ++i) {
        scl[i] = at(raw_s[i], rsk.bones[i].scale, time);
        const int p = parent_of(i);
        const auto pu = static_cast<std::size_t>(p);
        acc_f[i] = p < 0 ? scl[i] : vec3{acc_f[pu][0] * scl[i][0], acc_f[pu][1] * scl[i][1], acc_f[pu][2] * scl[i][2]};
        if (!retrack[i]) continue;
        vec3 v = acc_f[i];
        if (mode == 0) {
          const vec3 t = at(raw_t[i], rsk.bones[i].translation, time);
          const vec3 c = scene_ops::compensation(scl[pu]);
          v = {t[0] * c[0], t[1] * c[1], t[2] * c[2]};
        }
        made[i].times.push_back(time);
        made[i].values.insert(made[i].values.end(), v.begin(), v.end());
      }
    }
    for (std::size_t i = 0; i < nb; ++i) {
      if (!retrack[i]) continue;
      const path pp = made[i].path;
      const std::string& name = made[i].bone;
      std::erase_if(an.tracks, [&](const track& x) { return x.bone == name && x.path == pp; });
      an.tracks.push_back(std::move(made[i]));
    }
  }
}

std::string file_name(const std::string& p) { return std::filesystem::path(p).filename().string(); }

bool has_shapes(const file& f) {
  return std::any_of(f.models.begin(), f.models.end(), [](const model& m) { return !m.shapes.empty(); });
}

// Texture files for a model: --textures first, then the siblings by the naming rule.
// A file that cannot be read is a warning; the meshes convert without its textures.
std::vector<texture_file> load_texture_files(const std::string& model_path, const read_context& ctx, std::deque<file>& keep) {
  std::vector<texture_file> out;
  if (!ctx.load) return out;
  std::vector<std::string> paths = ctx.options.texture_paths;
  for (const auto& p : sibling_texture_paths(model_path)) {
    std::error_code ec;
    if (std::filesystem::is_regular_file(p, ec) && std::find(paths.begin(), paths.end(), p) == paths.end()) paths.push_back(p);
  }
  for (const auto& p : paths) {
    auto b = ctx.load(p);
    if (!b) {
      ctx.warn(code::w_missing_texture, "texture file " + p + " could not be read: " + b.error().message);
      continue;
    }
    try {
      if (is_bntx(b.value())) {
        // A bare BNTX (--texture-file x.bntx): held as a Switch file whose one embedded file
        // it is, so materials find its textures like those of an X.Tex.sbfres.
        file t;
        t.image.assign(b.value().begin(), b.value().end());
        t.plat = platform::switch_;
        t.name = std::filesystem::path(p).filename().string();
        t.external_files.push_back(external_file{0, t.name, 0, t.image.size()});
        keep.push_back(std::move(t));
      } else {
        keep.push_back(load_for_scene(b.value()));
      }
      out.push_back({p, &keep.back()});
    } catch (const core::failure& e) {
      ctx.warn(code::w_missing_texture, "texture file " + p + " is not a readable FRES (" + e.error().message + "); ignored");
    }
  }
  return out;
}

// Embedded BotW cameras (`X.brtcamera` in a .bcamanim): one animated scene camera each,
// named after the file. Returns how many were read.
std::size_t add_cameras(const file& f, const read_context& ctx, scene& s) {
  std::size_t n = 0;
  const double fps = ctx.options.fps.value_or(30.0);
  for (const auto& e : f.external_files) {
    const auto cam = embedded_camera(f, e);
    if (!cam) continue;
    add_rt_camera(*cam, e.name.substr(0, e.name.size() - std::string_view(".brtcamera").size()), fps, s);
    ++n;
  }
  return n;
}

}  // namespace

quat euler_to_quat(const vec3& r) { return core::from_euler_xyz(r); }

vec3 quat_to_euler(const quat& qin, const std::optional<vec3>& near) {
  // In double, with atan2 for y: asin loses precision near +-90 degrees (bind poses
  // of BotW bones sit exactly there).
  double x = qin[0], y = qin[1], z = qin[2], w = qin[3];
  const double len = std::sqrt(x * x + y * y + z * z + w * w);
  if (len > 0) x /= len, y /= len, z /= len, w /= len;
  // Rotation matrix entries of R = Rz*Ry*Rx (row, column).
  const double m00 = 1 - 2 * (y * y + z * z), m10 = 2 * (x * y + w * z), m20 = 2 * (x * z - w * y);
  const double m21 = 2 * (y * z + w * x), m22 = 1 - 2 * (x * x + y * y);
  const double m01 = 2 * (x * y - w * z), m11 = 1 - 2 * (x * x + z * z);
  const double cy = std::sqrt(m00 * m00 + m10 * m10);
  vec3 a;
  a[1] = static_cast<float>(std::atan2(-m20, cy));
  if (cy > 1e-9) {
    a[0] = static_cast<float>(std::atan2(m21, m22));
    a[2] = static_cast<float>(std::atan2(m10, m00));
  } else {  // gimbal lock: only x -/+ z is defined; put it all in z
    a[0] = 0;
    a[2] = static_cast<float>(std::atan2(-m01, m11));
  }
  if (!near) return a;
  // The other branch (x+pi, pi-y, z+pi) describes the same rotation.
  vec3 b{a[0] + core::pi, core::pi - a[1], a[2] + core::pi};
  auto unwrap = [&](vec3 v) {
    for (int k = 0; k < 3; ++k) {
      auto& c = v[static_cast<std::size_t>(k)];
      c += two_pi * std::round(((*near)[static_cast<std::size_t>(k)] - c) / two_pi);
    }
    return v;
  };
  auto dist = [&](const vec3& v) {
    float d = 0;
    for (int k = 0; k < 3; ++k) d += std::fabs(v[static_cast<std::size_t>(k)] - (*near)[static_cast<std::size_t>(k)]);
    return d;
  };
  a = unwrap(a);
  b = unwrap(b);
  return dist(b) < dist(a) ? b : a;
}

std::vector<std::string> sibling_model_paths(const std::string& path) {
  namespace fs = std::filesystem;
  fs::path p(path);
  std::string stem = p.stem().string();
  std::vector<std::string> out;
  auto cut = stem.rfind("_Animation");
  if (cut == std::string::npos || cut == 0) return out;
  std::string base = stem.substr(0, cut);
  for (const char* ext : {".bfres", ".sbfres"}) out.push_back((p.parent_path() / (base + ext)).string());
  return out;
}

file load(std::span<const std::uint8_t> data) {
  return parse(std::vector<std::uint8_t>(data.begin(), data.end()));
}
file load_for_scene(std::span<const std::uint8_t> data) {
  return parse_for_scene(std::vector<std::uint8_t>(data.begin(), data.end()));
}

namespace {

// Skeleton candidates: --skeleton, else this file's FSKLs plus a sibling model's. `others`
// keeps the loaded files alive while the scene is built.
void add_candidates(const file& f, const read_context& ctx, std::deque<file>& others, std::vector<rig>& candidates) {
  auto add_models = [&](const file& src, const std::string& from, bool same) {
    for (std::size_t i = 0; i < src.models.size(); ++i)
      if (const auto& m = src.models[i]; m.skel)
        candidates.push_back(rig{&*m.skel, from, same, m.name.empty() ? "skeleton" : m.name, &src, i});
  };
  if (ctx.options.skeleton_path) {
    if (!ctx.load) core::fail(code::missing_skeleton, "--skeleton given but no file system is available");
    auto b = ctx.load(*ctx.options.skeleton_path);
    if (!b) core::fail(b.error().code, "--skeleton " + *ctx.options.skeleton_path + ": " + b.error().message);
    others.push_back(load_for_scene(b.value()));
    add_models(others.back(), *ctx.options.skeleton_path, false);
    if (candidates.empty())
      core::fail(code::missing_skeleton, "--skeleton " + *ctx.options.skeleton_path + " holds no FSKL skeleton");
  } else {
    add_models(f, ctx.path, true);
    // An FSKA's own bind skeleton (spec 10.2: first choice when present), unless it is a model's FSKL.
    for (const auto& a : f.anims)
      if (a.bind_skeleton && std::none_of(candidates.begin(), candidates.end(),
                                          [&](const rig& r) { return r.raw->at == a.bind_skeleton->at; }))
        candidates.push_back(rig{&*a.bind_skeleton, ctx.path, true, "bind_skeleton"});
    if (!f.anims.empty() && ctx.load)
      for (const auto& c : sibling_model_paths(ctx.path)) {
        std::error_code ec;
        if (!std::filesystem::is_regular_file(c, ec)) continue;
        auto b = ctx.load(c);
        if (!b) {
          ctx.warn(code::w_pairing, "sibling model file " + c + " could not be read: " + b.error().message);
          continue;
        }
        // A damaged sibling must not stop the animations from converting.
        try {
          others.push_back(load_for_scene(b.value()));
          add_models(others.back(), c, false);
        } catch (const core::failure& e) {
          ctx.warn(code::w_pairing, "sibling model file " + c + " is not a readable FRES (" + e.error().message + "); ignored");
        }
        break;
      }
  }
}

// One rig for all the file's animations: the FSKL that binds most bone animations; on a tie
// the model's own rig (sibling / --skeleton) wins over the animation file's copy. -1: none.
int choose_rig(const file& f, const std::vector<rig>& candidates, std::size_t& best_hits) {
  int best = -1;
  best_hits = 0;
  for (std::size_t k = 0; k < candidates.size(); ++k) {
    std::set<std::string> names;
    for (const auto& b : candidates[k].raw->bones) names.insert(b.name);
    std::size_t hits = 0;
    for (const auto& a : f.anims)
      for (const auto& b : a.bone_anims) hits += names.count(b.name);
    bool better = hits > best_hits ||
                  (best >= 0 && hits == best_hits && hits > 0 && candidates[static_cast<std::size_t>(best)].same_file &&
                   !candidates[k].same_file);
    if (best < 0 ? hits > 0 : better) best = static_cast<int>(k), best_hits = hits;
  }
  return best;
}

// A --skeleton that binds less than half of the animated bones is almost surely the wrong
// rig: converting anyway would look like a success and be nonsense (--force goes on).
void refuse_wrong_skeleton(const file& f, const std::vector<rig>& candidates, int best, const read_context& ctx) {
  std::set<std::string> animated, bound;
  for (const auto& a : f.anims)
    for (const auto& b : a.bone_anims) animated.insert(b.name);
  if (best >= 0)
    for (const auto& b : candidates[static_cast<std::size_t>(best)].raw->bones)
      if (animated.count(b.name)) bound.insert(b.name);
  if (bound.size() * 2 < animated.size())
    core::fail(code::missing_skeleton,
               "--skeleton " + *ctx.options.skeleton_path + " binds only " + std::to_string(bound.size()) +
                   " of " + std::to_string(animated.size()) + " animated bones (" +
                   std::to_string(animated.size() - bound.size()) +
                   " are not in it): probably the wrong skeleton; --force converts anyway");
}

// No FSKL anywhere binds anything: a flat rig from the animated bone names so the curves
// still convert (rest pose = identity, every bone a root).
rigrip::skeleton skeleton_from_animations(const file& f) {
  rigrip::skeleton sk;
  sk.name = "from_animations";
  std::set<std::string> seen;
  for (const auto& a : f.anims)
    for (const auto& b : a.bone_anims)
      if (seen.insert(b.name).second) {
        rigrip::bone nb;
        nb.name = b.name.empty() ? "bone_" + std::to_string(sk.bones.size()) : b.name;
        sk.bones.push_back(std::move(nb));
      }
  return sk;
}

// Sampling per frame costs frames x bones: bound it (a 4-byte frame count could ask for 2^31).
void check_sampling_cost(const file& f, std::size_t nb) {
  constexpr std::int32_t max_frames = 1000000;
  std::uint64_t samples = 0;
  std::uint64_t longest_at = no_offset;
  std::int32_t longest = -1;
  for (const auto& a : f.anims) {
    if (a.frame_count > longest) longest = a.frame_count, longest_at = a.at + 0x10;
    if (a.frame_count > max_frames)
      core::fail(code::limit_exceeded, "animation '" + a.name + "' frame count " + std::to_string(a.frame_count) +
                                           " exceeds the limit of " + std::to_string(max_frames), a.at + 0x10);
    samples += (static_cast<std::uint64_t>(a.frame_count) + 1) * (nb + 1);
  }
  const std::uint64_t sample_limit = 50000ull + 8ull * f.image.size();
  if (samples > sample_limit)
    core::fail(code::limit_exceeded, "sampling every frame of every bone would take " + std::to_string(samples) +
                                         " evaluations, over the limit of " + std::to_string(sample_limit) +
                                         " for a file of this size (longest animation: " + std::to_string(longest) +
                                         " frames)",
               longest_at);
}

// Channel sources for every bone of one animation: curves, else base values, else the bind
// bone. `ssc` gets each bone's segment scale compensation flag as the animation sets it.
std::vector<channel_source> channel_sources(const skeletal_anim& a, const rigrip::skeleton& sk, const skeleton* raw_rig,
                                            const std::vector<const bone_anim*>& by_bone, const std::string& anim_name,
                                            const read_context& ctx, std::vector<bool>& ssc) {
  const std::size_t nb = sk.bones.size();
  const bool euler = a.euler();
  std::vector<channel_source> src(nb);
  ssc.assign(nb, false);
  for (std::size_t bi = 0; bi < nb; ++bi) {
    auto& cs = src[bi];
    const auto& rb = sk.bones[bi];
    std::array<float, 4> bind_r{0, 0, 0, 1};
    bool bind_euler = false;
    if (raw_rig) {
      const auto& raw = raw_rig->bones[bi];
      bind_r = raw.rotate;
      bind_euler = raw.euler();
      for (int k = 0; k < 3; ++k) cs.constant[static_cast<std::size_t>(k)] = raw.scale[static_cast<std::size_t>(k)];
      ssc[bi] = raw.segment_scale_compensate();
    } else {
      for (int k = 0; k < 3; ++k) cs.constant[static_cast<std::size_t>(k)] = rb.scale[static_cast<std::size_t>(k)];
    }
    // The bind rotation in the animation's representation.
    if (bind_euler != euler) {
      quat q = rotation_of(bind_r, bind_euler);
      if (euler) {
        vec3 e = quat_to_euler(q);
        bind_r = {e[0], e[1], e[2], 1.0f};
      } else {
        bind_r = q;
      }
    }
    for (int k = 0; k < 4; ++k) cs.constant[static_cast<std::size_t>(3 + k)] = bind_r[static_cast<std::size_t>(k)];
    for (int k = 0; k < 3; ++k) cs.constant[static_cast<std::size_t>(7 + k)] = rb.translation[static_cast<std::size_t>(k)];
    const bone_anim* b = by_bone[bi];
    if (!b) continue;
    // While an animation drives a bone, its BoneAnim flags (incl. SSC) replace the bone's.
    ssc[bi] = b->segment_scale_compensate();
    std::size_t base = 0;  // stored S(3), R(4), T(3): only the present parts
    if (b->has_base_scale()) for (int k = 0; k < 3; ++k) cs.constant[static_cast<std::size_t>(k)] = b->base[base++];
    if (b->has_base_rotate()) for (int k = 0; k < 4; ++k) cs.constant[static_cast<std::size_t>(3 + k)] = b->base[base++];
    if (b->has_base_translate()) for (int k = 0; k < 3; ++k) cs.constant[static_cast<std::size_t>(7 + k)] = b->base[base++];
    for (const auto& c : b->curves) {
      int comp = curve_component(c.target);
      if (comp < 0 || !c.is_float()) {
        ctx.warn(code::w_unsupported_part,
                 "animation '" + anim_name + "', bone '" + b->name + "': " +
                     (comp < 0 ? "curve with unknown target " + std::to_string(c.target) : std::string("integer/boolean curve on a transform")) +
                     " skipped",
                 c.at);
        continue;
      }
      if (euler && comp == 6) continue;  // W of an Euler rotation is unused
      cs.curves[static_cast<std::size_t>(comp)] = &c;
    }
  }
  return src;
}

// The tracks of one driven bone: sampled per frame where a curve drives a part, one
// constant key where the part differs from the rest pose, nothing where it equals it.
void add_bone_tracks(const channel_source& cs, const rigrip::bone& rb, bool euler, std::int32_t frame_count, double fps,
                     const std::vector<float>& frame_times, animation& an) {
  // Translation.
  if (cs.animated(7, 3)) {
    vec3_track(cs, 7, rb.name, path::translation, frame_count, fps, an);
  } else {
    const std::array<float, 3> v{cs.constant[7], cs.constant[8], cs.constant[9]};
    if (!(v[0] == rb.translation[0] && v[1] == rb.translation[1] && v[2] == rb.translation[2]))
      constant_track(rb.name, path::translation, v, frame_count, fps, an);
  }
  // Rotation: Euler angles (or component-wise quaternions) per frame -> LINEAR quaternions.
  auto rot_at = [&](float fr) {
    std::array<float, 4> r{cs.at(3, fr), cs.at(4, fr), cs.at(5, fr), cs.at(6, fr)};
    return rotation_of(r, euler);
  };
  if (cs.animated(3, 4)) {
    track t;
    t.bone = rb.name;
    t.path = path::rotation;
    t.interpolation = interpolation::linear;
    // Every frame's time is the animation's (computed once for all bones); the values are
    // written in place, each quaternion sign-flipped against the previous one as written
    // (what core::make_hemisphere_continuous does afterwards, the same floats).
    t.times = frame_times;
    // Each block is made in a small buffer after the last quaternion written and appended
    // (resize() would zero-fill the whole array first).
    t.values.reserve(frame_times.size() * 4);  // frame_count + 1 frames (frame_count >= 0: parse checks)
    // A frame whose four channel values are bit-identical to the previous frame's (holds,
    // channels that do not move) reuses its quaternion: the same floats without the sines.
    std::array<float, 4> prev{};
    quat q{};
    // The four channels for a block of frames at a time (curve::eval_frames: the values cs.at gives).
    constexpr std::int32_t block = 256;
    float ch[4][block];
    alignas(16) float qs[4 + 4 * block];  // the previous block's last quaternion, then this block's
    float* const o = qs + 4;
    euler_xyz_block to_quats;  // Euler frames: a block at a time (from_euler_xyz's floats)
    static_assert(block <= static_cast<std::int32_t>(euler_xyz_block::max_frames));
    for (std::int32_t b0 = 0; b0 <= frame_count; b0 += block) {
      const std::int32_t nb = std::min(block, frame_count - b0 + 1);
      for (std::size_t k = 0; k < (euler ? 3u : 4u); ++k) {  // W of an Euler rotation is unused
        if (const curve* c = cs.curves[3 + k])
          c->eval_frames(b0, static_cast<std::size_t>(nb), ch[k], cs.cursor[3 + k]);
        else
          std::fill(ch[k], ch[k] + nb, cs.constant[3 + k]);
      }
      if (euler) {
        // The same hemisphere test against the previous written quaternion (o[-4 .. -1]) as
        // the block is written.
        to_quats.convert_continuous(ch[0], ch[1], ch[2], static_cast<std::size_t>(nb), o, b0 != 0);
      } else {
        for (std::int32_t j = 0; j < nb; ++j) {
          const auto u = static_cast<std::size_t>(j);
          const std::int32_t fr = b0 + j;
          const std::array<float, 4> r{ch[0][u], ch[1][u], ch[2][u], ch[3][u]};
          if (fr == 0 || std::memcmp(r.data(), prev.data(), sizeof r) != 0) q = rotation_of(r, false), prev = r;
          float* p = o + 4 * u;
          if (fr > 0 && p[-4] * q[0] + p[-3] * q[1] + p[-2] * q[2] + p[-1] * q[3] < 0)
            p[0] = -q[0], p[1] = -q[1], p[2] = -q[2], p[3] = -q[3];
          else
            p[0] = q[0], p[1] = q[1], p[2] = q[2], p[3] = q[3];
        }
      }
      // Appended in pieces of 2 KiB: glibc copies larger pieces with `rep movsb`.
      const std::size_t len = 4 * static_cast<std::size_t>(nb);
      for (std::size_t at = 0; at < len; at += 512) t.values.insert(t.values.end(), o + at, o + std::min(len, at + 512));
      std::copy(o + len - 4, o + len, qs);
    }
    an.tracks.push_back(std::move(t));
  } else {
    quat q = rot_at(0);
    if (std::fabs(core::dot(q, rb.rotation)) < 1 - 1e-7f)
      constant_track(rb.name, path::rotation, std::array<float, 4>{q[0], q[1], q[2], q[3]}, frame_count, fps, an);
  }
  // Scale.
  if (cs.animated(0, 3)) {
    vec3_track(cs, 0, rb.name, path::scale, frame_count, fps, an);
  } else {
    const std::array<float, 3> v{cs.constant[0], cs.constant[1], cs.constant[2]};
    if (!(v[0] == rb.scale[0] && v[1] == rb.scale[1] && v[2] == rb.scale[2]))
      constant_track(rb.name, path::scale, v, frame_count, fps, an);
  }
}

}  // namespace

scene to_scene(const file& f, const read_context& ctx) {
  scene s;
  s.format = "bfres";
  s.metadata = {{"bfres_version", f.version_string()}, {"name", f.name}, {"platform", f.plat == platform::switch_ ? "switch" : "wiiu"}};
  const double fps = ctx.options.fps.value_or(30.0);
  if (f.sw) {
    // The Switch reader decodes skeletal animations; say what else the file holds.
    static const char* const kinds[] = {"models (FMDL)", nullptr, "material animations", "bone-visibility animations",
                                        "shape animations", "scene/camera animations", "embedded files"};
    std::string rest;
    for (std::size_t i = 0; i < f.sw->counts.size(); ++i) {
      std::size_t n = f.sw->counts[i];
      if (i == 6) n -= add_cameras(f, ctx, s);  // embedded .brtcamera files are read
      // A texture file's embedded BNTX (X.Tex.sbfres): its textures on their own.
      if (i == 6 && f.sw->counts[0] == 0) n -= std::min(n, add_embedded_bntx(f, ctx, s));
      // A model file's own embedded BNTX: its materials' textures (decode_model.cpp).
      if (i == 6 && f.sw->counts[0] != 0 && !f.models.empty())
        n -= std::min<std::size_t>(n, std::count_if(f.external_files.begin(), f.external_files.end(), [&](const external_file& e) {
               return is_bntx(std::span<const std::uint8_t>(f.image).subspan(static_cast<std::size_t>(e.data_at),
                                                                            static_cast<std::size_t>(e.size)));
             }));
      if (i == 5) n = 0;                        // scene animations are read (their cameras)
      if (i == 0) n -= std::min(n, f.models.size());  // models are read (fres_switch_model.cpp)
      if (kinds[i] && n) rest += (rest.empty() ? "" : ", ") + std::to_string(n) + " " + kinds[i];
    }
    if (!rest.empty())
      ctx.warn(code::w_unsupported_part, "Switch FRES: " + rest + " not read yet (models, skeletal animations, .brtcamera files and embedded BNTX textures are)", 0xBC);
  }

  // Scene animations: their cameras (lights and fogs are reported, not read).
  if (!f.scene_anims.empty())
    if (const std::size_t rest = add_scene_cameras(f, fps, 50000ull + 8ull * f.image.size(), s))
      ctx.warn(code::w_unsupported_part, std::to_string(rest) + " scene-animation lights/fogs not read (cameras are)",
               f.scene_anims.front().at);
  std::deque<file> others;  // keeps loaded rigs alive while the scene is built
  std::vector<rig> candidates;
  add_candidates(f, ctx, others, candidates);

  if (f.anims.empty()) {
    std::vector<int> skeleton_of_model(f.models.size(), -1);
    for (const auto& r : candidates)
      if (r.same_file) {
        if (r.owner == &f) skeleton_of_model[r.model_index] = static_cast<int>(s.skeletons.size());
        s.skeletons.push_back(to_skeleton(r));
      }
    if (has_shapes(f)) {
      std::deque<file> tex_files;
      bfres::add_models(f, skeleton_of_model, load_texture_files(ctx.path, ctx, tex_files), ctx, s);
    } else if (f.models.empty() && !f.textures.empty()) {
      bfres::add_textures(f, ctx, s);  // a texture file (X.Tex1.sbfres): its FTEX on their own
    }
    add_material_animations(f, ctx, fps, s);
    return s;
  }

  std::size_t total_bone_anims = 0;
  for (const auto& a : f.anims) total_bone_anims += a.bone_anims.size();
  std::size_t best_hits = 0;
  const int best = choose_rig(f, candidates, best_hits);
  if (ctx.options.skeleton_path && !ctx.options.force) refuse_wrong_skeleton(f, candidates, best, ctx);
  const skeleton* raw_rig = nullptr;
  if (best >= 0) {
    const rig& r = candidates[static_cast<std::size_t>(best)];
    raw_rig = r.raw;
    s.skeletons.push_back(to_skeleton(r));
    s.metadata["skeleton_file"] = file_name(r.source);
    s.metadata["skeleton_model"] = r.model_name;
    if (r.same_file && !ctx.options.skeleton_path) {
      auto sib = sibling_model_paths(ctx.path);
      ctx.warn(code::w_fallback,
               "using the FSKL '" + r.model_name + "' that the animation file itself carries (" +
                   std::to_string(r.raw->bones.size()) + " bones, binds " + std::to_string(best_hits) + " of " +
                   std::to_string(total_bone_anims) + " bone animations)" +
                   (sib.empty() ? std::string() : "; no sibling model file " + file_name(sib[0]) + " or .sbfres found") +
                   "; pass --skeleton MODEL.bfres to use a model's rig");
    }
  } else {
    // No FSKL anywhere binds anything: build a flat rig from the animated bone names so
    // the curves still convert (rest pose = identity, every bone a root).
    ctx.warn(code::w_pairing,
             candidates.empty()
                 ? "no FSKL in this file, no sibling model file and no --skeleton: bones are made from the "
                   "animations' bone names, as roots with identity rest poses"
                 : "no available FSKL names any animated bone: bones are made from the animations' bone "
                   "names, as roots with identity rest poses");
    s.skeletons.push_back(skeleton_from_animations(f));
  }
  const rigrip::skeleton& sk = s.skeletons[0];
  const std::size_t nb = sk.bones.size();
  std::vector<int> parent(nb);
  for (std::size_t i = 0; i < nb; ++i) parent[i] = sk.bones[i].parent;

  check_sampling_cost(f, nb);
  std::map<std::string, std::pair<int, std::uint64_t>> missing;  // name -> (animations, first offset)
  int ssc_mismatch = 0;
  std::string ssc_mismatch_example;
  for (const auto& a : f.anims) {
    animation an;
    an.name = a.name.empty() ? "animation_" + std::to_string(s.animations.size()) : a.name;
    an.skeleton = 0;
    an.fps = fps;
    an.duration = a.frame_count / fps;
    an.extras = {{"loop", a.loop()}, {"bfres_frame_count", a.frame_count},
                 {"rotation_mode", a.euler() ? "euler_xyz" : "quaternion"}, {"scale_mode", a.scale_mode()}};
    const bool euler = a.euler();
    const int scale_mode = raw_rig ? raw_rig->scale_mode() : a.scale_mode();
    std::vector<const bone_anim*> by_bone(nb, nullptr);
    for (const auto& b : a.bone_anims) {
      int bi = sk.find(b.name);
      if (bi < 0) {
        auto& m = missing[b.name];
        if (m.first++ == 0) m.second = b.at;
        continue;
      }
      if (by_bone[static_cast<std::size_t>(bi)]) {
        ctx.warn(code::w_suspicious_value, "animation '" + an.name + "': second bone animation for '" + b.name + "' ignored", b.at);
        continue;
      }
      by_bone[static_cast<std::size_t>(bi)] = &b;
    }
    std::vector<bool> ssc;
    const std::vector<channel_source> src = channel_sources(a, sk, raw_rig, by_bone, an.name, ctx, ssc);
    // While an animation drives a bone its BoneAnim's SSC bit replaces the bone's. The
    // scene keeps one flag per bone (the skeleton's), so a differing bit is reported where
    // it changes the pose: under a parent whose scale is not 1.
    if (scale_mode == 2)
      for (std::size_t bi = 0; bi < nb; ++bi) {
        const bool want = ssc[bi] && parent[bi] >= 0;
        if (want == sk.bones[bi].segment_scale_compensate || parent[bi] < 0) continue;
        const auto& ps = src[static_cast<std::size_t>(parent[bi])];
        if (!ps.animated(0, 3) && ps.constant[0] == 1 && ps.constant[1] == 1 && ps.constant[2] == 1) continue;
        if (ssc_mismatch++ == 0) ssc_mismatch_example = an.name + "/" + sk.bones[bi].name;
      }
    // Frame fr's time, seconds(fr): the same for every sampled track of the animation.
    std::vector<float> frame_times;
    if (a.frame_count >= 0) {
      frame_times.resize(static_cast<std::size_t>(a.frame_count) + 1);
      for (std::int32_t fr = 0; fr <= a.frame_count; ++fr)
        frame_times[static_cast<std::size_t>(fr)] = seconds(static_cast<float>(fr), fps);
    }
    for (std::size_t bi = 0; bi < nb; ++bi)
      if (by_bone[bi]) add_bone_tracks(src[bi], sk.bones[bi], euler, a.frame_count, fps, frame_times, an);
    s.animations.push_back(std::move(an));
  }
  for (const auto& [name, m] : missing)
    ctx.warn(code::w_missing_bone,
             "bone '" + name + "' is animated in " + std::to_string(m.first) + " of " + std::to_string(f.anims.size()) +
                 " animations but skeleton '" + sk.name + "' (" + s.metadata.value("skeleton_file", std::string("synthesised")) +
                 ") has no such bone; its curves are skipped",
             m.second);
  if (ssc_mismatch)
    ctx.warn(code::w_lossy, "segment scale compensation differs between the skeleton and the animation (" +
                                std::to_string(ssc_mismatch) + " animation/bone pairs under a scaled parent, e.g. " +
                                ssc_mismatch_example + "); the skeleton's flag is used");
  express_scale_mode(s, raw_rig ? raw_rig->scale_mode() : f.anims.empty() ? 1 : f.anims[0].scale_mode());
  // The rig's model (sibling or --skeleton file) brings its meshes, so the animated
  // creature converts in one command.
  if (best >= 0) {
    const rig& r = candidates[static_cast<std::size_t>(best)];
    if (r.owner && r.owner->models[r.model_index].shapes.size()) {
      std::vector<int> skeleton_of_model(r.owner->models.size(), -2);
      skeleton_of_model[r.model_index] = 0;
      std::deque<file> tex_files;
      read_context mctx = ctx;
      mctx.path = r.source;
      bfres::add_models(*r.owner, skeleton_of_model, load_texture_files(r.source, ctx, tex_files), mctx, s);
      s.metadata["model_file"] = file_name(r.source);
    }
  }
  add_material_animations(f, ctx, fps, s);
  return s;
}

}  // namespace rigrip::bfres
