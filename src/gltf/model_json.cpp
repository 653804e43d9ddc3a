// tinygltf::Model -> glTF JSON text, member for member what tinygltf 2.7's serialiser
// writes (tiny_gltf.h, Serialize*), but printed directly: tinygltf builds an nlohmann DOM
// of the whole model, copies the binary buffer twice and prints the DOM, which was 41-65 %
// of a whole `convert`. Keys come out in the DOM's (sorted) order and numbers in its
// spelling, so the text matches tinygltf's except where its Grisu2 printed a longer
// spelling of the same double (tests/core/test_gltf_stream.cpp compares the two).
#include "gltf/model_json.hpp"

#include <algorithm>

#include "scene/json_out.hpp"

namespace rigrip::gltf::detail {
namespace {
namespace tg = tinygltf;
using json_out::put_int;
using json_out::put_number;
using json_out::put_string;

// tinygltf's test for "left at its default" (TINYGLTF_DOUBLE_EQUAL).
bool near(double a, double b) { return std::fabs(b - a) < 1e-12; }
bool near(const std::vector<double>& a, const std::vector<double>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (!near(a[i], b[i])) return false;
  return true;
}

class out {
 public:
  out(std::string& s, int indent) : w(s, indent < 0 ? -1 : indent), o(s) {}
  json_out::writer w;
  std::string& o;

  void num(std::string_view k, int v) { w.key(k), put_int(o, v); }
  void num(std::string_view k, std::size_t v) { w.key(k), put_int(o, v); }
  void num(std::string_view k, double v) { w.key(k), put_number(o, v); }
  void str(std::string_view k, std::string_view v) { w.key(k), put_string(o, v); }
  void boolean(std::string_view k, bool v) { w.key(k), o += v ? "true" : "false"; }
  void doubles(std::string_view k, const std::vector<double>& v) {  // left out when empty
    if (v.empty()) return;
    w.key(k);
    w.open('[');
    for (double d : v) w.item(), put_number(o, d);
    w.close(']');
  }
  template <class I>
  void ints(std::string_view k, const std::vector<I>& v) {  // left out when empty
    if (v.empty()) return;
    w.key(k);
    w.open('[');
    for (I i : v) w.item(), put_int(o, static_cast<int>(i));
    w.close(']');
  }
  void strings(std::string_view k, const std::vector<std::string>& v) {
    w.key(k);
    w.open('[');
    for (const auto& s : v) w.item(), put_string(o, s);
    w.close(']');
  }

