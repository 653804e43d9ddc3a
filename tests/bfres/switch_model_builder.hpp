// Hand-built BFRES models for tests: one description (t_model: bones, skin matrices,
// shapes with their vertex attributes and indices, materials naming textures) written
// either as a little-endian Switch FRES (0.5 to 0.10 layouts, from the notes in
// src/formats/bfres/README.md "Switch models" and ../shared/specs/bfres.md §7) or as a
// big-endian Wii U FRES 4.5 (the layouts of bfres.md §2), so that the two platforms can
// be decoded and compared. Written from the layout tables, not from the reader's code.
#pragma once

#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "builder.hpp"

namespace bfres_test {

// Attribute encodings used by the tests, with each platform's enum value.
enum class afmt { f32x3, f32x2, snorm10_10_10_2, unorm16x2, f16x2, u8x4, unorm8x4, snorm8x4, u8x1 };
struct afmt_info {
  std::uint32_t gx2, nx, size;
};
inline afmt_info info(afmt f) {
  switch (f) {
    case afmt::f32x3:
      return {0x811, 0x1805, 12};
    case afmt::f32x2:
      return {0x80D, 0x1705, 8};
    case afmt::snorm10_10_10_2:
      return {0x20B, 0x0E02, 4};
    case afmt::unorm16x2:
      return {0x007, 0x1201, 4};
    case afmt::f16x2:
      return {0x808, 0x1205, 4};
    case afmt::u8x4:
      return {0x10A, 0x0B03, 4};
    case afmt::unorm8x4:
      return {0x00A, 0x0B01, 4};
    case afmt::snorm8x4:
      return {0x20A, 0x0B02, 4};
    case afmt::u8x1:
      return {0x100, 0x0203, 1};
  }
  return {0, 0, 0};
}

// Half floats for values the tests use (exact for small dyadic fractions).
inline std::uint16_t to_half(float v) {
  std::uint32_t x;
  std::memcpy(&x, &v, 4);
  const std::uint32_t sign = (x >> 16) & 0x8000u;
  const int exp = static_cast<int>((x >> 23) & 0xFF) - 127 + 15;
  const std::uint32_t man = x & 0x7FFFFFu;
  if ((x & 0x7FFFFFFFu) == 0) return static_cast<std::uint16_t>(sign);
  if (exp <= 0 || exp >= 31) return static_cast<std::uint16_t>(sign);  // not used by the tests
  return static_cast<std::uint16_t>(sign | (std::uint32_t(exp) << 10) | (man >> 13));
}

// Bytes of one value in a format; `big` for the Wii U.
inline std::vector<std::uint8_t> encode(afmt f, const std::array<float, 4>& v, bool big) {
  std::vector<std::uint8_t> out;
  auto put = [&](std::uint64_t x, int n) {
    for (int i = 0; i < n; ++i) out.push_back(std::uint8_t(x >> (8 * (big ? n - 1 - i : i))));
  };
  auto f32 = [&](float a) {
    std::uint32_t x;
    std::memcpy(&x, &a, 4);
    put(x, 4);
  };
  switch (f) {
    case afmt::f32x3:
      f32(v[0]), f32(v[1]), f32(v[2]);
      break;
    case afmt::f32x2:
      f32(v[0]), f32(v[1]);
      break;
    case afmt::snorm10_10_10_2: {
      std::uint32_t w = 0;
      for (int i = 0; i < 3; ++i)
        w |= (std::uint32_t(std::int32_t(std::lround(v[std::size_t(i)] * 511.0f))) & 0x3FFu)
             << (10 * i);
      w |= (std::uint32_t(std::lround(v[3] * 3.0f)) & 3u) << 30;
      put(w, 4);
      break;
    }
    case afmt::unorm16x2:
      put(std::uint32_t(std::lround(v[0] * 65535.0f)), 2),
          put(std::uint32_t(std::lround(v[1] * 65535.0f)), 2);
      break;
    case afmt::f16x2:
      put(to_half(v[0]), 2), put(to_half(v[1]), 2);
      break;
    case afmt::u8x4:
      for (int i = 0; i < 4; ++i) put(std::uint32_t(v[std::size_t(i)]), 1);
      break;
    case afmt::unorm8x4:
      for (int i = 0; i < 4; ++i) put(std::uint32_t(std::lround(v[std::size_t(i)] * 255.0f)), 1);
      break;
    case afmt::snorm8x4:
      for (int i = 0; i < 4; ++i)
        put(std::uint32_t(std::int32_t(std::lround(v[std::size_t(i)] * 127.0f))) & 0xFFu, 1);
      break;
    case afmt::u8x1:
      put(std::uint32_t(v[0]), 1);
      break;
  }
  return out;
}

struct t_attr {
  std::string name;
  afmt format = afmt::f32x3;
  std::uint8_t buffer = 0;
  std::vector<std::array<float, 4>> values;  // one per vertex
};
struct t_shape {
  std::string name;
  std::uint16_t material = 0, bone = 0;
  std::uint8_t skin = 0;
  std::vector<t_attr> attrs;
  std::vector<std::uint32_t> indices;            // a triangle list (LOD 0)
  std::vector<std::vector<std::uint32_t>> lods;  // LOD 1, 2 ...: more triangle lists
  bool index32 = false;
  [[nodiscard]] std::vector<std::vector<std::uint32_t>> meshes() const {
    std::vector<std::vector<std::uint32_t>> out{indices};
    out.insert(out.end(), lods.begin(), lods.end());
    return out;
  }
  [[nodiscard]] std::uint32_t vertex_count() const {
    return attrs.empty() ? 0 : std::uint32_t(attrs[0].values.size());
  }
};
struct t_texture {
  std::string sampler, texture;  // e.g. _a0, Body_Alb
};
struct t_material {
  std::string name;
  std::vector<t_texture> textures;
  std::string render_mode = "opaque";  // gsys_render_state_mode
};
struct t_model_bone {
  std::string name;
  std::int16_t parent = -1, smooth = -1, rigid = -1;
  std::uint32_t flags = 0x1001;  // visible, Euler
  std::array<float, 3> s{1, 1, 1}, t{0, 0, 0};
  std::array<float, 4> r{0, 0, 0, 1};
};
struct t_model {
  std::string name = "Model";
  std::uint32_t skeleton_flags = 0x1200;  // Maya scale, Euler
  // Reserved bytes of the FSKL (before its user pointer) and of each bone; -1: the version's
  // (0.8: 16 and 16, as bfrespy reads them). Other values write the other notes' layouts.
  int skeleton_gap = -1, bone_gap = -1;
  std::vector<t_model_bone> bones;
  std::vector<std::int16_t> mtx_to_bone;  // smooth matrices first, then rigid
  std::uint16_t num_smooth = 0, num_rigid = 0;
  std::vector<t_shape> shapes;
  std::vector<t_material> materials;
};

// One vertex buffer per shape; each buffer interleaves its attributes in order.
struct buffer_layout {
  std::vector<std::uint32_t> stride;            // per buffer
  std::vector<std::uint32_t> offset;            // per attribute
  std::vector<std::vector<std::uint8_t>> data;  // per buffer
};
inline buffer_layout lay_out(const t_shape& s, bool big) {
  buffer_layout l;
  std::size_t nbuf = 0;
  for (const auto& a : s.attrs) nbuf = std::max<std::size_t>(nbuf, a.buffer + 1u);
  l.stride.assign(nbuf, 0);
  for (const auto& a : s.attrs) {
    l.offset.push_back(l.stride[a.buffer]);
    l.stride[a.buffer] += info(a.format).size;
  }
  l.data.assign(nbuf, {});
  for (std::size_t b = 0; b < nbuf; ++b)
    for (std::uint32_t v = 0; v < s.vertex_count(); ++v)
      for (const auto& a : s.attrs)
        if (a.buffer == b) {
          auto e = encode(a.format, a.values[v], big);
          l.data[b].insert(l.data[b].end(), e.begin(), e.end());
        }
  return l;
}
inline std::vector<std::uint8_t> index_bytes(const t_shape& s,
                                             const std::vector<std::uint32_t>& idx, bool big) {
  std::vector<std::uint8_t> out;
  const int n = s.index32 ? 4 : 2;
  for (std::uint32_t i : idx)
    for (int k = 0; k < n; ++k) out.push_back(std::uint8_t(i >> (8 * (big ? n - 1 - k : k))));
  return out;
}

// ---- Switch ---------------------------------------------------------------------------

// Little-endian bytes with absolute u64 offsets to labels resolved at the end.
struct le_writer {
  std::vector<std::uint8_t> b;
  std::map<std::string, std::size_t> labels;
  std::vector<std::pair<std::size_t, std::string>> fixups;
  std::map<std::string, std::string> strs;  // label -> text, written by strings()
  std::size_t pos() const { return b.size(); }
  void u8(std::uint8_t v) { b.push_back(v); }
  void u16(std::uint16_t v) { u8(std::uint8_t(v)), u8(std::uint8_t(v >> 8)); }
  void u32(std::uint32_t v) { u16(std::uint16_t(v)), u16(std::uint16_t(v >> 16)); }
  void u64(std::uint64_t v) { u32(std::uint32_t(v)), u32(std::uint32_t(v >> 32)); }
  void f32(float v) {
    std::uint32_t x;
    std::memcpy(&x, &v, 4);
    u32(x);
  }
  void raw(const char* s) { b.insert(b.end(), s, s + std::strlen(s)); }
  void bytes(const std::vector<std::uint8_t>& v) { b.insert(b.end(), v.begin(), v.end()); }
  void ptr(const std::string& label) {
    if (!label.empty()) fixups.push_back({b.size(), label});
    u64(0);
  }
  void name(const std::string& s) {  // a pointer to a string written later
    strs["s:" + s] = s;
    ptr("s:" + s);
  }
  void mark(const std::string& l) { labels[l] = b.size(); }
  void pad_to(std::size_t n) {
    while (b.size() < n) u8(0);
  }
  void align(std::size_t a) {
    while (b.size() % a) u8(0);
  }
  void strings() {  // u16 length, characters, NUL, aligned to 2
    for (auto& [l, s] : strs) {
      align(2);
      mark(l);
      u16(std::uint16_t(s.size()));
      raw(s.c_str());
      u8(0);
    }
  }
  // Dictionary: magic, count, root node, then one node per name. The model's readers take
  // the nodes in order; a one-entry dictionary is also a valid Patricia tree (its node links
  // to itself both ways), which a reader that searches by name needs.
  void dict(const std::string& label, const std::vector<std::string>& names) {
    align(8);
    mark(label);
    raw("_DIC");
    u32(std::uint32_t(names.size()));
    u32(0xFFFFFFFF), u16(1), u16(0), name("");
    if (names.size() == 1) {
      u32(0), u16(1), u16(1), name(names[0]);
      return;
    }
    for (std::size_t i = 0; i < names.size(); ++i)
      u32(0), u16(0), u16(std::uint16_t(i + 1)), name(names[i]);
  }
  void finish() {
    for (auto& [at, l] : fixups) {
      const std::uint64_t v = labels.at(l);
      for (int i = 0; i < 8; ++i) b[at + std::size_t(i)] = std::uint8_t(v >> (8 * i));
    }
  }
};

// An embedded file of a Switch FRES (e.g. "textures.bntx").
struct t_embedded {
  std::string name;
  std::vector<std::uint8_t> bytes;
};
// A skeletal animation in the same file (0.5-0.8 FSKA layout): one bone animation with
// base values S R T and no curves (a constant pose), Euler, looping.
struct t_const_anim {
  std::string name, bone;
  std::int32_t frames = 10;
  std::array<float, 10> base{1, 1, 1, 0, 0, 0, 1, 0, 0, 0};
};

// `version` 0x000X0000 | patch: X = 5..10 picks the layout.
inline std::vector<std::uint8_t> build_switch_model(const t_model& m,
                                                    std::uint32_t version = 0x00050003,
                                                    const std::vector<t_embedded>& embedded = {},
                                                    const std::vector<t_const_anim>& anims = {}) {
  const std::uint32_t minor = (version >> 16) & 0xFF;
  const bool v9 = minor >= 9, v10 = minor >= 10;
  le_writer w;
  // Header (0xD0 bytes, 0xF0 from 0.9).
  const std::size_t header_size = v9 ? 0xF0 : 0xD0;
  w.raw("FRES    ");
  w.u32(version);
  w.u8(0xFF), w.u8(0xFE), w.u8(3), w.u8(0);
  w.u32(0), w.u16(0), w.u16(std::uint16_t(header_size)), w.u32(0),
      w.u32(0);  // name chars, file size: patched
  w.name(m.name);
  w.ptr("fmdl"), w.ptr("mdict");
  if (v9)
    for (int i = 0; i < 4; ++i) w.u64(0);
  w.ptr(anims.empty() ? "" : "fska"), w.ptr(anims.empty() ? "" : "fskadict");
  for (int i = 0; i < 8; ++i) w.u64(0);  // other animation arrays and dictionaries
  w.u64(0);                              // memory pool
  w.ptr("bufinfo");
  w.ptr(embedded.empty() ? "" : "ext"), w.ptr(embedded.empty() ? "" : "extdict"), w.u64(0),
      w.u64(0);  // + reserved, string table
  w.u32(0);
  w.u16(1);
  if (v9) w.u16(0), w.u16(0);
  for (int i = 0; i < 6; ++i)
    w.u16(i == 5 ? std::uint16_t(embedded.size()) : i == 0 ? std::uint16_t(anims.size()) : 0);
  w.pad_to(header_size);
  auto block = [&](const char* magic,
                   std::uint32_t flags) {  // magic, then flags (0.9+) or a block header
    w.raw(magic);
    if (v9)
      w.u32(flags);
    else
      w.u32(0), w.u64(0);
  };
  const std::size_t vtx_size = v9 ? 0x58 : 0x60, shp_size = v9 ? 0x60 : 0x70,
                    mat_size = v10  ? 0xB0
                               : v9 ? 0xA8
                                    : 0xB8;
  const std::size_t bone_reserved = m.bone_gap >= 0 ? std::size_t(m.bone_gap)
                                    : minor >= 10   ? 8
                                    : minor >= 8    ? 16
                                                    : 0;
  const std::size_t skeleton_gap = m.skeleton_gap >= 0 ? std::size_t(m.skeleton_gap)
                                   : v9                ? 8
                                   : minor == 8        ? 16
                                                       : 0;
  // Model.
  std::size_t start = w.pos();
  w.mark("fmdl");
  block("FMDL", 0);
  w.name(m.name), w.name(""), w.ptr(m.bones.empty() ? "" : "fskl"), w.ptr("fvtx"), w.ptr("fshp"),
      w.ptr("sdict"), w.ptr(m.materials.empty() ? "" : "fmat"),
      w.ptr(m.materials.empty() ? "" : "matdict");
  if (v9) w.u64(0);              // shader assigns
  w.u64(0), w.u64(0), w.u64(0);  // user data, dictionary, user pointer
  w.u16(std::uint16_t(m.shapes.size())), w.u16(std::uint16_t(m.shapes.size())),
      w.u16(std::uint16_t(m.materials.size()));
  if (v9)
    w.u16(0), w.u16(0);
  else
    w.u16(0), w.u32(0);
  w.pad_to(start + 0x78);
  // Vertex buffers: one per shape.
  w.align(8);
  w.mark("fvtx");
  std::vector<buffer_layout> lays;
  for (const auto& s : m.shapes) lays.push_back(lay_out(s, false));
  // Pool: index buffers, then vertex buffers, each aligned to 8 (relative offsets below).
  std::vector<std::vector<std::uint32_t>> ib_rel;  // per shape, per LOD
  std::vector<std::uint32_t> vb_rel;
  std::vector<std::uint8_t> pool;
  auto pool_add = [&](const std::vector<std::uint8_t>& d) {
    while (pool.size() % 8) pool.push_back(0);
    const auto at = std::uint32_t(pool.size());
    pool.insert(pool.end(), d.begin(), d.end());
    return at;
  };
  for (const auto& s : m.shapes) {
    ib_rel.emplace_back();
    for (const auto& idx : s.meshes())
      ib_rel.back().push_back(pool_add(index_bytes(s, idx, false)));
  }
  for (const auto& l : lays) {
    vb_rel.push_back(std::uint32_t(-1));
    for (const auto& d : l.data) {
      const auto at = pool_add(d);
      if (vb_rel.back() == std::uint32_t(-1)) vb_rel.back() = at;
    }
  }
  for (std::size_t i = 0; i < m.shapes.size(); ++i) {
    const auto& s = m.shapes[i];
    const std::string V = "v" + std::to_string(i);
    start = w.pos();
    w.mark("fvtx" + std::to_string(i));
    block("FVTX", 0);
    w.ptr(V + "attr"), w.ptr(V + "adict"), w.u64(0), w.u64(0), w.u64(0), w.ptr(V + "size"),
        w.ptr(V + "stride"), w.u64(0);
    w.u32(vb_rel[i]);
    w.u8(std::uint8_t(s.attrs.size())), w.u8(std::uint8_t(lays[i].data.size())),
        w.u16(std::uint16_t(i));
    w.u32(s.vertex_count()), w.u32(s.skin);
    w.pad_to(start + vtx_size);
  }
  // Shapes.
  w.align(8);
  w.mark("fshp");
  for (std::size_t i = 0; i < m.shapes.size(); ++i) {
    const auto& s = m.shapes[i];
    const std::string S = "s" + std::to_string(i);
    start = w.pos();
    block("FSHP", 2);
    w.name(s.name), w.ptr("fvtx" + std::to_string(i)), w.ptr(S + "mesh"), w.ptr(S + "skin"),
        w.u64(0), w.u64(0), w.u64(0), w.ptr(S + "radius"), w.u64(0);
    if (!v9) w.u32(2);
    w.u16(std::uint16_t(i)), w.u16(s.material), w.u16(s.bone), w.u16(std::uint16_t(i)), w.u16(1);
    w.u8(s.skin), w.u8(std::uint8_t(s.meshes().size())), w.u8(0), w.u8(0);
    w.pad_to(start + shp_size);
  }
  // Materials.
  if (!m.materials.empty()) {
    w.align(8);
    w.mark("fmat");
  }
  for (std::size_t i = 0; i < m.materials.size(); ++i) {
    const auto& mt = m.materials[i];
    const std::string M = "m" + std::to_string(i);
    const auto nt = std::uint8_t(mt.textures.size());
    start = w.pos();
    block("FMAT", 1);
    w.name(mt.name);
    if (v10) {
      w.ptr(M + "info"), w.u64(0), w.ptr(nt ? M + "tex" : ""), w.u64(0), w.ptr(nt ? M + "smp" : ""),
          w.ptr(nt ? M + "sdict" : "");
      w.ptr(M + "rivals"), w.ptr(M + "ricounts"), w.ptr(M + "rioffs");  // render-info tables
      w.ptr(M + "source");
      for (int k = 0; k < 8; ++k) w.u64(0);  // parameter indices, user data, flags, slots
      w.u16(std::uint16_t(i)), w.u8(nt), w.u8(nt);
    } else {
      w.ptr(M + "ri"), w.ptr(M + "ridict"), w.ptr(M + "assign"), w.u64(0),
          w.ptr(nt ? M + "tex" : ""), w.u64(0), w.ptr(nt ? M + "smp" : ""),
          w.ptr(nt ? M + "sdict" : "");
      w.ptr(M + "params"), w.ptr(M + "pdict"), w.ptr(M + "source");
      for (int k = 0; k < 6; ++k) w.u64(0);  // user data, volatile flags, user pointer, slots
      if (!v9) w.u32(1);
      w.u16(std::uint16_t(i)), w.u16(1), w.u8(nt), w.u8(nt);
      w.u16(1), w.u16(0), w.u16(16);  // one shader parameter, no volatile ones, 16 source bytes
    }
    w.pad_to(start + mat_size);
  }
  // Skeleton.
  if (!m.bones.empty()) {
    w.align(8);
    w.mark("fskl");
    block("FSKL", m.skeleton_flags);
    w.ptr("bdict"), w.ptr("bones"), w.ptr(m.mtx_to_bone.empty() ? "" : "mtx"),
        w.ptr(m.num_smooth ? "inv" : "");
    for (std::size_t k = 0; k < skeleton_gap; ++k) w.u8(0);
    w.u64(0);  // user pointer / mirror table
    if (!v9) w.u32(m.skeleton_flags);
    w.u16(std::uint16_t(m.bones.size())), w.u16(m.num_smooth), w.u16(m.num_rigid);
    w.align(8);
    w.mark("bones");
    for (std::size_t i = 0; i < m.bones.size(); ++i) {
      const auto& bn = m.bones[i];
      w.name(bn.name), w.u64(0), w.u64(0);
      for (std::size_t k = 0; k < bone_reserved; ++k) w.u8(0);
      w.u16(std::uint16_t(i)), w.u16(std::uint16_t(bn.parent)), w.u16(std::uint16_t(bn.smooth)),
          w.u16(std::uint16_t(bn.rigid));
      w.u16(0xFFFF), w.u16(0), w.u32(bn.flags);
      for (float v : bn.s) w.f32(v);
      for (float v : bn.r) w.f32(v);
      for (float v : bn.t) w.f32(v);
    }
    if (!m.mtx_to_bone.empty()) {
      w.mark("mtx");
      for (auto v : m.mtx_to_bone) w.u16(std::uint16_t(v));
    }
    if (m.num_smooth) {
      w.align(4);
      w.mark("inv");
      for (std::uint16_t k = 0; k < m.num_smooth; ++k)
        for (int e = 0; e < 12; ++e) w.f32(e % 4 == e / 4 ? 1.0f : 0.0f);
    }
    std::vector<std::string> names;
    for (const auto& bn : m.bones) names.push_back(bn.name);
    w.dict("bdict", names);
  }
  // Per shape: attributes, sizes, strides, meshes, sub-meshes, index sizes, skin bones, radius.
  for (std::size_t i = 0; i < m.shapes.size(); ++i) {
    const auto& s = m.shapes[i];
    const auto& l = lays[i];
    const std::string V = "v" + std::to_string(i), S = "s" + std::to_string(i);
    w.align(8);
    w.mark(V + "attr");
    for (std::size_t k = 0; k < s.attrs.size(); ++k) {
      w.name(s.attrs[k].name), w.u32(info(s.attrs[k].format).nx), w.u16(std::uint16_t(l.offset[k])),
          w.u8(s.attrs[k].buffer), w.u8(0);
    }
    w.mark(V + "size");
    for (const auto& d : l.data) w.u32(std::uint32_t(d.size())), w.u32(0), w.u64(0);
    w.mark(V + "stride");
    for (auto st : l.stride) w.u32(st), w.u32(0), w.u64(0);
    std::vector<std::string> an;
    for (const auto& a : s.attrs) an.push_back(a.name);
    w.dict(V + "adict", an);
    const auto lods = s.meshes();
    w.mark(S + "mesh");
    for (std::size_t k = 0; k < lods.size(); ++k) {  // 0x38 each
      const std::string K = S + "l" + std::to_string(k);
      w.ptr(K + "sub"), w.u64(0), w.u64(0), w.ptr(K + "isize");
      w.u32(ib_rel[i][k]), w.u32(3), w.u32(s.index32 ? 2 : 1), w.u32(std::uint32_t(lods[k].size())),
          w.u32(0);
      w.u16(1), w.u16(0);
    }
    for (std::size_t k = 0; k < lods.size(); ++k) {
      const std::string K = S + "l" + std::to_string(k);
      w.mark(K + "sub");
      w.u32(0), w.u32(std::uint32_t(lods[k].size()));
      w.mark(K + "isize");
      w.u32(std::uint32_t(lods[k].size() * (s.index32 ? 4 : 2))), w.u32(0), w.u64(0);
    }
    w.mark(S + "skin");
    w.u16(s.bone), w.u16(0);
    w.mark(S + "radius");
    for (std::size_t k = 0; k < lods.size(); ++k) w.f32(2.0f);
    w.align(8);
  }
  std::vector<std::string> sn;
  for (const auto& s : m.shapes) sn.push_back(s.name);
  w.dict("sdict", sn);
  w.dict("mdict", {m.name});
  // Material parts.
  std::vector<std::string> mn;
  for (std::size_t i = 0; i < m.materials.size(); ++i) {
    const auto& mt = m.materials[i];
    const std::string M = "m" + std::to_string(i);
    mn.push_back(mt.name);
    w.align(8);
    if (!mt.textures.empty()) {
      w.mark(M + "tex");
      for (const auto& t : mt.textures) w.name(t.texture);
      w.mark(M + "smp");
      for (std::size_t k = 0; k < mt.textures.size(); ++k) {
        w.u8(0), w.u8(0), w.u8(2), w.u8(0), w.u8(0),
            w.u8(1);  // repeat, repeat, clamp; never; white; 1:1
        w.u16(0x2A);  // linear min, mag and mip
        w.f32(0), w.f32(13), w.f32(0), w.u32(0), w.u32(0), w.u32(0);
      }
      std::vector<std::string> smp;
      for (const auto& t : mt.textures) smp.push_back(t.sampler);
      w.dict(M + "sdict", smp);
    }
    if (v10) {
      w.mark(M + "info");
      w.ptr(M + "assign");
      w.mark(M + "assign");
      w.name("uking_mat"), w.name("turbo_uber"), w.ptr(M + "rilist");
      w.u64(0), w.ptr(M + "plist");                       // render-info dictionary, parameter list
      for (int k = 0; k < 4; ++k) w.u64(0);               // dictionaries
      w.u16(1), w.u16(1), w.u16(16), w.u16(0), w.u64(0);  // render infos, parameters, source size
      w.mark(M + "plist");  // 24 bytes each: reserved, name, u16 offset, u16 type, reserved
      w.u64(0), w.name("gsys_color0"), w.u16(0), w.u16(15), w.u32(0);
      w.mark(M + "source");
      for (float v : {0.25f, 0.5f, 0.75f, 1.0f}) w.f32(v);
      w.mark(M + "rilist");
      w.name("gsys_render_state_mode"), w.u8(2), w.u8(0), w.u16(0), w.u32(0);
      w.mark(M + "rivals");
      w.name(mt.render_mode);
      w.mark(M + "ricounts");
      w.u16(1);
      w.mark(M + "rioffs");
      w.u16(0);
      w.align(8);
    } else {
      w.mark(M + "ri");
      w.name("gsys_render_state_mode"), w.ptr(M + "rival"), w.u16(1), w.u8(2), w.u8(0), w.u32(0);
      w.mark(M + "rival");
      w.name(mt.render_mode);
      w.dict(M + "ridict", {"gsys_render_state_mode"});
      w.mark(M + "assign");
      w.name("uking_mat"), w.name("turbo_uber");
      for (int k = 0; k < 6; ++k) w.u64(0);
      w.u32(0), w.u32(0);
      // One Float4 shader parameter (type 15) at offset 0 of the source bytes.
      w.mark(M + "params");
      w.u64(0), w.name("gsys_color0"), w.u8(15), w.u8(16), w.u16(0), w.u32(0), w.u16(0xFFFF),
          w.u16(0xFFFF), w.u32(0);
      w.dict(M + "pdict", {"gsys_color0"});
      w.mark(M + "source");
      for (float v : {0.25f, 0.5f, 0.75f, 1.0f}) w.f32(v);
    }
  }
  if (!mn.empty()) w.dict("matdict", mn);
  if (!anims.empty()) {
    w.align(8);
    w.mark("fska");
    for (std::size_t i = 0; i < anims.size(); ++i) {
      const std::string A = "a" + std::to_string(i);
      w.raw("FSKA"), w.u32(0x60), w.u32(0x60), w.u32(0);
      w.name(anims[i].name), w.name(""), w.u64(0), w.ptr(A + "bind"), w.ptr(A + "ba"), w.u64(0),
          w.u64(0);
      w.u32(0x1000 | 4), w.u32(std::uint32_t(anims[i].frames)), w.u32(0), w.u32(0), w.u16(1),
          w.u16(0), w.u32(0);
    }
    for (std::size_t i = 0; i < anims.size(); ++i) {
      const std::string A = "a" + std::to_string(i);
      w.mark(A + "ba");
      w.name(anims[i].bone), w.u64(0), w.ptr(A + "base");
      w.u32((1u << 3) | (1u << 4) | (1u << 5)), w.u8(3), w.u8(6), w.u8(0), w.u8(7), w.u32(0),
          w.u32(0);
      w.mark(A + "base");
      for (float v : anims[i].base) w.f32(v);
      w.mark(A + "bind");
      w.u16(0xFFFF), w.u16(0);
    }
    std::vector<std::string> an;
    for (const auto& a : anims) an.push_back(a.name);
    w.dict("fskadict", an);
  }
  if (!embedded.empty()) {
    w.align(8);
    w.mark("ext");
    for (std::size_t i = 0; i < embedded.size(); ++i)
      w.ptr("ext" + std::to_string(i)), w.u64(embedded[i].bytes.size());
    std::vector<std::string> en;
    for (const auto& e : embedded) en.push_back(e.name);
    w.dict("extdict", en);
  }
  w.strings();
  // Buffer info and the pool.
  w.align(8);
  w.mark("bufinfo");
  w.u32(0), w.u32(std::uint32_t(pool.size())), w.ptr("pool"), w.u64(0), w.u64(0);
  w.align(0x100);
  w.mark("pool");
  w.bytes(pool);
  for (std::size_t i = 0; i < embedded.size(); ++i) {
    w.align(0x100);
    w.mark("ext" + std::to_string(i));
    w.bytes(embedded[i].bytes);
  }
  w.align(8);
  w.finish();
  const auto name_chars = std::uint32_t(w.labels["s:" + m.name] + 2),
             size = std::uint32_t(w.b.size());
  std::memcpy(w.b.data() + 0x10, &name_chars, 4);
  std::memcpy(w.b.data() + 0x1C, &size, 4);
  return w.b;
}

// ---- Wii U ----------------------------------------------------------------------------

// The same model as a Wii U FRES 4.5.0.3 (big-endian, self-relative offsets).
inline std::vector<std::uint8_t> build_wiiu_model(const t_model& m) {
  be_buffer w;
  w.raw("FRES", 4);
  w.u32(0x04050003);
  w.u16(0xFEFF), w.u16(0x10), w.u32(0), w.u32(0x2000);
  w.name(m.name);
  w.u32(0), w.ref("");
  for (int i = 0; i < 12; ++i) w.ref(i == 0 ? "dict0" : "");
  for (int i = 0; i < 12; ++i) w.u16(i == 0 ? 1 : 0);
  w.u32(0);
  write_dict(w, "dict0", {{m.name, "fmdl"}});
  w.mark("fmdl");
  w.raw("FMDL", 4);
  w.name(m.name), w.name(""), w.ref(m.bones.empty() ? "" : "fskl"), w.ref("fvtx"), w.ref("sdict"),
      w.ref(m.materials.empty() ? "" : "mdict"), w.ref("");
  w.u16(std::uint16_t(m.shapes.size())), w.u16(std::uint16_t(m.shapes.size())),
      w.u16(std::uint16_t(m.materials.size())), w.u16(0);
  w.u32(0), w.u32(0);
  if (!m.bones.empty()) {
    w.mark("fskl");
    w.raw("FSKL", 4);
    w.u32(m.skeleton_flags);
    w.u16(std::uint16_t(m.bones.size())), w.u16(m.num_smooth), w.u16(m.num_rigid), w.u16(0);
    w.ref(""), w.ref("bones"), w.ref(m.mtx_to_bone.empty() ? "" : "mtx"),
        w.ref(m.num_smooth ? "inv" : "");
    w.u32(0);
    w.mark("bones");
    for (std::size_t i = 0; i < m.bones.size(); ++i) {
      const auto& bn = m.bones[i];
      w.name(bn.name);
      w.u16(std::uint16_t(i)), w.u16(std::uint16_t(bn.parent)), w.u16(std::uint16_t(bn.smooth)),
          w.u16(std::uint16_t(bn.rigid));
      w.u16(0xFFFF), w.u16(0), w.u32(bn.flags);
      for (float v : bn.s) w.f32(v);
      for (float v : bn.r) w.f32(v);
      for (float v : bn.t) w.f32(v);
      w.ref("");
    }
    if (!m.mtx_to_bone.empty()) {
      w.mark("mtx");
      for (auto v : m.mtx_to_bone) w.u16(std::uint16_t(v));
      w.align4();
    }
    if (m.num_smooth) {
      w.mark("inv");
      for (std::uint16_t k = 0; k < m.num_smooth; ++k)
        for (int e = 0; e < 12; ++e) w.f32(e % 4 == e / 4 ? 1.0f : 0.0f);
    }
  }
  std::vector<buffer_layout> lays;
  for (const auto& s : m.shapes) lays.push_back(lay_out(s, true));
  // FVTX array (0x20 each).
  w.mark("fvtx");
  for (std::size_t i = 0; i < m.shapes.size(); ++i) {
    const auto& s = m.shapes[i];
    const std::string V = "v" + std::to_string(i);
    w.raw("FVTX", 4);
    w.u8(std::uint8_t(s.attrs.size())), w.u8(std::uint8_t(lays[i].data.size())),
        w.u16(std::uint16_t(i));
    w.u32(s.vertex_count()), w.u8(s.skin), w.u8(0), w.u8(0), w.u8(0);
    w.ref(V + "attr"), w.ref(""), w.ref(V + "buf"), w.u32(0);
  }
  std::vector<std::pair<std::string, std::string>> shapes, mats;
  for (std::size_t i = 0; i < m.shapes.size(); ++i) {
    const auto& s = m.shapes[i];
    const auto& l = lays[i];
    const std::string V = "v" + std::to_string(i), S = "s" + std::to_string(i);
    shapes.push_back({s.name, S});
    w.mark(V + "attr");
    for (std::size_t k = 0; k < s.attrs.size(); ++k) {
      w.name(s.attrs[k].name), w.u8(s.attrs[k].buffer), w.u8(0), w.u16(std::uint16_t(l.offset[k])),
          w.u32(info(s.attrs[k].format).gx2);
    }
    w.mark(V + "buf");
    for (std::size_t k = 0; k < l.data.size(); ++k) {
      w.u32(0), w.u32(std::uint32_t(l.data[k].size())), w.u32(0), w.u16(std::uint16_t(l.stride[k])),
          w.u16(1), w.u32(0);
      w.ref(V + "data" + std::to_string(k));
    }
    for (std::size_t k = 0; k < l.data.size(); ++k) {
      w.mark(V + "data" + std::to_string(k));
      w.b.insert(w.b.end(), l.data[k].begin(), l.data[k].end());
      w.align4();
    }
    // FSHP (4.5: radius array offset).
    w.mark(S);
    w.raw("FSHP", 4);
    w.name(s.name), w.u32(2);
    w.u16(std::uint16_t(i)), w.u16(s.material), w.u16(s.bone), w.u16(std::uint16_t(i)), w.u16(1);
    const auto lods = s.meshes();
    w.u8(s.skin), w.u8(std::uint8_t(lods.size())), w.u8(0), w.u8(0), w.u16(0);
    w.ref(S + "radius"), w.ref("fvtx"), w.ref(S + "mesh"), w.ref(S + "skin"), w.ref(""), w.ref(""),
        w.ref(""), w.u32(0);
    w.mark(S + "radius");
    for (std::size_t k = 0; k < lods.size(); ++k) w.f32(2.0f);
    w.mark(S + "skin");
    w.u16(s.bone), w.u16(0);
    w.mark(S + "mesh");
    for (std::size_t k = 0; k < lods.size(); ++k) {  // 0x1C each
      const std::string K = S + "l" + std::to_string(k);
      w.u32(4), w.u32(s.index32 ? 9 : 4), w.u32(std::uint32_t(lods[k].size())), w.u16(1), w.u16(0);
      w.ref(K + "sub"), w.ref(K + "ib"), w.u32(0);
    }
    for (std::size_t k = 0; k < lods.size(); ++k) {
      const std::string K = S + "l" + std::to_string(k);
      w.mark(K + "sub");
      w.u32(0), w.u32(std::uint32_t(lods[k].size()));
      const auto ib = index_bytes(s, lods[k], true);
      w.mark(K + "ib");
      w.u32(0), w.u32(std::uint32_t(ib.size())), w.u32(0), w.u16(0), w.u16(1), w.u32(0),
          w.ref(K + "idata");
      w.mark(K + "idata");
      w.b.insert(w.b.end(), ib.begin(), ib.end());
      w.align4();
    }
  }
  for (std::size_t i = 0; i < m.materials.size(); ++i) {
    const auto& mt = m.materials[i];
    const std::string M = "m" + std::to_string(i);
    mats.push_back({mt.name, M});
    const auto nt = std::uint8_t(mt.textures.size());
    w.mark(M);
    w.raw("FMAT", 4);
    w.name(mt.name), w.u32(1), w.u16(std::uint16_t(i)), w.u16(1), w.u8(nt), w.u8(nt);
    w.u16(1), w.u16(0), w.u16(16), w.u16(0),
        w.u16(0);  // parameters, volatile, source size, raw, user data
    w.ref(M + "ridict"), w.ref(""), w.ref(""), w.ref(nt ? M + "tex" : ""),
        w.ref(nt ? M + "smp" : ""), w.ref(""), w.ref(M + "param"), w.ref(M + "pdict"),
        w.ref(M + "source"), w.ref("");
    write_dict(w, M + "pdict", {{"gsys_color0", M + "param"}});
    w.mark(M + "param");
    w.u8(15), w.u8(16), w.u16(0), w.u32(0), w.u32(0), w.u16(0xFFFF), w.u16(0xFFFF),
        w.name("gsys_color0");
    w.mark(M + "source");
    for (float v : {0.25f, 0.5f, 0.75f, 1.0f}) w.f32(v);
    write_dict(w, M + "ridict", {{"gsys_render_state_mode", M + "ri"}});
    w.mark(M + "ri");
    w.u16(1), w.u8(2), w.u8(0), w.name("gsys_render_state_mode"), w.name(mt.render_mode);
    if (nt) {
      w.mark(M + "tex");
      for (const auto& t : mt.textures) w.name(t.texture), w.ref("");
      w.mark(M + "smp");
      for (std::size_t k = 0; k < mt.textures.size(); ++k) {
        // Wrap repeat in u and v, bilinear magnification and minification, linear mips.
        w.u32((1u << 9) | (1u << 12) | (2u << 17)), w.u32(0), w.u32(0), w.u32(0);
        w.name(mt.textures[k].sampler), w.u8(std::uint8_t(k)), w.u8(0), w.u8(0), w.u8(0);
      }
    }
  }
  write_dict(w, "sdict", shapes);
  if (!mats.empty()) write_dict(w, "mdict", mats);
  w.finish();
  w.patch_u32(0x0C, std::uint32_t(w.b.size()));
  return w.b;
}

// The tests' model: three bones (Root -> Spine -> Head, Spine translated +2 in y and
// turned 90 degrees about z), three shapes sharing one material that names an albedo:
//  - "Body": smooth skinning (2 influences: u8 indices, unorm8 weights), f32 positions,
//    snorm 10_10_10_2 normals, two LODs, snorm8 tangents (_t0, w the handedness), unorm16 UVs, u16
//    indices;
//  - "Hat": rigid skinning to the Head's rigid matrix (one u8 index), f16 UVs, u32 indices;
//  - "Prop": skin count 0, follows its bone (Spine); f32 UVs.
inline t_model sample_model() {
  t_model m;
  m.name = "Sample";
  m.bones = {{"Root", -1, 0, -1}, {"Spine", 0, 1, -1}, {"Head", 1, -1, 0}};
  m.bones[1].t = {0, 2, 0};
  m.bones[1].r = {0, 0, 1.5707963f, 1};
  m.bones[2].t = {0, 1, 0};
  m.mtx_to_bone = {0, 1, 2};
  m.num_smooth = 2;
  m.num_rigid = 1;
  m.materials = {{"Mat_Body", {{"_a0", "Body_Alb"}}, "opaque"}};
  t_shape body;
  body.name = "Body";
  body.skin = 2;
  body.attrs = {
      {"_p0", afmt::f32x3, 0, {{0, 0, 0, 1}, {1, 0, 0, 1}, {0, 1, 0, 1}, {1, 1, 0.5f, 1}}},
      {"_n0", afmt::snorm10_10_10_2, 0, {{0, 0, 1, 0}, {0, 0, 1, 0}, {0, 1, 0, 0}, {1, 0, 0, 0}}},
      {"_t0", afmt::snorm8x4, 0, {{1, 0, 0, 1}, {1, 0, 0, 1}, {1, 0, 0, 1}, {0, 1, 0, -1}}},
      {"_u0", afmt::unorm16x2, 1, {{0, 0, 0, 0}, {1, 0, 0, 0}, {0, 1, 0, 0}, {0.5f, 0.25f, 0, 0}}},
      {"_i0", afmt::u8x4, 1, {{0, 1, 0, 0}, {1, 0, 0, 0}, {0, 1, 0, 0}, {1, 1, 0, 0}}},
      {"_w0",
       afmt::unorm8x4,
       1,
       {{1, 0, 0, 0}, {0.6f, 0.4f, 0, 0}, {0.2f, 0.8f, 0, 0}, {1, 0, 0, 0}}},
  };
  body.indices = {0, 1, 2, 2, 1, 3};
  body.lods = {{0, 1, 3}};  // LOD 1: one triangle
  t_shape hat;
  hat.name = "Hat";
  hat.skin = 1;
  hat.attrs = {
      {"_p0", afmt::f32x3, 0, {{0, 0, 0, 1}, {0.5f, 0, 0, 1}, {0, 0.5f, 0, 1}}},
      {"_n0", afmt::snorm10_10_10_2, 0, {{0, 0, 1, 0}, {0, 0, 1, 0}, {0, 0, 1, 0}}},
      {"_u0", afmt::f16x2, 0, {{0, 0, 0, 0}, {0.5f, 0, 0, 0}, {0, 0.75f, 0, 0}}},
      {"_i0", afmt::u8x1, 0, {{2, 0, 0, 0}, {2, 0, 0, 0}, {2, 0, 0, 0}}},
  };
  hat.indices = {0, 1, 2};
  hat.index32 = true;
  t_shape prop;
  prop.name = "Prop";
  prop.bone = 1;
  prop.attrs = {{"_p0", afmt::f32x3, 0, {{0, 0, 0, 1}, {0, 0, 1, 1}, {1, 0, 0, 1}}},
                {"_u0", afmt::f32x2, 0, {{0, 0, 0, 0}, {0, 1, 0, 0}, {1, 0, 0, 0}}}};
  prop.indices = {0, 1, 2};
  m.shapes = {body, hat, prop};
  return m;
}

}  // namespace bfres_test
