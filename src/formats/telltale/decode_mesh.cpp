// Telltale .d3dmesh / .d3dtx -> scene. Policy (README.md): LOD 0's draw batches become one
// mesh each; positions dequantise against the mesh's bounds (v55), UVs through the
// texture-coordinate transforms; skin joints come from the bone palette by symbol, into
// the .skl when one is given or paired, else into a flat skeleton placed from the
// palette's per-bone bounds (the file has no bind matrices); materials take the diffuse
// texture their PropertySet names, resolved to a sibling .d3dtx by crc64 of its file
// name or of the name stored inside it.
#include <fnmatch.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>

#include "core/byte_reader.hpp"
#include "core/failure.hpp"
#include "core/math.hpp"
#include "formats/telltale/anm.hpp"
#include "formats/telltale/common.hpp"
#include "formats/telltale/d3dmesh.hpp"
#include "formats/telltale/d3dtx.hpp"
#include "formats/telltale/decode.hpp"
#include "formats/telltale/symbols.hpp"
#include "scene/tangents.hpp"

namespace rigrip::telltale {

using nlohmann::json;
namespace fs = std::filesystem;

namespace {

// Folders with more .d3dtx files than this are matched by file name only.
constexpr std::size_t max_inner_name_scan = 4096;
constexpr std::uint32_t texture_type_normal_map = 3;  // T3Texture mType

// ------------------------------------------------------------------ textures

// The .d3dtx files of a mesh's folder and its immediate subfolders, by crc64 of their file
// name and (on first need) of the name stored inside them. Cached per folder, so a folder of
// thousands of meshes is listed once; a change of the folder's time stamp rebuilds it.
struct texture_index {
  std::map<std::uint64_t, std::string> by_symbol;  // crc64 of the file name -> path
  std::map<std::uint64_t, std::string> by_inner;   // crc64 of the inner mName -> path
  bool inner_done = false;
  fs::file_time_type stamp{};
  std::mutex m;
};

std::shared_ptr<texture_index> index_textures(const std::string& mesh_path) {
  static std::mutex cache_mutex;
  static std::map<std::string, std::shared_ptr<texture_index>> cache;
  std::error_code ec;
  fs::path dir =
      fs::path(mesh_path).has_parent_path() ? fs::path(mesh_path).parent_path() : fs::path(".");
  auto stamp = fs::last_write_time(dir, ec);
  std::string key = fs::absolute(dir, ec).string();
  {
    std::lock_guard<std::mutex> g(cache_mutex);
    auto it = cache.find(key);
    if (it != cache.end() && it->second->stamp == stamp) return it->second;
  }
  auto ix = std::make_shared<texture_index>();
  ix->stamp = stamp;
  std::vector<fs::path> dirs{dir};
  for (auto it = fs::directory_iterator(dir, ec); !ec && it != fs::directory_iterator();
       it.increment(ec))
    if (it->is_directory(ec)) dirs.push_back(it->path());
  for (const auto& d : dirs) {
    std::error_code e2;
    for (auto it = fs::directory_iterator(d, e2); !e2 && it != fs::directory_iterator();
         it.increment(e2))
      if (lower(it->path().extension().string()) == ".d3dtx")
        ix->by_symbol.emplace(crc64(it->path().filename().string()), it->path().string());
  }
  std::lock_guard<std::mutex> g(cache_mutex);
  if (cache.size() > 256) cache.clear();
  cache[key] = ix;
  return ix;
}

// Path of the texture named `sym`: by file name, else by the name inside the files (read
// from their first bytes, once per folder; folders with very many textures are skipped).
std::string find_texture_file(texture_index& ix, std::uint64_t sym) {
  if (auto it = ix.by_symbol.find(sym); it != ix.by_symbol.end()) return it->second;
  std::lock_guard<std::mutex> g(ix.m);
  if (!ix.inner_done && ix.by_symbol.size() <= max_inner_name_scan) {
    for (const auto& [fsym, path] : ix.by_symbol) {
      std::ifstream in(path, std::ios::binary);
      std::vector<std::uint8_t> head(4096);
      in.read(reinterpret_cast<char*>(head.data()), static_cast<std::streamsize>(head.size()));
      head.resize(static_cast<std::size_t>(std::max<std::streamsize>(0, in.gcount())));
      if (auto n = peek_d3dtx_name(head)) ix.by_inner.emplace(crc64(*n), path);
    }
  }
  ix.inner_done = true;
  auto it = ix.by_inner.find(sym);
  return it == ix.by_inner.end() ? std::string() : it->second;
}

// Reads a .d3dtx and returns its largest mip of face 0 as a scene texture.
texture texture_from_file(const texture_file& t, const std::string& name) {
  const texture_region* best = nullptr;
  for (const auto& g : t.regions)
    if (g.face == 0 && g.mip == 0) {
      best = &g;
      break;
    }
  if (!best) core::fail(code::bad_value, "T3Texture has no region for mip 0 of face 0");
  texture out;
  out.name = name;
  out.width = t.width;
  out.height = t.height;
  if (t.width == 0 || t.height == 0 || t.width > 16384 || t.height > 16384)
    core::fail(code::bad_value, "T3Texture size " + std::to_string(t.width) + "x" +
                                    std::to_string(t.height) + " outside 1..16384");
  bool clipped = false;
  out.rgba = decode_surface(t.surface_format, t.width, t.height, best->data, &clipped);
  const bool hdr = t.surface_format == 70;  // BC6H: the bytes are already sRGB-encoded
  out.extras = json{{"surface_format", surface_format_name(t.surface_format)},
                    {"srgb", t.gamma == 1 || hdr},
                    {"mips", t.num_mips},
                    {"texture_type", t.type},
                    {"alpha_mode", t.alpha_mode},
                    {"swizzle", t.swizzle},
                    {"wrap", "repeat"},
                    {"filter", "linear"}};
  if (hdr) {
    out.extras["hdr_tone_map"] = "clamped to [0,1], sRGB-encoded";
    out.extras["hdr_clipped"] = clipped;
  }
  return out;
}

// A normal map (T3Texture type 3) as glTF's normalTexture wants it: linear RGB = the tangent
// space XYZ. The engine samples it through its RenderSwizzleParams: channel i of the value is
// stored channel swizzle[i] (0..3 = R, G, B, A), so TWDDE's (3,2,1,0) reads X from alpha and Y
// from blue (the sample's flat map stores R,G,B,A = 255,255,129,128: X 128, Y 129, and 255
// in green). Z is rebuilt from X and Y (a two-channel map need not store it, and the third
// channel may hold anything), alpha is opaque. The bytes are the values (mSurfaceGamma 0);
// a map flagged sRGB (1) has its colour channels decoded to linear first, as the GPU would.
void to_gltf_normal_map(const texture_file& t, texture& out) {
  const auto& sw = t.swizzle;
  const bool applies = sw[0] < 4 && sw[1] < 4 && sw[2] < 4 && sw[3] < 4;
  std::array<std::uint8_t, 256> lin{};
  for (int v = 0; v < 256; ++v) {
    const double c = v / 255.0;
    lin[static_cast<std::size_t>(v)] = static_cast<std::uint8_t>(
        std::lround(255.0 * (t.gamma != 1   ? c
                             : c <= 0.04045 ? c / 12.92
                                            : std::pow((c + 0.055) / 1.055, 2.4))));
  }
  for (std::size_t i = 0; i + 3 < out.rgba.size(); i += 4) {
    const std::uint8_t px[4] = {lin[out.rgba[i]], lin[out.rgba[i + 1]], lin[out.rgba[i + 2]],
                                out.rgba[i + 3]};
    const std::uint8_t xb = applies ? px[sw[0]] : px[0], yb = applies ? px[sw[1]] : px[1];
    const float x = xb / 127.5f - 1, y = yb / 127.5f - 1;
    const float z = std::sqrt(std::max(0.0f, 1 - x * x - y * y));
    out.rgba[i] = xb;
    out.rgba[i + 1] = yb;
    out.rgba[i + 2] = static_cast<std::uint8_t>(std::lround((z + 1) * 127.5f));
    out.rgba[i + 3] = 255;
  }
  out.extras["normal_map"] =
      json{{"swizzle_applied", applies ? json(t.swizzle) : json(nullptr)},
           {"srgb_decoded", t.gamma == 1},
           {"z", "rebuilt from x and y"},
           {"green", "as stored (the stored tangents' handedness is glTF's)"}};
}

bool has_alpha(const texture& t) {
  for (std::size_t i = 3; i < t.rgba.size(); i += 4)
    if (t.rgba[i] != 255) return true;
  return false;
}

// ------------------------------------------------------------------ geometry

struct attr_ref {
  const vertex_attribute* a = nullptr;
  const gfx_buffer* b = nullptr;
};

attr_ref find_attr(const vertex_state& vs, int attribute, std::uint32_t index) {
  for (const auto& a : vs.attributes)
    if (a.attribute == attribute && a.attribute_index == index) {
      if (a.buffer_index >= vs.vertex_buffers.size())
        core::fail(code::bad_value, std::string(gfx_attribute_name(attribute)) +
                                        " attribute names vertex buffer " +
                                        std::to_string(a.buffer_index) + " of " +
                                        std::to_string(vs.vertex_buffers.size()));
      const auto& b = vs.vertex_buffers[a.buffer_index];
      int sz = gfx_format_size(a.format);
      if (sz == 0) return {};
      if (a.buffer_offset + static_cast<std::uint32_t>(sz) > b.stride)
        core::fail(code::bad_value, std::string(gfx_attribute_name(attribute)) + " at offset " +
                                        std::to_string(a.buffer_offset) + " of a " +
                                        std::to_string(b.stride) + "-byte vertex");
      return {&a, &b};
    }
  return {};
}

bool read_attr(const attr_ref& r, std::uint32_t v, float out[4]) {
  if (!r.a || v >= r.b->count) return false;
  return gfx_decode(r.a->format,
                    r.b->data.data() + std::size_t{v} * r.b->stride + r.a->buffer_offset, out);
}

bool normalised(std::int32_t f) {
  return (f >= 21 && f <= 26) || (f >= 33 && f <= 42);
}

}  // namespace

// ------------------------------------------------------------------ public decode entry points

namespace {

scene d3dtx_scene(const read_context& ctx) {
  texture_file t = parse_d3dtx(ctx.data);
  scene s;
  s.format = "telltale-d3dtx";
  std::string stem = fs::path(ctx.path).stem().string();
  texture tex = texture_from_file(t, stem);
  // A normal map on its own is shown (and its PNG written) as the glTF normal map it becomes.
  if (t.type == texture_type_normal_map) to_gltf_normal_map(t, tex);
  if (t.layout != 0 || t.array_size > 1 || t.depth > 1)
    ctx.warn(code::w_unsupported_part, "texture layout " + std::to_string(t.layout) + " with " +
                                           std::to_string(t.array_size) +
                                           " faces/slices: only face 0, mip 0 is decoded");
  for (const auto& g : t.regions) {
    std::uint32_t w = std::max(1u, t.width >> std::min(g.mip, 31u)),
                  h = std::max(1u, t.height >> std::min(g.mip, 31u));
    if (surface_bytes(t.surface_format, w, h) != g.data_size)
      ctx.warn(code::w_suspicious_value,
               "region of mip " + std::to_string(g.mip) + " holds " + std::to_string(g.data_size) +
                   " bytes; " + std::to_string(w) + "x" + std::to_string(h) + " needs " +
                   std::to_string(surface_bytes(t.surface_format, w, h)));
  }
  // A textured quad (unlit) so the glTF shows the image; --textures writes the PNG.
  const float ax =
      t.width >= t.height ? 1.0f : static_cast<float>(t.width) / static_cast<float>(t.height);
  const float ay =
      t.height >= t.width ? 1.0f : static_cast<float>(t.height) / static_cast<float>(t.width);
  material mt;
  mt.name = stem;
  mt.texture = 0;
  mt.unlit = true;
  mt.double_sided = true;
  if (has_alpha(tex)) mt.alpha_mode = material::alpha::blend;
  s.textures.push_back(std::move(tex));
  s.materials.push_back(mt);
  mesh q;
  q.name = stem;
  q.material = 0;
  q.positions = {{-ax / 2, 0, 0}, {ax / 2, 0, 0}, {ax / 2, ay, 0}, {-ax / 2, ay, 0}};
  q.normals.assign(4, {0, 0, 1});
  q.uvs = {{0, 1}, {1, 1}, {1, 0}, {0, 0}};
  q.indices = {0, 1, 2, 0, 2, 3};
  s.meshes.push_back(std::move(q));
  s.metadata = d3dtx_to_json(t);
  s.metadata.erase("format");
  return s;
}

// How the stored tangents compare with the ones the UV gradients give (README.md).
struct tangent_stats {
  std::size_t vertices = 0;        // with a stored tangent
  std::size_t from_uv = 0;         // stored tangent zero or w = 0: the UV-gradient one is used
  std::size_t compared = 0;        // stored and UV tangents both usable
  std::size_t same_direction = 0;  // stored xyz within 60 degrees of the UV gradient's +u
  std::size_t same_w = 0;          // sign of the stored w = glTF's handedness from the UVs
};

// Geometry of one LOD's draw batches, with the skin expressed as palette symbols.
struct decoded_batch {
  mesh me;                             // joints hold indices into `symbols`
  std::vector<std::uint64_t> symbols;  // the palette this batch's joints index
  tangent_stats tangents;
};

// Stored tangents to glTF's: xyz as stored, w = sign of the stored w. Measured against
// the UV gradients (README.md), the stored xyz is the +u direction and the stored w is glTF's
// handedness (cross(n, t) * w points to decreasing v, the image's up) on all but a few
// seam vertices of the samples. Tangents stored as zero or with w = 0 take the UV-gradient one.
tangent_stats finish_tangents(mesh& me) {
  tangent_stats st;
  if (me.tangents.empty()) return st;
  st.vertices = me.tangents.size();
  const bool has_uv = me.uvs.size() == me.positions.size();
  // Without UVs every vertex gets a unit vector perpendicular to its normal.
  const std::vector<vec4> uvt = scene_ops::tangents_from_uvs(
      me.positions, me.normals,
      has_uv ? me.uvs : std::vector<vec2>(me.positions.size(), vec2{0, 0}), me.indices);
  for (std::size_t i = 0; i < me.tangents.size(); ++i) {
    vec4& t = me.tangents[i];
    const bool stored = (t[0] != 0 || t[1] != 0 || t[2] != 0) && t[3] != 0;
    if (stored && has_uv && i < uvt.size()) {
      const vec4& u = uvt[i];
      ++st.compared;
      if (t[0] * u[0] + t[1] * u[1] + t[2] * u[2] > 0.5f) ++st.same_direction;
      if ((t[3] < 0) == (u[3] < 0)) ++st.same_w;
    }
    if (stored) {
      t[3] = t[3] < 0 ? -1.0f : 1.0f;
    } else {
      ++st.from_uv;
      t = i < uvt.size() ? uvt[i] : vec4{1, 0, 0, 1};
    }
  }
  return st;
}

// The buffers and attributes one LOD reads its vertices from, checked once.
struct lod_source {
  const gfx_buffer* ib = nullptr;
  attr_ref pos, nrm, tan, uv, bw, bi, col;
  std::uint32_t nverts = 0;
  const texcoord_transform* uvx = nullptr;  // UV set 0's scale/offset, if any
  bool skinned = false;

