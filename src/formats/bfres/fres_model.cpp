// Wii U FRES raw layer, part 2: FMDL vertex buffers, shapes and materials, and FTEX
// headers (layouts in README.md). Buffer and image bytes are not copied: the
// structures point into the file image, which serialise() keeps whole.
#include <bit>
#include <cmath>

#include "formats/bfres/fres_detail.hpp"

namespace rigrip::bfres::detail {
namespace {

using core::byte_reader;
using core::fail;

constexpr std::uint32_t kMaxItems = 65535;

gpu_buffer parse_buffer(const byte_reader& file, std::uint32_t at) {
  byte_reader r = file.peek(at);
  gpu_buffer b;
  b.at = at;
  (void)r.u32();  // runtime data pointer
  b.size = r.u32();
  (void)r.u32();  // handle
  b.stride = r.u16();
  b.buffering = r.u16();
  (void)r.u32();  // context pointer
  b.data_at = read_offset(r);
  if (b.size && !b.data_at) fail(code::bad_offset, "GPU buffer of " + std::to_string(b.size) + " bytes without data", at + 20);
  // The bytes themselves must lie in the file (every buffering).
  if (b.size) file.checked_count_at(b.data_at, std::max<std::uint32_t>(b.buffering, 1), b.size, "GPU buffer data");
  return b;
}

}  // namespace

std::vector<vertex_buffer> parse_vertex_buffers(const byte_reader& file, std::uint32_t at, std::uint32_t count) {
  std::vector<vertex_buffer> out;
  if (!count) return out;
  if (!at) fail(code::bad_offset, "vertex buffers declared but no array", at);
  file.checked_count_at(at, count, 0x20, "vertex buffers (FVTX)");
  for (std::uint32_t i = 0; i < count; ++i) {
    const std::uint32_t va = at + 0x20 * i;
    byte_reader r = file.peek(va);
    if (r.fixed_string(4) != "FVTX") fail(code::bad_magic, "expected 'FVTX'", va);
    vertex_buffer vb;
    vb.at = va;
    const std::uint8_t num_attribs = r.u8(), num_buffers = r.u8();
    vb.index = r.u16();
    vb.vertex_count = r.u32();
    vb.skin_count = r.u8();
    r.skip(3);
    const std::uint32_t attrib_at = read_offset(r);
    (void)read_offset(r);  // attribute dictionary (same entries by name)
    const std::uint32_t buffer_at = read_offset(r);
    spend(1u + num_attribs + num_buffers, va);
    if (num_attribs && !attrib_at) fail(code::bad_offset, "vertex attributes declared but no array", va + 0x10);
    if (num_buffers && !buffer_at) fail(code::bad_offset, "vertex buffers declared but no buffer array", va + 0x18);
    if (num_attribs) file.checked_count_at(attrib_at, num_attribs, 12, "vertex attributes");
    if (num_buffers) file.checked_count_at(buffer_at, num_buffers, 0x18, "vertex buffer descriptors");
    for (std::uint32_t k = 0; k < num_attribs; ++k) {
      byte_reader a = file.peek(attrib_at + 12 * k);
      vertex_attrib at_;
      at_.at = attrib_at + 12 * k;
      at_.name = read_name(file, read_offset(a));
      at_.buffer = a.u8();
      a.skip(1);
      at_.offset = a.u16();
      at_.format = a.u32();
      vb.attribs.push_back(std::move(at_));
    }
    for (std::uint32_t k = 0; k < num_buffers; ++k) vb.buffers.push_back(parse_buffer(file, buffer_at + 0x18 * k));
    out.push_back(std::move(vb));
  }
  return out;
}

shape parse_shape(const byte_reader& file, std::uint32_t at, std::uint32_t version) {
  byte_reader r = file.peek(at);
  if (r.fixed_string(4) != "FSHP") fail(code::bad_magic, "expected 'FSHP'", at);
  shape s;
  s.at = at;
  s.name = read_name(file, read_offset(r));
  s.flags = r.u32();
  s.index = r.u16();
  s.material = r.u16();
  s.bone = r.u16();
  s.vertex_buffer = r.u16();
  const std::uint16_t num_skin_bones = r.u16();
  s.skin_count = r.u8();
  const std::uint8_t num_meshes = r.u8();
  const std::uint8_t num_key_shapes = r.u8();
  (void)r.u8();   // target attribute count
  (void)r.u16();  // bounding nodes
  spend(1u + num_meshes + num_skin_bones + num_key_shapes, at);
  if (version >= 0x04050000) {
    const std::uint32_t radius_at = read_offset(r);
    if (radius_at && num_meshes) {
      byte_reader rr = file.peek(radius_at);
      rr.checked_count(num_meshes, 4, "shape radii");
      for (std::uint32_t i = 0; i < num_meshes; ++i) s.radius.push_back(rr.f32());
    }
  } else {
    s.radius.push_back(r.f32());
  }
  (void)read_offset(r);  // the vertex buffer again (by index above)
  const std::uint32_t mesh_at = read_offset(r);
  const std::uint32_t skin_at = read_offset(r);
  const std::uint32_t key_dict_at = read_offset(r);
  if (num_meshes && !mesh_at) fail(code::bad_offset, "shape '" + s.name + "' declares meshes but has no mesh array", at + 0x24);
  if (num_meshes) file.checked_count_at(mesh_at, num_meshes, 0x1C, "LOD meshes");
  for (std::uint32_t i = 0; i < num_meshes; ++i) {
    const std::uint32_t ma = mesh_at + 0x1C * i;
    byte_reader m = file.peek(ma);
    lod_mesh lm;
    lm.at = ma;
    lm.primitive = m.u32();
    lm.index_format = m.u32();
    lm.index_count = m.u32();
    const std::uint16_t num_sub = m.u16();
    m.skip(2);
    const std::uint32_t sub_at = read_offset(m);
    const std::uint32_t ib_at = read_offset(m);
    lm.first_vertex = m.u32();
    if (num_sub) {
      if (!sub_at) fail(code::bad_offset, "sub-meshes declared but absent", ma + 0x10);
      lm.submeshes = read_submeshes(file, sub_at, num_sub);
    }
    if (!ib_at) fail(code::bad_offset, "LOD mesh without an index buffer", ma + 0x14);
    lm.index_buffer = parse_buffer(file, ib_at);
    s.meshes.push_back(std::move(lm));
  }
  if (skin_at && num_skin_bones) {
    byte_reader sk = file.peek(skin_at);
    sk.checked_count(num_skin_bones, 2, "skin bone indices");
    for (std::uint32_t i = 0; i < num_skin_bones; ++i) s.skin_bones.push_back(sk.u16());
  }
  if (key_dict_at) {
    dict d = parse_dict(file, key_dict_at);
    for (std::size_t i = 1; i < d.nodes.size(); ++i) s.key_shapes.push_back(d.nodes[i].name);
  }
  return s;
}

// A shader parameter's value from its bytes (either platform: the reader's byte order).
std::vector<submesh> read_submeshes(const byte_reader& file, std::uint32_t at, std::uint32_t count) {
  byte_reader sr = file.peek(at);
  sr.checked_count(count, 8, "sub-meshes");
  spend(count, at);
  std::vector<submesh> out(count);
  for (auto& sm : out) {
    sm.offset = sr.u32();
    sm.count = sr.u32();
  }
  return out;
}

nlohmann::json param_value(const byte_reader& src, std::uint8_t type, std::uint8_t size) {
  using nlohmann::json;
  auto f = [&](std::size_t i) {
    const float v = src.f32_at(4 * i);
    return std::isfinite(v) ? json(v) : json(nullptr);
  };
  const std::size_t n = std::min<std::size_t>(size / 4u, src.size() / 4u);
  json arr = json::array();
  if (type <= 3) {
    for (std::size_t i = 0; i < n; ++i) arr.push_back(src.u32_at(4 * i) != 0);
  } else if (type <= 7) {
    for (std::size_t i = 0; i < n; ++i) arr.push_back(static_cast<std::int32_t>(src.u32_at(4 * i)));
  } else if (type <= 11) {
    for (std::size_t i = 0; i < n; ++i) arr.push_back(src.u32_at(4 * i));
  } else if (type == 30 || type == 31) {  // TexSrt(Ex): mode, scale xy, rotation, translation xy
    if (n < 6) return arr;
    return json{{"mode", src.u32_at(0)}, {"scale", {f(1), f(2)}}, {"rotate", f(3)}, {"translate", {f(4), f(5)}}};
  } else {
    for (std::size_t i = 0; i < n; ++i) arr.push_back(f(i));
  }
  return arr;
}

namespace {

std::map<std::string, std::string> string_dict(const byte_reader& file, std::uint32_t at) {
  std::map<std::string, std::string> out;
  if (!at) return out;
  dict d = parse_dict(file, at);
  for (std::size_t i = 1; i < d.nodes.size(); ++i)
    out[d.nodes[i].name] = d.nodes[i].data_at ? read_name(file, d.nodes[i].data_at) : std::string();
  return out;
}

}  // namespace

material parse_material(const byte_reader& file, std::uint32_t at, std::uint32_t version) {
  byte_reader r = file.peek(at);
  if (r.fixed_string(4) != "FMAT") fail(code::bad_magic, "expected 'FMAT'", at);
  material m;
  m.at = at;
  m.name = read_name(file, read_offset(r));
  m.flags = r.u32();
  m.index = r.u16();
  (void)r.u16();  // render info count (dictionary below)
  const std::uint8_t num_samplers = r.u8();
  const std::uint8_t num_textures = r.u8();
  (void)r.u16();  // shader parameter count (dictionary below)
  (void)r.u16();  // volatile parameters
  const std::uint16_t param_source_size = r.u16();
  (void)r.u16();  // raw parameter size
  (void)r.u16();  // user data count
  const std::uint32_t render_info_at = read_offset(r);
  const std::uint32_t state_at = read_offset(r);
  const std::uint32_t assign_at = read_offset(r);
  const std::uint32_t tex_at = read_offset(r);
  const std::uint32_t sampler_at = read_offset(r);
  (void)read_offset(r);  // sampler dictionary
  (void)read_offset(r);  // shader parameter array
  const std::uint32_t param_dict_at = read_offset(r);
  const std::uint32_t source_at = read_offset(r);
  const std::uint32_t user_at = read_offset(r);
  spend(1u + num_samplers + num_textures, at);

  if (render_info_at) {
    dict d = parse_dict(file, render_info_at);
    for (std::size_t i = 1; i < d.nodes.size(); ++i) {
      if (!d.nodes[i].data_at) continue;
      byte_reader ri = file.peek(d.nodes[i].data_at);
      const std::uint16_t count = ri.u16();
      const std::uint8_t type = ri.u8();
      ri.skip(1);
      (void)read_offset(ri);  // name (the dictionary has it)
      ri.checked_count(count, 4, "render info values");
      spend(count + 1u, d.nodes[i].data_at);
      nlohmann::json vals = nlohmann::json::array();
      for (std::uint32_t k = 0; k < count; ++k) {
        if (type == 0) vals.push_back(ri.i32());
        else if (type == 1) vals.push_back(ri.f32());
        else if (type == 2) vals.push_back(read_name(file, read_offset(ri)));
        else fail(code::bad_value, "render info type " + std::to_string(type) + " is not 0-2", d.nodes[i].data_at + 2);
      }
      m.render_info.emplace_back(d.nodes[i].name, std::move(vals));
    }
  }
  if (state_at) {
    byte_reader s = file.peek(state_at);
    auto& st = m.state;
    st.present = true;
    st.flags = s.u32();
    st.polygon = s.u32();
    st.depth = s.u32();
    st.alpha = s.u32();
    st.alpha_ref = s.f32();
    st.color = s.u32();
    st.blend_target = s.u32();
    st.blend = s.u32();
    for (auto& c : st.blend_color) c = s.f32();
  }
  if (assign_at) {
    byte_reader a = file.peek(assign_at);
    m.shader_archive = read_name(file, read_offset(a));
    m.shading_model = read_name(file, read_offset(a));
    (void)a.u32();  // revision
    a.skip(4);      // attribute / sampler / option counts (dictionaries below)
    m.attrib_assign = string_dict(file, read_offset(a));
    m.sampler_assign = string_dict(file, read_offset(a));
    m.options = string_dict(file, read_offset(a));
  }
  if (num_textures) {
    if (!tex_at) fail(code::bad_offset, "texture references declared but absent", at + 0x28);
    file.checked_count_at(tex_at, num_textures, 8, "texture references");
    for (std::uint32_t i = 0; i < num_textures; ++i) {
      byte_reader t = file.peek(tex_at + 8 * i);
      texture_ref tr;
      tr.name = read_name(file, read_offset(t));
      tr.texture_at = read_offset(t);
      m.textures.push_back(std::move(tr));
    }
  }
  if (num_samplers) {
    if (!sampler_at) fail(code::bad_offset, "samplers declared but absent", at + 0x2C);
    file.checked_count_at(sampler_at, num_samplers, 0x18, "samplers");
    for (std::uint32_t i = 0; i < num_samplers; ++i) {
      byte_reader s = file.peek(sampler_at + 0x18 * i);
      sampler sm;
      for (auto& w : sm.words) w = s.u32();
      (void)s.u32();  // handle
      sm.name = read_name(file, read_offset(s));
      sm.index = s.u8();
      m.samplers.push_back(std::move(sm));
    }
  }
  if (param_dict_at) {
    dict d = parse_dict(file, param_dict_at);
    for (std::size_t i = 1; i < d.nodes.size(); ++i) {
      if (!d.nodes[i].data_at) continue;
      byte_reader p = file.peek(d.nodes[i].data_at);
      shader_param sp;
      sp.name = d.nodes[i].name;
      sp.type = p.u8();
      sp.size = p.u8();
      sp.offset = p.u16();
      if (sp.type > 31) fail(code::bad_value, "shader parameter type " + std::to_string(sp.type) + " is not 0-31", d.nodes[i].data_at);
      if (source_at && static_cast<std::uint32_t>(sp.offset) + sp.size <= param_source_size)
        sp.value = param_value(file.sub(source_at + sp.offset, sp.size), sp.type, sp.size);
      m.params.push_back(std::move(sp));
    }
  }
  (void)version;
  for (const auto& u : parse_user_data(file, user_at))
    m.user_data.push_back({{"name", u.name}, {"type", u.type}, {"values", u.values}});
  return m;
}

ftex parse_ftex(const byte_reader& file, std::uint32_t at) {
  byte_reader r = file.peek(at);
  if (r.fixed_string(4) != "FTEX") fail(code::bad_magic, "expected 'FTEX'", at);
  ftex t;
  t.at = at;
  t.dim = r.u32();
  t.width = r.u32();
  t.height = r.u32();
  t.depth = r.u32();
  t.mip_count = r.u32();
  t.format = r.u32();
  t.aa = r.u32();
  t.use = r.u32();
  t.image_size = r.u32();
  (void)r.u32();  // image pointer (runtime)
  t.mip_size = r.u32();
  (void)r.u32();  // mip pointer (runtime)
  t.tile_mode = r.u32();
  t.swizzle = r.u32();
  t.alignment = r.u32();
  t.pitch = r.u32();
  for (auto& m : t.mip_offsets) m = r.u32();
  r.skip(16);  // view: first mip, mip count, first slice, slice count
  for (auto& c : t.comp_sel) c = r.u8();
  r.skip(20 + 4);  // texture registers, handle
  t.array_length = r.u8();
  r.skip(3);
  t.name = read_name(file, read_offset(r));
  t.path = read_name(file, read_offset(r));
  t.data_at = read_offset(r);
  // BotW .Tex1 files point at mip data that lives in .Tex2 (up to the file's end or past
  // it): kept as a number, checked where mips would be used.
  const std::uint64_t mip_field = r.tell();
  const std::int32_t rel = r.i32();
  const std::int64_t target = rel ? static_cast<std::int64_t>(mip_field) + rel : 0;
  t.mip_data_at = target > 0 && target <= static_cast<std::int64_t>(file.size()) ? static_cast<std::uint32_t>(target) : 0;
  t.mip_data_outside = rel != 0 && t.mip_data_at == 0;
  return t;
}

texture_pattern_anim parse_texture_pattern(const byte_reader& file, std::uint32_t at) {
  byte_reader r = file.peek(at);
  if (r.fixed_string(4) != "FTXP") fail(code::bad_magic, "expected 'FTXP'", at);
  texture_pattern_anim a;
  a.at = at;
  a.name = read_name(file, read_offset(r));
  a.path = read_name(file, read_offset(r));
  a.flags = r.u16();
  (void)r.u16();  // user data count
  a.frame_count = r.i32();
  (void)r.u16();  // texture count (dictionary below)
  const std::uint16_t num_mat = r.u16();
  (void)r.i32();  // pattern animation count
  (void)r.i32();  // curve count
  a.baked_size = r.u32();
  (void)read_offset(r);  // bind model (runtime)
  (void)read_offset(r);  // bind indices
  const std::uint32_t mat_at = read_offset(r);
  const std::uint32_t tex_dict_at = read_offset(r);
  if (a.frame_count < 0) fail(code::bad_value, "negative frame count", at + 0x10);
  if (tex_dict_at) {
    const dict d = parse_dict(file, tex_dict_at);
    for (std::size_t i = 1; i < d.nodes.size(); ++i) a.textures.push_back(d.nodes[i].name);
  }
  if (num_mat && !mat_at) fail(code::bad_offset, "material animations declared but absent", at + 0x2C);
  if (num_mat) file.checked_count_at(mat_at, num_mat, 0x1C, "texture pattern material animations");
  spend(num_mat + 1u, at);
  for (std::uint32_t i = 0; i < num_mat; ++i) {
    const std::uint32_t ma = mat_at + 0x1C * i;
    byte_reader m = file.peek(ma);
    texture_pattern_anim::material_anim mat;
    mat.at = ma;
    const std::uint16_t num_pat = m.u16(), num_curve = m.u16();
    (void)m.i32();  // first curve index (within the animation)
    (void)m.i32();  // first pattern index
    mat.material = read_name(file, read_offset(m));
    const std::uint32_t pat_at = read_offset(m);
    const std::uint32_t curve_at = read_offset(m);
    const std::uint32_t base_at = read_offset(m);
    spend(1u + num_pat + num_curve, ma);
    if (num_pat) {
      if (!pat_at) fail(code::bad_offset, "pattern infos declared but absent", ma + 0x10);
      file.checked_count_at(pat_at, num_pat, 8, "texture pattern infos");
      for (std::uint32_t k = 0; k < num_pat; ++k) {
        byte_reader p = file.peek(pat_at + 8 * k);
        texture_pattern_anim::pattern pt;
        pt.curve = p.i8();
        (void)p.i8();  // sub-bind index
        p.skip(2);
        pt.sampler = read_name(file, read_offset(p));
        if (pt.curve >= static_cast<int>(num_curve)) fail(code::bad_value, "pattern curve index beyond the curves", pat_at + 8 * k);
        mat.patterns.push_back(std::move(pt));
      }
      if (base_at) {
        byte_reader b = file.peek(base_at);
        b.checked_count(num_pat, 2, "texture pattern base values");
        for (auto& pt : mat.patterns) pt.base = b.u16();
      }
    }
    if (num_curve) {
      if (!curve_at) fail(code::bad_offset, "curves declared but absent", ma + 0x14);
      file.checked_count_at(curve_at, num_curve, 0x24, "texture pattern curves");
      for (std::uint32_t k = 0; k < num_curve; ++k) mat.curves.push_back(parse_curve_at(file, curve_at + 0x24 * k, true));
    }
    a.materials.push_back(std::move(mat));
  }
  return a;
}

}  // namespace rigrip::bfres::detail
