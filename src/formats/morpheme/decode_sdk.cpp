// morpheme 5 runtime bundles (.nmb) and their animation sources (.nsa, .qsa) -> scene:
// one skeleton per rig packet (bind pose as rest), one animation per source the bundle names.
#include "formats/morpheme/decode_sdk.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <set>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

#include "core/folder.hpp"
#include "core/math.hpp"
#include "formats/morpheme/common.hpp"
#include "formats/morpheme/hemisphere.hpp"

namespace rigrip::morpheme {

using core::byte_reader;
using core::fail;
using hexs = core::byte_reader;

namespace {

constexpr std::uint32_t pt_sdk_rig = 1, pt_sdk_map = 2, pt_sdk_network = 10, pt_sdk_file_names = 13;

template <class File, class Packet>
sized_reader payload_of(const File& f, const Packet& p) {
  return sized_reader{byte_reader(p.payload, core::endian::little, p.payload_offset()), f.pointer_size()};
}

struct built_rig {
  skeleton sk;
  std::vector<int> remap;  // rig bone -> scene bone
  int root_motion_bone = -1;
};

built_rig make_skeleton(const sdk_rig& r, const std::optional<sdk_rig_to_anim_map>& map, std::size_t packet_no,
                        std::uint64_t offset, const read_context& ctx) {
  built_rig b;
  const std::string where = "rig packet " + std::to_string(packet_no);
  for (std::uint32_t i = 0; i < r.bone_count; ++i)
    if (r.parents[i] < -1 || r.parents[i] >= static_cast<std::int32_t>(r.bone_count) || r.parents[i] == static_cast<std::int32_t>(i))
      fail(code::bad_value, where + ": bone " + std::to_string(i) + " has parent " + std::to_string(r.parents[i]), offset);
  if (r.bind_translation.size() != r.bone_count)
    ctx.warn(code::w_fallback, where + " has no bind pose; bones rest at the origin", offset);
  else if (r.buffer_length != r.bone_count)
    ctx.warn(code::w_suspicious_value,
             where + ": the bind-pose buffer says " + std::to_string(r.buffer_length) + " entries, the hierarchy " +
                 std::to_string(r.bone_count) + " bones; read for the hierarchy's count",
             offset);
  if (r.names.size() != r.bone_count)
    ctx.warn(code::w_name_mismatch, where + ": " + std::to_string(r.names.size()) + " bone names for " +
                                        std::to_string(r.bone_count) + " bones", offset);
  // The names first: nearly always all distinct, and then the renaming set is not needed.
  std::vector<std::string> names(r.bone_count);
  for (std::uint32_t i = 0; i < r.bone_count; ++i) {
    auto& n = names[i];
    n = i < r.names.size() && !r.names[i].empty() ? r.names[i] : "bone_" + std::to_string(i);
    if (ctx.options.upper_case_bones)
      for (auto& c : n) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  }
  bool renames = false;
  {
    std::vector<std::string_view> sorted(names.begin(), names.end());
    std::sort(sorted.begin(), sorted.end(), [](std::string_view x, std::string_view y) {  // equality only: length first
      return x.size() != y.size() ? x.size() < y.size() : x < y;
    });
    renames = std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end();
  }
  std::set<std::string> used;
  b.sk.bones.reserve(r.bone_count);
  for (std::uint32_t i = 0; i < r.bone_count; ++i) {
    bone bn;
    bn.name = std::move(names[i]);
    if (renames && used.count(bn.name)) {
      ctx.warn(code::w_name_mismatch, "duplicate bone name '" + bn.name + "' renamed '" + bn.name + "_" + std::to_string(i) + "'");
      bn.name += "_" + std::to_string(i);
    }
    if (renames) used.insert(bn.name);
    bn.parent = r.parents[i];
    if (i < r.bind_translation.size()) {
      quat q = r.bind_rotation[i];
      vec3 t = r.bind_translation[i];
      if (!core::finite(q) || !core::finite(t) || core::dot(q, q) < 1e-12f) {
        ctx.warn(code::w_suspicious_value, "bone '" + bn.name + "': bind pose not finite or a zero quaternion; identity used");
        q = {0, 0, 0, 1};
        t = {0, 0, 0};
      }
      bn.translation = t;
      bn.rotation = core::normalize(q);
    }
    b.sk.bones.push_back(std::move(bn));
  }
  order_bones(b.sk, b.remap, offset, "rig");
  b.sk.name = r.names.size() > 1 ? r.names[1] : "rig_" + std::to_string(packet_no);
  b.sk.extras["packet"] = packet_no;
  if (r.trajectory_bone < r.bone_count)
    b.sk.extras["trajectory_bone"] = b.sk.bones[static_cast<std::size_t>(b.remap[r.trajectory_bone])].name;
  if (r.character_root_bone < r.bone_count)
    b.sk.extras["character_root_bone"] = b.sk.bones[static_cast<std::size_t>(b.remap[r.character_root_bone])].name;
  // Root motion: morpheme puts the character's world transform on bone 0; when no animation
  // channel drives bone 0, the trajectory goes there (the whole body moves), otherwise on the
  // rig's trajectory bone.
  bool bone0_driven = map && !map->used_words.empty() && msb_bit(map->used_words, 0);
  std::uint32_t rm = bone0_driven && r.trajectory_bone < r.bone_count ? r.trajectory_bone : 0;
  b.root_motion_bone = r.bone_count ? b.remap[rm] : -1;
  return b;
}

// Channel c of an animation -> scene bone (or -1), from the rig's AnimToRig map.
std::vector<int> channel_bones(const std::optional<sdk_rig_to_anim_map>& map, const built_rig& b, std::uint32_t channels,
                               const std::string& anim, const read_context& ctx) {
  std::vector<int> out(channels, -1);
  const int nb = static_cast<int>(b.sk.bones.size());
  if (map && map->type == 1 && map->anim_to_rig.size() >= channels) {
    for (std::uint32_t c = 0; c < channels; ++c)
      if (map->anim_to_rig[c] < b.remap.size()) out[c] = b.remap[map->anim_to_rig[c]];
    return out;
  }
  // Without a usable map: channel c drives bone c + (bones - channels), as Forgelight tools do.
  long off = static_cast<long>(nb) - static_cast<long>(channels);
  for (std::uint32_t c = 0; c < channels; ++c) {
    long bi = static_cast<long>(c) + off;
    if (bi >= 0 && bi < nb) out[c] = b.remap[static_cast<std::size_t>(bi)];
  }
  std::string why = !map ? "the bundle has no rig-to-animation map"
                   : map->type != 1 ? "the rig-to-animation map has type " + std::to_string(map->type) + " (only 1, AnimToRig, is understood)"
                                    : "the rig-to-animation map lists " + std::to_string(map->anim_to_rig.size()) +
                                          " channels, the animation has " + std::to_string(channels);
  ctx.warn(code::w_fallback, "animation '" + anim + "': " + why + "; channel c drives bone c + " + std::to_string(off));
  return out;
}

// `pl.d` with the channels of `pl`'s deferred entries decoded from `raw` into their tracks.
animation build_animation(const nsa_plan& pl, const nsa5_file* raw, const built_rig& b, int skeleton_index,
                          const std::vector<int>& bone_of, const std::string& name, const read_context& ctx) {
  const nsa_decoded& d = pl.d;
  animation a;
  a.name = name;
  a.skeleton = skeleton_index;
  if (d.sample_rate > 0) a.fps = d.sample_rate;
  const auto& sk = b.sk;
  const std::uint32_t S = d.sample_count;
  if (S > 1 && !(d.sample_rate > 0)) fail(code::bad_value, "animation '" + name + "': samples but no sample rate");
  double tr = d.trajectory_rate > 0 ? d.trajectory_rate : d.sample_rate;
  std::size_t TS = std::max(d.trajectory_translation.size(), d.trajectory_rotation.size());
  if (d.has_trajectory && TS > 1 && !(tr > 0)) fail(code::bad_value, "animation '" + name + "': trajectory without a rate");
  auto time_at = [](std::size_t i, double rate) { return static_cast<float>(static_cast<double>(i) / rate); };
  double dur = std::isfinite(d.duration) && d.duration > 0 ? d.duration : 0;
  if (S > 1) dur = std::max(dur, static_cast<double>(time_at(S - 1, d.sample_rate)));
  if (d.has_trajectory && TS > 1) dur = std::max(dur, static_cast<double>(time_at(TS - 1, tr)));
  a.duration = dur;
  auto times_for = [&](std::size_t n, double rate) {
    std::vector<float> t;
    t.reserve(n == 1 ? 2 : n);
    if (n == 1) {
      t.push_back(0.0f);
      if (dur > 0) t.push_back(static_cast<float>(dur));
    } else {
      for (std::size_t i = 0; i < n; ++i) t.push_back(std::min(time_at(i, rate), static_cast<float>(dur)));
    }
    return t;
  };
  // Channels share a few (count, rate) pairs (the source's samples, one key for a constant
  // channel, the trajectory's): each pair's times are computed once and copied. Constant and
  // sampled channels interleave, so one cache entry per pair, not just the last.
  struct times_entry {
    std::size_t n;
    double rate;
    std::vector<float> times;
  };
  std::vector<times_entry> times_cache;
  times_cache.reserve(4);
  auto cached_times = [&](std::size_t n, double rate) -> const std::vector<float>& {
    for (const auto& e : times_cache)
      if (e.n == n && e.rate == rate) return e.times;
    if (times_cache.size() == 4) times_cache.erase(times_cache.begin());
    times_cache.push_back({n, rate, times_for(n, rate)});
    return times_cache.back().times;
  };
  auto add = [&](const std::string& bone, path p, const float* v, std::size_t n, std::size_t comps, double rate) {
    track t;
    t.bone = bone;
    t.path = p;
    t.times = cached_times(n, rate);
    if (n == 1) {
      t.values.reserve(t.times.size() * comps);
      for (std::size_t k = 0; k < t.times.size(); ++k) t.values.insert(t.values.end(), v, v + comps);
    } else {
      t.values.assign(v, v + n * comps);  // one sample per time, in order
    }
    if (p == path::rotation) hemisphere_run(t.values.data(), t.values.size() / 4);
    a.tracks.push_back(std::move(t));
  };
  // A deferred entry: n = S >= 2 samples decoded straight into the track (as `add` would copy them).
  auto add_entry = [&](const std::string& bone, path p, std::uint32_t entry) {
    track t;
    t.bone = bone;
    t.path = p;
    const std::size_t n = S;
    t.times = cached_times(n, d.sample_rate);
    if (p == path::translation) {
      t.values.resize(n * 3);
      fill_nsa5_translation(*raw, entry, t.values.data());
    } else {
      t.values.resize(n * 4);
      fill_nsa5_rotation(*raw, entry, S, t.values.data());  // hemisphere-continuous
    }
    a.tracks.push_back(std::move(t));
  };
  const int root = d.has_trajectory ? b.root_motion_bone : -1;
  std::size_t unmapped = 0, shadowed = 0;
  // The first channel that drives a bone's translation / rotation wins (bone indices are
  // scene bones, so flags per bone stand in for sets).
  std::vector<char> seen_t(sk.bones.size(), 0), seen_r(sk.bones.size(), 0);
  a.tracks.reserve(2 * d.channels.size() + 2);  // at most two per channel and the root motion
  for (std::size_t c = 0; c < d.channels.size(); ++c) {
    const auto& ch = d.channels[c];
    const std::int32_t et = raw ? pl.translation_entry(c) : -1, er = raw ? pl.rotation_entry(c) : -1;
    const bool has_t = !ch.translation.empty() || et >= 0, has_r = !ch.rotation.empty() || er >= 0;
    if (!has_t && !has_r) continue;  // the rig's pose stays
    int bi = c < bone_of.size() ? bone_of[c] : -1;
    if (bi < 0) {
      ++unmapped;
      continue;
    }
    if (bi == root) {
      ++shadowed;
      continue;
    }
    const auto& bn = sk.bones[static_cast<std::size_t>(bi)].name;
    const auto bs = static_cast<std::size_t>(bi);
    if (has_t && !seen_t[bs]) {
      seen_t[bs] = 1;
      if (et >= 0)
        add_entry(bn, path::translation, static_cast<std::uint32_t>(et));
      else
        add(bn, path::translation, ch.translation[0].data(), ch.translation.size(), 3, d.sample_rate);
    }
    if (has_r && !seen_r[bs]) {
      seen_r[bs] = 1;
      if (er >= 0)
        add_entry(bn, path::rotation, static_cast<std::uint32_t>(er));
      else
        add(bn, path::rotation, ch.rotation[0].data(), ch.rotation.size(), 4, d.sample_rate);
    }
  }
  if (unmapped)
    ctx.warn(code::w_missing_bone, "animation '" + name + "': " + std::to_string(unmapped) + " channels map to no bone of '" +
                                       sk.name + "' and were skipped");
  if (shadowed)
    ctx.warn(code::w_suspicious_value, "animation '" + name + "': a channel also drives the root-motion bone '" +
                                           sk.bones[static_cast<std::size_t>(root)].name + "'; the trajectory wins");
  if (root >= 0) {
    const auto& bn = sk.bones[static_cast<std::size_t>(root)].name;
    auto tv = d.trajectory_translation;
    auto rv = d.trajectory_rotation;
    if (std::all_of(tv.begin(), tv.end(), [&](const vec3& v) { return v == tv[0]; })) tv.resize(1);
    if (std::all_of(rv.begin(), rv.end(), [&](const quat& q) { return q == rv[0]; })) rv.resize(1);
    add(bn, path::translation, tv[0].data(), tv.size(), 3, tr);
    add(bn, path::rotation, rv[0].data(), rv.size(), 4, tr);
    a.extras["root_motion"] = nlohmann::json::array({bn});
  }
  a.extras["sample_count"] = S;
  return a;
}

struct source_result {
  nsa_plan plan;                  // NSA: dynamic channels deferred to `nsa5`; QSA: decoded
  std::optional<nsa5_file> nsa5;  // the raw NSA the deferred channels are decoded from
  std::string kind;               // "nsa" or "qsa"
  bool x64 = true;
};

source_result decode_source(byte_view data) {
  byte_reader r(data);
  auto probe = probe_source5(data);
  if (!probe) fail(code::bad_magic, "not a morpheme 5 NSA/QSA animation source (header does not check out)", 0);
  source_result out;
  out.x64 = probe->x64;
  if (probe->type == source_type_nsa) {
    out.nsa5 = parse_nsa5(r);
    out.plan = plan_nsa5(*out.nsa5, true);
    out.kind = "nsa";
  } else {
    out.plan.d = decode_qsa(parse_qsa(r));
    out.kind = "qsa";
  }
  return out;
}

std::string dir_of(const std::string& path) {
  auto p = std::filesystem::path(path).parent_path();
  return p.empty() ? std::string() : p.string();
}
std::string join(const std::string& dir, const std::string& file) {
  return dir.empty() ? file : (std::filesystem::path(dir) / file).string();
}

}  // namespace

std::vector<std::string> animation_names(const sdk_file_names& fn) {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < fn.files.size(); ++i) {
    std::string n(i < fn.sources.size() && !fn.sources[i].empty() ? stem_view(fn.sources[i]) : stem_view(fn.files[i]));
    out.push_back(n.empty() ? "animation_" + std::to_string(i) : n);
  }
  // A name is a duplicate while another entry (as renamed so far) still equals it: counts of
  // the current names, kept up to date as names take their take's suffix.
  std::unordered_map<std::string, std::size_t> count;
  count.reserve(out.size());
  for (const auto& n : out) ++count[n];
  for (std::size_t i = 0; i < out.size(); ++i) {
    bool dup = count[out[i]] > 1;
    if (dup && i < fn.takes.size()) {
      --count[out[i]];
      out[i] += '_';
      out[i] += fn.takes[i];
      ++count[out[i]];
    }
  }
  std::unordered_set<std::string> used;
  used.reserve(out.size());
  for (std::size_t i = 0; i < out.size(); ++i) {
    if (used.count(out[i])) out[i] = stem_view(fn.files[i]);
    if (used.count(out[i])) out[i] += "_" + std::to_string(i);
    used.insert(out[i]);
  }
  return out;
}

