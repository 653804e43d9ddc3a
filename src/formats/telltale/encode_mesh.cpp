// Scene -> .d3dmesh, into a template (README.md, "Meshes written back"): the scene's
// meshes replace LOD 0's draw batches (any vertex and triangle count), with the template's
// vertex layout, materials, PropertySets and everything else kept. Coarser LODs become
// copies of the new LOD 0; shadow batches repeat the draw triangles; adjacency is rebuilt.
#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <set>

#include "core/byte_reader.hpp"
#include "core/failure.hpp"
#include "formats/telltale/d3dmesh.hpp"
#include "formats/telltale/encode.hpp"
#include "formats/telltale/symbols.hpp"
#include "scene/tangents.hpp"

namespace rigrip::telltale {

namespace {

struct vtx {
  vec3 p{0, 0, 0};
  vec3 n{0, 1, 0};
  vec4 t{1, 0, 0, 1};
  vec2 uv{0, 0};
  std::optional<vec4> colour;  // none: the template's first vertex's colour stays
  std::array<std::uint16_t, 4> j{0, 0, 0, 0};      // palette indices
  std::array<std::uint16_t, 4> w{65535, 0, 0, 0};  // quantised, sum 65535
};

struct new_batch {
  std::uint32_t first_vertex = 0, vertex_count = 0;
  std::vector<std::uint32_t> tris;  // indices relative to the whole buffer
  int material = 0;
  int template_batch = -1;
};

box3 bounds_of(const std::vector<vtx>& v, std::uint32_t first, std::uint32_t count) {
  box3 b;
  if (count == 0) return b;
  b.min = b.max = v[first].p;
  for (std::uint32_t i = first; i < first + count; ++i)
    for (int c = 0; c < 3; ++c)
      b.min[c] = std::min(b.min[c], v[i].p[c]), b.max[c] = std::max(b.max[c], v[i].p[c]);
  return b;
}
sphere3 sphere_of(const box3& b, const std::vector<const vec3*>& pts) {
  sphere3 s;
  for (int c = 0; c < 3; ++c) s.center[c] = (b.min[c] + b.max[c]) / 2;
  float r2 = 0;
  for (const auto* p : pts) {
    float d = 0;
    for (int c = 0; c < 3; ++c) d += ((*p)[c] - s.center[c]) * ((*p)[c] - s.center[c]);
    r2 = std::max(r2, d);
  }
  s.radius = std::sqrt(r2);
  return s;
}
box3 merge(const box3& a, const box3& b) {
  box3 r;
  for (int c = 0; c < 3; ++c)
    r.min[c] = std::min(a.min[c], b.min[c]), r.max[c] = std::max(a.max[c], b.max[c]);
  return r;
}

// Quantises up to 4 weights to UN16 summing to 65535 (largest remainder).
std::array<std::uint16_t, 4> quantise_weights(const vec4& w) {
  float sum = w[0] + w[1] + w[2] + w[3];
  std::array<double, 4> f{};
  for (int i = 0; i < 4; ++i)
    f[i] = sum > 0 ? std::max(0.0f, w[i]) / sum * 65535.0 : (i == 0 ? 65535.0 : 0.0);
  std::array<std::uint16_t, 4> q{};
  int total = 0;
  for (int i = 0; i < 4; ++i) q[i] = static_cast<std::uint16_t>(std::floor(f[i])), total += q[i];
  while (total < 65535) {
    int best = 0;
    double rem = -1;
    for (int i = 0; i < 4; ++i)
      if (f[i] - q[i] > rem) rem = f[i] - q[i], best = i;
    ++q[best];
    ++total;
    f[best] = q[best];  // each slot gets at most one extra per pass
  }
  return q;
}

// Face-weighted vertex normals for meshes that come without any.
std::vector<vec3> face_normals(const mesh& m) {
  std::vector<vec3> n(m.positions.size(), vec3{0, 0, 0});
  for (std::size_t t = 0; t + 2 < m.indices.size(); t += 3) {
    const auto &a = m.positions[m.indices[t]], &b = m.positions[m.indices[t + 1]],
               &c = m.positions[m.indices[t + 2]];
    vec3 e1{b[0] - a[0], b[1] - a[1], b[2] - a[2]}, e2{c[0] - a[0], c[1] - a[1], c[2] - a[2]};
    vec3 x{e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2],
           e1[0] * e2[1] - e1[1] * e2[0]};
    for (int k = 0; k < 3; ++k)
      for (int i = 0; i < 3; ++i) n[m.indices[t + static_cast<std::size_t>(k)]][i] += x[i];
  }
  for (auto& v : n) {
    float l = std::sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    v = l > 1e-12f ? vec3{v[0] / l, v[1] / l, v[2] / l} : vec3{0, 1, 0};
  }
  return n;
}

// D3D "triangle list with adjacency": v0, n01, v1, n12, v2, n20 where nXY is the far vertex
// of the triangle across edge XY (matched by position, so UV seams still connect); a
// border edge repeats the triangle's own opposite vertex.
std::vector<std::uint32_t> adjacency(const std::vector<vtx>& v,
                                     const std::vector<std::uint32_t>& tris) {
  std::map<std::array<float, 3>, std::uint32_t> weld;
  std::vector<std::uint32_t> id(v.size());
  for (std::size_t i = 0; i < v.size(); ++i)
    id[i] = weld.emplace(v[i].p, static_cast<std::uint32_t>(weld.size())).first->second;
  std::map<std::pair<std::uint32_t, std::uint32_t>, std::uint32_t>
      far;  // directed welded edge -> opposite vertex
  for (std::size_t t = 0; t + 2 < tris.size(); t += 3)
    for (int k = 0; k < 3; ++k) {
      std::uint32_t a = tris[t + static_cast<std::size_t>(k)],
                    b = tris[t + static_cast<std::size_t>((k + 1) % 3)],
                    c = tris[t + static_cast<std::size_t>((k + 2) % 3)];
      far.emplace(std::make_pair(id[a], id[b]), c);
    }
  std::vector<std::uint32_t> out;
  out.reserve(tris.size() * 2);
  for (std::size_t t = 0; t + 2 < tris.size(); t += 3)
    for (int k = 0; k < 3; ++k) {
      std::uint32_t a = tris[t + static_cast<std::size_t>(k)],
                    b = tris[t + static_cast<std::size_t>((k + 1) % 3)],
                    c = tris[t + static_cast<std::size_t>((k + 2) % 3)];
      auto it = far.find({id[b], id[a]});
      out.push_back(a);
      out.push_back(it != far.end() ? it->second : c);
    }
  return out;
}

void put_index(gfx_buffer& b, std::uint32_t i) {
  if (b.stride == 2) {
    b.data.push_back(static_cast<std::uint8_t>(i));
    b.data.push_back(static_cast<std::uint8_t>(i >> 8));
  } else {
    for (int k = 0; k < 4; ++k) b.data.push_back(static_cast<std::uint8_t>(i >> (8 * k)));
  }
}

// Position in the attribute's format: v55 normalised formats against the mesh's
// scale/offset (and the 2-bit quarter on the long axis), floats as they are.
void encode_position(const d3dmesh_file& f, const vertex_attribute& a, const vec3& p, float in[4]) {
  const auto& m = f.mesh;
  bool norm =
      a.format == 41 || (a.format >= 21 && a.format <= 26) || (a.format >= 33 && a.format <= 38);
  if (f.is_v37() || !norm) {
    for (int c = 0; c < 3; ++c) in[c] = p[c];
    in[3] = 1;
    return;
  }
  int wa = -1;
  for (int c = 0; c < 3; ++c) {
    in[c] = m.position_scale[c] > 0 ? (p[c] - m.position_offset[c]) / m.position_scale[c] : 0;
    if (m.position_w_scale[c] > 0) wa = c;
  }
  if (wa >=
      0) {  // the long axis: a quarter index in w, the position inside the quarter in the axis
    float t = (p[wa] - m.position_offset[wa]) / m.position_scale[wa];
    float w = std::clamp(std::floor(t), 0.0f, 3.0f);
    in[3] = w / 3;
    in[wa] = t - w;
  }
}

// The template's LOD 0 vertex state (index in `vsi`), checked to hold what is written into it.
vertex_state& template_vertex_state(d3dmesh_file& f, std::uint32_t& vsi) {
  mesh_data& m = f.mesh;
  if (m.lods.empty()) core::fail(code::bad_value, "the template mesh has no LOD to replace");
  vsi = f.is_v37() ? 0 : m.lods[0].vertex_state_index;
  if (vsi >= m.vertex_states.size())
    core::fail(code::bad_value, "the template's LOD 0 names a missing vertex state");
  vertex_state& vs = m.vertex_states[vsi];
  if (vs.index_buffers.empty() || vs.vertex_buffers.empty())
    core::fail(code::bad_value, "the template has no index or vertex buffer");
  for (const auto& a : vs.attributes)
    if (a.buffer_index >= vs.vertex_buffers.size() ||
        a.buffer_offset + static_cast<std::uint32_t>(gfx_format_size(a.format)) >
            vs.vertex_buffers[a.buffer_index].stride)
      core::fail(code::bad_value, "the template's vertex attributes do not fit its buffers");
  return vs;
}

// The template's bone palette with its symbols indexed; bones the scene adds are appended.
struct palette_map {
  std::vector<mesh_bone>* palette = nullptr;  // null: the template is not skinned
  std::map<std::uint64_t, std::uint16_t> index;
  std::size_t added = 0;

