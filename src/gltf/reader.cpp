// glTF 2.0 -> scene model, for the write-back paths (`rigrip pack`). Skeletons come
// from skins (or, without skins, from the animated node hierarchy); the root node
// rigrip adds is recognised by its extras and not turned into a bone.
#include <algorithm>
#include <cctype>
#include <optional>
#include <string>
#include <cmath>
#include <cstring>
#include <functional>
#include <map>
#include <set>

#include <tiny_gltf.h>

#include "core/math.hpp"
#include "rigrip/gltf.hpp"
#include "scene/json_limits.hpp"

namespace rigrip::gltf {
namespace {
using nlohmann::json;
namespace tg = tinygltf;

json from_value(const tg::Value& v) {
  switch (v.Type()) {
    case tg::BOOL_TYPE: return v.Get<bool>();
    case tg::INT_TYPE: return v.Get<int>();
    case tg::REAL_TYPE: return v.Get<double>();
    case tg::STRING_TYPE: return v.Get<std::string>();
    case tg::ARRAY_TYPE: {
      json a = json::array();
      for (std::size_t i = 0; i < v.ArrayLen(); ++i) a.push_back(from_value(v.Get(static_cast<int>(i))));
      return a;
    }
    case tg::OBJECT_TYPE: {
      json o = json::object();
      for (const auto& k : v.Keys()) o[k] = from_value(v.Get(k));
      return o;
    }
    default: return nullptr;
  }
}

// ---- structure check ------------------------------------------------------------------
// Everything the loader and convert() would index or allocate is checked here, on the
// parsed JSON, before tinygltf sees the file: indices against their arrays, the node
// graph as a forest, accessor sizes against their bufferViews, uris inside the folder.
struct reject {
  rigrip::code c;
  std::string message;
};
[[noreturn]] void fail(const std::string& m, rigrip::code c = code::gltf_error) { throw reject{c, m}; }

// Bytes a bufferless accessor may expand to: generous for real sparse/zero accessors,
// but bounded by the input so a small file cannot ask for gigabytes.
std::uint64_t bufferless_limit(std::size_t input_size) { return 1u << 20 | static_cast<std::uint64_t>(input_size) * 16; }
// A base64 `data:` uri decodes to at most this many bytes.
constexpr std::size_t max_data_uri = 64u << 20;

const json& array_of(const json& g, const char* key) {
  static const json empty = json::array();
  if (!g.contains(key)) return empty;
  const json& a = g[key];
  if (!a.is_array()) fail(std::string(key) + " must be an array");
  for (std::size_t i = 0; i < a.size(); ++i)
    if (!a[i].is_object()) fail(std::string(key) + "[" + std::to_string(i) + "] must be an object");
  return a;
}

// Optional index `key` of object `o` (named `where`) into an array of `n` elements.
std::int64_t index_of(const json& o, const char* key, std::size_t n, const std::string& where, const char* what) {
  if (!o.contains(key)) return -1;
  const json& v = o[key];
  if (!v.is_number_integer()) fail(where + "." + key + " must be an integer index");
  const bool neg = v.is_number_integer() && !v.is_number_unsigned() && v.get<std::int64_t>() < 0;
  if (neg || v.get<std::uint64_t>() >= n)
    fail(where + "." + key + ": " + what + " " + v.dump() + " out of range (" + std::to_string(n) + " " + what + "s)");
  return v.get<std::int64_t>();
}
void index_value(const json& v, std::size_t n, const std::string& where, const char* what) {
  if (!v.is_number_integer()) fail(where + " must be an integer index");
  if ((!v.is_number_unsigned() && v.get<std::int64_t>() < 0) || v.get<std::uint64_t>() >= n)
    fail(where + ": " + what + " " + v.dump() + " out of range (" + std::to_string(n) + " " + what + "s)");
}
std::uint64_t uint_of(const json& o, const char* key, const std::string& where, std::uint64_t def) {
  if (!o.contains(key)) return def;
  const json& v = o[key];
  if (!v.is_number_unsigned() && !(v.is_number_integer() && v.get<std::int64_t>() >= 0))
    fail(where + "." + key + " must be a non-negative integer");
  return v.get<std::uint64_t>();
}

// A uri must name a file inside the glTF's own folder (or be a bounded data: uri).
void check_uri(const json& o, const std::string& where) {
  if (!o.contains("uri")) return;
  if (!o["uri"].is_string()) fail(where + ".uri must be a string");
  const std::string u = o["uri"].get<std::string>();
  if (u.rfind("data:", 0) == 0) {
    if (u.size() > max_data_uri / 3 * 4 + 256) fail(where + ".uri: data: uri larger than " + std::to_string(max_data_uri >> 20) + " MiB");
    return;
  }
  // Percent escapes are decoded by the loader; decode them here too before judging.
  std::string p;
  for (std::size_t i = 0; i < u.size(); ++i) {
    if (u[i] == '%' && i + 2 < u.size() && std::isxdigit(static_cast<unsigned char>(u[i + 1])) &&
        std::isxdigit(static_cast<unsigned char>(u[i + 2]))) {
      p += static_cast<char>(std::stoi(u.substr(i + 1, 2), nullptr, 16));
      i += 2;
    } else {
      p += u[i];
    }
  }
  bool bad = p.empty() || p[0] == '/' || p[0] == '\\' || p.find(':') != std::string::npos ||
             p.find('\0') != std::string::npos;
  for (std::size_t s = 0; !bad && s <= p.size();) {
    std::size_t e = p.find_first_of("/\\", s);
    if (e == std::string::npos) e = p.size();
    if (p.compare(s, e - s, "..") == 0) bad = true;
    s = e + 1;
  }
  if (bad) fail(where + ".uri must name a file inside the glTF's folder (no absolute path, no '..', no scheme)");
}

int components_of(const std::string& type) {
  static const std::map<std::string, int> t{{"SCALAR", 1}, {"VEC2", 2}, {"VEC3", 3}, {"VEC4", 4},
                                            {"MAT2", 4},   {"MAT3", 9}, {"MAT4", 16}};
  auto it = t.find(type);
  return it == t.end() ? 0 : it->second;
}
int component_size(std::int64_t ct) {
  switch (ct) {
    case 5120: case 5121: return 1;
    case 5122: case 5123: return 2;
    case 5125: case 5126: return 4;
    default: return 0;
  }
}

// The top-level arrays of a glTF document (empty arrays where absent).
struct top_arrays {
  const json& nodes;
  const json& accessors;
  const json& views;
  const json& buffers;
  const json& skins;
  const json& meshes;
  const json& anims;
  const json& images;
  const json& textures;
  const json& samplers;
  const json& materials;
  const json& scenes;
  const json& cameras;
};

// Buffers: their byte lengths, checked against the GLB binary chunk where they use it.
std::vector<std::uint64_t> check_buffers(const top_arrays& t, std::optional<std::uint64_t> bin_size) {
  const json& buffers = t.buffers;
  std::vector<std::uint64_t> buffer_len(buffers.size());
  for (std::size_t i = 0; i < buffers.size(); ++i) {
    const std::string w = "buffers[" + std::to_string(i) + "]";
    buffer_len[i] = uint_of(buffers[i], "byteLength", w, 0);
    check_uri(buffers[i], w);
    if (!buffers[i].contains("uri")) {
      if (i != 0 || !bin_size) fail(w + " has no uri and no GLB binary chunk");
      if (buffer_len[i] > *bin_size) fail(w + ".byteLength " + std::to_string(buffer_len[i]) + " exceeds the GLB binary chunk (" + std::to_string(*bin_size) + " bytes)");
    }
  }
  return buffer_len;
}

// Buffer views inside their buffers: their lengths and strides.
struct view_sizes {
  std::vector<std::uint64_t> len, stride;
};
view_sizes check_views(const top_arrays& t, const std::vector<std::uint64_t>& buffer_len) {
  const json& views = t.views;
  const json& buffers = t.buffers;
  view_sizes s{std::vector<std::uint64_t>(views.size()), std::vector<std::uint64_t>(views.size())};
  auto& view_len = s.len;
  auto& view_stride = s.stride;
  for (std::size_t i = 0; i < views.size(); ++i) {
    const std::string w = "bufferViews[" + std::to_string(i) + "]";
    if (!views[i].contains("buffer")) fail(w + ".buffer is missing");
    const auto b = static_cast<std::size_t>(index_of(views[i], "buffer", buffers.size(), w, "buffer"));
    const std::uint64_t off = uint_of(views[i], "byteOffset", w, 0), len = uint_of(views[i], "byteLength", w, 0);
    if (off > buffer_len[b] || len > buffer_len[b] - off)
      fail(w + ": bytes " + std::to_string(off) + "+" + std::to_string(len) + " outside buffer " + std::to_string(b) + " (" + std::to_string(buffer_len[b]) + " bytes)");
    view_len[i] = len;
    view_stride[i] = uint_of(views[i], "byteStride", w, 0);
    if (view_stride[i] > 252) fail(w + ".byteStride " + std::to_string(view_stride[i]) + " above 252");
  }
  return s;
}

// Accessors inside their views; accessors without a view may not expand a small file hugely.
void check_accessors(const top_arrays& t, const view_sizes& vs, std::size_t input_size) {
  const json& accessors = t.accessors;
  const json& views = t.views;
  const auto& view_len = vs.len;
  const auto& view_stride = vs.stride;
  std::uint64_t bufferless = 0;
  for (std::size_t i = 0; i < accessors.size(); ++i) {
    const json& a = accessors[i];
    const std::string w = "accessors[" + std::to_string(i) + "]";
    const int nc = a.contains("type") && a["type"].is_string() ? components_of(a["type"].get<std::string>()) : 0;
    if (!nc) fail(w + ".type must be SCALAR, VEC2..4 or MAT2..4");
    const int cs = a.contains("componentType") && a["componentType"].is_number_integer() ? component_size(a["componentType"].get<std::int64_t>()) : 0;
    if (!cs) fail(w + ".componentType is not a glTF component type");
    if (!a.contains("count")) fail(w + ".count is missing");
    const std::uint64_t count = uint_of(a, "count", w, 0);
    const std::uint64_t elem = static_cast<std::uint64_t>(nc) * static_cast<std::uint64_t>(cs);
    if (count > (std::uint64_t{1} << 40) / elem) fail(w + ".count " + std::to_string(count) + " is not a plausible size");
    const std::int64_t v = index_of(a, "bufferView", views.size(), w, "bufferView");
    const std::uint64_t off = uint_of(a, "byteOffset", w, 0);
    if (v < 0) {
      bufferless += count * elem;
      if (bufferless > bufferless_limit(input_size))
        fail(w + ": count " + std::to_string(count) + " without a bufferView would expand a " + std::to_string(input_size) +
             "-byte file to " + std::to_string(bufferless) + " bytes",
             code::limit_exceeded);
    } else if (count) {
      const std::uint64_t stride = view_stride[static_cast<std::size_t>(v)] ? view_stride[static_cast<std::size_t>(v)] : elem;
      const std::uint64_t len = view_len[static_cast<std::size_t>(v)];
      if (off > len || elem > len - off || count - 1 > (len - off - elem) / stride)
        fail(w + ": " + std::to_string(count) + " elements of " + std::to_string(elem) + " bytes do not fit bufferView " +
             std::to_string(v) + " (" + std::to_string(len) + " bytes)",
             code::bad_count);
    }
    if (a.contains("sparse")) {
      const json& sp = a["sparse"];
      if (!sp.is_object()) fail(w + ".sparse must be an object");
      for (const char* k : {"indices", "values"}) {
        if (!sp.contains(k) || !sp[k].is_object()) fail(w + ".sparse." + k + " must be an object");
        index_of(sp[k], "bufferView", views.size(), w + ".sparse." + k, "bufferView");
      }
      if (uint_of(sp, "count", w + ".sparse", 0) > count) fail(w + ".sparse.count exceeds the accessor's count");
    }
  }
}

void check_images_textures_materials(const top_arrays& t) {
  const json& views = t.views;
  const json& images = t.images;
  const json& textures = t.textures;
  const json& samplers = t.samplers;
  const json& materials = t.materials;
  for (std::size_t i = 0; i < images.size(); ++i) {
    const std::string w = "images[" + std::to_string(i) + "]";
    index_of(images[i], "bufferView", views.size(), w, "bufferView");
    check_uri(images[i], w);
  }
  for (std::size_t i = 0; i < textures.size(); ++i) {
    const std::string w = "textures[" + std::to_string(i) + "]";
    index_of(textures[i], "source", images.size(), w, "image");
    index_of(textures[i], "sampler", samplers.size(), w, "sampler");
  }
  for (std::size_t i = 0; i < materials.size(); ++i) {
    const std::string w = "materials[" + std::to_string(i) + "]";
    auto tex = [&](const json& o, const char* key, const std::string& ww) {
      if (!o.contains(key)) return;
      if (!o[key].is_object()) fail(ww + "." + key + " must be an object");
      index_of(o[key], "index", textures.size(), ww + "." + key, "texture");
    };
    for (const char* k : {"normalTexture", "occlusionTexture", "emissiveTexture"}) tex(materials[i], k, w);
    if (materials[i].contains("pbrMetallicRoughness")) {
      const json& p = materials[i]["pbrMetallicRoughness"];
      if (!p.is_object()) fail(w + ".pbrMetallicRoughness must be an object");
      for (const char* k : {"baseColorTexture", "metallicRoughnessTexture"}) tex(p, k, w + ".pbrMetallicRoughness");
    }
  }
}

void check_meshes_skins_scenes(const top_arrays& t) {
  const json& nodes = t.nodes;
  const json& accessors = t.accessors;
  const json& meshes = t.meshes;
  const json& materials = t.materials;
  const json& skins = t.skins;
  const json& scenes = t.scenes;
  for (std::size_t i = 0; i < meshes.size(); ++i) {
    const std::string w = "meshes[" + std::to_string(i) + "]";
    const json& prims = array_of(meshes[i], "primitives");
    for (std::size_t k = 0; k < prims.size(); ++k) {
      const std::string wp = w + ".primitives[" + std::to_string(k) + "]";
      const json& p = prims[k];
      index_of(p, "indices", accessors.size(), wp, "accessor");
      index_of(p, "material", materials.size(), wp, "material");
      auto attrs = [&](const json& o, const std::string& wa) {
        if (!o.is_object()) fail(wa + " must be an object");
        for (const auto& [key, val] : o.items()) index_value(val, accessors.size(), wa + "." + key, "accessor");
      };
      if (p.contains("attributes")) attrs(p["attributes"], wp + ".attributes");
      const json& targets = array_of(p, "targets");
      for (std::size_t t = 0; t < targets.size(); ++t) attrs(targets[t], wp + ".targets[" + std::to_string(t) + "]");
    }
  }
  for (std::size_t i = 0; i < skins.size(); ++i) {
    const std::string w = "skins[" + std::to_string(i) + "]";
    index_of(skins[i], "skeleton", nodes.size(), w, "node");
    index_of(skins[i], "inverseBindMatrices", accessors.size(), w, "accessor");
    if (!skins[i].contains("joints") || !skins[i]["joints"].is_array()) fail(w + ".joints must be an array");
    const json& j = skins[i]["joints"];
    for (std::size_t k = 0; k < j.size(); ++k) index_value(j[k], nodes.size(), w + ".joints[" + std::to_string(k) + "]", "node");
  }
  for (std::size_t i = 0; i < scenes.size(); ++i) {
    const std::string w = "scenes[" + std::to_string(i) + "]";
    if (!scenes[i].contains("nodes")) continue;
    if (!scenes[i]["nodes"].is_array()) fail(w + ".nodes must be an array");
    const json& n = scenes[i]["nodes"];
    for (std::size_t k = 0; k < n.size(); ++k) index_value(n[k], nodes.size(), w + ".nodes[" + std::to_string(k) + "]", "node");
  }
}

// The node graph: every index in range, one parent at most, no cycle.
void check_node_graph(const top_arrays& t) {
  const json& nodes = t.nodes;
  const json& meshes = t.meshes;
  const json& skins = t.skins;
  const json& cameras = t.cameras;
  std::vector<std::int64_t> parent(nodes.size(), -1);
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    const std::string w = "nodes[" + std::to_string(i) + "]";
    index_of(nodes[i], "mesh", meshes.size(), w, "mesh");
    index_of(nodes[i], "skin", skins.size(), w, "skin");
    index_of(nodes[i], "camera", cameras.size(), w, "camera");
    for (const char* k : {"translation", "rotation", "scale", "matrix"}) {
      if (!nodes[i].contains(k)) continue;
      const json& v = nodes[i][k];
      const std::size_t want = k[0] == 'm' ? 16 : k[0] == 'r' ? 4 : 3;
      if (!v.is_array() || v.size() != want) fail(w + "." + k + " must be an array of " + std::to_string(want) + " numbers");
      for (const auto& x : v)
        if (!x.is_number()) fail(w + "." + k + " must be an array of " + std::to_string(want) + " numbers");
    }
    if (!nodes[i].contains("children")) continue;
    if (!nodes[i]["children"].is_array()) fail(w + ".children must be an array");
    const json& c = nodes[i]["children"];
    for (std::size_t k = 0; k < c.size(); ++k) {
      const std::string wc = w + ".children[" + std::to_string(k) + "]";
      index_value(c[k], nodes.size(), wc, "node");
      const auto child = c[k].get<std::size_t>();
      if (child == i) fail("node " + std::to_string(i) + " is its own child: the node graph must be a forest", code::invalid_scene);
      if (parent[child] >= 0)
        fail("node " + std::to_string(child) + " has two parents (nodes " + std::to_string(parent[child]) + " and " +
                 std::to_string(i) + "): the node graph must be a forest",
             code::invalid_scene);
      parent[child] = static_cast<std::int64_t>(i);
    }
  }
  // With one parent each, a walk longer than the node count is a cycle.
  std::vector<char> state(nodes.size(), 0);  // 0 unknown, 1 on the current walk, 2 reaches a root
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    std::size_t n = i;
    std::vector<std::size_t> walk;
    while (state[n] == 0) {
      state[n] = 1;
      walk.push_back(n);
      if (parent[n] < 0) break;
      n = static_cast<std::size_t>(parent[n]);
    }
    if (state[n] == 1 && parent[n] >= 0)
      fail("node " + std::to_string(n) + " is its own ancestor (a cycle in the node graph): the node graph must be a forest",
           code::invalid_scene);
    for (auto w : walk) state[w] = 2;
  }
}