std::string animation_name(const sdk_file_names& fn, std::size_t i) {
  // The first names as views; an empty stem ("animation_<i>") or two equal names take the rules.
  std::vector<std::string_view> first;
  first.reserve(fn.files.size());
  for (std::size_t k = 0; k < fn.files.size(); ++k) {
    auto n = k < fn.sources.size() && !fn.sources[k].empty() ? stem_view(fn.sources[k]) : stem_view(fn.files[k]);
    if (n.empty()) return animation_names(fn)[i];
    first.push_back(n);
  }
  const std::string_view mine = first[i];
  // Only equality matters: order by length first, so most comparisons skip the characters.
  std::sort(first.begin(), first.end(), [](std::string_view x, std::string_view y) {
    return x.size() != y.size() ? x.size() < y.size() : x < y;
  });
  if (std::adjacent_find(first.begin(), first.end()) != first.end()) return animation_names(fn)[i];
  return std::string(mine);  // all distinct: no take suffix, no renaming
}

namespace {

const sdk_rig_to_anim_map* map_for(const sdk_bundle& b, const sdk_rig& r) {
  for (const auto& [p, m] : b.maps)
    if (m.used_bits == r.bone_count) return &m;
  return b.maps.empty() ? nullptr : &b.maps.front().second;
}

}  // namespace

