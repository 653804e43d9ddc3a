// A tiny, independent Wii U FRES writer for hand-built test vectors. It follows the
// layout tables of ../shared/specs/bfres.md directly (not the reader's code), so the
// reader is checked against the notes rather than against itself.
#pragma once

#include <cstdint>
#include <cstring>
#include <map>
#include <string>
#include <vector>

namespace bfres_test {

class be_buffer {
 public:
  std::vector<std::uint8_t> b;
  std::size_t pos() const { return b.size(); }
  void u8(std::uint8_t v) { b.push_back(v); }
  void u16(std::uint16_t v) { u8(std::uint8_t(v >> 8)); u8(std::uint8_t(v)); }
  void u32(std::uint32_t v) { u16(std::uint16_t(v >> 16)); u16(std::uint16_t(v)); }
  void f32(float v) { std::uint32_t x; std::memcpy(&x, &v, 4); u32(x); }
  void raw(const char* s, std::size_t n) { b.insert(b.end(), s, s + n); }
  void align4() { while (b.size() % 4) u8(0); }
  // Self-relative offset to a label resolved later (0 when the label is "").
  void ref(const std::string& label) {
    if (!label.empty()) fixups.push_back({pos(), label});
    u32(0);
  }
  void name(const std::string& s) { ref("str:" + s); strings[s] = 0; }
  void mark(const std::string& label) { labels[label] = pos(); }
  void finish() {
    align4();
    for (auto& [s, at] : strings) {  // u32 length, chars, NUL, pad to 4
      u32(std::uint32_t(s.size()));
      labels["str:" + s] = pos();
      raw(s.data(), s.size());
      u8(0);
      align4();
    }
    for (auto& [at, label] : fixups) {
      std::int64_t v = std::int64_t(labels.at(label)) - std::int64_t(at);
      auto u = std::uint32_t(std::int32_t(v));
      b[at] = std::uint8_t(u >> 24); b[at + 1] = std::uint8_t(u >> 16);
      b[at + 2] = std::uint8_t(u >> 8); b[at + 3] = std::uint8_t(u);
    }
  }
  void patch_u32(std::size_t at, std::uint32_t u) {
    b[at] = std::uint8_t(u >> 24); b[at + 1] = std::uint8_t(u >> 16);
    b[at + 2] = std::uint8_t(u >> 8); b[at + 3] = std::uint8_t(u);
  }
  std::vector<std::pair<std::size_t, std::string>> fixups;
  std::map<std::string, std::size_t> labels;
  std::map<std::string, std::size_t> strings;
};

struct t_curve {
  std::uint16_t flags = 0;  // frame type | key type << 2 | curve type << 4
  std::uint32_t target = 0x10;
  float start = 0, end = 0, scale = 1, offset = 0, delta = 0;
  std::vector<std::int64_t> frames;  // raw, as stored (u8 / s16 / f32 bits)
  std::vector<std::int64_t> keys;    // raw elements
};
struct t_bone_anim {
  std::string name;
  std::uint32_t flags = 0;  // base bits / transform bits; curve bits are computed
  std::vector<float> base;
  std::vector<t_curve> curves;  // ordered S, R, T
  std::uint8_t begin_rotate = 3, begin_translate = 6, begin_base_translate = 7;
};
struct t_anim {
  std::string name;
  std::uint32_t flags = 0x1200;
  std::int32_t frame_count = 0;
  std::vector<t_bone_anim> bones;
};
struct t_bone {
  std::string name;
  std::int16_t parent = -1;
  std::uint32_t flags = 0x1001;  // visible, Euler
  float s[3] = {1, 1, 1}, r[4] = {0, 0, 0, 1}, t[3] = {0, 0, 0};
};

// A dictionary with plain nodes (readers iterate them): (name, data label) per entry.
inline void write_dict(be_buffer& w, const std::string& label,
                       const std::vector<std::pair<std::string, std::string>>& entries) {
  w.mark(label);
  w.u32(std::uint32_t(8 + 16 * (entries.size() + 1)));
  w.u32(std::uint32_t(entries.size()));
  w.u32(0xFFFFFFFF); w.u16(0); w.u16(0); w.ref(""); w.ref("");
  for (const auto& e : entries) {
    w.u32(0); w.u16(0); w.u16(0);
    w.name(e.first);
    w.ref(e.second);
  }
}

// FVIS (bone or material visibility) and FSHU (shader parameter / colour / texture SRT)
// animations, laid out from the nw::g3d tables (3.4+: s32 frame counts; curves 0x24).
struct t_vis_anim {
  std::string name;
  std::uint16_t flags = 0;  // bit 2 loop, bit 8 material visibility
  std::int32_t frame_count = 0;
  std::vector<std::string> names;
  std::vector<bool> base;        // one per name
  std::vector<t_curve> curves;   // target = index into names
  int dict = 7;                  // 7 bone, 8 material
};
struct t_param_info {
  std::string name;
  std::uint16_t begin_curve = 0, float_curves = 0, int_curves = 0, begin_constant = 0, constants = 0, sub_bind = 0xFFFF;
};
struct t_param_mat {
  std::string material;
  std::vector<t_param_info> params;
  std::vector<t_curve> curves;
  std::vector<std::pair<std::uint32_t, std::uint32_t>> constants;  // target, bits
};
struct t_param_anim {
  std::string name;
  int dict = 5;  // 3 shader params, 4 colours, 5 texture SRTs
  std::uint32_t flags = 0;
  std::int32_t frame_count = 0;
  std::vector<t_param_mat> materials;
};
struct t_extras {
  std::vector<t_vis_anim> vis;
  std::vector<t_param_anim> params;
};

inline int bit_of_target(std::uint32_t t) {
  switch (t) {
    case 0x04: return 0; case 0x08: return 1; case 0x0C: return 2;
    case 0x20: return 3; case 0x24: return 4; case 0x28: return 5; case 0x2C: return 6;
    case 0x10: return 7; case 0x14: return 8; default: return 9;
  }
}

// Writes a FRES of `version` with one model "Skeleton" (FSKL only, when bones are
// given) and the FSKAs. Dictionaries get plain nodes (readers iterate them).
inline std::vector<std::uint8_t> build_fres(const std::vector<t_bone>& bones, const std::vector<t_anim>& anims,
                                            std::uint32_t version = 0x04050003,
                                            std::uint32_t skeleton_flags = 0x1200, const t_extras& extras = {}) {
  const bool v34 = version >= 0x03040000;
  be_buffer w;
  w.raw("FRES", 4);
  w.u32(version);
  w.u16(0xFEFF);
  w.u16(0x10);
  w.u32(0);  // file size, patched
  w.u32(4);
  w.name("test");
  w.u32(0);
  w.ref("");  // string pool (not needed by the reader)
  std::map<int, std::vector<std::pair<std::string, std::string>>> extra_dicts;  // dictionary index -> entries
  for (std::size_t i = 0; i < extras.vis.size(); ++i)
    extra_dicts[extras.vis[i].dict].push_back({extras.vis[i].name, "fvis" + std::to_string(i)});
  for (std::size_t i = 0; i < extras.params.size(); ++i)
    extra_dicts[extras.params[i].dict].push_back({extras.params[i].name, "fshu" + std::to_string(i)});
  for (int i = 0; i < 12; ++i)
    w.ref(i == 0 && !bones.empty() ? "dict0" : i == 2 && !anims.empty() ? "dict2"
          : extra_dicts.count(i) ? "dict" + std::to_string(i) : "");
  for (int i = 0; i < 12; ++i)
    w.u16(std::uint16_t(i == 0 ? (bones.empty() ? 0 : 1) : i == 2 ? anims.size()
                        : extra_dicts.count(i) ? extra_dicts[i].size() : 0));
  w.u32(0);
  auto dict = [&](const std::string& label, const std::vector<std::pair<std::string, std::string>>& entries) {
    write_dict(w, label, entries);
  };
  // Curve headers at label P, then each curve's frame and key arrays (an empty frame
  // array still gets its label: baked curves point at their keys).
  auto curves = [&](const std::string& P, const std::vector<t_curve>& cs) {
    if (cs.empty()) return;
    w.mark(P);
    for (std::size_t ci = 0; ci < cs.size(); ++ci) {
      const auto& c = cs[ci];
      const std::string C = P + std::to_string(ci);
      w.u16(c.flags);
      const int type = (c.flags >> 4) & 7;
      const int per = type == 0 ? 4 : type == 1 ? 2 : 1;
      w.u16(std::uint16_t(c.frames.empty() ? c.keys.size() / std::size_t(per) : c.frames.size()));
      w.u32(c.target);
      w.f32(c.start); w.f32(c.end); w.f32(c.scale); w.f32(c.offset);
      if (v34) w.f32(c.delta);
      w.ref(C + "f");
      w.ref(C + "k");
    }
    for (std::size_t ci = 0; ci < cs.size(); ++ci) {
      const auto& c = cs[ci];
      const std::string C = P + std::to_string(ci);
      const int ft = c.flags & 3, kt = (c.flags >> 2) & 3;
      w.mark(C + "f");
      for (auto v : c.frames) ft == 0 ? w.u32(std::uint32_t(v)) : ft == 1 ? w.u16(std::uint16_t(v)) : w.u8(std::uint8_t(v));
      w.align4();
      w.mark(C + "k");
      for (auto v : c.keys) kt == 0 ? w.u32(std::uint32_t(v)) : kt == 1 ? w.u16(std::uint16_t(v)) : w.u8(std::uint8_t(v));
      w.align4();
    }
  };
  if (!bones.empty()) {
    dict("dict0", {{"Skeleton", "fmdl"}});
    w.mark("fmdl");
    w.raw("FMDL", 4);
    w.name("Skeleton");
    w.name("");
    w.ref("fskl");
    for (int i = 0; i < 4; ++i) w.ref("");
    for (int i = 0; i < 4; ++i) w.u16(0);
    w.u32(0);
    if (version >= 0x03030000) w.u32(0);
    w.mark("fskl");
    w.raw("FSKL", 4);
    w.u32(skeleton_flags);
    w.u16(std::uint16_t(bones.size()));
    w.u16(0); w.u16(0); w.u16(0);
    w.ref("");  // bone dict (not needed by the reader)
    w.ref("bones");
    w.ref("");
    if (v34) w.ref("");
    w.u32(0);
    w.mark("bones");
    for (std::size_t i = 0; i < bones.size(); ++i) {
      const auto& b = bones[i];
      w.name(b.name);
      w.u16(std::uint16_t(i)); w.u16(std::uint16_t(b.parent)); w.u16(0xFFFF); w.u16(0xFFFF); w.u16(0xFFFF); w.u16(0);
      w.u32(b.flags);
      for (float v : b.s) w.f32(v);
      for (float v : b.r) w.f32(v);
      for (float v : b.t) w.f32(v);
      w.ref("");
      if (!v34) for (int k = 0; k < 12; ++k) w.f32(k % 4 == k / 4 ? 1.0f : 0.0f);
    }
  }
  if (!anims.empty()) {
    std::vector<std::pair<std::string, std::string>> e;
    for (std::size_t i = 0; i < anims.size(); ++i) e.push_back({anims[i].name, "fska" + std::to_string(i)});
    dict("dict2", e);
  }
  for (std::size_t ai = 0; ai < anims.size(); ++ai) {
    const auto& a = anims[ai];
    const std::string A = "a" + std::to_string(ai);
    int ncurves = 0;
    for (const auto& b : a.bones) ncurves += int(b.curves.size());
    w.mark("fska" + std::to_string(ai));
    w.raw("FSKA", 4);
    w.name(a.name);
    w.name("");
    w.u32(a.flags);
    if (v34) {
      w.u32(std::uint32_t(a.frame_count)); w.u16(std::uint16_t(a.bones.size())); w.u16(0);
      w.u32(std::uint32_t(ncurves)); w.u32(0);
    } else {  // nw4f/G3d 3.0: s16 frames, u16 bone anims, s32 curves, u32 baked, u16 user data, pad
      w.u16(std::uint16_t(a.frame_count)); w.u16(std::uint16_t(a.bones.size()));
      w.u32(std::uint32_t(ncurves)); w.u32(0); w.u16(0); w.u16(0);
    }
    w.ref(A + "ba");
    w.ref("");
    w.ref("");
    w.ref("");
    w.mark(A + "ba");
    int begin = 0;
    for (std::size_t bi = 0; bi < a.bones.size(); ++bi) {
      const auto& b = a.bones[bi];
      std::uint32_t flags = b.flags;
      for (const auto& c : b.curves) flags |= 1u << (6 + bit_of_target(c.target));
      w.u32(flags);
      w.name(b.name);
      w.u8(b.begin_rotate); w.u8(b.begin_translate); w.u8(std::uint8_t(b.curves.size())); w.u8(b.begin_base_translate);
      w.u8(std::uint8_t(begin)); w.u8(0); w.u8(0); w.u8(0);
      begin += int(b.curves.size());
      const std::string B = A + "b" + std::to_string(bi);
      w.ref(b.curves.empty() ? "" : B + "c");
      w.ref(b.base.empty() ? "" : B + "base");
    }
    for (std::size_t bi = 0; bi < a.bones.size(); ++bi) {
      const auto& b = a.bones[bi];
      const std::string B = A + "b" + std::to_string(bi);
      curves(B + "c", b.curves);
      if (!b.base.empty()) {
        w.mark(B + "base");
        for (float v : b.base) w.f32(v);
      }
    }
  }
  for (auto& [di, entries] : extra_dicts) dict("dict" + std::to_string(di), entries);
  for (std::size_t i = 0; i < extras.vis.size(); ++i) {  // FVIS (0x34 bytes from 3.4)
    const auto& a = extras.vis[i];
    const std::string A = "fvis" + std::to_string(i);
    w.mark(A);
    w.raw("FVIS", 4);
    w.name(a.name);
    w.name("");
    w.u16(a.flags);
    w.u16(0);  // user data
    w.u32(std::uint32_t(a.frame_count));
    w.u16(std::uint16_t(a.names.size()));
    w.u16(std::uint16_t(a.curves.size()));
    w.u32(0);  // baked size
    w.ref("");  // bind model
    w.ref(A + "bind");
    w.ref(A + "names");
    w.ref(a.curves.empty() ? "" : A + "c");
    w.ref(A + "base");
    w.ref("");  // user data
    w.mark(A + "bind");
    for (std::size_t k = 0; k < a.names.size(); ++k) w.u16(std::uint16_t(k));
    w.align4();
    w.mark(A + "names");
    for (const auto& n : a.names) w.name(n);
    w.mark(A + "base");
    for (std::size_t k = 0; k < (a.names.size() + 31) / 32; ++k) {
      std::uint32_t bits = 0;
      for (std::size_t b = 0; b < 32 && k * 32 + b < a.base.size(); ++b)
        if (a.base[k * 32 + b]) bits |= 1u << b;
      w.u32(bits);
    }
    curves(A + "c", a.curves);
  }
  for (std::size_t i = 0; i < extras.params.size(); ++i) {  // FSHU (0x34 bytes from 3.4)
    const auto& a = extras.params[i];
    const std::string A = "fshu" + std::to_string(i);
    int nparam = 0, ncurve = 0;
    for (const auto& m : a.materials) nparam += int(m.params.size()), ncurve += int(m.curves.size());
    w.mark(A);
    w.raw("FSHU", 4);
    w.name(a.name);
    w.name("");
    w.u32(a.flags);
    w.u32(std::uint32_t(a.frame_count));
    w.u16(std::uint16_t(a.materials.size()));
    w.u16(0);  // user data
    w.u32(std::uint32_t(nparam));
    w.u32(std::uint32_t(ncurve));
    w.u32(0);  // baked size
    w.ref("");  // bind model
    w.ref(A + "bind");
    w.ref(A + "mats");
    w.ref("");  // user data
    w.mark(A + "bind");
    for (std::size_t k = 0; k < a.materials.size(); ++k) w.u16(0xFFFF);
    w.align4();
    w.mark(A + "mats");
    int begin_curve = 0, begin_param = 0;
    for (std::size_t k = 0; k < a.materials.size(); ++k) {  // 0x20 each
      const auto& m = a.materials[k];
      const std::string M = A + "m" + std::to_string(k);
      w.u16(std::uint16_t(m.params.size()));
      w.u16(std::uint16_t(m.curves.size()));
      w.u16(std::uint16_t(m.constants.size()));
      w.u16(0);
      w.u32(std::uint32_t(begin_curve));
      w.u32(std::uint32_t(begin_param));
      begin_curve += int(m.curves.size());
      begin_param += int(m.params.size());
      w.name(m.material);
      w.ref(m.params.empty() ? "" : M + "p");
      w.ref(m.curves.empty() ? "" : M + "c");
      w.ref(m.constants.empty() ? "" : M + "k");
    }
    for (std::size_t k = 0; k < a.materials.size(); ++k) {
      const auto& m = a.materials[k];
      const std::string M = A + "m" + std::to_string(k);
      if (!m.params.empty()) w.mark(M + "p");
      for (const auto& p : m.params) {  // 0x10 each
        w.u16(p.begin_curve); w.u16(p.float_curves); w.u16(p.int_curves);
        w.u16(p.begin_constant); w.u16(p.constants); w.u16(p.sub_bind);
        w.name(p.name);
      }
      curves(M + "c", m.curves);
      if (!m.constants.empty()) w.mark(M + "k");
      for (const auto& [t, bits] : m.constants) w.u32(t), w.u32(bits);
    }
  }
  w.finish();
  w.patch_u32(0x0C, std::uint32_t(w.b.size()));
  return w.b;
}

// A camera of a scene animation (FCAM): base values near, far, aspect, fov, position xyz,
// rotation / aim target xyz, twist; curves target byte offsets into them.
struct t_camera {
  std::string name;
  std::uint16_t flags = 1u << 10;  // perspective, aim mode
  std::int32_t frame_count = 0;
  float base[11] = {0.1f, 1000, 1, 0.8f, 0, 0, 10, 0, 0, 0, 0};
  std::vector<t_curve> curves;
};

// A Wii U FRES (3.4+) holding one scene animation (FSCN, dictionary 10) with cameras,
// laid out from the notes: FSCN {magic, name, path, u16 user data, cameras, lights, fogs,
// camera / light / fog / user-data dictionaries}, FCAM {magic, u16 flags, pad, s32 frames,
// u8 curves, pad, u16 user data, u32 baked size, name, curves, base values, user data}.
inline std::vector<std::uint8_t> build_scene_fres(const std::string& scene_name, const std::vector<t_camera>& cams,
                                                  std::uint32_t version = 0x04050003) {
  be_buffer w;
  w.raw("FRES", 4);
  w.u32(version);
  w.u16(0xFEFF);
  w.u16(0x10);
  w.u32(0);
  w.u32(4);
  w.name("scene");
  w.u32(0);
  w.ref("");
  for (int i = 0; i < 12; ++i) w.ref(i == 10 ? "dict10" : "");
  for (int i = 0; i < 12; ++i) w.u16(std::uint16_t(i == 10 ? 1 : 0));
  w.u32(0);
  auto dict = [&](const std::string& label, const std::vector<std::pair<std::string, std::string>>& entries) {
    write_dict(w, label, entries);
  };
  dict("dict10", {{scene_name, "fscn"}});
  w.mark("fscn");
  w.raw("FSCN", 4);
  w.name(scene_name);
  w.name("");
  w.u16(0); w.u16(std::uint16_t(cams.size())); w.u16(0); w.u16(0);
  w.ref("camdict"); w.ref(""); w.ref(""); w.ref("");
  std::vector<std::pair<std::string, std::string>> e;
  for (std::size_t i = 0; i < cams.size(); ++i) e.push_back({cams[i].name, "fcam" + std::to_string(i)});
  dict("camdict", e);
  for (std::size_t i = 0; i < cams.size(); ++i) {
    const auto& c = cams[i];
    const std::string C = "cam" + std::to_string(i);
    w.mark("fcam" + std::to_string(i));
    w.raw("FCAM", 4);
    w.u16(c.flags); w.u16(0);
    w.u32(std::uint32_t(c.frame_count));
    w.u8(std::uint8_t(c.curves.size())); w.u8(0); w.u16(0);
    w.u32(0);
    w.name(c.name);
    w.ref(c.curves.empty() ? "" : C + "curves");
    w.ref(C + "base");
    w.ref("");
    w.mark(C + "base");
    for (float v : c.base) w.f32(v);
    if (!c.curves.empty()) w.mark(C + "curves");
    for (std::size_t k = 0; k < c.curves.size(); ++k) {
      const auto& cv = c.curves[k];
      const int per = ((cv.flags >> 4) & 7) == 0 ? 4 : ((cv.flags >> 4) & 7) == 1 ? 2 : 1;
      w.u16(cv.flags);
      w.u16(std::uint16_t(cv.frames.empty() ? cv.keys.size() / std::size_t(per) : cv.frames.size()));
      w.u32(cv.target);
      w.f32(cv.start); w.f32(cv.end); w.f32(cv.scale); w.f32(cv.offset); w.f32(cv.delta);
      w.ref(C + "f" + std::to_string(k));
      w.ref(C + "k" + std::to_string(k));
    }
    for (std::size_t k = 0; k < c.curves.size(); ++k) {
      const auto& cv = c.curves[k];
      const int ft = cv.flags & 3, kt = (cv.flags >> 2) & 3;
      w.mark(C + "f" + std::to_string(k));
      for (auto v : cv.frames) ft == 0 ? w.u32(std::uint32_t(v)) : ft == 1 ? w.u16(std::uint16_t(v)) : w.u8(std::uint8_t(v));
      w.align4();
      w.mark(C + "k" + std::to_string(k));
      for (auto v : cv.keys) kt == 0 ? w.u32(std::uint32_t(v)) : kt == 1 ? w.u16(std::uint16_t(v)) : w.u8(std::uint8_t(v));
      w.align4();
    }
  }
  w.finish();
  w.patch_u32(0x0C, std::uint32_t(w.b.size()));
  return w.b;
}

inline std::int64_t f32_bits(float f) { std::uint32_t x; std::memcpy(&x, &f, 4); return x; }

}  // namespace bfres_test
