// FMDL -> scene meshes and materials, FTEX -> scene textures (README.md: Models).
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <set>

#include "core/failure.hpp"
#include "formats/bfres/bntx.hpp"
#include "formats/bfres/decode_model.hpp"
#include "formats/bfres/gx2.hpp"
#include "formats/bfres/vertex.hpp"
#include "scene/pose.hpp"
#include "scene/tangents.hpp"

namespace rigrip::bfres {
namespace {

using core::fail;

std::string hex(std::uint64_t v) { return core::byte_reader::hex(v); }

// Every attribute of one vertex buffer, decoded for the vertices a mesh uses.
struct attrib_view {
  const vertex_attrib* a = nullptr;
  attrib_format fmt;
  const std::uint8_t* base = nullptr;  // first vertex
  std::uint32_t stride = 0;
  core::endian order = core::endian::big;  // Wii U big-endian, Switch little-endian
};

bool starts_with(const std::string& s, const char* p) { return s.rfind(p, 0) == 0; }

// Triangle list from the primitive type (GX2PrimitiveType).
std::vector<std::uint32_t> triangles(std::uint32_t prim, const std::vector<std::uint32_t>& idx, bool& ok) {
  ok = true;
  std::vector<std::uint32_t> out;
  switch (prim) {
    case 4:  // triangles
      out.assign(idx.begin(), idx.begin() + static_cast<std::ptrdiff_t>(idx.size() / 3 * 3));
      break;
    case 5:  // fan
      for (std::size_t i = 2; i < idx.size(); ++i) out.insert(out.end(), {idx[0], idx[i - 1], idx[i]});
      break;
    case 6:  // strip: alternate winding, skip degenerate triangles
      for (std::size_t i = 2; i < idx.size(); ++i) {
        std::uint32_t a = idx[i - 2], b = idx[i - 1], c = idx[i];
        if (a == b || b == c || a == c) continue;
        if (i % 2) std::swap(a, b);
        out.insert(out.end(), {a, b, c});
      }
      break;
    default: ok = false;
  }
  return out;
}


// Attribute value `vertex` in the file's byte order.
std::array<float, 4> value_at(const attrib_view& v, std::uint32_t vertex) {
  return decode_attrib(v.fmt, v.base + std::size_t{vertex} * v.stride, v.order);
}

bool is_switch(const file& f) { return f.plat == platform::switch_; }

// The LOD's primitive as a GX2PrimitiveType: Switch files store nn::gfx's topology
// (3 triangle list, 4 triangle strip; others have no triangle reading here).
std::uint32_t primitive_of(const file& f, const lod_mesh& lm) {
  if (!is_switch(f)) return lm.primitive;
  return lm.primitive == 3 ? 4u : lm.primitive == 4 ? 6u : 0x100u + lm.primitive;
}

// The LOD's index buffer, each index checked against the vertex count.
std::vector<std::uint32_t> read_indices(const file& f, const lod_mesh& lm, const vertex_buffer& vb,
                                        const std::string& where) {
  // GX2IndexFormat (4 u16 / 9 u32 big-endian, 0 / 1 little-endian); Switch nn::gfx (0 u8, 1 u16, 2 u32).
  const bool sw = is_switch(f);
  const std::uint32_t isize = sw ? (lm.index_format == 0 ? 1 : lm.index_format == 1 ? 2 : lm.index_format == 2 ? 4 : 0)
                                 : lm.index_format == 4 || lm.index_format == 0 ? 2 : lm.index_format == 9 || lm.index_format == 1 ? 4 : 0;
  if (!isize) fail(code::bad_value, where + ": index format " + std::to_string(lm.index_format) + " is unknown", lm.at + (sw ? 0x28 : 4));
  const core::endian ie = !sw && (lm.index_format == 4 || lm.index_format == 9) ? core::endian::big : core::endian::little;
  if (static_cast<std::uint64_t>(lm.index_count) * isize > lm.index_buffer.size)
    fail(code::truncated, where + ": " + std::to_string(lm.index_count) + " indices need " +
                              std::to_string(std::uint64_t(lm.index_count) * isize) + " bytes, the index buffer has " +
                              std::to_string(lm.index_buffer.size), lm.index_buffer.at + 4);
  core::byte_reader ir(std::span<const std::uint8_t>(f.image).subspan(lm.index_buffer.data_at, lm.index_buffer.size), ie,
                       lm.index_buffer.data_at);
  std::vector<std::uint32_t> raw(lm.index_count);
  for (auto& v : raw) {
    const std::uint64_t at = ir.abs();
    const std::uint64_t x = (isize == 1 ? ir.u8() : isize == 2 ? ir.u16() : ir.u32()) + std::uint64_t{lm.first_vertex};
    if (x >= vb.vertex_count)
      fail(code::bad_value, where + ": index " + std::to_string(x) + " (first vertex " + std::to_string(lm.first_vertex) +
                                ") is beyond the vertex count " + std::to_string(vb.vertex_count), at);
    v = static_cast<std::uint32_t>(x);
  }
  return raw;
}

// The readable attributes by name; unknown formats are skipped with a warning.
std::map<std::string, attrib_view> attribute_views(const file& f, const vertex_buffer& vb, const std::string& where,
                                                   const read_context& ctx) {
  std::map<std::string, attrib_view> views;
  const bool sw = is_switch(f);
  for (const auto& a : vb.attribs) {
    auto fmt = sw ? describe_switch_attrib(a.format) : describe_gx2_attrib(a.format);
    if (!fmt) {
      ctx.warn(code::w_unsupported_part, where + ": attribute '" + a.name + "' has the unknown format " +
                                             (sw ? switch_attrib_name(a.format) : gx2_attrib_name(a.format)) + "; attribute skipped",
               a.at + 8);
      continue;
    }
    if (a.buffer >= vb.buffers.size())
      fail(code::bad_value, where + ": attribute '" + a.name + "' uses buffer " + std::to_string(a.buffer) + " of " +
                                std::to_string(vb.buffers.size()), a.at + 4);
    const gpu_buffer& b = vb.buffers[a.buffer];
    const std::uint32_t stride = b.stride;
    if (static_cast<std::uint64_t>(a.offset) + fmt->size() > stride)
      fail(code::bad_value, where + ": attribute '" + a.name + "' (" + std::to_string(fmt->size()) + " bytes at " +
                                std::to_string(a.offset) + ") does not fit the buffer's stride of " + std::to_string(stride),
           a.at + 6);
    if (static_cast<std::uint64_t>(vb.vertex_count) * stride > b.size)
      fail(code::truncated, where + ": vertex buffer " + std::to_string(a.buffer) + " holds " + std::to_string(b.size) +
                                " bytes, shorter than " + std::to_string(vb.vertex_count) + " vertices x stride " +
                                std::to_string(stride), b.at + 4);
    views[a.name] = attrib_view{&a, *fmt, f.image.data() + b.data_at + a.offset, stride,
                                sw ? core::endian::little : core::endian::big};
  }
  return views;
}

// Tangents from `_t0` (xyz), made unit and orthogonal to the normal. Handedness: the
// binormal `_b0` when present (the side of the normal-tangent plane it lies on: then the
// glTF bitangent cross(n, t) * w points the way the game's binormal does), else the
// tangent's own w when it is +-1, else +1. Vertices whose tangent is parallel to the normal
// or zero are listed in `g.degenerate_tangents` (add_models gives them UV tangents).
void read_tangents(mesh& me, const std::vector<std::uint32_t>& used, const attrib_view& tv, const attrib_view* bv,
                   model_geometry& g) {
  me.tangents.reserve(used.size());
  int from_binormal = 0, from_w = 0;
  for (std::size_t vi = 0; vi < used.size(); ++vi) {
    const auto t = value_at(tv, used[vi]);
    const vec3& n = me.normals[vi];
    const double nl = std::sqrt(double(n[0]) * n[0] + double(n[1]) * n[1] + double(n[2]) * n[2]);
    std::array<double, 3> nn{n[0] / (nl > 0 ? nl : 1), n[1] / (nl > 0 ? nl : 1), n[2] / (nl > 0 ? nl : 1)};
    std::array<double, 3> x{t[0], t[1], t[2]};
    const double d = nn[0] * x[0] + nn[1] * x[1] + nn[2] * x[2];
    for (int k = 0; k < 3; ++k) x[static_cast<std::size_t>(k)] -= nn[static_cast<std::size_t>(k)] * d;
    const double l = std::sqrt(x[0] * x[0] + x[1] * x[1] + x[2] * x[2]);
    float w = 1;
    if (bv) {
      const auto b = value_at(*bv, used[vi]);
      const std::array<double, 3> c{nn[1] * x[2] - nn[2] * x[1], nn[2] * x[0] - nn[0] * x[2], nn[0] * x[1] - nn[1] * x[0]};
      w = c[0] * b[0] + c[1] * b[1] + c[2] * b[2] < 0 ? -1.0f : 1.0f;
      ++from_binormal;
    } else if (tv.fmt.count >= 4 && std::fabs(t[3]) >= 0.5f) {
      w = t[3] < 0 ? -1.0f : 1.0f;
      ++from_w;
    }
    if (!(nl > 1e-6) || !(l > 1e-3 * std::max(1.0, std::sqrt(double(t[0]) * t[0] + double(t[1]) * t[1] + double(t[2]) * t[2])))) {
      g.degenerate_tangents.push_back(static_cast<std::uint32_t>(vi));
      me.tangents.push_back({1, 0, 0, w});  // replaced in add_models
      continue;
    }
    me.tangents.push_back({static_cast<float>(x[0] / l), static_cast<float>(x[1] / l), static_cast<float>(x[2] / l), w});
  }
  g.tangent_source = from_binormal ? "_t0 + _b0" : from_w ? "_t0 (w)" : "_t0";
}

// Joints and weights of every used vertex from the index (_i0, _i1) and weight (_w0, _w1)
// attributes; rigid-matrix vertices are moved out of their bone's space. True when a
// vertex had more than 4 influences.
bool skin_vertices(mesh& me, const std::vector<std::uint32_t>& used, const attrib_view* const (&ids)[2],
                   const attrib_view* const (&wts)[2], int skin, const skeleton& raw_sk,
                   const std::vector<core::mat4>& world, std::uint16_t shape_bone, const std::string& where) {
  const std::size_t palette = raw_sk.mtx_to_bone.size();
  bool lossy = false;
  for (std::size_t vi = 0; vi < used.size(); ++vi) {
    const std::uint32_t v = used[vi];
    std::array<std::pair<float, std::uint16_t>, 8> inf{};
    int n = 0;
    for (int k = 0; k < 2; ++k) {
      if (!ids[k]) continue;
      const auto iv = value_at(*ids[k], v);
      const auto wv = wts[k] ? value_at(*wts[k], v) : std::array<float, 4>{1, 0, 0, 0};
      for (int c = 0; c < ids[k]->fmt.count && k * 4 + c < skin; ++c) {
        const float w = (skin == 1 && !wts[k]) ? 1.0f : wv[static_cast<std::size_t>(c)];
        const auto idx = static_cast<std::int64_t>(iv[static_cast<std::size_t>(c)]);
        if (idx < 0 || static_cast<std::size_t>(idx) >= palette)
          fail(code::bad_value, where + ": vertex " + std::to_string(v) + " uses matrix " + std::to_string(idx) +
                                    ", beyond the skeleton's " + std::to_string(palette) + " matrices",
               ids[k]->a->at);
        const std::int16_t bone = raw_sk.mtx_to_bone[static_cast<std::size_t>(idx)];
        if (bone < 0 || static_cast<std::size_t>(bone) >= raw_sk.bones.size())
          fail(code::bad_value, where + ": matrix " + std::to_string(idx) + " maps to bone " + std::to_string(bone) +
                                    ", not in the skeleton", raw_sk.mtx_to_bone_at + 2 * static_cast<std::uint32_t>(idx));
        if (w > 0) inf[static_cast<std::size_t>(n++)] = {w, static_cast<std::uint16_t>(bone)};
        // Rigid matrices: the vertex is in its bone's space (only meaningful with one influence).
        if (c == 0 && k == 0 && static_cast<std::size_t>(idx) >= raw_sk.num_smooth && skin == 1) {
          const auto& m4 = world[static_cast<std::size_t>(bone)];
          auto& p = me.positions[vi];
          p = {m4[0] * p[0] + m4[4] * p[1] + m4[8] * p[2] + m4[12], m4[1] * p[0] + m4[5] * p[1] + m4[9] * p[2] + m4[13],
               m4[2] * p[0] + m4[6] * p[1] + m4[10] * p[2] + m4[14]};
          if (vi < me.normals.size()) {
            auto& q = me.normals[vi];
            q = {m4[0] * q[0] + m4[4] * q[1] + m4[8] * q[2], m4[1] * q[0] + m4[5] * q[1] + m4[9] * q[2],
                 m4[2] * q[0] + m4[6] * q[1] + m4[10] * q[2]};
          }
          if (vi < me.tangents.size()) {  // the bone's rotation (rest poses carry no shear)
            auto& q = me.tangents[vi];
            const vec3 t{m4[0] * q[0] + m4[4] * q[1] + m4[8] * q[2], m4[1] * q[0] + m4[5] * q[1] + m4[9] * q[2],
                         m4[2] * q[0] + m4[6] * q[1] + m4[10] * q[2]};
            const float l = std::sqrt(t[0] * t[0] + t[1] * t[1] + t[2] * t[2]);
            if (l > 0) q = {t[0] / l, t[1] / l, t[2] / l, q[3]};
          }
        }
      }
    }
    std::sort(inf.begin(), inf.begin() + n, [](const auto& a, const auto& b) { return a.first > b.first; });
    if (n > 4) lossy = true;
    std::array<std::uint16_t, 4> j{};
    vec4 w{0, 0, 0, 0};
    float sum = 0;
    for (int k = 0; k < std::min(n, 4); ++k) sum += inf[static_cast<std::size_t>(k)].first;
    for (int k = 0; k < std::min(n, 4); ++k) {
      j[static_cast<std::size_t>(k)] = inf[static_cast<std::size_t>(k)].second;
      w[static_cast<std::size_t>(k)] = sum > 0 ? inf[static_cast<std::size_t>(k)].first / sum : 0;
    }
    if (n == 0) j[0] = shape_bone < raw_sk.bones.size() ? shape_bone : 0, w[0] = 1;
    me.joints.push_back(j);
    me.weights.push_back(w);
  }
  return lossy;
}

}  // namespace

model_geometry decode_shape(const file& f, const model& m, const shape& sh, int lod, const skeleton_binding& bind,
                            const read_context& ctx) {
  model_geometry g;
  const std::string where = "model '" + m.name + "', shape '" + sh.name + "'";
  if (sh.vertex_buffer >= m.vertex_buffers.size())
    fail(code::bad_value, where + ": vertex buffer index " + std::to_string(sh.vertex_buffer) + " but the model has " +
                              std::to_string(m.vertex_buffers.size()), sh.at + 0x12);
  const vertex_buffer& vb = m.vertex_buffers[sh.vertex_buffer];
  if (sh.meshes.empty()) {
    ctx.warn(code::w_unsupported_part, where + " has no mesh; skipped", sh.at);
    return g;
  }
  const std::size_t li = std::min<std::size_t>(static_cast<std::size_t>(std::max(lod, 0)), sh.meshes.size() - 1);
  const lod_mesh& lm = sh.meshes[li];
  g.lod = static_cast<int>(li);

  std::vector<std::uint32_t> raw = read_indices(f, lm, vb, where);
  bool prim_ok = true;
  std::vector<std::uint32_t> tris = triangles(primitive_of(f, lm), raw, prim_ok);
  if (!prim_ok) {
    ctx.warn(code::w_unsupported_part, where + ": primitive type " + std::to_string(lm.primitive) +
                                           " (not triangles, strips or fans) skipped", lm.at);
    return g;
  }
  // Only the vertices this LOD uses, in first-use order.
  std::map<std::uint32_t, std::uint32_t> remap;
  std::vector<std::uint32_t> used;
  for (auto& v : tris) {
    auto [it, fresh] = remap.try_emplace(v, static_cast<std::uint32_t>(used.size()));
    if (fresh) used.push_back(v);
    v = it->second;
  }

  const std::map<std::string, attrib_view> views = attribute_views(f, vb, where, ctx);
  auto pos = views.find("_p0");
  if (pos == views.end()) {
    ctx.warn(code::w_unsupported_part, where + " has no readable position attribute (_p0); skipped", vb.at);
    return g;
  }

  mesh& me = g.mesh;
  me.name = sh.name;
  me.indices = std::move(tris);
  me.positions.reserve(used.size());
  for (std::uint32_t v : used) {
    auto p = value_at(pos->second, v);
    me.positions.push_back({p[0], p[1], p[2]});
  }
  if (auto n = views.find("_n0"); n != views.end())
    for (std::uint32_t v : used) {
      auto p = value_at(n->second, v);
      me.normals.push_back({p[0], p[1], p[2]});
    }
  if (auto t = views.find("_t0"); t != views.end() && !me.normals.empty())
    read_tangents(me, used, t->second, views.count("_b0") ? &views.at("_b0") : nullptr, g);
  if (auto u = views.find("_u0"); u != views.end())
    for (std::uint32_t v : used) {
      auto p = value_at(u->second, v);
      me.uvs.push_back({p[0], p[1]});
    }
  if (auto u = views.find("_u1"); u != views.end())
    for (std::uint32_t v : used) {
      auto p = value_at(u->second, v);
      me.uvs1.push_back({p[0], p[1]});
    }
  if (auto c = views.find("_c0"); c != views.end())
    for (std::uint32_t v : used) {
      auto p = value_at(c->second, v);
      me.colors.push_back({p[0], p[1], p[2], c->second.fmt.count >= 4 ? p[3] : 1.0f});
    }
  for (const auto& [name, v] : views)
    if (name != "_p0" && name != "_n0" && name != "_u0" && name != "_u1" && name != "_c0" && !starts_with(name, "_i") &&
        !starts_with(name, "_w") && !((name == "_t0" || name == "_b0") && !me.tangents.empty()))
      g.unused_attribs.push_back(name);

  // Skinning: vertex skin count 0 = the shape follows its bone; otherwise indices into the
  // skeleton's matrix palette (smooth matrices first, then rigid ones), mapped to bones by
  // the matrix-to-bone table. Rigid-matrix vertices are stored in their bone's space.
  const int skin = std::max<int>(sh.skin_count, vb.skin_count);
  if (!bind.raw || !bind.scene) {
    if (skin > 0) ctx.warn(code::w_missing_bone, where + " is skinned but its model has no skeleton; left unskinned", sh.at);
    return g;
  }
  const auto& raw_sk = *bind.raw;
  me.skeleton = bind.scene_index;
  if (skin == 0) {
    if (sh.bone >= raw_sk.bones.size())
      fail(code::bad_value, where + ": bone index " + std::to_string(sh.bone) + " but the skeleton has " +
                                std::to_string(raw_sk.bones.size()) + " bones", sh.at + 0x10);
    me.bone = sh.bone;
    return g;
  }
  const attrib_view* ids[2] = {nullptr, nullptr};
  const attrib_view* wts[2] = {nullptr, nullptr};
  for (int k = 0; k < 2; ++k) {
    if (auto it = views.find("_i" + std::to_string(k)); it != views.end()) ids[k] = &it->second;
    if (auto it = views.find("_w" + std::to_string(k)); it != views.end()) wts[k] = &it->second;
  }
  if (!ids[0]) {
    ctx.warn(code::w_unsupported_part, where + ": skin count " + std::to_string(skin) +
                                           " but no readable index attribute (_i0); left unskinned", vb.at);
    me.skeleton = -1;
    return g;
  }
  const auto world = scene_ops::world_matrices(*bind.scene);
  const bool lossy = skin_vertices(me, used, ids, wts, skin, raw_sk, world, sh.bone, where);
  if (lossy)
    ctx.warn(code::w_lossy, where + ": vertices with more than 4 bone influences keep their 4 largest weights", vb.at);
  return g;
}

}  // namespace rigrip::bfres