sdk_bundle load_sdk_bundle(bytes&& data) {
  bytes owned = std::move(data);
  auto b = load_sdk_bundle(byte_view(owned));
  b.owned = std::move(owned);  // the buffer moves, its views stay valid
  return b;
}

sdk_bundle load_sdk_bundle(byte_view data) {
  sdk_bundle b;
  b.raw = scan_mrn(data);
  if (b.raw.variant == bundle_variant::forgelight_x64)
    fail(code::bad_magic, "a Forgelight MRN (magic 0x1A), not a morpheme 5 bundle", 0);
  for (std::size_t i = 0; i < b.raw.packets.size(); ++i) {
    const auto& p = b.raw.packets[i];
    auto s = payload_of(b.raw, p);
    switch (p.type) {
      case pt_sdk_rig: b.rigs.push_back({i, read_sdk_rig(s)}); break;
      case pt_sdk_map: b.maps.push_back({i, read_sdk_rig_to_anim_map(s)}); break;
      case pt_sdk_file_names: b.names = read_sdk_file_names(s); break;
      default: break;
    }
  }
  return b;
}

scene read_nmb_scene(const read_context& ctx) {
  auto b = load_sdk_bundle(ctx.data);
  scene s;
  s.format = "morpheme-nmb";
  if (b.rigs.empty()) fail(code::missing_skeleton, "the bundle holds no rig packet (type 1)", 0);
  std::vector<built_rig> rigs;
  for (const auto& [pi, r] : b.rigs) {
    const auto* m = map_for(b, r);
    std::optional<sdk_rig_to_anim_map> mo;
    if (m) mo = *m;
    rigs.push_back(make_skeleton(r, mo, pi, b.raw.packets[pi].payload_offset(), ctx));
    s.skeletons.push_back(rigs.back().sk);
  }
  // The network (for metadata only: a damaged network does not stop the conversion).
  for (std::size_t i = 0; i < b.raw.packets.size(); ++i) {
    if (b.raw.packets[i].type != pt_sdk_network) continue;
    try {
      auto net = read_network(payload_of(b.raw, b.raw.packets[i]));
      nlohmann::json sm = nlohmann::json::array();
      for (const auto& m : net.state_machines)
        sm.push_back({{"name", net.nodes[m.node].name}, {"states", m.states.size()}, {"transitions", m.transitions.size()}});
      s.metadata["network"] = {{"nodes", net.nodes.size()}, {"state_machines", sm},
                               {"control_parameters", net.control_parameters.size()}};
    } catch (const core::failure& e) {
      ctx.warn(code::w_unsupported_part, "network packet " + std::to_string(i) + " not decoded (" +
                                             std::string(info(e.error().code).id) + " @ " + hexs::hex(e.error().offset) +
                                             ": " + e.error().message + ")", b.raw.packets[i].payload_offset());
    }
  }
  nlohmann::json sources = nlohmann::json::array();
  if (b.names) {
    const auto& fn = *b.names;
    auto names = animation_names(fn);
    const std::string dir = dir_of(ctx.path);
    std::size_t missing = 0;
    const auto& rig = rigs.front();
    const auto& rig_raw = b.rigs.front().second;
    const auto* map = map_for(b, rig_raw);
    std::optional<sdk_rig_to_anim_map> mo;
    if (map) mo = *map;
    for (std::size_t i = 0; i < fn.files.size(); ++i) {
      const std::string file(fn.files[i]);
      const std::string path = join(dir, file);
      nlohmann::json src{{"file", file}, {"animation", names[i]}};
      auto data = ctx.load ? ctx.load(path) : result<bytes>(make_error(code::io_error, "no file access"));
      if (!data) {
        ++missing;
        src["status"] = "missing";
        ctx.warn(code::w_unsupported_part, "animation source '" + file + "' not found beside the bundle (" +
                                               data.error().message + "); animation '" + names[i] + "' skipped");
        sources.push_back(src);
        continue;
      }
      try {
        auto res = decode_source(data.value());
        auto bone_of = channel_bones(mo, rig, static_cast<std::uint32_t>(res.plan.d.channels.size()), names[i], ctx);
        auto a = build_animation(res.plan, res.nsa5 ? &*res.nsa5 : nullptr, rig, 0, bone_of, names[i], ctx);
        a.extras["file_name"] = file;
        if (i < fn.sources.size()) a.extras["source_file"] = std::string(fn.sources[i]);
        if (i < fn.takes.size()) a.extras["take"] = std::string(fn.takes[i]);
        if (i < fn.crcs.size()) a.extras["file_name_crc"] = hex8(fn.crcs[i]);
        a.extras["source_kind"] = res.kind;
        s.animations.push_back(std::move(a));
        src["status"] = "decoded";
        src["kind"] = res.kind;
      } catch (const core::failure& e) {
        ++missing;
        src["status"] = "failed";
        ctx.warn(code::w_unsupported_part, "animation source '" + file + "' skipped: " +
                                               std::string(info(e.error().code).id) + " @ " + hexs::hex(e.error().offset) +
                                               ": " + e.error().message);
      }
      sources.push_back(src);
    }
    s.metadata["animation_sources_skipped"] = missing;
  }
  s.metadata["animation_sources"] = sources;
  s.metadata["pointer_size"] = b.raw.pointer_size();
  s.metadata["packets"] = b.raw.packets.size();
  return s;
}