  std::uint32_t index_at(std::uint64_t i) const {
    const std::uint8_t* p = ib->data.data() + i * ib->stride;
    return ib->stride == 2 ? static_cast<std::uint32_t>(p[0] | p[1] << 8)
                           : static_cast<std::uint32_t>(p[0] | p[1] << 8 | p[2] << 16 |
                                                        std::uint32_t(p[3]) << 24);
  }
};

lod_source lod_source_of(const d3dmesh_file& f, std::size_t lod_index) {
  const auto& m = f.mesh;
  const auto& lod = m.lods.at(lod_index);
  std::uint32_t vsi = f.is_v37() ? 0 : lod.vertex_state_index;
  if (vsi >= m.vertex_states.size())
    core::fail(code::bad_value,
               "LOD " + std::to_string(lod_index) + " names vertex state " + std::to_string(vsi) +
                   " of " + std::to_string(m.vertex_states.size()),
               f.mesh_data_offset);
  const vertex_state& vs = m.vertex_states[vsi];
  if (vs.index_buffers.empty())
    core::fail(code::bad_value, "vertex state without an index buffer", f.mesh_data_offset);
  lod_source src;
  src.ib = &vs.index_buffers[0];
  if (src.ib->stride != 2 && src.ib->stride != 4)
    core::fail(code::unsupported_feature,
               "index buffer stride " + std::to_string(src.ib->stride) + " (2 or 4 expected)",
               f.mesh_data_offset);
  src.pos = find_attr(vs, 0, 0), src.nrm = find_attr(vs, 1, 0), src.uv = find_attr(vs, 6, 0);
  src.tan = src.nrm.a ? find_attr(vs, 2, 0) : attr_ref{};
  src.col = find_attr(vs, 5, lowest_attribute_set(vs, 5));
  src.bw = find_attr(vs, 3, 0), src.bi = find_attr(vs, 4, 0);
  if (!src.pos.a)
    core::fail(code::unsupported_feature, "no position attribute in a known format",
               f.mesh_data_offset);
  src.nverts = src.pos.b->count;
  for (const auto& t : m.texcoord_transforms)
    if (t.index == 0) src.uvx = &t;
  src.skinned = src.bw.a && src.bi.a && !m.bone_palettes.empty();
  return src;
}

// Appends buffer vertex v to the batch's mesh. Every attribute gets a value for every
// vertex, so counts always agree; weights are normalised, joints index the palette.
void append_vertex(const d3dmesh_file& f, const lod_source& src, std::uint32_t v,
                   const std::vector<mesh_bone>* palette, mesh& me) {
  const auto& m = f.mesh;
  float p[4], n[4], t[4], w[4], j[4];
  read_attr(src.pos, v, p);
  vec3 P{p[0], p[1], p[2]};
  if (!f.is_v37() && normalised(src.pos.a->format))
    for (int c = 0; c < 3; ++c)
      P[c] = p[c] * m.position_scale[c] + p[3] * m.position_w_scale[c] + m.position_offset[c];
  me.positions.push_back(P);
  if (src.nrm.a) {
    float len =
        read_attr(src.nrm, v, n) ? std::sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]) : 0.0f;
    me.normals.push_back(len > 1e-6f && std::isfinite(len) ? vec3{n[0] / len, n[1] / len, n[2] / len}
                                                           : vec3{0, 1, 0});
  }
  if (src.tan.a) {  // as stored (xyz renormalised, w raw); finish_tangents settles them
    float len =
        read_attr(src.tan, v, t) ? std::sqrt(t[0] * t[0] + t[1] * t[1] + t[2] * t[2]) : 0.0f;
    vec4 tt{0, 0, 0, 0};
    if (len > 1e-6f && std::isfinite(len) && std::isfinite(t[3])) {
      tt = {t[0] / len, t[1] / len, t[2] / len, t[3]};
      // A mirroring texture-coordinate transform mirrors the tangent frame with the UVs.
      if (src.uvx && src.uvx->scale[0] < 0) tt = {-tt[0], -tt[1], -tt[2], tt[3]};
      if (src.uvx && (src.uvx->scale[0] < 0) != (src.uvx->scale[1] < 0)) tt[3] = -tt[3];
    }
    me.tangents.push_back(tt);
  }
  if (src.col.a) {
    float c[4] = {0, 0, 0, 1};
    read_attr(src.col, v, c);
    me.colors.push_back({c[0], c[1], c[2], c[3]});
  }
  if (src.uv.a) {
    if (!read_attr(src.uv, v, t)) t[0] = t[1] = 0;
    if (src.uvx)
      t[0] = t[0] * src.uvx->scale[0] + src.uvx->offset[0],
      t[1] = t[1] * src.uvx->scale[1] + src.uvx->offset[1];
    me.uvs.push_back({t[0], t[1]});
  }
  if (!palette) return;
  if (!read_attr(src.bw, v, w) || !read_attr(src.bi, v, j))
    core::fail(code::bad_count, "vertex " + std::to_string(v) + " has no skin data (buffer too short)",
               f.async_offset);
  std::array<std::uint16_t, 4> jj{0, 0, 0, 0};
  vec4 ww{0, 0, 0, 0};
  for (int c = 0; c < 4; ++c) {
    if (!(w[c] > 0)) continue;
    if (!(j[c] >= 0) || j[c] >= static_cast<float>(palette->size()))
      core::fail(code::bad_value,
                 "vertex " + std::to_string(v) + ": bone palette entry " + std::to_string(j[c]) +
                     " beyond the palette of " + std::to_string(palette->size()),
                 f.async_offset);
    jj[c] = static_cast<std::uint16_t>(j[c]);
    ww[c] = w[c];
  }
  float sum = ww[0] + ww[1] + ww[2] + ww[3];
  if (sum > 0 && std::isfinite(sum))
    for (auto& x : ww) x /= sum;
  else
    ww = {1, 0, 0, 0}, jj = {0, 0, 0, 0};
  me.joints.push_back(jj);
  me.weights.push_back(ww);
}

