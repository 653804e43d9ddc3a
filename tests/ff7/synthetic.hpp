// A small synthetic battle model made only by our own writers: AA skeleton (7 bones),
// bone P parts (boxes; one bone without a model), one TEX, one weapon P, and a DA pack with
// body animations at keys 0 and 2, a special chunk, and weapon animations at key 4.
// examples/ff7/ holds exactly these bytes (test Battle.ExamplesAreOurWritersOutput).
#pragma once

#include <cmath>
#include <map>
#include <string>

#include "formats/ff7/aa.hpp"
#include "formats/ff7/anim_a.hpp"
#include "formats/ff7/da.hpp"
#include "formats/ff7/euler.hpp"
#include "formats/ff7/hrc.hpp"
#include "formats/ff7/naming.hpp"
#include "formats/ff7/p_model.hpp"
#include "formats/ff7/rsd.hpp"
#include "formats/ff7/tex.hpp"

namespace ff7test {
using namespace rigrip;
using namespace rigrip::ff7;

struct synthetic_bone {
  int parent;
  float length;
  bool model;
  float half_width;
  std::array<std::uint8_t, 4> bgra;
};

inline const std::vector<synthetic_bone>& synthetic_bones() {
  static const std::vector<synthetic_bone> b = {
      {-1, -120, true, 40, {0x30, 0x30, 0xA0, 0xFF}},  // 0 hips -> spine (up after the root turn)
      {0, -140, true, 45, {0x40, 0x90, 0x40, 0xFF}},   // 1 chest
      {1, -70, true, 30, {0x90, 0xC0, 0xE0, 0xFF}},    // 2 head (textured)
      {1, -150, true, 15, {0xA0, 0x50, 0x30, 0xFF}},   // 3 left arm
      {1, -150, false, 15, {0xA0, 0x50, 0x30, 0xFF}},  // 4 right arm: no model (suffix still counts)
      {-1, -220, true, 20, {0x20, 0x20, 0x20, 0xFF}},  // 5 left leg
      {-1, -220, true, 20, {0x20, 0x20, 0x20, 0xFF}},  // 6 right leg
  };
  return b;
}

// A box from z = 0 to z = length (bone space, the child joint direction), clockwise faces.
inline p_part box(float length, float hw, std::array<std::uint8_t, 4> bgra, bool textured) {
  p_part p;
  float z0 = 0, z1 = length;
  for (int i = 0; i < 8; ++i)
    p.positions.push_back({(i & 1) ? hw : -hw, (i & 2) ? hw : -hw, (i & 4) ? z1 : z0});
  p.colors_bgra.assign(8, bgra);
  if (textured)
    for (int i = 0; i < 8; ++i) p.uvs.push_back({(i & 1) ? 1.0f : 0.0f, (i & 2) ? 1.0f : 0.0f});
  // Quads (a, b, c, d) as two triangles each, wound so the outside faces away (game: clockwise).
  const std::uint16_t q[6][4] = {{0, 1, 3, 2}, {4, 6, 7, 5}, {0, 4, 5, 1}, {2, 3, 7, 6}, {0, 2, 6, 4}, {1, 5, 7, 3}};
  for (const auto& f : q) {
    p.triangles.push_back({f[0], f[2], f[1]});
    p.triangles.push_back({f[0], f[3], f[2]});
  }
  return p;
}

inline std::int16_t deg(double d) {
  long v = std::lround(d * 4096.0 / 360.0);
  return static_cast<std::int16_t>(((v % 4096) + 4096) % 4096);
}

// Body frame set: rest pose (spine up, legs down, arms sideways) plus motion.
inline std::vector<da_frame> body_anim(int which, int frames) {
  std::vector<da_frame> out;
  const double pi = 3.14159265358979323846;
  for (int f = 0; f < frames; ++f) {
    double t = static_cast<double>(f) / frames;
    double s = std::sin(2 * pi * t);
    da_frame fr;
    // Root 230 units above the ground (Y down: negative), bobbing; anim 1 walks along -Z.
    fr.position = {static_cast<std::int16_t>(which == 1 ? std::lround(30 * s) : 0),
                   static_cast<std::int16_t>(std::lround(-230 + 8 * s)),
                   static_cast<std::int16_t>(which == 1 ? -12 * f : 0)};
    fr.rotations.push_back({0, deg(which == 1 ? 360.0 * t : 0.0), 0});  // root: anim 1 turns a full circle (wraps)
    fr.rotations.push_back({deg(-85 + 5 * s), 0, 0});                    // hips: spine up
    fr.rotations.push_back({deg(4 * s), deg(10 * s), 0});                // chest
    fr.rotations.push_back({deg(-10 * s), deg(30 * s), 0});              // head
    fr.rotations.push_back({deg(30 * s), deg(80), deg(0)});              // left arm
    fr.rotations.push_back({deg(-30 * s), deg(-80), deg(0)});            // right arm
    fr.rotations.push_back({deg(85 + 25 * s), 0, deg(-5)});              // left leg
    fr.rotations.push_back({deg(85 - 25 * s), 0, deg(5)});               // right leg
    out.push_back(std::move(fr));
  }
  return out;
}

inline std::vector<da_frame> weapon_anim(int which, int frames) {
  std::vector<da_frame> out;
  for (int f = 0; f < frames; ++f) {
    da_frame fr;
    // In model space, near the left hand.
    fr.position = {static_cast<std::int16_t>(-150 + which * 3), static_cast<std::int16_t>(-470 + 2 * f),
                   static_cast<std::int16_t>(-20)};
    fr.rotations.push_back({deg(-60 + 3 * f), deg(10), deg(-90)});
    out.push_back(std::move(fr));
  }
  return out;
}

inline std::vector<std::uint8_t> checker_rgba(int n) {
  std::vector<std::uint8_t> px;
  for (int y = 0; y < n; ++y)
    for (int x = 0; x < n; ++x) {
      bool on = ((x / 4) + (y / 4)) % 2 == 0;
      px.insert(px.end(), {static_cast<std::uint8_t>(on ? 240 : 40), static_cast<std::uint8_t>(on ? 200 : 60),
                           static_cast<std::uint8_t>(on ? 160 : 120), 255});
    }
  return px;
}

// File name -> bytes. Model code "zz"; all names follow battle.lgp.
inline std::map<std::string, bytes> synthetic_battle_files(std::vector<std::vector<da_frame>>* anims = nullptr) {
  std::map<std::string, bytes> files;
  const auto& bones = synthetic_bones();
  aa_file aa;
  // type 2 (PC model), two "always 1" words, bones, 0, joints, textures, 3 body anims,
  // body + 2, 1 weapon, 3 weapon anims, 0, 0.
  aa.header = {2, 1, 1, static_cast<std::int32_t>(bones.size()), 0, static_cast<std::int32_t>(bones.size()), 1, 3, 5, 1, 3, 0, 0};
  for (const auto& b : bones) aa.bones.push_back(aa_bone{b.parent, b.length, b.model ? 1 : 0});
  files["zzaa"] = serialise_aa(aa);
  files["zzac"] = serialise_tex(build_tex(16, 16, checker_rgba(16)));
  for (std::size_t i = 0; i < bones.size(); ++i) {
    if (!bones[i].model) continue;
    auto name = battle_sibling("zzaa", static_cast<int>(12 + i));
    files[name] = serialise_p(build_p({box(bones[i].length, bones[i].half_width, bones[i].bgra, i == 2)}));
  }
  files[battle_sibling("zzaa", 62)] = serialise_p(build_p({box(-260, 6, {0xD0, 0xD0, 0xD0, 0xFF}, false)}));
  da_pack da;
  std::vector<std::vector<da_frame>> all = {body_anim(0, 20), body_anim(1, 30), {}, weapon_anim(0, 20),
                                            weapon_anim(1, 30), weapon_anim(2, 5)};
  const int keys[6] = {0, 2, 0, 4, 4, 4};
  for (std::size_t i = 0; i < all.size(); ++i) {
    if (all[i].empty()) {  // special chunk: 8 opaque bytes
      da_chunk c;
      c.bones_field = 0;
      c.frames_field = 0;
      c.special = true;
      c.body = {1, 0, 0, 0, 0x10, 0, 0, 0};
      c.chunk_size = 8;
      da.chunks.push_back(c);
      continue;
    }
    da.chunks.push_back(make_chunk(all[i], keys[i], i < 3 ? static_cast<std::uint32_t>(bones.size() + 1) : 1u));
    all[i] = quantise(all[i], keys[i]);
  }
  da.count = static_cast<std::uint32_t>(da.chunks.size());
  files["zzda"] = serialise_da(da);
  if (anims) *anims = all;
  return files;
}

}  // namespace ff7test