namespace {

struct found_bundle {
  std::string path, how;
  std::optional<sdk_bundle> parsed;  // already loaded and parsed while searching: not read twice
};

}  // namespace

// std::filesystem's extension rule: from the last dot, unless that dot starts the name.
bool nmb_name(std::string_view name) {
  auto dot = name.rfind('.');
  if (dot == std::string_view::npos || dot == 0 || name == "..") return false;
  return lower(std::string(name.substr(dot))) == ".nmb";
}

namespace {

// Paths (dir / name) of the .nmb files in `dir`, unsorted, at most 100,000 entries looked at
// (the file type is not asked: a folder named *.nmb fails to load like any unreadable file).
std::vector<std::string> nmb_files_in(const std::filesystem::path& dir) {
  std::vector<std::string> out;
  core::for_each_folder_entry(dir, 100000, [&](std::string_view name, auto&&) {
    if (nmb_name(name)) out.push_back((dir / std::string(name)).string());
  });
  return out;
}

// The bundle of a standalone source: --skeleton, else the bundle in the folder whose file-name
// table lists this file, else the only .nmb in the folder.
found_bundle find_bundle(const read_context& ctx, const std::string& file_name) {
  if (ctx.options.skeleton_path) return {*ctx.options.skeleton_path, "--skeleton", std::nullopt};
  std::vector<std::string> bundles;
  std::filesystem::path p(ctx.path);
  auto dir = p.parent_path().empty() ? std::filesystem::path(".") : p.parent_path();
  std::error_code ec;
  if (ctx.file_exists(ctx.path) && std::filesystem::is_directory(dir, ec)) bundles = nmb_files_in(dir);
  std::sort(bundles.begin(), bundles.end());
  for (const auto& b : bundles) {
    auto data = ctx.load ? ctx.load(b) : result<bytes>(make_error(code::io_error, "no file access"));
    if (!data) continue;
    try {
      auto sb = load_sdk_bundle(std::move(data.value()));
      if (sb.names && std::find(sb.names->files.begin(), sb.names->files.end(), file_name) != sb.names->files.end())
        return {b, "bundle listing the file", std::move(sb)};
    } catch (const core::failure&) {
    }
  }
  if (bundles.size() == 1) return {bundles[0], "only .nmb in the folder", std::nullopt};
  fail(code::missing_skeleton,
       "a standalone NSA/QSA needs the bundle holding its rig: pass --skeleton FILE.nmb (found " +
           std::to_string(bundles.size()) + " .nmb files beside it, none listing '" + file_name + "')", 0);
}

}  // namespace

