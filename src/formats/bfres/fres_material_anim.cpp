// Wii U FRES raw layer, part 3: shader parameter (FSHU: shader params, colours, texture
// SRTs) and visibility (FVIS: bones, materials) animations. Read-only: their bytes stay
// in the file image, so serialise() reproduces them. Layouts: README.md.
#include "formats/bfres/fres_detail.hpp"

namespace rigrip::bfres::detail {

using core::byte_reader;
using core::fail;

namespace {

std::vector<curve> read_curves(const byte_reader& file, std::uint32_t at, std::uint32_t count, bool v34, std::uint32_t owner,
                               const char* what) {
  std::vector<curve> out;
  if (!count) return out;
  if (!at) fail(code::bad_offset, std::string(what) + " declared but absent", owner);
  const std::uint32_t stride = v34 ? 0x24 : 0x20;
  file.checked_count_at(at, count, stride, what);
  spend(count, at);
  for (std::uint32_t k = 0; k < count; ++k) out.push_back(parse_curve_at(file, at + stride * k, v34));
  return out;
}

}  // namespace

shader_param_anim parse_shader_param_anim(const byte_reader& file, std::uint32_t at, bool v34, int dict_index) {
  byte_reader r = file.peek(at);
  if (r.fixed_string(4) != "FSHU") fail(code::bad_magic, "expected 'FSHU'", at);
  shader_param_anim a;
  a.at = at;
  a.dict = dict_index;
  a.name = read_name(file, read_offset(r));
  a.path = read_name(file, read_offset(r));
  a.flags = r.u32();
  std::uint16_t num_mat = 0;
  if (v34) {  // s32 frames, u16 materials, u16 user data, s32 params, s32 curves, u32 baked
    a.frame_count = r.i32();
    num_mat = r.u16();
    (void)r.u16();
    a.num_param_anims = r.i32();
    a.num_curves = r.i32();
    a.baked_size = r.u32();
  } else {  // nw4f 3.0: s16 frames, u16 materials, s32 params, s32 curves, u32 baked, u16 user data, pad
    a.frame_count = r.i16();
    num_mat = r.u16();
    a.num_param_anims = r.i32();
    a.num_curves = r.i32();
    a.baked_size = r.u32();
    r.skip(4);
  }
  if (a.frame_count < 0) fail(code::bad_value, "negative frame count", at + 0x10);
  (void)read_offset(r);  // bind model (run time)
  const std::uint32_t bind_at = read_offset(r);
  const std::uint32_t mat_at = read_offset(r);
  a.user = parse_user_data(file, read_offset(r));
  spend(num_mat + 1u, at);
  if (bind_at && num_mat) {
    byte_reader b = file.peek(bind_at);
    b.checked_count(num_mat, 2, "shader parameter animation bind indices");
    for (std::uint32_t i = 0; i < num_mat; ++i) a.bind_indices.push_back(b.u16());
  }
  if (num_mat && !mat_at) fail(code::bad_offset, "material animations declared but absent", at + 0x2C);
  if (num_mat) file.checked_count_at(mat_at, num_mat, 0x20, "shader parameter material animations");
  for (std::uint32_t i = 0; i < num_mat; ++i) {
    const std::uint32_t ma = mat_at + 0x20 * i;
    byte_reader m = file.peek(ma);
    shader_param_anim::material_anim mat;
    mat.at = ma;
    const std::uint16_t num_param = m.u16(), num_curve = m.u16(), num_const = m.u16();
    m.skip(2);
    mat.begin_curve = m.i32();
    mat.begin_param = m.i32();
    mat.material = read_name(file, read_offset(m));
    const std::uint32_t param_at = read_offset(m);
    const std::uint32_t curve_at = read_offset(m);
    const std::uint32_t const_at = read_offset(m);
    spend(1u + num_param + num_curve + num_const, ma);
    if (num_param) {
      if (!param_at) fail(code::bad_offset, "parameter animation infos declared but absent", ma + 0x14);
      file.checked_count_at(param_at, num_param, 0x10, "parameter animation infos");
      for (std::uint32_t k = 0; k < num_param; ++k) {
        const std::uint32_t pa = param_at + 0x10 * k;
        byte_reader p = file.peek(pa);
        shader_param_anim::param pr;
        pr.begin_curve = p.u16();
        pr.num_float_curves = p.u16();
        pr.num_int_curves = p.u16();
        pr.begin_constant = p.u16();
        pr.num_constants = p.u16();
        pr.sub_bind = p.u16();
        pr.name = read_name(file, read_offset(p));
        if (std::uint32_t{pr.begin_curve} + pr.num_float_curves + pr.num_int_curves > num_curve)
          fail(code::bad_value, "parameter '" + pr.name + "' uses curves beyond the material's " + std::to_string(num_curve), pa);
        if (std::uint32_t{pr.begin_constant} + pr.num_constants > num_const && pr.num_constants)
          fail(code::bad_value, "parameter '" + pr.name + "' uses constants beyond the material's " + std::to_string(num_const),
               pa + 6);
        mat.params.push_back(std::move(pr));
      }
    }
    mat.curves = read_curves(file, curve_at, num_curve, v34, ma + 0x18, "shader parameter curves");
    if (num_const) {
      if (!const_at) fail(code::bad_offset, "constants declared but absent", ma + 0x1C);
      byte_reader c = file.peek(const_at);
      c.checked_count(num_const, 8, "animation constants");
      for (std::uint32_t k = 0; k < num_const; ++k) {
        shader_param_anim::constant cs;
        cs.target = c.u32();
        cs.bits = c.u32();
        mat.constants.push_back(cs);
      }
    }
    a.materials.push_back(std::move(mat));
  }
  return a;
}

visibility_anim parse_visibility_anim(const byte_reader& file, std::uint32_t at, bool v34, int dict_index) {
  byte_reader r = file.peek(at);
  if (r.fixed_string(4) != "FVIS") fail(code::bad_magic, "expected 'FVIS'", at);
  visibility_anim a;
  a.at = at;
  a.dict = dict_index;
  a.name = read_name(file, read_offset(r));
  a.path = read_name(file, read_offset(r));
  a.flags = r.u16();
  std::uint16_t num_anim = 0, num_curve = 0;
  if (v34) {  // u16 user data, s32 frames, u16 animations, u16 curves, u32 baked
    (void)r.u16();
    a.frame_count = r.i32();
    num_anim = r.u16();
    num_curve = r.u16();
    a.baked_size = r.u32();
  } else {  // nw4f 3.0: s16 frames, u16 animations, u16 curves, u32 baked, u16 user data, pad
    a.frame_count = r.i16();
    num_anim = r.u16();
    num_curve = r.u16();
    a.baked_size = r.u32();
    r.skip(4);
  }
  if (a.frame_count < 0) fail(code::bad_value, "negative frame count", at + 0x10);
  (void)read_offset(r);  // bind model (run time)
  const std::uint32_t bind_at = read_offset(r);
  const std::uint32_t names_at = read_offset(r);
  const std::uint32_t curve_at = read_offset(r);
  const std::uint32_t base_at = read_offset(r);
  a.user = parse_user_data(file, read_offset(r));
  spend(1u + num_anim + num_curve, at);
  if (num_anim && !names_at) fail(code::bad_offset, "visibility animations declared but no name array", at + 0x28);
  if (num_anim) {
    byte_reader n = file.peek(names_at);
    n.checked_count(num_anim, 4, "visibility animation names");
    for (std::uint32_t i = 0; i < num_anim; ++i) a.names.push_back(read_name(file, read_offset(n)));
  }
  if (bind_at && num_anim) {
    byte_reader b = file.peek(bind_at);
    b.checked_count(num_anim, 2, "visibility bind indices");
    for (std::uint32_t i = 0; i < num_anim; ++i) a.bind_indices.push_back(b.u16());
  }
  a.curves = read_curves(file, curve_at, num_curve, v34, at + 0x2C, "visibility curves");
  for (const auto& c : a.curves)
    if (c.target >= num_anim)
      fail(code::bad_value, "visibility curve targets animation " + std::to_string(c.target) + " of " + std::to_string(num_anim),
           c.at + 4);
  if (num_anim) {
    a.base.assign(num_anim, true);
    if (base_at) {  // whole 32-bit words (the runtime copies them so)
      byte_reader b = file.peek(base_at);
      const std::uint32_t words = (num_anim + 31u) / 32u;
      b.checked_count(words, 4, "visibility base values");
      for (std::uint32_t w = 0; w < words; ++w) {
        const std::uint32_t bits = b.u32();
        for (std::uint32_t k = 0; k < 32 && w * 32 + k < num_anim; ++k) a.base[w * 32 + k] = (bits >> k) & 1;
      }
    }
  }
  return a;
}

}  // namespace rigrip::bfres::detail