// ---------------------------------------------------------------------------------------
namespace rigrip::bfres {
namespace {

enum class role { albedo, normal, emission, other };

role role_of(const std::string& tex, const std::string& smp) {
  auto has = [&](const char* s) { return tex.find(s) != std::string::npos; };
  if (has("_Alb") || has("_alb")) return role::albedo;
  if (has("_Nrm") || has("_nrm")) return role::normal;
  if (has("_Emm") || has("_Emi") || has("_emm") || has("_emi")) return role::emission;
  if (starts_with(smp, "_a")) return role::albedo;
  if (starts_with(smp, "_n")) return role::normal;
  if (starts_with(smp, "_e")) return role::emission;
  return role::other;
}
const char* role_name(role r) {
  switch (r) {
    case role::albedo: return "albedo";
    case role::normal: return "normal";
    case role::emission: return "emission";
    default: return "other";
  }
}
texture_wrap wrap_of(int gx2_clamp) {
  switch (gx2_clamp) {
    case 0: return texture_wrap::repeat;
    case 1: return texture_wrap::mirrored_repeat;
    default: return texture_wrap::clamp_to_edge;  // clamp, mirror-once and border modes
  }
}
std::uint8_t linear_to_srgb(std::uint8_t v) {
  const double l = v / 255.0;
  const double s = l <= 0.0031308 ? l * 12.92 : 1.055 * std::pow(l, 1 / 2.4) - 0.055;
  return static_cast<std::uint8_t>(std::lround(std::clamp(s, 0.0, 1.0) * 255));
}

struct found_texture {
  const ftex* t = nullptr;
  const file* f = nullptr;
  std::string path;
};

struct texture_builder {
  const read_context& ctx;
  scene& s;
  std::vector<std::pair<const file*, std::string>> sources;  // file, path (first = the model file)
  std::map<std::string, int> cache;                          // key -> scene texture index
  std::set<std::string> reported;
  std::vector<std::string> looked_for;  // sibling texture files that do not exist
  // Switch: the textures of every BNTX embedded in the sources (the model file's own
  // `textures.bntx` first, then the texture files'), decoded on the first name no FTEX has.
  std::vector<std::pair<bntx_texture, std::string>> nx;  // texture, source file name
  bool nx_loaded = false;

