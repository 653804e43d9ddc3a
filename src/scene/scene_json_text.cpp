// Streaming writer of the public scene JSON (docs/scene-json.md): the document
// scene_json::to_json builds, written straight to text. It keeps nlohmann's layout
// byte for byte (sorted keys, its indentation, its number spelling) so `dump` output
// does not change, but prints each float once from its shortest round-trip digits
// instead of float -> text -> double -> DOM -> text.
#include <charconv>
#include <cmath>
#include <cstring>
#include <string_view>

#include <span>

#include "rigrip/gltf.hpp"
#include "scene/json_out.hpp"
#include "rigrip/scene_text.hpp"

namespace rigrip::scene_json {
namespace {
using nlohmann::json;

using json_out::put_int;
using json_out::put_number;
using json_out::put_string;
using json_out::writer;

bool has(const json& j) { return !j.is_null() && !j.empty(); }

void put_skeleton(writer& w, const skeleton& sk) {
  std::string& o = w.o_;
  w.open('{');
  w.key("bones");
  w.open('[');
  for (const auto& b : sk.bones) {
    w.item();
    w.open('{');
    if (has(b.extras)) {
      w.key("extras");
      w.value(b.extras);
    }
    w.key("name");
    put_string(o, b.name);
    w.key("parent");
    put_int(o, b.parent);
    w.key("rotation");
    w.floats(b.rotation);
    w.key("scale");
    w.floats(b.scale);
    if (b.segment_scale_compensate) {
      w.key("segment_scale_compensate");
      o += "true";
    }
    w.key("translation");
    w.floats(b.translation);
    w.close('}');
  }
  w.close(']');
  if (has(sk.extras)) {
    w.key("extras");
    w.value(sk.extras);
  }
  w.key("name");
  put_string(o, sk.name);
  w.close('}');
}

void put_track(writer& w, const track& t, std::string_view target = "bone") {
  std::string& o = w.o_;
  w.open('{');
  w.key(target);  // "bone" or "camera": both sort before "interpolation"
  put_string(o, t.bone);
  w.key("interpolation");
  put_string(o, to_string(t.interpolation));
  w.key("path");
  put_string(o, to_string(t.path));
  w.key("times");
  w.floats(t.times);
  w.key("values");
  const std::size_t n = static_cast<std::size_t>(components(t.path));
  w.float_rows(t.values.data(), n ? t.values.size() / n : 0, n);  // whole rows only
  w.close('}');
}

// The keys a skeletal and a camera clip share, in sorted order: duration, extras, fps.
template <class Clip>
void put_clip_timing(writer& w, const Clip& a) {
  std::string& o = w.o_;
  w.key("duration");
  put_number(o, a.duration);
  if (has(a.extras)) {
    w.key("extras");
    w.value(a.extras);
  }
  w.key("fps");
  if (a.fps) put_number(o, *a.fps);
  else o += "null";
}

void put_animation(writer& w, const animation& a) {
  std::string& o = w.o_;
  w.open('{');
  put_clip_timing(w, a);
  if (!a.material_tracks.empty()) {
    w.key("material_tracks");
    w.open('[');
    for (const auto& t : a.material_tracks) {
      w.item();
      w.open('{');
      w.key("interpolation");
      put_string(o, to_string(t.interpolation));
      w.key("material");
      put_int(o, t.material);
      w.key("property");
      put_string(o, to_string(t.property));
      w.key("texcoord");
      put_int(o, t.texcoord);
      w.key("times");
      w.floats(t.times);
      w.key("values");
      w.floats(t.values);
      w.close('}');
    }
    w.close(']');
  }
  w.key("name");
  put_string(o, a.name);
  w.key("skeleton");
  put_int(o, a.skeleton);
  w.key("tracks");
  w.open('[');
  for (const auto& t : a.tracks) {
    w.item();
    put_track(w, t);
  }
  w.close(']');
  w.close('}');
}

void put_camera(writer& w, const camera& c) {
  std::string& o = w.o_;
  const bool persp = c.type == camera::projection::perspective;
  w.open('{');
  if (persp && c.aspect) {
    w.key("aspect");
    put_number(o, *c.aspect);
  }
  if (has(c.extras)) {
    w.key("extras");
    w.value(c.extras);
  }
  w.key("name");
  put_string(o, c.name);
  w.key("projection");
  put_string(o, persp ? "perspective" : "orthographic");
  w.key("rotation");
  w.floats(c.rotation);
  w.key("translation");
  w.floats(c.translation);
  if (!persp) {
    w.key("xmag");
    put_number(o, c.xmag);
  }
  if (persp) {
    w.key("yfov");
    put_number(o, c.yfov);
  } else {
    w.key("ymag");
    put_number(o, c.ymag);
  }
  if (c.zfar) {
    w.key("zfar");
    put_number(o, *c.zfar);
  }
  w.key("znear");
  put_number(o, c.znear);
  w.close('}');
}

void put_camera_animation(writer& w, const camera_animation& a) {
  std::string& o = w.o_;
  w.open('{');
  put_clip_timing(w, a);
  if (!a.lens.empty()) {
    w.key("lens");
    w.open('[');
    for (const auto& l : a.lens) {
      w.item();
      w.open('{');
      w.key("camera");
      put_string(o, l.camera);
      w.key("interpolation");
      put_string(o, to_string(l.interpolation));
      w.key("times");
      w.floats(l.times);
      w.key("yfov");
      w.floats(l.yfov);
      w.close('}');
    }
    w.close(']');
  }
  w.key("name");
  put_string(o, a.name);
  w.key("tracks");
  w.open('[');
  for (const auto& t : a.tracks) {
    w.item();
    put_track(w, t, "camera");
  }
  w.close(']');
  w.close('}');
}

template <class V>
void put_list(writer& w, std::string_view key, const V& v) {
  w.key(key);
  w.open('[');
  for (const auto& e : v) {
    w.item();
    w.floats(e);
  }
  w.close(']');
}

void put_mesh(writer& w, const mesh& m) {
  std::string& o = w.o_;
  w.open('{');
  w.key("bone");
  put_int(o, m.bone);
  if (!m.colors.empty()) put_list(w, "colors", m.colors);
  if (!m.indices.empty()) {
    w.key("indices");
    w.open('[');
    for (auto i : m.indices) {
      w.item();
      put_int(o, i);
    }
    w.close(']');
  }
  if (!m.joints.empty()) {
    w.key("joints");
    w.open('[');
    for (const auto& j : m.joints) {
      w.item();
      w.open('[');
      for (auto ji : j) {
        w.item();
        put_int(o, ji);
      }
      w.close(']');
    }
    w.close(']');
  }
  w.key("material");
  put_int(o, m.material);
  w.key("name");
  put_string(o, m.name);
  if (!m.normals.empty()) put_list(w, "normals", m.normals);
  put_list(w, "positions", m.positions);
  w.key("skeleton");
  put_int(o, m.skeleton);
  if (!m.tangents.empty()) put_list(w, "tangents", m.tangents);
  if (!m.uvs.empty()) put_list(w, "uvs", m.uvs);
  if (!m.joints.empty()) put_list(w, "weights", m.weights);
  w.close('}');
}

// A rough size so the text is allocated once: ~12 bytes per float, plus (pretty) its line's
// indentation (keys sit 6-7 levels deep), newline and comma; a little too much costs only
// untouched address space, too little a copy of the whole text.
std::size_t estimate(const scene& s, int indent) {
  const std::size_t per_float = 14 + (indent < 0 ? 0 : 3 + 7 * static_cast<std::size_t>(indent));
  std::size_t n = 4096;
  for (const auto& sk : s.skeletons) n += sk.bones.size() * 256;
  for (const auto& a : s.animations)
    for (const auto& t : a.tracks) n += 128 + (t.times.size() + t.values.size()) * per_float;
  for (const auto& m : s.meshes)
    n += (m.positions.size() + m.normals.size() + m.tangents.size()) * 48 + m.indices.size() * 8 + m.joints.size() * 64;
  return n;
}
}  // namespace

void append_text(const scene& s, int indent, std::string& out) {
  out.reserve(out.size() + estimate(s, indent));
  writer w(out, indent < 0 ? -1 : indent);
  w.open('{');
  w.key("animations");
  w.open('[');
  for (const auto& a : s.animations) {
    w.item();
    put_animation(w, a);
  }
  w.close(']');
  if (!s.camera_animations.empty()) {
    w.key("camera_animations");
    w.open('[');
    for (const auto& a : s.camera_animations) {
      w.item();
      put_camera_animation(w, a);
    }
    w.close(']');
  }
  if (!s.cameras.empty()) {
    w.key("cameras");
    w.open('[');
    for (const auto& c : s.cameras) {
      w.item();
      put_camera(w, c);
    }
    w.close(']');
  }
  w.key("format");
  put_string(out, s.format);
  if (!s.materials.empty()) {
    w.key("materials");
    w.open('[');
    for (const auto& m : s.materials) {
      w.item();
      w.open('{');
      w.key("base_color");
      w.floats(m.base_color);
      w.key("double_sided");
      out += m.double_sided ? "true" : "false";
      w.key("name");
      put_string(out, m.name);
      w.key("texture");
      put_int(out, m.texture);
      w.close('}');
    }
    w.close(']');
  }
  if (!s.meshes.empty()) {
    w.key("meshes");
    w.open('[');
    for (const auto& m : s.meshes) {
      w.item();
      put_mesh(w, m);
    }
    w.close(']');
  }
  if (has(s.metadata)) {
    w.key("metadata");
    w.value(s.metadata);
  }
  w.key("skeletons");
  w.open('[');
  for (const auto& sk : s.skeletons) {
    w.item();
    put_skeleton(w, sk);
  }
  w.close(']');
  if (!s.textures.empty()) {
    w.key("textures");
    w.open('[');
    for (const auto& t : s.textures) {
      w.item();
      w.open('{');
      w.key("height");
      put_int(out, t.height);
      w.key("name");
      put_string(out, t.name);
      w.key("width");
      put_int(out, t.width);
      w.close('}');
    }
    w.close(']');
  }
  w.close('}');
}

std::string to_text(const scene& s, int indent) {
  std::string out;
  append_text(s, indent, out);
  return out;
}

}  // namespace rigrip::scene_json
