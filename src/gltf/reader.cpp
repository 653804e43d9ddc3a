// glTF 2.0 -> scene model, for the write-back paths (`rigrip pack`). Skeletons come
// from skins (or, without skins, from the animated node hierarchy); the root node
// rigrip adds is recognised by its extras and not turned into a bone.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <map>
#include <set>

#include <tiny_gltf.h>

#include "core/math.hpp"
#include "rigrip/gltf.hpp"

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

// Reads an accessor as floats (normalised integer types are converted per the spec).
std::vector<float> read_floats(const tg::Model& m, int accessor_index, int* ncomp_out) {
  if (accessor_index < 0 || static_cast<std::size_t>(accessor_index) >= m.accessors.size())
    throw std::runtime_error("accessor index out of range");
  const auto& a = m.accessors[static_cast<std::size_t>(accessor_index)];
  int ncomp = tg::GetNumComponentsInType(static_cast<std::uint32_t>(a.type));
  int csize = tg::GetComponentSizeInBytes(static_cast<std::uint32_t>(a.componentType));
  if (ncomp <= 0 || csize <= 0) throw std::runtime_error("unsupported accessor type");
  if (ncomp_out) *ncomp_out = ncomp;
  std::vector<float> out;
  if (a.bufferView < 0) {
    out.assign(a.count * static_cast<std::size_t>(ncomp), 0.0f);
    return out;
  }
  const auto& bv = m.bufferViews.at(static_cast<std::size_t>(a.bufferView));
  const auto& buf = m.buffers.at(static_cast<std::size_t>(bv.buffer));
  std::size_t stride = bv.byteStride ? bv.byteStride : static_cast<std::size_t>(ncomp * csize);
  std::size_t start = bv.byteOffset + a.byteOffset;
  std::size_t elem = static_cast<std::size_t>(ncomp * csize);
  if (a.count && (start > buf.data.size() || (a.count - 1) > (buf.data.size() - start) / stride ||
                  start + (a.count - 1) * stride + elem > buf.data.size() ||
                  start + (a.count - 1) * stride + elem > bv.byteOffset + bv.byteLength))
    throw std::runtime_error("accessor reads outside its buffer");
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
        default: throw std::runtime_error("unsupported component type");
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

// Meshes: every triangle primitive of every node with a mesh (the writer's "bone_display"
// for skeleton-only scenes excepted). Skinned primitives keep their joints, mapped through
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
    if (gm.name == "bone_display") continue;
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

scene convert(const tg::Model& m, diagnostics& diags) {
  scene s;
  s.format = "gltf";
  if (m.asset.extras.IsObject()) {
    json ax = from_value(m.asset.extras);
    if (ax.contains("source_format") && ax["source_format"].is_string())
      s.metadata["source_format"] = ax["source_format"];
    if (ax.contains("source_metadata")) s.metadata["source_metadata"] = ax["source_metadata"];
  }
  const std::size_t nn = m.nodes.size();
  std::vector<int> parent(nn, -1);
  for (std::size_t i = 0; i < nn; ++i)
    for (int c : m.nodes[i].children) {
      if (c < 0 || static_cast<std::size_t>(c) >= nn) throw std::runtime_error("child index out of range");
      if (parent[static_cast<std::size_t>(c)] != -1) throw std::runtime_error("node has two parents");
      parent[static_cast<std::size_t>(c)] = static_cast<int>(i);
    }
  // Joint sets: one per skin; without skins, every animated node and its ancestors.
  std::vector<std::vector<int>> sets;
  for (const auto& sk : m.skins) sets.push_back(sk.joints);
  if (sets.empty()) {
    std::set<int> nodes;
    for (const auto& a : m.animations)
      for (const auto& c : a.channels)
        for (int n = c.target_node; n >= 0 && !is_rigrip_root(m.nodes[static_cast<std::size_t>(n)]);
             n = parent[static_cast<std::size_t>(n)])
          if (!is_ssc_helper(m.nodes[static_cast<std::size_t>(n)])) nodes.insert(n);
    if (!nodes.empty()) sets.emplace_back(nodes.begin(), nodes.end());
  }
  std::map<int, std::pair<int, int>> node_to_bone;  // node -> (skeleton, bone)
  std::map<int, int> helper_to_bone_node;           // SSC helper node -> its bone's node
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
  read_meshes(m, parent, node_to_bone, s, diags);
  for (const auto& ga : m.animations) {
    animation a;
    a.name = ga.name;
    json ex = ga.extras.IsObject() ? from_value(ga.extras) : json::object();
    int skel = -1;
    double max_t = 0;
    for (const auto& ch : ga.channels) {
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
        throw std::runtime_error("sampler index out of range");
      const auto& smp = ga.samplers[static_cast<std::size_t>(ch.sampler)];
      track t;
      t.bone = s.skeletons[static_cast<std::size_t>(skel)].bones[static_cast<std::size_t>(it->second.second)].name;
      t.path = *p;
      auto in = interpolation_from_string(smp.interpolation.empty() ? "LINEAR" : smp.interpolation);
      t.interpolation = in ? *in : interpolation::linear;
      t.times = read_floats(m, smp.input, nullptr);
      int nc = 0;
      t.values = read_floats(m, smp.output, &nc);
      if (nc != components(t.path)) throw std::runtime_error("animation output has the wrong type");
      if (!t.times.empty()) max_t = std::max(max_t, static_cast<double>(t.times.back()));
      a.tracks.push_back(std::move(t));
    }
    if (skel < 0) continue;
    a.skeleton = skel;
    a.duration = ex.contains("duration") && ex["duration"].is_number() ? std::max(ex["duration"].get<double>(), max_t) : max_t;
    if (ex.contains("source_fps") && ex["source_fps"].is_number()) a.fps = ex["source_fps"].get<double>();
    for (const char* k : {"duration", "source_fps", "source_format", "skeleton"}) ex.erase(k);
    a.extras = ex;
    s.animations.push_back(std::move(a));
  }
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
  tg::Model model;
  std::string err, warn;
  bool ok;
  std::string base_dir;
  auto slash = name.find_last_of('/');
  if (slash != std::string::npos) base_dir = name.substr(0, slash);
  if (data.size() >= 4 && std::memcmp(data.data(), "glTF", 4) == 0)
    ok = loader.LoadBinaryFromMemory(&model, &err, &warn, data.data(), static_cast<unsigned int>(data.size()), base_dir);
  else
    ok = loader.LoadASCIIFromString(&model, &err, &warn, reinterpret_cast<const char*>(data.data()),
                                    static_cast<unsigned int>(data.size()), base_dir);
  if (!ok) return make_error(code::gltf_error, "glTF parse failed: " + err, no_offset, name);
  try {
    return convert(model, diags);
  } catch (const std::exception& e) {
    return make_error(code::gltf_error, std::string("glTF structure: ") + e.what(), no_offset, name);
  }
}

}  // namespace rigrip::gltf