void check_animations(const top_arrays& t) {
  const json& nodes = t.nodes;
  const json& accessors = t.accessors;
  const json& anims = t.anims;
  for (std::size_t i = 0; i < anims.size(); ++i) {
    const std::string w = "animations[" + std::to_string(i) + "]";
    const json& smp = array_of(anims[i], "samplers");
    for (std::size_t k = 0; k < smp.size(); ++k) {
      const std::string ws = w + ".samplers[" + std::to_string(k) + "]";
      for (const char* key : {"input", "output"}) {
        if (!smp[k].contains(key)) fail(ws + "." + key + " is missing");
        index_of(smp[k], key, accessors.size(), ws, "accessor");
      }
    }
    const json& ch = array_of(anims[i], "channels");
    for (std::size_t k = 0; k < ch.size(); ++k) {
      const std::string wc = w + ".channels[" + std::to_string(k) + "]";
      if (!ch[k].contains("sampler")) fail(wc + ".sampler is missing");
      index_of(ch[k], "sampler", smp.size(), wc, "sampler");
      if (!ch[k].contains("target") || !ch[k]["target"].is_object()) fail(wc + ".target must be an object");
      index_of(ch[k]["target"], "node", nodes.size(), wc + ".target", "node");
    }
  }
}

void check_structure(const json& g, std::size_t input_size, std::optional<std::uint64_t> bin_size) {
  if (!g.is_object()) fail("the top level must be an object");
  if (!g.contains("asset") || !g["asset"].is_object()) fail("asset must be an object");
  // (evaluated in this order: the first malformed array is the one named)
  const top_arrays t{array_of(g, "nodes"),    array_of(g, "accessors"), array_of(g, "bufferViews"),
                     array_of(g, "buffers"),  array_of(g, "skins"),     array_of(g, "meshes"),
                     array_of(g, "animations"), array_of(g, "images"),  array_of(g, "textures"),
                     array_of(g, "samplers"), array_of(g, "materials"), array_of(g, "scenes"),
                     array_of(g, "cameras")};
  index_of(g, "scene", t.scenes.size(), "scene", "scene");
  const view_sizes vs = check_views(t, check_buffers(t, bin_size));
  check_accessors(t, vs, input_size);
  check_images_textures_materials(t);
  check_meshes_skins_scenes(t);
  check_node_graph(t);
  check_animations(t);
}

