// Decode: MRN/NSA -> scene (skeletons, bind pose, one animation per NSA).
#include "formats/morpheme/decode.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <map>
#include <numeric>
#include <set>

#include "core/math.hpp"
#include "formats/morpheme/common.hpp"
#include "formats/morpheme/hemisphere.hpp"

namespace rigrip::morpheme {

using core::byte_reader;
using core::fail;

namespace {

std::string upper(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}
struct rig_entry {
  skeleton sk;
  std::size_t packet = 0;
  std::uint32_t header_index = 0;
};
struct map_entry {
  skeleton_map m;
  std::size_t packet = 0;
  int rig = -1;  // rig this map was paired with
};
struct model {
  mrn_file raw;
  std::vector<rig_entry> rigs;
  std::vector<map_entry> maps;
  std::optional<file_names> names;
  std::vector<int> rig_map;  // per rig: map index or -1
  nlohmann::json meta = nlohmann::json::object();
};

rig_entry make_rig(const packet& p, const read_context& ctx, std::size_t packet_no,
                   std::vector<int>& remap) {
  byte_reader r(p.payload, core::endian::little, p.payload_offset());
  auto rig = read_rig(r);
  rig_entry e;
  e.packet = packet_no;
  e.header_index = p.index;
  if (rig.disagreements)
    ctx.warn(code::w_suspicious_value,
            "skeleton packet " + std::to_string(packet_no) +
                ": parents from the hierarchy array and the chain table disagree at " +
                std::to_string(rig.disagreements) + " bones (first " + rig.first_disagreement +
                "); using the " + rig.parents_source +
                (rig.parents_source == "chains" ? " (hierarchy array out of range)" : " array"),
            p.payload_offset());
  if (!rig.has_bind_pose)
    ctx.warn(code::w_fallback,
            "skeleton packet " + std::to_string(packet_no) +
                " has no complete bind pose; identity used",
            p.payload_offset() + 0x48);
  else if (rig.bind_entry_word != rig.bone_count)
    ctx.warn(code::w_suspicious_value,
            "skeleton packet " + std::to_string(packet_no) + ": the bind-pose buffer's count word says " +
                std::to_string(rig.bind_entry_word) + ", the hierarchy " + std::to_string(rig.bone_count) +
                " bones; the bind pose was read for " + std::to_string(rig.bone_count),
            p.payload_offset() + 0x48);
  if (rig.names.size() != rig.bone_count)
    ctx.warn(code::w_name_mismatch,
            "skeleton packet " + std::to_string(packet_no) + ": " +
                std::to_string(rig.names.size()) + " bone names for " +
                std::to_string(rig.bone_count) + " bones",
            p.payload_offset() + 0x40);
  std::set<std::string> used;
  for (std::uint32_t i = 0; i < rig.bone_count; ++i) {
    bone b;
    b.name =
        i < rig.names.size() && !rig.names[i].empty() ? rig.names[i] : "bone_" + std::to_string(i);
    if (ctx.options.upper_case_bones) b.name = upper(b.name);
    if (used.count(b.name)) {
      ctx.warn(code::w_name_mismatch,
              "duplicate bone name '" + b.name + "' renamed '" + b.name + "_" + std::to_string(i) +
                  "'");
      b.name += "_" + std::to_string(i);
    }
    used.insert(b.name);
    b.parent = rig.parents[i];
    if (i < rig.bind_translation.size()) {
      b.translation = rig.bind_translation[i];
      quat q = rig.bind_rotation[i];
      float len = std::sqrt(core::dot(q, q));
      if (!core::finite(q) || !core::finite(b.translation) || len < 1e-6f) {
        ctx.warn(code::w_suspicious_value,
                "bone '" + b.name +
                    "': bind pose is not finite or has a zero quaternion; identity used");
        q = {0, 0, 0, 1};
        b.translation = {0, 0, 0};
      }
      b.rotation = core::normalize(q);
    }
    e.sk.bones.push_back(std::move(b));
  }
  order_bones(e.sk, remap, p.payload_offset(), "skeleton");
  if (rig.names.size() > 1) e.sk.extras["rig_name_bone"] = rig.names[1];
  e.sk.extras["parents_source"] = rig.parents_source;
  e.sk.extras["packet"] = packet_no;
  return e;
}

model load_model(std::span<const std::uint8_t> data, const read_context& ctx,
                 std::vector<std::vector<int>>& remaps) {
  model m;
  if (data.size() >= 8 && data[0] == magic_x86[0] && data[1] == 0 && data[2] == 0 && data[3] == 0)
    fail(code::unsupported_version,
         std::string("a morpheme 5 runtime bundle (") +
             (data[4] == magic_x86[1] ? "32-bit, packet magic 0x18/0x06" : "packet magic 0x18") +
             "), not a Forgelight MRN: it is read as morpheme-nmb",
         0);
  m.raw = parse_mrn(data);
  std::map<std::string, int> type_counts;
  std::set<std::uint32_t> unknown_types;
  nlohmann::json events = nlohmann::json::array();
  std::optional<expanded_string_table> skel_names;
  for (std::size_t i = 0; i < m.raw.packets.size(); ++i) {
    const auto& p = m.raw.packets[i];
    const char* nm = packet_type_name(p.type);
    type_counts[nm ? nm : "unknown_" + std::to_string(p.type)]++;
    byte_reader r(p.payload, core::endian::little, p.payload_offset());
    switch (p.type) {
      case pt_skeleton: {
        remaps.emplace_back();
        m.rigs.push_back(make_rig(p, ctx, i, remaps.back()));
        break;
      }
      case pt_skeleton_map:
        m.maps.push_back(map_entry{read_skeleton_map(r), i, -1});
        break;
      case pt_file_names:
        m.names = read_file_names(r);
        break;
      case pt_skeleton_names:
        skel_names = read_expanded_string_table(r, r.u64_at(0));
        break;
      case pt_event_track:
      case pt_event_track_duration:
        events.push_back({{"packet", i},
                          {"kind", p.type == pt_event_track ? "discrete" : "duration"},
                          {"id", p.index},
                          {"bytes", p.payload.size()}});
        break;
      default:
        if (!nm) unknown_types.insert(p.type);
    }
  }
  if (!unknown_types.empty()) {
    std::string s;
    for (auto t : unknown_types) s += (s.empty() ? "" : ", ") + core::byte_reader::hex(t);
    ctx.warn(code::w_opaque_data, "packets of unknown type " + s + " kept as opaque bytes");
  }
  // Skeleton names: by the table's ids when they match the skeleton packets' header ids,
  // otherwise name k (in storage order) goes with the k-th skeleton packet.
  if (skel_names && !skel_names->strings.empty()) {
    bool by_id = !skel_names->ids.empty();
    for (const auto& r : m.rigs)
      if (std::find(skel_names->ids.begin(), skel_names->ids.end(), r.header_index) ==
          skel_names->ids.end())
        by_id = false;
    std::vector<std::size_t> order(skel_names->strings.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](auto a, auto b) {
      return skel_names->offsets[a] < skel_names->offsets[b];
    });
    for (std::size_t k = 0; k < m.rigs.size(); ++k) {
      if (by_id) {
        auto it = std::find(skel_names->ids.begin(), skel_names->ids.end(), m.rigs[k].header_index);
        m.rigs[k].sk.name =
            skel_names->strings[static_cast<std::size_t>(it - skel_names->ids.begin())];
      } else if (k < order.size()) {
        m.rigs[k].sk.name = skel_names->strings[order[k]];
      }
    }
  }
  std::set<std::string> used;
  for (std::size_t k = 0; k < m.rigs.size(); ++k) {
    auto& sk = m.rigs[k].sk;
    if (sk.name.empty())
      sk.name = sk.extras.contains("rig_name_bone") ? sk.extras["rig_name_bone"].get<std::string>()
                                                    : "skeleton_" + std::to_string(k);
    if (used.count(sk.name)) sk.name += "_" + std::to_string(k);
    used.insert(sk.name);
  }
  // Skeleton maps go with the rig whose bone count they declare, in file order.
  m.rig_map.assign(m.rigs.size(), -1);
  for (std::size_t j = 0; j < m.maps.size(); ++j)
    for (std::size_t k = 0; k < m.rigs.size(); ++k)
      if (m.rig_map[k] < 0 && m.maps[j].m.rig_bone_count == m.rigs[k].sk.bones.size()) {
        m.rig_map[k] = static_cast<int>(j);
        m.maps[j].rig = static_cast<int>(k);
        break;
      }
  m.meta["packets"] = m.raw.packets.size();
  m.meta["packet_types"] = type_counts;
  m.meta["event_tracks"] = events;
  m.meta["skeleton_maps"] = m.maps.size();
  return m;
}

// Which rig an NSA animates, when the MRN has several.
int choose_rig(const model& m, const nsa_file& f, const std::string& name,
               const read_context& ctx) {
  if (m.rigs.empty()) return -1;
  if (m.rigs.size() == 1) return 0;
  auto prefix = lower(name.substr(0, name.find('_')));
  for (std::size_t k = 0; k < m.rigs.size(); ++k)
    if (lower(m.rigs[k].sk.name) == prefix) return static_cast<int>(k);
  std::vector<int> hits;
  for (std::size_t k = 0; k < m.rigs.size(); ++k)
    if (m.rig_map[k] >= 0 &&
        m.maps[static_cast<std::size_t>(m.rig_map[k])].m.indices.size() == f.total_bones)
      hits.push_back(static_cast<int>(k));
  if (hits.size() == 1) return hits[0];
  hits.clear();
  for (std::size_t k = 0; k < m.rigs.size(); ++k)
    if (m.rigs[k].sk.bones.size() == f.total_bones) hits.push_back(static_cast<int>(k));
  if (hits.size() == 1) return hits[0];
  ctx.warn(code::w_pairing,
          "animation '" + name + "': no unique skeleton by name prefix or channel count; using '" +
              m.rigs[0].sk.name + "'");
  return 0;
}

struct built {
  animation anim;
  std::string mapping_kind;
};

// Things the NSA decoder noticed that the user should hear about.
void warn_nsa_notes(const nsa_file& f, const nsa_decoded& d, const std::string& name, const read_context& ctx,
                    std::uint64_t offset) {
  if (d.scale_channels_skipped)
    ctx.warn(code::w_unsupported_part,
        "animation '" + name + "': " + std::to_string(d.scale_channels_skipped) +
            " scale channels skipped (the scale format has never been seen in a Forgelight file)",
        offset);
  if (f.dynamic_segment && !f.dynamic_segment->note.empty())
    ctx.warn(code::w_suspicious_value, "animation '" + name + "': " + f.dynamic_segment->note,
            offset);
  if (f.trajectory && !f.trajectory->union_tests_agree)
    ctx.warn(code::w_suspicious_value,
            "animation '" + name + "': trajectory rotation pointer says " +
                (f.trajectory->constant_rotation ? "constant quaternion" : "factor set") +
                " but the last 8 bytes of the union say otherwise; the pointer decides",
            offset);
}

// Channel -> bone: through the rig's skeleton map when it fits, else by the bone-count offset.
std::vector<int> map_channels(const model& m, int rig_no, const std::vector<int>& remap, const nsa_file& f,
                              std::size_t channels, const std::string& name, const read_context& ctx,
                              std::uint64_t offset, built& out) {
  const int nb = static_cast<int>(m.rigs[static_cast<std::size_t>(rig_no)].sk.bones.size());
  animation& a = out.anim;
  std::vector<int> bone_of(channels, -1);
  int map_no = m.rig_map[static_cast<std::size_t>(rig_no)];
  // Only version 1 (read as RigToAnimMap type AnimToRig) is understood; another version would
  // be a different table type (e.g. MapPairs) and falls back with the reason named.
  bool map_ok = map_no >= 0 && m.maps[static_cast<std::size_t>(map_no)].m.version == 1 &&
                m.maps[static_cast<std::size_t>(map_no)].m.indices.size() == f.total_bones;
  if (map_ok) {
    const auto& mp = m.maps[static_cast<std::size_t>(map_no)];
    for (std::size_t c = 0; c < bone_of.size() && c < mp.m.indices.size(); ++c)
      if (mp.m.indices[c] < remap.size()) bone_of[c] = remap[mp.m.indices[c]];
    out.mapping_kind = "skeleton-map";
    a.extras["channel_map"] = "skeleton-map packet " + std::to_string(mp.packet);
    return bone_of;
  }
  long off = static_cast<long>(nb) - static_cast<long>(f.total_bones);
  for (std::size_t c = 0; c < bone_of.size(); ++c) {
    long b = static_cast<long>(c) + off;
    if (b >= 0 && b < nb) bone_of[c] = remap[static_cast<std::size_t>(b)];
  }
  out.mapping_kind = "bone-count-offset";
  a.extras["channel_map"] = "bone-count offset " + std::to_string(off) + " (fallback)";
  std::string why =
      map_no < 0 ? "no skeleton-map packet for this skeleton"
      : m.maps[static_cast<std::size_t>(map_no)].m.version != 1
          ? "the skeleton map has version " +
                std::to_string(m.maps[static_cast<std::size_t>(map_no)].m.version) +
                " (only 1 is understood)"
          : "the skeleton map lists " +
                std::to_string(m.maps[static_cast<std::size_t>(map_no)].m.indices.size()) +
                " channels, the NSA has " + std::to_string(f.total_bones);
  ctx.warn(code::w_fallback,
          "animation '" + name + "': " + why + "; channel c drives bone c + " +
              std::to_string(off) + " (bone count " + std::to_string(nb) + " - channel count " +
              std::to_string(f.total_bones) + ")",
          offset);
  return bone_of;
}

float time_at(std::size_t i, double rate) { return static_cast<float>(static_cast<double>(i) / rate); }

// Sample k at k / rate; a single value is a constant, keyed at 0 and at the end.
// `times_cache` holds time_at(0..n-1, rate) for one rate: the channels of an animation share
// their sample times, so the divisions run once per length instead of once per track.
template <class V>
track sampled_track(const std::string& bone, path p, const std::vector<V>& v, double rate, double dur,
                    std::vector<float>* times_cache = nullptr) {
  track t;
  t.bone = bone;
  t.path = p;
  if (v.size() == 1) {
    t.times = dur > 0 ? std::vector<float>{0.0f, static_cast<float>(dur)} : std::vector<float>{0.0f};
    for (std::size_t k = 0; k < t.times.size(); ++k)
      t.values.insert(t.values.end(), v[0].begin(), v[0].end());
  } else if (!v.empty()) {
    // Samples are contiguous arrays of floats: copied in one go, times sized once.
    if (times_cache && times_cache->size() == v.size()) {
      t.times = *times_cache;
    } else {
      t.times.reserve(v.size());
      for (std::size_t i = 0; i < v.size(); ++i) t.times.push_back(time_at(i, rate));
      if (times_cache) *times_cache = t.times;
    }
    t.values.assign(v.front().data(), v.front().data() + v.size() * v.front().size());
  }
  if (p == path::rotation) hemisphere_run(t.values.data(), t.values.size() / 4);
  return t;
}

// A dynamic channel of `S` >= 2 samples decoded straight into its track (sampled_track of the
// decoded channel, without the channel's own copy).
track dynamic_track(const std::string& bone, path p, const nsa_file& f, std::uint32_t entry, std::size_t S, double rate,
                    std::vector<float>& times_cache) {
  track t;
  t.bone = bone;
  t.path = p;
  if (times_cache.size() == S) {
    t.times = times_cache;
  } else {
    t.times.reserve(S);
    for (std::size_t i = 0; i < S; ++i) t.times.push_back(time_at(i, rate));
    times_cache = t.times;
  }
  if (p == path::translation) {
    t.values.resize(S * 3);
    fill_dynamic_translation(f, entry, t.values.data());
  } else {
    t.values.resize(S * 4);
    fill_dynamic_rotation(f, entry, t.values.data(), true);  // hemisphere-continuous as it goes
  }
  return t;
}

// Checks the time base and returns the duration: the header's, or longer when the samples
// or the trajectory reach further.
double animation_duration(const nsa_decoded& d, double traj_rate, const std::string& name, std::uint64_t offset) {
  const std::uint32_t S = d.sample_count;
  if (S > 1 && !(d.sample_rate > 0))
    fail(code::bad_value,
         "animation '" + name + "': " + std::to_string(S) + " samples but sample rate " +
             std::to_string(d.sample_rate),
         offset + 0x1C);
  std::size_t TS = d.trajectory_translation.size();
  if (d.has_trajectory && TS > 1 && !(traj_rate > 0))
    fail(code::bad_value,
         "animation '" + name + "': trajectory has " + std::to_string(TS) +
             " samples but no sample rate",
         offset);
  double dur = d.duration;
  if (S > 1) dur = std::max(dur, static_cast<double>(time_at(S - 1, d.sample_rate)));
  if (d.has_trajectory && TS > 1) dur = std::max(dur, static_cast<double>(time_at(TS - 1, traj_rate)));
  return dur;
}

// One translation and one rotation track per channel that drives a bone (the first
// channel of a bone wins; the trajectory bone is left to the trajectory segment).
void add_channel_tracks(const nsa_file& f, const nsa_plan& pl, const std::vector<int>& bone_of, const skeleton& sk,
                        int traj, const std::string& name, const read_context& ctx, std::uint64_t offset, animation& a) {
  const nsa_decoded& d = pl.d;
  std::size_t unmapped = 0, shadowed = 0;
  // The first channel of a bone wins (bone indices are scene bones: flags stand in for sets).
  std::vector<char> seen_t(sk.bones.size(), 0), seen_r(sk.bones.size(), 0);
  std::vector<float> times_cache;  // for d.sample_rate only
  for (std::size_t c = 0; c < d.channels.size(); ++c) {
    const auto& ch = d.channels[c];
    const std::int32_t et = pl.translation_entry(c), er = pl.rotation_entry(c);
    const bool has_t = !ch.translation.empty() || et >= 0, has_r = !ch.rotation.empty() || er >= 0;
    if (!has_t && !has_r) continue;
    int b = bone_of[c];
    if (b < 0) {
      ++unmapped;
      continue;
    }
    if (b == traj) {
      ++shadowed;
      continue;
    }
    const auto& bn = sk.bones[static_cast<std::size_t>(b)].name;
    const auto bs = static_cast<std::size_t>(b);
    if (has_t && !seen_t[bs]) {
      seen_t[bs] = 1;
      a.tracks.push_back(et >= 0 ? dynamic_track(bn, path::translation, f, static_cast<std::uint32_t>(et), d.sample_count,
                                                 d.sample_rate, times_cache)
                                 : sampled_track(bn, path::translation, ch.translation, d.sample_rate, a.duration,
                                                 &times_cache));
    }
    if (has_r && !seen_r[bs]) {
      seen_r[bs] = 1;
      a.tracks.push_back(er >= 0 ? dynamic_track(bn, path::rotation, f, static_cast<std::uint32_t>(er), d.sample_count,
                                                 d.sample_rate, times_cache)
                                 : sampled_track(bn, path::rotation, ch.rotation, d.sample_rate, a.duration, &times_cache));
    }
  }
  if (unmapped)
    ctx.warn(code::w_missing_bone,
            "animation '" + name + "': " + std::to_string(unmapped) +
                " channels map to no bone of '" + sk.name + "' and were skipped",
            offset);
  if (shadowed)
    ctx.warn(code::w_suspicious_value,
            "animation '" + name + "': a channel also drives the trajectory bone '" +
                sk.bones[static_cast<std::size_t>(traj)].name + "'; the trajectory segment wins",
            offset);
}

// The trajectory segment as root motion on the trajectory bone.
void add_trajectory_tracks(const nsa_file& f, const nsa_decoded& d, const skeleton& sk, int traj, double rate,
                           animation& a) {
  const auto& bn = sk.bones[static_cast<std::size_t>(traj)].name;
  auto tv = d.trajectory_translation;
  auto rv = d.trajectory_rotation;
  bool tconst = std::all_of(tv.begin(), tv.end(), [&](const vec3& v) { return v == tv[0]; });
  bool rconst = std::all_of(rv.begin(), rv.end(), [&](const quat& q) { return q == rv[0]; });
  if (tconst) tv.resize(1);
  if (rconst) rv.resize(1);
  a.tracks.push_back(sampled_track(bn, path::translation, tv, rate, a.duration));
  a.tracks.push_back(sampled_track(bn, path::rotation, rv, rate, a.duration));
  a.extras["root_motion"] = nlohmann::json::array({bn});
  a.extras["trajectory_rotation"] = f.trajectory->constant_rotation ? "constant" : "factors";
}

built build_animation(const model& m, int rig_no, const std::vector<int>& remap, const nsa_file& f,
                      const std::string& name, const read_context& ctx, std::uint64_t offset) {
  const auto pl = plan_nsa(f, true);  // dynamic samples decoded straight into their tracks below
  const nsa_decoded& d = pl.d;
  const auto& sk = m.rigs[static_cast<std::size_t>(rig_no)].sk;
  built out;
  animation& a = out.anim;
  a.name = name;
  a.skeleton = rig_no;
  if (d.sample_rate > 0) a.fps = d.sample_rate;
  warn_nsa_notes(f, d, name, ctx, offset);
  auto bone_of = map_channels(m, rig_no, remap, f, d.channels.size(), name, ctx, offset, out);
  double tr = d.trajectory_rate > 0 ? d.trajectory_rate : d.sample_rate;
  a.duration = animation_duration(d, tr, name, offset);
  int traj = d.has_trajectory ? trajectory_bone(sk) : -1;
  add_channel_tracks(f, pl, bone_of, sk, traj, name, ctx, offset, a);
  if (traj >= 0) add_trajectory_tracks(f, d, sk, traj, tr, a);
  a.extras["crc32"] = hex8(f.crc);
  a.extras["crc32_matches_payload"] = f.crc == f.computed_crc;
  a.extras["sample_count"] = d.sample_count;
  return out;
}

std::string mapping_summary(const std::map<std::string, int>& kinds) {
  std::string s;
  for (const auto& [k, n] : kinds)
    s += (s.empty() ? "" : ", ") + k + " (" + std::to_string(n) + " animations)";
  return s;
}

void fill_scene_skeletons(scene& s, const model& m) {
  for (const auto& r : m.rigs) s.skeletons.push_back(r.sk);
}

// Loads the MRN that holds the skeleton (--skeleton or paired); its errors name that file
// and are reported at `at` in the file being read.
model load_skeleton_mrn(const read_context& ctx, const std::string& skel, std::vector<std::vector<int>>& remaps,
                        std::uint64_t at) {
  auto data =
      ctx.load ? ctx.load(skel) : result<bytes>(make_error(code::io_error, "no file access"));
  if (!data)
    fail(data.error().code, "skeleton MRN " + skel + ": " + data.error().message, at);
  try {
    return load_model(data.value(), ctx, remaps);
  } catch (const core::failure& e) {
    fail(e.error().code,
         "skeleton MRN " + skel + " @ " + core::byte_reader::hex(e.error().offset) + ": " +
             e.error().message,
         at);
  }
}

// An MRN with animations but no skeleton packet borrows the rigs and skeleton maps of
// another MRN (--skeleton).
void borrow_rigs(model& m, std::vector<std::vector<int>>& remaps, scene& s, const read_context& ctx,
                 std::uint64_t first_nsa) {
  if (!ctx.options.skeleton_path)
    fail(code::missing_skeleton,
         "the MRN holds animations but no skeleton packet; pass --skeleton OTHER.mrn",
         first_nsa);
  const auto& skel = *ctx.options.skeleton_path;
  std::vector<std::vector<int>> r2;
  model other = load_skeleton_mrn(ctx, skel, r2, first_nsa);
  if (other.rigs.empty())
    fail(code::missing_skeleton, "the MRN " + skel + " has no skeleton packet either",
         first_nsa);
  m.rigs = std::move(other.rigs);
  m.maps = std::move(other.maps);
  m.rig_map = std::move(other.rig_map);
  remaps = std::move(r2);
  fill_scene_skeletons(s, m);
  s.metadata["skeleton_file"] = skel;
}

// The animation of NSA packet i (the nth NSA), named from the file-names entry of its
// header index (falling back to the NSA's ordinal).
built animation_of_packet(const model& m, const std::vector<std::vector<int>>& remaps, std::size_t i,
                          std::size_t nth, const read_context& ctx) {
  const auto& p = m.raw.packets[i];
  byte_reader r(p.payload, core::endian::little, p.payload_offset());
  auto f = parse_nsa(r);
  std::size_t fi = p.index;
  std::string name, file;
  if (m.names) {
    if (fi >= m.names->files.strings.size()) fi = nth;
    if (fi < m.names->files.strings.size()) file = m.names->files.strings[fi];
  }
  name = !file.empty() ? stem_of(file) : "nsa_" + std::to_string(p.index);
  int rig = choose_rig(m, f, name, ctx);
  auto b = build_animation(m, rig, remaps[static_cast<std::size_t>(rig)], f, name, ctx,
                           p.payload_offset());
  auto& a = b.anim;
  a.extras["nsa_packet"] = i;
  a.extras["nsa_index"] = p.index;
  if (!file.empty()) {
    a.extras["file_name"] = file;
    if (fi < m.names->sources.strings.size())
      a.extras["source_file"] = m.names->sources.strings[fi];
    if (fi < m.names->takes.strings.size()) a.extras["take"] = m.names->takes.strings[fi];
    if (fi < m.names->crcs.size())
      a.extras["crc32_matches_file_names"] = m.names->crcs[fi] == f.crc;
  }
  return b;
}

// Skeleton of a standalone NSA: --skeleton, else <stem>.mrn beside the file, else the
// only *.mrn in the folder. Returns the path and how it was found.
std::pair<std::string, std::string> find_skeleton_mrn(const read_context& ctx) {
  if (ctx.options.skeleton_path) return {*ctx.options.skeleton_path, "--skeleton"};
  std::filesystem::path p(ctx.path);
  auto cand = (p.parent_path() / (p.stem().string() + ".mrn")).string();
  if (ctx.file_exists(cand)) return {cand, "same stem"};
  std::error_code ec;
  std::vector<std::string> found;
  auto dir = p.parent_path().empty() ? std::filesystem::path(".") : p.parent_path();
  // Only for a real file on disk (not memory input or a fuzzing name).
  if (ctx.file_exists(ctx.path) && std::filesystem::is_directory(dir, ec)) {
    std::size_t seen = 0;
    for (auto it = std::filesystem::directory_iterator(dir, ec);
         !ec && it != std::filesystem::directory_iterator() && seen < 100000;
         it.increment(ec), ++seen)
      if (lower(it->path().extension().string()) == ".mrn")
        found.push_back(it->path().string());
  }
  if (found.size() != 1)
    fail(code::missing_skeleton,
         "a standalone NSA needs the MRN holding its skeleton: pass --skeleton FILE.mrn "
         "(looked for " +
             cand +
             (found.empty() ? " and any .mrn in the folder)"
                            : "; the folder has several .mrn files)"),
         0);
  return {found[0], "only .mrn in the folder"};
}

}  // namespace

