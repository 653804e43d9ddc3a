// The public scene JSON (docs/scene-json.md): what `rigrip dump` prints and what
// `rigrip convert scene.json` reads. Keys and meanings are a contract.
#include <charconv>
#include <cmath>
#include <cstdlib>

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

error bad(const std::string& where, const std::string& what) {
  return make_error(code::bad_value, "scene JSON " + where + ": " + what);
}

template <std::size_t N>
bool get_vec(const json& j, std::array<float, N>& out) {
  if (!j.is_array() || j.size() != N) return false;
  for (std::size_t i = 0; i < N; ++i) {
    if (!j[i].is_number()) return false;
    out[i] = j[i].get<float>();
  }
  return true;
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
    for (const auto& t : a.tracks) {
      json vals = json::array();
      std::size_t n = static_cast<std::size_t>(components(t.path));
      for (std::size_t i = 0; i + n <= t.values.size(); i += n) {
        json v = json::array();
        for (std::size_t c = 0; c < n; ++c) v.push_back(num(t.values[i + c]));
        vals.push_back(std::move(v));
      }
      jt.push_back(json{{"bone", t.bone},
                        {"path", std::string(to_string(t.path))},
                        {"interpolation", std::string(to_string(t.interpolation))},
                        {"times", arr(t.times)},
                        {"values", std::move(vals)}});
    }
    json ja{{"name", a.name},
            {"skeleton", a.skeleton},
            {"duration", a.duration},
            {"fps", a.fps ? json(*a.fps) : json(nullptr)},
            {"tracks", std::move(jt)}};
    if (!a.extras.is_null() && !a.extras.empty()) ja["extras"] = a.extras;
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
  if (!s.metadata.is_null() && !s.metadata.empty()) out["metadata"] = s.metadata;
  return out;
}