scene read_source5_scene(const read_context& ctx) {
  auto res = decode_source(ctx.data);
  const std::string file_name = std::filesystem::path(ctx.path).filename().string();
  auto found = find_bundle(ctx, file_name);
  const std::string& bundle_path = found.path;
  const std::string& how = found.how;
  sdk_bundle b;
  if (found.parsed) {
    b = std::move(*found.parsed);
  } else {
    auto data = ctx.load ? ctx.load(bundle_path) : result<bytes>(make_error(code::io_error, "no file access"));
    if (!data) fail(data.error().code, "bundle " + bundle_path + ": " + data.error().message, 0);
    try {
      b = load_sdk_bundle(std::move(data.value()));
    } catch (const core::failure& e) {
      fail(e.error().code, "bundle " + bundle_path + " @ " + hexs::hex(e.error().offset) + ": " + e.error().message, 0);
    }
  }
  if (b.rigs.empty()) fail(code::missing_skeleton, "the bundle " + bundle_path + " holds no rig packet", 0);
  const auto& [pi, r] = b.rigs.front();
  const auto* m = map_for(b, r);
  std::optional<sdk_rig_to_anim_map> mo;
  if (m) mo = *m;
  auto rig = make_skeleton(r, mo, pi, b.raw.packets[pi].payload_offset(), ctx);
  scene s;
  s.format = res.kind == "nsa" ? "morpheme-nsa" : "morpheme-qsa";
  std::string name = stem_of(file_name);
  if (b.names) {
    auto it = std::find(b.names->files.begin(), b.names->files.end(), file_name);
    if (it != b.names->files.end()) name = animation_name(*b.names, static_cast<std::size_t>(it - b.names->files.begin()));
  }
  if (name.empty()) name = "animation";
  auto bone_of = channel_bones(mo, rig, static_cast<std::uint32_t>(res.plan.d.channels.size()), name, ctx);
  auto a = build_animation(res.plan, res.nsa5 ? &*res.nsa5 : nullptr, rig, 0, bone_of, name, ctx);
  s.skeletons.push_back(std::move(rig.sk));  // moved in after its last use, not copied
  a.extras["file_name"] = file_name;
  a.extras["source_kind"] = res.kind;
  s.animations.push_back(std::move(a));
  s.metadata["skeleton_file"] = bundle_path;
  s.metadata["skeleton_pairing"] = how;
  s.metadata["pointer_size"] = res.x64 ? 8 : 4;
  return s;
}

