// FRES raw layer -> scene: FSKL skeletons and FSKA animations with the runtime's
// exact curve semantics (see README.md).
#include "formats/bfres/convert.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <set>

#include "core/failure.hpp"
#include "core/math.hpp"
#include "formats/bfres/yaz0.hpp"

namespace rigrip::bfres {
namespace {

// Component index by curve target offset into nw::g3d's BoneAnimResult.
int component_of(std::uint32_t target) {
  switch (target) {
    case 0x04: return 0;  // scale x
    case 0x08: return 1;
    case 0x0C: return 2;
    case 0x20: return 3;  // rotate x (Euler) / quaternion x
    case 0x24: return 4;
    case 0x28: return 5;
    case 0x2C: return 6;  // rotate w
    case 0x10: return 7;  // translate x
    case 0x14: return 8;
    case 0x18: return 9;
    default: return -1;
  }
}

quat bone_rotation(const std::array<float, 4>& r, bool euler) {
  if (euler) return core::from_euler({r[0], r[1], r[2]}, "XYZ");  // q = qz * qy * qx
  return core::normalize({r[0], r[1], r[2], r[3]});
}

struct channel_source {
  std::array<const curve*, 10> curves{};
  std::array<float, 10> constant{};  // base value, else the bind bone's value
};

float value_at(const channel_source& s, int comp, float frame) {
  const curve* c = s.curves[static_cast<std::size_t>(comp)];
  return c ? c->eval(frame) : s.constant[static_cast<std::size_t>(comp)];
}

// Translation or scale (3 components starting at `first`).
void vec3_track(const channel_source& src, int first, const std::string& bone_name, path p,
                std::int32_t frame_count, double fps, const vec3& rest, animation& out) {
  std::vector<const curve*> cs;
  for (int k = 0; k < 3; ++k)
    if (src.curves[static_cast<std::size_t>(first + k)]) cs.push_back(src.curves[static_cast<std::size_t>(first + k)]);
  const float end = static_cast<float>(frame_count);
  auto time = [&](float frame) { return static_cast<float>(frame / fps); };
  track t;
  t.bone = bone_name;
  t.path = p;
  if (cs.empty()) {
    vec3 v{src.constant[static_cast<std::size_t>(first)], src.constant[static_cast<std::size_t>(first + 1)],
           src.constant[static_cast<std::size_t>(first + 2)]};
    if (v == rest) return;  // the bind pose already says it
    t.interpolation = interpolation::linear;
    t.times.push_back(0);
    t.values.insert(t.values.end(), v.begin(), v.end());
    if (frame_count > 0) {
      t.times.push_back(time(end));
      t.values.insert(t.values.end(), v.begin(), v.end());
    }
    out.tracks.push_back(std::move(t));
    return;
  }
  bool all_poly = std::all_of(cs.begin(), cs.end(), [](const curve* c) {
    return c->type() == curve_type::cubic || c->type() == curve_type::linear;
  });
  bool any_cubic = std::any_of(cs.begin(), cs.end(), [](const curve* c) { return c->type() == curve_type::cubic; });
  std::set<float> frames;
  if (all_poly) {
    for (const curve* c : cs)
      for (float f : c->frames)
        if (f >= 0 && f <= end) frames.insert(f);
  } else {
    for (std::int32_t f = 0; f <= frame_count; ++f) frames.insert(static_cast<float>(f));  // baked: per frame
  }
  frames.insert(0);
  frames.insert(end);
  std::vector<float> fr(frames.begin(), frames.end());
  // Times must stay strictly increasing after the float division.
  std::vector<float> keep;
  for (float f : fr)
    if (keep.empty() || time(f) > time(keep.back())) keep.push_back(f);
  fr = keep;
  if (all_poly && any_cubic && fr.size() >= 2) {
    // Exact: a cubic restricted to any sub-interval is the Hermite spline of its end
    // values and derivatives. Tangents per second = d/dframe * fps.
    t.interpolation = interpolation::cubic_spline;
    for (float f : fr) {
      t.times.push_back(time(f));
      for (int k = 0; k < 3; ++k) {
        const curve* c = src.curves[static_cast<std::size_t>(first + k)];
        t.values.push_back(c ? static_cast<float>(c->derivative(f, true) * fps) : 0.0f);
      }
      for (int k = 0; k < 3; ++k) t.values.push_back(value_at(src, first + k, f));
      for (int k = 0; k < 3; ++k) {
        const curve* c = src.curves[static_cast<std::size_t>(first + k)];
        t.values.push_back(c ? static_cast<float>(c->derivative(f, false) * fps) : 0.0f);
      }
    }
  } else {
    t.interpolation = interpolation::linear;
    for (float f : fr) {
      t.times.push_back(time(f));
      for (int k = 0; k < 3; ++k) t.values.push_back(value_at(src, first + k, f));
    }
  }
  out.tracks.push_back(std::move(t));
}

void rotation_track(const channel_source& src, bool euler, const std::string& bone_name,
                    std::int32_t frame_count, double fps, const quat& rest, animation& out) {
  bool animated = false;
  for (int k = 3; k <= 6; ++k) animated |= src.curves[static_cast<std::size_t>(k)] != nullptr;
  auto at = [&](float f) {
    std::array<float, 4> r{value_at(src, 3, f), value_at(src, 4, f), value_at(src, 5, f), value_at(src, 6, f)};
    return bone_rotation(r, euler);
  };
  track t;
  t.bone = bone_name;
  t.path = path::rotation;
  t.interpolation = interpolation::linear;
  if (!animated) {
    quat q = at(0);
    if (std::fabs(core::dot(q, rest)) > 1 - 1e-7f) return;
    t.times.push_back(0);
    t.values.insert(t.values.end(), q.begin(), q.end());
    if (frame_count > 0) {
      t.times.push_back(static_cast<float>(frame_count / fps));
      t.values.insert(t.values.end(), q.begin(), q.end());
    }
  } else {
    // Euler angles (or component-wise quaternions) are evaluated per frame and written
    // as LINEAR quaternions: the game interpolates the angles, glTF slerps.
    for (std::int32_t f = 0; f <= frame_count; ++f) {
      quat q = at(static_cast<float>(f));
      t.times.push_back(static_cast<float>(f / fps));
      t.values.insert(t.values.end(), q.begin(), q.end());
    }
  }
  out.tracks.push_back(std::move(t));
}

rigrip::skeleton to_skeleton(const model& m) {
  rigrip::skeleton sk;
  sk.name = m.name;
  const auto& s = *m.skel;
  sk.extras = {{"scale_mode", s.scale_mode()}, {"flags", s.flags}};
  std::set<std::string> names;
  for (std::size_t i = 0; i < s.bones.size(); ++i) {
    const auto& b = s.bones[i];
    rigrip::bone out;
    out.name = b.name.empty() ? "bone_" + std::to_string(i) : b.name;
    if (!names.insert(out.name).second) out.name += "_" + std::to_string(i);
    out.parent = b.parent;
    out.translation = b.translate;
    out.rotation = bone_rotation(b.rotate, b.euler() || s.euler());
    out.scale = b.scale;
    // SSC only changes anything under Maya scale mode (nw::g3d CalcWorldMaya).
    out.segment_scale_compensate = s.scale_mode() == 2 && b.segment_scale_compensate() && b.parent >= 0;
    out.extras = {{"flags", b.flags}, {"smooth_index", b.smooth_index}, {"rigid_index", b.rigid_index}};
    sk.bones.push_back(std::move(out));
  }
  return sk;
}

}  // namespace

file load(std::span<const std::uint8_t> data, bool* was_yaz0) {
  bool y = is_yaz0(data);
  if (was_yaz0) *was_yaz0 = y;
  std::vector<std::uint8_t> image = y ? yaz0_decompress(data) : std::vector<std::uint8_t>(data.begin(), data.end());
  return parse(std::move(image));
}

scene to_scene(const file& f, const read_context& ctx) {
  scene s;
  s.format = "bfres";
  s.metadata = {{"bfres_version", f.version_string()}, {"name", f.name}};
  // Skeleton: --skeleton, else this file's FSKLs, else the sibling model file.
  std::optional<file> other;
  std::string skeleton_from;
  if (ctx.options.skeleton_path) {
    auto b = ctx.load(*ctx.options.skeleton_path);
    if (!b) core::fail(b.error().code, "--skeleton: " + b.error().message);
    other = load(b.value(), nullptr);
    skeleton_from = *ctx.options.skeleton_path;
  }
  const file* skel_file = other ? &*other : &f;
  bool has_skel = std::any_of(skel_file->models.begin(), skel_file->models.end(), [](const model& m) { return m.skel.has_value(); });
  if (!has_skel && !other && !f.anims.empty()) {
    // Naming rule (BotW): Foo_Animation.bfres pairs with Foo.bfres / Foo.sbfres beside it.
    namespace fs = std::filesystem;
    fs::path p(ctx.path);
    std::string stem = p.stem().string();
    auto cut = stem.rfind("_Animation");
    std::vector<std::string> candidates;
    if (cut != std::string::npos) {
      std::string base = stem.substr(0, cut);
      for (const char* ext : {".bfres", ".sbfres"}) candidates.push_back((p.parent_path() / (base + ext)).string());
    }
    for (const auto& c : candidates) {
      if (!ctx.file_exists(c)) continue;
      auto b = ctx.load(c);
      if (!b) continue;
      other = load(b.value(), nullptr);
      skeleton_from = c;
      skel_file = &*other;
      break;
    }
  }
  for (const auto& m : skel_file->models)
    if (m.skel) s.skeletons.push_back(to_skeleton(m));
  if (!skeleton_from.empty()) s.metadata["skeleton_file"] = skeleton_from;
  const double fps = ctx.options.fps.value_or(30.0);
  if (s.skeletons.empty() && !f.anims.empty()) {
    // No rig anywhere: still export, with bones named from the animations.
    ctx.warn(code::w_pairing, "no FSKL in this file, no sibling model file and no --skeleton: "
                              "bones are made from the animations' bone names with identity rest poses");
    rigrip::skeleton sk;
    sk.name = "from_animations";
    std::set<std::string> seen;
    for (const auto& a : f.anims)
      for (const auto& b : a.bone_anims)
        if (seen.insert(b.name).second) sk.bones.push_back(rigrip::bone{b.name.empty() ? "bone_" + std::to_string(sk.bones.size()) : b.name, -1});
    s.skeletons.push_back(std::move(sk));
  }
  for (const auto& a : f.anims) {
    // Bind to the skeleton that knows most of the animation's bones.
    int best = 0, best_hits = -1;
    for (std::size_t k = 0; k < s.skeletons.size(); ++k) {
      int hits = 0;
      for (const auto& b : a.bone_anims) hits += s.skeletons[k].find(b.name) >= 0;
      if (hits > best_hits) best_hits = hits, best = static_cast<int>(k);
    }
    animation an;
    an.name = a.name.empty() ? "animation_" + std::to_string(s.animations.size()) : a.name;
    an.skeleton = best;
    an.fps = fps;
    an.duration = a.frame_count / fps;
    an.extras = {{"loop", a.loop()}, {"frame_count", a.frame_count + 1}, {"bfres_frame_count", a.frame_count},
                 {"rotation_mode", a.euler() ? "euler_xyz" : "quaternion"}};
    const auto& sk = s.skeletons[static_cast<std::size_t>(best)];
    std::set<std::string> done;
    for (const auto& b : a.bone_anims) {
      int bi = sk.find(b.name);
      if (bi < 0) {
        ctx.warn(code::w_missing_bone, "animation '" + an.name + "': bone '" + b.name +
                                           "' is not in skeleton '" + sk.name + "'; its curves are skipped", b.at);
        continue;
      }
      if (!done.insert(b.name).second) {
        ctx.warn(code::w_suspicious_value, "animation '" + an.name + "': second bone animation for '" + b.name + "' ignored", b.at);
        continue;
      }
      const auto& rb = sk.bones[static_cast<std::size_t>(bi)];
      channel_source src;
      // Defaults: the bind bone's values, in the animation's rotation representation.
      const bool euler = a.euler();
      std::array<float, 4> bind_r{0, 0, 0, 1};
      if (skel_file) {
        for (const auto& m : skel_file->models)
          if (m.skel && m.name == sk.name && static_cast<std::size_t>(bi) < m.skel->bones.size())
            bind_r = m.skel->bones[static_cast<std::size_t>(bi)].rotate;
      }
      for (int k = 0; k < 3; ++k) src.constant[static_cast<std::size_t>(k)] = rb.scale[static_cast<std::size_t>(k)];
      for (int k = 0; k < 4; ++k) src.constant[static_cast<std::size_t>(3 + k)] = bind_r[static_cast<std::size_t>(k)];
      for (int k = 0; k < 3; ++k) src.constant[static_cast<std::size_t>(7 + k)] = rb.translation[static_cast<std::size_t>(k)];
      std::size_t base = 0;  // stored S(3), R(4), T(3): only the present parts
      if (b.has_base_scale()) for (int k = 0; k < 3; ++k) src.constant[static_cast<std::size_t>(k)] = b.base[base++];
      if (b.has_base_rotate()) for (int k = 0; k < 4; ++k) src.constant[static_cast<std::size_t>(3 + k)] = b.base[base++];
      if (b.has_base_translate()) for (int k = 0; k < 3; ++k) src.constant[static_cast<std::size_t>(7 + k)] = b.base[base++];
      for (const auto& c : b.curves) {
        int comp = component_of(c.target);
        if (comp < 0) {
          ctx.warn(code::w_unsupported_part, "curve with unknown target 0x" + std::to_string(c.target) + " skipped", c.at);
          continue;
        }
        if (!c.is_float()) {
          ctx.warn(code::w_unsupported_part, "integer/boolean curve on a bone transform skipped", c.at);
          continue;
        }
        src.curves[static_cast<std::size_t>(comp)] = &c;
      }
      vec3_track(src, 7, rb.name, path::translation, a.frame_count, fps, rb.translation, an);
      rotation_track(src, euler, rb.name, a.frame_count, fps, rb.rotation, an);
      vec3_track(src, 0, rb.name, path::scale, a.frame_count, fps, rb.scale, an);
    }
    s.animations.push_back(std::move(an));
  }
  return s;
}

}  // namespace rigrip::bfres