// One line, whatever the library said.
std::string one_line(std::string s) {
  for (auto& c : s)
    if (c == '\n' || c == '\r') c = ' ';
  while (!s.empty() && s.back() == ' ') s.pop_back();
  if (s.size() > 300) s = s.substr(0, 300) + "...";
  return s;
}

// Reads an accessor as floats (normalised integer types are converted per the spec).
std::vector<float> read_floats(const tg::Model& m, int accessor_index, int* ncomp_out) {
  if (accessor_index < 0 || static_cast<std::size_t>(accessor_index) >= m.accessors.size())
    fail("accessor index " + std::to_string(accessor_index) + " out of range");
  const auto& a = m.accessors[static_cast<std::size_t>(accessor_index)];
  int ncomp = tg::GetNumComponentsInType(static_cast<std::uint32_t>(a.type));
  int csize = tg::GetComponentSizeInBytes(static_cast<std::uint32_t>(a.componentType));
  if (ncomp <= 0 || csize <= 0) fail("accessor " + std::to_string(accessor_index) + " has an unsupported type");
  if (ncomp_out) *ncomp_out = ncomp;
  std::vector<float> out;
  if (a.bufferView < 0) {
    out.assign(a.count * static_cast<std::size_t>(ncomp), 0.0f);
    return out;
  }
  if (static_cast<std::size_t>(a.bufferView) >= m.bufferViews.size()) fail("accessor " + std::to_string(accessor_index) + ": bufferView out of range");
  const auto& bv = m.bufferViews[static_cast<std::size_t>(a.bufferView)];
  if (bv.buffer < 0 || static_cast<std::size_t>(bv.buffer) >= m.buffers.size()) fail("bufferView " + std::to_string(a.bufferView) + ": buffer out of range");
  const auto& buf = m.buffers[static_cast<std::size_t>(bv.buffer)];
  std::size_t stride = bv.byteStride ? bv.byteStride : static_cast<std::size_t>(ncomp * csize);
  std::size_t start = bv.byteOffset + a.byteOffset;
  std::size_t elem = static_cast<std::size_t>(ncomp * csize);
  if (a.count && (start > buf.data.size() || (a.count - 1) > (buf.data.size() - start) / stride ||
                  start + (a.count - 1) * stride + elem > buf.data.size() ||
                  start + (a.count - 1) * stride + elem > bv.byteOffset + bv.byteLength))
    fail("accessor " + std::to_string(accessor_index) + " reads outside its buffer");
  out.reserve(a.count * static_cast<std::size_t>(ncomp));
  for (std::size_t i = 0; i < a.count; ++i) {
    const std::uint8_t* p = buf.data.data() + start + i * stride;
    for (int c = 0; c < ncomp; ++c) {
      const std::uint8_t* q = p + c * csize;
      float f = 0;
      switch (a.componentType) {
        case TINYGLTF_COMPONENT_TYPE_FLOAT: std::memcpy(&f, q, 4); break;
        case TINYGLTF_COMPONENT_TYPE_BYTE: f = std::max(static_cast<std::int8_t>(*q) / 127.0f, -1.0f); break;
        case TINYGLTF_COMPONENT_TYPE_UNSIGNED_BYTE: f = a.normalized ? *q / 255.0f : *q; break;
        case TINYGLTF_COMPONENT_TYPE_SHORT: {
          std::int16_t s;
          std::memcpy(&s, q, 2);
          f = a.normalized ? std::max(s / 32767.0f, -1.0f) : s;
          break;
        }
        case TINYGLTF_COMPONENT_TYPE_UNSIGNED_SHORT: {
          std::uint16_t s;
          std::memcpy(&s, q, 2);
          f = a.normalized ? s / 65535.0f : s;
          break;
        }
        case TINYGLTF_COMPONENT_TYPE_UNSIGNED_INT: {
          std::uint32_t s;
          std::memcpy(&s, q, 4);
          f = static_cast<float>(s);
          break;
        }
        default: fail("accessor " + std::to_string(accessor_index) + " has an unsupported component type");
      }
      out.push_back(f);
    }
  }
  return out;
}

