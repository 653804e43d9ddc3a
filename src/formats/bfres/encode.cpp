// Encode: scene animations -> FSKA sections appended to a copy of a template FRES.
// Everything of the template stays where it is; an FSKA with the same name is replaced by
// re-pointing its dictionary node, new names get a rebuilt FSKA dictionary (README.md).
#include "formats/bfres/encode.hpp"
#include "rigrip/extras.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <map>
#include <optional>

#include "core/failure.hpp"
#include "core/math.hpp"
#include "scene/pose.hpp"
#include "scene/ssc.hpp"
#include "formats/bfres/decode.hpp"

namespace rigrip::bfres {
namespace {

int name_bit(const std::string& s, std::uint32_t bit) {
  std::uint32_t byte = bit >> 3;
  return byte < s.size() ? (static_cast<std::uint8_t>(s[byte]) >> (bit & 7)) & 1 : 0;
}

// ---- Curve fitting.

using fitted = fitted_curve;

// Frame type for integer frames 0..n: u8, then s10.5, then f32.
void encode_frames(fitted& c, const std::vector<int>& frames) {
  int last = frames.empty() ? 0 : frames.back();
  int type = last <= 255 ? 2 : last <= 1023 ? 1 : 0;
  c.flags = static_cast<std::uint16_t>((c.flags & ~3) | type);
  for (int f : frames)
    c.frames_raw.push_back(type == 2 ? f : type == 1 ? f * 32 : std::bit_cast<std::uint32_t>(static_cast<float>(f)));
}

// Greedy linear key reduction: extend each segment while every sample stays within tol.
std::vector<int> linear_keys(const std::vector<float>& v, float tol) {
  const int n = static_cast<int>(v.size()) - 1;
  std::vector<int> keys{0};
  int i = 0;
  while (i < n) {
    int j = i + 1;
    while (j + 1 <= n && j + 1 - i <= 255) {
      int cand = j + 1;
      bool ok = true;
      for (int k = i + 1; k < cand && ok; ++k) {
        float t = static_cast<float>(k - i) / static_cast<float>(cand - i);
        ok = std::fabs(v[static_cast<std::size_t>(i)] + (v[static_cast<std::size_t>(cand)] - v[static_cast<std::size_t>(i)]) * t -
                       v[static_cast<std::size_t>(k)]) <= tol;
      }
      if (!ok) break;
      j = cand;
    }
    keys.push_back(j);
    i = j;
  }
  return keys;
}

// key_type: 0 f32, 1 s16, 2 s8. Linear keys need |c1| = |next - cur| to fit too, so the
// raw range is halved for them.
std::optional<fitted> make_curve(const std::vector<float>& v, std::uint32_t target, int curve_type, int key_type,
                                 const std::vector<int>& key_frames, float tol) {
  fitted c;
  c.target = target;
  c.start = 0;
  c.end = static_cast<float>(v.size() - 1);
  c.flags = static_cast<std::uint16_t>((key_type << 2) | (curve_type << 4));
  std::vector<float> vals;
  for (int f : key_frames) vals.push_back(v[static_cast<std::size_t>(f)]);
  c.num_keys = static_cast<std::uint16_t>(vals.size());
  encode_frames(c, key_frames);
  const float lo = *std::min_element(vals.begin(), vals.end()), hi = *std::max_element(vals.begin(), vals.end());
  if (key_type == 0) {
    for (std::size_t k = 0; k < vals.size(); ++k) {
      c.keys_raw.push_back(std::bit_cast<std::uint32_t>(vals[k]));
      if (curve_type == 1)
        c.keys_raw.push_back(std::bit_cast<std::uint32_t>(k + 1 < vals.size() ? vals[k + 1] - vals[k] : 0.0f));
    }
  } else {
    const float range = key_type == 1 ? (curve_type == 1 ? 16383.0f : 32767.0f) : (curve_type == 1 ? 63.0f : 127.0f);
    c.offset = (lo + hi) * 0.5f;
    float half = (hi - lo) * 0.5f;
    c.scale = half > 0 ? half / range : 1.0f;
    if (!std::isfinite(c.scale) || !(c.scale > 0)) return std::nullopt;
    std::vector<std::int64_t> raw;
    for (float x : vals)
      raw.push_back(std::clamp<std::int64_t>(std::llround((x - c.offset) / c.scale), static_cast<std::int64_t>(-range),
                                             static_cast<std::int64_t>(range)));
    for (std::size_t k = 0; k < raw.size(); ++k) {
      c.keys_raw.push_back(raw[k]);
      if (curve_type == 1) c.keys_raw.push_back(k + 1 < raw.size() ? raw[k + 1] - raw[k] : 0);
    }
  }
  // Check every frame through the reader's evaluation.
  curve rc = c.as_curve();
  float err = 0;
  for (std::size_t f = 0; f < v.size(); ++f) err = std::max(err, std::fabs(rc.eval(static_cast<float>(f)) - v[f]));
  if (!(err <= tol)) return std::nullopt;
  c.delta = rc.eval(c.end) - rc.eval(c.start);
  return c;
}

// Smallest passing encoding among linear (reduced keys) and baked, each with s8/s16/f32 keys.
fitted fit(const std::vector<float>& v, std::uint32_t target, float tol) {
  std::vector<int> lin = linear_keys(v, tol * 0.5f);
  std::vector<int> all(v.size());
  for (std::size_t i = 0; i < v.size(); ++i) all[i] = static_cast<int>(i);
  std::optional<fitted> best;
  for (int ct : {1, 2})
    for (int kt : {2, 1, 0}) {
      auto c = make_curve(v, target, ct, kt, ct == 1 ? lin : all, tol);
      if (c && (!best || c->size() < best->size())) best = std::move(c);
      if (c) break;  // larger key types of the same curve type are never smaller
    }
  if (!best) best = make_curve(v, target, 2, 0, all, std::numeric_limits<float>::infinity());
  return *best;
}

// ---- Output buffer: big-endian appends with self-relative offsets resolved at the end.
struct out_buffer {
  std::vector<std::uint8_t>& b;
  std::vector<std::pair<std::size_t, std::string>> fixups;
  std::map<std::string, std::size_t> labels;
  void u8(std::uint8_t v) { b.push_back(v); }
  void u16(std::uint16_t v) { u8(static_cast<std::uint8_t>(v >> 8)); u8(static_cast<std::uint8_t>(v)); }
  void u32(std::uint32_t v) { u16(static_cast<std::uint16_t>(v >> 16)); u16(static_cast<std::uint16_t>(v)); }
  void f32(float v) { u32(std::bit_cast<std::uint32_t>(v)); }
  void align(std::size_t a) { while (b.size() % a) u8(0); }
  void mark(const std::string& l) { labels[l] = b.size(); }
  void ref(const std::string& l) {
    if (!l.empty()) fixups.emplace_back(b.size(), l);
    u32(0);
  }
  void ref_abs(std::uint32_t target) {
    u32(target ? static_cast<std::uint32_t>(static_cast<std::int64_t>(target) - static_cast<std::int64_t>(b.size())) : 0);
  }
  void patch(std::size_t at, std::uint32_t v) {
    for (int i = 0; i < 4; ++i) b[at + static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(v >> (24 - 8 * i));
  }
  void patch_u16(std::size_t at, std::uint16_t v) {
    b[at] = static_cast<std::uint8_t>(v >> 8);
    b[at + 1] = static_cast<std::uint8_t>(v);
  }
  void resolve() {
    for (auto& [at, l] : fixups) {
      auto it = labels.find(l);
      if (it == labels.end()) core::fail(code::internal, "pack: unresolved label " + l);
      patch(at, static_cast<std::uint32_t>(static_cast<std::int64_t>(it->second) - static_cast<std::int64_t>(at)));
    }
  }
};

}  // namespace

curve fitted_curve::as_curve() const {
  curve c;
  c.flags = flags;
  c.num_keys = num_keys;
  c.start = start;
  c.end = end;
  c.scale_bits = std::bit_cast<std::uint32_t>(scale);
  c.offset_bits = std::bit_cast<std::uint32_t>(offset);
  for (auto v : frames_raw)
    c.frames.push_back((flags & 3) == 0   ? std::bit_cast<float>(static_cast<std::uint32_t>(v))
                       : (flags & 3) == 1 ? static_cast<float>(v) / 32.0f
                                          : static_cast<float>(v));
  for (auto v : keys_raw)
    c.keys.push_back(((flags >> 2) & 3) == 0 ? std::bit_cast<float>(static_cast<std::uint32_t>(v))
                                             : static_cast<float>(v));
  c.keys_raw = keys_raw;
  c.frames_raw = frames_raw;
  return c;
}

std::vector<patricia_node> build_patricia(const std::vector<std::string>& names) {
  std::vector<patricia_node> nodes(1);
  nodes[0].ref_bit = 0xFFFFFFFF;
  std::vector<std::string> keys{""};  // node i's name; the root stands for the empty string
  for (const auto& k : names) {
    // Closest existing key: the classic Patricia search.
    std::size_t p = 0, c = nodes[0].left;
    while (nodes[p].ref_bit > nodes[c].ref_bit) {
      p = c;
      c = name_bit(k, nodes[c].ref_bit) ? nodes[c].right : nodes[c].left;
    }
    const std::string& other = keys[c];
    std::uint32_t bits = static_cast<std::uint32_t>(std::max(k.size(), other.size()) * 8);
    std::uint32_t d = 0;
    bool found = false;
    for (std::uint32_t b = bits; b-- > 0;)
      if (name_bit(k, b) != name_bit(other, b)) {
        d = b;
        found = true;
        break;
      }
    if (!found) core::fail(code::bad_value, "duplicate dictionary name '" + k + "'");
    // Insertion point: below every node testing a higher bit.
    p = 0;
    c = nodes[0].left;
    while (nodes[p].ref_bit > nodes[c].ref_bit && nodes[c].ref_bit > d) {
      p = c;
      c = name_bit(k, nodes[c].ref_bit) ? nodes[c].right : nodes[c].left;
    }
    const auto n = static_cast<std::uint16_t>(nodes.size());
    patricia_node nn;
    nn.ref_bit = d;
    if (name_bit(k, d)) nn.right = n, nn.left = static_cast<std::uint16_t>(c);
    else nn.left = n, nn.right = static_cast<std::uint16_t>(c);
    nodes.push_back(nn);
    keys.push_back(k);
    if (p == 0) nodes[0].left = n;
    else if (name_bit(k, nodes[p].ref_bit)) nodes[p].right = n;
    else nodes[p].left = n;
  }
  return nodes;
}

// A bone's scene scale at `time` (its track, else its rest value).
namespace {

vec3 scale_at(const rigrip::skeleton& sk, const animation& a, std::size_t bone, float time) {
  for (const auto& t : a.tracks)
    if (t.path == path::scale && t.bone == sk.bones[bone].name) {
      auto x = scene_ops::sample(t, time);
      return {x[0], x[1], x[2]};
    }
  return sk.bones[bone].scale;
}

// The template's rig: the FSKL that knows most of the scene's bone names.
const skeleton* template_rig(const file& tpl, const scene& input) {
  const skeleton* rig = nullptr;
  std::size_t rig_hits = 0;
  for (const auto& m : tpl.models) {
    if (!m.skel) continue;
    std::size_t hits = 0;
    for (const auto& sk : input.skeletons)
      for (const auto& b : sk.bones)
        hits += std::any_of(m.skel->bones.begin(), m.skel->bones.end(), [&](const bone& x) { return x.name == b.name; });
    if (!rig || hits > rig_hits) rig = &*m.skel, rig_hits = hits;
  }
  return rig;
}

// How the FSKAs are written: the template's conventions.
struct settings {
  bool v34 = true;
  double fps = 30.0;
  std::uint32_t anim_flags = 0x1200;
  bool euler = false;
  int scale_mode = 2;
  // Maya scale mode stores segment scale compensation as the BoneAnims' SSC bit.
  bool maya = true;
  // None (0) and Softimage (3) are the scene's SSC semantics with other locals (the reader's
  // express_scale_mode); their inverse is applied per frame.
  bool ssc_mode = false;
};

settings template_settings(const file& tpl, const skeleton* rig, const pack_context& ctx) {
  settings st;
  st.v34 = tpl.v34();
  st.fps = ctx.fps.value_or(30.0);
  // Animation flags: the template's FSKA convention, else its FSKL's modes.
  if (!tpl.anims.empty()) st.anim_flags = tpl.anims[0].flags & ~std::uint32_t{0x5};
  else if (rig) st.anim_flags = rig->flags & 0x7300;
  st.euler = ((st.anim_flags >> 12) & 7) == 1;
  st.scale_mode = static_cast<int>((st.anim_flags >> 8) & 3);
  st.maya = st.scale_mode == 2;
  st.ssc_mode = st.scale_mode == 0 || st.scale_mode == 3;
  return st;
}

// The Std scale mode cannot store segment scale compensation: such a scene is baked into
// plain locals first. Returns whether `baked` holds the scene to pack.
bool bake_for_std_mode(const scene& input, const settings& st, const pack_context& ctx, scene& baked) {
  if (st.scale_mode != 1) return false;
  bool needed = false;
  for (std::size_t si = 0; si < input.skeletons.size() && !needed; ++si) {
    auto comp = scene_ops::compensating_bones(input, si);
    needed = std::find(comp.begin(), comp.end(), true) != comp.end();
  }
  if (!needed) return false;
  baked = input;
  diagnostics local;
  (void)scene_ops::bake_segment_scale_compensate(baked, ctx.diags ? *ctx.diags : local);
  return true;
}

// Names: the template's strings are pointed at, new ones appended after the sections.
struct string_pool {
  out_buffer& w;
  std::map<std::string, std::uint32_t> existing;
  std::vector<std::string> added;

