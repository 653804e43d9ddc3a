// Encode: scene -> MRN (one NSA packet per animation, a skeleton and an identity skeleton
// map per skeleton, file names and skeleton names).
#include "formats/morpheme/encode.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <set>

#include "core/math.hpp"
#include "scene/pose.hpp"
#include "formats/morpheme/common.hpp"

namespace rigrip::morpheme {

using core::fail;

namespace {

// The file-names packet's columns, one row per animation.
struct file_table {
  std::vector<std::string> files, types, sources, takes;
  std::vector<std::uint32_t> crcs;
};

std::string string_extra(const animation& a, const char* key, const std::string& fallback) {
  return a.extras.is_object() && a.extras.contains(key) && a.extras[key].is_string() ? a.extras[key].get<std::string>()
                                                                                    : fallback;
}

// The NSA encoder's input for one animation: every bone sampled at `rate` over S samples;
// a bone without a track keeps its rest value. Root motion on the trajectory bone becomes
// the trajectory segment.
nsa_input nsa_input_of(const animation& a, const skeleton& sk, double rate, std::uint32_t S, const pack_context& ctx) {
  nsa_input in;
  in.sample_rate = rate;
  in.sample_count = S;
  in.channels.resize(sk.bones.size());
  std::set<std::string> roots;
  if (a.extras.is_object() && a.extras.contains("root_motion"))
    for (const auto& r : a.extras["root_motion"])
      if (r.is_string()) roots.insert(r.get<std::string>());
  int tb = trajectory_bone(sk);
  bool scale_dropped = false;
  auto sample_track = [&](const track* t, std::size_t i) {
    float time = static_cast<float>(std::min(static_cast<double>(i) / rate, a.duration));
    return scene_ops::sample(*t, time);
  };
  for (std::size_t b = 0; b < sk.bones.size(); ++b) {
    const track *tt = nullptr, *rt = nullptr;
    for (const auto& t : a.tracks) {
      if (t.bone != sk.bones[b].name) continue;
      if (t.path == path::translation)
        tt = &t;
      else if (t.path == path::rotation)
        rt = &t;
      else
        scale_dropped = true;
    }
    std::vector<vec3> tv;
    std::vector<quat> rv;
    if (tt)
      for (std::uint32_t i = 0; i < S; ++i) {
        auto v = sample_track(tt, i);
        tv.push_back({v[0], v[1], v[2]});
      }
    else
      tv.push_back(sk.bones[b].translation);
    if (rt)
      for (std::uint32_t i = 0; i < S; ++i) {
        auto v = sample_track(rt, i);
        rv.push_back(core::normalize({v[0], v[1], v[2], v[3]}));
      }
    else
      rv.push_back(sk.bones[b].rotation);
    if (static_cast<int>(b) == tb && roots.count(sk.bones[b].name)) {
      in.has_trajectory = true;
      in.trajectory_translation = tv;
      in.trajectory_rotation = rv;
      continue;  // the trajectory segment carries this bone
    }
    in.channels[b].translation = std::move(tv);
    in.channels[b].rotation = std::move(rv);
  }
  for (const auto& r : roots)
    if (tb < 0 || r != sk.bones[static_cast<std::size_t>(tb)].name)
      ctx.warn(code::w_lossy, "animation '" + a.name + "': root motion on '" + r +
                                  "' is written as an ordinary channel (only the trajectory bone, "
                                  "named 'trajectory' or bone 0, carries root motion)");
  if (scale_dropped)
    ctx.warn(code::w_lossy,
             "animation '" + a.name + "': scale tracks dropped (NSA scale is not supported)");
  return in;
}

// Animation ai as an NSA packet; its row of the file table is appended.
packet nsa_packet(const scene& s, std::size_t ai, std::uint32_t guid, file_table& names, const pack_context& ctx) {
  const auto& a = s.animations[ai];
  const auto& sk = s.skeletons[static_cast<std::size_t>(a.skeleton)];
  double fps = ctx.fps ? *ctx.fps : (a.fps && *a.fps > 0 ? *a.fps : 30.0);
  double exact = a.duration * fps;
  if (exact > 1e6)
    fail(code::limit_exceeded, "animation '" + a.name + "': more than a million samples at " +
                                   std::to_string(fps) + " fps");
  std::uint32_t S = static_cast<std::uint32_t>(std::round(exact)) + 1;
  double rate = fps;
  if (S > 1 && std::fabs(exact - (S - 1)) > 1e-3)
    rate = (S - 1) / a.duration;  // samples span [0, duration] exactly
  auto bytes_nsa = serialise_nsa(encode_nsa(nsa_input_of(a, sk, rate, S, ctx)));
  std::uint32_t crc = (std::uint32_t(bytes_nsa[0]) << 24) | (std::uint32_t(bytes_nsa[1]) << 16) |
                      (std::uint32_t(bytes_nsa[2]) << 8) | bytes_nsa[3];
  names.files.push_back(a.name + ".nsa");
  names.types.push_back("nsa");
  names.sources.push_back(string_extra(a, "source_file", std::string()));
  names.takes.push_back(string_extra(a, "take", a.name));
  names.crcs.push_back(crc);
  return make_packet(pt_nsa, static_cast<std::uint32_t>(ai), std::move(bytes_nsa), {guid, 0x6D726E00u, 0, 0});
}

// Skeleton k as a skeleton packet and an identity skeleton-map packet.
void skeleton_packets(const skeleton& sk, std::size_t k, std::vector<packet>& out, const pack_context& ctx) {
  rig_input ri;
  for (const auto& b : sk.bones) {
    ri.names.push_back(b.name);
    ri.parents.push_back(b.parent);
    ri.translation.push_back(b.translation);
    ri.rotation.push_back(core::normalize(b.rotation));
    if (b.scale != vec3{1, 1, 1})
      ctx.warn(code::w_lossy,
               "bone '" + b.name + "': rest scale dropped (the morpheme bind pose has none)");
  }
  out.push_back(make_packet(pt_skeleton, static_cast<std::uint32_t>(k), write_rig(ri)));
  std::vector<std::uint16_t> ident(sk.bones.size());
  std::iota(ident.begin(), ident.end(), std::uint16_t{0});
  out.push_back(
      make_packet(pt_skeleton_map, static_cast<std::uint32_t>(k),
                  write_skeleton_map(static_cast<std::uint32_t>(sk.bones.size()), ident)));
}

// A reader pairs an animation with a skeleton by name prefix, else by bone count: warn
// where that would be ambiguous.
void warn_ambiguous_pairing(const scene& s, const pack_context& ctx) {
  std::map<std::size_t, int> counts;
  for (const auto& sk : s.skeletons) counts[sk.bones.size()]++;
  for (const auto& a : s.animations) {
    auto pre = lower(a.name.substr(0, a.name.find('_')));
    bool by_name = false;
    for (const auto& sk : s.skeletons) by_name |= lower(sk.name) == pre;
    if (!by_name && counts[s.skeletons[static_cast<std::size_t>(a.skeleton)].bones.size()] > 1)
      ctx.warn(code::w_pairing,
               "animation '" + a.name +
                   "': several skeletons have its bone count and its name does not start with "
                   "'<skeleton>_'; a reader may pair it with the wrong skeleton");
  }
}

}  // namespace

bytes pack_mrn(const scene& s, const pack_context& ctx) {
  if (s.skeletons.empty())
    fail(code::write_unsupported, "an MRN needs at least one skeleton; the scene has none");
  std::uint32_t guid = 0;
  for (const auto& a : s.animations)
    guid = crc32(std::span<const std::uint8_t>(reinterpret_cast<const std::uint8_t*>(a.name.data()),
                                               a.name.size())) ^
           (guid * 31u);
  // NSA packets first, as in the game files (the by-magic search expects type 0x10 first).
  std::vector<packet> all;
  file_table names;
  for (std::size_t ai = 0; ai < s.animations.size(); ++ai) all.push_back(nsa_packet(s, ai, guid, names, ctx));
  std::vector<std::string> skel_names;
  std::vector<std::uint32_t> ids;
  for (std::size_t k = 0; k < s.skeletons.size(); ++k) {
    const auto& sk = s.skeletons[k];
    skeleton_packets(sk, k, all, ctx);
    skel_names.push_back(sk.name.empty() ? "skeleton_" + std::to_string(k) : sk.name);
    ids.push_back(static_cast<std::uint32_t>(k));
  }
  if (s.skeletons.size() > 1) warn_ambiguous_pairing(s, ctx);
  all.push_back(make_packet(pt_file_names, 0,
                            write_file_names(names.files, names.types, names.sources, names.takes, names.crcs)));
  all.push_back(make_packet(pt_skeleton_names, 0, write_skeleton_names(skel_names, ids)));
  return layout_mrn(std::move(all));
}

}  // namespace rigrip::morpheme