// One draw batch: its triangles' vertices, each buffer vertex once (in first-use order).
decoded_batch decode_batch(const d3dmesh_file& f, const lod_source& src, std::size_t lod_index,
                           std::size_t bi_) {
  const auto& m = f.mesh;
  const mesh_batch& b = m.lods[lod_index].batches[0][bi_];
  std::uint64_t first = b.start_index, count = std::uint64_t{b.num_primitives} * 3;
  if (first + count > src.ib->count)
    core::fail(code::bad_count,
               "batch " + std::to_string(bi_) + ": indices " + std::to_string(first) + "+" +
                   std::to_string(count) + " past the index buffer of " +
                   std::to_string(src.ib->count),
               f.mesh_data_offset);
  decoded_batch d;
  d.me.name = fs::path(f.name).stem().string() + "_" + std::to_string(bi_);
  d.me.material =
      b.material_index >= 0 && static_cast<std::size_t>(b.material_index) < m.materials.size()
          ? b.material_index
          : -1;
  const std::vector<mesh_bone>* palette = nullptr;
  if (src.skinned) {
    std::size_t p = f.is_v37() ? static_cast<std::size_t>(std::max(0, b.bone_palette_index)) : 0;
    if (p >= m.bone_palettes.size())
      core::fail(code::bad_value,
                 "batch " + std::to_string(bi_) + " names bone palette " + std::to_string(p) +
                     " of " + std::to_string(m.bone_palettes.size()),
                 f.mesh_data_offset);
    palette = &m.bone_palettes[p];
    for (const auto& e : *palette) d.symbols.push_back(e.name);
  }
  std::map<std::uint32_t, std::uint32_t> remap;
  for (std::uint64_t k = 0; k < count; ++k) {
    std::uint64_t v64 = std::uint64_t{src.index_at(first + k)} + (f.is_v37() ? 0 : b.base_index);
    if (v64 >= src.nverts)
      core::fail(code::bad_value,
                 "batch " + std::to_string(bi_) + ": index " + std::to_string(v64) +
                     " beyond the vertex count " + std::to_string(src.nverts),
                 f.async_offset);
    auto v = static_cast<std::uint32_t>(v64);
    auto [it, fresh] = remap.emplace(v, static_cast<std::uint32_t>(d.me.positions.size()));
    if (fresh) append_vertex(f, src, v, palette, d.me);
    d.me.indices.push_back(it->second);
  }
  d.tangents = finish_tangents(d.me);
  d.me.extras = json{{"batch", bi_},
                     {"lod", lod_index},
                     {"usage", b.usage},
                     {"first_vertex", b.min_vertex},
                     {"last_vertex", b.max_vertex}};
  return d;
}