result<scene> from_json(const json& j) {
  if (!j.is_object()) return bad("root", "must be an object");
  scene s;
  s.format = j.value("format", std::string("scene-json"));
  if (j.contains("metadata") && j["metadata"].is_object()) s.metadata = j["metadata"];
  if (j.contains("skeletons")) {
    if (!j["skeletons"].is_array()) return bad("skeletons", "must be an array");
    for (std::size_t si = 0; si < j["skeletons"].size(); ++si) {
      const auto& js = j["skeletons"][si];
      std::string w = "skeletons[" + std::to_string(si) + "]";
      if (!js.is_object() || !js.contains("bones") || !js["bones"].is_array())
        return bad(w, "needs a bones array");
      skeleton sk;
      sk.name = js.value("name", std::string());
      if (js.contains("extras")) sk.extras = js["extras"];
      for (std::size_t bi = 0; bi < js["bones"].size(); ++bi) {
        const auto& jb = js["bones"][bi];
        std::string wb = w + ".bones[" + std::to_string(bi) + "]";
        if (!jb.is_object()) return bad(wb, "must be an object");
        bone b;
        b.name = jb.value("name", std::string());
        if (b.name.empty()) b.name = "bone_" + std::to_string(bi);
        if (jb.contains("parent") && !jb["parent"].is_number_integer())
          return bad(wb, "parent must be an integer");
        b.parent = jb.value("parent", -1);
        if (jb.contains("translation") && !get_vec(jb["translation"], b.translation))
          return bad(wb, "translation must be [x,y,z]");
        if (jb.contains("rotation") && !get_vec(jb["rotation"], b.rotation))
          return bad(wb, "rotation must be [x,y,z,w]");
        if (jb.contains("scale") && !get_vec(jb["scale"], b.scale))
          return bad(wb, "scale must be [x,y,z]");
        if (jb.contains("segment_scale_compensate")) {
          if (!jb["segment_scale_compensate"].is_boolean()) return bad(wb, "segment_scale_compensate must be true or false");
          b.segment_scale_compensate = jb["segment_scale_compensate"].get<bool>();
        }
        if (jb.contains("extras")) b.extras = jb["extras"];
        sk.bones.push_back(std::move(b));
      }
      s.skeletons.push_back(std::move(sk));
    }
  }
  if (j.contains("animations")) {
    if (!j["animations"].is_array()) return bad("animations", "must be an array");
    for (std::size_t ai = 0; ai < j["animations"].size(); ++ai) {
      const auto& ja = j["animations"][ai];
      std::string w = "animations[" + std::to_string(ai) + "]";
      if (!ja.is_object()) return bad(w, "must be an object");
      animation a;
      a.name = ja.value("name", "animation_" + std::to_string(ai));
      a.skeleton = ja.value("skeleton", 0);
      if (ja.contains("duration") && !ja["duration"].is_number()) return bad(w, "duration must be a number");
      a.duration = ja.value("duration", 0.0);
      if (ja.contains("fps") && ja["fps"].is_number()) a.fps = ja["fps"].get<double>();
      if (ja.contains("extras")) a.extras = ja["extras"];
      if (!ja.contains("tracks") || !ja["tracks"].is_array()) return bad(w, "needs a tracks array");
      for (std::size_t ti = 0; ti < ja["tracks"].size(); ++ti) {
        const auto& jt = ja["tracks"][ti];
        std::string wt = w + ".tracks[" + std::to_string(ti) + "]";
        if (!jt.is_object()) return bad(wt, "must be an object");
        track t;
        t.bone = jt.value("bone", std::string());
        auto p = path_from_string(jt.value("path", std::string()));
        if (!p) return bad(wt, "path must be translation, rotation or scale");
        t.path = *p;
        auto in = interpolation_from_string(jt.value("interpolation", std::string("LINEAR")));
        if (!in) return bad(wt, "interpolation must be STEP, LINEAR or CUBICSPLINE");
        t.interpolation = *in;
        if (!jt.contains("times") || !jt["times"].is_array()) return bad(wt, "needs times");
        for (const auto& tv : jt["times"]) {
          if (!tv.is_number()) return bad(wt, "times must be numbers");
          t.times.push_back(tv.get<float>());
        }
        if (!jt.contains("values") || !jt["values"].is_array()) return bad(wt, "needs values");
        std::size_t n = static_cast<std::size_t>(components(t.path));
        for (const auto& v : jt["values"]) {
          if (!v.is_array() || v.size() != n)
            return bad(wt, "each value must have " + std::to_string(n) + " numbers");
          for (const auto& c : v) {
            if (!c.is_number()) return bad(wt, "values must be numbers");
            t.values.push_back(c.get<float>());
          }
        }
        a.tracks.push_back(std::move(t));
      }
      s.animations.push_back(std::move(a));
    }
  }
  if (j.contains("materials") && j["materials"].is_array()) {
    for (const auto& jm : j["materials"]) {
      material m;
      m.name = jm.value("name", std::string());
      if (jm.contains("base_color")) get_vec(jm["base_color"], m.base_color);
      m.texture = -1;  // textures are not carried by the JSON
      m.double_sided = jm.value("double_sided", false);
      s.materials.push_back(std::move(m));
    }
  }
  if (j.contains("meshes") && j["meshes"].is_array()) {
    for (std::size_t mi = 0; mi < j["meshes"].size(); ++mi) {
      const auto& jm = j["meshes"][mi];
      std::string w = "meshes[" + std::to_string(mi) + "]";
      mesh m;
      m.name = jm.value("name", std::string());
      m.skeleton = jm.value("skeleton", -1);
      m.bone = jm.value("bone", -1);
      m.material = jm.value("material", -1);
      auto read_list = [&](const char* key, auto& out) -> bool {
        if (!jm.contains(key)) return true;
        if (!jm[key].is_array()) return false;
        for (const auto& e : jm[key]) {
          typename std::decay_t<decltype(out)>::value_type v{};
          if (!get_vec(e, v)) return false;
          out.push_back(v);
        }
        return true;
      };
      if (!read_list("positions", m.positions) || !read_list("normals", m.normals) ||
          !read_list("uvs", m.uvs) || !read_list("colors", m.colors) ||
          !read_list("weights", m.weights))
        return bad(w, "malformed vertex attribute");
      if (jm.contains("joints")) {
        for (const auto& e : jm["joints"]) {
          if (!e.is_array() || e.size() != 4) return bad(w, "joints must be [a,b,c,d]");
          std::array<std::uint16_t, 4> jv{};
          for (std::size_t i = 0; i < 4; ++i) {
            if (!e[i].is_number_unsigned() || e[i].get<std::uint64_t>() > 65535)
              return bad(w, "joint index out of range");
            jv[i] = e[i].get<std::uint16_t>();
          }
          m.joints.push_back(jv);
        }
      }
      if (jm.contains("indices")) {
        for (const auto& e : jm["indices"]) {
          if (!e.is_number_unsigned()) return bad(w, "indices must be unsigned integers");
          m.indices.push_back(e.get<std::uint32_t>());
        }
      }
      if (m.material >= static_cast<int>(s.materials.size())) m.material = -1;
      s.meshes.push_back(std::move(m));
    }
  }
  return s;
}

}  // namespace rigrip::scene_json