bool is_rigrip_root(const tg::Node& n) {
  return n.extras.IsObject() && (n.extras.Has("rigrip_root") || n.extras.Has("rigrip_skeleton"));
}

// The helper node the writer puts between a parent and a segment-scale-compensating bone.
bool is_ssc_helper(const tg::Node& n) { return n.extras.IsObject() && n.extras.Has("rigrip_ssc_helper"); }

void local_trs(const tg::Node& n, bone& b) {
  if (n.matrix.size() == 16) {
    // Decompose T * R * S (no shear expected in skeletons).
    const auto& mm = n.matrix;
    b.translation = {static_cast<float>(mm[12]), static_cast<float>(mm[13]), static_cast<float>(mm[14])};
    vec3 sc;
    for (int c = 0; c < 3; ++c)
      sc[static_cast<std::size_t>(c)] = static_cast<float>(std::sqrt(mm[c * 4] * mm[c * 4] + mm[c * 4 + 1] * mm[c * 4 + 1] + mm[c * 4 + 2] * mm[c * 4 + 2]));
    b.scale = sc;
    double r[3][3];
    for (int c = 0; c < 3; ++c)
      for (int rr = 0; rr < 3; ++rr)
        r[rr][c] = sc[static_cast<std::size_t>(c)] > 0 ? mm[static_cast<std::size_t>(c * 4 + rr)] / sc[static_cast<std::size_t>(c)] : 0;
    b.rotation = core::from_rotation_matrix(r);
    return;
  }
  if (n.translation.size() == 3)
    b.translation = {static_cast<float>(n.translation[0]), static_cast<float>(n.translation[1]), static_cast<float>(n.translation[2])};
  if (n.rotation.size() == 4)
    b.rotation = core::normalize({static_cast<float>(n.rotation[0]), static_cast<float>(n.rotation[1]),
                                  static_cast<float>(n.rotation[2]), static_cast<float>(n.rotation[3])});
  if (n.scale.size() == 3)
    b.scale = {static_cast<float>(n.scale[0]), static_cast<float>(n.scale[1]), static_cast<float>(n.scale[2])};
}