std::vector<decoded_batch> decode_lod(const d3dmesh_file& f, std::size_t lod_index,
                                      const read_context* ctx) {
  const lod_source src = lod_source_of(f, lod_index);
  std::vector<decoded_batch> out;
  for (std::size_t bi_ = 0; bi_ < f.mesh.lods[lod_index].batches[0].size(); ++bi_)
    out.push_back(decode_batch(f, src, lod_index, bi_));
  (void)ctx;
  return out;
}

// ------------------------------------------------------------------ the whole mesh

std::optional<std::pair<skeleton_file, std::string>> mesh_skeleton(const read_context& ctx,
                                                                   bool skinned) {
  std::string p;
  if (ctx.options.skeleton_path) {
    p = *ctx.options.skeleton_path;
  } else {
    std::string note;
    p = pair_skeleton(ctx.path, &note);
    if (p.empty()) {
      if (skinned && !note.empty())
        ctx.warn(code::w_pairing, note + "; joints are placed from the mesh's bone bounds");
      return std::nullopt;
    }
    if (!note.empty()) ctx.warn(code::w_pairing, note);
  }
  return std::make_pair(load_skeleton(ctx, p), p);
}

// The .anm files that go with the character: --anim patterns (globs in the mesh's
// folder unless they hold a folder), else every .anm next to the mesh that the naming
// rule pairs with the same skeleton file.
std::vector<std::string> character_animations(const read_context& ctx,
                                              const std::string& skl_path) {
  std::vector<std::string> out;
  std::error_code ec;
  fs::path dir =
      fs::path(ctx.path).has_parent_path() ? fs::path(ctx.path).parent_path() : fs::path(".");
  if (!ctx.options.animations.empty()) {
    for (const auto& pat : ctx.options.animations) {
      fs::path pp(pat);
      fs::path d = pp.has_parent_path() ? pp.parent_path() : dir;
      std::string glob = pp.filename().string();
      std::vector<std::string> hits;
      for (auto it = fs::directory_iterator(d, ec); !ec && it != fs::directory_iterator();
           it.increment(ec))
        if (it->is_regular_file(ec) &&
            fnmatch(glob.c_str(), it->path().filename().string().c_str(), FNM_CASEFOLD) == 0)
          hits.push_back(it->path().string());
      if (hits.empty()) ctx.warn(code::w_missing_bone, "--anim '" + pat + "' matches no file");
      out.insert(out.end(), hits.begin(), hits.end());
    }
  } else {
    std::error_code e2;
    for (auto it = fs::directory_iterator(dir, ec); !ec && it != fs::directory_iterator();
         it.increment(ec)) {
      if (!it->is_regular_file(ec) || lower(it->path().extension().string()) != ".anm") continue;
      std::string p = pair_skeleton(it->path().string(), nullptr);
      if (!p.empty() && fs::equivalent(p, skl_path, e2)) out.push_back(it->path().string());
    }
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

// Adds the animations of the character (character_animations) to the scene, bound to
// skeleton 0; the mover node an animation adds goes above the rig's roots once. Returns
// the file names read.
std::vector<json> add_character_animations(const read_context& ctx, const std::string& skl_path,
                                           skeleton& sk, scene& s) {
  std::vector<json> anim_list;
  for (const auto& ap : character_animations(ctx, skl_path)) {
    auto bytes = ctx.load(ap);
    if (!bytes) {
      ctx.warn(code::w_fallback, "animation '" + ap + "' not read: " + bytes.error().message);
      continue;
    }
    read_context ac = ctx;
    ac.path = ap;
    ac.data = bytes.value();
    ac.options.skeleton_path = skl_path;
    scene as;
    try {
      as = anm_scene(ac);
    } catch (const core::failure& e) {
      ctx.warn(code::w_fallback, "animation '" + fs::path(ap).filename().string() +
                                     "' skipped: " + e.error().message);
      continue;
    }
    if (as.skeletons.empty()) continue;
    // The mover node ("absoluteNode") an animation adds goes above the rig's roots once.
    for (const auto& b : as.skeletons[0].bones)
      if (sk.find(b.name) < 0 && b.parent < 0) {
        bone mover = b;
        for (auto& x : sk.bones)
          if (x.parent >= 0) ++x.parent;
        for (auto& x : sk.bones)
          if (x.parent < 0) x.parent = 0;
        sk.bones.insert(sk.bones.begin(), mover);
        // bone indices shifted by one: fixed below through names
      }
    for (auto& an : as.animations) {
      an.skeleton = 0;
      std::erase_if(an.tracks, [&](const track& t) { return sk.find(t.bone) < 0; });
      s.animations.push_back(std::move(an));
    }
    anim_list.push_back(fs::path(ap).filename().string());
  }
  return anim_list;
}

// The skeleton of a skinned mesh: the .skl when there is one (with the character's
// animations), else one bone per palette symbol. Palette symbols the skeleton lacks become
// root bones at the centre of their bounds; the batches' joints are rewritten from palette
// positions to bone indices. Returns what metadata.skeleton says about the source.
json add_mesh_skeleton(const read_context& ctx, const d3dmesh_file& f, const std::string& stem,
                       std::vector<decoded_batch>& batches, scene& s) {
  std::map<std::uint64_t, const mesh_bone*> palette_entry;
  for (const auto& p : f.mesh.bone_palettes)
    for (const auto& b : p) palette_entry.emplace(b.name, &b);
  auto bounds_centre = [&](std::uint64_t sym) {
    auto it = palette_entry.find(sym);
    if (it == palette_entry.end()) return vec3{0, 0, 0};
    const auto& b = it->second->box;
    return vec3{(b.min[0] + b.max[0]) / 2, (b.min[1] + b.max[1]) / 2, (b.min[2] + b.max[2]) / 2};
  };
  json skel_info;
  auto skl = mesh_skeleton(ctx, true);
  skeleton sk;
  if (skl) {
    sk = skeleton_from_file(skl->first, fs::path(skl->second).stem().string(), &ctx);
    skel_info = json{{"source", "skl"}, {"path", skl->second}};
    skel_info["animations"] = add_character_animations(ctx, skl->second, sk, s);
  } else {
    sk.name = stem;
    skel_info =
        json{{"source",
              "bone palette (no .skl): joints at the centre of each bone's bounds, unparented"}};
  }
  // Palette symbols -> bones; symbols the skeleton lacks become extra root bones.
  std::map<std::uint64_t, int> bone_of;
  std::size_t missing = 0;
  for (const auto& [sym, entry] : palette_entry) {
    std::string label = symbol_label(sym);
    int bi = sk.find(label);
    if (bi < 0) {
      bone b;
      b.name = label;
      b.translation = bounds_centre(sym);
      b.extras = json{{"symbol", hex16(sym)}, {"placed_from", "bone bounds centre"}};
      sk.bones.push_back(b);
      bi = static_cast<int>(sk.bones.size() - 1);
      if (skl) ++missing;
    }
    bone_of[sym] = bi;
  }
  if (missing)
    ctx.warn(code::w_missing_bone, std::to_string(missing) +
                                       " bone palette symbols are not in the skeleton; added as "
                                       "root bones placed from their bounds");
  for (auto& d : batches) {
    if (d.me.joints.empty()) continue;
    d.me.skeleton = 0;
    for (auto& j : d.me.joints)
      for (auto& x : j) x = static_cast<std::uint16_t>(bone_of.at(d.symbols.at(x)));
  }
  s.skeletons.push_back(std::move(sk));
  return skel_info;
}

// Diffuse textures by symbol, each decoded once; the folder is indexed on first need.
struct texture_finder {
  const read_context& ctx;
  scene& s;
  std::shared_ptr<texture_index> files;
  // (texture symbol, used as a normal map) -> scene texture (-1: not found)
  std::map<std::pair<std::uint64_t, bool>, int> texture_of;
  std::vector<std::string> missing, missing_normal_maps;

  int find(std::uint64_t sym, bool normal_map = false) {
    if (auto it = texture_of.find({sym, normal_map}); it != texture_of.end()) return it->second;
    if (!files) files = index_textures(ctx.path);
    std::string path = find_texture_file(*files, sym);
    int idx = -1;
    if (!path.empty() && ctx.load) {
      auto b = ctx.load(path);
      if (b) try {
          texture_file tf = parse_d3dtx(b.value());
          s.textures.push_back(texture_from_file(tf, fs::path(path).stem().string()));
          if (normal_map) to_gltf_normal_map(tf, s.textures.back());
          idx = static_cast<int>(s.textures.size() - 1);
          s.textures.back().extras["alpha_mode_value"] = tf.alpha_mode;
        } catch (const core::failure& e) {
          ctx.warn(code::w_fallback, "texture '" + path + "' not decoded: " + e.error().message);
        }
    }
    if (idx < 0) (normal_map ? missing_normal_maps : missing).push_back(hex16(sym));
    texture_of[{sym, normal_map}] = idx;
    return idx;
  }
};

// One material per mesh material: its PropertySet's texture handles in extras, the
// diffuse one loaded (blending when the texture asks for alpha and has it).
material material_of(const d3dmesh_file& f, const mesh_material& mm, texture_finder& textures,
                     const scene& s) {
  material mt;
  mt.name = symbol_label(mm.handle);
  json tex = json::object();
  for (const auto& res : f.resources) {
    if (res.name != mm.handle || res.type != crc64("PropertySet")) continue;
    for (const auto& [k, v] : property_set_textures(res.body)) {
      tex[texture_key_label(k)] = hex16(v);
      if (k == key_normal_map_texture) {  // tangent space; glTF uses it where meshes have tangents
        mt.normal_texture = textures.find(v, true);
        if (mt.normal_texture >= 0)
          tex[texture_key_label(k)] =
              s.textures[static_cast<std::size_t>(mt.normal_texture)].name + ".d3dtx";
      }
      if (k == key_diffuse_texture) {
        mt.texture = textures.find(v);
        if (mt.texture >= 0) {
          tex[texture_key_label(k)] =
              s.textures[static_cast<std::size_t>(mt.texture)].name + ".d3dtx";
          const auto& t = s.textures[static_cast<std::size_t>(mt.texture)];
          if (t.extras.value("alpha_mode_value", 0) != 0 && has_alpha(t))
            mt.alpha_mode = material::alpha::blend;
        }
      }
    }
  }
  mt.extras = json{{"handle", hex16(mm.handle)},
                   {"base_material", hex16(mm.base_material)},
                   {"flags", mm.flags},
                   {"textures", tex}};
  return mt;
}

// Vertex colours become COLOR_0 only when they carry information (differ between vertices):
// the engine's use of the attribute is unknown, and a constant such as the samples' (0,0,0,1)
// would only multiply the base colour (black). A constant is recorded in each mesh's extras
// (`vertex_color`) and in metadata.vertex_colors instead; pack writes it back from the template.
json settle_vertex_colours(const lod_source& src, std::vector<decoded_batch>& batches) {
  std::optional<vec4> first;
  bool constant = true;
  std::size_t n = 0;
  for (const auto& d : batches)
    for (const auto& c : d.me.colors) {
      ++n;
      if (!first)
        first = c;
      else if (c != *first)
        constant = false;
    }
  if (!first || !src.col.a) return nullptr;
  json info{{"vertices", n},
            {"format", gfx_format_name(src.col.a->format)},
            {"set", src.col.a->attribute_index}};
  if (!constant) {
    info["exported"] = "COLOR_0";
    return info;
  }
  info["exported"] = false;
  info["constant"] = *first;
  info["why"] =
      "every vertex holds the same colour: no information, and as COLOR_0 it would "
      "multiply the base colour";
  for (auto& d : batches) {
    if (d.me.colors.empty()) continue;
    d.me.colors.clear();
    d.me.extras["vertex_color"] = *first;
  }
  return info;
}

// metadata.lods: a summary of every LOD (one, LOD 0 or --lod N, becomes geometry).
json lods_summary(const d3dmesh_file& f) {
  json lods = json::array();
  for (const auto& l : f.mesh.lods) {
    std::uint32_t tris = 0;
    for (const auto& b : l.batches[0]) tris += b.num_primitives;
    lods.push_back(json{{"batches", l.batches[0].size()},
                        {"triangles", tris},
                        {"shadow_batches", l.batches[1].size()},
                        {"bones", l.bones.size()},
                        {"pixel_size", l.pixel_size}});
  }
  return lods;
}

scene d3dmesh_scene(const read_context& ctx) {
  d3dmesh_file f = parse_d3dmesh(ctx.data);
  scene s;
  s.format = "telltale-d3dmesh";
  const std::string stem = fs::path(ctx.path).stem().string();
  if (f.mesh.lods.empty())
    ctx.warn(code::w_unsupported_part, "the mesh has no LOD: nothing to convert");
  // --lod N picks a coarser LOD (the last one when N is beyond the mesh's count).
  const std::size_t want = static_cast<std::size_t>(std::max(ctx.options.lod.value_or(0), 0));
  const std::size_t lod = f.mesh.lods.empty() ? 0 : std::min(want, f.mesh.lods.size() - 1);
  if (!f.mesh.lods.empty() && want >= f.mesh.lods.size())
    ctx.warn(code::w_fallback, "--lod " + std::to_string(want) + " is beyond the mesh's " +
                                   std::to_string(f.mesh.lods.size()) + " LODs; LOD " + std::to_string(lod) + " is used");
  std::vector<decoded_batch> batches =
      f.mesh.lods.empty() ? std::vector<decoded_batch>{} : decode_lod(f, lod, &ctx);
  if (f.mesh.lods.size() > 1)
    ctx.warn(code::w_unsupported_part, "LOD " + std::to_string(lod) + " is converted (--lod N picks another); the other " +
                                           std::to_string(f.mesh.lods.size() - 1) +
                                           " LODs are listed in metadata.lods");
  bool skinned = std::any_of(batches.begin(), batches.end(),
                             [](const decoded_batch& d) { return !d.me.joints.empty(); });
  json skel_info;
  if (skinned) skel_info = add_mesh_skeleton(ctx, f, stem, batches, s);

  texture_finder textures{ctx, s, nullptr, {}, {}};
  for (const auto& mm : f.mesh.materials) s.materials.push_back(material_of(f, mm, textures, s));
  if (!textures.missing_normal_maps.empty())
    ctx.warn(code::w_fallback,
             std::to_string(textures.missing_normal_maps.size()) +
                 " normal maps are not next to the mesh: " + textures.missing_normal_maps.front() +
                 (textures.missing_normal_maps.size() > 1 ? ", ..." : ""));
  const std::vector<std::string>& missing_textures = textures.missing;
  if (!missing_textures.empty())
    ctx.warn(code::w_fallback, std::to_string(missing_textures.size()) +
                                   " diffuse textures are not next to the mesh (crc64 of a .d3dtx "
                                   "file name or of its inner name): " +
                                   missing_textures.front() +
                                   (missing_textures.size() > 1 ? ", ..." : ""));
  const json colours =
      f.mesh.lods.empty() ? json() : settle_vertex_colours(lod_source_of(f, lod), batches);
  tangent_stats ts;
  for (const auto& d : batches) {
    ts.vertices += d.tangents.vertices, ts.from_uv += d.tangents.from_uv;
    ts.compared += d.tangents.compared, ts.same_direction += d.tangents.same_direction;
    ts.same_w += d.tangents.same_w;
  }
  for (auto& d : batches) s.meshes.push_back(std::move(d.me));

  s.metadata = json{{"mesh_name", f.name},
                    {"version", f.version},
                    {"stream", stream_version_name(f.ms.magic).value_or("?")},
                    {"vertex_count", f.mesh.vertex_count},
                    {"lods", lods_summary(f)},
                    {"lod", lod},
                    {"bounds", box_json(f.mesh.box)},
                    {"materials", f.mesh.materials.size()}};
  if (!skel_info.is_null()) s.metadata["skeleton"] = skel_info;
  if (!colours.is_null()) s.metadata["vertex_colors"] = colours;
  if (ts.vertices)
    s.metadata["tangents"] = json{{"vertices", ts.vertices},
                                  {"from_uv_gradients", ts.from_uv},
                                  {"compared_with_uv_gradients", ts.compared},
                                  {"same_direction_as_uv_gradients", ts.same_direction},
                                  {"same_handedness_as_uv_gradients", ts.same_w}};
  if (!missing_textures.empty()) s.metadata["missing_textures"] = missing_textures;
  if (!textures.missing_normal_maps.empty())
    s.metadata["missing_normal_maps"] = textures.missing_normal_maps;
  return s;
}

}  // namespace

result<scene> read_d3dmesh(const read_context& ctx) {
  return core::guarded(ctx.path, "telltale-d3dmesh", [&] { return d3dmesh_scene(ctx); });
}

result<scene> read_d3dtx(const read_context& ctx) {
  return core::guarded(ctx.path, "telltale-d3dtx", [&] { return d3dtx_scene(ctx); });
}

}  // namespace rigrip::telltale