  void load_nx() {
    if (nx_loaded) return;
    nx_loaded = true;
    for (const auto& [fp, path] : sources) {
      if (fp->plat != platform::switch_) continue;
      for (const auto& e : fp->external_files) {
        auto bytes = std::span<const std::uint8_t>(fp->image).subspan(static_cast<std::size_t>(e.data_at),
                                                                     static_cast<std::size_t>(e.size));
        if (!is_bntx(bytes)) continue;
        // An entry padded past the BNTX's own file size (u32 at 0x1C) is cut to it, as
        // add_embedded_bntx does for texture files.
        if (bytes.size() >= 0x20) {
          const std::uint32_t own = bytes[0x1C] | (bytes[0x1D] << 8) | (bytes[0x1E] << 16) | (std::uint32_t{bytes[0x1F]} << 24);
          if (own >= 0x20 && own < bytes.size()) bytes = bytes.first(own);
        }
        try {
          for (auto& t : decode_bntx(bytes, ctx)) nx.emplace_back(std::move(t), std::filesystem::path(path).filename().string());
        } catch (const core::failure& err) {
          ctx.warn(code::w_unsupported_part, "embedded '" + e.name + "' of " + std::filesystem::path(path).filename().string() +
                                                 ": " + err.error().message + "; its textures are skipped",
                   e.data_at);
        }
      }
    }
  }
  // A BNTX texture named `name` as a scene texture for role `r`, or -1.
  int get_nx(const std::string& name, texture_wrap ws, texture_wrap wt, bool lin_mag, bool lin_min, role r) {
    load_nx();
    for (const auto& [bt, src] : nx) {
      if (bt.name != name) continue;
      texture tx = bt.tex;
      tx.name = name;
      tx.wrap_s = ws;
      tx.wrap_t = wt;
      tx.mag_filter = lin_mag ? texture_filter::linear : texture_filter::nearest;
      tx.min_filter = lin_min ? texture_filter::linear : texture_filter::nearest;
      if (!tx.extras.is_object()) tx.extras = nlohmann::json::object();
      tx.extras["source_file"] = src;
      to_gltf_texture(tx, r == role::albedo || r == role::emission, r == role::normal);
      s.textures.push_back(std::move(tx));
      return static_cast<int>(s.textures.size() - 1);
    }
    return -1;
  }