// What the writer added for players, taken back so that `pack` gets the source's clip: the
// full name of a clip cut to 63 bytes, the hold keys at time 0 ("hold_key_at_0": every key at 0
// is the writer's, since no track had one), and an additive clip applied onto the rest pose
// ("additive_applied": t - t_rest, r_rest^-1 * r, s / s_rest, tangents alike but translation's).
void undo_writer_keys(animation& a, json& ex, const skeleton& sk) {
  if (ex.contains("name") && ex["name"].is_string()) {
    a.name = ex["name"].get<std::string>();
    ex.erase("name");
  }
  if (ex.value("hold_key_at_0", false)) {
    for (auto& t : a.tracks) {
      const std::size_t n = t.elements_per_key() * static_cast<std::size_t>(components(t.path));
      if (t.times.size() > 1 && t.times.front() == 0.0f && t.values.size() >= n) {
        t.times.erase(t.times.begin());
        t.values.erase(t.values.begin(), t.values.begin() + static_cast<std::ptrdiff_t>(n));
      }
    }
    ex.erase("hold_key_at_0");
  }
  if (ex.contains("additive_applied") && ex.value("additive", false)) {
    for (auto& t : a.tracks) {
      const int bi = sk.find(t.bone);
      if (bi < 0) continue;
      const auto& b = sk.bones[static_cast<std::size_t>(bi)];
      const std::size_t e = t.elements_per_key(), c = static_cast<std::size_t>(components(t.path));
      const quat inv = core::conjugate(core::normalize(b.rotation));
      for (std::size_t k = 0; k * e * c + e * c <= t.values.size(); ++k)
        for (std::size_t el = 0; el < e; ++el) {
          float* v = &t.values[(k * e + el) * c];
          if (t.path == path::translation) {
            if (e != 3 || el == 1)
              for (std::size_t i = 0; i < 3; ++i) v[i] -= b.translation[i];
          } else if (t.path == path::rotation) {
            const quat r = core::multiply(inv, quat{v[0], v[1], v[2], v[3]});
            std::copy(r.begin(), r.end(), v);
          } else {
            for (std::size_t i = 0; i < 3; ++i)
              if (b.scale[i] != 0.0f) v[i] /= b.scale[i];
          }
        }
    }
    ex.erase("additive_applied");
  }
}