nlohmann::json nmb_to_json(const mrn_file& f) {
  using nlohmann::json;
  json j{{"format", "morpheme-nmb"},
         {"variant", f.variant == bundle_variant::sdk_x64 ? "x64" : "win32"},
         {"pointer_size", f.pointer_size()},
         {"packet_count", f.packets.size()},
         {"trailing_bytes", f.tail.size()}};
  json arr = json::array();
  for (const auto& p : f.packets) {
    const char* nm = sdk_packet_type_name(p.type);
    json pj{{"offset", p.offset},       {"type", p.type},
            {"type_name", nm ? json(nm) : json(nullptr)},
            {"index", p.index},         {"unknown", p.unknown},
            {"data_length", p.payload.size()}, {"alignment", p.alignment},
            {"payload_offset", p.payload_offset()}};
    auto s = payload_of(f, p);
    try {
      switch (p.type) {
        case pt_sdk_rig: pj["decoded"] = sdk_rig_to_json(read_sdk_rig(s)); break;
        case pt_sdk_map: pj["decoded"] = sdk_map_to_json(read_sdk_rig_to_anim_map(s)); break;
        case pt_sdk_file_names: pj["decoded"] = sdk_file_names_to_json(read_sdk_file_names(s)); break;
        case pt_sdk_network: pj["decoded"] = network_to_json(read_network(s)); break;
        case 3:
        case 4: pj["decoded"] = sdk_event_track_to_json(read_sdk_event_track(s)); break;
        default: pj["decoded"] = nullptr;
      }
    } catch (const core::failure& e) {
      pj["decoded"] = nullptr;
      pj["decode_error"] = e.error().message;
    }
    arr.push_back(std::move(pj));
  }
  j["packets"] = arr;
  return j;
}