  // tinygltf's ValueToJson: null and binary values are not written; an array or object
  // with nothing written inside is null.
  static bool written(const tg::Value& v) { return v.Type() != tg::NULL_TYPE && v.Type() != tg::BINARY_TYPE; }
  void value(const tg::Value& v) {
    switch (v.Type()) {
      case tg::REAL_TYPE: put_number(o, v.Get<double>()); break;
      case tg::INT_TYPE: put_int(o, v.Get<int>()); break;
      case tg::BOOL_TYPE: o += v.Get<bool>() ? "true" : "false"; break;
      case tg::STRING_TYPE: put_string(o, v.Get<std::string>()); break;
      case tg::ARRAY_TYPE: {
        const std::size_t at = o.size();
        w.open('[');
        for (const auto& e : v.Get<tg::Value::Array>())
          if (written(e)) w.item(), value(e);
        w.close_or_null(']', at);
        break;
      }
      case tg::OBJECT_TYPE: {
        const std::size_t at = o.size();
        w.open('{');
        for (const auto& [k, e] : v.Get<tg::Value::Object>())
          if (written(e)) w.key_escaped(k), value(e);
        w.close_or_null('}', at);
        break;
      }
      default: o += "null"; break;
    }
  }
  void extras(const tg::Value& v) {  // members that tinygltf writes when not NULL_TYPE
    if (!written(v)) return;
    w.key("extras");
    value(v);
  }
  // SerializeExtensionMap: an extension whose value prints as null is an empty object.
  // `extra` adds one more member (KHR_lights_punctual at the top level).
  template <class F>
  void extensions(const tg::ExtensionMap& m, std::string_view extra_key = {}, F&& extra = nullptr) {
    if (m.empty() && extra_key.empty()) return;
    w.key("extensions");
    w.open('{');
    bool extra_done = extra_key.empty();
    for (const auto& [k, v] : m) {
      if (!extra_done && extra_key < k) {
        w.key(extra_key), extra();
        extra_done = true;
      }
      if (!extra_done && extra_key == k) continue;  // the extra replaces a member of that name
      // (an unnamed extension that prints as null stays null; one not printed at all is left out)
      if (!written(v) && k.empty()) continue;
      w.key_escaped(k);
      if (!written(v) || (prints_null(v) && !k.empty())) o += "{}";
      else value(v);
    }
    if (!extra_done) w.key(extra_key), extra();
    w.close('}');
  }
  void extensions(const tg::ExtensionMap& m) { extensions(m, {}, [] {}); }
  static bool prints_null(const tg::Value& v) {
    if (v.Type() == tg::ARRAY_TYPE)
      return std::none_of(v.Get<tg::Value::Array>().begin(), v.Get<tg::Value::Array>().end(), written);
    if (v.Type() == tg::OBJECT_TYPE)
      return std::none_of(v.Get<tg::Value::Object>().begin(), v.Get<tg::Value::Object>().end(),
                          [](const auto& kv) { return written(kv.second); });
    return false;
  }

