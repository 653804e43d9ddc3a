// Raw layer of the Telltale D3DMesh (.d3dmesh) MetaStream body: every field kept so that
// writing it back reproduces the input bytes. Two layouts are known (README.md):
// mVersion 55 (The Walking Dead Definitive Series) and mVersion 37 (the skinned sample).
#pragma once

#include <array>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <span>
#include <string>
#include <vector>

#include "formats/telltale/metastream.hpp"

namespace rigrip::telltale {

struct box3 {
  std::array<float, 3> min{0, 0, 0}, max{0, 0, 0};
};
struct sphere3 {
  std::array<float, 3> center{0, 0, 0};
  float radius = 0;
};

struct mesh_batch {
  box3 box;
  sphere3 sphere;
  std::uint32_t usage = 0;
  std::uint32_t min_vertex = 0, max_vertex = 0;
  std::uint32_t base_index = 0;  // v55
  std::uint32_t start_index = 0, num_primitives = 0;
  std::uint32_t num_indices = 0;  // v55
  std::vector<std::pair<std::uint32_t, std::int32_t>>
      texture_indices;  // (slot, index), 0xFFFFFFFF-terminated
  std::int32_t material_index = 0;
  std::int32_t bone_palette_index = 0;      // v37
  std::int32_t local_transform_index = -1;  // v37
  std::uint32_t adjacency_start = 0;
};

struct mesh_lod {
  std::vector<mesh_batch> batches[2];  // [0] draw batches, [1] shadow batches
  std::uint32_t vertex_streams = 0;    // BitSetBase<1>
  box3 box;
  sphere3 sphere;
  std::uint32_t flags = 0;
  std::uint32_t vertex_state_index = 0;  // v55
  std::uint32_t num_primitives = 0;      // draw + shadow triangles
  std::uint32_t num_batches = 0;
  std::uint32_t vertex_start = 0, vertex_count = 0, atlas_width = 0, atlas_height = 0;  // v55
  float pixel_size = 0;              // v37: the only float; decreasing with the LOD
  float distance = 0;                // v55
  std::vector<std::uint64_t> bones;  // symbols used by this LOD
};

struct mesh_texture {  // T3MeshTexture
  std::int32_t type = 0;
  std::uint64_t handle = 0, name = 0;
  box3 box;
  sphere3 sphere;
  float max_area = 0, average_area = 0;
};

struct mesh_material {       // T3MeshMaterial
  std::uint64_t handle = 0;  // names an internal PropertySet resource
  std::uint64_t base_material = 0, legacy_texture_property = 0;
  box3 box;
  sphere3 sphere;
  std::uint32_t flags = 0;
};

struct mesh_bone {  // T3MeshBoneEntry
  std::uint64_t name = 0;
  box3 box;
  sphere3 sphere;
  std::int32_t num_vertices = 0;
};

struct local_transform {
  std::array<float, 4> rotation{0, 0, 0, 1};
  std::array<float, 3> translation{0, 0, 0};
  std::int32_t camera_facing = 0;
};

struct texcoord_transform {
  std::uint32_t index = 0;
  std::array<float, 2> scale{1, 1}, offset{0, 0};
};

struct vertex_attribute {      // GFXPlatformAttributeParams
  std::int32_t attribute = 0;  // 0 position 1 normal 2 tangent 3 weight 4 index 5 colour 6 uv
  std::int32_t format = 0;     // GFXPlatformFormat
  std::uint32_t attribute_index = 0, buffer_index = 0, buffer_offset = 0;
};

struct gfx_buffer {  // T3GFXBuffer + its bytes from the async section
  std::int32_t resource_usage = 0, buffer_format = 0;
  std::uint32_t buffer_usage = 0, count = 0, stride = 0;
  std::vector<std::uint8_t> data;
};

struct vertex_state {  // T3GFXVertexState
  std::uint32_t vertex_count_per_instance = 0;
  std::vector<vertex_attribute> attributes;
  std::vector<gfx_buffer> index_buffers, vertex_buffers;
};

struct internal_resource {
  std::uint64_t name = 0, type = 0;
  std::vector<std::uint8_t> body;  // after its u32 block size
};

struct mesh_data {  // T3MeshData
  std::vector<mesh_lod> lods;
  std::vector<mesh_texture> textures;
  std::vector<mesh_material> materials;
  std::vector<std::pair<std::uint64_t, std::uint32_t>> material_overrides;
  std::vector<std::vector<mesh_bone>> bone_palettes;  // v55: exactly one (mBones)
  std::vector<local_transform> local_transforms;
  std::vector<std::uint8_t> material_requirements;  // blocked member, kept as bytes (with its size)
  std::uint32_t vertex_streams = 0;
  box3 box;
  sphere3 sphere;
  std::int32_t endian = 0;
  std::array<float, 3> position_scale{1, 1, 1}, position_w_scale{0, 0, 0},
      position_offset{0, 0, 0};  // v55
  float lightmap_texel_area = 0;
  std::uint64_t property_key_base = 0;
  std::uint32_t vertex_count = 0;
  std::uint32_t flags = 0;
  std::vector<std::uint8_t>
      mesh_preload;  // v55 DCArray<T3MeshEffectPreload>, kept as bytes (with its size)
  std::vector<texcoord_transform> texcoord_transforms;
  std::vector<std::uint8_t>
      cpu_skinning;  // flag 0x10: blocked T3MeshCPUSkinningData, kept as bytes
  std::vector<vertex_state> vertex_states;
};

struct d3dmesh_file {
  metastream ms;
  std::string name;
  std::int32_t version = 55;
  std::uint8_t tool_props = '0';
  std::array<std::uint32_t, 2> v37_fields{0, 0};  // v37: two fields before mLightmapGlobalScale
  float lightmap_global_scale = 1;
  std::int32_t lightmap_texcoord_version = 0;
  std::uint64_t lod_param_crc = 0;
  std::vector<internal_resource> resources;
  std::int32_t tool_data = 0;
  std::vector<std::uint8_t> tool_data_block;  // when tool_data > 0 (with its size)
  std::uint8_t has_occlusion = '0';           // v55
  std::vector<std::uint8_t> occlusion_block;  // when '1' (with its size)
  mesh_data mesh;
  std::vector<std::uint8_t> trailing_async;  // async bytes after the buffers (none in the samples)
  std::uint64_t mesh_data_offset = 0;        // file offset of T3MeshData, for messages
  std::uint64_t async_offset = 0;
  [[nodiscard]] bool is_v37() const { return version < 52; }
};

inline constexpr std::uint64_t sym_d3dmesh = 0x98A19836CF4CCB7Dull;  // crc64("D3DMesh")
inline constexpr std::uint32_t mesh_flag_cpu_skinning = 0x10;

// Parses a whole .d3dmesh file (MetaStream included); fails with the offset on anything
// it does not understand. Versions other than 37 and 55 are refused by name.
[[nodiscard]] d3dmesh_file parse_d3dmesh(std::span<const std::uint8_t> file);
[[nodiscard]] std::vector<std::uint8_t> write_d3dmesh(const d3dmesh_file& m);

// Texture handles of a material PropertySet (an internal resource body): its
// Handle<T3Texture> properties, read as far as the value types before them have known
// sizes (T3MaterialData, of unknown size, comes last in every sample).
struct property_texture {
  std::uint64_t key = 0;      // property name symbol, e.g. "Material - Diffuse Texture"
  std::uint64_t texture = 0;  // crc64 of the .d3dtx file name
};
[[nodiscard]] std::vector<property_texture> property_set_textures(
    std::span<const std::uint8_t> body);
inline constexpr std::uint64_t key_diffuse_texture =
    0x8648FA82D1DBEE1Aull;  // "Material - Diffuse Texture"
inline constexpr std::uint64_t key_normal_map_texture =
    0x1E3F6B9F2550389Dull;  // "Material - Normal Map Texture"
[[nodiscard]] std::string texture_key_label(std::uint64_t key);

// `dump --raw`: the whole structure, symbols named where the database knows them.
[[nodiscard]] nlohmann::json d3dmesh_to_json(const d3dmesh_file& m);
// {"min": [x,y,z], "max": [x,y,z]}, as both `dump --raw` and the scene extras print bounds.
[[nodiscard]] nlohmann::json box_json(const box3& b);

// GFXPlatformFormat helpers.
[[nodiscard]] const char* gfx_format_name(std::int32_t f);
[[nodiscard]] int gfx_format_size(std::int32_t f);  // bytes per element, 0 when unknown
// Decodes one element to up to 4 floats (normalised formats to 0..1 / -1..1); false if unknown.
bool gfx_decode(std::int32_t format, const std::uint8_t* p, float out[4]);
// Encodes 4 floats into the format (clamped, rounded); false if unknown.
bool gfx_encode(std::int32_t format, const float in[4], std::uint8_t* p);
[[nodiscard]] const char* gfx_attribute_name(std::int32_t a);
// The lowest set index the vertex state has for an attribute (0 when it has none): the set
// decode reads and pack writes (the flashlight's only colour set is set 1).
[[nodiscard]] std::uint32_t lowest_attribute_set(const vertex_state& vs, std::int32_t attribute);

}  // namespace rigrip::telltale
