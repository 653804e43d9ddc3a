// SF3 battle meshes: scene -> x8pc (new keyframes into a template model; mesh, textures
// and everything else stay byte for byte). The chunk layout rules are re-applied:
// chunks 0x800-aligned, chunk_size = data_size rounded up to 0x800, 0xFF padding.
#include "rigrip/extras.hpp"
#include "formats/sf3/encode.hpp"

#include <algorithm>
#include <cmath>
#include <map>

#include "formats/sf3/decode.hpp"

namespace rigrip::sf3 {
namespace {

using core::fail;

std::string stem_of(const std::string& path) {
  auto slash = path.find_last_of("/\\");
  std::string base = slash == std::string::npos ? path : path.substr(slash + 1);
  auto dot = base.find_last_of('.');
  return dot == std::string::npos ? base : base.substr(0, dot);
}

std::int32_t to_fixed(float v, const std::string& what) {
  double d = std::round(static_cast<double>(v) * 65536.0);
  if (!std::isfinite(d) || d < -2147483648.0 || d > 2147483647.0)
    fail(code::bad_value, what + ": value " + std::to_string(v) + " does not fit a 16.16 FIXED");
  return static_cast<std::int32_t>(d);
}
std::int16_t to_rot(float v, const std::string& what) {
  double d = std::round(static_cast<double>(v) * 16384.0);
  if (!std::isfinite(d)) fail(code::bad_value, what + ": quaternion component is not finite");
  return static_cast<std::int16_t>(std::clamp(d, -32768.0, 32767.0));
}

// Keys gathered per (bone slot, channel): frame -> value.
using key_map = std::map<int, std::array<float, 4>>;

void relayout(model_raw& m, bool fixed_slot) {
  std::uint32_t end = sector;
  for (std::size_t i = 0; i < m.entries.size(); ++i) {
    auto& e = m.entries[i];
    std::uint32_t start = end + static_cast<std::uint32_t>(m.gap_before[i].size());
    e.offset = start;
    e.data_size = static_cast<std::uint32_t>(i == 3 ? write_anim_chunk(m.anim).size() : m.data[i].size());
    e.chunk_size = (e.data_size + sector - 1) / sector * sector;
    m.padding[i].assign(e.chunk_size - e.data_size, 0xFF);
    end = start + e.chunk_size;
  }
  if (!fixed_slot) {
    m.slot_size = end + static_cast<std::uint32_t>(m.tail.size());
    return;
  }
  if (end > m.slot_size)
    fail(code::limit_exceeded, "the model grows to " + core::byte_reader::hex(end) + " bytes, its container slot holds " +
                                   core::byte_reader::hex(m.slot_size));
  bool last_ff = !m.tail.empty() && m.tail.back() == 0xFF;
  m.tail.assign(m.slot_size - end, 0x00);
  if (last_ff && !m.tail.empty()) m.tail.back() = 0xFF;
}

// The skeleton a template model takes its keys from: same name, else the same position.
int skeleton_for(const scene& s, const std::string& name, std::size_t mi, std::size_t models) {
  int sk = -1;
  for (std::size_t i = 0; i < s.skeletons.size(); ++i)
    if (s.skeletons[i].name == name) sk = static_cast<int>(i);
  if (sk < 0 && s.skeletons.size() == models) sk = static_cast<int>(mi);
  return sk;
}

// Keys: the "all frames" animation (times = frame / fps) if there is one, else every
// per-entry clip of this file's own keys (times rebased to its first frame).
std::vector<const animation*> key_sources(const scene& s, int sk, bool& all) {
  std::vector<const animation*> sources;
  for (const auto& a : s.animations)
    if (a.skeleton == sk && (extra(a.extras, "sf3_all_frames", false) || a.name.ends_with("all_frames")))
      sources.push_back(&a);
  all = !sources.empty();
  if (!all)
    for (const auto& a : s.animations)
      if (a.skeleton == sk && a.extras.is_object() && a.extras.contains("first_frame") &&
          extra(a.extras, "source", std::string()) == "x8pc")
        sources.push_back(&a);
  return sources;
}

// The keyframe slot a track drives: our reader's "sf3_bone" number, else "bone_<n>" by number.
int slot_of(const skeleton& skel, const std::string& bone) {
  int b = skel.find(bone);
  if (b < 0 || !skel.bones[static_cast<std::size_t>(b)].extras.contains("sf3_bone")) {
    // Not from our reader: map "bone_<n>" by number.
    b = -1;
    try {
      b = std::stoi(bone.substr(5));
    } catch (...) {
    }
  } else {
    b = extra(skel.bones[static_cast<std::size_t>(b)].extras, "sf3_bone", -1);
  }
  return b;
}

// Keys gathered from the source animations, per slot and channel (T, R, S), with which
// channels any track touched; keys on a frame that already has one are dropped.
struct gathered_keys {
  std::vector<std::array<key_map, 3>> keys;
  std::vector<std::array<bool, 3>> seen;
};
gathered_keys gather_keys(const std::vector<const animation*>& sources, bool all, const skeleton& skel,
                          std::size_t slots, const std::string& name, const pack_context& ctx) {
  gathered_keys g{std::vector<std::array<key_map, 3>>(slots),
                  std::vector<std::array<bool, 3>>(slots, {false, false, false})};
  std::size_t merged_dups = 0;
  for (const auto* a : sources) {
    double fps = ctx.fps.value_or(a->fps.value_or(30.0));
    int first = all ? 0 : extra(a->extras, "first_frame", 0);
    for (const auto& t : a->tracks) {
      if (!t.bone.starts_with("bone_")) continue;  // tags are fixed in the mesh chunk
      int b = slot_of(skel, t.bone);
      if (b < 0 || static_cast<std::size_t>(b) >= slots) {
        ctx.warn(code::w_missing_bone, name + ": track for '" + t.bone + "' has no keyframe slot; skipped");
        continue;
      }
      int c = t.path == path::translation ? 0 : t.path == path::rotation ? 1 : 2;
      const int n = components(t.path);
      const std::size_t e = t.elements_per_key();
      g.seen[static_cast<std::size_t>(b)][static_cast<std::size_t>(c)] = true;
      for (std::size_t k = 0; k < t.times.size(); ++k) {
        double fr = std::round(t.times[k] * fps) + first;
        if (fr < 0 || fr > 0xFFFF)
          fail(code::bad_value, name + " '" + t.bone + "': key at " + std::to_string(t.times[k]) + " s is frame " +
                                    std::to_string(fr) + ", outside 0..65535");
        std::array<float, 4> v{0, 0, 0, 0};
        const float* src = &t.values[(k * e + (e == 3 ? 1 : 0)) * static_cast<std::size_t>(n)];
        std::copy(src, src + n, v.begin());
        auto& mp = g.keys[static_cast<std::size_t>(b)][static_cast<std::size_t>(c)];
        if (!mp.emplace(static_cast<int>(fr), v).second) ++merged_dups;
      }
    }
  }
  if (merged_dups)
    ctx.warn(code::w_duplicate_key_time, name + ": " + std::to_string(merged_dups) +
                                             " keys fell on a frame that already had one; the first was kept");
  return g;
}

// Replaces one channel's frames and component arrays with the gathered keys.
template <typename T, std::size_t N, typename Convert>
void replace_channel(key_vec<std::uint16_t>& frames, std::array<key_vec<T>, N>& comps,
                     const key_map& keys, Convert convert) {
  frames.clear();
  for (auto& c : comps) c.clear();
  for (const auto& [fr, v] : keys) {
    frames.push_back(static_cast<std::uint16_t>(fr));
    for (std::size_t c = 0; c < N; ++c) comps[c].push_back(convert(v[c]));
  }
}

// Writes the gathered keys into the model's key records; a channel no track touched keeps
// the template's keys. Returns how many channels were kept.
std::size_t write_keys(model_raw& m, const gathered_keys& g, const std::string& name) {
  std::size_t kept = 0;
  for (std::size_t b = 0; b < g.keys.size(); ++b) {
    key_record& rec = m.anim.keys.bones[b];
    const std::string what = name + " bone_" + std::to_string(b);
    auto fixed = [&](float v) { return to_fixed(v, what); };
    auto rot = [&](float v) { return to_rot(v, what); };
    if (g.seen[b][0])
      replace_channel(rec.t_frames, rec.t, g.keys[b][0], fixed);
    else
      ++kept;
    if (g.seen[b][1])
      replace_channel(rec.r_frames, rec.r, g.keys[b][1], rot);
    else
      ++kept;
    if (g.seen[b][2])
      replace_channel(rec.s_frames, rec.s, g.keys[b][2], fixed);
    else
      ++kept;
  }
  return kept;
}

}  // namespace

byte_vec pack_x8pc(const scene& s, const pack_context& ctx) {
  if (!ctx.template_file)
    fail(code::unsupported_feature,
         "sf3-x8pc pack needs --template ORIGINAL.BIN: the mesh, textures and animation table come from it");
  x8pc_file f = parse_x8pc(*ctx.template_file);
  const std::string stem = stem_of(ctx.template_path.empty() ? std::string("model") : ctx.template_path);
  for (std::size_t mi = 0; mi < f.models.size(); ++mi) {
    model_raw& m = f.models[mi];
    const std::string name = f.models.size() == 1 ? stem : stem + "_" + std::to_string(mi);
    const int sk = skeleton_for(s, name, mi, f.models.size());
    if (sk < 0) {
      ctx.warn(code::w_pairing, name + ": no skeleton in the input matches; template keys kept");
      continue;
    }
    bool all = false;
    const std::vector<const animation*> sources = key_sources(s, sk, all);
    if (sources.empty()) {
      ctx.warn(code::w_fallback, name + ": the input has no animation for this model; template keys kept");
      continue;
    }
    const gathered_keys g = gather_keys(sources, all, s.skeletons[static_cast<std::size_t>(sk)],
                                        m.anim.keys.bones.size(), name, ctx);
    const std::size_t kept = write_keys(m, g, name);
    if (kept)
      ctx.warn(code::w_fallback, name + ": " + std::to_string(kept) + " bone channels had no track; template keys kept");
    if (!all)
      ctx.warn(code::w_lossy, name + ": keys rebuilt from the per-entry clips (no all_frames animation); frames between "
                                     "clips come from whichever clip covers them");
    m.anim.keys.canonical = true;
    relayout(m, f.models.size() > 1);
  }
  return write_x8pc(f);
}

}  // namespace rigrip::sf3
