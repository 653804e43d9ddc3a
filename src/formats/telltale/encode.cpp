// Encode: scene -> Telltale .anm/.skl. Translations are stored divided by |mLocalPos| of
// the target skeleton's entry, so writing an .anm needs that .skl (README.md, Encode).
#include "formats/telltale/encode.hpp"
#include "rigrip/extras.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <map>
#include <set>

#include "core/failure.hpp"
#include "core/math.hpp"
#include "scene/pose.hpp"
#include "formats/telltale/anm.hpp"
#include "formats/telltale/common.hpp"
#include "formats/telltale/cspk2.hpp"
#include "formats/telltale/skl.hpp"
#include "formats/telltale/symbols.hpp"

namespace rigrip::telltale {

namespace {

bool is_mover(const bone& b) {
  return b.name == mover_name || extra(b.extras, "telltale_mover", false);
}

float key_value(const track& t, std::size_t k, int c) {
  std::size_t n = static_cast<std::size_t>(components(t.path));
  std::size_t e = t.interpolation == interpolation::cubic_spline ? 3 * k + 1 : k;
  return t.values[e * n + static_cast<std::size_t>(c)];
}

skeleton_file target_skeleton(const pack_context& ctx) {
  if (!ctx.skeleton_file)
    core::fail(code::missing_skeleton, "writing .anm needs the target .skl (--skeleton x.skl): translations are stored divided by |localPos|");
  try {
    return parse_skeleton(*ctx.skeleton_file);
  } catch (core::failure& f) {
    core::fail(f.error().code, "skeleton '" + ctx.skeleton_path + "': " + f.error().message, f.error().offset);
  }
}

// The animation's tracks sorted into CSPK2 input (per skeleton entry) and the mover.
struct anm_tracks {
  std::vector<std::uint64_t> bones;  // in skeleton order
  std::vector<cspk2_track_in> tracks;
  const track* mover_rot = nullptr;
  const track* mover_pos = nullptr;
};

// Appends the keys of `t` to `tin`; translations divided by |mLocalPos| of the entry.
void append_keys(const track& t, const skl_entry& entry, cspk2_track_in& tin) {
  const auto& lp = entry.local_pos;
  float len = std::sqrt(lp[0] * lp[0] + lp[1] * lp[1] + lp[2] * lp[2]);
  for (std::size_t k = 0; k < t.times.size(); ++k) {
    if (t.path == path::rotation) {
      quat q = core::normalize(quat{key_value(t, k, 0), key_value(t, k, 1), key_value(t, k, 2), key_value(t, k, 3)});
      tin.rot_times.push_back(t.times[k]);
      tin.rotations.push_back({q[0], q[1], q[2], q[3]});
    } else {
      float inv = len > 1e-8f ? 1.0f / len : 1.0f;
      tin.pos_times.push_back(t.times[k]);
      tin.translations.push_back({key_value(t, k, 0) * inv, key_value(t, k, 1) * inv, key_value(t, k, 2) * inv});
    }
  }
}

anm_tracks collect_tracks(const scene& s, const animation& an, const skeleton_file& skl, const pack_context& ctx) {
  std::map<std::uint64_t, std::size_t> entry_of;
  for (std::size_t i = 0; i < skl.entries.size(); ++i) entry_of.emplace(skl.entries[i].joint, i);

  anm_tracks in;
  std::vector<std::uint64_t> bones;
  std::vector<cspk2_track_in> tracks;
  std::map<std::size_t, std::size_t> slot_of_entry;
  std::size_t skipped = 0, stepped = 0;
  const skeleton* ssk = an.skeleton >= 0 && static_cast<std::size_t>(an.skeleton) < s.skeletons.size() ? &s.skeletons[static_cast<std::size_t>(an.skeleton)] : nullptr;
  for (const auto& t : an.tracks) {
    int bi = ssk ? ssk->find(t.bone) : -1;
    if ((bi >= 0 && is_mover(ssk->bones[static_cast<std::size_t>(bi)])) || t.bone == mover_name) {
      if (t.path == path::rotation) in.mover_rot = &t;
      if (t.path == path::translation) in.mover_pos = &t;
      continue;
    }
    if (t.path == path::scale) {
      ++skipped;
      continue;
    }
    auto it = entry_of.find(symbol_of_label(t.bone));
    if (it == entry_of.end()) {
      ++skipped;
      continue;
    }
    if (t.interpolation == interpolation::step) ++stepped;
    auto [sl, inserted] = slot_of_entry.emplace(it->second, bones.size());
    if (inserted) {
      bones.push_back(it->first);
      tracks.emplace_back();
    }
    append_keys(t, skl.entries[it->second], tracks[sl->second]);
  }
  if (skipped) ctx.warn(code::w_missing_bone, std::to_string(skipped) + " tracks name bones missing from the skeleton (or scale tracks); not written");
  if (stepped) ctx.warn(code::w_lossy, std::to_string(stepped) + " STEP tracks are written as keys the engine interpolates linearly");
  if (bones.empty() && !in.mover_rot && !in.mover_pos) core::fail(code::bad_value, "no track of the animation matches a bone of the skeleton");
  // Order bones as the skeleton does (the engine does not need it; it reads nicer).
  std::vector<std::size_t> order(bones.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) { return entry_of[bones[x]] < entry_of[bones[y]]; });
  for (auto i : order) in.bones.push_back(bones[i]), in.tracks.push_back(tracks[i]);
  // A track must start at t = 0 (every real track does): hold the first key.
  for (auto& t : in.tracks) {
    if (!t.rot_times.empty() && t.rot_times[0] > 0) t.rot_times.insert(t.rot_times.begin(), 0.0f), t.rotations.insert(t.rotations.begin(), t.rotations[0]);
    if (!t.pos_times.empty() && t.pos_times[0] > 0) t.pos_times.insert(t.pos_times.begin(), 0.0f), t.translations.insert(t.translations.begin(), t.translations[0]);
  }
  return in;
}

// The root motion as the "absoluteNode" KeyframedValue<Transform>, one key per time
// either track has.
anm_value mover_value(const track* mover_rot, const track* mover_pos, std::uint32_t add) {
  anm_value v;
  v.kind = value_kind::kf_transform;
  v.kf_name = sym_absolute_node;
  v.kf_flags = 0x04080000u | add;
  std::set<float> times;
  for (const track* t : {mover_rot, mover_pos})
    if (t) times.insert(t->times.begin(), t->times.end());
  transform lo{{0, 0, 0, 1}, {0, 0, 0}}, hi = lo;
  bool first = true;
  for (float tm : times) {
    transform x;
    if (mover_rot) {
      auto q = scene_ops::sample(*mover_rot, tm);
      for (int c = 0; c < 4; ++c) x.rot[c] = q[static_cast<std::size_t>(c)];
    }
    if (mover_pos) {
      auto p = scene_ops::sample(*mover_pos, tm);
      for (int c = 0; c < 3; ++c) x.trans[c] = p[static_cast<std::size_t>(c)];
    }
    for (int c = 0; c < 3; ++c) {
      if (first || x.trans[c] < lo.trans[c]) lo.trans[c] = x.trans[c];
      if (first || x.trans[c] > hi.trans[c]) hi.trans[c] = x.trans[c];
    }
    first = false;
    kf_sample smp;
    smp.time_bits = std::bit_cast<std::uint32_t>(tm);
    smp.interpolate = '1';
    smp.tangent_mode = 2;
    smp.value = encode_transform(x);
    v.samples.push_back(std::move(smp));
  }
  v.min_value = encode_transform(lo);
  v.max_value = encode_transform(hi);
  return v;
}

}  // namespace

