// The public scene JSON (docs/scene-json.md): what `rigrip dump` prints and what
// `rigrip convert scene.json` reads. Keys and meanings are a contract.
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <new>

#include "rigrip/gltf.hpp"

namespace rigrip::scene_json {
namespace {
using nlohmann::json;

// Shortest decimal that reads back to the same float, so dumps are readable and exact.
json num(float f) {
  if (!std::isfinite(f)) return nullptr;
  char buf[32];
  auto r = std::to_chars(buf, buf + sizeof buf, f);
  *r.ptr = 0;
  return std::strtod(buf, nullptr);
}
template <class A>
json arr(const A& a) {
  json j = json::array();
  for (float f : a) j.push_back(num(f));
  return j;
}

// A field of the wrong type or range: thrown inside from_json, returned as E_BAD_VALUE
// naming the key (never a JSON library's exception text).
struct bad_field {
  std::string where, what;
};
[[noreturn]] void bad(const std::string& where, const std::string& what) { throw bad_field{where, what}; }

float to_float(const json& v, const std::string& where) {
  if (!v.is_number()) bad(where, "must be a number");
  const double d = v.get<double>();
  if (!std::isfinite(d) || std::fabs(d) > std::numeric_limits<float>::max()) bad(where, "is outside the float range");
  return static_cast<float>(d);
}
double to_double(const json& v, const std::string& where) {
  if (!v.is_number()) bad(where, "must be a number");
  const double d = v.get<double>();
  if (!std::isfinite(d)) bad(where, "must be finite");
  return d;
}
const json* field(const json& o, const char* key) {
  auto it = o.find(key);
  return it == o.end() ? nullptr : &*it;
}
std::string str(const json& o, const char* key, std::string def, const std::string& where) {
  const json* v = field(o, key);
  if (!v) return def;
  if (!v->is_string()) bad(where + "." + key, "must be a string");
  return v->get<std::string>();
}
int integer(const json& o, const char* key, int def, const std::string& where) {
  const json* v = field(o, key);
  if (!v) return def;
  if (!v->is_number_integer() || (v->is_number_unsigned() && v->get<std::uint64_t>() > std::numeric_limits<int>::max()) ||
      (!v->is_number_unsigned() && (v->get<std::int64_t>() < std::numeric_limits<int>::min() ||
                                    v->get<std::int64_t>() > std::numeric_limits<int>::max())))
    bad(where + "." + key, "must be an integer");
  return v->get<int>();
}
const json& array(const json& o, const char* key, const std::string& where) {
  const json* v = field(o, key);
  if (!v || !v->is_array()) bad(where + "." + key, "must be an array");
  return *v;
}

template <std::size_t N>
bool get_vec(const json& j, std::array<float, N>& out, const std::string& where = "value") {
  if (!j.is_array() || j.size() != N) return false;
  for (std::size_t i = 0; i < N; ++i) out[i] = to_float(j[i], where);
  return true;
}
// A track; `target` names the key of its bone ("bone") or camera ("camera").
json track_json(const track& t, const char* target) {
  json vals = json::array();
  const std::size_t n = static_cast<std::size_t>(components(t.path));
  for (std::size_t i = 0; i + n <= t.values.size(); i += n) {
    json v = json::array();
    for (std::size_t c = 0; c < n; ++c) v.push_back(num(t.values[i + c]));
    vals.push_back(std::move(v));
  }
  return json{{target, t.bone},
              {"path", std::string(to_string(t.path))},
              {"interpolation", std::string(to_string(t.interpolation))},
              {"times", arr(t.times)},
              {"values", std::move(vals)}};
}
}  // namespace

json to_json(const scene& s) {
  json out;
  out["format"] = s.format;
  out["skeletons"] = json::array();
  for (const auto& sk : s.skeletons) {
    json jb = json::array();
    for (const auto& b : sk.bones) {
      json o{{"name", b.name},
             {"parent", b.parent},
             {"translation", arr(b.translation)},
             {"rotation", arr(b.rotation)},
             {"scale", arr(b.scale)}};
      if (b.segment_scale_compensate) o["segment_scale_compensate"] = true;
      if (!b.extras.is_null() && !b.extras.empty()) o["extras"] = b.extras;
      jb.push_back(std::move(o));
    }
    json js{{"name", sk.name}, {"bones", std::move(jb)}};
    if (!sk.extras.is_null() && !sk.extras.empty()) js["extras"] = sk.extras;
    out["skeletons"].push_back(std::move(js));
  }
  out["animations"] = json::array();
  for (const auto& a : s.animations) {
    json jt = json::array();
    for (const auto& t : a.tracks) jt.push_back(track_json(t, "bone"));
    json ja{{"name", a.name},
            {"skeleton", a.skeleton},
            {"duration", a.duration},
            {"fps", a.fps ? json(*a.fps) : json(nullptr)},
            {"tracks", std::move(jt)}};
    if (!a.extras.is_null() && !a.extras.empty()) ja["extras"] = a.extras;
    if (!a.material_tracks.empty()) {  // optional key (flat values, components per key by property)
      json jm = json::array();
      for (const auto& t : a.material_tracks)
        jm.push_back(json{{"material", t.material}, {"texcoord", t.texcoord},
                          {"property", std::string(to_string(t.property))},
                          {"interpolation", std::string(to_string(t.interpolation))},
                          {"times", arr(t.times)}, {"values", arr(t.values)}});
      ja["material_tracks"] = std::move(jm);
    }
    out["animations"].push_back(std::move(ja));
  }
  // Extra keys (allowed by the contract): geometry in full, textures summarised.
  if (!s.meshes.empty()) {
    out["meshes"] = json::array();
    for (const auto& m : s.meshes) {
      json jm{{"name", m.name}, {"skeleton", m.skeleton}, {"bone", m.bone}, {"material", m.material}};
      auto list = [](const auto& v) {
        json j = json::array();
        for (const auto& e : v) j.push_back(arr(e));
        return j;
      };
      jm["positions"] = list(m.positions);
      if (!m.normals.empty()) jm["normals"] = list(m.normals);
      if (!m.tangents.empty()) jm["tangents"] = list(m.tangents);
      if (!m.uvs.empty()) jm["uvs"] = list(m.uvs);
      if (!m.colors.empty()) jm["colors"] = list(m.colors);
      if (!m.joints.empty()) {
        json j = json::array();
        for (const auto& e : m.joints) j.push_back({e[0], e[1], e[2], e[3]});
        jm["joints"] = std::move(j);
        jm["weights"] = list(m.weights);
      }
      if (!m.indices.empty()) jm["indices"] = m.indices;
      out["meshes"].push_back(std::move(jm));
    }
  }
  if (!s.materials.empty()) {
    out["materials"] = json::array();
    for (const auto& m : s.materials)
      out["materials"].push_back(json{{"name", m.name}, {"base_color", arr(m.base_color)},
                                      {"texture", m.texture}, {"double_sided", m.double_sided}});
  }
  if (!s.textures.empty()) {
    out["textures"] = json::array();
    for (const auto& t : s.textures)
      out["textures"].push_back(json{{"name", t.name}, {"width", t.width}, {"height", t.height}});
  }
  // Optional keys (docs/scene-json.md): cameras and camera clips.
  if (!s.cameras.empty()) {
    out["cameras"] = json::array();
    for (const auto& c : s.cameras) {
      json jc{{"name", c.name},
              {"projection", c.type == camera::projection::perspective ? "perspective" : "orthographic"},
              {"translation", arr(c.translation)},
              {"rotation", arr(c.rotation)},
              {"znear", num(c.znear)}};
      if (c.type == camera::projection::perspective) {
        jc["yfov"] = num(c.yfov);
        if (c.aspect) jc["aspect"] = num(*c.aspect);
      } else {
        jc["xmag"] = num(c.xmag);
        jc["ymag"] = num(c.ymag);
      }
      if (c.zfar) jc["zfar"] = num(*c.zfar);
      if (!c.extras.is_null() && !c.extras.empty()) jc["extras"] = c.extras;
      out["cameras"].push_back(std::move(jc));
    }
  }
  if (!s.camera_animations.empty()) {
    out["camera_animations"] = json::array();
    for (const auto& a : s.camera_animations) {
      json jt = json::array();
      for (const auto& t : a.tracks) jt.push_back(track_json(t, "camera"));
      json ja{{"name", a.name},
              {"duration", a.duration},
              {"fps", a.fps ? json(*a.fps) : json(nullptr)},
              {"tracks", std::move(jt)}};
      if (!a.lens.empty()) {
        ja["lens"] = json::array();
        for (const auto& l : a.lens)
          ja["lens"].push_back(json{{"camera", l.camera},
                                    {"interpolation", std::string(to_string(l.interpolation))},
                                    {"times", arr(l.times)},
                                    {"yfov", arr(l.yfov)}});
      }
      if (!a.extras.is_null() && !a.extras.empty()) ja["extras"] = a.extras;
      out["camera_animations"].push_back(std::move(ja));
    }
  }
  if (!s.metadata.is_null() && !s.metadata.empty()) out["metadata"] = s.metadata;
  return out;
}

namespace {
// Each reader takes one JSON element and the path to it ("skeletons[0].bones[3]"), so
// every error names the exact place.
bone bone_from_json(const json& jb, std::size_t bi, const std::string& wb) {
  if (!jb.is_object()) bad(wb, "must be an object");
  bone b;
  b.name = str(jb, "name", "", wb);
  if (b.name.empty()) b.name = "bone_" + std::to_string(bi);
  b.parent = integer(jb, "parent", -1, wb);
  if (const json* v = field(jb, "translation"); v && !get_vec(*v, b.translation, wb + ".translation"))
    bad(wb + ".translation", "must be [x,y,z]");
  if (const json* v = field(jb, "rotation"); v && !get_vec(*v, b.rotation, wb + ".rotation"))
    bad(wb + ".rotation", "must be [x,y,z,w]");
  if (const json* v = field(jb, "scale"); v && !get_vec(*v, b.scale, wb + ".scale"))
    bad(wb + ".scale", "must be [x,y,z]");
  if (const json* v = field(jb, "segment_scale_compensate")) {
    if (!v->is_boolean()) bad(wb + ".segment_scale_compensate", "must be true or false");
    b.segment_scale_compensate = v->get<bool>();
  }
  if (const json* e = field(jb, "extras")) b.extras = *e;
  return b;
}

skeleton skeleton_from_json(const json& js, const std::string& w) {
  if (!js.is_object()) bad(w, "must be an object");
  const json& bones = array(js, "bones", w);
  skeleton sk;
  sk.name = str(js, "name", "", w);
  if (const json* e = field(js, "extras")) sk.extras = *e;
  for (std::size_t bi = 0; bi < bones.size(); ++bi)
    sk.bones.push_back(bone_from_json(bones[bi], bi, w + ".bones[" + std::to_string(bi) + "]"));
  return sk;
}

track track_from_json(const json& jt, const std::string& wt, const char* target = "bone") {
  if (!jt.is_object()) bad(wt, "must be an object");
  track t;
  t.bone = str(jt, target, "", wt);
  auto p = path_from_string(str(jt, "path", "", wt));
  if (!p) bad(wt + ".path", "must be translation, rotation or scale");
  t.path = *p;
  auto in = interpolation_from_string(str(jt, "interpolation", "LINEAR", wt));
  if (!in) bad(wt + ".interpolation", "must be STEP, LINEAR or CUBICSPLINE");
  t.interpolation = *in;
  const json& times = array(jt, "times", wt);
  t.times.reserve(times.size());
  for (const auto& tv : times) t.times.push_back(to_float(tv, wt + ".times"));
  const json& values = array(jt, "values", wt);
  std::size_t n = static_cast<std::size_t>(components(t.path));
  t.values.reserve(values.size() * n);
  for (const auto& v : values) {
    if (!v.is_array() || v.size() != n)
      bad(wt + ".values", "each value must have " + std::to_string(n) + " numbers");
    for (const auto& c : v) t.values.push_back(to_float(c, wt + ".values"));
  }
  return t;
}

animation animation_from_json(const json& ja, std::size_t ai, const std::string& w) {
  if (!ja.is_object()) bad(w, "must be an object");
  animation a;
  a.name = str(ja, "name", "animation_" + std::to_string(ai), w);
  a.skeleton = integer(ja, "skeleton", 0, w);
  if (const json* v = field(ja, "duration")) a.duration = to_double(*v, w + ".duration");
  if (const json* v = field(ja, "fps"); v && !v->is_null()) a.fps = to_double(*v, w + ".fps");
  if (const json* e = field(ja, "extras")) a.extras = *e;
  const json& tracks = array(ja, "tracks", w);
  for (std::size_t ti = 0; ti < tracks.size(); ++ti)
    a.tracks.push_back(track_from_json(tracks[ti], w + ".tracks[" + std::to_string(ti) + "]"));
  return a;
}

std::optional<float> opt_float(const json& o, const char* key, const std::string& w) {
  const json* v = field(o, key);
  if (!v || v->is_null()) return std::nullopt;
  return to_float(*v, w + "." + key);
}

camera camera_from_json(const json& jc, std::size_t ci, const std::string& w) {
  if (!jc.is_object()) bad(w, "must be an object");
  camera c;
  c.name = str(jc, "name", "camera_" + std::to_string(ci), w);
  const std::string p = str(jc, "projection", "perspective", w);
  if (p == "orthographic") c.type = camera::projection::orthographic;
  else if (p != "perspective") bad(w + ".projection", "must be perspective or orthographic");
  if (const json* v = field(jc, "translation"); v && !get_vec(*v, c.translation, w + ".translation"))
    bad(w + ".translation", "must be [x,y,z]");
  if (const json* v = field(jc, "rotation"); v && !get_vec(*v, c.rotation, w + ".rotation"))
    bad(w + ".rotation", "must be [x,y,z,w]");
  if (auto v = opt_float(jc, "yfov", w)) c.yfov = *v;
  c.aspect = opt_float(jc, "aspect", w);
  if (auto v = opt_float(jc, "znear", w)) c.znear = *v;
  c.zfar = opt_float(jc, "zfar", w);
  if (auto v = opt_float(jc, "xmag", w)) c.xmag = *v;
  if (auto v = opt_float(jc, "ymag", w)) c.ymag = *v;
  if (const json* e = field(jc, "extras")) c.extras = *e;
  return c;
}

camera_animation camera_animation_from_json(const json& ja, std::size_t ai, const std::string& w) {
  if (!ja.is_object()) bad(w, "must be an object");
  camera_animation a;
  a.name = str(ja, "name", "camera_animation_" + std::to_string(ai), w);
  if (const json* v = field(ja, "duration")) a.duration = to_double(*v, w + ".duration");
  if (const json* v = field(ja, "fps"); v && !v->is_null()) a.fps = to_double(*v, w + ".fps");
  if (const json* e = field(ja, "extras")) a.extras = *e;
  const json& tracks = array(ja, "tracks", w);
  for (std::size_t ti = 0; ti < tracks.size(); ++ti)
    a.tracks.push_back(track_from_json(tracks[ti], w + ".tracks[" + std::to_string(ti) + "]", "camera"));
  if (field(ja, "lens")) {
    const json& lens = array(ja, "lens", w);
    for (std::size_t li = 0; li < lens.size(); ++li) {
      const std::string wl = w + ".lens[" + std::to_string(li) + "]";
      const json& jl = lens[li];
      if (!jl.is_object()) bad(wl, "must be an object");
      camera_lens_track l;
      l.camera = str(jl, "camera", "", wl);
      auto in = interpolation_from_string(str(jl, "interpolation", "LINEAR", wl));
      if (!in) bad(wl + ".interpolation", "must be STEP or LINEAR");
      l.interpolation = *in;
      for (const auto& tv : array(jl, "times", wl)) l.times.push_back(to_float(tv, wl + ".times"));
      for (const auto& v : array(jl, "yfov", wl)) l.yfov.push_back(to_float(v, wl + ".yfov"));
      a.lens.push_back(std::move(l));
    }
  }
  return a;
}

material material_from_json(const json& jm, const std::string& w) {
  if (!jm.is_object()) bad(w, "must be an object");
  material m;
  m.name = str(jm, "name", "", w);
  if (const json* v = field(jm, "base_color"); v && !get_vec(*v, m.base_color, w + ".base_color"))
    bad(w + ".base_color", "must be [r,g,b,a]");
  m.texture = -1;  // textures are not carried by the JSON
  if (const json* v = field(jm, "double_sided")) {
    if (!v->is_boolean()) bad(w + ".double_sided", "must be true or false");
    m.double_sided = v->get<bool>();
  }
  return m;
}

// A mesh's material index is dropped (-1) when it names no material of the JSON.
mesh mesh_from_json(const json& jm, std::size_t material_count, const std::string& w) {
  if (!jm.is_object()) bad(w, "must be an object");
  mesh m;
  m.name = str(jm, "name", "", w);
  m.skeleton = integer(jm, "skeleton", -1, w);
  m.bone = integer(jm, "bone", -1, w);
  m.material = integer(jm, "material", -1, w);
  auto read_list = [&](const char* key, auto& out) {
    const json* v = field(jm, key);
    if (!v) return;
    const std::string wk = w + "." + key;
    if (!v->is_array()) bad(wk, "must be an array");
    out.reserve(v->size());
    for (const auto& e : *v) {
      typename std::decay_t<decltype(out)>::value_type x{};
      if (!get_vec(e, x, wk)) bad(wk, "has an element of the wrong size");
      out.push_back(x);
    }
  };
  read_list("positions", m.positions);
  read_list("normals", m.normals);
  read_list("tangents", m.tangents);
  read_list("uvs", m.uvs);
  read_list("colors", m.colors);
  read_list("weights", m.weights);
  if (field(jm, "joints")) {
    for (const auto& e : array(jm, "joints", w)) {
      if (!e.is_array() || e.size() != 4) bad(w + ".joints", "must be [a,b,c,d]");
      std::array<std::uint16_t, 4> jv{};
      for (std::size_t i = 0; i < 4; ++i) {
        if (!e[i].is_number_unsigned() || e[i].get<std::uint64_t>() > 65535)
          bad(w + ".joints", "joint index out of range");
        jv[i] = e[i].get<std::uint16_t>();
      }
      m.joints.push_back(jv);
    }
  }
  if (field(jm, "indices")) {
    for (const auto& e : array(jm, "indices", w)) {
      if (!e.is_number_unsigned() || e.get<std::uint64_t>() > 0xFFFFFFFFu)
        bad(w + ".indices", "must be unsigned 32-bit integers");
      m.indices.push_back(e.get<std::uint32_t>());
    }
  }
  if (m.material >= static_cast<int>(material_count)) m.material = -1;
  return m;
}

scene from_json_checked(const json& j) {
  if (!j.is_object()) bad("root", "must be an object");
  scene s;
  s.format = str(j, "format", "scene-json", "scene JSON");
  if (const json* m = field(j, "metadata"); m && m->is_object()) s.metadata = *m;
  if (field(j, "skeletons")) {
    const json& sks = array(j, "skeletons", "scene JSON");
    for (std::size_t si = 0; si < sks.size(); ++si)
      s.skeletons.push_back(skeleton_from_json(sks[si], "skeletons[" + std::to_string(si) + "]"));
  }
  if (field(j, "animations")) {
    const json& anims = array(j, "animations", "scene JSON");
    for (std::size_t ai = 0; ai < anims.size(); ++ai)
      s.animations.push_back(animation_from_json(anims[ai], ai, "animations[" + std::to_string(ai) + "]"));
  }
  if (field(j, "cameras")) {
    const json& cams = array(j, "cameras", "scene JSON");
    for (std::size_t ci = 0; ci < cams.size(); ++ci)
      s.cameras.push_back(camera_from_json(cams[ci], ci, "cameras[" + std::to_string(ci) + "]"));
  }
  if (field(j, "camera_animations")) {
    const json& anims = array(j, "camera_animations", "scene JSON");
    for (std::size_t ai = 0; ai < anims.size(); ++ai)
      s.camera_animations.push_back(
          camera_animation_from_json(anims[ai], ai, "camera_animations[" + std::to_string(ai) + "]"));
  }
  // Materials before meshes: a mesh's material index is checked against them.
  if (const json* mats = field(j, "materials"); mats && mats->is_array())
    for (std::size_t mi = 0; mi < mats->size(); ++mi)
      s.materials.push_back(material_from_json((*mats)[mi], "materials[" + std::to_string(mi) + "]"));
  if (const json* meshes = field(j, "meshes"); meshes && meshes->is_array())
    for (std::size_t mi = 0; mi < meshes->size(); ++mi)
      s.meshes.push_back(
          mesh_from_json((*meshes)[mi], s.materials.size(), "meshes[" + std::to_string(mi) + "]"));
  return s;
}
}  // namespace

result<scene> from_json(const json& j) {
  try {
    return from_json_checked(j);
  } catch (const bad_field& b) {
    return make_error(code::bad_value, "scene JSON " + b.where + ": " + b.what);
  } catch (const nlohmann::json::exception&) {  // a check above missed a case: still one clean line
    return make_error(code::bad_value, "scene JSON: a value has the wrong type");
  } catch (const std::bad_alloc&) {
    return make_error(code::limit_exceeded, "scene JSON needs more memory than is available");
  }
}

}  // namespace rigrip::scene_json
