// FMDL contents below the skeleton: vertex buffers (FVTX), shapes (FSHP) with their LOD
// meshes, materials (FMAT), and textures (FTEX), as the raw layer reads them. The
// structures name things the way both platforms do, so the Switch reader can fill the
// same ones; buffer and image bytes stay in the file image (`*_at` = absolute offsets).
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace rigrip::bfres {

struct gpu_buffer {
  std::uint32_t at = 0;       // the descriptor
  std::uint32_t size = 0;     // bytes of one buffering
  std::uint16_t stride = 0;   // vertex buffers: bytes per vertex
  std::uint16_t buffering = 1;
  std::uint32_t data_at = 0;  // the bytes (0 = none)
};

struct vertex_attrib {
  std::uint32_t at = 0;
  std::string name;  // _p0 position, _n0 normal, _t0 tangent, _b0 binormal, _u0.. uv, _c0.. colour, _i0/_w0.. skin
  std::uint8_t buffer = 0;
  std::uint16_t offset = 0;
  std::uint32_t format = 0;  // platform enum (Wii U: GX2AttribFormat)
};

struct vertex_buffer {
  std::uint32_t at = 0;
  std::uint16_t index = 0;
  std::uint32_t vertex_count = 0;
  std::uint8_t skin_count = 0;
  std::vector<vertex_attrib> attribs;
  std::vector<gpu_buffer> buffers;
};

struct submesh {
  std::uint32_t offset = 0;  // bytes into the index buffer
  std::uint32_t count = 0;   // indices
};

struct lod_mesh {
  std::uint32_t at = 0;
  std::uint32_t primitive = 0;     // GX2PrimitiveType: 4 triangles, 6 triangle strip, ...
  std::uint32_t index_format = 0;  // GX2IndexFormat: 4 u16 BE, 9 u32 BE, 0/1 LE
  std::uint32_t index_count = 0;
  std::vector<submesh> submeshes;
  gpu_buffer index_buffer;
  std::uint32_t first_vertex = 0;  // added to every index
};

struct shape {
  std::uint32_t at = 0;
  std::string name;
  std::uint32_t flags = 0;
  std::uint16_t index = 0, material = 0, bone = 0, vertex_buffer = 0;
  std::uint8_t skin_count = 0;  // 0: the shape follows `bone`; 1: one matrix per vertex; 2+: smooth skinning
  std::vector<float> radius;    // per LOD (4.5+) or one
  std::vector<lod_mesh> meshes;
  std::vector<std::uint16_t> skin_bones;  // bones the vertices use (informative)
  std::vector<std::string> key_shapes;
};

struct render_state {
  bool present = false;
  std::uint32_t flags = 0, polygon = 0, depth = 0, alpha = 0, color = 0, blend_target = 0, blend = 0;
  float alpha_ref = 0;
  std::array<float, 4> blend_color{};
  [[nodiscard]] int mode() const { return flags & 3; }  // 0 custom, 1 opaque, 2 alpha mask, 3 translucent
  [[nodiscard]] bool cull_front() const { return polygon & 1; }
  [[nodiscard]] bool cull_back() const { return (polygon >> 1) & 1; }
  [[nodiscard]] bool alpha_test() const { return (alpha >> 3) & 1; }
  [[nodiscard]] int alpha_func() const { return alpha & 7; }  // GX2CompareFunction
};

struct texture_ref {
  std::string name;
  std::uint32_t texture_at = 0;  // FTEX in this file, 0 when it lives in a texture file
};

struct sampler {
  std::string name;  // _a0 albedo, _n0 normal, _s0 specular, _e0 emission, ... (game convention)
  std::array<std::uint32_t, 3> words{};  // GX2Sampler registers
  std::uint8_t index = 0;
  [[nodiscard]] int wrap_u() const { return words[0] & 7; }  // GX2TexClamp: 0 wrap, 1 mirror, 2 clamp...
  [[nodiscard]] int wrap_v() const { return (words[0] >> 3) & 7; }
  [[nodiscard]] int mag_filter() const { return (words[0] >> 9) & 3; }  // 0 point, 1 bilinear
  [[nodiscard]] int min_filter() const { return (words[0] >> 12) & 3; }
  [[nodiscard]] int mip_filter() const { return (words[0] >> 17) & 3; }  // 0 none, 1 point, 2 linear
};

struct shader_param {
  std::string name;
  std::uint8_t type = 0, size = 0;
  std::uint16_t offset = 0;
  nlohmann::json value;  // numbers as stored (floats, ints or bools), or a texture SRT object
};

struct material {
  std::uint32_t at = 0;
  std::string name;
  std::uint32_t flags = 0;
  std::uint16_t index = 0;
  std::vector<std::pair<std::string, nlohmann::json>> render_info;  // name -> array of values
  render_state state;
  std::string shader_archive, shading_model;
  std::map<std::string, std::string> attrib_assign, sampler_assign, options;
  std::vector<texture_ref> textures;
  std::vector<sampler> samplers;  // samplers[i] goes with textures[i]
  std::vector<shader_param> params;
  nlohmann::json user_data = nlohmann::json::array();
};

struct ftex {
  std::uint32_t at = 0;
  std::string name, path;
  std::uint32_t dim = 0, width = 0, height = 0, depth = 0, mip_count = 0, format = 0, aa = 0, use = 0;
  std::uint32_t image_size = 0, mip_size = 0, tile_mode = 0, swizzle = 0, alignment = 0, pitch = 0;
  std::array<std::uint32_t, 13> mip_offsets{};
  std::array<std::uint8_t, 4> comp_sel{0, 1, 2, 3};
  std::uint32_t array_length = 1;
  std::uint32_t data_at = 0, mip_data_at = 0;
  bool mip_data_outside = false;  // the mip offset points outside this file
};

}  // namespace rigrip::bfres