  string_pool(out_buffer& out, const file& tpl) : w(out) {
    for (const auto& d : tpl.dicts)
      if (d) for (const auto& n : d->nodes) if (n.name_at) existing.emplace(n.name, n.name_at);
    for (const auto& m : tpl.models)
      if (m.skel) for (const auto& b : m.skel->bones) if (b.name_at) existing.emplace(b.name, b.name_at);
    for (const auto& a : tpl.anims) {
      if (a.name_at) existing.emplace(a.name, a.name_at);
      if (a.path_at) existing.emplace(a.path, a.path_at);
      for (const auto& b : a.bone_anims) if (b.name_at) existing.emplace(b.name, b.name_at);
    }
  }
  void ref(const std::string& n) {
    auto it = existing.find(n);
    if (it != existing.end()) return w.ref_abs(it->second);
    if (std::find(added.begin(), added.end(), n) == added.end()) added.push_back(n);
    w.ref("str:" + n);
  }
  // New strings: u32 length, characters, NUL, padding to 4.
  void write_added() {
    w.align(4);
    for (const auto& n : added) {
      w.u32(static_cast<std::uint32_t>(n.size()));
      w.mark("str:" + n);
      for (char ch : n) w.u8(static_cast<std::uint8_t>(ch));
      w.u8(0);
      w.align(4);
    }
  }
};

using bone_out = packed_bone;

// One bone's S xyz, R xyz(w), T xyz at every frame, in the template's conventions.
std::array<std::vector<float>, 10> sample_bone(const rigrip::skeleton& sk, const animation& a, const rigrip::bone& b,
                                               int frames, const settings& st) {
  const track* tt = nullptr;
  const track* tr = nullptr;
  const track* ts = nullptr;
  for (const auto& t : a.tracks)
    if (t.bone == b.name) (t.path == path::translation ? tt : t.path == path::rotation ? tr : ts) = &t;
  std::array<std::vector<float>, 10> v;
  std::optional<vec3> prev;
  quat prevq{0, 0, 0, 1};
  for (int f = 0; f <= frames; ++f) {
    const float time = static_cast<float>(std::min(static_cast<double>(f) / st.fps, a.duration));
    vec3 t = b.translation, sc = b.scale;
    quat q = b.rotation;
    if (tt) { auto x = scene_ops::sample(*tt, time); t = {x[0], x[1], x[2]}; }
    if (tr) { auto x = scene_ops::sample(*tr, time); q = core::normalize({x[0], x[1], x[2], x[3]}); }
    if (ts) { auto x = scene_ops::sample(*ts, time); sc = {x[0], x[1], x[2]}; }
    if (st.ssc_mode && b.parent >= 0 && b.segment_scale_compensate) {
      const vec3 ps = scale_at(sk, a, static_cast<std::size_t>(b.parent), time);
      const vec3 c = scene_ops::compensation(ps);
      for (std::size_t k = 0; k < 3; ++k) {
        if (st.scale_mode == 3) sc[k] *= c[k];  // accumulated -> local
        else t[k] *= ps[k];                     // compensated -> stored
      }
    }
    for (int k = 0; k < 3; ++k) v[static_cast<std::size_t>(k)].push_back(sc[static_cast<std::size_t>(k)]);
    if (st.euler) {
      vec3 e = quat_to_euler(q, prev);
      prev = e;
      for (int k = 0; k < 3; ++k) v[static_cast<std::size_t>(3 + k)].push_back(e[static_cast<std::size_t>(k)]);
      v[6].push_back(1.0f);
    } else {
      if (core::dot(q, prevq) < 0) for (auto& c : q) c = -c;
      prevq = q;
      for (int k = 0; k < 4; ++k) v[static_cast<std::size_t>(3 + k)].push_back(q[static_cast<std::size_t>(k)]);
    }
    for (int k = 0; k < 3; ++k) v[static_cast<std::size_t>(7 + k)].push_back(t[static_cast<std::size_t>(k)]);
  }
  return v;
}

// Base values for every component, and a fitted curve where the component moves more than
// the tolerance.
bone_out fit_bone(const rigrip::bone& b, const std::array<std::vector<float>, 10>& v, const settings& st) {
  bone_out bo;
  bo.name = b.name;
  bo.ssc = st.maya && b.segment_scale_compensate;
  static constexpr std::array<std::uint32_t, 10> targets{0x04, 0x08, 0x0C, 0x20, 0x24, 0x28, 0x2C, 0x10, 0x14, 0x18};
  for (std::size_t k = 0; k < 10; ++k) {
    bo.base[k] = v[k][0];
    if (st.euler && k == 6) continue;
    const float tol = (k >= 3 && k <= 6) ? (st.euler ? pack_tolerance_radians : 1e-4f) : pack_tolerance_units;
    float spread = 0;
    for (float x : v[k]) spread = std::max(spread, std::fabs(x - v[k][0]));
    if (spread <= tol * 0.5f) continue;  // the base value carries it
    bo.curves.push_back(fit(v[k], targets[k], tol));
  }
  return bo;
}

// None / Softimage templates cannot express plain inheritance under a scaled parent.
void warn_plain_under_scale(const rigrip::skeleton& sk, const animation& a, const settings& st,
                            const pack_context& ctx) {
  scene one;
  one.skeletons = {sk};
  for (auto& bb : one.skeletons[0].bones) bb.segment_scale_compensate = bb.parent >= 0 && !bb.segment_scale_compensate;
  one.animations = {a};
  one.animations[0].skeleton = 0;
  auto plain_under_scale = scene_ops::compensating_bones(one, 0);
  auto it = std::find(plain_under_scale.begin(), plain_under_scale.end(), true);
  if (it != plain_under_scale.end())
    ctx.warn(code::w_lossy, "animation '" + a.name + "': the template's scale mode (" +
                                (st.scale_mode == 0 ? std::string("none") : std::string("Softimage")) +
                                ") cannot express standard scale inheritance of bone '" +
                                sk.bones[static_cast<std::size_t>(it - plain_under_scale.begin())].name +
                                "' under a scaled parent; its locals are written as they are");
}

// The BoneAnims of one animation: every scene bone the template's rig knows.
std::vector<bone_out> animation_bones(const scene& s, const animation& a, int frames, const skeleton* rig,
                                      const settings& st, const pack_context& ctx) {
  const rigrip::skeleton& sk = s.skeletons.at(static_cast<std::size_t>(a.skeleton));
  std::vector<bone_out> bones;
  std::size_t missing = 0;
  for (const auto& b : sk.bones) {
    // Every bone of the rig gets a BoneAnim; its SSC bit is the scene bone's.
    if (rig && std::none_of(rig->bones.begin(), rig->bones.end(), [&](const bone& x) { return x.name == b.name; })) {
      ++missing;
      continue;
    }
    bones.push_back(fit_bone(b, sample_bone(sk, a, b, frames, st), st));
  }
  if (st.ssc_mode) warn_plain_under_scale(sk, a, st, ctx);
  if (missing)
    ctx.warn(code::w_missing_bone, "animation '" + a.name + "': " + std::to_string(missing) +
                                       " scene bone(s) are not in the template's skeleton and were not packed");
  return bones;
}

void write_fska_header(out_buffer& w, string_pool& names, const std::string& A, const animation& a,
                       std::uint32_t flags, int frames, const std::vector<bone_out>& bones, const settings& st) {
  std::uint32_t num_curves = 0, baked = 0;
  for (const auto& b : bones)
    for (const auto& c : b.curves) {
      ++num_curves;
      baked += static_cast<std::uint32_t>(4 * (c.end - c.start + 1) + 20);
    }
  w.align(4);
  w.mark(A);
  w.u8('F'); w.u8('S'); w.u8('K'); w.u8('A');
  names.ref(a.name);
  names.ref("");
  w.u32(flags);
  if (st.v34) {
    w.u32(static_cast<std::uint32_t>(frames));
    w.u16(static_cast<std::uint16_t>(bones.size()));
    w.u16(0);
    w.u32(num_curves);
    w.u32(baked);
  } else {
    w.u16(static_cast<std::uint16_t>(frames));
    w.u16(static_cast<std::uint16_t>(bones.size()));
    w.u32(num_curves);
    w.u32(baked);
    w.u16(0);
    w.u16(0);
  }
  w.ref(bones.empty() ? "" : A + "ba");
  w.ref("");
  w.ref(bones.empty() ? "" : A + "bind");
  w.ref("");
  w.mark(A + "bind");
  for (std::size_t i = 0; i < bones.size(); ++i) w.u16(0xFFFF);  // bound at run time by name
  w.align(4);
}

void write_bone_anims(out_buffer& w, string_pool& names, const std::string& A, const std::vector<bone_out>& bones,
                      const settings& st) {
  w.mark(A + "ba");
  std::uint32_t begin = 0;
  for (std::size_t bi = 0; bi < bones.size(); ++bi) {
    const auto& b = bones[bi];
    std::uint32_t bflags = (1u << 3) | (1u << 4) | (1u << 5) | (b.ssc ? 1u << 23 : 0u);
    for (const auto& c : b.curves)
      if (const int k = curve_component(c.target); k >= 0) bflags |= 1u << (6 + k);
    w.u32(bflags);
    names.ref(b.name);
    w.u8(3);
    w.u8(st.euler ? 6 : 7);
    w.u8(static_cast<std::uint8_t>(b.curves.size()));
    w.u8(7);
    w.u8(static_cast<std::uint8_t>(std::min<std::uint32_t>(begin, 255)));
    w.u8(0); w.u8(0); w.u8(0);
    begin += static_cast<std::uint32_t>(b.curves.size());
    const std::string B = A + "b" + std::to_string(bi);
    w.ref(b.curves.empty() ? "" : B + "c");
    w.ref(B + "base");
  }
}

void write_curves(out_buffer& w, const std::string& A, const std::vector<bone_out>& bones, const settings& st) {
  for (std::size_t bi = 0; bi < bones.size(); ++bi) {
    const auto& b = bones[bi];
    const std::string B = A + "b" + std::to_string(bi);
    w.mark(B + "c");
    for (std::size_t ci = 0; ci < b.curves.size(); ++ci) {
      const auto& c = b.curves[ci];
      const std::string C = B + "c" + std::to_string(ci);
      w.u16(c.flags);
      w.u16(c.num_keys);
      w.u32(c.target);
      w.f32(c.start); w.f32(c.end); w.f32(c.scale); w.f32(c.offset);
      if (st.v34) w.f32(c.delta);
      w.ref(C + "f");
      w.ref(C + "k");
    }
    w.mark(B + "base");
    for (float x : b.base) w.f32(x);
    for (std::size_t ci = 0; ci < b.curves.size(); ++ci) {
      const auto& c = b.curves[ci];
      const std::string C = B + "c" + std::to_string(ci);
      w.mark(C + "f");
      for (auto x : c.frames_raw) {
        auto u = static_cast<std::uint32_t>(x);
        c.frame_bytes() == 4 ? w.u32(u) : c.frame_bytes() == 2 ? w.u16(static_cast<std::uint16_t>(u)) : w.u8(static_cast<std::uint8_t>(u));
      }
      w.align(4);
      w.mark(C + "k");
      for (auto x : c.keys_raw) {
        auto u = static_cast<std::uint32_t>(x);
        c.key_bytes() == 4 ? w.u32(u) : c.key_bytes() == 2 ? w.u16(static_cast<std::uint16_t>(u)) : w.u8(static_cast<std::uint8_t>(u));
      }
      w.align(4);
    }
  }
}

// Writes one FSKA (header, BoneAnims, curves) labelled A.
// The platform-neutral part: one animation sampled and fitted in the template's conventions.
packed_anim fit_animation(const scene& s, const animation& a, const skeleton* rig,
                          const settings& st, const pack_context& ctx) {
  packed_anim pa;
  pa.name = a.name;
  pa.frames = std::max(0, static_cast<int>(std::lround(a.duration * st.fps)));
  if (pa.frames > 65535)
    core::fail(code::bad_value, "animation '" + a.name + "' has " + std::to_string(pa.frames) +
                                    " frames; at most 65535 can be packed");
  pa.flags = st.anim_flags;
  if (extra(a.extras, "loop", false)) pa.flags |= 4;
  pa.euler = st.euler;
  pa.bones = animation_bones(s, a, pa.frames, rig, st, ctx);
  return pa;
}

void write_fska(out_buffer& w, string_pool& names, const std::string& A, const scene& s, const animation& a,
                const skeleton* rig, const settings& st, const pack_context& ctx) {
  const packed_anim pa = fit_animation(s, a, rig, st, ctx);
  write_fska_header(w, names, A, a, pa.flags, pa.frames, pa.bones, st);
  write_bone_anims(w, names, A, pa.bones, st);
  write_curves(w, A, pa.bones, st);
}

// The skeletal animation dictionary: re-pointed in place when every name exists, else
// rebuilt with the new names.
void write_dictionary(out_buffer& w, string_pool& strings, const file& tpl,
                      const std::vector<std::pair<std::string, std::string>>& packed) {
  const auto& old = tpl.dicts[2];
  std::vector<std::string> names;
  std::vector<std::uint32_t> data;  // absolute targets of existing entries (0 = packed)
  std::vector<std::string> data_label;
  if (old)
    for (std::size_t i = 1; i < old->nodes.size(); ++i) {
      names.push_back(old->nodes[i].name);
      data.push_back(old->nodes[i].data_at);
      data_label.emplace_back();
    }
  bool added = false;
  for (const auto& [n, label] : packed) {
    auto it = std::find(names.begin(), names.end(), n);
    if (it == names.end()) {
      names.push_back(n);
      data.push_back(0);
      data_label.push_back(label);
      added = true;
    } else {
      std::size_t i = static_cast<std::size_t>(it - names.begin());
      data[i] = 0;
      data_label[i] = label;
    }
  }
  if (names.size() > 65535) core::fail(code::bad_count, "more than 65535 skeletal animations");
  if (!added) {
    for (std::size_t i = 0; i < names.size(); ++i)
      if (!data_label[i].empty()) w.fixups.emplace_back(old->nodes[i + 1].at + 12, data_label[i]);
    return;
  }
  auto nodes = build_patricia(names);
  w.align(4);
  w.mark("dict");
  w.u32(static_cast<std::uint32_t>(8 + 16 * nodes.size()));
  w.u32(static_cast<std::uint32_t>(names.size()));
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    w.u32(nodes[i].ref_bit);
    w.u16(nodes[i].left);
    w.u16(nodes[i].right);
    if (i == 0) {
      w.u32(0);
      w.u32(0);
      continue;
    }
    strings.ref(names[i - 1]);
    if (data_label[i - 1].empty()) w.ref_abs(data[i - 1]);
    else w.ref(data_label[i - 1]);
  }
  w.fixups.emplace_back(0x28, "dict");  // header: skeletal animation dictionary
  w.patch_u16(0x54, static_cast<std::uint16_t>(names.size()));
}

}  // namespace

std::vector<std::uint8_t> pack_file(const scene& input, const pack_context& ctx) {
  if (!ctx.template_file)
    core::fail(code::usage, "bfres pack needs --template ORIGINAL.bfres: the FSKAs are written into a copy of it");
  const file tpl = load(*ctx.template_file);
  if (input.animations.empty()) core::fail(code::invalid_scene, "the scene has no animation to pack");
  const skeleton* rig = template_rig(tpl, input);
  const settings st = template_settings(tpl, rig, ctx);
  scene baked;
  const scene& s = bake_for_std_mode(input, st, ctx, baked) ? baked : input;
  // Switch: the same fitted FSKAs, laid out by the Switch writer (relocation table and all).
  if (tpl.plat == platform::switch_) {
    std::vector<packed_anim> anims;
    for (const auto& a : s.animations) anims.push_back(fit_animation(s, a, rig, st, ctx));
    return write_switch_fskas(tpl, anims);
  }

  std::vector<std::uint8_t> img = tpl.image;
  out_buffer w{img};
  w.align(8);
  string_pool strings(w, tpl);
  std::vector<std::pair<std::string, std::string>> packed;  // name, label
  for (std::size_t ai = 0; ai < s.animations.size(); ++ai) {
    const std::string label = "fska" + std::to_string(ai);
    write_fska(w, strings, label, s, s.animations[ai], rig, st, ctx);
    packed.emplace_back(s.animations[ai].name, label);
  }
  write_dictionary(w, strings, tpl, packed);
  strings.write_added();
  w.resolve();
  w.patch(0x0C, static_cast<std::uint32_t>(img.size()));
  return img;
}

}  // namespace rigrip::bfres