  explicit palette_map(std::vector<mesh_bone>* p) : palette(p) {
    if (palette)
      for (std::size_t i = 0; i < palette->size(); ++i)
        index.emplace((*palette)[i].name, static_cast<std::uint16_t>(i));
  }
  std::uint16_t slot(std::uint64_t sym) {
    auto it = index.find(sym);
    if (it == index.end()) {
      if (palette->size() >= 256)
        core::fail(code::limit_exceeded, "more than 256 bones in the bone palette");
      mesh_bone nbn;
      nbn.name = sym;
      palette->push_back(nbn);
      it = index.emplace(sym, static_cast<std::uint16_t>(palette->size() - 1)).first;
      ++added;
    }
    return it->second;
  }
};

// Material: by name, else the template batch at the same position, else the first. The
// template batch of that material (if any) gives the new batch its other fields.
void pick_material(const scene& s, const mesh& me, const mesh_lod& tlod,
                   const std::map<std::string, int>& material_by_name, std::size_t position,
                   new_batch& nb) {
  nb.material = 0;
  bool named = false;
  if (me.material >= 0 && static_cast<std::size_t>(me.material) < s.materials.size()) {
    auto it = material_by_name.find(s.materials[static_cast<std::size_t>(me.material)].name);
    if (it != material_by_name.end()) nb.material = it->second, named = true;
  }
  if (!named && position < tlod.batches[0].size())
    nb.material = std::max(0, tlod.batches[0][position].material_index);
  for (std::size_t tb = 0; tb < tlod.batches[0].size(); ++tb)
    if (tlod.batches[0][tb].material_index == nb.material) {
      nb.template_batch = static_cast<int>(tb);
      break;
    }
}

// Vertex v's skin as palette slots and quantised weights. Returns false when the vertex
// has no skin (it is then bound to palette slot 0).
bool skin_vertex(const mesh& me, std::size_t v, const skeleton* sk, palette_map& pal, vtx& x) {
  bool skinned = true;
  std::array<int, 4> bones{-1, -1, -1, -1};
  vec4 w{0, 0, 0, 0};
  if (sk && v < me.joints.size()) {
    for (int k = 0; k < 4; ++k) bones[k] = me.joints[v][k], w[k] = me.weights[v][k];
  } else if (sk && me.bone >= 0) {
    bones[0] = me.bone, w[0] = 1;
  } else {
    skinned = false;
  }
  std::array<std::uint16_t, 4> j{0, 0, 0, 0};
  for (int k = 0; k < 4; ++k) {
    if (bones[k] < 0 || !(w[k] > 0) || static_cast<std::size_t>(bones[k]) >= sk->bones.size()) {
      w[k] = 0;
      continue;
    }
    j[k] = pal.slot(symbol_of_label(sk->bones[static_cast<std::size_t>(bones[k])].name));
  }
  if (!(w[0] + w[1] + w[2] + w[3] > 0)) j = {0, 0, 0, 0}, w = {1, 0, 0, 0};
  x.j = j;
  x.w = quantise_weights(w);
  return skinned;
}

// The mesh's triangles (a plain list when it has no indices), offset to the shared buffer.
void add_triangles(const mesh& me, new_batch& nb) {
  std::vector<std::uint32_t> idx = me.indices;
  if (idx.empty())
    for (std::uint32_t k = 0; k + 2 < nb.vertex_count; k += 3) idx.insert(idx.end(), {k, k + 1, k + 2});
  for (auto i : idx) {
    if (i >= nb.vertex_count)
      core::fail(code::bad_value,
                 "mesh '" + me.name + "': index " + std::to_string(i) + " beyond its vertices");
    nb.tris.push_back(i + nb.first_vertex);
  }
  nb.tris.resize(nb.tris.size() / 3 * 3);
}

// The scene's meshes gathered into one vertex buffer, one batch each.
struct gathered {
  std::vector<vtx> verts;
  std::vector<new_batch> batches;
  std::size_t unskinned = 0;  // vertices of a skinned template that carry no skin
};
gathered gather_meshes(const scene& s, const mesh_data& m, palette_map& pal) {
  const auto& tlod = m.lods[0];
  gathered g;
  std::map<std::string, int> material_by_name;
  for (std::size_t i = 0; i < m.materials.size(); ++i)
    material_by_name.emplace(symbol_label(m.materials[i].handle), static_cast<int>(i));
  for (std::size_t mi = 0; mi < s.meshes.size(); ++mi) {
    const mesh& me = s.meshes[mi];
    if (me.positions.empty()) continue;
    new_batch nb;
    nb.first_vertex = static_cast<std::uint32_t>(g.verts.size());
    nb.vertex_count = static_cast<std::uint32_t>(me.positions.size());
    pick_material(s, me, tlod, material_by_name, g.batches.size(), nb);
    std::vector<vec3> normals =
        me.normals.size() == me.positions.size() ? me.normals : face_normals(me);
    const skeleton* sk = me.skeleton >= 0 && static_cast<std::size_t>(me.skeleton) < s.skeletons.size()
                             ? &s.skeletons[static_cast<std::size_t>(me.skeleton)]
                             : nullptr;
    // The glb's own tangents when it has them, else from the UV gradients (glTF's handedness).
    std::vector<vec2> uvs = me.uvs;
    uvs.resize(me.positions.size(), vec2{0, 0});
    std::vector<vec4> tangents = me.tangents;
    if (tangents.size() != me.positions.size())
      tangents = scene_ops::tangents_from_uvs(me.positions, normals, uvs, me.indices);
    // Another tool's tangents need not be unit: SN8 would clamp them. Zero ones take the UV one.
    std::vector<vec4> fallback;
    for (std::size_t v = 0; v < tangents.size(); ++v) {
      auto& t = tangents[v];
      const float l = std::sqrt(t[0] * t[0] + t[1] * t[1] + t[2] * t[2]);
      if (l > 1e-6f && std::isfinite(l)) {
        t = {t[0] / l, t[1] / l, t[2] / l, t[3] < 0 ? -1.0f : 1.0f};
        continue;
      }
      if (fallback.empty())
        fallback = scene_ops::tangents_from_uvs(me.positions, normals, uvs, me.indices);
      t = fallback[v];
    }
    for (std::size_t v = 0; v < me.positions.size(); ++v) {
      vtx x;
      x.p = me.positions[v];
      x.n = normals[v];
      if (v < tangents.size()) x.t = tangents[v];
      if (v < me.uvs.size()) x.uv = me.uvs[v];
      if (v < me.colors.size()) x.colour = me.colors[v];
      if (pal.palette && !skin_vertex(me, v, sk, pal, x)) ++g.unskinned;
      g.verts.push_back(x);
    }
    add_triangles(me, nb);
    g.batches.push_back(std::move(nb));
  }
  return g;
}

// v55 quantisation: positions are stored normalised against the mesh's offset and scale.
void set_position_ranges(const d3dmesh_file& f, mesh_data& m, const box3& total,
                         const vertex_attribute& pos_attr) {
  if (f.is_v37()) return;
  m.position_offset = total.min;
  m.position_w_scale = {0, 0, 0};
  for (int c = 0; c < 3; ++c) m.position_scale[c] = total.max[c] - total.min[c];
  if (pos_attr.format == 41) {  // UN10x3_UN2: the 2-bit w gives the longest axis 2 more bits
    int a = 0;
    for (int c = 1; c < 3; ++c)
      if (m.position_scale[c] > m.position_scale[a]) a = c;
    float ext = m.position_scale[a];
    m.position_scale[a] = ext / 4;
    m.position_w_scale[a] = ext * 3 / 4;
  }
}

struct uv_range {
  float min[2] = {0, 0}, max[2] = {1, 1};
};
uv_range uv_range_of(const std::vector<vtx>& verts) {
  uv_range r;
  if (!verts.empty()) {
    r.min[0] = r.max[0] = verts[0].uv[0];
    r.min[1] = r.max[1] = verts[0].uv[1];
    for (const auto& v : verts)
      for (int c = 0; c < 2; ++c) r.min[c] = std::min(r.min[c], v.uv[c]), r.max[c] = std::max(r.max[c], v.uv[c]);
  }
  return r;
}

// The vertex buffers in the template's layout. Every vertex starts as a copy of the
// template's first vertex (e.g. vertex colour), then each attribute is encoded over it.
void write_vertex_buffers(d3dmesh_file& f, vertex_state& vs, const std::vector<vtx>& verts,
                          const vertex_attribute& pos_attr, const uv_range& uvs) {
  mesh_data& m = f.mesh;
  const std::uint32_t nverts = static_cast<std::uint32_t>(verts.size());
  for (auto& b : vs.vertex_buffers) {
    std::vector<std::uint8_t> first(b.data.begin(),
                                    b.data.begin() + std::min<std::size_t>(b.data.size(), b.stride));
    b.data.assign(std::size_t{nverts} * b.stride, 0);
    for (std::uint32_t v = 0; v < nverts && first.size() == b.stride; ++v)
      std::copy(first.begin(), first.end(), b.data.begin() + std::ptrdiff_t{v} * b.stride);  // e.g. vertex colour
    b.count = nverts;
  }
  for (const auto& a : vs.attributes) {
    texcoord_transform* tx = nullptr;
    for (auto& t : m.texcoord_transforms)
      if (a.attribute == 6 && t.index == a.attribute_index) tx = &t;
    if (tx && a.format >= 21 && a.format <= 26)  // normalised UVs: fit the transform to the UVs
      for (int c = 0; c < 2; ++c) {
        float ext = uvs.max[c] - uvs.min[c];
        tx->scale[c] = ext > 0 ? ext : 1;
        tx->offset[c] = uvs.min[c];
      }
    // Colour: the scene's in the set decode reads; else the template's first vertex, copied above.
    if (a.attribute == 5 && a.attribute_index != lowest_attribute_set(vs, 5)) continue;
    gfx_buffer& b = vs.vertex_buffers[a.buffer_index];
    for (std::uint32_t v = 0; v < nverts; ++v) {
      std::uint8_t* out = b.data.data() + std::size_t{v} * b.stride + a.buffer_offset;
      const vtx& x = verts[v];
      if (a.attribute == 5 && !x.colour) continue;
      if (a.attribute == 3 && a.format == 26) {  // UN16x4 weights: exactly the quantised sums
        for (int c = 0; c < 4; ++c)
          out[2 * c] = static_cast<std::uint8_t>(x.w[c]),
                  out[2 * c + 1] = static_cast<std::uint8_t>(x.w[c] >> 8);
        continue;
      }
      float in[4] = {0, 0, 0, 0};
      switch (a.attribute) {
        case 0:
          encode_position(f, pos_attr, x.p, in);
          break;
        case 1:
          for (int c = 0; c < 3; ++c) in[c] = x.n[c];
          break;
        case 2:
          for (int c = 0; c < 4; ++c) in[c] = x.t[c];
          break;
        case 3:
          for (int c = 0; c < 4; ++c) in[c] = static_cast<float>(x.w[c]) / 65535.0f;
          break;
        case 4:
          for (int c = 0; c < 4; ++c) in[c] = x.j[c];
          break;
        case 5:
          for (int c = 0; c < 4; ++c) in[c] = (*x.colour)[c];
          break;
        case 6:
          for (int c = 0; c < 2; ++c)
            in[c] = tx ? (x.uv[c] - tx->offset[c]) / (tx->scale[c] != 0 ? tx->scale[c] : 1) : x.uv[c];
          break;
        default:
          break;
      }
      if (!gfx_encode(a.format, in, out))
        core::fail(code::unsupported_feature, std::string("cannot write the template's ") +
                                                  gfx_attribute_name(a.attribute) + " format " +
                                                  gfx_format_name(a.format));
    }
  }
}

// The batch lists of every LOD after the rewrite.
struct batch_lists {
  std::vector<mesh_batch> draw, shadow;
};

// Index buffers: the draw triangles, then (when the template had them) their adjacency;
// the shadow buffer, if the template has one, repeats the draw triangles.
batch_lists write_index_buffers(const mesh_data& m, vertex_state& vs, const std::vector<vtx>& verts,
                                const std::vector<new_batch>& batches) {
  const auto& tlod = m.lods[0];
  const std::uint32_t nverts = static_cast<std::uint32_t>(verts.size());
  gfx_buffer& ib = vs.index_buffers[0];
  if (ib.stride == 2 && nverts > 65535)
    core::fail(code::limit_exceeded, "the template's 16-bit index buffer cannot address " +
                                         std::to_string(nverts) + " vertices");
  std::uint64_t template_draw = 0;
  for (const auto& l : m.lods)
    for (const auto& b : l.batches[0]) template_draw += std::uint64_t{b.num_primitives} * 3;
  const bool with_adjacency = ib.count > template_draw;
  ib.data.clear();
  batch_lists out;
  auto& draw = out.draw;
  std::uint32_t at = 0;
  for (const auto& nb : batches) {
    mesh_batch b = nb.template_batch >= 0 ? tlod.batches[0][static_cast<std::size_t>(nb.template_batch)]
                   : tlod.batches[0].empty() ? mesh_batch{}
                                             : tlod.batches[0][0];
    b.material_index = nb.material;
    b.start_index = at;
    b.num_primitives = static_cast<std::uint32_t>(nb.tris.size() / 3);
    b.num_indices = static_cast<std::uint32_t>(nb.tris.size());
    b.base_index = 0;
    b.min_vertex = nb.first_vertex;
    b.max_vertex = nb.first_vertex + (nb.vertex_count ? nb.vertex_count - 1 : 0);
    b.box = bounds_of(verts, nb.first_vertex, nb.vertex_count);
    std::vector<const vec3*> pts;
    for (std::uint32_t v = 0; v < nb.vertex_count; ++v) pts.push_back(&verts[nb.first_vertex + v].p);
    b.sphere = sphere_of(b.box, pts);
    for (auto i : nb.tris) put_index(ib, i);
    at += static_cast<std::uint32_t>(nb.tris.size());
    draw.push_back(b);
  }
  for (std::size_t k = 0; k < batches.size(); ++k) {
    draw[k].adjacency_start = with_adjacency ? at : 0;
    if (with_adjacency) {
      auto adj = adjacency(verts, batches[k].tris);
      for (auto i : adj) put_index(ib, i);
      at += static_cast<std::uint32_t>(adj.size());
    }
  }
  ib.count = at;
  if (vs.index_buffers.size() > 1 && !tlod.batches[1].empty()) {
    gfx_buffer& sb = vs.index_buffers[1];
    if (sb.stride == 2 && nverts > 65535) core::fail(code::limit_exceeded, "16-bit shadow index buffer");
    sb.data.clear();
    std::uint32_t sat = 0;
    for (std::size_t k = 0; k < batches.size(); ++k) {
      mesh_batch b = draw[k];
      b.start_index = sat;
      b.adjacency_start = 0;
      for (auto i : batches[k].tris) put_index(sb, i);
      sat += static_cast<std::uint32_t>(batches[k].tris.size());
      out.shadow.push_back(b);
    }
    sb.count = sat;
  } else if (!tlod.batches[1].empty()) {
    out.shadow = draw;
  }
  return out;
}

// Each palette bone's vertex count and bounds from the vertices it weights; returns the
// symbols of the bones that weight any vertex (the LODs' bone lists).
std::vector<std::uint64_t> update_palette_bounds(std::vector<mesh_bone>& palette,
                                                 const std::vector<vtx>& verts) {
  std::vector<std::uint64_t> used_bones;
  std::vector<int> count(palette.size(), 0);
  std::vector<box3> bb(palette.size());
  std::vector<std::vector<const vec3*>> bp(palette.size());
  for (const auto& v : verts)
    for (int k = 0; k < 4; ++k)
      if (v.w[k] > 0) {
        auto j = v.j[k];
        if (count[j] == 0)
          bb[j].min = bb[j].max = v.p;
        else
          bb[j] = merge(bb[j], box3{v.p, v.p});
        ++count[j];
        bp[j].push_back(&v.p);
      }
  for (std::size_t j = 0; j < palette.size(); ++j) {
    palette[j].num_vertices = count[j];
    if (count[j]) {
      palette[j].box = bb[j];
      palette[j].sphere = sphere_of(bb[j], bp[j]);
      used_bones.push_back(palette[j].name);
    }
  }
  return used_bones;
}

// Every material's bounds from the batches that use it (unused materials keep theirs).
void update_material_bounds(mesh_data& m, const std::vector<vtx>& verts,
                            const std::vector<new_batch>& batches) {
  for (std::size_t i = 0; i < m.materials.size(); ++i) {
    bool any = false;
    box3 bb;
    std::vector<const vec3*> pts;
    for (const auto& b : batches)
      if (b.material == static_cast<int>(i)) {
        box3 x = bounds_of(verts, b.first_vertex, b.vertex_count);
        bb = any ? merge(bb, x) : x;
        any = true;
        for (std::uint32_t v = 0; v < b.vertex_count; ++v) pts.push_back(&verts[b.first_vertex + v].p);
      }
    if (any) m.materials[i].box = bb, m.materials[i].sphere = sphere_of(bb, pts);
  }
}

}  // namespace

