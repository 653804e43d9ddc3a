// The streaming glTF serialiser (gltf/model_json.cpp) against tinygltf's own
// (WriteGltfSceneToStream), which the writer used before: the same JSON values when parsed
// and the same binary chunk byte for byte, on a hand-built model that sets every member
// tinygltf writes (cameras, lights, sparse accessors, extensions, the null quirks of empty
// extras) and on every shared sample written as .glb and as .gltf + .bin.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <optional>
#include <sstream>

#include <tiny_gltf.h>

#include "gltf/model_json.hpp"
#include "rigrip/gltf.hpp"
#include "rigrip/registry.hpp"
#include "decoded_samples.hpp"
#include "test_support.hpp"

using namespace rigrip;
using nlohmann::json;
namespace tg = tinygltf;

namespace {

std::uint32_t u32(const std::vector<std::uint8_t>& b, std::size_t at) {
  return static_cast<std::uint32_t>(b[at]) | static_cast<std::uint32_t>(b[at + 1]) << 8 |
         static_cast<std::uint32_t>(b[at + 2]) << 16 | static_cast<std::uint32_t>(b[at + 3]) << 24;
}

struct glb_parts {
  json doc;
  std::vector<std::uint8_t> bin;
};
// Splits a GLB, checking its header, chunk lengths, alignment and padding.
glb_parts split(const std::vector<std::uint8_t>& b) {
  glb_parts p;
  EXPECT_GE(b.size(), 20u);
  if (b.size() < 20) return p;
  EXPECT_EQ(u32(b, 0), 0x46546C67u);
  EXPECT_EQ(u32(b, 4), 2u);
  EXPECT_EQ(u32(b, 8), b.size());
  const std::uint32_t jl = u32(b, 12);
  EXPECT_EQ(u32(b, 16), 0x4E4F534Au);
  EXPECT_EQ(jl % 4, 0u);
  EXPECT_LE(20u + jl, b.size());
  if (20u + jl > b.size()) return p;
  p.doc = json::parse(b.begin() + 20, b.begin() + 20 + jl);
  const std::size_t at = 20 + jl;
  if (at < b.size()) {
    const std::uint32_t bl = u32(b, at);
    EXPECT_EQ(u32(b, at + 4), 0x004E4942u);
    EXPECT_EQ(bl % 4, 0u);
    EXPECT_EQ(at + 8 + bl, b.size());
    p.bin.assign(b.begin() + static_cast<std::ptrdiff_t>(at + 8), b.end());
  }
  return p;
}

// tinygltf's GLB of a model: its JSON chunk parsed, its BIN chunk.
glb_parts tinygltf_glb(tg::Model m) {
  tg::TinyGLTF g;
  std::ostringstream os;
  EXPECT_TRUE(g.WriteGltfSceneToStream(&m, os, false, true));
  const std::string s = os.str();
  return split(std::vector<std::uint8_t>(s.begin(), s.end()));
}

tg::Value obj(std::initializer_list<std::pair<const std::string, tg::Value>> kv) { return tg::Value(tg::Value::Object(kv)); }

// A model setting every member tinygltf 2.7 writes, most away from their defaults.
tg::Model full_model() {
  tg::Model m;
  m.asset.version = "2.0";
  m.asset.generator = "rigrip test";
  m.asset.copyright = "c \"quoted\" \\ \n\t\x01 caf\xc3\xa9";
  m.asset.extras = obj({{"n", tg::Value(1)}, {"empty_array", tg::Value(tg::Value::Array())},
                        {"empty_object", tg::Value(tg::Value::Object())}, {"null", tg::Value()},
                        {"nested", tg::Value(tg::Value::Array{tg::Value(), tg::Value(2.5), tg::Value(std::string("s")),
                                                              tg::Value(true), tg::Value(tg::Value::Array{tg::Value()})})},
                        {"real", tg::Value(0.1)}, {"big", tg::Value(1e300)}, {"neg0", tg::Value(-0.0)}});
  m.buffers.resize(1);
  m.buffers[0].data = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11};  // not a multiple of 4
  m.buffers[0].name = "buf";
  for (int i = 0; i < 3; ++i) {
    tg::BufferView v;
    v.buffer = 0;
    v.byteOffset = static_cast<std::size_t>(i) * 4;
    v.byteLength = 4;
    if (i == 1) v.target = TINYGLTF_TARGET_ARRAY_BUFFER, v.byteStride = 4, v.name = "view";
    if (i == 2) v.target = TINYGLTF_TARGET_ELEMENT_ARRAY_BUFFER, v.extras = tg::Value(7);
    m.bufferViews.push_back(v);
  }
  tg::Accessor a;
  a.bufferView = 0;
  a.componentType = TINYGLTF_COMPONENT_TYPE_FLOAT;
  a.type = TINYGLTF_TYPE_SCALAR;
  a.count = 1;
  a.minValues = {0.1f};
  a.maxValues = {1e-7f};
  m.accessors.push_back(a);
  a.componentType = TINYGLTF_COMPONENT_TYPE_UNSIGNED_SHORT;
  a.type = TINYGLTF_TYPE_VEC2;
  a.minValues = {1.7, -2.2};
  a.maxValues = {3, 4};
  a.normalized = true;
  a.byteOffset = 4;
  a.name = "normalized";
  a.extras = obj({{"k", tg::Value(std::string("v"))}});
  m.accessors.push_back(a);
  tg::Accessor sp;
  sp.componentType = TINYGLTF_COMPONENT_TYPE_FLOAT;
  sp.type = TINYGLTF_TYPE_MAT4;
  sp.count = 2;
  sp.sparse.isSparse = true;
  sp.sparse.count = 1;
  sp.sparse.indices.bufferView = 2;
  sp.sparse.indices.componentType = TINYGLTF_COMPONENT_TYPE_UNSIGNED_BYTE;
  sp.sparse.values.bufferView = 1;
  m.accessors.push_back(sp);
  for (int t : {TINYGLTF_TYPE_VEC3, TINYGLTF_TYPE_VEC4, TINYGLTF_TYPE_MAT2, TINYGLTF_TYPE_MAT3}) {
    tg::Accessor x;
    x.bufferView = 1;
    x.componentType = TINYGLTF_COMPONENT_TYPE_UNSIGNED_INT;
    x.type = t;
    x.count = 0;
    m.accessors.push_back(x);
  }

