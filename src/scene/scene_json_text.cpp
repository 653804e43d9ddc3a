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
#include "rigrip/scene_text.hpp"

namespace rigrip::scene_json {
namespace {
using nlohmann::json;

// nlohmann's layout of a number given its shortest digits: value = digits * 10^(n - k).
// Mirrors nlohmann::detail::dtoa_impl::format_buffer (min_exp -4, max_exp 15).
void lay_out(std::string& o, bool negative, std::string_view digits, int n) {
  const int k = static_cast<int>(digits.size());
  if (negative) o += '-';
  if (k <= n && n <= 15) {
    o += digits;
    o.append(static_cast<std::size_t>(n - k), '0');
    o += ".0";
  } else if (0 < n && n <= 15) {
    o += digits.substr(0, static_cast<std::size_t>(n));
    o += '.';
    o += digits.substr(static_cast<std::size_t>(n));
  } else if (-4 < n && n <= 0) {
    o += "0.";
    o.append(static_cast<std::size_t>(-n), '0');
    o += digits;
  } else {
    o += digits[0];
    if (k > 1) {
      o += '.';
      o += digits.substr(1);
    }
    int e = n - 1;
    o += 'e';
    o += e < 0 ? '-' : '+';
    e = e < 0 ? -e : e;
    if (e < 10) o += '0';
    char buf[8];
    auto r = std::to_chars(buf, buf + sizeof buf, e);
    o.append(buf, r.ptr);
  }
}

// The shortest round-trip text of a float or double (std::to_chars, which picks fixed or
// scientific form: the same text the DOM path parsed, so the same value), re-laid out as
// nlohmann prints a double.
template <class F>
void put_number(std::string& o, F v) {
  if (!std::isfinite(v)) {
    o += "null";
    return;
  }
  if (v == 0) {
    o += std::signbit(v) ? "-0.0" : "0.0";
    return;
  }
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  const char* p = buf;
  bool negative = false;
  if (*p == '-') {
    negative = true;
    ++p;
  }
  char digits[48];
  int k = 0, point = -1;
  for (; p < r.ptr && *p != 'e'; ++p) {
    if (*p == '.') point = k;
    else if (k < 48) digits[k++] = *p;
  }
  if (point < 0) point = k;
  int exp10 = 0;
  if (p < r.ptr) std::from_chars(p + 1 + (p[1] == '+' ? 1 : 0), r.ptr, exp10);
  int n = point + exp10;  // value = 0.digits * 10^n
  int first = 0;
  while (first < k - 1 && digits[first] == '0') ++first, --n;
  while (k - first > 1 && digits[k - 1] == '0') --k;
  lay_out(o, negative, std::string_view(digits + first, static_cast<std::size_t>(k - first)), n);
}

template <class I>
void put_int(std::string& o, I v) {
  char buf[24];
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  o.append(buf, r.ptr);
}

// Strings: printable ASCII without quotes or backslashes is copied; anything else goes
// through nlohmann's own escaping (with invalid UTF-8 replaced, as the CLI prints).
void put_string(std::string& o, std::string_view s) {
  bool plain = true;
  for (unsigned char c : s)
    if (c < 0x20 || c >= 0x7f || c == '"' || c == '\\') {
      plain = false;
      break;
    }
  if (plain) {
    o += '"';
    o += s;
    o += '"';
    return;
  }
  o += json(std::string(s)).dump(-1, ' ', false, json::error_handler_t::replace);
}

// Containers with nlohmann's separators: pretty ("{\n<indent>\"k\": v,\n...\n}") or compact.
class writer {
 public:
  writer(std::string& o, int step) : o_(o), step_(step) {}
  std::string& o_;

  void open(char c) {
    o_ += c;
    first_.push_back(true);
  }
  void close(char c) {
    const bool empty = first_.back();
    first_.pop_back();
    if (!empty) newline();
    o_ += c;
  }
  void item() {  // before each array element
    if (!first_.back()) o_ += ',';
    first_.back() = false;
    newline();
  }
  void key(std::string_view k) {  // keys are fixed ASCII names
    item();
    o_ += '"';
    o_ += k;
    o_ += step_ >= 0 ? "\": " : "\":";
  }
  // A free-form subtree (extras, metadata): nlohmann's dump, indented to this depth.
  void value(const json& j) {
    std::string t = j.dump(step_, ' ', false, json::error_handler_t::replace);
    if (step_ < 0) {
      o_ += t;
      return;
    }
    const std::size_t pad = first_.size() * static_cast<std::size_t>(step_);
    for (char c : t) {
      o_ += c;
      if (c == '\n') o_.append(pad, ' ');
    }
  }
  template <class A>
  void floats(const A& a) {
    open('[');
    for (float f : a) {
      item();
      put_number(o_, f);
    }
    close(']');
  }

 private:
  void newline() {
    if (step_ < 0) return;
    o_ += '\n';
    o_.append(first_.size() * static_cast<std::size_t>(step_), ' ');
  }
  int step_;
  std::vector<bool> first_;
};

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

void put_track(writer& w, const track& t) {
  std::string& o = w.o_;
  w.open('{');
  w.key("bone");
  put_string(o, t.bone);
  w.key("interpolation");
  put_string(o, to_string(t.interpolation));
  w.key("path");
  put_string(o, to_string(t.path));
  w.key("times");
  w.floats(t.times);
  w.key("values");
  w.open('[');
  const std::size_t n = static_cast<std::size_t>(components(t.path));
  for (std::size_t i = 0; i + n <= t.values.size(); i += n) {
    w.item();
    w.floats(std::span<const float>(t.values.data() + i, n));
  }
  w.close(']');
  w.close('}');
}

void put_animation(writer& w, const animation& a) {
  std::string& o = w.o_;
  w.open('{');
  w.key("duration");
  put_number(o, a.duration);
  if (has(a.extras)) {
    w.key("extras");
    w.value(a.extras);
  }
  w.key("fps");
  if (a.fps) put_number(o, *a.fps);
  else o += "null";
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

// A rough size so the text is allocated about once: ~12 bytes per float.
std::size_t estimate(const scene& s) {
  std::size_t n = 4096;
  for (const auto& sk : s.skeletons) n += sk.bones.size() * 256;
  for (const auto& a : s.animations)
    for (const auto& t : a.tracks) n += 128 + (t.times.size() + t.values.size()) * 14;
  for (const auto& m : s.meshes)
    n += (m.positions.size() + m.normals.size() + m.tangents.size()) * 48 + m.indices.size() * 8 + m.joints.size() * 64;
  return n;
}
}  // namespace

void append_text(const scene& s, int indent, std::string& out) {
  out.reserve(out.size() + estimate(s));
  writer w(out, indent < 0 ? -1 : indent);
  w.open('{');
  w.key("animations");
  w.open('[');
  for (const auto& a : s.animations) {
    w.item();
    put_animation(w, a);
  }
  w.close(']');
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