// Meshes: every triangle primitive of every node with a mesh (the writer's "bone_display" and
// "camera_display" for mesh-less scenes excepted). Skinned primitives keep their joints, mapped through
// the skin to the skeleton read above; the others get their node's transform up to the
// rigrip root baked in (source units). Materials keep their name, colour and flags.
void read_meshes(const tg::Model& m, const std::vector<int>& parent,
                 const std::map<int, std::pair<int, int>>& node_to_bone, scene& s, diagnostics& diags) {
  std::map<int, int> material_of;
  auto scene_material = [&](int gi) {
    if (gi < 0 || static_cast<std::size_t>(gi) >= m.materials.size()) return -1;
    if (auto it = material_of.find(gi); it != material_of.end()) return it->second;
    const auto& gm = m.materials[static_cast<std::size_t>(gi)];
    material mt;
    mt.name = gm.name;
    const auto& f = gm.pbrMetallicRoughness.baseColorFactor;
    if (f.size() == 4) mt.base_color = {static_cast<float>(f[0]), static_cast<float>(f[1]), static_cast<float>(f[2]), static_cast<float>(f[3])};
    mt.double_sided = gm.doubleSided;
    if (gm.alphaMode == "MASK") mt.alpha_mode = material::alpha::mask, mt.alpha_cutoff = static_cast<float>(gm.alphaCutoff);
    if (gm.alphaMode == "BLEND") mt.alpha_mode = material::alpha::blend;
    mt.unlit = gm.extensions.count("KHR_materials_unlit") > 0;
    s.materials.push_back(mt);
    return material_of[gi] = static_cast<int>(s.materials.size() - 1);
  };
  for (std::size_t ni = 0; ni < m.nodes.size(); ++ni) {
    const auto& node = m.nodes[ni];
    if (node.mesh < 0) continue;
    if (static_cast<std::size_t>(node.mesh) >= m.meshes.size()) throw std::runtime_error("mesh index out of range");
    const auto& gm = m.meshes[static_cast<std::size_t>(node.mesh)];
    if (gm.name == "bone_display" || gm.name == "camera_display") continue;
    // The node's transform below the rigrip root (ignored for skinned meshes, as in glTF).
    core::mat4 world = core::identity();
    for (int n = static_cast<int>(ni); n >= 0 && !is_rigrip_root(m.nodes[static_cast<std::size_t>(n)]); n = parent[static_cast<std::size_t>(n)]) {
      bone b;
      local_trs(m.nodes[static_cast<std::size_t>(n)], b);
      world = core::multiply(core::compose(b.translation, b.rotation, b.scale), world);
    }
    for (std::size_t pi = 0; pi < gm.primitives.size(); ++pi) {
      const auto& prim = gm.primitives[pi];
      if (prim.mode != -1 && prim.mode != TINYGLTF_MODE_TRIANGLES) {
        diags.warn(code::w_lossy, "mesh '" + gm.name + "': a primitive that is not a triangle list is skipped");
        continue;
      }
      auto attr = [&](const char* name) {
        auto it = prim.attributes.find(name);
        return it == prim.attributes.end() ? -1 : it->second;
      };
      if (attr("POSITION") < 0) continue;
      mesh me;
      me.name = gm.primitives.size() > 1 ? gm.name + "_" + std::to_string(pi) : gm.name;
      int nc = 0;
      auto pos = read_floats(m, attr("POSITION"), &nc);
      if (nc != 3) throw std::runtime_error("POSITION is not a VEC3");
      const std::size_t nv = pos.size() / 3;
      for (std::size_t v = 0; v < nv; ++v) me.positions.push_back({pos[v * 3], pos[v * 3 + 1], pos[v * 3 + 2]});
      if (attr("NORMAL") >= 0) {
        auto n = read_floats(m, attr("NORMAL"), &nc);
        if (nc == 3 && n.size() == nv * 3)
          for (std::size_t v = 0; v < nv; ++v) me.normals.push_back({n[v * 3], n[v * 3 + 1], n[v * 3 + 2]});
      }
      if (attr("TANGENT") >= 0 && !me.normals.empty()) {
        auto t = read_floats(m, attr("TANGENT"), &nc);
        if (nc == 4 && t.size() == nv * 4)
          for (std::size_t v = 0; v < nv; ++v)
            me.tangents.push_back({t[v * 4], t[v * 4 + 1], t[v * 4 + 2], t[v * 4 + 3] < 0 ? -1.0f : 1.0f});
      }
      if (attr("TEXCOORD_0") >= 0) {
        auto t = read_floats(m, attr("TEXCOORD_0"), &nc);
        if (nc == 2 && t.size() == nv * 2)
          for (std::size_t v = 0; v < nv; ++v) me.uvs.push_back({t[v * 2], t[v * 2 + 1]});
      }
      if (attr("COLOR_0") >= 0) {
        auto c = read_floats(m, attr("COLOR_0"), &nc);
        if ((nc == 3 || nc == 4) && c.size() == nv * static_cast<std::size_t>(nc))
          for (std::size_t v = 0; v < nv; ++v)
            me.colors.push_back({c[v * nc], c[v * nc + 1], c[v * nc + 2], nc == 4 ? c[v * nc + 3] : 1.0f});
      }
      bool skinned = false;
      if (node.skin >= 0 && static_cast<std::size_t>(node.skin) < m.skins.size() && attr("JOINTS_0") >= 0 && attr("WEIGHTS_0") >= 0) {
        const auto& joints = m.skins[static_cast<std::size_t>(node.skin)].joints;
        auto j = read_floats(m, attr("JOINTS_0"), &nc);
        int nw = 0;
        auto w = read_floats(m, attr("WEIGHTS_0"), &nw);
        if (nc == 4 && nw == 4 && j.size() == nv * 4 && w.size() == nv * 4) {
          skinned = true;
          for (std::size_t v = 0; v < nv; ++v) {
            std::array<std::uint16_t, 4> jj{0, 0, 0, 0};
            vec4 ww{0, 0, 0, 0};
            for (std::size_t k = 0; k < 4; ++k) {
              float jf = j[v * 4 + k];
              if (!(jf >= 0) || jf >= static_cast<float>(joints.size())) throw std::runtime_error("JOINTS_0 beyond the skin's joints");
              auto ji = static_cast<std::size_t>(jf);
              auto it = node_to_bone.find(joints[ji]);
              if (it == node_to_bone.end()) throw std::runtime_error("skin joint outside the skeletons");
              me.skeleton = it->second.first;
              jj[k] = static_cast<std::uint16_t>(it->second.second);
              ww[k] = w[v * 4 + k];
            }
            me.joints.push_back(jj);
            me.weights.push_back(ww);
          }
        }
      }
      if (!skinned) {
        for (auto& p : me.positions) {
          vec3 q{world[0] * p[0] + world[4] * p[1] + world[8] * p[2] + world[12],
                 world[1] * p[0] + world[5] * p[1] + world[9] * p[2] + world[13],
                 world[2] * p[0] + world[6] * p[1] + world[10] * p[2] + world[14]};
          p = q;
        }
        for (auto& n : me.normals) {  // the normal matrix of a rotation + uniform scale
          vec3 q{world[0] * n[0] + world[4] * n[1] + world[8] * n[2], world[1] * n[0] + world[5] * n[1] + world[9] * n[2],
                 world[2] * n[0] + world[6] * n[1] + world[10] * n[2]};
          float l = std::sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2]);
          n = l > 0 ? vec3{q[0] / l, q[1] / l, q[2] / l} : vec3{0, 1, 0};
        }
        for (auto& t : me.tangents) {  // along the surface: the same rotation (uniform scale renormalised)
          vec3 q{world[0] * t[0] + world[4] * t[1] + world[8] * t[2], world[1] * t[0] + world[5] * t[1] + world[9] * t[2],
                 world[2] * t[0] + world[6] * t[1] + world[10] * t[2]};
          float l = std::sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2]);
          t = l > 0 ? vec4{q[0] / l, q[1] / l, q[2] / l, t[3]} : vec4{1, 0, 0, t[3]};
        }
      }
      if (prim.indices >= 0) {
        auto ix = read_floats(m, prim.indices, &nc);
        for (float f : ix) {
          if (!(f >= 0) || f >= static_cast<float>(nv)) throw std::runtime_error("index beyond the primitive's vertices");
          me.indices.push_back(static_cast<std::uint32_t>(f));
        }
      }
      me.material = scene_material(prim.material);
      if (gm.extras.IsObject()) me.extras = from_value(gm.extras);
      s.meshes.push_back(std::move(me));
    }
  }
}

// Each node's parent (-1 for roots); a node with two parents is refused.
std::vector<int> node_parents(const tg::Model& m) {
  const std::size_t nn = m.nodes.size();
  std::vector<int> parent(nn, -1);
  for (std::size_t i = 0; i < nn; ++i)
    for (int c : m.nodes[i].children) {
      if (c < 0 || static_cast<std::size_t>(c) >= nn) fail("node " + std::to_string(i) + ": child index out of range");
      if (parent[static_cast<std::size_t>(c)] != -1) fail("node " + std::to_string(c) + " has two parents", code::invalid_scene);
      parent[static_cast<std::size_t>(c)] = static_cast<int>(i);
    }
  return parent;
}

// Joint sets: one per skin; without skins, every animated node and its ancestors.
std::vector<std::vector<int>> joint_sets(const tg::Model& m, const std::vector<int>& parent) {
  const std::size_t nn = m.nodes.size();
  std::vector<std::vector<int>> sets;
  for (const auto& sk : m.skins) sets.push_back(sk.joints);
  if (sets.empty()) {
    std::set<int> nodes;
    for (const auto& a : m.animations)
      for (const auto& c : a.channels)
        for (int n = c.target_node; n >= 0 && static_cast<std::size_t>(n) < nn && !is_rigrip_root(m.nodes[static_cast<std::size_t>(n)]);
             n = parent[static_cast<std::size_t>(n)])
          if (!is_ssc_helper(m.nodes[static_cast<std::size_t>(n)])) nodes.insert(n);
    if (!nodes.empty()) sets.emplace_back(nodes.begin(), nodes.end());
  }
  return sets;
}

// Where the skeletons' bones came from in the node graph.
struct bone_nodes {
  std::map<int, std::pair<int, int>> node_to_bone;  // node -> (skeleton, bone)
  std::map<int, int> helper_to_bone_node;           // SSC helper node -> its bone's node
};

