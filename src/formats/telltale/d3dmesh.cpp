// Raw .d3dmesh bodies. Layout: README.md ("D3DMesh").
#include "formats/telltale/d3dmesh.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <functional>

#include "core/byte_reader.hpp"
#include "formats/telltale/blocks.hpp"
#include "formats/telltale/symbols.hpp"

namespace rigrip::telltale {

using core::byte_reader;
using core::byte_writer;
using core::fail;

namespace {

constexpr std::uint32_t max_elements = 1u << 24;  // any DCArray; real files hold hundreds

// A blocked member (blocks.hpp); this file's members change with the class version, so a
// size that disagrees says so.
template <class Fn>
void read_block(byte_reader& r, const char* what, Fn&& fn) {
  blocks::read_block(r, what, std::forward<Fn>(fn), " (a different class version?)");
}
using blocks::write_block;

std::vector<std::uint8_t> read_opaque_block(byte_reader& r, const char* what) {
  std::uint64_t at = r.abs();
  std::uint32_t size = r.u32_at(r.tell());
  if (size < 4 || size > r.remaining())
    fail(code::bad_count,
         std::string(what) + ": block size " + std::to_string(size) + " outside 4.." +
             std::to_string(r.remaining()),
         at);
  auto b = r.bytes(size);
  return {b.begin(), b.end()};
}

std::uint32_t read_count(byte_reader& r, std::uint64_t min_elem, const char* what) {
  std::uint32_t n = r.u32();
  if (n > max_elements)
    fail(code::bad_count, std::string(what) + ": count " + std::to_string(n) + " is implausible",
         r.abs() - 4);
  r.checked_count(n, min_elem, what);
  return n;
}

std::uint8_t read_bool(byte_reader& r, const char* what) {
  std::uint8_t b = r.u8();
  if (b != '0' && b != '1')
    fail(code::bad_value,
         std::string(what) + ": bool must be the byte '0' or '1', found " + byte_reader::hex(b),
         r.abs() - 1);
  return b;
}

std::array<float, 3> read_v3(byte_reader& r) {
  return {r.f32(), r.f32(), r.f32()};
}
box3 read_box(byte_reader& r) {
  return {read_v3(r), read_v3(r)};
}
sphere3 read_sphere(byte_reader& r) {
  sphere3 s;
  read_block(r, "Sphere", [&](byte_reader& b) {
    s.center = read_v3(b);
    s.radius = b.f32();
  });
  return s;
}
std::uint32_t read_bitset1(byte_reader& r, const char* what) {
  std::uint32_t v = 0;
  read_block(r, what, [&](byte_reader& b) { v = b.u32(); });
  return v;
}
std::uint64_t read_handle(byte_reader& r) {
  std::uint64_t v = 0;
  read_block(r, "Handle", [&](byte_reader& b) { v = b.u64(); });
  return v;
}

mesh_batch read_batch(byte_reader& r, bool v37) {
  mesh_batch b;
  b.box = read_box(r);
  b.sphere = read_sphere(r);
  b.usage = r.u32();
  b.min_vertex = r.u32();
  b.max_vertex = r.u32();
  if (!v37) b.base_index = r.u32();
  b.start_index = r.u32();
  b.num_primitives = r.u32();
  if (!v37) b.num_indices = r.u32();
  read_block(r, "T3MeshTextureIndices", [&](byte_reader& t) {
    while (true) {
      std::uint32_t slot = t.u32();
      if (slot == 0xFFFFFFFFu) break;
      if (b.texture_indices.size() >= 64)
        fail(code::bad_count, "T3MeshTextureIndices: more than 64 entries", t.abs());
      b.texture_indices.emplace_back(slot, t.i32());
    }
  });
  b.material_index = r.i32();
  if (v37) {
    b.bone_palette_index = r.i32();
    b.local_transform_index = r.i32();
  }
  b.adjacency_start = r.u32();
  return b;
}

mesh_lod read_lod(byte_reader& r, bool v37) {
  mesh_lod l;
  for (int k = 0; k < 2; ++k)
    read_block(r, "T3MeshLOD.mBatches", [&](byte_reader& b) {
      std::uint32_t n = read_count(b, 60, "T3MeshLOD.mBatches");
      for (std::uint32_t i = 0; i < n; ++i) l.batches[k].push_back(read_batch(b, v37));
    });
  l.vertex_streams = read_bitset1(r, "T3MeshLOD.mVertexStreams");
  l.box = read_box(r);
  l.sphere = read_sphere(r);
  l.flags = r.u32();
  if (v37) {
    l.num_primitives = r.u32();
    l.num_batches = r.u32();
    l.pixel_size = r.f32();
  } else {
    l.vertex_state_index = r.u32();
    l.num_primitives = r.u32();
    l.num_batches = r.u32();
    l.vertex_start = r.u32();
    l.vertex_count = r.u32();
    l.atlas_width = r.u32();
    l.atlas_height = r.u32();
    l.pixel_size = r.f32();
    l.distance = r.f32();
  }
  read_block(r, "T3MeshLOD.mBones", [&](byte_reader& b) {
    std::uint32_t n = read_count(b, 8, "T3MeshLOD.mBones");
    for (std::uint32_t i = 0; i < n; ++i) l.bones.push_back(b.u64());
  });
  return l;
}

mesh_bone read_bone(byte_reader& r) {
  mesh_bone b;
  b.name = r.u64();
  b.box = read_box(r);
  b.sphere = read_sphere(r);
  b.num_vertices = r.i32();
  return b;
}

vertex_state read_vertex_state(byte_reader& r) {
  vertex_state v;
  v.vertex_count_per_instance = r.u32();
  std::uint32_t nib = r.u32(), nvb = r.u32(), nattr = r.u32();
  if (nib > 64 || nvb > 64 || nattr > 64)
    fail(code::bad_count,
         "T3GFXVertexState: " + std::to_string(nib) + " index buffers, " + std::to_string(nvb) +
             " vertex buffers, " + std::to_string(nattr) + " attributes (at most 64 each)",
         r.abs() - 12);
  r.checked_count(std::uint64_t{nattr} * 20 + std::uint64_t{nib + nvb} * 20, 1, "T3GFXVertexState");
  for (std::uint32_t i = 0; i < nattr; ++i) {
    vertex_attribute a;
    a.attribute = r.i32();
    a.format = r.i32();
    a.attribute_index = r.u32();
    a.buffer_index = r.u32();
    a.buffer_offset = r.u32();
    v.attributes.push_back(a);
  }
  auto buffer = [&] {
    gfx_buffer b;
    b.resource_usage = r.i32();
    b.buffer_format = r.i32();
    b.buffer_usage = r.u32();
    b.count = r.u32();
    b.stride = r.u32();
    return b;
  };
  for (std::uint32_t i = 0; i < nib; ++i) v.index_buffers.push_back(buffer());
  for (std::uint32_t i = 0; i < nvb; ++i) v.vertex_buffers.push_back(buffer());
  return v;
}

void read_mesh_data(byte_reader& r, d3dmesh_file& f) {
  const bool v37 = f.is_v37();
  mesh_data& m = f.mesh;
  read_block(r, "T3MeshData.mLODs", [&](byte_reader& b) {
    std::uint32_t n = read_count(b, 100, "T3MeshData.mLODs");
    for (std::uint32_t i = 0; i < n; ++i) m.lods.push_back(read_lod(b, v37));
  });
  read_block(r, "T3MeshData.mTextures", [&](byte_reader& b) {
    std::uint32_t n = read_count(b, 76, "T3MeshData.mTextures");
    for (std::uint32_t i = 0; i < n; ++i) {
      mesh_texture t;
      t.type = b.i32();
      t.handle = read_handle(b);
      t.name = b.u64();
      t.box = read_box(b);
      t.sphere = read_sphere(b);
      t.max_area = b.f32();
      t.average_area = b.f32();
      m.textures.push_back(t);
    }
  });
  read_block(r, "T3MeshData.mMaterials", [&](byte_reader& b) {
    std::uint32_t n = read_count(b, 76, "T3MeshData.mMaterials");
    for (std::uint32_t i = 0; i < n; ++i) {
      mesh_material t;
      t.handle = read_handle(b);
      t.base_material = b.u64();
      t.legacy_texture_property = b.u64();
      t.box = read_box(b);
      t.sphere = read_sphere(b);
      t.flags = b.u32();
      m.materials.push_back(t);
    }
  });
  read_block(r, "T3MeshData.mMaterialOverrides", [&](byte_reader& b) {
    std::uint32_t n = read_count(b, 16, "T3MeshData.mMaterialOverrides");
    for (std::uint32_t i = 0; i < n; ++i) {
      std::uint64_t h = read_handle(b);
      m.material_overrides.emplace_back(h, b.u32());
    }
  });
  read_block(r, "T3MeshData.mBones", [&](byte_reader& b) {
    if (v37) {  // DCArray<DCArray<T3MeshBoneEntry>>: one palette per bone-palette index
      std::uint32_t np = read_count(b, 4, "T3MeshData bone palettes");
      for (std::uint32_t p = 0; p < np; ++p) {
        std::uint32_t n = read_count(b, 56, "T3MeshData bone palette");
        std::vector<mesh_bone> pal;
        for (std::uint32_t i = 0; i < n; ++i) pal.push_back(read_bone(b));
        m.bone_palettes.push_back(std::move(pal));
      }
    } else {
      std::uint32_t n = read_count(b, 56, "T3MeshData.mBones");
      std::vector<mesh_bone> pal;
      for (std::uint32_t i = 0; i < n; ++i) pal.push_back(read_bone(b));
      m.bone_palettes.push_back(std::move(pal));
    }
  });
  read_block(r, "T3MeshData.mLocalTransforms", [&](byte_reader& b) {
    std::uint32_t n = read_count(b, 36, "T3MeshData.mLocalTransforms");
    for (std::uint32_t i = 0; i < n; ++i) {
      local_transform t;
      read_block(b, "Transform", [&](byte_reader& x) {
        for (auto& q : t.rotation) q = x.f32();
        t.translation = read_v3(x);
      });
      t.camera_facing = b.i32();
      m.local_transforms.push_back(t);
    }
  });
  m.material_requirements = read_opaque_block(r, "T3MeshData.mMaterialRequirements");
  m.vertex_streams = read_bitset1(r, "T3MeshData.mVertexStreams");
  m.box = read_box(r);
  m.sphere = read_sphere(r);
  m.endian = r.i32();
  if (!v37) {
    m.position_scale = read_v3(r);
    m.position_w_scale = read_v3(r);
    m.position_offset = read_v3(r);
  }
  m.lightmap_texel_area = r.f32();
  m.property_key_base = r.u64();
  m.vertex_count = r.u32();
  m.flags = r.u32();
  if (!v37) m.mesh_preload = read_opaque_block(r, "T3MeshData.mMeshPreload");
  std::uint32_t ntc = read_count(r, v37 ? 20 : 24, "texture coordinate transforms");
  if (ntc > 16)
    fail(code::bad_count, "texture coordinate transforms: " + std::to_string(ntc) + " (at most 16)",
         r.abs() - 4);
  for (std::uint32_t i = 0; i < ntc; ++i) {
    texcoord_transform t;
    t.index = r.u32();
    auto body = [&](byte_reader& x) {
      t.scale = {x.f32(), x.f32()};
      t.offset = {x.f32(), x.f32()};
    };
    if (v37)
      body(r);
    else
      read_block(r, "T3MeshTexCoordTransform", body);
    m.texcoord_transforms.push_back(t);
  }
  if (m.flags & mesh_flag_cpu_skinning)
    m.cpu_skinning = read_opaque_block(r, "T3MeshCPUSkinningData");
  std::uint32_t nvs = read_count(r, 16, "T3MeshData.mVertexStates");
  if (nvs > 256)
    fail(code::bad_count, "T3MeshData.mVertexStates: " + std::to_string(nvs) + " (at most 256)",
         r.abs() - 4);
  for (std::uint32_t i = 0; i < nvs; ++i) m.vertex_states.push_back(read_vertex_state(r));
}

void write_v3(byte_writer& w, const std::array<float, 3>& v) {
  for (float x : v) w.f32(x);
}
void write_box(byte_writer& w, const box3& b) {
  write_v3(w, b.min);
  write_v3(w, b.max);
}
void write_sphere(byte_writer& w, const sphere3& s) {
  write_block(w, [&] {
    write_v3(w, s.center);
    w.f32(s.radius);
  });
}
void write_u32_block(byte_writer& w, std::uint32_t v) {
  write_block(w, [&] { w.u32(v); });
}
void write_handle(byte_writer& w, std::uint64_t h) {
  write_block(w, [&] { w.u64(h); });
}
void write_bone(byte_writer& w, const mesh_bone& b) {
  w.u64(b.name);
  write_box(w, b.box);
  write_sphere(w, b.sphere);
  w.i32(b.num_vertices);
}

// The writers below mirror the readers above, section by section; `v37` selects the
// older layout (no per-batch base/num indices, per-batch palette and transform indices).

// Everything before the T3MeshData block: name, version, resources, tool data, occlusion.
void write_header(byte_writer& w, const d3dmesh_file& f) {
  const bool v37 = f.is_v37();
  write_block(w, [&] {
    w.u32(static_cast<std::uint32_t>(f.name.size()));
    w.bytes(std::span(reinterpret_cast<const std::uint8_t*>(f.name.data()), f.name.size()));
  });
  w.i32(f.version);
  w.u8(f.tool_props);
  if (v37) {
    w.u32(f.v37_fields[0]);
    w.u32(f.v37_fields[1]);
  }
  w.f32(f.lightmap_global_scale);
  w.i32(f.lightmap_texcoord_version);
  w.u64(f.lod_param_crc);
  w.u32(static_cast<std::uint32_t>(f.resources.size()));
  for (const auto& res : f.resources) {
    w.u64(res.name);
    w.u64(res.type);
    w.u32(static_cast<std::uint32_t>(res.body.size() + 4));
    w.bytes(res.body);
  }
  w.i32(f.tool_data);
  w.bytes(f.tool_data_block);
  if (!v37) {
    w.u8(f.has_occlusion);
    w.bytes(f.occlusion_block);
  }
}

void write_batch(byte_writer& w, const mesh_batch& b, bool v37) {
  write_box(w, b.box);
  write_sphere(w, b.sphere);
  w.u32(b.usage);
  w.u32(b.min_vertex);
  w.u32(b.max_vertex);
  if (!v37) w.u32(b.base_index);
  w.u32(b.start_index);
  w.u32(b.num_primitives);
  if (!v37) w.u32(b.num_indices);
  write_block(w, [&] {
    for (const auto& [slot, idx] : b.texture_indices) {
      w.u32(slot);
      w.i32(idx);
    }
    w.u32(0xFFFFFFFFu);
  });
  w.i32(b.material_index);
  if (v37) {
    w.i32(b.bone_palette_index);
    w.i32(b.local_transform_index);
  }
  w.u32(b.adjacency_start);
}

// One LOD: its draw and shadow batch lists, then the LOD's own fields and bone list.
void write_lod(byte_writer& w, const mesh_lod& l, bool v37) {
  for (int k = 0; k < 2; ++k)
    write_block(w, [&] {
      w.u32(static_cast<std::uint32_t>(l.batches[k].size()));
      for (const auto& b : l.batches[k]) write_batch(w, b, v37);
    });
  write_u32_block(w, l.vertex_streams);
  write_box(w, l.box);
  write_sphere(w, l.sphere);
  w.u32(l.flags);
  if (v37) {
    w.u32(l.num_primitives);
    w.u32(l.num_batches);
    w.f32(l.pixel_size);
  } else {
    w.u32(l.vertex_state_index);
    w.u32(l.num_primitives);
    w.u32(l.num_batches);
    w.u32(l.vertex_start);
    w.u32(l.vertex_count);
    w.u32(l.atlas_width);
    w.u32(l.atlas_height);
    w.f32(l.pixel_size);
    w.f32(l.distance);
  }
  write_block(w, [&] {
    w.u32(static_cast<std::uint32_t>(l.bones.size()));
    for (auto s : l.bones) w.u64(s);
  });
}

// The blocked lists after the LODs: textures, materials, material overrides, bone
// palettes (v37: all of them; later versions: one), local transforms.
void write_mesh_lists(byte_writer& w, const mesh_data& m, bool v37) {
  write_block(w, [&] {
    w.u32(static_cast<std::uint32_t>(m.textures.size()));
    for (const auto& t : m.textures) {
      w.i32(t.type);
      write_handle(w, t.handle);
      w.u64(t.name);
      write_box(w, t.box);
      write_sphere(w, t.sphere);
      w.f32(t.max_area);
      w.f32(t.average_area);
    }
  });
  write_block(w, [&] {
    w.u32(static_cast<std::uint32_t>(m.materials.size()));
    for (const auto& t : m.materials) {
      write_handle(w, t.handle);
      w.u64(t.base_material);
      w.u64(t.legacy_texture_property);
      write_box(w, t.box);
      write_sphere(w, t.sphere);
      w.u32(t.flags);
    }
  });
  write_block(w, [&] {
    w.u32(static_cast<std::uint32_t>(m.material_overrides.size()));
    for (const auto& [h, i] : m.material_overrides) {
      write_handle(w, h);
      w.u32(i);
    }
  });
  write_block(w, [&] {
    if (v37) {
      w.u32(static_cast<std::uint32_t>(m.bone_palettes.size()));
      for (const auto& p : m.bone_palettes) {
        w.u32(static_cast<std::uint32_t>(p.size()));
        for (const auto& b : p) write_bone(w, b);
      }
    } else {
      const auto* p = m.bone_palettes.empty() ? nullptr : &m.bone_palettes[0];
      w.u32(p ? static_cast<std::uint32_t>(p->size()) : 0u);
      if (p)
        for (const auto& b : *p) write_bone(w, b);
    }
  });
  write_block(w, [&] {
    w.u32(static_cast<std::uint32_t>(m.local_transforms.size()));
    for (const auto& t : m.local_transforms) {
      write_block(w, [&] {
        for (float q : t.rotation) w.f32(q);
        write_v3(w, t.translation);
      });
      w.i32(t.camera_facing);
    }
  });
}

// The mesh-wide fields between the lists and the vertex states: bounds, quantisation
// ranges (v55), counts, flags and the texture coordinate transforms.
void write_mesh_fields(byte_writer& w, const mesh_data& m, bool v37) {
  w.bytes(m.material_requirements);
  write_u32_block(w, m.vertex_streams);
  write_box(w, m.box);
  write_sphere(w, m.sphere);
  w.i32(m.endian);
  if (!v37) {
    write_v3(w, m.position_scale);
    write_v3(w, m.position_w_scale);
    write_v3(w, m.position_offset);
  }
  w.f32(m.lightmap_texel_area);
  w.u64(m.property_key_base);
  w.u32(m.vertex_count);
  w.u32(m.flags);
  if (!v37) w.bytes(m.mesh_preload);
  w.u32(static_cast<std::uint32_t>(m.texcoord_transforms.size()));
  for (const auto& t : m.texcoord_transforms) {
    w.u32(t.index);
    auto body = [&] {
      w.f32(t.scale[0]);
      w.f32(t.scale[1]);
      w.f32(t.offset[0]);
      w.f32(t.offset[1]);
    };
    if (v37)
      body();
    else
      write_block(w, body);
  }
}

// A vertex state's description; its buffers' bytes go to the async section.
void write_vertex_state(byte_writer& w, const vertex_state& vs) {
  w.u32(vs.vertex_count_per_instance);
  w.u32(static_cast<std::uint32_t>(vs.index_buffers.size()));
  w.u32(static_cast<std::uint32_t>(vs.vertex_buffers.size()));
  w.u32(static_cast<std::uint32_t>(vs.attributes.size()));
  for (const auto& a : vs.attributes) {
    w.i32(a.attribute);
    w.i32(a.format);
    w.u32(a.attribute_index);
    w.u32(a.buffer_index);
    w.u32(a.buffer_offset);
  }
  for (const auto* list : {&vs.index_buffers, &vs.vertex_buffers})
    for (const auto& b : *list) {
      w.i32(b.resource_usage);
      w.i32(b.buffer_format);
      w.u32(b.buffer_usage);
      w.u32(b.count);
      w.u32(b.stride);
    }
}

}  // namespace

d3dmesh_file parse_d3dmesh(std::span<const std::uint8_t> file) {
  d3dmesh_file f;
  f.ms = parse_metastream(file);
  if (!f.ms.has_class(sym_d3dmesh))
    fail(code::bad_magic, "MetaStream without a 'D3DMesh' class in its class table: not a mesh",
         16);
  byte_reader r(f.ms.default_section, core::endian::little, f.ms.default_offset);
  read_block(r, "D3DMesh.mName", [&](byte_reader& b) {
    std::uint32_t n = b.u32();
    auto s = b.bytes(n);
    f.name.assign(s.begin(), s.end());
  });
  f.version = r.i32();
  if (f.version != 37 && f.version != 55)
    fail(code::unsupported_version,
         "D3DMesh mVersion " + std::to_string(f.version) +
             " is not supported; mVersion 55 (The Walking Dead Definitive Series) and 37 are read",
         r.abs() - 4);
  f.tool_props = read_bool(r, "D3DMesh.mToolProps");
  if (f.tool_props == '1')
    fail(code::unsupported_feature, "D3DMesh.mToolProps holds a PropertySet; not supported",
         r.abs() - 1);
  if (f.is_v37()) f.v37_fields = {r.u32(), r.u32()};
  f.lightmap_global_scale = r.f32();
  f.lightmap_texcoord_version = r.i32();
  f.lod_param_crc = r.u64();
  std::uint32_t nres = read_count(r, 20, "D3DMesh internal resources");
  for (std::uint32_t i = 0; i < nres; ++i) {
    internal_resource res;
    res.name = r.u64();
    res.type = r.u64();
    auto b = read_opaque_block(r, "D3DMesh internal resource");
    res.body.assign(b.begin() + 4, b.end());
    f.resources.push_back(std::move(res));
  }
  f.tool_data = r.i32();
  if (f.tool_data > 0) f.tool_data_block = read_opaque_block(r, "D3DMesh tool data");
  if (!f.is_v37()) {
    f.has_occlusion = read_bool(r, "D3DMesh occlusion flag");
    if (f.has_occlusion == '1') f.occlusion_block = read_opaque_block(r, "T3OcclusionMeshData");
  }
  f.mesh_data_offset = r.abs();
  read_block(r, "T3MeshData", [&](byte_reader& b) { read_mesh_data(b, f); });
  if (!r.eof())
    fail(code::bad_value,
         std::to_string(r.remaining()) + " bytes after T3MeshData in the default section", r.abs());

  // The async section holds every vertex state's index buffers, then its vertex buffers.
  const std::uint64_t async_base =
      f.ms.default_offset + f.ms.default_section.size() + f.ms.debug_section.size();
  f.async_offset = async_base;
  byte_reader a(f.ms.async_section, core::endian::little, async_base);
  for (auto& vs : f.mesh.vertex_states) {
    for (auto* list : {&vs.index_buffers, &vs.vertex_buffers})
      for (auto& b : *list) {
        if (b.stride == 0 || b.stride > 256)
          fail(code::bad_value,
               "T3GFXBuffer stride " + std::to_string(b.stride) + " outside 1..256",
               f.mesh_data_offset);
        a.checked_count(b.count, b.stride, "T3GFXBuffer data in the async section");
        auto d = a.bytes(std::uint64_t{b.count} * b.stride);
        b.data.assign(d.begin(), d.end());
      }
  }
  auto rest = a.bytes(a.remaining());
  f.trailing_async.assign(rest.begin(), rest.end());
  return f;
}

std::vector<std::uint8_t> write_d3dmesh(const d3dmesh_file& f) {
  const bool v37 = f.is_v37();
  const mesh_data& m = f.mesh;
  byte_writer w;
  write_header(w, f);
  write_block(w, [&] {  // T3MeshData
    write_block(w, [&] {
      w.u32(static_cast<std::uint32_t>(m.lods.size()));
      for (const auto& l : m.lods) write_lod(w, l, v37);
    });
    write_mesh_lists(w, m, v37);
    write_mesh_fields(w, m, v37);
    w.bytes(m.cpu_skinning);
    w.u32(static_cast<std::uint32_t>(m.vertex_states.size()));
    for (const auto& vs : m.vertex_states) write_vertex_state(w, vs);
  });
  metastream ms = f.ms;
  ms.default_section = w.take();
  byte_writer a;
  for (const auto& vs : m.vertex_states)
    for (const auto* list : {&vs.index_buffers, &vs.vertex_buffers})
      for (const auto& b : *list) a.bytes(b.data);
  a.bytes(f.trailing_async);
  ms.async_section = a.take();
  return write_metastream(ms);
}

// ------------------------------------------------------------------ PropertySet texture handles

namespace {
constexpr std::uint64_t key_detail = 0x4930B970A7FD511Full;    // "Material - Detail Texture"
constexpr std::uint64_t key_specular = 0xD5B57775DB361670ull;  // "Material - Specular Map Texture"
constexpr std::uint64_t key_emissive = 0xB3022EA7FD418B40ull;  // "Material - Emissive Texture"
}  // namespace

std::string texture_key_label(std::uint64_t k) {
  switch (k) {
    case key_diffuse_texture:
      return "Material - Diffuse Texture";
    case key_normal_map_texture:
      return "Material - Normal Map Texture";
    case key_detail:
      return "Material - Detail Texture";
    case key_specular:
      return "Material - Specular Map Texture";
    case key_emissive:
      return "Material - Emissive Texture";
    default:
      return hex16(k);
  }
}

std::vector<property_texture> property_set_textures(std::span<const std::uint8_t> body) {
  static const std::pair<std::uint64_t, int> sizes[] = {{crc64("bool"), 1},
                                                        {crc64("Symbol"), 8},
                                                        {crc64("float"), 4},
                                                        {crc64("int"), 4},
                                                        {crc64("long"), 4},
                                                        {crc64("Flags"), 4},
                                                        {crc64("Color"), 16},
                                                        {crc64("Vector2"), 8},
                                                        {crc64("Vector3"), 12},
                                                        {crc64("Vector4"), 16},
                                                        {crc64("Handle<T3Texture>"), 8},
                                                        {crc64("Handle<PropertySet>"), 8},
                                                        {crc64("Polar"), 12}};
  static const std::uint64_t handle_texture = crc64("Handle<T3Texture>");
  std::vector<property_texture> out;
  byte_reader r(body);
  try {
    r.i32();  // mPropVersion
    r.u32();  // mPropertyFlags
    r.u32();  // block of the key map
    std::uint32_t parents = r.u32();
    r.checked_count(parents, 8, "PropertySet parents");
    r.skip(std::uint64_t{parents} * 8);
    std::uint32_t types = r.u32();
    for (std::uint32_t t = 0; t < types; ++t) {
      std::uint64_t type = r.u64();
      std::uint32_t n = r.u32();
      int size = 0;
      for (const auto& [sym, sz] : sizes)
        if (sym == type) size = sz;
      if (!size) break;  // a value type of unknown size: stop here
      r.checked_count(n, 8u + static_cast<unsigned>(size), "PropertySet values");
      for (std::uint32_t i = 0; i < n; ++i) {
        std::uint64_t key = r.u64();
        if (type == handle_texture)
          out.push_back({key, r.u64()});
        else
          r.skip(static_cast<std::uint64_t>(size));
      }
    }
  } catch (const core::failure&) {
    // A damaged PropertySet yields the handles read before the damage.
  }
  return out;
}

std::uint32_t lowest_attribute_set(const vertex_state& vs, std::int32_t attribute) {
  std::uint32_t best = 0;
  bool any = false;
  for (const auto& a : vs.attributes)
    if (a.attribute == attribute && (!any || a.attribute_index < best))
      best = a.attribute_index, any = true;
  return best;
}

nlohmann::json box_json(const box3& b) { return nlohmann::json{{"min", b.min}, {"max", b.max}}; }

namespace {
using nlohmann::json;

json sphere_json(const sphere3& s) { return json{{"center", s.center}, {"radius", s.radius}}; }

json batch_json(const mesh_batch& b, bool v37) {
  json tex = json::array();
  for (const auto& [slot, idx] : b.texture_indices)
    tex.push_back(json{{"slot", slot}, {"index", idx}});
  json j{{"bounds", box_json(b.box)},
         {"sphere", sphere_json(b.sphere)},
         {"usage", b.usage},
         {"min_vertex", b.min_vertex},
         {"max_vertex", b.max_vertex},
         {"start_index", b.start_index},
         {"num_primitives", b.num_primitives},
         {"texture_indices", tex},
         {"material_index", b.material_index},
         {"adjacency_start_index", b.adjacency_start}};
  if (v37) {
    j["bone_palette_index"] = b.bone_palette_index;
    j["local_transform_index"] = b.local_transform_index;
  } else {
    j["base_index"] = b.base_index;
    j["num_indices"] = b.num_indices;
  }
  return j;
}

json lod_json(const mesh_lod& l, bool v37) {
  json b0 = json::array(), b1 = json::array(), bones = json::array();
  for (const auto& b : l.batches[0]) b0.push_back(batch_json(b, v37));
  for (const auto& b : l.batches[1]) b1.push_back(batch_json(b, v37));
  for (auto s : l.bones) bones.push_back(symbol_label(s));
  json j{{"batches", b0},
         {"shadow_batches", b1},
         {"vertex_streams", l.vertex_streams},
         {"bounds", box_json(l.box)},
         {"sphere", sphere_json(l.sphere)},
         {"flags", l.flags},
         {"num_primitives", l.num_primitives},
         {"num_batches", l.num_batches},
         {"pixel_size", l.pixel_size},
         {"bones", bones}};
  if (!v37) {
    j["vertex_state_index"] = l.vertex_state_index;
    j["vertex_start"] = l.vertex_start;
    j["vertex_count"] = l.vertex_count;
    j["texture_atlas"] = {l.atlas_width, l.atlas_height};
    j["distance"] = l.distance;
  }
  return j;
}

json palettes_json(const std::vector<std::vector<mesh_bone>>& palettes) {
  json out = json::array();
  for (const auto& p : palettes) {
    json pj = json::array();
    for (const auto& b : p)
      pj.push_back(json{{"bone", symbol_label(b.name)},
                        {"symbol", hex16(b.name)},
                        {"bounds", box_json(b.box)},
                        {"sphere", sphere_json(b.sphere)},
                        {"num_vertices", b.num_vertices}});
    out.push_back(std::move(pj));
  }
  return out;
}

json buffer_json(const gfx_buffer& b) {
  return json{{"resource_usage", b.resource_usage},
              {"format", gfx_format_name(b.buffer_format)},
              {"format_id", b.buffer_format},
              {"buffer_usage", b.buffer_usage},
              {"count", b.count},
              {"stride", b.stride}};
}

json vertex_state_json(const vertex_state& vs) {
  json attrs = json::array(), ibs = json::array(), vbs = json::array();
  for (const auto& a : vs.attributes)
    attrs.push_back(json{{"attribute", gfx_attribute_name(a.attribute)},
                         {"attribute_id", a.attribute},
                         {"format", gfx_format_name(a.format)},
                         {"format_id", a.format},
                         {"index", a.attribute_index},
                         {"buffer", a.buffer_index},
                         {"offset", a.buffer_offset}});
  for (const auto& b : vs.index_buffers) ibs.push_back(buffer_json(b));
  for (const auto& b : vs.vertex_buffers) vbs.push_back(buffer_json(b));
  return json{{"vertex_count_per_instance", vs.vertex_count_per_instance},
              {"attributes", attrs},
              {"index_buffers", ibs},
              {"vertex_buffers", vbs}};
}

// The header's internal resources; a PropertySet also lists the texture handles it names.
json resources_json(const d3dmesh_file& f) {
  json res = json::array();
  for (const auto& r : f.resources) {
    json rj{{"name", hex16(r.name)}, {"type", hex16(r.type)}, {"bytes", r.body.size()}};
    if (r.type == crc64("PropertySet")) {
      json tex = json::object();
      for (const auto& [k, v] : property_set_textures(r.body)) tex[texture_key_label(k)] = hex16(v);
      rj["type_name"] = "PropertySet";
      rj["textures"] = tex;
    }
    res.push_back(std::move(rj));
  }
  return res;
}
}  // namespace

nlohmann::json d3dmesh_to_json(const d3dmesh_file& f) {
  const auto& m = f.mesh;
  const bool v37 = f.is_v37();
  json lods = json::array();
  for (const auto& l : m.lods) lods.push_back(lod_json(l, v37));
  json mats = json::array();
  for (const auto& t : m.materials)
    mats.push_back(json{{"handle", hex16(t.handle)},
                        {"base_material", hex16(t.base_material)},
                        {"legacy_texture_property", hex16(t.legacy_texture_property)},
                        {"bounds", box_json(t.box)},
                        {"flags", t.flags}});
  json texs = json::array();
  for (const auto& t : m.textures)
    texs.push_back(json{{"type", t.type},
                        {"handle", hex16(t.handle)},
                        {"name", hex16(t.name)},
                        {"bounds", box_json(t.box)}});
  json states = json::array();
  for (const auto& vs : m.vertex_states) states.push_back(vertex_state_json(vs));
  json tc = json::array();
  for (const auto& t : m.texcoord_transforms)
    tc.push_back(json{{"index", t.index}, {"scale", t.scale}, {"offset", t.offset}});
  json j{{"format", "telltale-d3dmesh"},
         {"stream", stream_version_name(f.ms.magic).value_or("?")},
         {"name", f.name},
         {"version", f.version},
         {"lightmap_global_scale", f.lightmap_global_scale},
         {"lightmap_texcoord_version", f.lightmap_texcoord_version},
         {"lod_param_crc", hex16(f.lod_param_crc)},
         {"internal_resources", resources_json(f)},
         {"tool_data", f.tool_data},
         {"lods", lods},
         {"textures", texs},
         {"materials", mats},
         {"material_overrides", m.material_overrides.size()},
         {"bone_palettes", palettes_json(m.bone_palettes)},
         {"local_transforms", m.local_transforms.size()},
         {"vertex_streams", m.vertex_streams},
         {"bounds", box_json(m.box)},
         {"sphere", sphere_json(m.sphere)},
         {"endian", m.endian},
         {"lightmap_texel_area_per_surface_area", m.lightmap_texel_area},
         {"property_key_base", hex16(m.property_key_base)},
         {"vertex_count", m.vertex_count},
         {"flags", m.flags},
         {"texcoord_transforms", tc},
         {"vertex_states", states}};
  if (v37) {
    j["v37_fields"] = f.v37_fields;
  } else {
    j["has_occlusion_data"] = f.has_occlusion == '1';
    j["position_scale"] = m.position_scale;
    j["position_w_scale"] = m.position_w_scale;
    j["position_offset"] = m.position_offset;
    j["mesh_preload_bytes"] = m.mesh_preload.size();
  }
  if (!f.trailing_async.empty()) j["trailing_async_bytes"] = f.trailing_async.size();
  return j;
}

// ------------------------------------------------------------------ formats

const char* gfx_attribute_name(std::int32_t a) {
  static const char* names[] = {"Position",   "Normal", "Tangent", "BlendWeight",
                                "BlendIndex", "Color",  "TexCoord"};
  return a >= 0 && a < 7 ? names[a] : "unknown";
}

namespace {
struct fmt_info {
  const char* name;
  int size;
};
constexpr fmt_info fmt_table[] = {
    {"None", 0},       {"F32", 4},        {"F32x2", 8},   {"F32x3", 12}, {"F32x4", 16},
    {"F16x2", 4},      {"F16x4", 8},      {"S32", 4},     {"U32", 4},    {"S32x2", 8},
    {"U32x2", 8},      {"S32x3", 12},     {"U32x3", 12},  {"S32x4", 16}, {"U32x4", 16},
    {"S16", 2},        {"U16", 2},        {"S16x2", 4},   {"U16x2", 4},  {"S16x4", 8},
    {"U16x4", 8},      {"SN16", 2},       {"UN16", 2},    {"SN16x2", 4}, {"UN16x2", 4},
    {"SN16x4", 8},     {"UN16x4", 8},     {"S8", 1},      {"U8", 1},     {"S8x2", 2},
    {"U8x2", 2},       {"S8x4", 4},       {"U8x4", 4},    {"SN8", 1},    {"UN8", 1},
    {"SN8x2", 2},      {"UN8x2", 2},      {"SN8x4", 4},   {"UN8x4", 4},  {"SN10_SN11_SN11", 4},
    {"SN10x3_SN2", 4}, {"UN10x3_UN2", 4}, {"D3DCOLOR", 4}};
constexpr int fmt_count = static_cast<int>(sizeof(fmt_table) / sizeof(fmt_table[0]));

float half_to_float(std::uint16_t h) {
  int s = h >> 15, e = (h >> 10) & 31, m = h & 1023;
  float v = e == 0    ? std::ldexp(static_cast<float>(m), -24)
            : e == 31 ? (m ? NAN : INFINITY)
                      : std::ldexp(static_cast<float>(m | 1024), e - 25);
  return s ? -v : v;
}
std::uint16_t float_to_half(float f) {
  if (std::isnan(f)) return 0x7E00;
  std::uint16_t s = std::signbit(f) ? 0x8000 : 0;
  f = std::fabs(f);
  if (f >= 65520.0f) return s | 0x7C00;
  if (f < std::ldexp(1.0f, -24)) return s;
  int e;
  float m = std::frexp(f, &e);  // f = m * 2^e, m in [0.5, 1)
  int he = e + 14;
  if (he <= 0)
    return static_cast<std::uint16_t>(s |
                                      static_cast<std::uint16_t>(std::lround(std::ldexp(f, 24))));
  int mant = static_cast<int>(std::lround((m * 2 - 1) * 1024));
  if (mant == 1024) mant = 0, ++he;
  if (he >= 31) return s | 0x7C00;
  return static_cast<std::uint16_t>(s | (he << 10) | mant);
}
template <class T>
T load(const std::uint8_t* p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
template <class T>
void store(std::uint8_t* p, T v) {
  std::memcpy(p, &v, sizeof v);
}
float sn(int v, int max) {
  return std::max(-1.0f, static_cast<float>(v) / static_cast<float>(max));
}
long q(float v, float scale, long lo, long hi) {
  if (!std::isfinite(v)) v = 0;
  return std::clamp(std::lround(static_cast<double>(v) * scale), lo, hi);
}
}  // namespace

const char* gfx_format_name(std::int32_t f) {
  return f >= 0 && f < fmt_count ? fmt_table[f].name : "unknown";
}
int gfx_format_size(std::int32_t f) {
  return f > 0 && f < fmt_count ? fmt_table[f].size : 0;
}

bool gfx_decode(std::int32_t f, const std::uint8_t* p, float o[4]) {
  o[0] = o[1] = o[2] = 0;
  o[3] = 0;
  switch (f) {
    case 1:
    case 2:
    case 3:
    case 4:
      for (int i = 0; i < f; ++i) o[i] = load<float>(p + 4 * i);
      return true;
    case 5:
    case 6:
      for (int i = 0; i < (f == 5 ? 2 : 4); ++i)
        o[i] = half_to_float(load<std::uint16_t>(p + 2 * i));
      return true;
    case 8:
    case 10:
    case 12:
    case 14:
      for (int i = 0; i < (f - 6) / 2; ++i)
        o[i] = static_cast<float>(load<std::uint32_t>(p + 4 * i));
      return true;
    case 16:
    case 18:
    case 20:
      for (int i = 0; i < (f == 16 ? 1 : f == 18 ? 2 : 4); ++i)
        o[i] = load<std::uint16_t>(p + 2 * i);
      return true;
    case 15:
    case 17:
    case 19:
      for (int i = 0; i < (f == 15 ? 1 : f == 17 ? 2 : 4); ++i)
        o[i] = load<std::int16_t>(p + 2 * i);
      return true;
    case 21:
    case 23:
    case 25:
      for (int i = 0; i < (f == 21 ? 1 : f == 23 ? 2 : 4); ++i)
        o[i] = sn(load<std::int16_t>(p + 2 * i), 32767);
      return true;
    case 22:
    case 24:
    case 26:
      for (int i = 0; i < (f == 22 ? 1 : f == 24 ? 2 : 4); ++i)
        o[i] = load<std::uint16_t>(p + 2 * i) / 65535.0f;
      return true;
    case 28:
    case 30:
    case 32:
      for (int i = 0; i < (f == 28 ? 1 : f == 30 ? 2 : 4); ++i) o[i] = p[i];
      return true;
    case 27:
    case 29:
    case 31:
      for (int i = 0; i < (f == 27 ? 1 : f == 29 ? 2 : 4); ++i)
        o[i] = static_cast<std::int8_t>(p[i]);
      return true;
    case 33:
    case 35:
    case 37:
      for (int i = 0; i < (f == 33 ? 1 : f == 35 ? 2 : 4); ++i)
        o[i] = sn(static_cast<std::int8_t>(p[i]), 127);
      return true;
    case 34:
    case 36:
    case 38:
      for (int i = 0; i < (f == 34 ? 1 : f == 36 ? 2 : 4); ++i) o[i] = p[i] / 255.0f;
      return true;
    case 41: {
      std::uint32_t v = load<std::uint32_t>(p);
      o[0] = (v & 1023) / 1023.0f;
      o[1] = ((v >> 10) & 1023) / 1023.0f;
      o[2] = ((v >> 20) & 1023) / 1023.0f;
      o[3] = (v >> 30) / 3.0f;
      return true;
    }
    case 40: {
      std::uint32_t v = load<std::uint32_t>(p);
      auto s10 = [](std::uint32_t x) { return sn(static_cast<int>(x << 22) >> 22, 511); };
      o[0] = s10(v);
      o[1] = s10(v >> 10);
      o[2] = s10(v >> 20);
      o[3] = sn(static_cast<int>(v) >> 30, 1);
      return true;
    }
    case 42:  // D3DCOLOR: B, G, R, A bytes
      o[0] = p[2] / 255.0f;
      o[1] = p[1] / 255.0f;
      o[2] = p[0] / 255.0f;
      o[3] = p[3] / 255.0f;
      return true;
    default:
      return false;
  }
}

bool gfx_encode(std::int32_t f, const float in[4], std::uint8_t* p) {
  switch (f) {
    case 1:
    case 2:
    case 3:
    case 4:
      for (int i = 0; i < f; ++i) store<float>(p + 4 * i, in[i]);
      return true;
    case 5:
    case 6:
      for (int i = 0; i < (f == 5 ? 2 : 4); ++i)
        store<std::uint16_t>(p + 2 * i, float_to_half(in[i]));
      return true;
    case 16:
    case 18:
    case 20:
      for (int i = 0; i < (f == 16 ? 1 : f == 18 ? 2 : 4); ++i)
        store<std::uint16_t>(p + 2 * i, static_cast<std::uint16_t>(q(in[i], 1, 0, 65535)));
      return true;
    case 21:
    case 23:
    case 25:
      for (int i = 0; i < (f == 21 ? 1 : f == 23 ? 2 : 4); ++i)
        store<std::int16_t>(p + 2 * i, static_cast<std::int16_t>(q(in[i], 32767, -32767, 32767)));
      return true;
    case 22:
    case 24:
    case 26:
      for (int i = 0; i < (f == 22 ? 1 : f == 24 ? 2 : 4); ++i)
        store<std::uint16_t>(p + 2 * i, static_cast<std::uint16_t>(q(in[i], 65535, 0, 65535)));
      return true;
    case 28:
    case 30:
    case 32:
      for (int i = 0; i < (f == 28 ? 1 : f == 30 ? 2 : 4); ++i)
        p[i] = static_cast<std::uint8_t>(q(in[i], 1, 0, 255));
      return true;
    case 33:
    case 35:
    case 37:
      for (int i = 0; i < (f == 33 ? 1 : f == 35 ? 2 : 4); ++i)
        p[i] = static_cast<std::uint8_t>(static_cast<std::int8_t>(q(in[i], 127, -127, 127)));
      return true;
    case 34:
    case 36:
    case 38:
      for (int i = 0; i < (f == 34 ? 1 : f == 36 ? 2 : 4); ++i)
        p[i] = static_cast<std::uint8_t>(q(in[i], 255, 0, 255));
      return true;
    case 41: {
      std::uint32_t v = static_cast<std::uint32_t>(q(in[0], 1023, 0, 1023)) |
                        static_cast<std::uint32_t>(q(in[1], 1023, 0, 1023)) << 10 |
                        static_cast<std::uint32_t>(q(in[2], 1023, 0, 1023)) << 20 |
                        static_cast<std::uint32_t>(q(in[3], 3, 0, 3)) << 30;
      store<std::uint32_t>(p, v);
      return true;
    }
    case 42:
      p[2] = static_cast<std::uint8_t>(q(in[0], 255, 0, 255));
      p[1] = static_cast<std::uint8_t>(q(in[1], 255, 0, 255));
      p[0] = static_cast<std::uint8_t>(q(in[2], 255, 0, 255));
      p[3] = static_cast<std::uint8_t>(q(in[3], 255, 0, 255));
      return true;
    default:
      return false;
  }
}

}  // namespace rigrip::telltale