result<bytes> pack_skl(const scene& s, const pack_context& ctx) {
  return core::guarded(ctx.output_path, "telltale-skl", [&] {
    if (s.skeletons.empty()) core::fail(code::bad_value, "the scene has no skeleton to write as .skl");
    if (s.skeletons.size() > 1) ctx.warn(code::w_lossy, "the scene has " + std::to_string(s.skeletons.size()) + " skeletons; only the first is written");
    const auto& sk = s.skeletons[0];
    skeleton_file f;
    f.ms.magic = magic_msv6;
    f.ms.classes = skeleton_class_table();
    std::vector<int> new_index(sk.bones.size(), -1);
    for (std::size_t i = 0; i < sk.bones.size(); ++i) {
      const auto& b = sk.bones[i];
      if (is_mover(b)) continue;  // our own root-motion node is not a skeleton entry
      int parent = b.parent;
      while (parent >= 0 && new_index[static_cast<std::size_t>(parent)] < 0) parent = sk.bones[static_cast<std::size_t>(parent)].parent;
      skl_entry e;
      e.joint = symbol_of_label(b.name);
      e.parent_index = parent >= 0 ? new_index[static_cast<std::size_t>(parent)] : -1;
      e.parent_name = parent >= 0 ? symbol_of_label(sk.bones[static_cast<std::size_t>(parent)].name) : 0;
      e.mirror_name = 0;
      e.mirror_index = -1;
      for (int c = 0; c < 3; ++c) e.local_pos[c] = b.translation[static_cast<std::size_t>(c)], e.rest.trans[c] = b.translation[static_cast<std::size_t>(c)];
      for (int c = 0; c < 4; ++c) e.local_quat[c] = b.rotation[static_cast<std::size_t>(c)], e.rest.rot[c] = b.rotation[static_cast<std::size_t>(c)];
      if (b.scale != vec3{1, 1, 1}) ctx.warn(code::w_lossy, "bone '" + b.name + "' has a rest scale; .skl entries have none, dropped");
      new_index[i] = static_cast<int>(f.entries.size());
      f.entries.push_back(e);
    }
    if (f.entries.size() > 4096) core::fail(code::limit_exceeded, "more than 4096 bones cannot be addressed by CSPK2");
    return write_skeleton(f);
  });
}

