// Encode: scene -> DA pack (for an AA skeleton), scene meshes -> P, scene skeleton -> AA.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <stdexcept>

#include "rigrip/extras.hpp"
#include "core/math.hpp"
#include "formats/ff7/encode.hpp"
#include "formats/ff7/euler.hpp"
#include "formats/ff7/naming.hpp"
#include "scene/pose.hpp"

namespace rigrip::ff7 {
namespace {
void pwarn(const pack_context* ctx, code c, const std::string& m) {
  if (ctx) ctx->warn(c, m);
}

std::int16_t raw_angle(float deg) {
  double v = std::round(static_cast<double>(deg) * 4096.0 / 360.0);
  if (!std::isfinite(v)) return 0;
  long r = static_cast<long>(std::fmod(v, 4096.0));
  return static_cast<std::int16_t>(((r % 4096) + 4096) % 4096);
}

std::int16_t raw_position(float v) {
  double r = std::round(static_cast<double>(v));
  if (!std::isfinite(r)) return 0;
  return static_cast<std::int16_t>(std::clamp(r, -32768.0, 32767.0));
}

triple raw_triple(const quat& q) {
  auto e = quat_to_euler_yxz_degrees(q);
  return {raw_angle(e[0]), raw_angle(e[1]), raw_angle(e[2])};
}

struct sampler {
  const animation& a;
  const track* find(const std::string& bone, path p) const {
    for (const auto& t : a.tracks)
      if (t.bone == bone && t.path == p) return &t;
    return nullptr;
  }
  vec3 translation(const bone& b, float t) const {
    if (auto* tr = find(b.name, path::translation)) {
      auto v = scene_ops::sample(*tr, t);
      return {v[0], v[1], v[2]};
    }
    return b.translation;
  }
  quat rotation(const bone& b, float t) const {
    if (auto* tr = find(b.name, path::rotation)) {
      auto v = scene_ops::sample(*tr, t);
      return core::normalize({v[0], v[1], v[2], v[3]});
    }
    return b.rotation;
  }
};

// Every rotation has two Euler triples: (a, b, c) and (180 - a, b + 180, c + 180). Taking the
// one nearer the previous frame keeps deltas small (shorter codes) and usually recovers the
// source's own triples.
int wrapped_distance(const triple& a, const triple& b) {
  int d = 0;
  for (int i = 0; i < 3; ++i) {
    int x = (((a[static_cast<std::size_t>(i)] - b[static_cast<std::size_t>(i)]) % 4096) + 4096) % 4096;
    d += std::min(x, 4096 - x);
  }
  return d;
}
void make_continuous(std::vector<da_frame>& frames) {
  for (std::size_t f = 1; f < frames.size(); ++f)
    for (std::size_t k = 0; k < frames[f].rotations.size(); ++k) {
      auto& t = frames[f].rotations[k];
      const auto& prev = frames[f - 1].rotations[k];
      triple alt{static_cast<std::int16_t>(((2048 - t[0]) % 4096 + 4096) % 4096),
                 static_cast<std::int16_t>((t[1] + 2048) % 4096), static_cast<std::int16_t>((t[2] + 2048) % 4096)};
      if (wrapped_distance(alt, prev) < wrapped_distance(t, prev)) t = alt;
    }
}

const skeleton& battle_skeleton(const scene& s, std::size_t nb) {
  for (const auto& sk : s.skeletons)
    if (sk.find("root") >= 0 && (nb == 0 || sk.find("bone_0") >= 0)) return sk;
  core::fail(code::invalid_scene, "the scene has no skeleton with 'root' and 'bone_0' nodes (as rigrip writes for FF7 battle models)");
}
}  // namespace

scene_frames frames_from_scene(const scene& s, const aa_file& aa, double fps, const pack_context* ctx) {
  const std::size_t nb = aa.bones.size();
  if (nb == 0) core::fail(code::bad_value, "the skeleton is a battle location (0 bones): it has no animations");
  const auto& sk = battle_skeleton(s, nb);
  std::vector<int> bone_idx(nb);
  for (std::size_t i = 0; i < nb; ++i) {
    bone_idx[i] = sk.find("bone_" + std::to_string(i));
    if (bone_idx[i] < 0) core::fail(code::invalid_scene, "the scene's skeleton has no node bone_" + std::to_string(i) +
                                                              " but the AA has " + std::to_string(nb) + " bones");
  }
  const int root = sk.find("root");
  const int weapon = sk.find("weapon_0");
  const bool want_weapon = aa.weapon_anim_count() > 0;
  if (want_weapon && weapon < 0)
    pwarn(ctx, code::w_fallback, "no weapon_0 node: weapon animations are written as one still frame at the origin");
  scene_frames out;
  auto sample_one = [&](const animation& a, std::size_t n, std::vector<da_frame>& body, std::vector<da_frame>& wpn) {
    sampler sm{a};
    for (std::size_t f = 0; f < n; ++f) {
      const float t = static_cast<float>(static_cast<double>(f) / fps);
      da_frame fr;
      auto p = sm.translation(sk.bones[static_cast<std::size_t>(root)], t);
      fr.position = {raw_position(p[0]), raw_position(p[1]), raw_position(p[2])};
      auto rr = sm.rotation(sk.bones[static_cast<std::size_t>(root)], t);
      if (nb > 1) {
        fr.rotations.push_back(raw_triple(rr));
        for (std::size_t i = 0; i < nb; ++i) fr.rotations.push_back(raw_triple(sm.rotation(sk.bones[static_cast<std::size_t>(bone_idx[i])], t)));
      } else {  // one triple: the root's and the bone's turns combined
        fr.rotations.push_back(raw_triple(core::multiply(rr, sm.rotation(sk.bones[static_cast<std::size_t>(bone_idx[0])], t))));
      }
      body.push_back(std::move(fr));
      if (want_weapon) {
        da_frame wf;
        if (weapon >= 0) {
          const auto& wb = sk.bones[static_cast<std::size_t>(weapon)];
          auto wp = sm.translation(wb, t);
          wf.position = {raw_position(wp[0]), raw_position(wp[1]), raw_position(wp[2])};
          wf.rotations.push_back(raw_triple(sm.rotation(wb, t)));
        } else {
          wf.rotations.push_back({0, 0, 0});
        }
        wpn.push_back(std::move(wf));
      }
    }
  };
  {
    animation still;
    std::vector<da_frame> w;
    sample_one(still, 1, out.rest_body, w);
    out.rest_weapon = w.empty() ? std::vector<da_frame>{da_frame{{0, 0, 0}, {{0, 0, 0}}}} : w;
  }
  for (const auto& a : s.animations) {
    if (&s.skeletons[static_cast<std::size_t>(a.skeleton)] != &sk) continue;
    const auto n = static_cast<std::size_t>(std::max(0.0, std::round(a.duration * fps))) + 1;
    if (n > 0xFFFF) core::fail(code::limit_exceeded, "animation '" + a.name + "' has more than 65535 frames at this rate");
    std::vector<da_frame> body, wpn;
    sample_one(a, n, body, wpn);
    make_continuous(body);
    make_continuous(wpn);
    out.body.push_back(std::move(body));
    if (want_weapon) out.weapon.push_back(std::move(wpn));
    out.names.push_back(a.name);
    std::optional<std::size_t> idx;
    if (a.extras.is_object() && a.extras.contains("ff7_index") && a.extras["ff7_index"].is_number_unsigned())
      idx = a.extras["ff7_index"].get<std::size_t>();
    else if (unsigned v = 0; std::sscanf(a.name.c_str(), "anim_%u", &v) == 1)
      idx = v;
    out.indices.push_back(idx);
  }
  if (out.body.empty()) core::fail(code::invalid_scene, "the scene has no animation for the battle skeleton");
  return out;
}

namespace {
const nlohmann::json* ff7_metadata(const scene& s) {
  if (s.metadata.contains("ff7") && s.metadata["ff7"].is_object()) return &s.metadata["ff7"];
  if (s.metadata.contains("source_metadata") && s.metadata["source_metadata"].is_object() &&
      s.metadata["source_metadata"].contains("ff7") && s.metadata["source_metadata"]["ff7"].is_object())
    return &s.metadata["source_metadata"]["ff7"];
  return nullptr;
}

// Chunks kept verbatim by the reader (special chunks, orphan weapon chunks), by DA index.
std::map<std::size_t, da_chunk> raw_chunks(const scene& s, const pack_context* ctx) {
  std::map<std::size_t, da_chunk> out;
  const auto* m = ff7_metadata(s);
  if (!m || !m->contains("raw_chunks") || !(*m)["raw_chunks"].is_array()) return out;
  for (const auto& j : (*m)["raw_chunks"]) {
    try {
      da_chunk c;
      auto idx = j.at("index").get<std::size_t>();
      c.bones_field = j.at("bones_field").get<std::uint32_t>();
      c.frames_field = j.at("frames_field").get<std::uint32_t>();
      auto hex = j.at("body_hex").get<std::string>();
      if (hex.size() % 2 || hex.size() > 2 * 65536) throw std::invalid_argument("odd length");
      for (std::size_t i = 0; i < hex.size(); i += 2) c.body.push_back(static_cast<std::uint8_t>(std::stoul(hex.substr(i, 2), nullptr, 16)));
      c.chunk_size = static_cast<std::uint32_t>(c.body.size());
      c.special = c.chunk_size < 11;
      out[idx] = std::move(c);
    } catch (const std::exception&) {
      pwarn(ctx, code::w_fallback, "a stored raw DA chunk in the metadata is malformed and was skipped");
    }
  }
  return out;
}
}  // namespace

bytes pack_da(const scene& s, const aa_file& aa, double fps, const pack_context* ctx, std::vector<int>* keys_used) {
  auto fr = frames_from_scene(s, aa, fps, ctx);
  auto raw = raw_chunks(s, ctx);
  // Body slots: animations keep their DA index (extras.ff7_index or the name anim_NNN);
  // animations without one take the next free slots.
  std::map<std::size_t, std::size_t> slot_of;  // DA body index -> scene animation
  std::vector<std::size_t> unplaced;
  for (std::size_t i = 0; i < fr.body.size(); ++i) {
    auto ix = fr.indices[i];
    if (ix && *ix < 0xFFFF && !slot_of.count(*ix)) slot_of[*ix] = i;
    else unplaced.push_back(i);
  }
  std::size_t next = 0;
  for (auto i : unplaced) {
    while (slot_of.count(next) || (raw.count(next) && raw[next].special)) ++next;
    slot_of[next] = i;
  }
  std::size_t body_count = static_cast<std::size_t>(std::max(0, aa.body_anim_count()));
  if (!slot_of.empty()) body_count = std::max(body_count, slot_of.rbegin()->first + 1);
  const std::size_t weapon_count = static_cast<std::size_t>(std::max(0, aa.weapon_anim_count()));
  da_pack p;
  auto add = [&](const std::vector<da_frame>& frames, std::uint32_t bones_field) {
    auto choice = choose_key(frames);
    p.chunks.push_back(make_chunk(frames, choice.key, bones_field));
    if (keys_used) keys_used->push_back(choice.key);
  };
  std::size_t stills = 0;
  for (std::size_t b = 0; b < body_count; ++b) {
    if (auto it = slot_of.find(b); it != slot_of.end()) add(fr.body[it->second], static_cast<std::uint32_t>(aa.body_rotations()));
    else if (raw.count(b)) p.chunks.push_back(raw[b]);
    else add(fr.rest_body, static_cast<std::uint32_t>(aa.body_rotations())), ++stills;
  }
  for (std::size_t w = 0; w < weapon_count; ++w) {
    const std::size_t da_index = body_count + w;
    if (auto it = slot_of.find(w); it != slot_of.end() && it->second < fr.weapon.size()) add(fr.weapon[it->second], 1);
    else if (raw.count(da_index)) p.chunks.push_back(raw[da_index]);
    else add(fr.rest_weapon, 1), ++stills;
  }
  if (stills)
    pwarn(ctx, code::w_fallback, std::to_string(stills) + " animation slot(s) the AA lists had no glTF animation: written as one still frame");
  p.count = static_cast<std::uint32_t>(p.chunks.size());
  if (static_cast<std::size_t>(aa.body_anim_count()) != body_count)
    pwarn(ctx, code::w_name_mismatch,
          "the AA header lists " + std::to_string(aa.body_anim_count()) + " body animations; the pack has " +
              std::to_string(body_count) + " (update AA header word 7 to match)");
  return serialise_da(p);
}

bytes pack_p(const scene& s, const pack_context* ctx) {
  std::vector<p_part> parts;
  for (const auto& m : s.meshes) {
    if (m.positions.size() > 0xFFFF) core::fail(code::limit_exceeded, "mesh '" + m.name + "' has more than 65535 vertices");
    p_part part;
    part.positions = m.positions;
    for (std::size_t i = 0; i < m.positions.size(); ++i) {
      if (i < m.colors.size()) {
        auto enc = [](float c) {
          c = std::clamp(c, 0.0f, 1.0f);
          float sr = c <= 0.0031308f ? c * 12.92f : 1.055f * std::pow(c, 1 / 2.4f) - 0.055f;
          return static_cast<std::uint8_t>(std::lround(sr * 255.0f));
        };
        const auto& c = m.colors[i];
        part.colors_bgra.push_back({enc(c[2]), enc(c[1]), enc(c[0]), static_cast<std::uint8_t>(std::lround(std::clamp(c[3], 0.0f, 1.0f) * 255))});
      }
    }
    if (part.colors_bgra.size() != part.positions.size()) part.colors_bgra.clear();
    const material* mat = m.material >= 0 ? &s.materials[static_cast<std::size_t>(m.material)] : nullptr;
    if (mat && mat->texture >= 0 && !m.uvs.empty()) {
      part.uvs = m.uvs;
      part.tex_id = mat->texture;
    }
    std::vector<std::uint32_t> idx = m.indices;
    if (idx.empty())
      for (std::uint32_t i = 0; i < m.positions.size(); ++i) idx.push_back(i);
    for (std::size_t i = 0; i + 2 < idx.size(); i += 3)  // back to the game's clockwise winding
      part.triangles.push_back({static_cast<std::uint16_t>(idx[i]), static_cast<std::uint16_t>(idx[i + 2]),
                                static_cast<std::uint16_t>(idx[i + 1])});
    parts.push_back(std::move(part));
  }
  if (parts.empty()) core::fail(code::invalid_scene, "the scene has no mesh to write as a P model");
  if (s.meshes.size() > 1) pwarn(ctx, code::w_lossy, "all meshes go into one P model (one polygon group each); bone bindings are dropped");
  return serialise_p(build_p(parts));
}

bytes pack_aa(const scene& s, const pack_context* ctx) {
  if (s.skeletons.empty()) core::fail(code::invalid_scene, "the scene has no skeleton to write as an AA file");
  const auto& sk = s.skeletons[0];
  aa_file aa;
  std::vector<int> map(sk.bones.size(), -1);
  for (std::size_t i = 0; i < sk.bones.size(); ++i) {
    const auto& b = sk.bones[i];
    if (b.name == "root" || b.name.rfind("weapon_", 0) == 0) continue;
    map[i] = static_cast<int>(aa.bones.size());
    aa_bone ab;
    int p = b.parent;
    while (p >= 0 && map[static_cast<std::size_t>(p)] < 0) p = sk.bones[static_cast<std::size_t>(p)].parent;
    ab.parent = p >= 0 ? map[static_cast<std::size_t>(p)] : -1;
    ab.length = extra(b.extras, "length", 0.0f);
    if (!(b.extras.is_object() && b.extras.contains("length"))) {
      // Without the stored length, take the distance to the first child (negative: battle convention).
      for (std::size_t c = i + 1; c < sk.bones.size(); ++c)
        if (sk.bones[c].parent == static_cast<int>(i)) {
          const auto& t = sk.bones[c].translation;
          ab.length = -std::sqrt(t[0] * t[0] + t[1] * t[1] + t[2] * t[2]);
          break;
        }
    }
    ab.has_model = 0;
    for (const auto& m : s.meshes)
      if (m.skeleton == 0 && m.bone == static_cast<int>(i)) ab.has_model = 1;
    aa.bones.push_back(ab);
  }
  int weapons = 0;
  for (const auto& b : sk.bones) weapons += b.name.rfind("weapon_", 0) == 0;
  const auto& meta = s.metadata;
  if (meta.contains("ff7") && meta["ff7"].contains("aa_header") && meta["ff7"]["aa_header"].is_array() &&
      meta["ff7"]["aa_header"].size() == 13) {
    for (std::size_t i = 0; i < 13; ++i) aa.header[i] = meta["ff7"]["aa_header"][i].get<std::int32_t>();
  } else {
    auto n = static_cast<std::int32_t>(s.animations.size());
    aa.header = {weapons ? 2 : 0, 1, 1, 0, 0, static_cast<std::int32_t>(aa.bones.size()),
                 static_cast<std::int32_t>(s.textures.size()), n, n + 2, weapons, weapons ? n : 0, 0, 0};
    pwarn(ctx, code::w_fallback, "no stored AA header: header words written from the scene's counts");
  }
  aa.header[3] = static_cast<std::int32_t>(aa.bones.size());
  return serialise_aa(aa);
}

result<bytes> pack_da_entry(const scene& s, const pack_context& c) {
  std::optional<bytes> skeleton = c.skeleton_file;
  std::string skeleton_path = c.skeleton_path;
  // Without --skeleton: the AA the output pairs with by name (rtda -> rtaa), next to the
  // output or, with `pack --into`, in the archive.
  const std::string paired = da_skeleton_path(c.output_path);
  if (!skeleton && c.load && !paired.empty())
    if (auto r = c.load(paired)) {
      skeleton = std::move(r.value());
      skeleton_path = paired;
    }
  if (!skeleton)
    return make_error(code::missing_skeleton,
                      "writing a DA pack needs the AA skeleton: pass --skeleton rtaa (the xxaa file)" +
                          (paired.empty() ? std::string() : ", or have " + paired + " next to the output"));
  aa_file aa;
  try {
    aa = parse_aa(*skeleton);
  } catch (const core::failure& f) {
    auto e = f.error();
    e.file = skeleton_path;
    e.format = "ff7-aa";
    return e;
  }
  return pack_da(s, aa, c.fps && *c.fps > 0 ? *c.fps : battle_fps, &c);
}

}  // namespace rigrip::ff7