result<bytes> pack_d3dmesh(const scene& s, const pack_context& ctx) {
  return core::guarded(ctx.output_path, "telltale-d3dmesh", [&]() -> bytes {
    if (!ctx.template_file)
      core::fail(code::usage,
                 "telltale-d3dmesh pack needs --template ORIGINAL.d3dmesh: materials, vertex "
                 "layout and everything the "
                 "scene does not hold come from it");
    d3dmesh_file f = parse_d3dmesh(*ctx.template_file);
    mesh_data& m = f.mesh;
    std::uint32_t vsi = 0;
    vertex_state& vs = template_vertex_state(f, vsi);
    auto has_attr = [&](int a) {
      return std::any_of(vs.attributes.begin(), vs.attributes.end(),
                         [&](const vertex_attribute& x) { return x.attribute == a; });
    };
    const bool skinned = has_attr(3) && has_attr(4) && !m.bone_palettes.empty();
    palette_map pal(skinned ? &m.bone_palettes[0] : nullptr);

    gathered g = gather_meshes(s, m, pal);
    const std::vector<vtx>& verts = g.verts;
    if (g.batches.empty()) core::fail(code::invalid_scene, "the scene has no mesh to write");
    if (g.unskinned)
      ctx.warn(code::w_lossy, std::to_string(g.unskinned) +
                                  " vertices carry no skin; bound to the first palette bone");
    if (pal.added)
      ctx.warn(code::w_lossy,
               std::to_string(pal.added) + " bones were not in the template's palette; appended");
    const std::uint32_t nverts = static_cast<std::uint32_t>(verts.size());

    box3 total = bounds_of(verts, 0, nverts);
    const vertex_attribute* pos_attr = nullptr;
    for (const auto& a : vs.attributes)
      if (a.attribute == 0 && a.attribute_index == 0) pos_attr = &a;
    if (!pos_attr) core::fail(code::bad_value, "the template has no position attribute");
    set_position_ranges(f, m, total, *pos_attr);
    write_vertex_buffers(f, vs, verts, *pos_attr, uv_range_of(verts));
    if (!has_attr(5) &&
        std::any_of(verts.begin(), verts.end(), [](const vtx& v) { return v.colour.has_value(); }))
      ctx.warn(code::w_lossy, "the template has no colour attribute: vertex colours are dropped");
    bool uv_other = std::any_of(
        vs.attributes.begin(), vs.attributes.end(),
        [](const vertex_attribute& a) { return a.attribute == 6 && a.attribute_index != 0; });
    if (uv_other)
      ctx.warn(code::w_lossy,
               "texture coordinate sets other than 0 (e.g. lightmap UVs) are written from set 0");
    const batch_lists lists = write_index_buffers(m, vs, verts, g.batches);

    // ---- LODs (all repeat the new LOD 0), bounds, bone entries
    std::vector<const vec3*> all_pts;
    for (const auto& v : verts) all_pts.push_back(&v.p);
    m.box = total;
    m.sphere = sphere_of(total, all_pts);
    m.vertex_count = nverts;
    std::uint32_t prims = 0;
    for (const auto& b : lists.draw) prims += b.num_primitives;
    for (const auto& b : lists.shadow) prims += b.num_primitives;
    std::vector<std::uint64_t> used_bones;
    if (pal.palette) used_bones = update_palette_bounds(*pal.palette, verts);
    for (auto& l : m.lods) {
      l.batches[0] = lists.draw;
      l.batches[1] = lists.shadow;
      l.box = total;
      l.sphere = m.sphere;
      l.num_primitives = prims;
      l.num_batches = static_cast<std::uint32_t>(lists.draw.size() + lists.shadow.size());
      if (!f.is_v37()) {
        l.vertex_state_index = vsi;
        l.vertex_start = 0;
        l.vertex_count = nverts;
      }
      if (pal.palette) l.bones = used_bones;
    }
    if (m.lods.size() > 1)
      ctx.warn(code::w_lossy,
               std::to_string(m.lods.size() - 1) + " coarser LODs now repeat the new LOD 0");
    update_material_bounds(m, verts, g.batches);
    return write_d3dmesh(f);
  });
}

}  // namespace rigrip::telltale