  tg::Animation an;
  an.name = "clip";
  tg::AnimationSampler as;
  as.input = 0;
  as.output = 0;
  as.interpolation = "STEP";
  as.extras = tg::Value(1.5);
  an.samplers.push_back(as);
  tg::AnimationChannel ch;
  ch.sampler = 0;
  ch.target_node = 1;
  ch.target_path = "rotation";
  ch.extras = obj({{"a", tg::Value(1)}});
  ch.extensions["EXT_x"] = tg::Value();
  ch.target_extensions["EXT_t"] = obj({{"b", tg::Value(false)}});
  an.channels.push_back(ch);
  an.extras = tg::Value(tg::Value::Array());
  an.extensions["EXT_anim"] = tg::Value(tg::Value::Array());
  m.animations.push_back(an);
  m.animations.push_back(tg::Animation{});  // no channels: left out
  tg::Animation unnamed;
  unnamed.channels.push_back(ch);
  m.animations.push_back(unnamed);

  tg::Image im;
  im.name = "img";
  im.mimeType = "image/png";
  im.bufferView = 0;
  im.extras = tg::Value(std::string("x"));
  m.images.push_back(im);
  tg::Image noname;
  noname.mimeType = "image/png";
  noname.bufferView = 1;
  m.images.push_back(noname);

  tg::Sampler s1;
  s1.magFilter = TINYGLTF_TEXTURE_FILTER_NEAREST;
  s1.minFilter = TINYGLTF_TEXTURE_FILTER_LINEAR_MIPMAP_LINEAR;
  s1.wrapS = TINYGLTF_TEXTURE_WRAP_CLAMP_TO_EDGE;
  m.samplers.push_back(s1);
  m.samplers.push_back(tg::Sampler{});
  tg::Texture tex;
  tex.source = 0;
  tex.sampler = 0;
  tex.name = "tex";
  m.textures.push_back(tex);
  m.textures.push_back(tg::Texture{});  // every member at its default: null (as tinygltf prints it)

  tg::Material mt;
  mt.name = "mat";
  mt.alphaMode = "MASK";
  mt.alphaCutoff = 0.25;
  mt.doubleSided = true;
  mt.emissiveFactor = {0.5, 0, 0};
  mt.emissiveTexture.index = 0;
  mt.emissiveTexture.texCoord = 1;
  mt.normalTexture.index = 0;
  mt.normalTexture.scale = 0.5;
  mt.occlusionTexture.index = 0;
  mt.occlusionTexture.strength = 0.75;
  mt.occlusionTexture.extras = tg::Value(3);
  mt.pbrMetallicRoughness.baseColorFactor = {0.8, 0.2, 0.1, 1};
  mt.pbrMetallicRoughness.metallicFactor = 0;
  mt.pbrMetallicRoughness.roughnessFactor = 0.5;
  mt.pbrMetallicRoughness.baseColorTexture.index = 0;
  mt.pbrMetallicRoughness.metallicRoughnessTexture.index = 0;
  mt.extensions["KHR_materials_unlit"] = tg::Value(tg::Value::Object());
  mt.extras = obj({{"normal_texture", obj({{"index", tg::Value(0)}})}});
  m.materials.push_back(mt);
  m.materials.push_back(tg::Material{});  // all defaults: {}
  tg::Material only_pbr;
  only_pbr.pbrMetallicRoughness.metallicFactor = 0;
  m.materials.push_back(only_pbr);