  std::optional<found_texture> find(const std::string& name) const {
    for (const auto& [fp, path] : sources)
      for (const auto& t : fp->textures)
        if (t.name == name) return found_texture{&t, fp, path};
    return std::nullopt;
  }
  std::string looked_for_text() const {
    std::string out;
    for (const auto& p : looked_for) out += (out.empty() ? "" : ", ") + std::filesystem::path(p).filename().string();
    return out;
  }
  std::string searched() const {
    std::string out;
    for (const auto& [fp, path] : sources) out += (out.empty() ? "" : ", ") + std::filesystem::path(path).filename().string();
    return out;
  }

  // Mip levels 1.. of `t` (GX2 layout: level 1 at the mip data + mipOffsets[0] - image size,
  // level k >= 2 at the mip data + mipOffsets[k-1]), each untiled with its own tile mode and
  // pitch (gx2::mip_layout). A level that does not fit the mip data stops the chain with a
  // warning naming it; BotW .Tex1 files keep their mips in .Tex2, which is not read.
  template <class Finish>
  std::vector<texture::level> decode_mips(const ftex& t, const file& tf, const gx2::surface& sf, const std::string& where,
                                          Finish& finish) {
    std::vector<texture::level> out;
    if (t.mip_count <= 1) return out;
    // BotW: the mips live in .Tex2, and the offsets point there even when they happen to land
    // inside this file.
    if (tf.name.find(".Tex1") != std::string::npos) return out;
    if (t.mip_data_outside || !t.mip_data_at || std::uint64_t{t.mip_data_at} + t.mip_size > tf.image.size()) {
      ctx.warn(code::w_suspicious_value, where + ": its mip chain (" + std::to_string(t.mip_count) + " levels, " +
                                             std::to_string(t.mip_size) + " bytes) runs past the data; only the base level is used",
               t.at + 0x2C);
      return out;
    }
    const std::uint32_t levels = std::min<std::uint32_t>(t.mip_count, 13);
    for (std::uint32_t k = 1; k < levels; ++k) {
      const gx2::mip_level lv = gx2::mip_layout(sf, k);
      const std::uint64_t rel = k == 1 ? std::uint64_t{t.mip_offsets[0]} - std::min(t.mip_offsets[0], t.image_size)
                                       : t.mip_offsets[k - 1];
      if ((k == 1 && t.mip_offsets[0] < t.image_size) || rel + lv.size > t.mip_size) {
        ctx.warn(code::w_suspicious_value, where + ": mip chain level " + std::to_string(k) + " (" + std::to_string(lv.width) + "x" +
                                               std::to_string(lv.height) + ", " + std::to_string(lv.size) + " bytes at +" +
                                               std::to_string(rel) + ") runs past the " + std::to_string(t.mip_size) +
                                               " bytes of mip data; levels from " + std::to_string(k) + " on are skipped",
                 t.at + 0x44 + 4 * (k - 1));
        break;
      }
      gx2::surface ls = sf;
      ls.width = lv.width;
      ls.height = lv.height;
      ls.tile_mode = lv.tile_mode;
      ls.pitch = lv.pitch;
      texture::level l{lv.width, lv.height, {}};
      try {
        l.rgba = gx2::decode_rgba(ls, std::span<const std::uint8_t>(tf.image).subspan(t.mip_data_at + rel, lv.size),
                                  t.mip_data_at + rel);
      } catch (const core::failure& e) {
        ctx.warn(code::w_suspicious_value, where + ": mip level " + std::to_string(k) + ": " + e.error().message +
                                               "; levels from " + std::to_string(k) + " on are skipped", e.error().offset);
        break;
      }
      finish(l.rgba);
      out.push_back(std::move(l));
    }
    return out;
  }