// One skeleton per joint set; SSC helper nodes are folded back into their bones.
bone_nodes read_skeletons(const tg::Model& m, const std::vector<int>& parent, const std::vector<std::vector<int>>& sets,
                          scene& s) {
  const std::size_t nn = m.nodes.size();
  bone_nodes bn;
  auto& node_to_bone = bn.node_to_bone;
  auto& helper_to_bone_node = bn.helper_to_bone_node;
  for (std::size_t si = 0; si < sets.size(); ++si) {
    std::set<int> in(sets[si].begin(), sets[si].end());
    // Order joints so parents come first (depth, then original order).
    auto depth = [&](int n) {
      int d = 0;
      for (int p = parent[static_cast<std::size_t>(n)]; p >= 0 && d <= static_cast<int>(nn); p = parent[static_cast<std::size_t>(p)]) ++d;
      return d;
    };
    std::vector<int> order;
    for (int j : sets[si])
      if (j >= 0 && static_cast<std::size_t>(j) < nn && std::find(order.begin(), order.end(), j) == order.end()) order.push_back(j);
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return depth(a) < depth(b); });
    skeleton sk;
    sk.name = si < m.skins.size() ? m.skins[si].name : "skeleton";
    std::map<int, int> index;
    std::set<std::string> names;
    for (int n : order) {
      bone b;
      b.name = m.nodes[static_cast<std::size_t>(n)].name;
      if (b.name.empty()) b.name = "bone_" + std::to_string(sk.bones.size());
      std::string base = b.name;
      for (int k = 1; !names.insert(b.name).second; ++k) b.name = base + "_" + std::to_string(k);
      int p = parent[static_cast<std::size_t>(n)];
      while (p >= 0 && !in.count(p)) p = parent[static_cast<std::size_t>(p)];
      b.parent = p >= 0 && index.count(p) ? index[p] : -1;
      local_trs(m.nodes[static_cast<std::size_t>(n)], b);
      const int gp = parent[static_cast<std::size_t>(n)];
      if (gp >= 0 && is_ssc_helper(m.nodes[static_cast<std::size_t>(gp)])) {
        // Fold the helper back: its translation is the bone's, its scale is derived.
        bone h;
        local_trs(m.nodes[static_cast<std::size_t>(gp)], h);
        for (std::size_t k = 0; k < 3; ++k) b.translation[k] = h.translation[k] + h.scale[k] * b.translation[k];
        b.segment_scale_compensate = true;
        helper_to_bone_node[gp] = n;
      }
      if (m.nodes[static_cast<std::size_t>(n)].extras.IsObject()) b.extras = from_value(m.nodes[static_cast<std::size_t>(n)].extras);
      index[n] = static_cast<int>(sk.bones.size());
      node_to_bone[n] = {static_cast<int>(si), static_cast<int>(sk.bones.size())};
      sk.bones.push_back(std::move(b));
    }
    s.skeletons.push_back(std::move(sk));
  }
  return bn;
}

void read_animations(const tg::Model& m, const bone_nodes& bn, scene& s, diagnostics& diags) {
  const auto& node_to_bone = bn.node_to_bone;
  const auto& helper_to_bone_node = bn.helper_to_bone_node;
  for (const auto& ga : m.animations) {
    animation a;
    a.name = ga.name;
    json ex = ga.extras.IsObject() ? from_value(ga.extras) : json::object();
    int skel = -1;
    double max_t = 0;
    for (const auto& ch : ga.channels) {
      if (ch.target_path == "pointer") {  // KHR_animation_pointer (material animation): not read back
        diags.warn(code::w_lossy, "animation '" + ga.name + "': a KHR_animation_pointer channel is not read back; skipped");
        continue;
      }
      int target = ch.target_node;
      if (auto h = helper_to_bone_node.find(target); h != helper_to_bone_node.end()) {
        if (ch.target_path == "scale") continue;  // 1/parent scale: derived, not data
        if (ch.target_path != "translation") {
          diags.warn(code::w_lossy, "animation '" + ga.name + "' animates the " + ch.target_path +
                                        " of segment-scale-compensation helper node " + std::to_string(target) + "; skipped");
          continue;
        }
        target = h->second;
      } else if (ch.target_path == "translation" &&
                 std::any_of(helper_to_bone_node.begin(), helper_to_bone_node.end(),
                             [&](const auto& e) { return e.second == target; })) {
        diags.warn(code::w_lossy, "animation '" + ga.name + "' animates the translation of node " + std::to_string(target) +
                                      ", whose translation lives on its segment-scale-compensation helper; skipped");
        continue;
      }
      auto it = node_to_bone.find(target);
      if (it == node_to_bone.end()) {
        diags.warn(code::w_missing_bone, "animation '" + ga.name + "' targets node " +
                                             std::to_string(ch.target_node) + " outside any skeleton; skipped");
        continue;
      }
      auto p = path_from_string(ch.target_path);
      if (!p) continue;  // morph weights are not part of the scene model
      if (skel < 0) skel = it->second.first;
      if (it->second.first != skel) {
        diags.warn(code::w_lossy, "animation '" + ga.name + "' spans several skeletons; extra channels skipped");
        continue;
      }
      if (ch.sampler < 0 || static_cast<std::size_t>(ch.sampler) >= ga.samplers.size())
        fail("animation '" + ga.name + "': sampler index out of range");
      const auto& smp = ga.samplers[static_cast<std::size_t>(ch.sampler)];
      track t;
      t.bone = s.skeletons[static_cast<std::size_t>(skel)].bones[static_cast<std::size_t>(it->second.second)].name;
      t.path = *p;
      auto in = interpolation_from_string(smp.interpolation.empty() ? "LINEAR" : smp.interpolation);
      t.interpolation = in ? *in : interpolation::linear;
      t.times = read_floats(m, smp.input, nullptr);
      int nc = 0;
      t.values = read_floats(m, smp.output, &nc);
      if (nc != components(t.path)) fail("animation '" + ga.name + "': output accessor has the wrong type for " + ch.target_path);
      if (!t.times.empty()) max_t = std::max(max_t, static_cast<double>(t.times.back()));
      a.tracks.push_back(std::move(t));
    }
    if (skel < 0) continue;
    a.skeleton = skel;
    undo_writer_keys(a, ex, s.skeletons[static_cast<std::size_t>(skel)]);
    a.duration = ex.contains("duration") && ex["duration"].is_number() ? std::max(ex["duration"].get<double>(), max_t) : max_t;
    if (ex.contains("source_fps") && ex["source_fps"].is_number()) a.fps = ex["source_fps"].get<double>();
    for (const char* k : {"duration", "source_fps", "source_format", "skeleton"}) ex.erase(k);
    a.extras = ex;
    s.animations.push_back(std::move(a));
  }
}