  tg::Mesh me;
  me.name = "mesh";
  tg::Primitive p;
  p.attributes["POSITION"] = 0;
  p.attributes["TEXCOORD_0"] = 1;
  p.attributes["JOINTS_0"] = 2;
  p.indices = 2;
  p.material = 0;
  p.mode = TINYGLTF_MODE_TRIANGLES;
  p.targets.push_back({{"POSITION", 0}});
  p.targets.push_back({});
  p.extras = obj({{"e", tg::Value(1)}});
  me.primitives.push_back(p);
  me.primitives.push_back(tg::Primitive{});  // no attributes: null, mode -1
  me.weights = {0.5, 0.25};
  me.extras = tg::Value(false);
  m.meshes.push_back(me);
  m.meshes.push_back(tg::Mesh{});  // no primitives: null

  tg::Node root;
  root.name = "root";
  root.rotation = {0, 0, 0.70710678118654757, 0.70710678118654757};
  root.scale = {0.01, 0.01, 0.01};
  root.children = {1, 2};
  root.extras = obj({{"rigrip_root", tg::Value(true)}});
  m.nodes.push_back(root);
  tg::Node bone;
  bone.name = "b\xe2\x82\xac";
  bone.translation = {1e-5, 1e16, 123456792.0};
  bone.matrix = {};
  bone.weights = {1};
  bone.extensions["EXT_n"] = tg::Value(5);
  m.nodes.push_back(bone);
  tg::Node mn;
  mn.mesh = 0;
  mn.skin = 0;
  mn.camera = 0;
  mn.matrix = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
  m.nodes.push_back(mn);
  m.nodes.push_back(tg::Node{});  // nothing set: null

  tg::Skin sk;
  sk.name = "skin";
  sk.joints = {1};
  sk.inverseBindMatrices = 2;
  sk.skeleton = 0;
  m.skins.push_back(sk);
  m.skins.push_back(tg::Skin{});

  tg::Camera pc;
  pc.type = "perspective";
  pc.name = "cam";
  pc.perspective.yfov = 0.8;
  pc.perspective.aspectRatio = 1.5;
  pc.perspective.znear = 0.01;
  pc.perspective.zfar = 1000;
  pc.extras = tg::Value(1);
  m.cameras.push_back(pc);
  tg::Camera oc;
  oc.type = "orthographic";
  oc.orthographic.xmag = 2;
  oc.orthographic.ymag = 3;
  oc.orthographic.znear = 0.5;
  oc.orthographic.zfar = 50;
  oc.extensions["EXT_c"] = obj({});
  m.cameras.push_back(oc);
  tg::Camera perspective_defaults;
  perspective_defaults.type = "perspective";
  m.cameras.push_back(perspective_defaults);

  tg::Light l;
  l.name = "sun";
  l.type = "spot";
  l.color = {1, 0.5, 0.25};
  l.intensity = 3;
  l.range = 10;
  l.spot.innerConeAngle = 0.1;
  m.lights.push_back(l);
  tg::Light pl;
  pl.type = "point";
  m.lights.push_back(pl);

  tg::Scene sc;
  sc.name = "scene";
  sc.nodes = {0, 2};
  sc.extras = tg::Value(2);
  m.scenes.push_back(sc);
  m.scenes.push_back(tg::Scene{});
  m.defaultScene = 0;
  m.extensions["EXT_top"] = obj({{"a", tg::Value(1)}});
  m.extensions["KHR_z_after_lights"] = tg::Value(2);
  m.extensionsUsed = {"KHR_materials_unlit"};
  m.extensionsRequired = {"KHR_materials_unlit"};
  m.extras = obj({{"top", tg::Value(std::string("x"))}});
  return m;
}

bool same_json(const json& a, const json& b, std::string* where, const std::string& at = "") {
  if (a.is_number() && b.is_number()) {
    if (a.get<double>() == b.get<double>()) return true;
    *where = at + ": " + a.dump() + " vs " + b.dump();
    return false;
  }
  if (a.type() != b.type()) {
    *where = at + ": " + a.dump().substr(0, 200) + " vs " + b.dump().substr(0, 200);
    return false;
  }
  if (a.is_object()) {
    if (a.size() != b.size()) {
      *where = at + ": keys " + std::to_string(a.size()) + " vs " + std::to_string(b.size());
      return false;
    }
    for (auto it = a.begin(); it != a.end(); ++it) {
      if (!b.contains(it.key())) {
        *where = at + ": missing " + it.key();
        return false;
      }
      if (!same_json(it.value(), b[it.key()], where, at + "." + it.key())) return false;
    }
    return true;
  }
  if (a.is_array()) {
    if (a.size() != b.size()) {
      *where = at + ": size " + std::to_string(a.size()) + " vs " + std::to_string(b.size());
      return false;
    }
    for (std::size_t i = 0; i < a.size(); ++i)
      if (!same_json(a[i], b[i], where, at + "[" + std::to_string(i) + "]")) return false;
    return true;
  }
  if (a != b) {
    *where = at + ": " + a.dump() + " vs " + b.dump();
    return false;
  }
  return true;
}

