// Decode: Telltale .anm/.skl -> scene. Policy (README.md): rotation keys are the bone's
// local rotation; translation keys are normalised and scale by |mLocalPos|; LINEAR; the
// "absoluteNode" track is root motion on its own root node; "root" duplicates CSPK2
// bone 0 and is only used when the CSPK2 timeline is broken.
#include "formats/telltale/decode.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <map>
#include <set>
#include <span>
#include <string_view>

#include "core/byte_reader.hpp"
#include "core/failure.hpp"
#include "core/folder.hpp"
#include "core/math.hpp"
#include "formats/telltale/anm.hpp"
#include "formats/telltale/common.hpp"
#include "formats/telltale/cspk2.hpp"
#include "formats/telltale/skl.hpp"
#include "formats/telltale/symbols.hpp"
#include "formats/telltale/track_keys.hpp"

namespace rigrip::telltale {

using nlohmann::json;
namespace fs = std::filesystem;

namespace detail {

// Clamps to [0, length], sorts (stable) and keeps the last value of each run of equal
// times, as the notes recommend; reports what it changed. In place: CSPK2 keys of one
// track arrive in time order, so the sort is skipped when they already are. Returns how
// many keys are kept (at the front of `k`).
std::size_t clean_keys(std::span<key3> k, float length, std::size_t& dupes, std::size_t& clamped) {
  for (auto& x : k) {
    float c = std::isfinite(x.t) ? std::clamp(x.t, 0.0f, std::max(length, 0.0f)) : 0.0f;
    if (c != x.t) ++clamped;
    x.t = c;
  }
  auto by_time = [](const key3& a, const key3& b) { return a.t < b.t; };
  if (!std::is_sorted(k.begin(), k.end(), by_time)) std::stable_sort(k.begin(), k.end(), by_time);
  std::size_t w = 0;
  for (const auto& x : k) {
    if (w > 0 && k[w - 1].t == x.t) {
      k[w - 1] = x;
      ++dupes;
    } else {
      k[w++] = x;
    }
  }
  return w;
}
track make_track(const std::string& bone, path p, std::span<const key3> keys, float scale) {
  track t;
  t.bone = bone;
  t.path = p;
  t.interpolation = interpolation::linear;
  t.times.reserve(keys.size());
  t.values.reserve(keys.size() * (p == path::rotation ? 4 : 3));
  for (const auto& k : keys) {
    t.times.push_back(k.t);
    if (p == path::rotation) {
      // core::normalize inlined (the same operations, so the same floats): a call per key
      // was a measurable part of the decode.
      const float n = std::sqrt(k.v[0] * k.v[0] + k.v[1] * k.v[1] + k.v[2] * k.v[2] + k.v[3] * k.v[3]);
      if (!(n > 1e-12f) || !std::isfinite(n)) t.values.insert(t.values.end(), {0.0f, 0.0f, 0.0f, 1.0f});
      else t.values.insert(t.values.end(), {k.v[0] / n, k.v[1] / n, k.v[2] / n, k.v[3] / n});
    } else {
      for (int i = 0; i < 3; ++i) t.values.push_back(k.v[i] * scale);
    }
  }
  if (p == path::rotation) core::make_hemisphere_continuous(t.values);
  return t;
}

}  // namespace detail

namespace {

using namespace detail;

void clean_keys(std::vector<key3>& k, float length, std::size_t& dupes, std::size_t& clamped) {
  k.resize(clean_keys(std::span<key3>(k), length, dupes, clamped));
}

// Is the CSPK2 time base plausible? Either the length, 0 (static pose) or 65535/fps.
bool time_range_ok(float rt, float length, std::optional<double>* fps) {
  if (!std::isfinite(rt) || rt < 0) return false;
  if (rt == 0) return true;
  if (std::fabs(rt - length) <= 1e-3f * std::max(1.0f, length)) return true;
  double f = 65535.0 / rt;
  double r = std::round(f);
  if (f >= 1.0 && f <= 1000.0 && std::fabs(f - r) <= 0.01 * r) {
    if (fps) *fps = r;
    return true;
  }
  return false;
}

struct loaded_skeleton {
  skeleton_file file;
  std::string path;
};

std::optional<loaded_skeleton> find_skeleton(const read_context& ctx) {
  std::string p;
  if (ctx.options.skeleton_path) {
    p = *ctx.options.skeleton_path;
  } else {
    std::string note;
    p = pair_skeleton(ctx.path, &note);
    if (!note.empty()) ctx.warn(code::w_pairing, note);
    if (p.empty()) return std::nullopt;
  }
  loaded_skeleton s;
  s.file = load_skeleton(ctx, p);
  s.path = p;
  return s;
}

}  // namespace

skeleton_file load_skeleton(const read_context& ctx, const std::string& p) {
  if (!ctx.load) core::fail(code::missing_skeleton, "cannot load skeleton '" + p + "': no file access");
  auto b = ctx.load(p);
  if (!b) core::fail(code::missing_skeleton, "cannot load skeleton '" + p + "': " + b.error().message);
  try {
    return parse_skeleton(b.value());
  } catch (core::failure& f) {
    auto e = f.error();
    core::fail(e.code, "skeleton '" + p + "' @ " + core::byte_reader::hex(e.offset) + ": " + e.message, e.offset);
  }
}

skeleton skeleton_from_file(const skeleton_file& f, const std::string& name, const read_context* ctx) {
  skeleton sk;
  sk.name = name;
  std::size_t fixed = 0, parent_mismatch = 0;
  for (std::size_t i = 0; i < f.entries.size(); ++i) {
    const auto& e = f.entries[i];
    bone b;
    b.name = symbol_label(e.joint);
    b.parent = e.parent_index;
    b.translation = {e.local_pos[0], e.local_pos[1], e.local_pos[2]};
    quat q{e.local_quat[0], e.local_quat[1], e.local_quat[2], e.local_quat[3]};
    float n = std::sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    if (!core::finite(q) || !(n > 1e-6f)) {
      q = {0, 0, 0, 1};
      ++fixed;
    }
    b.rotation = core::normalize(q);
    if (!core::finite(b.translation)) b.translation = {0, 0, 0}, ++fixed;
    b.extras = json{{"symbol", hex16(e.joint)},
                    {"mirror", symbol_label(e.mirror_name)},
                    {"mirror_index", e.mirror_index},
                    {"flags", e.flags},
                    {"bone_type", e.bone_type},
                    {"rest_rotation", e.rest.rot},
                    {"rest_translation", e.rest.trans},
                    {"anim_translation_scale", e.anim_translation_scale}};
    if (e.parent_index >= 0 && f.entries[static_cast<std::size_t>(e.parent_index)].joint != e.parent_name) ++parent_mismatch;
    sk.bones.push_back(std::move(b));
  }
  // Duplicate joint symbols would give duplicate names; make them unique.
  std::set<std::string> seen;
  for (std::size_t i = 0; i < sk.bones.size(); ++i)
    if (!seen.insert(sk.bones[i].name).second) sk.bones[i].name += "_" + std::to_string(i);
  if (parent_mismatch && ctx)
    ctx->warn(code::w_name_mismatch, std::to_string(parent_mismatch) +
                                          " skeleton entries name a parent symbol that is not the joint at their parent index; the index is used");
  if (fixed && ctx)
    ctx->warn(code::w_suspicious_value, std::to_string(fixed) + " skeleton entries had a non-finite or zero local transform; reset to identity");
  return sk;
}

namespace {

const anm_value_view* find_kf(const animation_view& a, std::uint64_t name, value_kind k) {
  for (std::size_t i = 0; i < a.values.size(); ++i)
    if (a.values[i].kind == k && (a.values[i].kf_name == name || (i < a.value_names.size() && a.value_names[i] == name)))
      return &a.values[i];
  return nullptr;
}

std::vector<key3> kf_transform_keys(const anm_value_view& v, bool rotation) {
  std::vector<key3> out;
  for (const auto& s : v.samples) {
    auto t = decode_transform(s.value);
    key3 k{s.time(), {}};
    if (rotation) k.v = {t.rot[0], t.rot[1], t.rot[2], t.rot[3]};
    else k.v = {t.trans[0], t.trans[1], t.trans[2], 0};
    if (!std::isfinite(k.t)) continue;
    out.push_back(k);
  }
  return out;
}

// ------------------------------------------------------------------ .anm pieces

// What the .anm header says about the animation; fills the `info` metadata.
struct anm_info {
  std::string name;
  float length = 0;
  bool additive = false;
};

anm_info describe_animation(const animation_view& a, const read_context& ctx, scene& s) {
  anm_info info;
  std::string fname = file_name(ctx.path);
  bool name_match = crc64(fname) == a.name;
  info.name = name_match ? fs::path(fname).stem().string() : symbol_label(a.name);
  info.length = a.length();
  if (!std::isfinite(info.length) || info.length < 0) {
    ctx.warn(code::w_suspicious_value, "mLength is " + std::to_string(info.length) + "; using 0");
    info.length = 0;
  }
  for (auto f : a.value_flags) info.additive |= (f & flag_additive) != 0;
  s.metadata["animation_name"] = info.name;
  s.metadata["name_symbol"] = hex16(a.name);
  s.metadata["name_symbol_matches_file_name"] = name_match;
  s.metadata["stream"] = stream_version_name(a.ms.magic).value_or("?");
  s.metadata["length"] = info.length;
  s.metadata["additive"] = info.additive;
  s.metadata["values"] = values_to_json(a);
  if (!name_match)
    ctx.warn(code::w_name_mismatch, "mName " + hex16(a.name) + " is not crc64('" + lower(fname) + "') = " + hex16(crc64(fname)));
  if (!a.opaque_bodies.empty())
    ctx.warn(code::w_opaque_data, std::to_string(a.opaque_bodies.size()) + " bytes of values from type " +
                                      hex16(a.types[a.opaque_first_type].type) + " on are of unknown types; kept opaque",
             a.opaque_offset);
  return info;
}

// Lip-sync and property tracks have no glTF equivalent; list them.
void list_non_bone_tracks(const animation_view& a, const read_context& ctx, scene& s) {
  json phon = json::array();
  for (std::size_t i = 0; i < a.values.size(); ++i) {
    const auto& v = a.values[i];
    if (v.kind == value_kind::cspk2 || v.kind == value_kind::kf_transform) continue;
    // Objects filled by emplace and arrays moved in: json's initializer lists copy every
    // element (the whole key array, per track).
    json keys = json::array();
    keys.get_ref<json::array_t&>().reserve(v.samples.size());
    for (const auto& smp : v.samples) {
      json::object_t k;
      k.emplace("time", smp.time());
      core::byte_reader r(smp.value);
      if (v.kind == value_kind::kf_phoneme && smp.value.size() >= 28) {
        r.skip(4);
        k.emplace("phoneme", symbol_label(r.u64()));
        k.emplace("fade_in", r.f32());
        k.emplace("hold", r.f32());
        k.emplace("fade_out", r.f32());
        k.emplace("contribution", r.f32());
      } else if (v.kind == value_kind::kf_float) {
        k.emplace("value", r.f32());
      } else if (v.kind == value_kind::kf_bool) {
        k.emplace("value", smp.value[0] == '1');
      }
      keys.push_back(json(std::move(k)));
    }
    json::object_t t;
    t.emplace("name", value_label(v.kf_name));
    t.emplace("type", kind_name(v.kind));
    t.emplace("keys", std::move(keys));
    phon.push_back(json(std::move(t)));
  }
  if (!phon.empty()) {
    const std::size_t n = phon.size();
    s.metadata["non_bone_tracks"] = std::move(phon);
    ctx.warn(code::w_unsupported_part, std::to_string(n) +
                                           " non-bone track(s) (lip-sync PhonemeKey / float / bool) are listed in metadata.non_bone_tracks; glTF has no place for them");
  }
}

// The CSPK2 pose value decoded, with its time base checked.
struct pose_keys {
  const anm_value_view* value = nullptr;  // null: the file has no CSPK2 value
  cspk2_tracks d;
  std::uint64_t offset = 0;
  bool broken = false;  // rangeTime is neither mLength, 0 nor 65535/fps
  std::optional<double> fps;
  bool finished = false;  // d's tracks already finished (decode_cspk2_finished): only scaling left
};

pose_keys decode_pose(const anm_value_view* pose, float length, const read_context& ctx) {
  pose_keys p;
  p.value = pose;
  if (!pose) return p;
  p.offset = pose->offset;
  // Keys finished as they are decoded; a file with a track out of time order (never seen in
  // real files) is decoded again plainly and finished by finish_track's sorting path.
  if (cspk2_finished f = decode_cspk2_finished(pose->cspk2, p.offset, length); f.in_order) {
    p.d = std::move(f.d);
    p.finished = true;
  } else {
    p.d = decode_cspk2_tracks(pose->cspk2, p.offset);
  }
  if (p.d.sample_bytes_consumed != p.d.header.sample_data_size)
    ctx.warn(code::w_trailing_data, "CSPK2 commands used " + std::to_string(p.d.sample_bytes_consumed) + " of " +
                                        std::to_string(p.d.header.sample_data_size) + " sample bytes", p.offset + 96 + p.d.sample_bytes_consumed);
  p.broken = !time_range_ok(p.d.header.range_time, length, &p.fps);
  return p;
}

// The scene skeleton the animation plays on, and where each CSPK2 bone lands in it.
struct anm_rig {
  skeleton sk;
  std::vector<int> bone_of;  // CSPK2 bone -> scene bone (-1: not in the skeleton)
  std::vector<float> scale;  // CSPK2 bone -> |mLocalPos| its translations scale by
};

// CSPK2 bones matched to the .skl entries by symbol, never by index.
anm_rig rig_from_skl(const loaded_skeleton& skl, const cspk2_tracks& d, const read_context& ctx) {
  anm_rig rig{skeleton_from_file(skl.file, fs::path(skl.path).stem().string(), &ctx), std::vector<int>(d.bones.size(), -1),
              std::vector<float>(d.bones.size(), 1.0f)};
  std::map<std::uint64_t, int> by_sym;
  for (std::size_t i = 0; i < skl.file.entries.size(); ++i) by_sym.emplace(skl.file.entries[i].joint, static_cast<int>(i));
  std::size_t missing = 0;
  std::string first_missing;
  for (std::size_t i = 0; i < d.bones.size(); ++i) {
    auto it = by_sym.find(d.bones[i]);
    if (it == by_sym.end()) {
      if (!missing++) first_missing = symbol_label(d.bones[i]);
      continue;
    }
    rig.bone_of[i] = it->second;
    const auto& lp = skl.file.entries[static_cast<std::size_t>(it->second)].local_pos;
    float len = std::sqrt(lp[0] * lp[0] + lp[1] * lp[1] + lp[2] * lp[2]);
    rig.scale[i] = std::isfinite(len) ? len : 0.0f;
  }
  // A rig that binds less than half of the animated bones is almost surely the wrong one:
  // the result would look like a success and be nonsense.
  if (missing * 2 > d.bones.size() && !ctx.options.force)
    core::fail(code::missing_skeleton,
               "skeleton '" + skl.path + "' binds only " + std::to_string(d.bones.size() - missing) + " of " +
                   std::to_string(d.bones.size()) + " animated bones (" + std::to_string(missing) +
                   " are not in it, first: " + first_missing + "): probably the wrong skeleton; --force converts anyway",
               0);
  if (missing)
    ctx.warn(code::w_missing_bone, std::to_string(missing) + " of " + std::to_string(d.bones.size()) +
                                       " animated bones are not in skeleton '" + skl.path + "' (first: " + first_missing + "); their tracks are skipped");
  return rig;
}

// No skeleton: one unparented node per CSPK2 bone, named from its symbol.
anm_rig rig_from_symbols(const pose_keys& pose, const std::string& name, const read_context& ctx) {
  const auto& d = pose.d;
  anm_rig rig{{}, std::vector<int>(d.bones.size(), -1), std::vector<float>(d.bones.size(), 1.0f)};
  rig.sk.name = name;
  rig.sk.bones.reserve(d.bones.size() + 1);  // + the mover root add_mover_root may insert
  for (std::size_t i = 0; i < d.bones.size(); ++i) {
    bone& b = rig.sk.bones.emplace_back();
    // The hex digits made once: they are the symbol, and the name of an unknown bone.
    std::string hex = hex16(d.bones[i]);
    if (auto known = symbol_name(d.bones[i])) b.name = std::move(*known);
    else b.name = hex;
    // The one-key object built directly: json's initializer-list constructor copies
    // and inspects every element, a large share of this per-bone loop.
    json::object_t extras;
    extras.emplace("symbol", std::move(hex));
    b.extras = std::move(extras);
    rig.bone_of[i] = static_cast<int>(i);
  }
  if (pose.value)
    ctx.warn(code::w_pairing, "no skeleton: " + std::to_string(d.bones.size()) +
                                  " unparented nodes named from the bone symbols; translations are the normalised (unscaled) values");
  return rig;
}

// The mover becomes a separate root (bone 0) above the skeleton's roots.
void add_mover_root(anm_rig& rig) {
  bone m;
  m.name = mover_name;
  while (rig.sk.find(m.name) >= 0) m.name += "_";
  m.extras = json{{"telltale_mover", true}};
  for (auto& b : rig.sk.bones) b.parent = b.parent < 0 ? 0 : b.parent + 1;
  rig.sk.bones.insert(rig.sk.bones.begin(), m);
  for (auto& x : rig.bone_of)
    if (x >= 0) ++x;
}

animation make_animation(const anm_info& info, const pose_keys& pose, const skeleton* mover_of) {
  animation an;
  an.name = info.name;
  an.duration = info.length;
  an.fps = pose.fps;
  an.extras["additive"] = info.additive;
  if (info.additive)
    an.extras["additive_note"] = "tracks are deltas from identity/zero to be layered on a base animation, not a pose";
  if (mover_of) an.extras["root_motion"] = json::array({mover_of->bones[0].name});
  an.extras["interpolation_policy"] = "LINEAR (the engine interpolates between CSPK2 keys)";
  return an;
}

// Broken time range: bone 0 takes the "root" keyframed track when the file has one.
// Returns whether bone 0's keys were replaced (then in root_rot / root_pos).
bool repair_broken_time_range(const animation_view& a, const pose_keys& pose, float length, std::vector<key3>& root_rot,
                              std::vector<key3>& root_pos, animation& an, const read_context& ctx) {
  const auto& d = pose.d;
  std::vector<bool> seen(65536);  // distinct 16-bit times, without a node per time
  std::size_t n_distinct = 0;
  const std::uint8_t* words = pose.value->cspk2.data() + d.command_at;  // every command was decoded: one key each
  for (std::size_t ci = 0; ci < d.commands; ++ci) {
    const std::size_t t16 = words[4 * ci] | std::size_t{words[4 * ci + 1]} << 8;
    if (!seen[t16]) {
      seen[t16] = true;
      ++n_distinct;
    }
  }
  std::string msg = "CSPK2 rangeTime " + std::to_string(d.header.range_time) + " is neither mLength (" + std::to_string(length) +
                    ") nor 65535/fps; its " + std::to_string(d.commands) + " keys fall on " + std::to_string(n_distinct) +
                    " time points. Times clamped to [0, mLength], equal times keep the last value";
  const anm_value_view* root = find_kf(a, sym_root, value_kind::kf_transform);
  const bool replaced = root && !d.bones.empty() && !root->samples.empty();
  if (replaced) {
    root_rot = kf_transform_keys(*root, true);
    root_pos = kf_transform_keys(*root, false);
    msg += "; bone 0 (" + symbol_label(d.bones[0]) + ") uses the 'root' keyframed track (" + std::to_string(root->samples.size()) + " keys) instead";
  }
  ctx.warn(code::w_suspicious_value, msg, pose.offset + 0x48);
  an.extras["broken_time_range"] = d.header.range_time;
  return replaced;
}

}  // namespace

namespace detail {

namespace {
// A linear track that takes over k's key arrays.
track linear_track(const std::string& bone, path p, cspk2_track_keys& k) {
  track tr;
  tr.bone = bone;
  tr.path = p;
  tr.interpolation = interpolation::linear;
  tr.times = std::move(k.times);
  tr.values = std::move(k.values);
  return tr;
}
}  // namespace

// One CSPK2 track finished in its own arrays (which become the track's): clean_keys and
// make_track's work, the same operations in the same order, without copying the keys.
track finish_track(const std::string& bone, path p, cspk2_track_keys& k, float length, float scale, key_stats& st) {
  const std::size_t c = p == path::rotation ? 4 : 3;
  float* t = k.times.data();
  float* v = k.values.data();
  const std::size_t n = k.times.size();
  const float hi = std::max(length, 0.0f);
  for (std::size_t i = 0; i < n; ++i) {
    const float x = t[i];
    const float cl = std::isfinite(x) ? std::clamp(x, 0.0f, hi) : 0.0f;
    if (cl != x) ++st.clamped;
    t[i] = cl;
  }
  if (!std::is_sorted(t, t + n)) {  // not in command order: the general path (stable sort)
    std::vector<key3> keys(n);
    for (std::size_t i = 0; i < n; ++i) keys[i] = key3{t[i], {v[c * i], v[c * i + 1], v[c * i + 2], c == 4 ? v[c * i + 3] : 0.0f}};
    const std::size_t kept = clean_keys(std::span<key3>(keys), length, st.dupes, st.clamped);  // times already clamped
    return make_track(bone, p, std::span<const key3>(keys).first(kept), scale);
  }
  // Equal times keep the last value of the run.
  std::size_t w = 0;
  for (std::size_t i = 0; i < n; ++i) {
    if (w > 0 && t[w - 1] == t[i]) {  // the whole key is replaced: 0 and -0 compare equal
      t[w - 1] = t[i];
      std::copy_n(v + c * i, c, v + c * (w - 1));
      ++st.dupes;
    } else {
      if (w != i) {
        t[w] = t[i];
        std::copy_n(v + c * i, c, v + c * w);
      }
      ++w;
    }
  }
  k.times.resize(w);
  k.values.resize(w * c);
  if (p == path::rotation) {
    for (std::size_t i = 0; i < w; ++i) {
      float* q = v + 4 * i;
      const float nq = std::sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
      if (!(nq > 1e-12f) || !std::isfinite(nq)) q[0] = 0.0f, q[1] = 0.0f, q[2] = 0.0f, q[3] = 1.0f;
      else q[0] = q[0] / nq, q[1] = q[1] / nq, q[2] = q[2] / nq, q[3] = q[3] / nq;
    }
    core::make_hemisphere_continuous(k.values);
  } else {
    for (std::size_t i = 0; i < 3 * w; ++i) v[i] = v[i] * scale;
  }
  return linear_track(bone, p, k);
}

track finished_track(const std::string& bone, path p, cspk2_track_keys& k, float scale, key_stats& st) {
  st.dupes += k.dupes;
  st.clamped += k.clamped;
  // x * 1 is x for every value arithmetic can produce (no signalling NaNs), so no pass then.
  if (p == path::translation && scale != 1.0f)
    for (float& x : k.values) x = x * scale;
  return linear_track(bone, p, k);
}

}  // namespace detail

namespace {

// One rotation and one translation track per CSPK2 bone found in the skeleton.
void add_pose_tracks(const animation_view& a, pose_keys& pose, float length, bool has_skl, anm_rig& rig, animation& an,
                     key_stats& st, const read_context& ctx) {
  auto& d = pose.d;
  const std::size_t nb = d.bones.size();
  std::vector<key3> root_rot, root_pos;
  const bool root_replaced = pose.broken && repair_broken_time_range(a, pose, length, root_rot, root_pos, an, ctx);
  std::size_t first = an.tracks.size();
  an.tracks.reserve(first + 2 * nb + 2);  // at most a rotation and a translation per bone, + the mover's
  std::vector<int> bone_index;  // skeleton bone of each track added here
  bone_index.reserve(2 * nb);
  for (std::size_t i = 0; i < nb; ++i) {
    if (rig.bone_of[i] < 0) continue;
    const std::string& bn = rig.sk.bones[static_cast<std::size_t>(rig.bone_of[i])].name;
    if (i == 0 && root_replaced) {
      if (!root_rot.empty()) {
        const std::size_t n = clean_keys(std::span<key3>(root_rot), length, st.dupes, st.clamped);
        an.tracks.push_back(make_track(bn, path::rotation, std::span<const key3>(root_rot).first(n), 1.0f));
        bone_index.push_back(rig.bone_of[i]);
      }
      if (!root_pos.empty()) {
        const std::size_t n = clean_keys(std::span<key3>(root_pos), length, st.dupes, st.clamped);
        an.tracks.push_back(make_track(bn, path::translation, std::span<const key3>(root_pos).first(n), rig.scale[i]));
        bone_index.push_back(rig.bone_of[i]);
      }
      continue;
    }
    if (auto& rk = d.tracks[2 * i + 1]; !rk.times.empty()) {
      an.tracks.push_back(pose.finished ? finished_track(bn, path::rotation, rk, 1.0f, st)
                                        : finish_track(bn, path::rotation, rk, length, 1.0f, st));
      bone_index.push_back(rig.bone_of[i]);
    }
    if (auto& pk = d.tracks[2 * i]; !pk.times.empty()) {
      an.tracks.push_back(pose.finished ? finished_track(bn, path::translation, pk, rig.scale[i], st)
                                        : finish_track(bn, path::translation, pk, length, rig.scale[i], st));
      bone_index.push_back(rig.bone_of[i]);
    }
  }
  if (!has_skl) {  // rest pose of loose nodes = first key, so viewers show something sensible
    for (std::size_t j = 0; j < an.tracks.size(); ++j) {
      const auto& t = an.tracks[j];
      int b = j >= first ? bone_index[j - first] : rig.sk.find(t.bone);
      if (t.path == path::rotation) rig.sk.bones[b].rotation = {t.values[0], t.values[1], t.values[2], t.values[3]};
      else rig.sk.bones[b].translation = {t.values[0], t.values[1], t.values[2]};
    }
  }
}

void add_mover_tracks(const anm_value_view& mover, float length, const skeleton& sk, animation& an, key_stats& st) {
  auto r = kf_transform_keys(mover, true), t = kf_transform_keys(mover, false);
  clean_keys(r, length, st.dupes, st.clamped);
  clean_keys(t, length, st.dupes, st.clamped);
  if (!r.empty()) an.tracks.push_back(make_track(sk.bones[0].name, path::rotation, r, 1.0f));
  if (!t.empty()) an.tracks.push_back(make_track(sk.bones[0].name, path::translation, t, 1.0f));
}

}  // namespace

scene anm_scene(const read_context& ctx) {
  animation_view a = parse_animation_view(ctx.data);
  scene s;
  s.format = "telltale-anm";
  anm_info info = describe_animation(a, ctx, s);
  list_non_bone_tracks(a, ctx, s);

  const anm_value_view* pose_value = nullptr;
  for (const auto& v : a.values)
    if (v.kind == value_kind::cspk2) {
      pose_value = &v;
      break;
    }
  const anm_value_view* mover = find_kf(a, sym_absolute_node, value_kind::kf_transform);
  if (!pose_value && !mover) return s;  // nothing skeletal (lip-sync only)
  pose_keys pose = decode_pose(pose_value, info.length, ctx);

  auto skl = find_skeleton(ctx);
  anm_rig rig = skl ? rig_from_skl(*skl, pose.d, ctx) : rig_from_symbols(pose, info.name, ctx);
  s.metadata["skeleton"] = skl ? json(skl->path) : json(nullptr);
  if (mover) add_mover_root(rig);

  animation an = make_animation(info, pose, mover ? &rig.sk : nullptr);
  key_stats st;
  if (pose.value) add_pose_tracks(a, pose, info.length, skl.has_value(), rig, an, st, ctx);
  if (mover) add_mover_tracks(*mover, info.length, rig.sk, an, st);
  if (st.dupes && !pose.broken)
    ctx.warn(code::w_duplicate_key_time, std::to_string(st.dupes) + " keys shared a time with the next key on their track; the last of each run is kept");
  if (st.clamped && !pose.broken)
    ctx.warn(code::w_suspicious_value, std::to_string(st.clamped) + " key times outside [0, mLength] were clamped");
  if (pose.value) {
    const auto& d = pose.d;
    s.metadata["cspk2"] = json{{"bones", d.bones.size()},      {"commands", d.commands},
                               {"range_time", d.header.range_time}, {"sample_data_size", d.header.sample_data_size},
                               {"sample_bytes_consumed", d.sample_bytes_consumed}};
  }
  s.skeletons.push_back(std::move(rig.sk));
  if (!an.tracks.empty()) s.animations.push_back(std::move(an));
  return s;
}


// ------------------------------------------------------------------ entry points

std::string pair_skeleton(const std::string& anm_path, std::string* note) {
  fs::path p(anm_path);
  std::string stem = p.stem().string();
  std::string ls = lower(stem);
  if (ls.size() < 5 || ls.compare(0, 2, "sk") || !std::isdigit(static_cast<unsigned char>(ls[2])) ||
      !std::isdigit(static_cast<unsigned char>(ls[3])) || ls[4] != '_') {
    if (note) *note = "'" + p.filename().string() + "' does not follow the skNN_<character> naming rule; no skeleton paired (use --skeleton)";
    return {};
  }
  std::string prefix = ls.substr(0, 5);
  std::string rest = ls.substr(5);
  // A paired animation ("sk61_zombie400_sk62_action_...") names a second rig; only the
  // part before the next "_skNN_" belongs to this one.
  for (std::size_t i = 0; i + 6 <= rest.size(); ++i)
    if (rest[i] == '_' && rest[i + 1] == 's' && rest[i + 2] == 'k' && std::isdigit(static_cast<unsigned char>(rest[i + 3])) &&
        std::isdigit(static_cast<unsigned char>(rest[i + 4])) && rest[i + 5] == '_') {
      rest.resize(i);
      break;
    }
  fs::path dir = p.has_parent_path() ? p.parent_path() : fs::path(".");
  std::vector<std::pair<std::size_t, std::string>> found;
  // One folder entry: a "<prefix><character>.skl" whose <character> starts `rest` or follows
  // one of its '_'. `regular` is asked last (it may stat the file).
  auto consider = [&](std::string_view fn, auto&& regular) {
    if (!ends_with_ci(fn, ".skl")) return;
    // The stem: fn without ".skl" (a name that is only ".skl" has no extension; too short anyway).
    if (fn.size() <= 4 + 5) return;
    std::string ks = lower(std::string(fn.substr(0, fn.size() - 4)));
    if (ks.compare(0, 5, prefix)) return;
    if (!regular()) return;
    std::string ch = ks.substr(5);
    bool match = rest.compare(0, ch.size(), ch) == 0 || rest.find("_" + ch) != std::string::npos;
    if (match) found.emplace_back(ch.size(), (dir / std::string(fn)).string());
  };
  core::for_each_folder_entry(dir, static_cast<std::size_t>(-1),
                              [&](std::string_view fn, auto&& regular) { consider(fn, regular); });
  if (found.empty()) {
    if (note)
      *note = "no " + prefix + "<character>.skl next to '" + p.filename().string() +
              "' (naming rule); exporting without a skeleton (use --skeleton)";
    return {};
  }
  std::sort(found.begin(), found.end(), [](const auto& a, const auto& b) { return a.first != b.first ? a.first > b.first : a.second < b.second; });
  if (found.size() > 1 && found[0].first == found[1].first && note)
    *note = "several skeletons match '" + p.filename().string() + "'; using " + found[0].second;
  return found[0].second;
}

result<scene> read_anm(const read_context& ctx) {
  return core::guarded(ctx.path, "telltale-anm", [&] { return anm_scene(ctx); });
}

result<scene> read_skl(const read_context& ctx) {
  return core::guarded(ctx.path, "telltale-skl", [&] {
    auto f = parse_skeleton(ctx.data);
    scene s;
    s.format = "telltale-skl";
    s.skeletons.push_back(skeleton_from_file(f, fs::path(ctx.path).stem().string(), &ctx));
    s.metadata["stream"] = stream_version_name(f.ms.magic).value_or("?");
    s.metadata["entries"] = f.entries.size();
    return s;
  });
}

}  // namespace rigrip::telltale
