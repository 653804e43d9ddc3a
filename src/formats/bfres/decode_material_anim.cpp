// FSHU (shader parameter / colour / texture SRT) and FVIS (bone / material visibility)
// animations -> scene (README.md: Other animations). Bone visibility becomes a STEP scale
// track (rest scale <-> 0) where that shows exactly what the game hides; everything is
// also kept, decoded, in extras (materials, animations, metadata).
#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <cstring>
#include <set>

#include "formats/bfres/decode_model.hpp"

namespace rigrip::bfres {
namespace {

using nlohmann::json;

const char* interpolation_name(const curve& c) {
  switch (c.type()) {
    case curve_type::cubic: return "cubic";
    case curve_type::linear: return "linear";
    case curve_type::step_int:
    case curve_type::step_bool: return "step";
    default: return "baked";
  }
}

// The curve's values at its keys (baked curves: at every frame of its range).
json curve_keys(const curve& c) {
  json keys = json::array();
  const bool baked = c.type() == curve_type::baked_float || c.type() == curve_type::baked_int ||
                     c.type() == curve_type::baked_bool;
  if (baked) {
    for (double fr = std::ceil(c.start); fr <= c.end && keys.size() < 100000; fr += 1)
      keys.push_back(json{{"frame", fr}, {"value", c.value(fr)}});
  } else {
    for (float fr : c.frames) keys.push_back(json{{"frame", fr}, {"value", c.value(fr)}});
  }
  return keys;
}

// Name of the value a target offset reaches inside a parameter of FMAT type `type`
// (-1: unknown), e.g. TexSrt offset 16 -> "translate_x".
std::string component_name(int type, std::uint32_t target) {
  static const char* const tex_srt[] = {"mode", "scale_x", "scale_y", "rotate", "translate_x", "translate_y"};
  static const char* const srt2d[] = {"scale_x", "scale_y", "rotate", "translate_x", "translate_y"};
  static const char* const xyzw[] = {"x", "y", "z", "w"};
  const std::uint32_t k = target / 4;
  if (target % 4 == 0) {
    if ((type == 30 || type == 31) && k < 6) return tex_srt[k];
    if (type == 28 && k < 5) return srt2d[k];
    if (type >= 0 && type <= 15 && k < 4) return xyzw[k];  // bool/int/uint/float vectors; colours r g b a
  }
  return "offset_" + std::to_string(target);
}

const bfres::material* raw_material(const file& f, const std::string& name) {
  for (const auto& m : f.models)
    for (const auto& mt : m.materials)
      if (mt.name == name) return &mt;
  return nullptr;
}

int scene_material(const scene& s, const std::string& name) {
  for (std::size_t i = 0; i < s.materials.size(); ++i)
    if (s.materials[i].name == name) return static_cast<int>(i);
  return -1;
}

json shader_param_json(const file& f, const shader_param_anim& a, const scene& s) {
  static const char* const kinds[] = {"shader_param_animation", "color_animation", "texture_srt_animation"};
  json mats = json::array();
  for (const auto& m : a.materials) {
    const bfres::material* rm = raw_material(f, m.material);
    json params = json::array();
    for (const auto& p : m.params) {
      int type = -1;
      if (rm)
        for (const auto& sp : rm->params)
          if (sp.name == p.name) type = sp.type;
      // Without the material: a texture SRT animation's parameters are TexSrt (30).
      const bool assumed = type < 0 && a.dict == 5;
      if (assumed) type = 30;
      json channels = json::array();
      const std::uint32_t ncurves = std::uint32_t{p.num_float_curves} + p.num_int_curves;
      for (std::uint32_t k = 0; k < ncurves; ++k) {
        const std::size_t ci = std::size_t{p.begin_curve} + k;
        if (ci >= m.curves.size()) break;
        const curve& c = m.curves[ci];
        channels.push_back(json{{"component", component_name(type, c.target)}, {"target", c.target},
                                {"interpolation", interpolation_name(c)}, {"keys", curve_keys(c)}});
      }
      for (std::uint32_t k = 0; k < p.num_constants; ++k) {
        const std::size_t ci = std::size_t{p.begin_constant} + k;
        if (ci >= m.constants.size()) break;
        const auto& cs = m.constants[ci];
        // The runtime copies the 32 bits; they are a float unless the component is an
        // integer (TexSrt mode, int / uint / bool vectors).
        const std::string comp = component_name(type, cs.target);
        const bool integer = comp == "mode" || (type >= 0 && type <= 11);
        float fv;
        static_assert(sizeof(fv) == 4);
        std::memcpy(&fv, &cs.bits, 4);
        json value = integer ? json(static_cast<std::int32_t>(cs.bits)) : std::isfinite(fv) ? json(fv) : json(nullptr);
        channels.push_back(json{{"component", comp}, {"target", cs.target}, {"constant", value}});
      }
      params.push_back(json{{"name", p.name}, {"type", type}, {"channels", channels}});
      if (assumed) params.back()["type_assumed"] = true;
    }
    const int sm = scene_material(s, m.material);
    mats.push_back(json{{"material", m.material}, {"scene_material", sm >= 0 ? json(sm) : json(nullptr)}, {"params", params}});
  }
  return json{{"animation", a.name}, {"kind", kinds[a.dict - 3]}, {"loop", a.loop()}, {"bfres_frame_count", a.frame_count},
              {"materials", mats}};
}

// Visibility of entry `i` as (frame, visible) changes: its curve when one targets it,
// else the base value.
json visibility_keys(const visibility_anim& a, std::size_t i) {
  json keys = json::array();
  const curve* c = nullptr;
  for (const auto& cv : a.curves)
    if (cv.target == i) c = &cv;
  if (!c) {
    keys.push_back(json{{"frame", 0}, {"visible", a.base[i]}});
    return keys;
  }
  std::vector<double> frames{0};
  for (float fr : c->frames) frames.push_back(fr);
  if (c->type() == curve_type::baked_bool)
    for (double fr = 0; fr <= a.frame_count && frames.size() < 100000; fr += 1) frames.push_back(fr);
  std::sort(frames.begin(), frames.end());
  int last = -1;
  for (double fr : frames) {
    if (fr < 0 || fr > a.frame_count) continue;
    const int v = c->value(fr) != 0 ? 1 : 0;
    if (v == last) continue;
    keys.push_back(json{{"frame", fr}, {"visible", v != 0}});
    last = v;
  }
  return keys;
}

// Bone visibility is a scale-to-zero exactly when hiding the bone hides nothing else:
// a leaf bone, no skinned vertex weighted to it, no skinned shape bound to it (the game
// hides whole shapes by their FSHP bone), and its model's meshes are in the scene.
std::string inexact_reason(const scene& s, int skel, int bone) {
  const auto& sk = s.skeletons[static_cast<std::size_t>(skel)];
  for (const auto& b : sk.bones)
    if (b.parent == bone) return "the bone has children (they would vanish with it)";
  bool any = false;
  for (const auto& me : s.meshes) {
    if (me.skeleton != skel) continue;
    any = true;
    if (me.joints.empty()) continue;
    if (me.extras.is_object() && me.extras.value("bone", -1) == bone)
      return "skinned shape '" + me.name + "' is bound to it (the game hides the whole shape)";
    for (std::size_t v = 0; v < me.joints.size(); ++v)
      for (int k = 0; k < 4; ++k)
        if (me.joints[v][static_cast<std::size_t>(k)] == bone && me.weights[v][static_cast<std::size_t>(k)] > 0)
          return "skinned vertices of '" + me.name + "' follow it";
  }
  if (!any) return "the model's meshes are not loaded (what the bone shows is unknown)";
  return {};
}

// A texture SRT parameter (TexSrt, Maya mode) as glTF texture-transform tracks. The
// runtime's Maya matrix (nw::g3d) maps uv to
//   u' = sx (c u + s v) + sx (0.5 - 0.5 c - 0.5 s - tx)
//   v' = sy (-s u + c v) + sy (0.5 s - 0.5 c - 0.5 + ty) + 1          (c, s of r)
// i.e. linear part S * R(-r) and translation as above; glTF's T * R * S equals it when
// the scale is uniform or r is a multiple of pi (then R and S commute): rotation -r,
// scale (sx, sy), offset the translation. Sampled at every frame. Returns why not, or "".
std::string texture_srt_tracks(const shader_param_anim& a, const shader_param_anim::material_anim& m,
                               const shader_param_anim::param& p, const bfres::material* rm, int material, double fps,
                               animation& an) {
  // Which UV set: the parameter name's trailing digit (tex_srt0 -> UV set 0), an assumption
  // (the shader decides); 0 or 1 only.
  if (p.name.empty() || !std::isdigit(static_cast<unsigned char>(p.name.back()))) return "no UV set digit in its name";
  const int texcoord = p.name.back() - '0';
  if (texcoord > 1) return "UV set " + std::to_string(texcoord) + " (only 0 and 1 exist in the scene)";
  std::array<double, 6> base{0, 1, 1, 0, 0, 0};  // mode, sx, sy, r, tx, ty
  if (rm)
    for (const auto& sp : rm->params)
      if (sp.name == p.name && sp.value.is_object()) {
        const auto& v = sp.value;
        auto num = [](const json& x, double d) { return x.is_number() ? x.get<double>() : d; };
        base = {num(v.value("mode", json()), 0), num(v["scale"][0], 1), num(v["scale"][1], 1), num(v.value("rotate", json()), 0),
                num(v["translate"][0], 0), num(v["translate"][1], 0)};
      }
  for (std::uint32_t k = 0; k < p.num_constants; ++k) {
    const std::size_t ci = std::size_t{p.begin_constant} + k;
    if (ci >= m.constants.size()) break;
    const auto& cs = m.constants[ci];
    if (cs.target % 4 || cs.target / 4 >= 6) return "a constant at offset " + std::to_string(cs.target);
    float fv;
    std::memcpy(&fv, &cs.bits, 4);
    base[cs.target / 4] = cs.target == 0 ? static_cast<double>(static_cast<std::int32_t>(cs.bits)) : fv;
  }
  std::array<const curve*, 6> cv{};
  for (std::uint32_t k = 0; k < std::uint32_t{p.num_float_curves} + p.num_int_curves; ++k) {
    const std::size_t ci = std::size_t{p.begin_curve} + k;
    if (ci >= m.curves.size()) break;
    const curve& c = m.curves[ci];
    if (c.target % 4 || c.target / 4 >= 6) return "a curve at offset " + std::to_string(c.target);
    cv[c.target / 4] = &c;
  }
  if (cv[0] || base[0] != 0) return "its mode is not Maya (0)";
  if (a.frame_count > 100000)  // sampled per frame: bounded like the skeletal sampling
    return "frame count " + std::to_string(a.frame_count) + " is beyond the per-frame sampling limit of 100,000";
  std::vector<float> times, off, rot, scl;
  bool rotates = false, scales = false;
  for (std::int32_t fr = 0; fr <= a.frame_count; ++fr) {
    std::array<double, 6> v = base;
    for (std::size_t k = 1; k < 6; ++k)
      if (cv[k]) v[k] = cv[k]->value(fr);
    const double sx = v[1], sy = v[2], r = v[3], tx = v[4], ty = v[5];
    const double c = std::cos(r), sn = std::sin(r);
    if (std::fabs(sx - sy) > 1e-6 * std::max(std::fabs(sx), std::fabs(sy)) && std::fabs(sn) > 1e-6)
      return "non-uniform scale with rotation at frame " + std::to_string(fr) + " (glTF's T*R*S cannot hold S*R)";
    times.push_back(static_cast<float>(fr / fps));
    off.push_back(static_cast<float>(sx * (0.5 - 0.5 * c - 0.5 * sn - tx)));
    off.push_back(static_cast<float>(sy * (0.5 * sn - 0.5 * c - 0.5 + ty) + 1.0));
    rot.push_back(static_cast<float>(-r));
    scl.push_back(static_cast<float>(sx));
    scl.push_back(static_cast<float>(sy));
    rotates |= r != 0;
    scales |= sx != 1 || sy != 1;
  }
  if (times.empty()) return "no frames";
  auto add = [&](material_track::target t, std::vector<float> values) {
    material_track mt;
    mt.material = material;
    mt.texcoord = texcoord;
    mt.property = t;
    mt.interpolation = times.size() > 1 ? interpolation::linear : interpolation::step;
    mt.times = times;
    mt.values = std::move(values);
    an.material_tracks.push_back(std::move(mt));
  };
  add(material_track::target::offset, off);
  if (rotates) add(material_track::target::rotation, rot);
  if (scales) add(material_track::target::scale, scl);
  return {};
}

}  // namespace

void add_material_animations(const file& f, const read_context& ctx, double fps, scene& s) {
  json all = json::array();
  for (const auto& a : f.shader_param_anims) {
    json j = shader_param_json(f, a, s);
    // Texture SRTs of materials in the scene: glTF texture-transform tracks where exact.
    animation an;
    an.name = a.name;
    an.skeleton = 0;
    an.fps = fps;
    an.duration = a.frame_count / fps;
    json srt = json::array();
    for (std::size_t mi = 0; mi < a.materials.size(); ++mi) {
      const auto& m = a.materials[mi];
      const bfres::material* rm = raw_material(f, m.material);
      const int sm = scene_material(s, m.material);
      for (const auto& p : m.params) {
        int type = -1;
        if (rm)
          for (const auto& sp : rm->params)
            if (sp.name == p.name) type = sp.type;
        if (type < 0 && a.dict == 5) type = 30;
        if (type != 30 && type != 31) continue;
        std::string why = sm < 0 ? "material not in the scene" : s.skeletons.empty() ? "no skeleton to hold an animation" : "";
        if (why.empty()) why = texture_srt_tracks(a, m, p, rm, sm, fps, an);
        srt.push_back(why.empty() ? json{{"material", m.material}, {"param", p.name}, {"gltf", "KHR_texture_transform"}}
                                  : json{{"material", m.material}, {"param", p.name}, {"extras_only", why}});
      }
    }
    if (!srt.empty()) j["texture_srt"] = srt;
    if (!an.material_tracks.empty()) {
      an.extras = {{"loop", a.loop()}, {"bfres_frame_count", a.frame_count}, {"material_animation", j}};
      s.animations.push_back(std::move(an));
    }
    for (const auto& m : j["materials"])
      if (m["scene_material"].is_number()) {
        auto& ex = s.materials[m["scene_material"].get<std::size_t>()].extras;
        json one = j;
        one.erase("materials");
        one["params"] = m["params"];
        ex["shader_param_animations"].push_back(one);
      }
    all.push_back(std::move(j));
  }
  for (const auto& a : f.visibility_anims) {
    json entries = json::array();
    for (std::size_t i = 0; i < a.names.size(); ++i)
      entries.push_back(json{{"name", a.names[i]}, {"keys", visibility_keys(a, i)}});
    json j{{"animation", a.name}, {"kind", a.material() ? "material_visibility_animation" : "bone_visibility_animation"},
           {"loop", a.loop()}, {"bfres_frame_count", a.frame_count}, {"entries", entries}};
    if (a.material()) {
      for (const auto& e : entries) {
        const int sm = scene_material(s, e["name"]);
        if (sm < 0) continue;
        s.materials[static_cast<std::size_t>(sm)].extras["visibility_animations"].push_back(
            json{{"animation", a.name}, {"loop", a.loop()}, {"bfres_frame_count", a.frame_count}, {"keys", e["keys"]}});
      }
      all.push_back(std::move(j));
      continue;
    }
    // Bone visibility: the skeleton naming most of the bones.
    int skel = -1;
    std::size_t best = 0;
    for (std::size_t k = 0; k < s.skeletons.size(); ++k) {
      std::size_t hits = 0;
      for (const auto& n : a.names) hits += s.skeletons[k].find(n) >= 0;
      if (hits > best) best = hits, skel = static_cast<int>(k);
    }
    animation an;
    an.name = a.name;
    an.skeleton = std::max(skel, 0);
    an.fps = fps;
    an.duration = a.frame_count / fps;
    json exact = json::array(), inexact = json::array();
    for (std::size_t i = 0; i < a.names.size(); ++i) {
      const json& keys = entries[i]["keys"];
      bool ever_hidden = false;
      for (const auto& k : keys) ever_hidden |= !k["visible"].get<bool>();
      if (!ever_hidden) continue;  // always shown: nothing to animate
      const int bone = skel >= 0 ? s.skeletons[static_cast<std::size_t>(skel)].find(a.names[i]) : -1;
      const std::string why = bone < 0 ? "no such bone in the skeleton" : inexact_reason(s, skel, bone);
      if (!why.empty()) {
        inexact.push_back(json{{"bone", a.names[i]}, {"reason", why}});
        continue;
      }
      const vec3 rest = s.skeletons[static_cast<std::size_t>(skel)].bones[static_cast<std::size_t>(bone)].scale;
      track t;
      t.bone = a.names[i];
      t.path = path::scale;
      t.interpolation = interpolation::step;
      for (const auto& k : keys) {
        const float tm = static_cast<float>(k["frame"].get<double>() / fps);
        if (!t.times.empty() && !(tm > t.times.back())) continue;
        t.times.push_back(tm);
        const bool vis = k["visible"].get<bool>();
        for (int c = 0; c < 3; ++c) t.values.push_back(vis ? rest[static_cast<std::size_t>(c)] : 0.0f);
      }
      an.tracks.push_back(std::move(t));
      exact.push_back(a.names[i]);
    }
    j["scale_tracks"] = exact;
    if (!inexact.empty()) {
      j["not_as_tracks"] = inexact;
      std::string list;
      for (const auto& e : inexact) list += (list.empty() ? "" : ", ") + e["bone"].get<std::string>();
      ctx.warn(code::w_lossy, "bone visibility animation '" + a.name + "': " + list +
                                  " cannot be shown as a scale to zero without hiding more than the game does; kept in "
                                  "extras only",
               a.at);
    }
    if (!an.tracks.empty() && skel >= 0) {
      an.extras = {{"loop", a.loop()}, {"bfres_frame_count", a.frame_count}, {"bone_visibility", j}};
      s.animations.push_back(std::move(an));
    }
    all.push_back(std::move(j));
  }
  if (!all.empty()) s.metadata["material_and_visibility_animations"] = all;
}

}  // namespace rigrip::bfres