scene read_mrn_scene(const read_context& ctx) {
  std::vector<std::vector<int>> remaps;
  auto m = load_model(ctx.data, ctx, remaps);
  scene s;
  s.format = "morpheme-mrn";
  fill_scene_skeletons(s, m);
  std::uint64_t first_nsa = no_offset;
  for (const auto& p : m.raw.packets)
    if (p.type == pt_nsa && first_nsa == no_offset) first_nsa = p.offset;
  if (first_nsa != no_offset && m.rigs.empty()) borrow_rigs(m, remaps, s, ctx, first_nsa);
  std::map<std::string, int> kinds;
  std::size_t ordinal = 0;
  std::optional<core::failure> first_failure;
  std::size_t skipped = 0;
  for (std::size_t i = 0; i < m.raw.packets.size(); ++i) {
    if (m.raw.packets[i].type != pt_nsa) continue;
    std::size_t nth = ordinal++;
    // One NSA the decoder cannot read is skipped with a warning naming the error and its
    // offset, so the rest of a game's MRN still converts; if none decodes, the first error is
    // the file's error.
    try {
      auto b = animation_of_packet(m, remaps, i, nth, ctx);
      kinds[b.mapping_kind]++;
      s.animations.push_back(std::move(b.anim));
    } catch (const core::failure& e) {
      if (!first_failure) first_failure = e;
      ++skipped;
      ctx.warn(code::w_unsupported_part,
              "NSA packet " + std::to_string(i) +
                  " skipped: " + std::string(info(e.error().code).id) + " at " +
                  core::byte_reader::hex(e.error().offset) + ": " + e.error().message,
              e.error().offset);
    }
  }
  if (first_failure && s.animations.empty()) throw *first_failure;
  if (skipped) m.meta["nsa_skipped"] = skipped;
  // Unique animation names (glTF tools select by name).
  std::map<std::string, int> seen;
  for (auto& a : s.animations)
    if (seen[a.name]++) a.name += "_" + std::to_string(seen[a.name] - 1);
  s.metadata["morpheme"] = m.meta;
  if (!kinds.empty()) s.metadata["channel_mapping"] = mapping_summary(kinds);
  return s;
}

