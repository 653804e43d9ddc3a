// The Switch FRES raw layer, part 2: models (FMDL) with their skeleton (FSKL), vertex
// buffers (FVTX), shapes (FSHP) with LOD meshes, and materials (FMAT), read into the
// same structures as the Wii U models (model.hpp) so one decoder serves both. Layouts
// per version are in README.md ("Switch models"); nothing here is written back: the
// file image keeps every byte and serialise_switch() leaves models untouched.
//
// What differs from the Wii U: little-endian, absolute u64 offsets, arrays of structures
// named by a dictionary, vertex and index bytes in one buffer pool (the header's buffer
// info: {u32, u32 size, u64 start}) addressed by offsets relative to its start, textures
// referenced by name only, nn::gfx enums for attribute / index formats and primitives.
#include <algorithm>
#include <cmath>
#include <map>

#include "formats/bfres/fres_detail.hpp"

namespace rigrip::bfres::detail {
namespace {

using core::byte_reader;
using core::fail;

constexpr std::uint32_t kMaxBones = 4096;

// The second version byte: 0.5.0.3 -> 5. 0.9+ replaces the block header of most
// structures by a u32 of flags (so their fields start 8 bytes earlier).
struct layout {
  std::uint32_t minor = 5;
  [[nodiscard]] bool v9() const { return minor >= 9; }
  // The first field after the magic (and the block header or flags).
  [[nodiscard]] std::uint32_t first() const { return v9() ? 8 : 0x10; }
  [[nodiscard]] std::uint32_t model_size() const { return 0x78; }
  [[nodiscard]] std::uint32_t vertex_size() const { return v9() ? 0x58 : 0x60; }
  [[nodiscard]] std::uint32_t shape_size() const { return v9() ? 0x60 : 0x70; }
  [[nodiscard]] std::uint32_t material_size() const {
    return minor >= 10 ? 0xB0 : v9() ? 0xA8 : 0xB8;
  }
  // Bones: name, user-data array and dictionary, then 16 reserved bytes in 0.8/0.9, 8 from 0.10.
  [[nodiscard]] std::uint32_t bone_reserved() const {
    return minor >= 10 ? 8 : minor >= 8 ? 16 : 0;
  }
};

constexpr std::uint32_t kAttribSize = 0x10, kMeshSize = 0x38, kSamplerSize = 0x20,
                        kRenderInfoSize = 0x18;

std::uint32_t off(const byte_reader& file, std::uint64_t field) {
  return switch_offset_at(file, field);
}
std::string name(const byte_reader& file, std::uint64_t field) {
  return switch_name_at(file, off(file, field));
}

// A dictionary's names by index (entry i + 1 names array element i). Nodes are read in
// order, never followed, so links that form a cycle cannot loop.
std::vector<std::string> dict_names(const byte_reader& file, std::uint32_t at, const char* what) {
  std::vector<std::string> out;
  if (!at) return out;
  const std::uint32_t count = file.u32_at(at + 4);
  if (count > 65535)
    fail(code::bad_count,
         std::string(what) + " dictionary entry count " + std::to_string(count) +
             " exceeds the limit of 65535",
         at + 4);
  file.checked_count_at(at + 8, count + 1ull, 16, what);
  spend(count + 1ull, at);
  for (std::uint32_t i = 1; i <= count; ++i) out.push_back(name(file, at + 8 + 16ull * i + 8));
  return out;
}

// An array of `count` structures of `size` bytes at the offset in `field`.
std::uint32_t array_at(const byte_reader& file, std::uint64_t field, std::uint32_t count,
                       std::uint32_t size, const char* what) {
  const std::uint32_t at = off(file, field);
  if (!count) return at;
  if (!at)
    fail(code::bad_offset,
         std::string(what) + ": " + std::to_string(count) + " counted but no array", field);
  file.checked_count_at(at, count, size, what);
  spend(count, at);
  return at;
}

// The name of array element i: the dictionary's when it has one, else empty.
std::string nth(const std::vector<std::string>& names, std::size_t i) {
  return i < names.size() ? names[i] : std::string();
}

// The buffer pool: every vertex and index buffer lies in [start, start + size).
struct pool {
  std::uint32_t info_at = 0;
  std::uint64_t start = 0, size = 0;
  // Absolute position of `len` bytes at `rel` into the pool, checked.
  [[nodiscard]] std::uint32_t place(std::uint64_t rel, std::uint64_t len, const std::string& what,
                                    std::uint64_t field) const {
    if (!info_at)
      fail(code::bad_offset, what + ": the file has no buffer pool (buffer info offset 0)", field);
    if (rel > size || len > size - rel)
      fail(code::bad_offset,
           what + " (" + std::to_string(len) + " bytes at +" + std::to_string(rel) +
               ") lies outside the buffer pool (" + std::to_string(size) + " bytes)",
           field);
    return static_cast<std::uint32_t>(start + rel);
  }
};

std::array<float, 12> read_mtx(byte_reader& r) {
  std::array<float, 12> m{};
  for (auto& v : m) v = r.f32();
  return m;
}

// The FSKL's reserved bytes before its user pointer: 8 from 0.9; before, 16 or none (the
// notes disagree for 0.8): the version's choice unless only the other one puts the bone
// dictionary's count in the bone-count field.
std::uint32_t skeleton_gap(const byte_reader& file, std::uint32_t at, const layout& l) {
  if (l.v9()) return 8;
  const std::uint32_t want = l.minor == 8 ? 16 : 0, other = want ? 0 : 16;
  const std::uint32_t b = at + l.first();
  const std::uint64_t dict_at = file.u64_at(b);
  if (!dict_at || dict_at + 8 > file.size()) return want;
  const std::uint32_t entries = file.u32_at(dict_at + 4);
  auto bones_at = [&](std::uint32_t gap) {
    const std::uint64_t f = b + 0x20ull + gap + 8 + 4;
    return f + 2 <= file.size() ? std::uint32_t{file.u16_at(f)} : ~0u;
  };
  return bones_at(want) != entries && bones_at(other) == entries ? other : want;
}

// The bones' reserved bytes (0 before 0.8, 16 in 0.8 / 0.9, 8 from 0.10): the version's
// choice unless only another one gives every bone its own index in the index field.
std::uint32_t bone_gap(const byte_reader& file, std::uint32_t array_at, std::uint32_t count,
                       const layout& l) {
  const std::uint32_t want = l.bone_reserved();
  auto fits = [&](std::uint32_t gap) {
    const std::uint64_t stride = 0x50 + gap;
    if (!array_at || !count || array_at + stride * count > file.size()) return false;
    for (std::uint32_t i = 0; i < count; ++i)
      if (file.u16_at(array_at + stride * i + 0x18 + gap) != i) return false;
    return true;
  };
  if (fits(want) || !count) return want;
  for (std::uint32_t gap : {0u, 16u, 8u})
    if (gap != want && fits(gap)) return gap;
  return want;
}

skeleton parse_skeleton(const byte_reader& file, std::uint32_t at, const layout& l) {
  file.checked_count_at(at, 1, 0x40, "skeleton (FSKL)");
  if (file.peek(at).fixed_string(4) != "FSKL") fail(code::bad_magic, "expected 'FSKL'", at);
  skeleton s;
  s.at = at;
  const std::uint32_t b = at + l.first();
  s.bone_dict_at = off(file, b);
  s.bone_array_at = off(file, b + 8);
  s.mtx_to_bone_at = off(file, b + 0x10);
  s.inverse_at = off(file, b + 0x18);
  // After the four offsets: reserved bytes (16 in 0.8 for bfrespy, none for BfresLibrary; 8
  // from 0.9), the user pointer (a mirror-bone table from 0.9), then the flags (before 0.9)
  // and the counts. The notes disagree before 0.9, so the version's choice is tried first and
  // the other one kept when only it gives the bone dictionary's count.
  const std::uint32_t ptr = b + 0x20 + skeleton_gap(file, at, l);
  std::uint32_t counts = ptr + 8;
  if (l.v9()) {
    s.flags = file.u32_at(at + 4);
  } else {
    s.flags = file.u32_at(counts);
    counts += 4;
  }
  s.user_ptr = static_cast<std::uint32_t>(off(file, ptr));
  s.num_bones = file.u16_at(counts);
  s.num_smooth = file.u16_at(counts + 2);
  s.num_rigid = file.u16_at(counts + 4);
  if (s.num_bones > kMaxBones)
    fail(code::bad_count,
         "bone count " + std::to_string(s.num_bones) + " over the limit of " +
             std::to_string(kMaxBones),
         counts);
  const std::vector<std::string> names = dict_names(file, s.bone_dict_at, "bone");
  if (!names.empty() && names.size() != s.num_bones)
    fail(code::bad_count,
         "bone dictionary has " + std::to_string(names.size()) + " entries for " +
             std::to_string(s.num_bones) + " bones",
         s.bone_dict_at + 4);
  const std::uint32_t reserved = bone_gap(file, s.bone_array_at, s.num_bones, l);
  const std::uint32_t stride = 0x50 + reserved;
  if (s.num_bones && !s.bone_array_at)
    fail(code::bad_offset, "bones counted but no bone array", b + 8);
  if (s.num_bones) file.checked_count_at(s.bone_array_at, s.num_bones, stride, "bones");
  for (std::uint32_t i = 0; i < s.num_bones; ++i) {
    spend(1, s.bone_array_at);
    bone bn;
    bn.at = s.bone_array_at + i * stride;
    bn.name_at = off(file, bn.at);
    bn.name = switch_name_at(file, bn.name_at);
    bn.user_data_at = off(file, bn.at + 0x10);  // the user-data dictionary (values are not read)
    byte_reader r = file.peek(bn.at + 0x18 + reserved);
    bn.index = r.u16();
    bn.parent = r.i16();
    bn.smooth_index = r.i16();
    bn.rigid_index = r.i16();
    bn.billboard = r.u16();
    bn.num_user_data = r.u16();
    bn.flags = r.u32();
    for (auto& v : bn.scale) v = r.f32();
    for (auto& v : bn.rotate) v = r.f32();
    for (auto& v : bn.translate) v = r.f32();
    if (bn.parent >= static_cast<std::int32_t>(i) || bn.parent < -1)
      fail(code::bad_value,
           "bone '" + bn.name + "' has parent " + std::to_string(bn.parent) +
               " (parents must precede children)",
           bn.at + 0x1A + reserved);
    s.bones.push_back(std::move(bn));
  }
  const std::uint32_t mtx = static_cast<std::uint32_t>(s.num_smooth) + s.num_rigid;
  if (mtx) {
    if (!s.mtx_to_bone_at)
      fail(code::bad_offset, "skin matrices counted but no matrix-to-bone table", b + 0x10);
    byte_reader m = file.peek(s.mtx_to_bone_at);
    m.checked_count(mtx, 2, "matrix-to-bone table");
    spend(mtx, s.mtx_to_bone_at);
    for (std::uint32_t i = 0; i < mtx; ++i) s.mtx_to_bone.push_back(m.i16());
  }
  if (s.inverse_at && s.num_smooth) {
    byte_reader m = file.peek(s.inverse_at);
    m.checked_count(s.num_smooth, 48, "inverse model matrices");
    spend(s.num_smooth, s.inverse_at);
    for (std::uint32_t i = 0; i < s.num_smooth; ++i) s.inverse_matrices.push_back(read_mtx(m));
  }
  return s;
}

// FVTX: attributes (name, u32 nn::gfx format, u16 offset, u8 buffer), then per buffer a
// size entry {u32 size, u32 flags, 8 reserved} and a stride entry {u32 stride, 12
// reserved}. Buffer 0 starts at the FVTX's pool offset, each next one after the previous
// one's bytes; each start is rounded up to 8 (BfresLibrary's rule).
vertex_buffer parse_vertex_buffer(const byte_reader& file, std::uint32_t at, const layout& l,
                                  const pool& p) {
  if (file.peek(at).fixed_string(4) != "FVTX") fail(code::bad_magic, "expected 'FVTX'", at);
  vertex_buffer vb;
  vb.at = at;
  const std::uint32_t b = at + l.first();
  byte_reader c = file.peek(b + 0x40);
  const std::int32_t pool_offset = c.i32();
  const std::uint8_t num_attribs = c.u8(), num_buffers = c.u8();
  vb.index = c.u16();
  vb.vertex_count = c.u32();
  vb.skin_count = static_cast<std::uint8_t>(c.u32());
  const std::uint32_t attrib_at = array_at(file, b, num_attribs, kAttribSize, "vertex attributes");
  // Each attribute carries its own name; the dictionary is still checked (count, names).
  (void)dict_names(file, off(file, b + 8), "vertex attribute");
  const std::uint32_t size_at = array_at(file, b + 0x28, num_buffers, 0x10, "vertex buffer sizes");
  const std::uint32_t stride_at =
      array_at(file, b + 0x30, num_buffers, 0x10, "vertex buffer strides");
  for (std::uint32_t k = 0; k < num_attribs; ++k) {
    vertex_attrib a;
    a.at = attrib_at + kAttribSize * k;
    a.name = name(file, a.at);
    a.format = file.u32_at(a.at + 8);
    a.offset = file.u16_at(a.at + 0xC);
    a.buffer = file.u8_at(a.at + 0xE);
    vb.attribs.push_back(std::move(a));
  }
  if (num_buffers && pool_offset < 0)
    fail(code::bad_offset,
         "vertex buffer pool offset " + std::to_string(pool_offset) + " is negative", b + 0x40);
  std::uint64_t rel = static_cast<std::uint64_t>(std::max(pool_offset, 0));
  for (std::uint32_t k = 0; k < num_buffers; ++k) {
    gpu_buffer g;
    g.at = size_at + 0x10 * k;
    g.size = file.u32_at(g.at);
    g.stride = static_cast<std::uint16_t>(
        std::min<std::uint32_t>(file.u32_at(stride_at + 0x10 * k), 0xFFFF));
    // Rounded up to 8 in file positions (the pool start is aligned in real files).
    const std::uint64_t abs = p.start + rel;
    rel += (8 - abs % 8) % 8;
    g.data_at = p.place(
        rel, g.size, "vertex buffer " + std::to_string(k) + " of FVTX " + std::to_string(vb.index),
        b + 0x40);
    rel += g.size;
    vb.buffers.push_back(g);
  }
  return vb;
}

shape parse_shape(const byte_reader& file, std::uint32_t at, const layout& l, const pool& p) {
  if (file.peek(at).fixed_string(4) != "FSHP") fail(code::bad_magic, "expected 'FSHP'", at);
  shape s;
  s.at = at;
  const std::uint32_t b = at + l.first();
  s.name = name(file, b);
  std::uint32_t fields = b + 0x48;
  if (l.v9()) {
    s.flags = file.u32_at(at + 4);
  } else {
    s.flags = file.u32_at(fields);
    fields += 4;
  }
  byte_reader r = file.peek(fields);
  s.index = r.u16();
  s.material = r.u16();
  s.bone = r.u16();
  s.vertex_buffer = r.u16();
  const std::uint16_t num_skin_bones = r.u16();
  s.skin_count = r.u8();
  const std::uint8_t num_meshes = r.u8();
  (void)r.u8();  // key shapes (named by the key-shape dictionary)
  const std::uint32_t mesh_at = array_at(file, b + 0x10, num_meshes, kMeshSize, "LOD meshes");
  if (const std::uint32_t radius_at = off(file, b + 0x38); radius_at && num_meshes) {
    byte_reader rr = file.peek(radius_at);
    rr.checked_count(num_meshes, 4, "shape radii");
    for (std::uint32_t i = 0; i < num_meshes; ++i) s.radius.push_back(rr.f32());
  }
  for (std::uint32_t i = 0; i < num_meshes; ++i) {
    lod_mesh lm;
    lm.at = mesh_at + kMeshSize * i;
    const std::uint32_t sub_at = off(file, lm.at);
    const std::uint32_t size_at = off(file, lm.at + 0x18);
    byte_reader m = file.peek(lm.at + 0x20);
    const std::uint32_t face_offset = m.u32();
    lm.primitive = m.u32();     // nn::gfx PrimitiveTopology (3 triangle list, 4 strip)
    lm.index_format = m.u32();  // nn::gfx IndexFormat (0 u8, 1 u16, 2 u32)
    lm.index_count = m.u32();
    lm.first_vertex = m.u32();
    const std::uint16_t num_sub = m.u16();
    if (num_sub) {
      if (!sub_at) fail(code::bad_offset, "sub-meshes counted but absent", lm.at);
      lm.submeshes = read_submeshes(file, sub_at, num_sub);
    }
    if (!size_at) fail(code::bad_offset, "LOD mesh without its index buffer size", lm.at + 0x18);
    lm.index_buffer.at = size_at;
    lm.index_buffer.size = file.u32_at(size_at);
    lm.index_buffer.data_at = p.place(face_offset, lm.index_buffer.size,
                                      "index buffer of shape '" + s.name + "'", lm.at + 0x20);
    s.meshes.push_back(std::move(lm));
  }
  if (const std::uint32_t skin_at = off(file, b + 0x18); skin_at && num_skin_bones) {
    byte_reader sk = file.peek(skin_at);
    sk.checked_count(num_skin_bones, 2, "skin bone indices");
    spend(num_skin_bones, skin_at);
    for (std::uint32_t i = 0; i < num_skin_bones; ++i) s.skin_bones.push_back(sk.u16());
  }
  s.key_shapes = dict_names(file, off(file, b + 0x28), "key shape");
  return s;
}

// Switch samplers ({u8 wrap u, v, w, compare, border, anisotropy; u16 filter; f32 min
// LOD, max LOD, LOD bias; 12 reserved}) expressed as the GX2 sampler words the decoder
// reads: wrap (0 repeat, 1 mirror, 2+ clamp) in bits 0-2 / 3-5, magnification bit 9 and
// minification bit 12 (1 = linear), mip filter bits 17-18.
sampler parse_sampler(const byte_reader& file, std::uint32_t at) {
  byte_reader r = file.peek(at);
  const std::uint8_t wu = r.u8(), wv = r.u8(), ww = r.u8();
  (void)ww;
  r.skip(3);
  const std::uint16_t filter = r.u16();
  auto wrap = [](std::uint8_t w) -> std::uint32_t {
    return w == 0 ? 0 : w == 1 ? 1 : w == 4 || w == 5 ? 3 : 2;
  };
  const std::uint32_t mip = filter & 3, mag = (filter >> 2) & 3, min = (filter >> 4) & 3;
  sampler s;
  s.words[0] = wrap(wu) | (wrap(wv) << 3) | (mag == 2 ? 1u << 9 : 0u) | (min == 2 ? 1u << 12 : 0u) |
               ((mip & 3u) << 17);
  return s;
}

// A string array: `count` u64 offsets to names.
std::vector<std::string> strings(const byte_reader& file, std::uint32_t at, std::uint32_t count,
                                 const char* what) {
  std::vector<std::string> out;
  if (!count || !at) return out;
  file.checked_count_at(at, count, 8, what);
  spend(count, at);
  for (std::uint32_t i = 0; i < count; ++i) out.push_back(name(file, at + 8ull * i));
  return out;
}

// {values, dictionary} of strings (shader assign): name -> value.
std::map<std::string, std::string> string_map(const byte_reader& file, std::uint64_t field) {
  std::map<std::string, std::string> out;
  const std::vector<std::string> keys = dict_names(file, off(file, field + 8), "shader assign");
  const std::vector<std::string> vals = strings(
      file, off(file, field), static_cast<std::uint32_t>(keys.size()), "shader assign values");
  for (std::size_t i = 0; i < keys.size(); ++i) out[keys[i]] = nth(vals, i);
  return out;
}

// `count` render-info values of `type` (0 s32, 1 f32, 2 string offsets) at `data`.
nlohmann::json render_values(const byte_reader& file, std::uint32_t data, std::uint32_t count,
                             std::uint8_t type) {
  nlohmann::json vals = nlohmann::json::array();
  if (!count || !data) return vals;
  file.checked_count_at(data, count, type == 2 ? 8 : 4, "render info values");
  spend(count, data);
  for (std::uint32_t k = 0; k < count; ++k) {
    if (type == 0)
      vals.push_back(static_cast<std::int32_t>(file.u32_at(data + 4ull * k)));
    else if (type == 1)
      vals.push_back(file.f32_at(data + 4ull * k));
    else
      vals.push_back(name(file, data + 8ull * k));
  }
  return vals;
}

// 0.10 render info: the shader assign lists {name, u8 type} (16 bytes each, count u16 at
// +0x48); the material holds a value table (b+0x38), a u16 count per entry (b+0x40) and a
// u16 byte offset per entry into the value table (b+0x48).
void render_info_v10(const byte_reader& file, std::uint32_t assign, std::uint32_t b, material& m) {
  const std::uint32_t list = off(file, assign + 0x10);
  const std::uint16_t n = file.u16_at(assign + 0x48);
  if (!n || !list) return;
  file.checked_count_at(list, n, 16, "render info list");
  spend(n, list);
  const std::uint32_t data = off(file, b + 0x38), counts = off(file, b + 0x40),
                      offs = off(file, b + 0x48);
  for (std::uint32_t i = 0; i < n; ++i) {
    const std::uint8_t type = file.u8_at(list + 16ull * i + 8);
    if (type > 2)
      fail(code::bad_value, "render info type " + std::to_string(type) + " is not 0-2",
           list + 16ull * i + 8);
    const std::uint32_t count = counts ? file.u16_at(counts + 2ull * i) : 0;
    const std::uint32_t at = data && offs ? data + file.u16_at(offs + 2ull * i) : 0;
    m.render_info.emplace_back(name(file, list + 16ull * i), render_values(file, at, count, type));
  }
}

// Bytes of a shader parameter of `type` (0.10 stores no size): vectors of 4-byte values,
// matrices, SRTs (Srt2D 20, Srt3D 36, TexSrt 24, TexSrtEx 28); 0 for the reserved types.
std::uint8_t param_size(std::uint8_t type) {
  if (type < 16) return static_cast<std::uint8_t>(4 * ((type % 4) + 1));
  static constexpr std::uint8_t rest[] = {0, 16, 24, 32, 0,  24, 36, 48,
                                          0, 32, 48, 64, 20, 36, 24, 28};
  return type < 32 ? rest[type - 16] : 0;
}

// 0.10 shader parameters: the shader assign lists {reserved, name, u16 offset, u16 type,
// reserved} (24 bytes each, count u16 at +0x4A, source size u16 at +0x4C); the material's
// source bytes at b+0x50.
void params_v10(const byte_reader& file, std::uint32_t assign, std::uint32_t b, material& m) {
  const std::uint32_t list = off(file, assign + 0x20);
  const std::uint16_t n = file.u16_at(assign + 0x4A), source_size = file.u16_at(assign + 0x4C);
  if (!n || !list) return;
  file.checked_count_at(list, n, 24, "shader parameter list");
  spend(n, list);
  const std::uint32_t source_at = off(file, b + 0x50);
  for (std::uint32_t i = 0; i < n; ++i) {
    const std::uint64_t e = list + 24ull * i;
    shader_param sp;
    sp.name = name(file, e + 8);
    sp.offset = file.u16_at(e + 0x10);
    const std::uint16_t type = file.u16_at(e + 0x12);
    if (type > 31)
      fail(code::bad_value, "shader parameter type " + std::to_string(type) + " is not 0-31",
           e + 0x12);
    sp.type = static_cast<std::uint8_t>(type);
    sp.size = param_size(sp.type);
    if (source_at && static_cast<std::uint32_t>(sp.offset) + sp.size <= source_size)
      sp.value = param_value(file.sub(source_at + sp.offset, sp.size), sp.type, sp.size);
    m.params.push_back(std::move(sp));
  }
}

material parse_material(const byte_reader& file, std::uint32_t at, const layout& l) {
  if (file.peek(at).fixed_string(4) != "FMAT") fail(code::bad_magic, "expected 'FMAT'", at);
  material m;
  m.at = at;
  const std::uint32_t b = at + l.first();
  m.name = name(file, b);
  if (l.minor >= 10) {
    // 0.10: shader info (its shader assign: archive and model names, the render-info list),
    // textures, samplers, render-info tables, parameters; shader options are not read.
    m.flags = file.u32_at(at + 4);
    m.index = file.u16_at(b + 0x98);
    const std::uint8_t num_samplers = file.u8_at(b + 0x9A), num_textures = file.u8_at(b + 0x9B);
    if (const std::uint32_t info = off(file, b + 8))
      if (const std::uint32_t assign = off(file, info)) {
        file.checked_count_at(assign, 1, 0x58, "shader assign");
        m.shader_archive = name(file, assign);
        m.shading_model = name(file, assign + 8);
        render_info_v10(file, assign, b, m);
        params_v10(file, assign, b, m);
      }
    for (auto& t : strings(file, off(file, b + 0x18), num_textures, "texture names"))
      m.textures.push_back({t, 0});
    const std::uint32_t samp_at = array_at(file, b + 0x28, num_samplers, kSamplerSize, "samplers");
    const std::vector<std::string> snames = dict_names(file, off(file, b + 0x30), "sampler");
    for (std::uint32_t i = 0; i < num_samplers; ++i) {
      sampler s = parse_sampler(file, samp_at + kSamplerSize * i);
      s.name = nth(snames, i);
      s.index = static_cast<std::uint8_t>(i);
      m.samplers.push_back(std::move(s));
    }
    return m;
  }
  std::uint32_t counts = b + 0x90;
  if (l.v9()) {
    m.flags = file.u32_at(at + 4);
  } else {
    m.flags = file.u32_at(counts);
    counts += 4;
  }
  byte_reader c = file.peek(counts);
  m.index = c.u16();
  const std::uint16_t num_render_info = c.u16();
  // The Wii U order (and 0.10's); BfresLibrary's loader reads the two the other way round,
  // so they are swapped when only that matches the sampler dictionary's count.
  std::uint8_t num_samplers = c.u8(), num_textures = c.u8();
  if (const std::uint32_t sd = off(file, b + 0x40); sd && num_samplers != num_textures) {
    const std::uint32_t n = file.u32_at(sd + 4);
    if (n != num_samplers && n == num_textures) std::swap(num_samplers, num_textures);
  }
  const std::uint16_t num_params = c.u16();
  (void)c.u16();  // volatile parameters
  const std::uint16_t source_size = c.u16();
  // Render info: {name, values, u16 count, u8 type (0 s32, 1 f32, 2 string), 5 reserved}.
  const std::uint32_t ri_at =
      array_at(file, b + 8, num_render_info, kRenderInfoSize, "render info");
  for (std::uint32_t i = 0; i < num_render_info; ++i) {
    const std::uint32_t e = ri_at + kRenderInfoSize * i;
    const std::uint32_t data = off(file, e + 8);
    const std::uint16_t count = file.u16_at(e + 0x10);
    const std::uint8_t type = file.u8_at(e + 0x12);
    if (type > 2)
      fail(code::bad_value, "render info type " + std::to_string(type) + " is not 0-2", e + 0x12);
    m.render_info.emplace_back(name(file, e), render_values(file, data, count, type));
  }
  if (const std::uint32_t assign = off(file, b + 0x18)) {
    file.checked_count_at(assign, 1, 0x48, "shader assign");
    m.shader_archive = name(file, assign);
    m.shading_model = name(file, assign + 8);
    m.attrib_assign = string_map(file, assign + 0x10);
    m.sampler_assign = string_map(file, assign + 0x20);
    m.options = string_map(file, assign + 0x30);
  }
  for (auto& t : strings(file, off(file, b + 0x28), num_textures, "texture names"))
    m.textures.push_back({t, 0});
  const std::uint32_t samp_at = array_at(file, b + 0x38, num_samplers, kSamplerSize, "samplers");
  const std::vector<std::string> snames = dict_names(file, off(file, b + 0x40), "sampler");
  for (std::uint32_t i = 0; i < num_samplers; ++i) {
    sampler s = parse_sampler(file, samp_at + kSamplerSize * i);
    s.name = nth(snames, i);
    s.index = static_cast<std::uint8_t>(i);
    m.samplers.push_back(std::move(s));
  }
  // Shader parameters (0x20): callback pointer, name, u8 type, u8 size, u16 offset into the
  // source bytes (b+0x58), s32 uniform offset, u16 depended / depend indices, reserved.
  const std::uint32_t param_at = array_at(file, b + 0x48, num_params, 0x20, "shader parameters");
  const std::uint32_t source_at = off(file, b + 0x58);
  for (std::uint32_t i = 0; i < num_params; ++i) {
    const std::uint32_t e = param_at + 0x20 * i;
    shader_param sp;
    sp.name = name(file, e + 8);
    sp.type = file.u8_at(e + 0x10);
    sp.size = file.u8_at(e + 0x11);
    sp.offset = file.u16_at(e + 0x12);
    if (sp.type > 31)
      fail(code::bad_value, "shader parameter type " + std::to_string(sp.type) + " is not 0-31",
           e + 0x10);
    if (source_at && static_cast<std::uint32_t>(sp.offset) + sp.size <= source_size)
      sp.value = param_value(file.sub(source_at + sp.offset, sp.size), sp.type, sp.size);
    m.params.push_back(std::move(sp));
  }
  return m;
}

model parse_model(const byte_reader& file, std::uint32_t at, const layout& l, const pool& p) {
  if (file.peek(at).fixed_string(4) != "FMDL") fail(code::bad_magic, "expected 'FMDL'", at);
  model md;
  md.at = at;
  const std::uint32_t b = at + l.first();
  md.name = name(file, b);
  md.skeleton_at = off(file, b + 0x10);
  const std::uint32_t counts = b + (l.v9() ? 0x60 : 0x58);
  const std::uint16_t num_vb = file.u16_at(counts), num_shapes = file.u16_at(counts + 2),
                      num_mats = file.u16_at(counts + 4);
  if (md.skeleton_at) md.skel = parse_skeleton(file, md.skeleton_at, l);
  const std::uint32_t vb_at =
      array_at(file, b + 0x18, num_vb, l.vertex_size(), "vertex buffers (FVTX)");
  for (std::uint32_t i = 0; i < num_vb; ++i)
    md.vertex_buffers.push_back(parse_vertex_buffer(file, vb_at + l.vertex_size() * i, l, p));
  const std::uint32_t shape_at =
      array_at(file, b + 0x20, num_shapes, l.shape_size(), "shapes (FSHP)");
  const std::vector<std::string> shape_names = dict_names(file, off(file, b + 0x28), "shape");
  if (!shape_names.empty() && shape_names.size() != num_shapes)
    fail(code::bad_count,
         "shape dictionary has " + std::to_string(shape_names.size()) + " entries for " +
             std::to_string(num_shapes) + " shapes",
         off(file, b + 0x28) + 4);
  for (std::uint32_t i = 0; i < num_shapes; ++i)
    md.shapes.push_back(parse_shape(file, shape_at + l.shape_size() * i, l, p));
  const std::uint32_t mat_at =
      array_at(file, b + 0x30, num_mats, l.material_size(), "materials (FMAT)");
  for (std::uint32_t i = 0; i < num_mats; ++i)
    md.materials.push_back(parse_material(file, mat_at + l.material_size() * i, l));
  return md;
}

}  // namespace

void parse_switch_models(const byte_reader& file, bfres::file& f) {
  const layout l{(f.version >> 16) & 0xFF};
  // Header: model array 0x28, dictionary 0x30; the buffer info at 0x90 (0xB0 from 0.9,
  // after 32 reserved bytes), the model count at 0xBC (0xDC).
  const std::uint32_t count_field = l.v9() ? 0xDC : 0xBC, info_field = l.v9() ? 0xB0 : 0x90;
  const std::uint16_t n = file.u16_at(count_field);
  if (!n) return;
  pool p;
  p.info_at = off(file, info_field);
  if (p.info_at) {
    file.checked_count_at(p.info_at, 1, 0x20, "buffer info");
    p.size = file.u32_at(p.info_at + 4);
    p.start = file.u64_at(p.info_at + 8);
    if (p.start > file.size() || p.size > file.size() - p.start)
      fail(code::bad_offset,
           "buffer pool (" + std::to_string(p.size) + " bytes at " + std::to_string(p.start) +
               ") lies outside the file",
           p.info_at + 4);
  }
  const std::uint32_t at = array_at(file, 0x28, n, l.model_size(), "models (FMDL)");
  const std::vector<std::string> names = dict_names(file, off(file, 0x30), "model");
  if (!names.empty() && names.size() != n)
    fail(code::bad_count,
         "model dictionary has " + std::to_string(names.size()) + " entries for " +
             std::to_string(n) + " models",
         off(file, 0x30) + 4);
  for (std::uint32_t i = 0; i < n; ++i)
    f.models.push_back(parse_model(file, at + l.model_size() * i, l, p));
}

}  // namespace rigrip::bfres::detail
