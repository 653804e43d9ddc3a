// Telltale .anm/.skl <-> scene. Policy (README.md): rotation keys are the bone's local
// rotation; translation keys are normalised and scale by |mLocalPos|; LINEAR; the
// "absoluteNode" track is root motion on its own root node; "root" duplicates CSPK2
// bone 0 and is only used when the CSPK2 timeline is broken.
#include "formats/telltale/convert.hpp"

#include <algorithm>
#include <bit>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <map>
#include <set>

#include "core/byte_reader.hpp"
#include "core/failure.hpp"
#include "core/math.hpp"
#include "scene/pose.hpp"
#include "formats/telltale/anm.hpp"
#include "formats/telltale/cspk2.hpp"
#include "formats/telltale/symbols.hpp"

namespace rigrip::telltale {

using nlohmann::json;
namespace fs = std::filesystem;

namespace {


constexpr std::uint32_t flag_additive = 0x00010000u;
constexpr const char* mover_name = "absoluteNode";

std::string lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}
bool ends_with_ci(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && lower(std::string(s.substr(s.size() - suffix.size()))) == suffix;
}

bool is_old_stream(byte_view d) {
  if (d.size() < 4) return false;
  std::uint32_t m = std::uint32_t(d[0]) | std::uint32_t(d[1]) << 8 | std::uint32_t(d[2]) << 16 | std::uint32_t(d[3]) << 24;
  return m != magic_msv5 && m != magic_msv6 && stream_version_name(m).has_value();
}

std::string file_name(const std::string& path) { return fs::path(path).filename().string(); }

float bits_f(std::uint32_t b) { return std::bit_cast<float>(b); }

std::string value_label(std::uint64_t sym) {
  if (sym == sym_skeleton_pose) return "SkeletonPose";
  if (sym == sym_root) return "root";
  if (sym == sym_absolute_node) return "absoluteNode";
  return symbol_label(sym);
}

struct key3 {
  float t;
  std::array<float, 4> v;
};

// Clamps to [0, length], sorts (stable) and keeps the last value of each run of equal
// times, as the notes recommend; reports what it changed.
std::vector<key3> clean_keys(std::vector<key3> k, float length, std::size_t& dupes, std::size_t& clamped) {
  for (auto& x : k) {
    float c = std::isfinite(x.t) ? std::clamp(x.t, 0.0f, std::max(length, 0.0f)) : 0.0f;
    if (c != x.t) ++clamped;
    x.t = c;
  }
  std::stable_sort(k.begin(), k.end(), [](const key3& a, const key3& b) { return a.t < b.t; });
  std::vector<key3> out;
  for (const auto& x : k) {
    if (!out.empty() && out.back().t == x.t) {
      out.back() = x;
      ++dupes;
    } else {
      out.push_back(x);
    }
  }
  return out;
}

track make_track(const std::string& bone, path p, const std::vector<key3>& keys, float scale) {
  track t;
  t.bone = bone;
  t.path = p;
  t.interpolation = interpolation::linear;
  for (const auto& k : keys) {
    t.times.push_back(k.t);
    if (p == path::rotation) {
      quat q = core::normalize(quat{k.v[0], k.v[1], k.v[2], k.v[3]});
      t.values.insert(t.values.end(), q.begin(), q.end());
    } else {
      for (int i = 0; i < 3; ++i) t.values.push_back(k.v[i] * scale);
    }
  }
  if (p == path::rotation) core::make_hemisphere_continuous(t.values);
  return t;
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
  if (!ctx.load) core::fail(code::missing_skeleton, "cannot load skeleton '" + p + "': no file access");
  auto b = ctx.load(p);
  if (!b) core::fail(code::missing_skeleton, "cannot load skeleton '" + p + "': " + b.error().message);
  loaded_skeleton s;
  try {
    s.file = parse_skeleton(b.value());
  } catch (core::failure& f) {
    auto e = f.error();
    core::fail(e.code, "skeleton '" + p + "' @ " + core::byte_reader::hex(e.offset) + ": " + e.message, e.offset);
  }
  s.path = p;
  return s;
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

}  // namespace

// ------------------------------------------------------------------ detection

int detect_anm(byte_view data, std::string_view name) {
  metastream h;
  if (probe(data, &h)) {
    if (h.has_class(sym_animation)) return score::magic;
    // Cut inside the class table: the name decides, the parser reports the damage.
    return h.classes.empty() && ends_with_ci(name, ".anm") ? score::name_only : score::none;
  }
  if (is_old_stream(data) && ends_with_ci(name, ".anm")) return score::magic;
  return score::none;
}

int detect_skl(byte_view data, std::string_view name) {
  metastream h;
  if (probe(data, &h)) {
    if (h.has_class(sym_skeleton)) return score::magic;
    return h.classes.empty() && ends_with_ci(name, ".skl") ? score::name_only : score::none;
  }
  if (is_old_stream(data) && ends_with_ci(name, ".skl")) return score::magic;
  return score::none;
}

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
  std::error_code ec;
  fs::path dir = p.has_parent_path() ? p.parent_path() : fs::path(".");
  std::vector<std::pair<std::size_t, std::string>> found;
  for (auto it = fs::directory_iterator(dir, ec); !ec && it != fs::directory_iterator(); it.increment(ec)) {
    if (!it->is_regular_file(ec)) continue;
    std::string fn = it->path().filename().string();
    if (!ends_with_ci(fn, ".skl")) continue;
    std::string ks = lower(it->path().stem().string());
    if (ks.size() <= 5 || ks.compare(0, 5, prefix)) continue;
    std::string ch = ks.substr(5);
    bool match = rest.compare(0, ch.size(), ch) == 0 || rest.find("_" + ch) != std::string::npos;
    if (match) found.emplace_back(ch.size(), it->path().string());
  }
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

// ------------------------------------------------------------------ .anm read

namespace {

json values_json(const animation_file& a) {
  json vals = json::array();
  std::size_t vi = 0;
  for (std::size_t ti = 0; ti < a.types.size(); ++ti) {
    bool opaque = ti >= a.opaque_first_type;
    for (std::uint16_t i = 0; i < a.types[ti].count; ++i, ++vi) {
      json v{{"type", hex16(a.types[ti].type)}, {"index", vi}};
      if (!opaque) {
        const auto& val = a.values[vi];
        v["type_name"] = kind_name(val.kind);
        if (val.kind == value_kind::cspk2) v["bytes"] = val.cspk2.size();
        else v["keys"] = val.samples.size();
      } else {
        v["opaque"] = true;
      }
      if (vi < a.value_flags.size()) {
        v["flags"] = a.value_flags[vi];
        v["kind"] = a.value_flags[vi] >> 24;
        v["additive"] = (a.value_flags[vi] & flag_additive) != 0;
      }
      if (vi < a.value_names.size()) v["name"] = value_label(a.value_names[vi]);
      vals.push_back(std::move(v));
    }
  }
  return vals;
}

const anm_value* find_kf(const animation_file& a, std::uint64_t name, value_kind k) {
  for (std::size_t i = 0; i < a.values.size(); ++i)
    if (a.values[i].kind == k && (a.values[i].kf_name == name || (i < a.value_names.size() && a.value_names[i] == name)))
      return &a.values[i];
  return nullptr;
}

std::vector<key3> kf_transform_keys(const anm_value& v, bool rotation) {
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

scene anm_scene(const read_context& ctx) {
  animation_file a = parse_animation(ctx.data);
  scene s;
  s.format = "telltale-anm";
  std::string fname = file_name(ctx.path);
  bool name_match = crc64(fname) == a.name;
  std::string anim_name = name_match ? fs::path(fname).stem().string() : symbol_label(a.name);
  float length = a.length();
  if (!std::isfinite(length) || length < 0) {
    ctx.warn(code::w_suspicious_value, "mLength is " + std::to_string(length) + "; using 0");
    length = 0;
  }
  bool additive = false;
  for (auto f : a.value_flags) additive |= (f & flag_additive) != 0;
  s.metadata["animation_name"] = anim_name;
  s.metadata["name_symbol"] = hex16(a.name);
  s.metadata["name_symbol_matches_file_name"] = name_match;
  s.metadata["stream"] = stream_version_name(a.ms.magic).value_or("?");
  s.metadata["length"] = length;
  s.metadata["additive"] = additive;
  s.metadata["values"] = values_json(a);
  if (!name_match)
    ctx.warn(code::w_name_mismatch, "mName " + hex16(a.name) + " is not crc64('" + lower(fname) + "') = " + hex16(crc64(fname)));
  if (!a.opaque_bodies.empty())
    ctx.warn(code::w_opaque_data, std::to_string(a.opaque_bodies.size()) + " bytes of values from type " +
                                      hex16(a.types[a.opaque_first_type].type) + " on are of unknown types; kept opaque",
             a.opaque_offset);

  // Lip-sync and property tracks have no glTF equivalent; list them.
  json phon = json::array();
  for (std::size_t i = 0; i < a.values.size(); ++i) {
    const auto& v = a.values[i];
    if (v.kind == value_kind::cspk2 || v.kind == value_kind::kf_transform) continue;
    json keys = json::array();
    for (const auto& smp : v.samples) {
      json k{{"time", smp.time()}};
      core::byte_reader r(smp.value);
      if (v.kind == value_kind::kf_phoneme && smp.value.size() >= 28) {
        r.skip(4);
        k["phoneme"] = symbol_label(r.u64());
        k["fade_in"] = r.f32();
        k["hold"] = r.f32();
        k["fade_out"] = r.f32();
        k["contribution"] = r.f32();
      } else if (v.kind == value_kind::kf_float) {
        k["value"] = r.f32();
      } else if (v.kind == value_kind::kf_bool) {
        k["value"] = smp.value[0] == '1';
      }
      keys.push_back(std::move(k));
    }
    phon.push_back(json{{"name", value_label(v.kf_name)}, {"type", kind_name(v.kind)}, {"keys", keys}});
  }
  if (!phon.empty()) {
    s.metadata["non_bone_tracks"] = phon;
    ctx.warn(code::w_unsupported_part, std::to_string(phon.size()) +
                                           " non-bone track(s) (lip-sync PhonemeKey / float / bool) are listed in metadata.non_bone_tracks; glTF has no place for them");
  }

  const anm_value* pose = nullptr;
  std::size_t pose_index = 0;
  for (std::size_t i = 0; i < a.values.size(); ++i)
    if (a.values[i].kind == value_kind::cspk2) {
      pose = &a.values[i];
      pose_index = i;
      break;
    }
  const anm_value* mover = find_kf(a, sym_absolute_node, value_kind::kf_transform);
  if (!pose && !mover) return s;  // nothing skeletal (lip-sync only)

  cspk2_decoded d;
  std::uint64_t pose_off = 0;
  if (pose) {
    pose_off = pose->offset;
    d = decode_cspk2(pose->cspk2, pose_off);
    if (d.sample_bytes_consumed != d.header.sample_data_size)
      ctx.warn(code::w_trailing_data, "CSPK2 commands used " + std::to_string(d.sample_bytes_consumed) + " of " +
                                          std::to_string(d.header.sample_data_size) + " sample bytes", pose_off + 96 + d.sample_bytes_consumed);
  }
  (void)pose_index;
  std::optional<double> fps;
  bool broken = pose && !time_range_ok(d.header.range_time, length, &fps);
  if (pose && !broken && d.header.range_time > 0 && !fps) fps = std::nullopt;

  auto skl = find_skeleton(ctx);
  skeleton sk;
  std::vector<int> bone_of(d.bones.size(), -1);  // CSPK2 bone -> scene bone
  std::vector<float> scale(d.bones.size(), 1.0f);
  if (skl) {
    sk = skeleton_from_file(skl->file, fs::path(skl->path).stem().string(), &ctx);
    std::map<std::uint64_t, int> by_sym;
    for (std::size_t i = 0; i < skl->file.entries.size(); ++i) by_sym.emplace(skl->file.entries[i].joint, static_cast<int>(i));
    std::size_t missing = 0;
    std::string first_missing;
    for (std::size_t i = 0; i < d.bones.size(); ++i) {
      auto it = by_sym.find(d.bones[i]);
      if (it == by_sym.end()) {
        if (!missing++) first_missing = symbol_label(d.bones[i]);
        continue;
      }
      bone_of[i] = it->second;
      const auto& lp = skl->file.entries[static_cast<std::size_t>(it->second)].local_pos;
      float len = std::sqrt(lp[0] * lp[0] + lp[1] * lp[1] + lp[2] * lp[2]);
      scale[i] = std::isfinite(len) ? len : 0.0f;
    }
    if (missing)
      ctx.warn(code::w_missing_bone, std::to_string(missing) + " of " + std::to_string(d.bones.size()) +
                                         " animated bones are not in skeleton '" + skl->path + "' (first: " + first_missing + "); their tracks are skipped");
    s.metadata["skeleton"] = skl->path;
  } else {
    sk.name = anim_name;
    for (std::size_t i = 0; i < d.bones.size(); ++i) {
      bone b;
      b.name = symbol_label(d.bones[i]);
      b.extras = json{{"symbol", hex16(d.bones[i])}};
      bone_of[i] = static_cast<int>(i);
      sk.bones.push_back(std::move(b));
    }
    if (pose)
      ctx.warn(code::w_pairing, "no skeleton: " + std::to_string(d.bones.size()) +
                                    " unparented nodes named from the bone symbols; translations are the normalised (unscaled) values");
    s.metadata["skeleton"] = nullptr;
  }

  // The mover becomes a separate root above the skeleton's roots.
  int mover_bone = -1;
  if (mover) {
    bone m;
    m.name = mover_name;
    while (sk.find(m.name) >= 0) m.name += "_";
    m.extras = json{{"telltale_mover", true}};
    for (auto& b : sk.bones) b.parent = b.parent < 0 ? 0 : b.parent + 1;
    sk.bones.insert(sk.bones.begin(), m);
    for (auto& x : bone_of)
      if (x >= 0) ++x;
    mover_bone = 0;
  }

  animation an;
  an.name = anim_name;
  an.duration = length;
  an.fps = fps;
  an.extras["additive"] = additive;
  if (additive)
    an.extras["additive_note"] = "tracks are deltas from identity/zero to be layered on a base animation, not a pose";
  if (mover_bone >= 0) an.extras["root_motion"] = json::array({sk.bones[0].name});
  an.extras["interpolation_policy"] = "LINEAR (the engine interpolates between CSPK2 keys)";

  std::size_t dupes = 0, clamped = 0;
  if (pose) {
    std::vector<std::vector<key3>> rot(d.bones.size()), pos(d.bones.size());
    for (const auto& k : d.keys) (k.rotation ? rot : pos)[k.bone].push_back(key3{k.time, k.value});
    if (broken) {
      std::set<std::uint16_t> distinct;
      for (const auto& k : d.keys) distinct.insert(k.t16);
      std::string msg = "CSPK2 rangeTime " + std::to_string(d.header.range_time) + " is neither mLength (" + std::to_string(length) +
                        ") nor 65535/fps; its " + std::to_string(d.keys.size()) + " keys fall on " + std::to_string(distinct.size()) +
                        " time points. Times clamped to [0, mLength], equal times keep the last value";
      const anm_value* root = find_kf(a, sym_root, value_kind::kf_transform);
      if (root && !d.bones.empty() && !root->samples.empty()) {
        rot[0] = kf_transform_keys(*root, true);
        pos[0] = kf_transform_keys(*root, false);
        msg += "; bone 0 (" + symbol_label(d.bones[0]) + ") uses the 'root' keyframed track (" + std::to_string(root->samples.size()) + " keys) instead";
      }
      ctx.warn(code::w_suspicious_value, msg, pose_off + 0x48);
      an.extras["broken_time_range"] = d.header.range_time;
    }
    for (std::size_t i = 0; i < d.bones.size(); ++i) {
      if (bone_of[i] < 0) continue;
      const std::string& bn = sk.bones[static_cast<std::size_t>(bone_of[i])].name;
      if (!rot[i].empty()) an.tracks.push_back(make_track(bn, path::rotation, clean_keys(rot[i], length, dupes, clamped), 1.0f));
      if (!pos[i].empty()) an.tracks.push_back(make_track(bn, path::translation, clean_keys(pos[i], length, dupes, clamped), scale[i]));
    }
    if (!skl) {  // rest pose of loose nodes = first key, so viewers show something sensible
      for (const auto& t : an.tracks) {
        int b = sk.find(t.bone);
        if (t.path == path::rotation) sk.bones[b].rotation = {t.values[0], t.values[1], t.values[2], t.values[3]};
        else sk.bones[b].translation = {t.values[0], t.values[1], t.values[2]};
      }
    }
  }
  if (mover) {
    auto r = kf_transform_keys(*mover, true), t = kf_transform_keys(*mover, false);
    if (!r.empty()) an.tracks.push_back(make_track(sk.bones[0].name, path::rotation, clean_keys(r, length, dupes, clamped), 1.0f));
    if (!t.empty()) an.tracks.push_back(make_track(sk.bones[0].name, path::translation, clean_keys(t, length, dupes, clamped), 1.0f));
  }
  if (dupes && !broken)
    ctx.warn(code::w_duplicate_key_time, std::to_string(dupes) + " keys shared a time with the next key on their track; the last of each run is kept");
  if (clamped && !broken)
    ctx.warn(code::w_suspicious_value, std::to_string(clamped) + " key times outside [0, mLength] were clamped");
  if (pose) {
    s.metadata["cspk2"] = json{{"bones", d.bones.size()},      {"commands", d.commands},
                               {"range_time", d.header.range_time}, {"sample_data_size", d.header.sample_data_size},
                               {"sample_bytes_consumed", d.sample_bytes_consumed}};
  }
  s.skeletons.push_back(std::move(sk));
  if (!an.tracks.empty()) s.animations.push_back(std::move(an));
  return s;
}

}  // namespace

result<scene> read_anm(const read_context& ctx) {
  return core::guarded(ctx.path, "telltale-anm", [&] { return anm_scene(ctx); });
}

result<json> dump_anm(const read_context& ctx) {
  return core::guarded(ctx.path, "telltale-anm", [&]() -> json {
    animation_file a = parse_animation(ctx.data);
    json j;
    j["format"] = "telltale-anm";
    j["length"] = a.length();
    j["bones"] = json::array();
    j["keys"] = json::array();
    for (const auto& v : a.values) {
      if (v.kind != value_kind::cspk2) continue;
      auto d = decode_cspk2(v.cspk2, v.offset);
      for (auto b : d.bones) j["bones"].push_back(hex16(b));
      auto& keys = j["keys"];
      for (const auto& k : d.keys) {
        json val = k.rotation ? json::array({k.value[0], k.value[1], k.value[2], k.value[3]})
                              : json::array({k.value[0], k.value[1], k.value[2]});
        keys.push_back(json{{"bone", k.bone}, {"kind", k.rotation ? "rotation" : "translation"}, {"time", k.time}, {"value", std::move(val)}});
      }
      j["range_time"] = d.header.range_time;
      j["sample_data_size"] = d.header.sample_data_size;
      j["sample_bytes_consumed"] = d.sample_bytes_consumed;
      break;
    }
    j["name_symbol"] = hex16(a.name);
    j["values"] = values_json(a);
    return j;
  });
}

result<bytes> rewrite_anm(const read_context& ctx) {
  return core::guarded(ctx.path, "telltale-anm", [&] { return write_animation(parse_animation(ctx.data)); });
}

// ------------------------------------------------------------------ .skl read

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

result<json> dump_skl(const read_context& ctx) {
  return core::guarded(ctx.path, "telltale-skl", [&]() -> json {
    auto f = parse_skeleton(ctx.data);
    json e = json::array();
    for (const auto& x : f.entries) {
      json rg = json::array();
      for (const auto& [sym, w] : x.resource_groups) rg.push_back(json{{"group", symbol_label(sym)}, {"weight", w}});
      e.push_back(json{{"joint", hex16(x.joint)},
                       {"name", symbol_label(x.joint)},
                       {"parent", hex16(x.parent_name)},
                       {"parent_index", x.parent_index},
                       {"mirror", hex16(x.mirror_name)},
                       {"mirror_index", x.mirror_index},
                       {"local_pos", x.local_pos},
                       {"local_quat", x.local_quat},
                       {"rest_rot", x.rest.rot},
                       {"rest_trans", x.rest.trans},
                       {"global_translation_scale", x.global_translation_scale},
                       {"local_translation_scale", x.local_translation_scale},
                       {"anim_translation_scale", x.anim_translation_scale},
                       {"resource_groups", rg},
                       {"bone_type", x.bone_type},
                       {"hinge_axis", x.hinge_axis},
                       {"axis_range", {x.axis_range[0], x.axis_range[1], x.axis_range[2]}},
                       {"flags", x.flags}});
    }
    return json{{"format", "telltale-skl"}, {"entries", e}};
  });
}

result<bytes> rewrite_skl(const read_context& ctx) {
  return core::guarded(ctx.path, "telltale-skl", [&] { return write_skeleton(parse_skeleton(ctx.data)); });
}

// ------------------------------------------------------------------ writing

namespace {

bool is_mover(const bone& b) {
  return b.name == mover_name || (b.extras.is_object() && b.extras.value("telltale_mover", false));
}

float key_value(const track& t, std::size_t k, int c) {
  std::size_t n = static_cast<std::size_t>(components(t.path));
  std::size_t e = t.interpolation == interpolation::cubic_spline ? 3 * k + 1 : k;
  return t.values[e * n + static_cast<std::size_t>(c)];
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
    if (!ctx.skeleton_file)
      core::fail(code::missing_skeleton, "writing .anm needs the target .skl (--skeleton x.skl): translations are stored divided by |localPos|");
    skeleton_file skl;
    try {
      skl = parse_skeleton(*ctx.skeleton_file);
    } catch (core::failure& f) {
      core::fail(f.error().code, "skeleton '" + ctx.skeleton_path + "': " + f.error().message, f.error().offset);
    }
    if (s.animations.empty()) core::fail(code::bad_value, "the scene has no animation to write");
    if (s.animations.size() > 1)
      ctx.warn(code::w_lossy, "the scene has " + std::to_string(s.animations.size()) + " animations; only the first ('" + s.animations[0].name + "') is written");
    const auto& an = s.animations[0];
    float length = static_cast<float>(an.duration);
    std::map<std::uint64_t, std::size_t> entry_of;
    for (std::size_t i = 0; i < skl.entries.size(); ++i) entry_of.emplace(skl.entries[i].joint, i);

    std::vector<std::uint64_t> bones;
    std::vector<cspk2_track_in> tracks;
    std::map<std::size_t, std::size_t> slot_of_entry;
    const track* mover_rot = nullptr;
    const track* mover_pos = nullptr;
    std::size_t skipped = 0, stepped = 0;
    const skeleton* ssk = an.skeleton >= 0 && static_cast<std::size_t>(an.skeleton) < s.skeletons.size() ? &s.skeletons[static_cast<std::size_t>(an.skeleton)] : nullptr;
    for (const auto& t : an.tracks) {
      int bi = ssk ? ssk->find(t.bone) : -1;
      if ((bi >= 0 && is_mover(ssk->bones[static_cast<std::size_t>(bi)])) || t.bone == mover_name) {
        if (t.path == path::rotation) mover_rot = &t;
        if (t.path == path::translation) mover_pos = &t;
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
      auto& tin = tracks[sl->second];
      const auto& lp = skl.entries[it->second].local_pos;
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
    if (skipped) ctx.warn(code::w_missing_bone, std::to_string(skipped) + " tracks name bones missing from the skeleton (or scale tracks); not written");
    if (stepped) ctx.warn(code::w_lossy, std::to_string(stepped) + " STEP tracks are written as keys the engine interpolates linearly");
    if (bones.empty() && !mover_rot && !mover_pos) core::fail(code::bad_value, "no track of the animation matches a bone of the skeleton");
    // Order bones as the skeleton does (the engine does not need it; it reads nicer).
    std::vector<std::size_t> order(bones.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) { return entry_of[bones[x]] < entry_of[bones[y]]; });
    std::vector<std::uint64_t> ob;
    std::vector<cspk2_track_in> ot;
    for (auto i : order) ob.push_back(bones[i]), ot.push_back(tracks[i]);
    // A track must start at t = 0 (every real track does): hold the first key.
    for (auto& t : ot) {
      if (!t.rot_times.empty() && t.rot_times[0] > 0) t.rot_times.insert(t.rot_times.begin(), 0.0f), t.rotations.insert(t.rotations.begin(), t.rotations[0]);
      if (!t.pos_times.empty() && t.pos_times[0] > 0) t.pos_times.insert(t.pos_times.begin(), 0.0f), t.translations.insert(t.translations.begin(), t.translations[0]);
    }
    bool additive = an.extras.is_object() && an.extras.value("additive", false);
    std::uint32_t add = additive ? flag_additive : 0;

    animation_file a;
    a.ms.magic = magic_msv6;
    a.ms.classes = animation_class_table();
    a.version = 5;
    a.name = crc64(file_name(ctx.output_path));
    a.length_bits = std::bit_cast<std::uint32_t>(length);
    a.tool_props = '0';
    std::uint64_t kf_type = type_symbol(value_kind::kf_transform);
    if (!ob.empty()) {
      anm_value v;
      v.kind = value_kind::cspk2;
      v.cspk2 = encode_cspk2(ob, ot, length);
      a.types.push_back({sym_cspk2, 1, 0});
      a.values.push_back(std::move(v));
      a.value_flags.push_back(0x08080200u | add);
      a.value_names.push_back(sym_skeleton_pose);
    }
    if (mover_rot || mover_pos) {
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
      a.types.push_back({kf_type, 1, 0});
      a.values.push_back(std::move(v));
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