namespace {
network_def network_of(const read_context& ctx) {
  auto f = parse_mrn(ctx.data);
  if (f.variant == bundle_variant::forgelight_x64)
    fail(code::unsupported_feature, "Forgelight MRN network packets (type 0x0A) are not decoded; only morpheme 5 bundles (.nmb)", 0);
  for (const auto& p : f.packets)
    if (p.type == pt_sdk_network) return read_network(payload_of(f, p));
  fail(code::unsupported_feature, "the bundle holds no network packet (type 10)", 0);
}
}  // namespace

// The network with what the bundle's other packets say of its animation sets: one rig (and
// its rig-to-animation map) per set, in packet order, and the animation files the bundle names.
nlohmann::json network_json_of(const read_context& ctx) {
  const auto net = network_of(ctx);
  auto j = network_to_json(net);
  j["file"] = std::filesystem::path(ctx.path).filename().string();
  // A damaged rig or file table does not hide the network: the sets are then left out.
  sdk_bundle b;
  try {
    b = load_sdk_bundle(ctx.data);
  } catch (const core::failure& e) {
    ctx.warn(code::w_unsupported_part, "animation sets not listed: " + e.error().message, e.error().offset);
    return j;
  }
  nlohmann::json sets = nlohmann::json::array();
  for (std::size_t i = 0; i < b.rigs.size(); ++i) {
    const auto& [pi, r] = b.rigs[i];
    nlohmann::json set = {{"index", i},
                          {"rig_packet", pi},
                          {"bone_count", r.bone_count},
                          {"character", r.names.size() > 1 ? nlohmann::json(r.names[1]) : nlohmann::json(nullptr)},
                          {"rig_to_anim_map_packet", i < b.maps.size() ? nlohmann::json(b.maps[i].first) : nlohmann::json(nullptr)}};
    sets.push_back(std::move(set));
  }
  if (sets.size() != net.animation_set_count)
    ctx.warn(code::w_suspicious_value, "the network declares " + std::to_string(net.animation_set_count) +
                                           " animation sets, the bundle holds " + std::to_string(sets.size()) +
                                           " rig packets: animation_sets pairs them in packet order");
  j["animation_sets"] = std::move(sets);
  j["animation_files"] = b.names ? strings_to_json(b.names->files) : nlohmann::json::array();
  return j;
}

}  // namespace rigrip::morpheme