  // An object that may end up empty prints as null (a DOM value that was never assigned).
  template <class F>
  void object_or_null(F&& body) {
    const std::size_t at = o.size();
    w.open('{');
    body();
    w.close_or_null('}', at);
  }
  template <class F>
  void object(std::string_view k, F&& body) {
    w.key(k);
    w.open('{');
    body();
    w.close('}');
  }
  template <class T, class F>
  void array(std::string_view k, const std::vector<T>& v, F&& each) {  // left out when empty
    if (v.empty()) return;
    w.key(k);
    w.open('[');
    for (const auto& e : v) w.item(), each(e);
    w.close(']');
  }
};

const char* type_name(int t) {
  switch (t) {
    case TINYGLTF_TYPE_SCALAR: return "SCALAR";
    case TINYGLTF_TYPE_VEC2: return "VEC2";
    case TINYGLTF_TYPE_VEC3: return "VEC3";
    case TINYGLTF_TYPE_VEC4: return "VEC4";
    case TINYGLTF_TYPE_MAT2: return "MAT2";
    case TINYGLTF_TYPE_MAT3: return "MAT3";
    case TINYGLTF_TYPE_MAT4: return "MAT4";
    default: return "";
  }
}

void accessor(out& j, const tg::Accessor& a) {
  j.object_or_null([&] {
    if (a.bufferView >= 0) j.num("bufferView", a.bufferView);
    if (a.byteOffset != 0) j.num("byteOffset", static_cast<int>(a.byteOffset));
    j.num("componentType", a.componentType);
    j.num("count", a.count);
    j.extras(a.extras);
    const bool real = a.componentType == TINYGLTF_COMPONENT_TYPE_FLOAT || a.componentType == TINYGLTF_COMPONENT_TYPE_DOUBLE;
    auto bound = [&](std::string_view k, const std::vector<double>& v) {
      if (real) return j.doubles(k, v);
      if (v.empty()) return;
      j.w.key(k);
      j.w.open('[');
      for (double d : v) j.w.item(), put_int(j.o, static_cast<int>(d));
      j.w.close(']');
    };
    bound("max", a.maxValues);
    bound("min", a.minValues);
    if (!a.name.empty()) j.str("name", a.name);
    if (a.normalized) j.boolean("normalized", true);
    if (a.sparse.isSparse)
      j.object("sparse", [&] {
        j.num("count", a.sparse.count);
        j.object("indices", [&] {
          j.num("bufferView", a.sparse.indices.bufferView);
          j.num("byteOffset", a.sparse.indices.byteOffset);
          j.num("componentType", a.sparse.indices.componentType);
        });
        j.object("values", [&] {
          j.num("bufferView", a.sparse.values.bufferView);
          j.num("byteOffset", a.sparse.values.byteOffset);
        });
      });
    j.str("type", type_name(a.type));
  });
}

void animation(out& j, const tg::Animation& a) {
  j.object_or_null([&] {
    j.w.key("channels");
    std::size_t at = j.o.size();
    j.w.open('[');
    for (const auto& c : a.channels) {
      j.w.item();
      j.object_or_null([&] {
        j.extensions(c.extensions);
        j.extras(c.extras);
        j.num("sampler", c.sampler);
        j.object("target", [&] {
          j.extensions(c.target_extensions);
          // A KHR_animation_pointer target has no node (tinygltf writes -1; see the writer).
          if (c.target_node >= 0) j.num("node", c.target_node);
          j.str("path", c.target_path);
        });
      });
    }
    j.w.close_or_null(']', at);
    j.extensions(a.extensions);
    j.extras(a.extras);
    if (!a.name.empty()) j.str("name", a.name);
    j.w.key("samplers");
    at = j.o.size();
    j.w.open('[');
    for (const auto& s : a.samplers) {
      j.w.item();
      j.object_or_null([&] {
        j.extras(s.extras);
        j.num("input", s.input);
        j.str("interpolation", s.interpolation);
        j.num("output", s.output);
      });
    }
    j.w.close_or_null(']', at);
  });
}

template <class T>
void texture_info(out& j, std::string_view k, const T& t, const char* factor_key, double factor) {
  if (t.index <= -1) return;
  j.object(k, [&] {
    j.extensions(t.extensions);
    j.extras(t.extras);
    j.num("index", t.index);
    if (factor_key && !near(factor, 1.0)) j.num(factor_key, factor);
    if (t.texCoord != 0) j.num("texCoord", t.texCoord);
  });
}

void material(out& j, const tg::Material& m) {
  j.w.open('{');  // a material with every value at its default is {} (tinygltf issue 294)
  if (!near(m.alphaCutoff, 0.5)) j.num("alphaCutoff", m.alphaCutoff);
  if (m.alphaMode != "OPAQUE") j.str("alphaMode", m.alphaMode);
  if (m.doubleSided) j.boolean("doubleSided", true);
  if (!near(m.emissiveFactor, {0.0, 0.0, 0.0})) j.doubles("emissiveFactor", m.emissiveFactor);
  texture_info(j, "emissiveTexture", m.emissiveTexture, nullptr, 1.0);
  j.extensions(m.extensions);
  j.extras(m.extras);
  if (!m.name.empty()) j.str("name", m.name);
  texture_info(j, "normalTexture", m.normalTexture, "scale", m.normalTexture.scale);
  texture_info(j, "occlusionTexture", m.occlusionTexture, "strength", m.occlusionTexture.strength);
  const auto& p = m.pbrMetallicRoughness;
  const bool base = !near(p.baseColorFactor, {1.0, 1.0, 1.0, 1.0});
  // Left out when every value is at its default (tinygltf issue 204).
  if (base || p.baseColorTexture.index > -1 || !p.extensions.empty() || out::written(p.extras) ||
      !near(p.metallicFactor, 1.0) || p.metallicRoughnessTexture.index > -1 || !near(p.roughnessFactor, 1.0))
    j.object("pbrMetallicRoughness", [&] {
      if (base) j.doubles("baseColorFactor", p.baseColorFactor);
      texture_info(j, "baseColorTexture", p.baseColorTexture, nullptr, 1.0);
      j.extensions(p.extensions);
      j.extras(p.extras);
      if (!near(p.metallicFactor, 1.0)) j.num("metallicFactor", p.metallicFactor);
      texture_info(j, "metallicRoughnessTexture", p.metallicRoughnessTexture, nullptr, 1.0);
      if (!near(p.roughnessFactor, 1.0)) j.num("roughnessFactor", p.roughnessFactor);
    });
  j.w.close('}');
}

void mesh(out& j, const tg::Mesh& m) {
  j.object_or_null([&] {
    j.extensions(m.extensions);
    j.extras(m.extras);
    if (!m.name.empty()) j.str("name", m.name);
    j.w.key("primitives");
    const std::size_t at = j.o.size();
    j.w.open('[');
    for (const auto& p : m.primitives) {
      j.w.item();
      j.object_or_null([&] {
        j.w.key("attributes");
        const std::size_t aat = j.o.size();
        j.w.open('{');
        for (const auto& [k, v] : p.attributes) j.w.key_escaped(k), put_int(j.o, v);
        j.w.close_or_null('}', aat);
        j.extensions(p.extensions);
        j.extras(p.extras);
        if (p.indices > -1) j.num("indices", p.indices);
        if (p.material > -1) j.num("material", p.material);
        j.num("mode", p.mode);
        j.array("targets", p.targets, [&](const std::map<std::string, int>& t) {
          const std::size_t tat = j.o.size();
          j.w.open('{');
          for (const auto& [k, v] : t) j.w.key_escaped(k), put_int(j.o, v);
          j.w.close_or_null('}', tat);
        });
      });
    }
    j.w.close_or_null(']', at);
    j.doubles("weights", m.weights);
  });
}

void node(out& j, const tg::Node& n) {
  j.object_or_null([&] {
    if (n.camera != -1) j.num("camera", n.camera);
    j.ints("children", n.children);
    j.extensions(n.extensions);
    j.extras(n.extras);
    j.doubles("matrix", n.matrix);
    if (n.mesh != -1) j.num("mesh", n.mesh);
    if (!n.name.empty()) j.str("name", n.name);
    j.doubles("rotation", n.rotation);
    j.doubles("scale", n.scale);
    if (n.skin != -1) j.num("skin", n.skin);
    j.doubles("translation", n.translation);
    j.doubles("weights", n.weights);
  });
}

void camera(out& j, const tg::Camera& c) {
  j.object_or_null([&] {
    j.extensions(c.extensions);
    j.extras(c.extras);
    if (!c.name.empty()) j.str("name", c.name);
    if (c.type == "orthographic")
      j.object("orthographic", [&] {
        j.extras(c.orthographic.extras);
        j.num("xmag", c.orthographic.xmag);
        j.num("ymag", c.orthographic.ymag);
        j.num("zfar", c.orthographic.zfar);
        j.num("znear", c.orthographic.znear);
      });
    else if (c.type == "perspective")
      j.object("perspective", [&] {
        if (c.perspective.aspectRatio > 0) j.num("aspectRatio", c.perspective.aspectRatio);
        j.extras(c.perspective.extras);
        if (c.perspective.yfov > 0) j.num("yfov", c.perspective.yfov);
        j.num("zfar", c.perspective.zfar);
        j.num("znear", c.perspective.znear);
      });
    j.str("type", c.type);
  });
}

void light(out& j, const tg::Light& l) {
  j.object_or_null([&] {
    j.doubles("color", l.color);
    j.extensions(l.extensions);
    j.extras(l.extras);
    j.num("intensity", l.intensity);
    if (!l.name.empty()) j.str("name", l.name);
    if (l.range > 0.0) j.num("range", l.range);
    if (l.type == "spot")
      j.object("spot", [&] {
        j.extensions(l.spot.extensions);
        j.extras(l.spot.extras);
        j.num("innerConeAngle", l.spot.innerConeAngle);
        j.num("outerConeAngle", l.spot.outerConeAngle);
      });
    j.str("type", l.type);
  });
}

}  // namespace

std::string model_json(const tg::Model& m, int indent, std::string_view bin_uri) {
  std::string text;
  text.reserve(4096 + m.accessors.size() * 120 + m.nodes.size() * 160 + m.bufferViews.size() * 64 +
               m.animations.size() * 64);
  out j(text, indent);
  j.w.open('{');
  j.array("accessors", m.accessors, [&](const tg::Accessor& a) { accessor(j, a); });
  if (!m.animations.empty()) {  // animations without channels are left out
    j.w.key("animations");
    const std::size_t at = text.size();
    j.w.open('[');
    for (const auto& a : m.animations)
      if (!a.channels.empty()) j.w.item(), animation(j, a);
    j.w.close_or_null(']', at);
  }
  j.object("asset", [&] {
    if (!m.asset.copyright.empty()) j.str("copyright", m.asset.copyright);
    j.extensions(m.asset.extensions);
    if (!m.asset.extras.Keys().empty()) j.extras(m.asset.extras);
    if (!m.asset.generator.empty()) j.str("generator", m.asset.generator);
    j.str("version", m.asset.version.empty() ? std::string_view("2.0") : std::string_view(m.asset.version));
  });
  j.array("bufferViews", m.bufferViews, [&](const tg::BufferView& v) {
    j.object_or_null([&] {
      j.num("buffer", v.buffer);
      j.num("byteLength", v.byteLength);
      if (v.byteOffset > 0) j.num("byteOffset", v.byteOffset);
      if (v.byteStride >= 4) j.num("byteStride", v.byteStride);
      j.extras(v.extras);
      if (!v.name.empty()) j.str("name", v.name);
      if (v.target == TINYGLTF_TARGET_ARRAY_BUFFER || v.target == TINYGLTF_TARGET_ELEMENT_ARRAY_BUFFER)
        j.num("target", v.target);
    });
  });
  if (!m.buffers.empty()) {
    j.w.key("buffers");
    j.w.open('[');
    for (std::size_t i = 0; i < m.buffers.size(); ++i) {
      const auto& b = m.buffers[i];
      j.w.item();
      j.object_or_null([&] {
        j.num("byteLength", b.data.size());
        j.extras(b.extras);
        if (!b.name.empty()) j.str("name", b.name);
        if (i == 0 && b.uri.empty()) {
          if (!bin_uri.empty()) j.str("uri", bin_uri);
        } else if (!b.uri.empty()) {
          j.str("uri", b.uri);
        }
      });
    }
    j.w.close(']');
  }
  j.array("cameras", m.cameras, [&](const tg::Camera& c) { camera(j, c); });
  if (!m.lights.empty())
    j.extensions(m.extensions, "KHR_lights_punctual", [&] {
      j.w.open('{');
      j.w.key("lights");
      j.w.open('[');
      for (const auto& l : m.lights) j.w.item(), light(j, l);
      j.w.close(']');
      j.w.close('}');
    });
  else
    j.extensions(m.extensions);
  if (!m.extensionsRequired.empty()) j.strings("extensionsRequired", m.extensionsRequired);
  std::vector<std::string> used = m.extensionsUsed;
  if (!m.lights.empty() && std::find(used.begin(), used.end(), "KHR_lights_punctual") == used.end())
    used.push_back("KHR_lights_punctual");
  if (!used.empty()) j.strings("extensionsUsed", used);
  j.extras(m.extras);
  j.array("images", m.images, [&](const tg::Image& im) {
    j.object_or_null([&] {
      if (im.uri.empty()) j.num("bufferView", im.bufferView);
      j.extensions(im.extensions);
      j.extras(im.extras);
      if (im.uri.empty()) j.str("mimeType", im.mimeType);
      if (!im.name.empty()) j.str("name", im.name);
      if (!im.uri.empty()) j.str("uri", im.uri);
    });
  });
  j.array("materials", m.materials, [&](const tg::Material& mt) { material(j, mt); });
  j.array("meshes", m.meshes, [&](const tg::Mesh& me) { mesh(j, me); });
  j.array("nodes", m.nodes, [&](const tg::Node& n) { node(j, n); });
  j.array("samplers", m.samplers, [&](const tg::Sampler& s) {
    j.object_or_null([&] {
      j.extras(s.extras);
      if (s.magFilter != -1) j.num("magFilter", s.magFilter);
      if (s.minFilter != -1) j.num("minFilter", s.minFilter);
      j.num("wrapS", s.wrapS);
      j.num("wrapT", s.wrapT);
    });
  });
  if (m.defaultScene > -1) j.num("scene", m.defaultScene);
  j.array("scenes", m.scenes, [&](const tg::Scene& s) {
    j.object_or_null([&] {
      j.extensions(s.extensions);
      j.extras(s.extras);
      if (!s.name.empty()) j.str("name", s.name);
      j.ints("nodes", s.nodes);
    });
  });
  j.array("skins", m.skins, [&](const tg::Skin& s) {
    j.object_or_null([&] {
      if (s.inverseBindMatrices >= 0) j.num("inverseBindMatrices", s.inverseBindMatrices);
      j.ints("joints", s.joints);
      if (!s.name.empty()) j.str("name", s.name);
      if (s.skeleton >= 0) j.num("skeleton", s.skeleton);
    });
  });
  j.array("textures", m.textures, [&](const tg::Texture& t) {
    j.object_or_null([&] {
      j.extensions(t.extensions);
      j.extras(t.extras);
      if (!t.name.empty()) j.str("name", t.name);
      if (t.sampler > -1) j.num("sampler", t.sampler);
      if (t.source > -1) j.num("source", t.source);
    });
  });
  j.w.close('}');
  return text;
}

namespace {
// Writes the GLB's parts in order: the header and JSON chunk, then (bin_size > 0) the BIN
// chunk's header; `o` is reserved for `total` bytes by the caller.
void put_head(std::vector<std::uint8_t>& o, std::string_view json, std::size_t bin_size, std::size_t total) {
  const std::size_t jpad = (4 - json.size() % 4) % 4;
  auto u32 = [&](std::uint32_t v) {
    for (int i = 0; i < 4; ++i) o.push_back(static_cast<std::uint8_t>(v >> (8 * i)));
  };
  u32(0x46546C67);  // "glTF"
  u32(2);
  u32(static_cast<std::uint32_t>(total));
  u32(static_cast<std::uint32_t>(json.size() + jpad));
  u32(0x4E4F534A);  // "JSON"
  o.insert(o.end(), json.begin(), json.end());
  o.insert(o.end(), jpad, static_cast<std::uint8_t>(' '));
  if (bin_size) {
    u32(static_cast<std::uint32_t>(bin_size + glb_padding(bin_size)));
    u32(0x004E4942);  // "BIN\0"
  }
}
std::size_t glb_size(std::string_view json, std::size_t bin_size) {
  const std::size_t jpad = (4 - json.size() % 4) % 4;
  return 12 + 8 + json.size() + jpad + (bin_size == 0 ? 0 : 8 + bin_size + glb_padding(bin_size));
}
}  // namespace

// Appended into storage reserved once: each byte written once, no zero-fill of the whole
// output first (13 MB on a large animation).
std::vector<std::uint8_t> glb(std::string_view json, std::span<const std::uint8_t> bin) {
  const std::size_t total = glb_size(json, bin.size());
  std::vector<std::uint8_t> o;
  o.reserve(total);
  put_head(o, json, bin.size(), total);
  if (!bin.empty()) {
    o.insert(o.end(), bin.begin(), bin.end());
    o.insert(o.end(), glb_padding(bin.size()), std::uint8_t{0});
  }
  return o;
}

std::vector<std::uint8_t> glb_head(std::string_view json, std::size_t bin_size) {
  const std::size_t total = glb_size(json, bin_size);
  std::vector<std::uint8_t> o;
  o.reserve(total - (bin_size ? bin_size + glb_padding(bin_size) : 0));
  put_head(o, json, bin_size, total);
  return o;
}

}  // namespace rigrip::gltf::detail