scene read_nsa_scene(const read_context& ctx) {
  byte_reader r(ctx.data);
  auto f = parse_nsa(r);
  auto [skel, how] = find_skeleton_mrn(ctx);
  std::vector<std::vector<int>> remaps;
  model m = load_skeleton_mrn(ctx, skel, remaps, 0);
  if (m.rigs.empty())
    fail(code::missing_skeleton, "the MRN " + skel + " has no skeleton packet", 0);
  std::string name = stem_of(ctx.path.empty() ? std::string("animation") : ctx.path);
  std::string file;
  if (m.names)
    for (std::size_t i = 0; i < m.names->crcs.size() && i < m.names->files.strings.size(); ++i)
      if (m.names->crcs[i] == f.crc) {
        file = m.names->files.strings[i];
        break;
      }
  int rig = choose_rig(m, f, file.empty() ? name : stem_of(file), ctx);
  auto b = build_animation(m, rig, remaps[static_cast<std::size_t>(rig)], f, name, ctx, 0);
  if (!file.empty()) b.anim.extras["file_name"] = file;
  scene s;
  s.format = "morpheme-nsa";
  s.skeletons.push_back(m.rigs[static_cast<std::size_t>(rig)].sk);  // only the rig it animates
  b.anim.skeleton = 0;
  s.animations.push_back(std::move(b.anim));
  s.metadata["skeleton_file"] = skel;
  s.metadata["skeleton_pairing"] = how;
  s.metadata["channel_mapping"] = mapping_summary({{b.mapping_kind, 1}});
  return s;
}

}  // namespace rigrip::morpheme