void expect_same_json(const json& ours, const json& theirs) {
  std::string where;
  EXPECT_TRUE(same_json(ours, theirs, &where)) << where;
  EXPECT_EQ(ours, theirs);  // nlohmann's own comparison too (numbers by value)
}

// write() and the tinygltf reference on one scene: equal JSON, identical binary data.
void expect_same_output(const scene& s, const gltf::write_options& o) {
  diagnostics d1, d2;
  auto ours = gltf::write(s, o, d1, "x.bin");
  std::optional<result<gltf::encoded>> maybe_ref;
  try {
    maybe_ref = gltf::detail::write_with_tinygltf(s, o, d2, "x.bin");
  } catch (const std::exception& e) {  // tinygltf throws on invalid UTF-8 in names; ours replaces it
    std::printf("tinygltf threw (%s); only our output is checked\n", e.what());
    ASSERT_TRUE(static_cast<bool>(ours));
    if (o.binary) split(ours->main);
    else EXPECT_NO_THROW(json j = json::parse(ours->main));
    return;
  }
  auto& ref = *maybe_ref;
  ASSERT_EQ(static_cast<bool>(ours), static_cast<bool>(ref));
  if (!ours) return;
  if (o.binary) {
    auto a = split(ours->main);
    auto b = split(ref->main);
    expect_same_json(a.doc, b.doc);
    EXPECT_TRUE(a.bin == b.bin);
    EXPECT_LE(ours->main.size(), ref->main.size());
  } else {
    expect_same_json(json::parse(ours->main), json::parse(ref->main));
    EXPECT_TRUE(ours->bin == ref->bin);
  }
}

}  // namespace

TEST(GltfStream, FullModelMatchesTinygltf) {
  const tg::Model m = full_model();
  const auto ref = tinygltf_glb(m);
  const std::string text = gltf::detail::model_json(m, -1, {});
  expect_same_json(json::parse(text), ref.doc);
  // Pretty (.gltf) form: the same values, and nlohmann's own layout of them.
  const std::string pretty = gltf::detail::model_json(m, 1, "ext.bin");
  json pj = json::parse(pretty);
  EXPECT_EQ(pj["buffers"][0]["uri"], "ext.bin");
  pj["buffers"][0].erase("uri");
  expect_same_json(pj, ref.doc);
  EXPECT_EQ(pretty, json::parse(pretty).dump(1));
  EXPECT_EQ(text, json::parse(text).dump());
  // The GLB around it.
  const auto g = gltf::detail::glb(text, m.buffers[0].data);
  const auto parts = split(g);
  expect_same_json(parts.doc, ref.doc);
  EXPECT_EQ(parts.bin, ref.bin);
  ASSERT_EQ(parts.bin.size(), 12u);
  EXPECT_EQ(parts.bin[11], 0);
}

TEST(GltfStream, EmptyModelMatchesTinygltf) {
  tg::Model m;
  const auto ref = tinygltf_glb(m);
  const std::string text = gltf::detail::model_json(m, -1, {});
  expect_same_json(json::parse(text), ref.doc);
  const auto parts = split(gltf::detail::glb(text, {}));
  EXPECT_TRUE(parts.bin.empty());
}

TEST(GltfStream, InvalidUtf8IsReplacedNotThrown) {
  tg::Model m;
  tg::Node n;
  n.name = "bad \xff\xfe name";
  m.nodes.push_back(n);
  std::string text;
  EXPECT_NO_THROW(text = gltf::detail::model_json(m, -1, {}));
  auto j = json::parse(text);
  EXPECT_EQ(j["nodes"][0]["name"], "bad \xef\xbf\xbd\xef\xbf\xbd name");
}

// Every shared sample that decodes, as .glb and as .gltf: the same document as tinygltf
// wrote and the same binary data.
TEST(GltfStream, SamplesWriteTheSameDocument) {
  const int compared = test::for_each_decoded_sample([](const std::string&, const scene& s) {
    gltf::write_options o;
    expect_same_output(s, o);
    o.binary = false;
    expect_same_output(s, o);
  });
  if (compared < 0) GTEST_SKIP() << "shared samples not present";
  std::printf("compared %d samples\n", compared);
  EXPECT_GT(compared, 0);
}