result<bytes> pack_anm(const scene& s, const pack_context& ctx) {
  return core::guarded(ctx.output_path, "telltale-anm", [&] {
    skeleton_file skl = target_skeleton(ctx);
    if (s.animations.empty()) core::fail(code::bad_value, "the scene has no animation to write");
    if (s.animations.size() > 1)
      ctx.warn(code::w_lossy, "the scene has " + std::to_string(s.animations.size()) + " animations; only the first ('" + s.animations[0].name + "') is written");
    const auto& an = s.animations[0];
    float length = static_cast<float>(an.duration);
    anm_tracks in = collect_tracks(s, an, skl, ctx);
    bool additive = extra(an.extras, "additive", false);
    std::uint32_t add = additive ? flag_additive : 0;

    animation_file a;
    a.ms.magic = magic_msv6;
    a.ms.classes = animation_class_table();
    a.version = 5;
    a.name = crc64(file_name(ctx.output_path));
    a.length_bits = std::bit_cast<std::uint32_t>(length);
    a.tool_props = '0';
    if (!in.bones.empty()) {
      anm_value v;
      v.kind = value_kind::cspk2;
      v.cspk2 = encode_cspk2(in.bones, in.tracks, length);
      a.types.push_back({sym_cspk2, 1, 0});
      a.values.push_back(std::move(v));
      a.value_flags.push_back(0x08080200u | add);
      a.value_names.push_back(sym_skeleton_pose);
    }
    if (in.mover_rot || in.mover_pos) {
      a.types.push_back({type_symbol(value_kind::kf_transform), 1, 0});
      a.values.push_back(mover_value(in.mover_rot, in.mover_pos, add));
      a.value_flags.push_back(0x04080000u | add);
      a.value_names.push_back(sym_absolute_node);
    }
    a.num_values = static_cast<std::int32_t>(a.values.size());
    std::size_t pool = 0;
    for (const auto& v : a.values) pool += v.kind == value_kind::cspk2 ? v.cspk2.size() + 8 : 64 + 48 * v.samples.size();
    a.data_buffer_size = static_cast<std::int32_t>(pool);
    a.opaque_first_type = a.types.size();
    return write_animation(a);
  });
}

}  // namespace rigrip::telltale