// Undo the writer's size conversion so `pack` gets source units.
void undo_units_scale(scene& s, float units_scale) {
  for (auto& sk : s.skeletons)
    for (auto& b : sk.bones)
      for (auto& c : b.translation) c /= units_scale;
  for (auto& a : s.animations)
    for (auto& t : a.tracks)
      if (t.path == path::translation)
        for (auto& v : t.values) v /= units_scale;
  for (auto& me : s.meshes)
    for (auto& p : me.positions)
      for (auto& c : p) c /= units_scale;
}

scene convert(const tg::Model& m, diagnostics& diags) {
  scene s;
  float units_scale = 1;  // the writer's size conversion, undone so `pack` gets source units
  s.format = "gltf";
  if (m.asset.extras.IsObject()) {
    json ax = from_value(m.asset.extras);
    if (ax.contains("source_format") && ax["source_format"].is_string())
      s.metadata["source_format"] = ax["source_format"];
    if (ax.contains("source_metadata")) s.metadata["source_metadata"] = ax["source_metadata"];
    if (ax.contains("units_scale") && ax["units_scale"].is_number() && ax["units_scale"].get<double>() > 0)
      units_scale = ax["units_scale"].get<float>();
  }
  const std::vector<int> parent = node_parents(m);
  const bone_nodes bn = read_skeletons(m, parent, joint_sets(m, parent), s);
  read_meshes(m, parent, bn.node_to_bone, s, diags);
  read_animations(m, bn, s, diags);
  if (units_scale != 1) undo_units_scale(s, units_scale);
  return s;
}
}  // namespace

result<scene> read(byte_view data, const std::string& name, diagnostics& diags,
                   const std::function<result<bytes>(const std::string&)>& load) {
  tg::TinyGLTF loader;
  // Images are not decoded here: the scene's textures are not needed for write-back.
  loader.SetImageLoader([](tg::Image*, const int, std::string*, std::string*, int, int,
                           const unsigned char*, int, void*) { return true; }, nullptr);
  tg::FsCallbacks fs = {};
  fs.FileExists = [](const std::string& p, void* user) {
    auto* l = static_cast<const std::function<result<bytes>(const std::string&)>*>(user);
    return l && *l && (*l)(p).ok();
  };
  fs.ExpandFilePath = [](const std::string& p, void*) { return p; };
  fs.ReadWholeFile = [](std::vector<unsigned char>* out, std::string* err, const std::string& p, void* user) {
    auto* l = static_cast<const std::function<result<bytes>(const std::string&)>*>(user);
    if (!l || !*l) {
      if (err) *err = "no file access";
      return false;
    }
    auto r = (*l)(p);
    if (!r) {
      if (err) *err = r.error().message;
      return false;
    }
    *out = std::move(r.value());
    return true;
  };
  fs.WriteWholeFile = [](std::string*, const std::string&, const std::vector<unsigned char>&, void*) { return false; };
  fs.user_data = const_cast<void*>(static_cast<const void*>(&load));
  loader.SetFsCallbacks(fs);
  // Find the JSON (and the GLB binary chunk's size) to check before the loader runs.
  byte_view text = data;
  std::optional<std::uint64_t> bin_size;
  const bool glb = data.size() >= 4 && std::memcmp(data.data(), "glTF", 4) == 0;
  if (glb) {
    auto u32 = [&](std::size_t o) {
      std::uint32_t v;
      std::memcpy(&v, data.data() + o, 4);
      return v;
    };
    if (data.size() < 20) return make_error(code::truncated, "GLB header needs 20 bytes", data.size(), name);
    const std::uint32_t jlen = u32(12);
    if (std::memcmp(data.data() + 16, "JSON", 4) != 0) return make_error(code::bad_magic, "GLB first chunk must be JSON", 16, name);
    if (jlen > data.size() - 20) return make_error(code::truncated, "GLB JSON chunk runs past the end of the file", 12, name);
    text = data.subspan(20, jlen);
    const std::size_t next = 20 + ((static_cast<std::size_t>(jlen) + 3) & ~std::size_t{3});
    if (next + 8 <= data.size() && std::memcmp(data.data() + next + 4, "BIN\0", 4) == 0) {
      std::uint32_t blen = u32(next);
      bin_size = std::min<std::uint64_t>(blen, data.size() - next - 8);
    }
  }
  if (auto deep = json_limits::too_deep(text))
    return make_error(code::limit_exceeded, "glTF JSON nested deeper than " + std::to_string(json_limits::max_depth) + " levels",
                      *deep + (glb ? 20 : 0), name);
  try {
    const json g = json::parse(text.begin(), text.end());
    check_structure(g, data.size(), bin_size);
  } catch (const json::parse_error& e) {
    return make_error(code::gltf_error, "expected valid glTF JSON", (e.byte > 0 ? e.byte - 1 : 0) + (glb ? 20 : 0), name);
  } catch (const json::exception&) {
    return make_error(code::gltf_error, "expected valid glTF JSON (a value of the wrong type)", no_offset, name);
  } catch (const reject& r) {
    return make_error(r.c, "glTF " + r.message, no_offset, name);
  }
  tg::Model model;
  std::string err, warn;
  bool ok;
  std::string base_dir;
  auto slash = name.find_last_of('/');
  if (slash != std::string::npos) base_dir = name.substr(0, slash);
  try {
    if (glb)
      ok = loader.LoadBinaryFromMemory(&model, &err, &warn, data.data(), static_cast<unsigned int>(data.size()), base_dir);
    else
      ok = loader.LoadASCIIFromString(&model, &err, &warn, reinterpret_cast<const char*>(data.data()),
                                      static_cast<unsigned int>(data.size()), base_dir);
  } catch (const std::bad_alloc&) {
    return make_error(code::gltf_error, "glTF loader ran out of memory", no_offset, name);
  } catch (const std::exception&) {
    return make_error(code::gltf_error, "glTF loader failed on a malformed value", no_offset, name);
  }
  if (!ok) return make_error(code::gltf_error, "glTF could not be loaded: " + one_line(err), no_offset, name);
  try {
    return convert(model, diags);
  } catch (const reject& r) {
    return make_error(r.c, "glTF " + r.message, no_offset, name);
  } catch (const std::bad_alloc&) {
    return make_error(code::gltf_error, "glTF structure needs more memory than is available", no_offset, name);
  } catch (const std::exception&) {
    return make_error(code::gltf_error, "glTF structure could not be converted", no_offset, name);
  }
}

}  // namespace rigrip::gltf