  // Scene texture index for FTEX `name` sampled by `smp` in role `r`, or -1.
  int get(const std::string& name, const sampler* smp, role r, const std::string& material_name) {
    const texture_wrap ws = smp ? wrap_of(smp->wrap_u()) : texture_wrap::repeat;
    const texture_wrap wt = smp ? wrap_of(smp->wrap_v()) : texture_wrap::repeat;
    const bool lin_mag = !smp || smp->mag_filter() != 0, lin_min = !smp || smp->min_filter() != 0;
    const std::string key = name + "|" + std::to_string(int(ws)) + std::to_string(int(wt)) + std::to_string(lin_mag) +
                            std::to_string(lin_min) + "|" + (r == role::albedo || r == role::emission ? "c" : "d");
    if (auto it = cache.find(key); it != cache.end()) return it->second;
    auto ft = find(name);
    if (!ft) {
      if (const int i = get_nx(name, ws, wt, lin_mag, lin_min, r); i >= 0) return cache[key] = i;
      if (reported.insert(name).second)
        ctx.warn(code::w_missing_texture, "texture '" + name + "' (material '" + material_name + "') is in none of: " +
                                              searched() + (looked_for.empty() ? std::string() : "; not found: " + looked_for_text()) +
                                              "; the mesh converts without it (pass --texture-file)");
      cache[key] = -1;
      return -1;
    }
    const ftex& t = *ft->t;
    const std::string where = "texture '" + name + "' (" + std::filesystem::path(ft->path).filename().string() + ")";
    auto skip = [&](const std::string& why, std::uint64_t at) {
      if (reported.insert(name).second) ctx.warn(code::w_unsupported_part, where + ": " + why + "; texture skipped", at);
      cache[key] = -1;
      return -1;
    };
    if (t.dim != 1) return skip("surface dimension " + std::to_string(t.dim) + " (only 2D is converted)", t.at + 4);
    if (t.aa != 0) return skip("multisampled surface", t.at + 0x1C);
    if (!gx2::describe(t.format)) return skip("format " + gx2::format_name(t.format) + " is not supported", t.at + 0x18);
    if (!gx2::tile_mode_supported(t.tile_mode))
      return skip(std::string("tile mode ") + std::to_string(t.tile_mode) + " (" + gx2::tile_mode_name(t.tile_mode) +
                      ") is not supported", t.at + 0x34);
    if (t.width == 0 || t.height == 0 || t.width > 16384 || t.height > 16384)
      return skip("size " + std::to_string(t.width) + "x" + std::to_string(t.height) + " is outside 1..16384", t.at + 8);
    const std::uint64_t end = std::uint64_t{t.data_at} + t.image_size;
    if (!t.data_at || end > ft->f->image.size())
      return skip("image data (" + std::to_string(t.image_size) + " bytes at " + hex(t.data_at) + ") runs past the file's " +
                      std::to_string(ft->f->image.size()) + " bytes", t.at + 0xB0);
    gx2::surface sf;
    sf.width = t.width;
    sf.height = t.height;
    sf.format = t.format;
    sf.tile_mode = t.tile_mode;
    sf.swizzle = t.swizzle;
    sf.pitch = t.pitch;
    sf.comp_sel = t.comp_sel;
    for (auto& c : sf.comp_sel)
      if (c > 5) c = 5;
    std::vector<std::uint8_t> rgba;
    try {
      rgba = gx2::decode_rgba(sf, std::span<const std::uint8_t>(ft->f->image).subspan(t.data_at, t.image_size), t.data_at);
    } catch (const core::failure& e) {
      return skip(e.error().message, e.error().offset);
    }
    const auto fi = *gx2::describe(t.format);
    const bool encoded = (r == role::albedo || r == role::emission) && !fi.srgb;
    auto finish = [&](std::vector<std::uint8_t>& px) {
      if (encoded)  // the GPU returns these values as linear colour; glTF colour textures are sRGB
        for (std::size_t i = 0; i < px.size(); ++i)
          if (i % 4 != 3) px[i] = linear_to_srgb(px[i]);
      if (r == role::normal && (fi.kind == gx2::layout::bc5 || fi.kind == gx2::layout::r8g8 || fi.kind == gx2::layout::r4g4))
        for (std::size_t i = 0; i < px.size(); i += 4) {  // two-channel normal maps: glTF wants z too
          const double x = px[i] / 127.5 - 1, y = px[i + 1] / 127.5 - 1;
          px[i + 2] = static_cast<std::uint8_t>(std::lround((std::sqrt(std::max(0.0, 1 - x * x - y * y)) + 1) * 127.5));
          px[i + 3] = 255;
        }
    };
    finish(rgba);
    std::vector<texture::level> mips = decode_mips(t, *ft->f, sf, where, finish);
    texture tx;
    tx.name = name;
    tx.width = t.width;
    tx.height = t.height;
    tx.rgba = std::move(rgba);
    tx.wrap_s = ws;
    tx.wrap_t = wt;
    tx.mag_filter = lin_mag ? texture_filter::linear : texture_filter::nearest;
    tx.min_filter = lin_min ? texture_filter::linear : texture_filter::nearest;
    tx.mips = std::move(mips);
    tx.extras = {{"gx2_format", fi.name}, {"tile_mode", gx2::tile_mode_name(t.tile_mode)}, {"mip_count", t.mip_count},
                 {"source_file", std::filesystem::path(ft->path).filename().string()}, {"srgb", fi.srgb}};
    if (encoded) tx.extras["encoded_to_srgb"] = true;
    if (t.mip_count > 1) tx.extras["mips_decoded"] = tx.mips.size();
    s.textures.push_back(std::move(tx));
    const int idx = static_cast<int>(s.textures.size() - 1);
    cache[key] = idx;
    return idx;
  }
};

nlohmann::json state_json(const render_state& st) {
  static const char* modes[] = {"custom", "opaque", "alpha_mask", "translucent"};
  return {{"mode", modes[st.mode()]}, {"cull_front", st.cull_front()}, {"cull_back", st.cull_back()},
          {"alpha_test", st.alpha_test()}, {"alpha_func", st.alpha_func()}, {"alpha_ref", st.alpha_ref},
          {"blend_control", st.blend}, {"flags", st.flags}, {"polygon_control", st.polygon},
          {"depth_control", st.depth}, {"alpha_control", st.alpha}};
}

rigrip::material to_material(const bfres::material& fm, const std::string& model_name, texture_builder& tb,
                             const read_context& ctx) {
  rigrip::material out;
  out.name = fm.name;
  // Render-state hints: the state's mode and culling; render info / shader options of
  // the gsys shaders override them when present.
  const auto& st = fm.state;
  int mode = st.present ? st.mode() : 1;
  for (const auto& [k, v] : fm.render_info)
    if (k == "gsys_render_state_mode" && v.is_array() && !v.empty() && v[0].is_string()) {
      const std::string m = v[0];
      mode = m == "opaque" ? 1 : m == "mask" ? 2 : m == "translucent" || m == "xlu" ? 3 : mode;
    }
  if (mode == 2 || (mode == 0 && st.alpha_test())) {
    out.alpha_mode = rigrip::material::alpha::mask;
    out.alpha_cutoff = st.alpha_ref > 0 && st.alpha_ref < 1 ? st.alpha_ref : 0.5f;
  } else if (mode == 3) {
    out.alpha_mode = rigrip::material::alpha::blend;
  }
  out.double_sided = st.present && !st.cull_front() && !st.cull_back();
  nlohmann::json texs = nlohmann::json::array();
  for (std::size_t i = 0; i < fm.textures.size(); ++i) {
    const sampler* smp = i < fm.samplers.size() ? &fm.samplers[i] : nullptr;
    const std::string smp_name = smp ? smp->name : std::string();
    const role r = role_of(fm.textures[i].name, smp_name);
    // BotW's uking shaders say which UV set a texture slot reads.
    int texcoord = 0;
    if (auto it = fm.options.find("uking_texture" + std::to_string(i) + "_texcoord"); it != fm.options.end())
      texcoord = std::clamp(std::atoi(it->second.c_str()), 0, 1);
    nlohmann::json jt{{"name", fm.textures[i].name}, {"sampler", smp_name}, {"role", role_name(r)}, {"texcoord", texcoord}};
    if (smp)
      jt["wrap"] = {smp->wrap_u(), smp->wrap_v()}, jt["sampler_words"] = smp->words;
    texs.push_back(jt);
    if (r == role::other) continue;
    int* slot = r == role::albedo ? &out.texture : r == role::normal ? &out.normal_texture : &out.emissive_texture;
    if (*slot >= 0) continue;  // the first map of a role wins
    const int ti = tb.get(fm.textures[i].name, smp, r, fm.name);
    if (ti < 0) continue;
    *slot = ti;
    if (r == role::albedo) out.texcoord = texcoord;
    if (r == role::normal) out.normal_texcoord = texcoord;
    if (r == role::emission) out.emissive_texcoord = texcoord, out.emissive_factor = {1, 1, 1};
  }
  nlohmann::json params = nlohmann::json::object();
  for (const auto& p : fm.params) params[p.name] = p.value;
  nlohmann::json ri = nlohmann::json::object();
  for (const auto& [k, v] : fm.render_info) ri[k] = v;
  out.extras = {{"model", model_name},           {"textures", texs},
                {"shader_archive", fm.shader_archive}, {"shading_model", fm.shading_model},
                {"render_info", ri},               {"shader_options", fm.options},
                {"shader_params", params},         {"visible", (fm.flags & 1) != 0}};
  if (st.present) out.extras["render_state"] = state_json(st);
  if (!fm.user_data.empty()) out.extras["user_data"] = fm.user_data;
  (void)ctx;
  return out;
}

}  // namespace

std::vector<std::string> sibling_texture_paths(const std::string& model_path) {
  namespace fs = std::filesystem;
  const fs::path p(model_path);
  const std::string stem = p.stem().string();
  std::vector<std::string> out;
  for (const char* suffix : {".Tex1.sbfres", ".Tex1.bfres", ".Tex.sbfres", ".Tex.bfres"})
    out.push_back((p.parent_path() / (stem + suffix)).string());
  return out;
}

void add_textures(const file& f, const read_context& ctx, scene& s) {
  texture_builder tb{ctx, s, {}, {}, {}, {}};
  tb.sources.emplace_back(&f, ctx.path);
  for (const auto& t : f.textures) (void)tb.get(t.name, nullptr, role_of(t.name, ""), "(none: a texture file)");
}

void add_models(const file& f, const std::vector<int>& skeleton_of_model, const std::vector<texture_file>& textures,
                const read_context& ctx, scene& s) {
  texture_builder tb{ctx, s, {}, {}, {}, {}};
  tb.sources.emplace_back(&f, ctx.path);
  for (const auto& p : sibling_texture_paths(ctx.path))
    if (!ctx.file_exists(p)) tb.looked_for.push_back(p);
  for (const auto& t : textures)
    if (t.f) tb.sources.emplace_back(t.f, t.path);
  const std::size_t meshes_before = s.meshes.size();
  const int want_lod = ctx.options.lod.value_or(0);
  bool lod_clamped = false;
  float offset_x = 0;
  int placed = 0;
  for (std::size_t mi = 0; mi < f.models.size(); ++mi) {
    const model& m = f.models[mi];
    if (m.shapes.empty() || (mi < skeleton_of_model.size() && skeleton_of_model[mi] == -2)) continue;
    const int ski = mi < skeleton_of_model.size() ? skeleton_of_model[mi] : -1;
    skeleton_binding bind;
    if (ski >= 0 && m.skel) bind = {&*m.skel, &s.skeletons[static_cast<std::size_t>(ski)], ski};
    const int material_base = static_cast<int>(s.materials.size());
    for (const auto& fm : m.materials) {
      s.materials.push_back(to_material(fm, m.name, tb, ctx));
      // Texture pattern animations (FTXP) of this material, in extras: which texture each
      // sampler shows from which frame (the writer has no material animation to put it in).
      nlohmann::json pats = nlohmann::json::array();
      for (const auto& tp : f.texture_patterns)
        for (const auto& ma : tp.materials) {
          if (ma.material != fm.name) continue;
          for (const auto& p : ma.patterns) {
            auto tex = [&](double v) {
              const auto i = static_cast<long long>(std::llround(v));
              return i >= 0 && static_cast<std::size_t>(i) < tp.textures.size() ? nlohmann::json(tp.textures[static_cast<std::size_t>(i)])
                                                                                 : nlohmann::json(nullptr);
            };
            nlohmann::json keys = nlohmann::json::array();
            if (p.curve >= 0) {
              const curve& c = ma.curves[static_cast<std::size_t>(p.curve)];
              for (float fr : c.frames) keys.push_back({{"frame", fr}, {"texture", tex(c.value(fr))}});
            } else {
              keys.push_back({{"frame", 0}, {"texture", tex(p.base)}});
            }
            pats.push_back({{"animation", tp.name}, {"sampler", p.sampler}, {"frame_count", tp.frame_count},
                            {"loop", tp.loop()}, {"keys", keys}});
          }
        }
      if (!pats.empty()) s.materials.back().extras["texture_pattern_animations"] = pats;
    }
    float radius = 0;
    for (const auto& sh : m.shapes) {
      for (float r : sh.radius) radius = std::max(radius, std::isfinite(r) ? r : 0.0f);
      if (want_lod > 0 && static_cast<std::size_t>(want_lod) >= sh.meshes.size()) lod_clamped = true;
      model_geometry g = decode_shape(f, m, sh, want_lod, bind, ctx);
      if (g.mesh.positions.empty()) continue;
      g.mesh.material = sh.material < m.materials.size() ? material_base + sh.material : -1;
      g.mesh.extras = {{"model", m.name}, {"lod", g.lod}, {"lod_count", sh.meshes.size()},
                       {"skin_count", sh.skin_count}, {"bone", sh.bone},
                       {"material", sh.material < m.materials.size() ? m.materials[sh.material].name : std::string()}};
      if (!g.unused_attribs.empty()) g.mesh.extras["unconverted_attributes"] = g.unused_attribs;
      if (!g.mesh.tangents.empty()) {
        g.mesh.extras["tangents"] = g.tangent_source;
        if (!g.degenerate_tangents.empty()) {
          // Unusable file tangents: from the UV gradients of the normal map's UV set.
          const int tc = g.mesh.material >= 0 ? s.materials[static_cast<std::size_t>(g.mesh.material)].normal_texcoord : 0;
          const auto& uv = tc == 1 && !g.mesh.uvs1.empty() ? g.mesh.uvs1 : g.mesh.uvs;
          const auto made = scene_ops::uv_tangents(g.mesh.positions, g.mesh.normals, uv, g.mesh.indices);
          for (std::uint32_t v : g.degenerate_tangents) g.mesh.tangents[v] = made[v];
          g.mesh.extras["tangents_from_uv"] = g.degenerate_tangents.size();
        }
      }
      if (!sh.key_shapes.empty()) g.mesh.extras["key_shapes"] = sh.key_shapes;
      s.meshes.push_back(std::move(g.mesh));
    }
    // Several models of one file (BotW: the rig and a static copy) side by side, not overlapping.
    if (ski >= 0) {
      if (placed++ > 0) {
        offset_x += radius * 1.25f;
        s.skeletons[static_cast<std::size_t>(ski)].extras["display_offset"] = {offset_x, 0, 0};
      }
      offset_x += radius * 1.25f;
    }
  }
  // Meshes whose file has no tangents but whose material has a normal map: tangents from
  // the UV gradients (glTF convention), so the map goes into glTF's normalTexture.
  std::vector<bool> had(s.meshes.size());
  for (std::size_t i = 0; i < s.meshes.size(); ++i) had[i] = !s.meshes[i].tangents.empty();
  scene_ops::add_missing_tangents(s);
  for (std::size_t i = meshes_before; i < s.meshes.size(); ++i)
    if (!had[i] && !s.meshes[i].tangents.empty()) s.meshes[i].extras["tangents"] = "computed from UV gradients";
  if (lod_clamped)
    ctx.warn(code::w_fallback, "--lod " + std::to_string(want_lod) + " is beyond some shapes' LOD count; their last LOD is used");
}

}  // namespace rigrip::bfres
