// Decode: AA + P + TEX + DA (battle) and HRC + RSD + P + TEX + A (field) -> scene.
#include "formats/ff7/decode.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <map>
#include <mutex>
#include <set>

#include "core/math.hpp"

namespace rigrip::ff7 {
namespace fs = std::filesystem;

std::string_view to_string(chunk_kind k) {
  switch (k) {
    case chunk_kind::body: return "body";
    case chunk_kind::weapon: return "weapon";
    case chunk_kind::special: return "special";
  }
  return "body";
}

namespace {
void warn(const read_context* ctx, code c, const std::string& m, std::uint64_t off = no_offset) {
  if (ctx) ctx->warn(c, m, off);  // ctx is null when decoding without a file context
}

float srgb_to_linear(std::uint8_t v) {
  float c = static_cast<float>(v) / 255.0f;
  return c <= 0.04045f ? c / 12.92f : std::pow((c + 0.055f) / 1.055f, 2.4f);
}

std::string file_name(const std::string& p) { return fs::path(p).filename().string(); }

// Loads a sibling file, trying the name as written, lower case and upper case.
std::optional<std::pair<bytes, std::string>> load_sibling(const read_context& ctx, const std::string& dir,
                                                          const std::string& name) {
  if (!ctx.load) return std::nullopt;
  std::string upper = name;
  for (auto& ch : upper) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
  for (const auto& n : {name, to_lower(name), upper}) {
    std::string p = dir.empty() ? n : (fs::path(dir) / n).string();
    if (!ctx.file_exists(p)) continue;  // through the context: inside an archive too
    auto r = ctx.load(p);
    if (r) return std::pair{std::move(r.value()), p};
  }
  return std::nullopt;
}

std::optional<std::pair<bytes, std::string>> load_path(const read_context& ctx, const std::string& p) {
  if (p.empty() || !ctx.load || !ctx.file_exists(p)) return std::nullopt;
  auto r = ctx.load(p);
  if (!r) return std::nullopt;
  return std::pair{std::move(r.value()), p};
}

// Parses a part file; a broken or missing part is a warning, the rest of the model converts.
template <class T, class Fn>
std::optional<T> parse_part(const read_context* ctx, const std::string& what, const std::string& path,
                            std::span<const std::uint8_t> data, Fn&& fn) {
  try {
    return fn(data);
  } catch (const core::failure& f) {
    auto off = f.error().offset;
    warn(ctx, code::w_unsupported_part,
         what + " " + file_name(path) + " skipped: " + std::string(info(f.error().code).id) + " at " +
             (off == no_offset ? std::string("?") : core::byte_reader::hex(off)) + ": " + f.error().message);
    return std::nullopt;
  }
}

int material_for(scene& s, int tex) {
  std::string name = tex < 0 ? "vertex_color" : "tex_" + s.textures[static_cast<std::size_t>(tex)].name;
  for (std::size_t i = 0; i < s.materials.size(); ++i)
    if (s.materials[i].name == name) return static_cast<int>(i);
  material m;
  m.name = name;
  m.texture = tex;
  if (tex >= 0) {
    const auto& px = s.textures[static_cast<std::size_t>(tex)].rgba;
    bool cut = false;
    for (std::size_t i = 3; i < px.size(); i += 4) cut |= px[i] < 128;
    if (cut) m.alpha_mode = material::alpha::mask;
  }
  s.materials.push_back(m);
  return static_cast<int>(s.materials.size()) - 1;
}

// One scene mesh per polygon group. `textures[texID]` = scene texture index or -1.
void add_p_meshes(scene& s, const p_model& p, const std::string& name, int skel, int bone,
                  const std::vector<int>& textures) {
  for (std::size_t gi = 0; gi < p.groups.size(); ++gi) {
    const auto& g = p.groups[gi];
    if (g.poly_count() == 0 || g.vert_count() == 0) continue;
    mesh m;
    m.name = p.groups.size() == 1 ? name : name + "_g" + std::to_string(gi);
    m.skeleton = bone >= 0 ? skel : -1;
    m.bone = bone;
    const auto vs = static_cast<std::size_t>(g.vert_start());
    const auto nv = static_cast<std::size_t>(g.vert_count());
    int tex = -1;
    if (g.textured() && g.tex_id() >= 0 && static_cast<std::size_t>(g.tex_id()) < textures.size())
      tex = textures[static_cast<std::size_t>(g.tex_id())];
    bool normals_ok = !p.normals.empty() && p.normal_index.size() == p.vertices.size();
    for (std::size_t v = 0; v < nv; ++v) {
      m.positions.push_back(p.vertices[vs + v]);
      if (normals_ok) {
        auto ni = p.normal_index[vs + v];
        if (ni < 0 || static_cast<std::size_t>(ni) >= p.normals.size()) {
          normals_ok = false;
        } else {
          auto n = p.normals[static_cast<std::size_t>(ni)];
          float len = std::sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
          if (!(len > 1e-6f) || !std::isfinite(len)) normals_ok = false;
          else m.normals.push_back({n[0] / len, n[1] / len, n[2] / len});
        }
      }
      if (vs + v < p.vertex_colors.size()) {
        const auto& c = p.vertex_colors[vs + v];
        m.colors.push_back({srgb_to_linear(c[2]), srgb_to_linear(c[1]), srgb_to_linear(c[0]), c[3] / 255.0f});
      }
      if (tex >= 0) {
        auto uv = p.texcoords[static_cast<std::size_t>(g.tex_start()) + v];
        m.uvs.push_back(uv);
      }
    }
    if (!normals_ok) m.normals.clear();
    if (m.colors.size() != m.positions.size()) m.colors.clear();
    for (const auto& f : m.positions)
      if (!core::finite(f)) core::fail(code::bad_value, "P model " + name + " has a non-finite vertex");
    for (const auto& f : m.uvs)
      if (!std::isfinite(f[0]) || !std::isfinite(f[1])) core::fail(code::bad_value, "P model " + name + " has a non-finite texture coordinate");
    for (std::int32_t k = 0; k < g.poly_count(); ++k) {
      const auto& q = p.polys[static_cast<std::size_t>(g.poly_start() + k)];
      // The game winds clockwise; glTF wants counter-clockwise.
      m.indices.push_back(q.v[0]);
      m.indices.push_back(q.v[2]);
      m.indices.push_back(q.v[1]);
    }
    m.material = material_for(s, tex);
    m.extras["group"] = gi;
    m.extras["poly_type"] = g.w[0];
    if (gi < p.hundreds.size()) m.extras["blend_mode"] = p.hundreds[gi][17];
    s.meshes.push_back(std::move(m));
  }
}

void set_root_transform(scene& s) {
  // Y points down in the game: a 180 degree turn about X makes it glTF's Y-up, once, at the root.
  s.metadata["root_transform"] = {{"rotation", {1.0, 0.0, 0.0, 0.0}}, {"scale", {1.0, 1.0, 1.0}}};
  // Real-world size: Cloud's field skeleton standing (aaaa.hrc posed by aafe.a) spans about 26
  // units and Cloud is 1.73 m tall, so 1/15 m per unit (docs/gltf-output.md; battle files use
  // the same factor until a real battle model says otherwise).
  s.metadata["metres_per_unit"] = 1.0 / 15.0;
}

track make_track(const std::string& bone, path p, std::size_t frames, double fps) {
  track t;
  t.bone = bone;
  t.path = p;
  t.interpolation = interpolation::linear;
  t.times.reserve(frames);
  for (std::size_t i = 0; i < frames; ++i) t.times.push_back(static_cast<float>(static_cast<double>(i) / fps));
  return t;
}

void push(track& t, const vec3& v) { t.values.insert(t.values.end(), v.begin(), v.end()); }
void push(track& t, const quat& q) { t.values.insert(t.values.end(), q.begin(), q.end()); }
vec3 pos_of(const triple& p) { return {static_cast<float>(p[0]), static_cast<float>(p[1]), static_cast<float>(p[2])}; }
}  // namespace

// ------------------------------------------------------------------ DA decoding
std::vector<decoded_chunk> decode_pack(const da_pack& p, const aa_file& aa, const read_context* ctx) {
  std::vector<decoded_chunk> out;
  const std::size_t body = static_cast<std::size_t>(std::max(0, aa.body_anim_count()));
  const std::size_t weapon = static_cast<std::size_t>(std::max(0, aa.weapon_anim_count()));
  if (body + weapon != p.chunks.size())
    warn(ctx, code::w_fallback,
         "the skeleton lists " + std::to_string(body) + " body + " + std::to_string(weapon) +
             " weapon animations but the pack holds " + std::to_string(p.chunks.size()) +
             "; chunks past the weapon range are read as body animations", 0);
  for (std::size_t i = 0; i < p.chunks.size(); ++i) {
    const auto& c = p.chunks[i];
    decoded_chunk d;
    d.index = i;
    d.chunk = &c;
    bool is_weapon = i >= body && i < body + weapon;
    d.kind = c.special ? chunk_kind::special : is_weapon ? chunk_kind::weapon : chunk_kind::body;
    d.body_ordinal = is_weapon ? i - body : i;
    if (!c.special) {
      if (c.key != 0 && c.key != 2 && c.key != 4)
        warn(ctx, code::w_suspicious_value, "animation " + std::to_string(i) + " uses key " + std::to_string(c.key) +
                                                 " (the game uses 0, 2 or 4)", c.offset + 16);
      std::size_t nrot = is_weapon ? 1 : aa.body_rotations();
      auto r = decode_bitstream(c.bitstream(), c.key, nrot, c.s_frames, c.bits_offset);
      d.frames = std::move(r.frames);
      d.stopped_early = r.stopped_early;
      if (r.stopped_early)
        warn(ctx, code::w_fallback,
             "animation " + std::to_string(i) + ": the frame count says " + std::to_string(c.s_frames) +
                 " but the " + std::to_string(c.s_size) + "-byte bitstream holds " + std::to_string(d.frames.size()) +
                 " frames; kept those",
             c.bits_offset);
    }
    out.push_back(std::move(d));
  }
  return out;
}

aa_source load_skeleton_for_da(const read_context& ctx) {
  std::string path;
  if (ctx.options.skeleton_path) {
    path = *ctx.options.skeleton_path;
  } else {
    path = da_skeleton_path(ctx.path);  // rtda -> rtaa; magic.lgp: name.a00 -> name.d
  }
  auto loaded = load_path(ctx, path);
  if (!loaded) {
    std::string expected = path.empty() ? std::string("its xxaa skeleton") : file_name(path);
    core::fail(code::missing_skeleton,
               "a DA pack needs its AA skeleton for the bone count; " + expected +
                   " was not found next to it: pass --skeleton PATH_TO_AA (e.g. --skeleton rtaa for rtda)",
               0);
  }
  aa_source src;
  try {
    src.aa = parse_aa(loaded->first);
  } catch (const core::failure& f) {
    core::fail(f.error().code, "skeleton " + file_name(path) + ": " + f.error().message, 0);
  }
  src.path = loaded->second;
  return src;
}

// ------------------------------------------------------------------ TEX -> texture
texture tex_to_texture(const tex_file& t, const std::string& name) {
  const auto& h = t.header;
  texture out;
  out.name = name;
  out.width = t.width();
  out.height = t.height();
  const std::size_t n = std::size_t{out.width} * out.height;
  out.rgba.resize(n * 4);
  const std::size_t bpp = h[w_bytes_per_pixel];
  const bool color_key = h[w_color_key] != 0;
  if (h[w_palette_flag]) {
    const std::size_t entries = t.palette.size() / 4;
    // Palette 0 only; further palettes are alternative colourings of the same pixels.
    const std::size_t per = h[w_colors_per_palette] ? std::min<std::size_t>(h[w_colors_per_palette], entries) : entries;
    bool any_alpha = false;
    std::size_t bad = 0;
    for (std::size_t i = 0; i < per; ++i) any_alpha |= t.palette[4 * i + 3] != 0;
    for (std::size_t i = 0; i < n; ++i) {
      std::uint32_t idx = 0;
      for (std::size_t b = 0; b < bpp; ++b) idx |= std::uint32_t{t.pixels[i * bpp + b]} << (8 * b);
      std::uint8_t* o = &out.rgba[4 * i];
      if (idx >= per) {  // out-of-palette index: transparent, reported in extras
        o[0] = o[1] = o[2] = o[3] = 0;
        ++bad;
        continue;
      }
      const std::uint8_t* c = &t.palette[4 * idx];
      o[0] = c[2];
      o[1] = c[1];
      o[2] = c[0];
      o[3] = any_alpha ? c[3] : 255;
      if (color_key && c[0] == 0 && c[1] == 0 && c[2] == 0) o[3] = 0;
    }
    if (bad) out.extras["bad_palette_indices"] = bad;
    out.extras["palettes"] = h[w_palettes];
    out.extras["colors_per_palette"] = h[w_colors_per_palette];
  } else {
    auto comp = [&](std::uint32_t v, std::size_t c) -> std::uint8_t {
      std::uint32_t mask = h[w_red_mask + c], shift = h[w_red_shift + c], bits = h[w_red_bits + c];
      if (bits == 0 || bits > 16 || shift > 31) return c == 3 ? 255 : 0;
      std::uint32_t max = (1u << bits) - 1;
      return static_cast<std::uint8_t>(((v & mask) >> shift) * 255u / max);
    };
    for (std::size_t i = 0; i < n; ++i) {
      std::uint32_t v = 0;
      for (std::size_t b = 0; b < bpp; ++b) v |= std::uint32_t{t.pixels[i * bpp + b]} << (8 * b);
      std::uint8_t* o = &out.rgba[4 * i];
      for (std::size_t c = 0; c < 4; ++c) o[c] = comp(v, c);
      if (color_key && o[0] == 0 && o[1] == 0 && o[2] == 0) o[3] = 0;
    }
  }
  out.extras["color_key"] = color_key;
  return out;
}

// ------------------------------------------------------------------ battle scene
namespace {
// Every texture of the parts in order; ids[i] is texture i's index in the scene (-1 when
// it failed to load), as the P models' texture numbers expect.
std::vector<int> add_textures(scene& s, const battle_parts& parts) {
  std::vector<int> tex_ids;
  for (const auto& t : parts.textures) {
    if (t) {
      s.textures.push_back(*t);
      tex_ids.push_back(static_cast<int>(s.textures.size()) - 1);
    } else {
      tex_ids.push_back(-1);
    }
  }
  return tex_ids;
}

// The skeleton node layout: "root", then "bone_<i>" (index i + 1), then "weapon_<w>" nodes.
struct battle_skeleton {
  skeleton sk;
  std::size_t nb = 0;              // AA bones
  std::size_t nweapon_nodes = 0;   // weapon nodes after the bones
  int weapon_base = 0;             // node index of weapon_0
  bool multi = false;              // more than one bone: frames carry a root rotation first
  // The frame's rotation of AA bone i (a single-bone model has only the root's).
  quat rotation_of_bone(const da_frame& f, std::size_t i) const { return raw_rotation(f.rotations[multi ? i + 1 : 0]); }
};

battle_skeleton make_battle_skeleton(const aa_file& aa, const read_context* ctx) {
  battle_skeleton b;
  b.sk.name = "ff7_battle";
  b.sk.bones.push_back(bone{"root", -1});
  b.nb = aa.bones.size();
  for (std::size_t i = 0; i < b.nb; ++i) {
    bone bn;
    bn.name = "bone_" + std::to_string(i);
    const auto& ab = aa.bones[i];
    bn.parent = ab.parent < 0 ? 0 : ab.parent + 1;
    if (ab.parent >= 0) bn.translation = {0, 0, aa.bones[static_cast<std::size_t>(ab.parent)].length};
    bn.extras = {{"length", ab.length}, {"has_model", ab.has_model}};
    b.sk.bones.push_back(bn);
  }
  // battle.lgp has 16 weapon suffixes (xxck..xxcz): more is a damaged header.
  b.nweapon_nodes =
      std::max<std::size_t>(static_cast<std::size_t>(std::max(0, aa.weapon_count())), aa.weapon_anim_count() > 0 ? 1 : 0);
  if (b.nweapon_nodes > 16) {
    warn(ctx, code::w_suspicious_value, "weapon count " + std::to_string(aa.weapon_count()) + " exceeds the 16 weapon files a model can have; using 16", 36);
    b.nweapon_nodes = 16;
  }
  b.weapon_base = static_cast<int>(b.sk.bones.size());
  for (std::size_t w = 0; w < b.nweapon_nodes; ++w) b.sk.bones.push_back(bone{"weapon_" + std::to_string(w), -1});
  b.multi = b.nb > 1;
  return b;
}

using weapon_chunks = std::map<std::size_t, const decoded_chunk*>;  // body ordinal -> weapon chunk

// Rest pose: frame 0 of the first body animation (a real pose instead of all parts on one line).
void set_rest_pose(battle_skeleton& b, const battle_parts& parts, const weapon_chunks& weapon_of) {
  auto& bones = b.sk.bones;
  for (const auto& d : parts.animations) {
    if (d.kind != chunk_kind::body || d.frames.empty()) continue;
    const auto& f = d.frames[0];
    bones[0].translation = pos_of(f.position);
    if (b.multi) bones[0].rotation = raw_rotation(f.rotations[0]);
    for (std::size_t i = 0; i < b.nb; ++i) bones[i + 1].rotation = b.rotation_of_bone(f, i);
    if (auto it = weapon_of.find(d.body_ordinal); it != weapon_of.end())
      for (std::size_t w = 0; w < b.nweapon_nodes; ++w) {
        bones[static_cast<std::size_t>(b.weapon_base) + w].translation = pos_of(it->second->frames[0].position);
        bones[static_cast<std::size_t>(b.weapon_base) + w].rotation = raw_rotation(it->second->frames[0].rotations[0]);
      }
    break;
  }
}

// One body chunk as an animation: root translation, root rotation (multi-bone models),
// one rotation track per bone, and the paired weapon chunk's tracks on every weapon node.
animation body_animation(const decoded_chunk& d, const battle_skeleton& b, const weapon_chunks& weapon_of, double fps) {
  animation a;
  char name[32];
  std::snprintf(name, sizeof name, "anim_%03zu", d.index);
  a.name = name;
  a.fps = fps;
  const auto n = d.frames.size();
  auto tr = make_track("root", path::translation, n, fps);
  // Track k takes the frame's rotation triple k: the root's first on a multi-bone model
  // (then bone i's at i + 1, as rotation_of_bone reads them), bone 0's alone otherwise.
  std::vector<track> rot;
  rot.reserve(b.nb + 1);
  if (b.multi) rot.push_back(make_track("root", path::rotation, 0, fps));
  for (std::size_t i = 0; i < b.nb; ++i) rot.push_back(make_track("bone_" + std::to_string(i), path::rotation, 0, fps));
  for (auto& t : rot) {
    t.times = tr.times;
    t.values.resize(4 * n);
  }
  tr.values.reserve(3 * n);
  std::vector<float> frame_rot(4 * rot.size());
  for (std::size_t j = 0; j < n; ++j) {
    const auto& f = d.frames[j];
    push(tr, pos_of(f.position));
    if (f.rotations.size() < rot.size())
      core::fail(code::bad_value, "animation " + std::to_string(d.index) + " frame " + std::to_string(j) +
                                      " has fewer rotations than the skeleton's bones");
    raw_rotations(std::span<const triple>(f.rotations.data(), rot.size()), frame_rot.data());
    for (std::size_t k = 0; k < rot.size(); ++k)
      std::memcpy(rot[k].values.data() + 4 * j, frame_rot.data() + 4 * k, 4 * sizeof(float));
  }
  a.tracks.push_back(std::move(tr));
  for (auto& t : rot) a.tracks.push_back(std::move(t));
  std::size_t frames = n;
  const auto& c = *d.chunk;
  a.extras = {{"ff7_index", d.index}, {"key", c.key}, {"frames_field", c.frames_field}, {"s_frames", c.s_frames},
              {"bones_field", c.bones_field}, {"root_motion", {"root"}}, {"frame_count", n}};
  if (auto it = weapon_of.find(d.body_ordinal); it != weapon_of.end()) {
    const auto& wf = it->second->frames;
    for (std::size_t w = 0; w < b.nweapon_nodes; ++w) {
      std::string wn = "weapon_" + std::to_string(w);
      auto wt = make_track(wn, path::translation, wf.size(), fps);
      auto wr = make_track(wn, path::rotation, wf.size(), fps);
      for (const auto& f : wf) {
        push(wt, pos_of(f.position));
        push(wr, raw_rotation(f.rotations[0]));
      }
      a.tracks.push_back(std::move(wt));
      a.tracks.push_back(std::move(wr));
    }
    a.extras["weapon_index"] = it->second->index;
    frames = std::max(frames, wf.size());
  }
  a.duration = static_cast<double>(frames - 1) / fps;
  // Track times are float; keep the duration at least the last key time.
  for (const auto& t : a.tracks) a.duration = std::max(a.duration, static_cast<double>(t.times.back()));
  return a;
}

// Chunks glTF cannot carry (special chunks, weapon chunks whose body slot is not an
// animation) travel verbatim in the metadata so that `pack` puts them back in place.
void add_raw_chunks(scene& s, const battle_parts& parts) {
  std::vector<std::size_t> specials;
  nlohmann::json raw = nlohmann::json::array();
  std::set<std::size_t> body_with_anim;
  for (const auto& d : parts.animations)
    if (d.kind == chunk_kind::body && !d.frames.empty()) body_with_anim.insert(d.body_ordinal);
  static const char* hexd = "0123456789abcdef";
  for (const auto& d : parts.animations) {
    if (d.kind == chunk_kind::special) specials.push_back(d.index);
    bool orphan = d.kind == chunk_kind::weapon && !body_with_anim.count(d.body_ordinal);
    if (d.kind != chunk_kind::special && !orphan) continue;
    std::string hex;
    for (auto b : d.chunk->body) {
      hex += hexd[b >> 4];
      hex += hexd[b & 15];
    }
    raw.push_back({{"index", d.index}, {"kind", std::string(to_string(d.kind))}, {"bones_field", d.chunk->bones_field},
                   {"frames_field", d.chunk->frames_field}, {"body_hex", hex}});
  }
  if (!specials.empty()) s.metadata["ff7"]["special_chunks"] = specials;
  if (!raw.empty()) s.metadata["ff7"]["raw_chunks"] = raw;
}
}  // namespace

scene build_battle_scene(const battle_parts& parts, double fps, const read_context* ctx) {
  const auto& aa = parts.aa;
  scene s;
  set_root_transform(s);
  s.metadata["ff7"] = {{"aa_header", aa.header}};
  const std::vector<int> tex_ids = add_textures(s, parts);
  if (aa.bone_count() == 0) {  // battle location: static pieces at the origin
    for (std::size_t i = 0; i < parts.location_pieces.size(); ++i)
      if (parts.location_pieces[i]) add_p_meshes(s, *parts.location_pieces[i], "piece_" + std::to_string(i), -1, -1, tex_ids);
    if (s.meshes.empty()) warn(ctx, code::w_unsupported_part, "battle location without any piece file");
    return s;
  }

  battle_skeleton b = make_battle_skeleton(aa, ctx);
  weapon_chunks weapon_of;
  for (const auto& d : parts.animations)
    if (d.kind == chunk_kind::weapon && !d.frames.empty()) weapon_of[d.body_ordinal] = &d;
  set_rest_pose(b, parts, weapon_of);
  s.skeletons.push_back(b.sk);

  for (std::size_t i = 0; i < b.nb && i < parts.bone_models.size(); ++i)
    if (parts.bone_models[i]) add_p_meshes(s, *parts.bone_models[i], "bone_" + std::to_string(i), 0, static_cast<int>(i) + 1, tex_ids);
  for (std::size_t w = 0; w < parts.weapon_models.size() && w < b.nweapon_nodes; ++w)
    if (parts.weapon_models[w]) add_p_meshes(s, *parts.weapon_models[w], "weapon_" + std::to_string(w), 0, b.weapon_base + static_cast<int>(w), tex_ids);

  for (const auto& d : parts.animations)
    if (d.kind == chunk_kind::body && !d.frames.empty()) s.animations.push_back(body_animation(d, b, weapon_of, fps));
  add_raw_chunks(s, parts);
  return s;
}

namespace {
battle_parts gather_battle(const read_context& ctx, const aa_file& aa, const std::string& aa_path) {
  battle_parts parts;
  parts.aa = aa;
  auto load_p = [&](int suffix, const std::string& what) -> std::optional<p_model> {
    auto p = battle_sibling(aa_path, suffix);
    auto l = load_path(ctx, p);
    if (!l) {
      warn(&ctx, code::w_unsupported_part, what + ": " + (p.empty() ? "no name" : file_name(p)) + " not found");
      return std::nullopt;
    }
    return parse_part<p_model>(&ctx, what, p, l->first, [](auto d) { return parse_p(d); });
  };
  const bool named = battle_suffix_index(aa_path) >= 0;
  if (!named && (aa.bone_count() > 0 || aa.joint_count() > 0))
    warn(&ctx, code::w_fallback, "the skeleton's name is not battle.lgp style (xxaa): part files cannot be found");
  if (aa.texture_count() > 10)
    warn(&ctx, code::w_suspicious_value, "texture count " + std::to_string(aa.texture_count()) + " exceeds the 10 texture files (xxac..xxal); using 10", 24);
  for (std::int32_t t = 0; named && t < aa.texture_count() && t < 10; ++t) {
    auto p = battle_sibling(aa_path, 2 + t);
    auto l = load_path(ctx, p);
    if (!l) {
      warn(&ctx, code::w_unsupported_part, "texture " + std::to_string(t) + ": " + file_name(p) + " not found");
      parts.textures.emplace_back();
      continue;
    }
    auto tf = parse_part<tex_file>(&ctx, "texture", p, l->first, [](auto d) { return parse_tex(d); });
    parts.textures.push_back(tf ? std::optional<texture>(tex_to_texture(*tf, file_name(p))) : std::nullopt);
  }
  if (aa.bone_count() == 0) {
    for (std::int32_t j = 0; named && j < aa.joint_count() && 12 + j < 26 * 26; ++j)
      parts.location_pieces.push_back(load_p(12 + j, "piece " + std::to_string(j)));
    return parts;
  }
  for (std::size_t i = 0; i < aa.bones.size(); ++i) {
    // Kimera's rule: bone i's model is suffix 12 + i whether or not earlier bones have one.
    if (named && aa.bones[i].has_model && 12 + i < 62)
      parts.bone_models.push_back(load_p(static_cast<int>(12 + i), "bone " + std::to_string(i) + " model"));
    else
      parts.bone_models.emplace_back();
  }
  for (std::int32_t w = 0; named && w < aa.weapon_count() && w < 16; ++w)
    parts.weapon_models.push_back(load_p(62 + w, "weapon " + std::to_string(w) + " model"));
  return parts;
}

double fps_of(const read_context& ctx, double dflt) {
  if (ctx.options.fps && *ctx.options.fps > 0 && std::isfinite(*ctx.options.fps)) return *ctx.options.fps;
  return dflt;
}
}  // namespace

scene read_battle_from_aa(const read_context& ctx) {
  auto aa = parse_aa(ctx.data);
  auto parts = gather_battle(ctx, aa, ctx.path);
  std::optional<da_pack> da;
  if (aa.bone_count() > 0 && battle_suffix_index(ctx.path) >= 0) {
    auto dp = battle_sibling(ctx.path, 78);
    if (auto l = load_path(ctx, dp)) {
      da = parse_part<da_pack>(&ctx, "animation pack", dp, l->first, [](auto d) { return parse_da(d); });
      if (da) {
        try {
          parts.animations = decode_pack(*da, aa, &ctx);
        } catch (const core::failure& f) {
          warn(&ctx, code::w_unsupported_part, "animation pack " + file_name(dp) + " skipped: " + f.error().message);
          parts.animations.clear();
        }
      }
    }
  }
  return build_battle_scene(parts, fps_of(ctx, battle_fps), &ctx);
}

scene read_battle_from_da(const read_context& ctx) {
  auto da = parse_da(ctx.data);
  auto src = load_skeleton_for_da(ctx);
  if (src.aa.bone_count() == 0)
    core::fail(code::bad_value, "skeleton " + file_name(src.path) + " is a battle location (0 bones): it has no animations", 0);
  auto parts = gather_battle(ctx, src.aa, src.path);
  parts.animations = decode_pack(da, src.aa, &ctx);
  return build_battle_scene(parts, fps_of(ctx, battle_fps), &ctx);
}

scene read_p_scene(const read_context& ctx) {
  auto p = parse_p(ctx.data);
  scene s;
  set_root_transform(s);
  std::vector<int> tex_ids;
  // Battle parts (xxam...) find their textures by the naming rule.
  int idx = battle_suffix_index(ctx.path);
  if (idx >= 12) {
    int max_tex = -1;
    for (const auto& g : p.groups)
      if (g.textured()) max_tex = std::max(max_tex, g.tex_id());
    for (int t = 0; t <= max_tex && t < 10; ++t) {
      auto tp = battle_sibling(ctx.path, 2 + t);
      tex_ids.push_back(-1);
      auto l = load_path(ctx, tp);
      if (!l) continue;
      auto tf = parse_part<tex_file>(&ctx, "texture", tp, l->first, [](auto d) { return parse_tex(d); });
      if (!tf) continue;
      s.textures.push_back(tex_to_texture(*tf, file_name(tp)));
      tex_ids.back() = static_cast<int>(s.textures.size()) - 1;
    }
  }
  add_p_meshes(s, p, fs::path(ctx.path).stem().string(), -1, -1, tex_ids);
  if (s.meshes.empty()) core::fail(code::bad_value, "P model has no polygons", 0);
  return s;
}

scene read_tex_scene(const read_context& ctx) {
  auto t = parse_tex(ctx.data);
  scene s;
  s.textures.push_back(tex_to_texture(t, file_name(ctx.path)));
  // A textured quad so the image can be looked at in any glTF viewer.
  mesh m;
  m.name = "texture_preview";
  float w = static_cast<float>(t.width()) / static_cast<float>(std::max(t.width(), t.height()));
  float h = static_cast<float>(t.height()) / static_cast<float>(std::max(t.width(), t.height()));
  m.positions = {{-w, -h, 0}, {w, -h, 0}, {w, h, 0}, {-w, h, 0}};
  m.uvs = {{0, 1}, {1, 1}, {1, 0}, {0, 0}};
  m.normals = {{0, 0, 1}, {0, 0, 1}, {0, 0, 1}, {0, 0, 1}};
  m.indices = {0, 1, 2, 0, 2, 3};
  m.material = material_for(s, 0);
  s.materials[static_cast<std::size_t>(m.material)].double_sided = true;
  s.meshes.push_back(std::move(m));
  return s;
}

// ------------------------------------------------------------------ field scene
namespace {
struct field_model {
  scene s;
  hrc_file hrc;
};

field_model build_field(const read_context& ctx, const hrc_file& hrc, const std::string& hrc_path) {
  field_model fm;
  fm.hrc = hrc;
  auto& s = fm.s;
  set_root_transform(s);
  skeleton sk;
  sk.name = hrc.name.empty() ? "ff7_field" : hrc.name;
  sk.bones.push_back(bone{"root", -1});
  std::map<std::string, int> index;
  index["root"] = 0;
  for (std::size_t i = 0; i < hrc.bones.size(); ++i) {
    const auto& hb = hrc.bones[i];
    bone b;
    b.name = hb.name;
    if (index.count(b.name)) b.name += "_" + std::to_string(i);
    auto it = index.find(hb.parent);
    if (it == index.end())
      core::fail(code::bad_value, "bone '" + hb.name + "' names parent '" + hb.parent + "', which is not an earlier bone", 0);
    b.parent = it->second;
    if (b.parent > 0) b.translation = {0, 0, -hrc.bones[static_cast<std::size_t>(b.parent - 1)].length};
    b.extras = {{"length", hb.length}, {"resources", hb.resources}};
    index[b.name] = static_cast<int>(sk.bones.size());
    index[hb.name] = static_cast<int>(sk.bones.size());
    sk.bones.push_back(b);
  }
  s.skeletons.push_back(sk);
  const std::string dir = fs::path(hrc_path).parent_path().string();
  for (std::size_t i = 0; i < hrc.bones.size(); ++i) {
    for (const auto& res : hrc.bones[i].resources) {
      auto rl = load_sibling(ctx, dir, res + ".rsd");
      if (!rl) {
        warn(&ctx, code::w_unsupported_part, "bone '" + hrc.bones[i].name + "': resource " + res + ".rsd not found");
        continue;
      }
      auto rsd = parse_part<rsd_file>(&ctx, "resource", rl->second, rl->first, [](auto d) { return parse_rsd(d); });
      if (!rsd || rsd->ply.empty()) continue;
      std::vector<int> tex_ids;
      for (const auto& tn : rsd->textures) {
        tex_ids.push_back(-1);
        auto stem = fs::path(tn).stem().string();
        auto tl = load_sibling(ctx, dir, stem + ".tex");
        if (!tl) {
          warn(&ctx, code::w_unsupported_part, "resource " + res + ": texture " + stem + ".tex not found");
          continue;
        }
        auto tf = parse_part<tex_file>(&ctx, "texture", tl->second, tl->first, [](auto d) { return parse_tex(d); });
        if (!tf) continue;
        s.textures.push_back(tex_to_texture(*tf, file_name(tl->second)));
        tex_ids.back() = static_cast<int>(s.textures.size()) - 1;
      }
      auto stem = fs::path(rsd->ply).stem().string();
      auto pl = load_sibling(ctx, dir, stem + ".p");
      if (!pl) {
        warn(&ctx, code::w_unsupported_part, "resource " + res + ": model " + stem + ".p not found");
        continue;
      }
      auto pm = parse_part<p_model>(&ctx, "model", pl->second, pl->first, [](auto d) { return parse_p(d); });
      if (pm) add_p_meshes(s, *pm, sk.bones[i + 1].name + "_" + to_lower(stem), 0, static_cast<int>(i) + 1, tex_ids);
    }
  }
  return fm;
}

quat field_rotation(const vec3& deg, const std::array<std::uint8_t, 4>& order) {
  // R = R[order0] * R[order1] * R[order2]; {1, 0, 2} is the game's Ry * Rx * Rz.
  static const vec3 axes[3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
  const float k = core::pi / 180.0f;
  quat q{0, 0, 0, 1};
  for (int i = 0; i < 3; ++i) {
    auto a = order[static_cast<std::size_t>(i)];
    q = core::multiply(q, core::axis_angle(axes[a], deg[a] * k));
  }
  return core::normalize(q);
}

vec3 field_translation(const vec3& t) { return {t[0], -t[1], t[2]}; }  // stored Y up (Kimera draws T(x, -y, z))

bool finite3(const vec3& v) { return std::isfinite(v[0]) && std::isfinite(v[1]) && std::isfinite(v[2]); }
}  // namespace

scene read_hrc_scene(const read_context& ctx) {
  auto hrc = parse_hrc(ctx.data);
  return build_field(ctx, hrc, ctx.path).s;
}

scene read_rsd_scene(const read_context& ctx) {
  auto rsd = parse_rsd(ctx.data);
  hrc_file h;
  h.name = fs::path(ctx.path).stem().string();
  h.bones.push_back(hrc_bone{"part", "root", 0, {fs::path(ctx.path).stem().string()}});
  auto fm = build_field(ctx, h, ctx.path);
  if (fm.s.meshes.empty())
    core::fail(code::unsupported_feature, "resource's model " + (rsd.ply.empty() ? std::string("(no PLY line)") : rsd.ply) +
                                              " could not be loaded next to it", 0);
  return fm.s;
}

namespace {
// Bone counts of the HRC files in a folder, cached per folder: a whole char.lgp folder holds
// thousands of animations next to hundreds of skeletons.
std::vector<std::pair<std::string, std::size_t>> hrc_bone_counts(const read_context& ctx, const std::string& dir) {
  static std::mutex m;
  static std::map<std::string, std::vector<std::pair<std::string, std::size_t>>> cache;
  // The folder's listing (a directory, or an archive's entries through the context).
  std::vector<std::string> candidates;
  for (auto& f : ctx.files_in(dir))
    if (to_lower(fs::path(f).extension().string()) == ".hrc") candidates.push_back(std::move(f));
  std::sort(candidates.begin(), candidates.end());
  std::string key = dir;
  for (const auto& c : candidates) key += "\n" + c;
  {
    std::lock_guard<std::mutex> lock(m);
    if (auto it = cache.find(key); it != cache.end()) return it->second;
  }
  std::vector<std::pair<std::string, std::size_t>> out;
  for (const auto& c : candidates) {
    auto l = load_path(ctx, c);
    if (!l) continue;
    try {
      out.emplace_back(c, parse_hrc(l->first).bones.size());
    } catch (const core::failure&) {
    }
  }
  std::lock_guard<std::mutex> lock(m);
  cache[key] = out;
  return out;
}
}  // namespace

scene read_a_scene(const read_context& ctx) {
  auto a = parse_a(ctx.data);
  std::optional<std::pair<bytes, std::string>> sk;
  if (ctx.options.skeleton_path) {
    sk = load_path(ctx, *ctx.options.skeleton_path);
  } else {
    // Field animations are not named after their skeleton: take the HRC next to the file
    // with the same bone count (the first by name when several match).
    auto dir = fs::path(ctx.path).parent_path();
    if (dir.empty()) dir = ".";
    std::vector<std::string> matching;
    if (ctx.file_exists(ctx.path))
      for (const auto& [c, n] : hrc_bone_counts(ctx, dir.string()))
        if (n == a.bone_count) matching.push_back(c);
    if (matching.size() > 1)
      warn(&ctx, code::w_pairing, std::to_string(matching.size()) + " skeletons with " + std::to_string(a.bone_count) +
                                      " bones next to the animation; using " + file_name(matching[0]) +
                                      " (pass --skeleton to choose)");
    if (!matching.empty()) sk = load_path(ctx, matching[0]);
  }
  if (!sk)
    core::fail(code::missing_skeleton, "a field animation needs its HRC skeleton (" + std::to_string(a.bone_count) +
                                           " bones): pass --skeleton PATH.hrc", 0);
  hrc_file hrc;
  try {
    hrc = parse_hrc(sk->first);
  } catch (const core::failure& f) {
    core::fail(f.error().code, "skeleton " + file_name(sk->second) + ": " + f.error().message, 0);
  }
  auto fm = build_field(ctx, hrc, sk->second);
  auto& s = fm.s;
  if (a.bone_count != hrc.bones.size())
    warn(&ctx, code::w_name_mismatch, "animation has " + std::to_string(a.bone_count) + " bones, skeleton " +
                                          file_name(sk->second) + " has " + std::to_string(hrc.bones.size()) +
                                          "; the common ones are animated", 8);
  const double fps = fps_of(ctx, field_fps);
  const std::size_t nb = std::min<std::size_t>(a.bone_count, hrc.bones.size());
  auto& bones = s.skeletons[0].bones;
  for (std::size_t f = 0; f < a.frames.size(); ++f) {
    const auto& fr = a.frames[f];
    bool ok = finite3(fr.root_rotation) && finite3(fr.root_translation);
    for (const auto& r : fr.rotations) ok = ok && finite3(r);
    if (!ok) core::fail(code::bad_value, "frame " + std::to_string(f) + " holds a non-finite value",
                        36 + f * (24 + 12ull * a.bone_count));
  }
  if (!a.frames.empty()) {
    const auto& f0 = a.frames[0];
    bones[0].translation = field_translation(f0.root_translation);
    bones[0].rotation = field_rotation(f0.root_rotation, a.order);
    for (std::size_t i = 0; i < nb; ++i) bones[i + 1].rotation = field_rotation(f0.rotations[i], a.order);
  }
  animation an;
  an.name = fs::path(ctx.path).stem().string();
  an.fps = fps;
  const auto n = a.frames.size();
  auto tr = make_track("root", path::translation, n, fps);
  auto rr = make_track("root", path::rotation, n, fps);
  std::vector<track> rot;
  for (std::size_t i = 0; i < nb; ++i) rot.push_back(make_track(bones[i + 1].name, path::rotation, n, fps));
  for (const auto& f : a.frames) {
    push(tr, field_translation(f.root_translation));
    push(rr, field_rotation(f.root_rotation, a.order));
    for (std::size_t i = 0; i < nb; ++i) push(rot[i], field_rotation(f.rotations[i], a.order));
  }
  an.tracks.push_back(std::move(tr));
  an.tracks.push_back(std::move(rr));
  for (auto& t : rot) an.tracks.push_back(std::move(t));
  an.duration = n > 1 ? an.tracks[0].times.back() : 0.0;
  an.extras = {{"frame_count", n}, {"root_motion", {"root"}}};
  if (n > 0) s.animations.push_back(std::move(an));
  return s;
}

namespace {
// The decoded DA chunks as `dump --raw` shows them (rotations as stored, 0..4095).
nlohmann::json animations_json(const std::vector<decoded_chunk>& chunks) {
  nlohmann::json anims = nlohmann::json::array();
  for (const auto& d : chunks) {
    nlohmann::json frames = nlohmann::json::array();
    for (const auto& f : d.frames) {
      nlohmann::json rots = nlohmann::json::array();
      for (const auto& t : f.rotations)
        rots.push_back({((t[0] % 4096) + 4096) % 4096, ((t[1] % 4096) + 4096) % 4096, ((t[2] % 4096) + 4096) % 4096});
      frames.push_back({{"position", {f.position[0], f.position[1], f.position[2]}}, {"rotations", rots}});
    }
    nlohmann::json a{{"index", d.index}, {"kind", std::string(to_string(d.kind))}, {"frames", frames}};
    const auto& c = *d.chunk;
    a["chunk_offset"] = c.offset;
    a["chunk_size"] = c.chunk_size;
    a["bones_field"] = c.bones_field;
    a["frames_field"] = c.frames_field;
    if (!c.special) {
      a["s_frames"] = c.s_frames;
      a["s_size"] = c.s_size;
      a["key"] = c.key;
      if (c.no_frames_field) a["missing_s_frames"] = true;
      if (d.stopped_early) a["bitstream_ended_early"] = true;
    }
    anims.push_back(std::move(a));
  }
  return {{"format", "ff7-da"}, {"animations", anims}};
}
}  // namespace

// `dump --raw` of a DA file: its frames need the paired AA, so it is decoded.
nlohmann::json da_to_json(const read_context& c) {
  auto p = parse_da(c.data);
  auto src = load_skeleton_for_da(c);
  auto j = animations_json(decode_pack(p, src.aa, &c));
  j["skeleton"] = std::filesystem::path(src.path).filename().string();
  if (!p.trailing.empty()) j["trailing_bytes"] = p.trailing.size();
  return j;
}

}  // namespace rigrip::ff7
