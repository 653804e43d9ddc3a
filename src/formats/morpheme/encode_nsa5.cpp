// Encode: scene -> runtime-5 NSA (the SDK's standalone .nsa, x64 or win32). Channels follow
// the bundle's AnimToRig map (--skeleton X.nmb). With a runtime-5 template whose layout fits
// (same rate, samples, channel split), values are requantised on the template's own grid
// (its factor sets, init values and per-channel set choices), so an unchanged clip comes back
// byte for byte; otherwise the quantisation is computed afresh (the Forgelight encoder's
// maths, which this runtime shares).
#include "formats/morpheme/encode_nsa5.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "core/math.hpp"
#include "formats/morpheme/decode_sdk.hpp"
#include "scene/pose.hpp"

namespace rigrip::morpheme {

using core::fail;

namespace {

constexpr std::uint32_t levels_111110[3] = {2047, 2047, 1023};

// The rig a runtime-5 animation's channels drive: channel c -> bone name.
struct channel_rig {
  std::vector<std::string> bone_of_channel;
  unsigned pointer_size = 8;
};

channel_rig rig_of_bundle(const bytes& data, const std::string& path) {
  sdk_bundle b;
  try {
    b = load_sdk_bundle(data);
  } catch (const core::failure& e) {
    fail(e.error().code, "--skeleton " + path + ": " + e.error().message, 0);
  }
  if (b.rigs.empty()) fail(code::missing_skeleton, "--skeleton " + path + " holds no rig packet", 0);
  const auto& r = b.rigs.front().second;
  const sdk_rig_to_anim_map* m = nullptr;
  for (const auto& [p, mm] : b.maps)
    if (mm.used_bits == r.bone_count) m = &mm;
  if (!m && !b.maps.empty()) m = &b.maps.front().second;
  if (!m || m->type != 1)
    fail(code::missing_skeleton, "--skeleton " + path + " has no AnimToRig map (rig-to-animation map of type 1)", 0);
  channel_rig cr;
  cr.pointer_size = b.raw.pointer_size();
  for (auto bi : m->anim_to_rig) {
    if (bi >= r.bone_count)
      fail(code::bad_value, "--skeleton " + path + ": the AnimToRig map names bone " + std::to_string(bi) + " of " +
                                std::to_string(r.bone_count), 0);
    cr.bone_of_channel.push_back(bi < r.names.size() && !r.names[bi].empty() ? r.names[bi]
                                                                            : "bone_" + std::to_string(bi));
  }
  return cr;
}

float deq(float extent, float min, std::uint32_t q) { return extent * static_cast<float>(q) + min; }

// Nearest level of `v` on min + extent*q, q in [0, levels]; nullopt when v lies outside the
// grid by more than half a step plus float noise (a decoded quaternion carries ~1e-7 of
// rounding, more than some sets' steps): the template cannot hold it.
std::optional<std::uint32_t> on_grid(float v, float min, float extent, std::uint32_t levels) {
  const double slack = 1e-6 * std::max(1.0, std::fabs(static_cast<double>(v)));
  if (extent == 0.0f)
    return std::fabs(static_cast<double>(v) - min) <= slack ? std::optional<std::uint32_t>(0) : std::nullopt;
  const double lo = min, hi = min + static_cast<double>(levels) * extent;
  if (!std::isfinite(v) || v < std::min(lo, hi) - 0.5 * std::fabs(extent) - slack ||
      v > std::max(lo, hi) + 0.5 * std::fabs(extent) + slack)
    return std::nullopt;
  double q = std::round((static_cast<double>(v) - min) / extent);
  auto qi = static_cast<std::uint32_t>(std::clamp(q, 0.0, static_cast<double>(levels)));
  // Float rounding may make a neighbour decode closer: pick the best of the three.
  std::uint32_t best = qi;
  float err = std::fabs(deq(extent, min, qi) - v);
  for (std::uint32_t c : {qi ? qi - 1 : qi, qi < levels ? qi + 1 : qi}) {
    float e = std::fabs(deq(extent, min, c) - v);
    if (e < err) err = e, best = c;
  }
  return best;
}

// Levels of a rotation on three factor axes: its MRP or, for turns past 180 degrees, the
// shadow MRP -p/|p|^2 (the same rotation), whichever the grid holds.
std::optional<std::array<std::uint32_t, 3>> mrp_on_grid(const quat& q, const std::array<const factors*, 3>& fa,
                                                        std::uint32_t levels) {
  auto p = quat_to_mrp(core::normalize(q));
  double n2 = static_cast<double>(p[0]) * p[0] + static_cast<double>(p[1]) * p[1] + static_cast<double>(p[2]) * p[2];
  std::array<float, 3> shadow{};
  for (int k = 0; k < 3; ++k) shadow[k] = n2 > 0 ? static_cast<float>(-p[k] / n2) : p[k];
  for (const auto* v : {&p, &shadow}) {
    std::array<std::uint32_t, 3> out{};
    bool ok = true;
    for (int k = 0; k < 3 && ok; ++k) {
      auto g = on_grid((*v)[k], fa[k]->min[k], fa[k]->extent[k], levels);
      ok = g.has_value();
      if (ok) out[k] = *g;
    }
    if (ok) return out;
    if (n2 == 0) break;
  }
  return std::nullopt;
}

bool equal_quats(const std::vector<quat>& v) {
  for (const auto& q : v)
    if (std::fabs(std::fabs(core::dot(q, v[0])) - 1.0f) > 1e-7f) return false;
  return true;
}

// Each step of requantise: the empty string when it fits, else why the template cannot hold it.
using fit = std::string;

const vec3* value_t(const nsa_input& in, std::uint16_t c, std::uint32_t s) {
  const auto& v = in.channels[c].translation;
  return v.empty() ? nullptr : &v[v.size() == 1 ? 0 : s];
}
const quat* value_r(const nsa_input& in, std::uint16_t c, std::uint32_t s) {
  const auto& v = in.channels[c].rotation;
  return v.empty() ? nullptr : &v[v.size() == 1 ? 0 : s];
}

// The template's shape: one frame section with the clip's samples, channels and rate, and still
// channels where the clip holds them still.
fit template_shape_fits(const nsa5_file& tpl, const nsa_input& in) {
  const std::uint32_t S = in.sample_count;
  if (tpl.sections.size() != 1 || tpl.section_frames.size() != 2 || tpl.section_frames[0] != 0)
    return "the template has several frame sections";
  if (tpl.sections[0].sample_count != S)
    return "the template has " + std::to_string(tpl.sections[0].sample_count) + " samples, the clip " +
           std::to_string(S);
  if (tpl.h.channel_count != in.channels.size()) return "the template has another channel count";
  if (std::fabs(tpl.h.sample_rate - static_cast<float>(in.sample_rate)) > 1e-4f * tpl.h.sample_rate)
    return "the template has another sample rate";
  std::vector<bool> t_static(in.channels.size()), r_static(in.channels.size());
  for (auto c : tpl.static_translation) t_static[c] = true;
  for (auto c : tpl.static_rotation) r_static[c] = true;
  for (std::size_t c = 0; c < in.channels.size(); ++c) {
    const auto& ch = in.channels[c];
    if (t_static[c] && ch.translation.size() > 1 &&
        !std::all_of(ch.translation.begin(), ch.translation.end(), [&](const vec3& v) { return v == ch.translation[0]; }))
      return "channel " + std::to_string(c) + " moves where the template holds it still";
    if (r_static[c] && ch.rotation.size() > 1 && !equal_quats(ch.rotation))
      return "channel " + std::to_string(c) + " rotates where the template holds it still";
  }
  return {};
}

fit requantise_static(nsa5_file& f, const nsa_input& in) {
  for (std::size_t i = 0; i < f.static_translation.size(); ++i) {
    const vec3* v = value_t(in, f.static_translation[i], 0);
    if (!v) return "static translation channel without data";
    for (int k = 0; k < 3; ++k) {
      auto q = on_grid((*v)[k], f.static_translation_factors.min[k], f.static_translation_factors.extent[k], 65535);
      if (!q) return "a static translation leaves the template's range";
      f.static_translations[i][k] = static_cast<std::uint16_t>(*q);
    }
  }
  for (std::size_t i = 0; i < f.static_rotation.size(); ++i) {
    const quat* r = value_r(in, f.static_rotation[i], 0);
    if (!r) return "static rotation channel without data";
    const factors* sf = &f.static_rotation_factors;
    auto g = mrp_on_grid(*r, {sf, sf, sf}, 65535);
    if (!g) return "a static rotation leaves the template's range";
    for (int k = 0; k < 3; ++k) f.static_rotations[i][k] = static_cast<std::uint16_t>((*g)[k]);
  }
  return {};
}

// Animated values, on each channel's init value and factor sets.
fit requantise_dynamic(nsa5_file& f, const nsa_input& in) {
  const std::uint32_t S = in.sample_count;
  auto& sec = f.sections[0];
  for (std::size_t j = 0; j < f.dynamic_translation.size(); ++j) {
    const auto& inf = sec.translation_info[j];
    for (std::uint32_t s = 0; s < S; ++s) {
      const vec3* v = value_t(in, f.dynamic_translation[j], s);
      if (!v) return "animated translation channel without data";
      std::uint32_t q[3];
      for (int k = 0; k < 3; ++k) {
        const auto& fa = f.translation_factors[inf.index[k]];
        float init = f.init.extent[k] * inf.init[k] + f.init.min[k];
        // decode: extent*q + min + init
        auto g = on_grid((*v)[k] - init, fa.min[k], fa.extent[k], levels_111110[k]);
        if (!g) return "an animated translation leaves the template's range";
        q[k] = *g;
      }
      sec.translations[static_cast<std::size_t>(s) * sec.translation_count + j] = pack_111110(q[0], q[1], q[2]);
    }
  }
  for (std::size_t j = 0; j < f.dynamic_rotation.size(); ++j) {
    const auto& inf = sec.rotation_info[j];
    std::array<float, 3> iv{};
    for (int k = 0; k < 3; ++k) iv[k] = inf.init[k] / 128.0f - 1.0f;
    quat inv_init = core::conjugate(mrp_to_quat(iv));
    for (std::uint32_t s = 0; s < S; ++s) {
      const quat* r = value_r(in, f.dynamic_rotation[j], s);
      if (!r) return "animated rotation channel without data";
      auto g = mrp_on_grid(core::multiply(inv_init, core::normalize(*r)),
                           {&f.rotation_factors[inf.index[0]], &f.rotation_factors[inf.index[1]],
                            &f.rotation_factors[inf.index[2]]},
                           65535);
      if (!g)
        return "channel " + std::to_string(f.dynamic_rotation[j]) + "'s rotation at sample " + std::to_string(s) +
               " leaves the template's range";
      for (int k = 0; k < 3; ++k)
        sec.rotations[static_cast<std::size_t>(s) * sec.rotation_count + j][k] = static_cast<std::uint16_t>((*g)[k]);
    }
  }
  return {};
}

fit requantise_trajectory(nsa5_file& f, const nsa_input& in) {
  const std::uint32_t S = in.sample_count;
  if (f.trajectory.has_value() != in.has_trajectory) return "the template and the clip differ in root motion";
  if (!f.trajectory) return {};
  auto& t = *f.trajectory;
  if (t.sample_count != S) return "the template's trajectory has another sample count";
  if (!t.translations.empty()) {
    for (std::uint32_t s = 0; s < S; ++s) {
      const auto& v = in.trajectory_translation.empty() ? vec3{0, 0, 0}
                      : in.trajectory_translation[in.trajectory_translation.size() == 1 ? 0 : s];
      std::uint32_t q[3];
      for (int k = 0; k < 3; ++k) {
        auto g = on_grid(v[k], t.translation[k], t.translation[3 + k], levels_111110[k]);
        if (!g) return "the root motion leaves the template's range";
        q[k] = *g;
      }
      t.translations[s] = pack_111110(q[0], q[1], q[2]);
    }
  } else {
    for (const auto& v : in.trajectory_translation)
      if (v != vec3{0, 0, 0}) return "the clip has root translation, the template none";
  }
  if (t.constant_rotation) {
    quat c{t.rotation[0], t.rotation[1], t.rotation[2], t.rotation[3]};
    for (const auto& q : in.trajectory_rotation)
      if (std::fabs(std::fabs(core::dot(core::normalize(q), core::normalize(c))) - 1.0f) > 1e-6f)
        return "the clip's root rotation changes, the template's is constant";
    return {};
  }
  if (in.trajectory_rotation.empty()) return "the clip has no root rotation";
  for (std::uint32_t s = 0; s < S; ++s) {
    factors tf;
    for (int k = 0; k < 3; ++k) tf.min[k] = t.rotation[k], tf.extent[k] = t.rotation[3 + k];
    auto g = mrp_on_grid(in.trajectory_rotation[in.trajectory_rotation.size() == 1 ? 0 : s], {&tf, &tf, &tf}, 65535);
    if (!g) return "the root rotation leaves the template's range";
    for (int k = 0; k < 3; ++k) t.rotations[s][k] = static_cast<std::uint16_t>((*g)[k]);
  }
  return {};
}

// Requantises `in` on the template's grid; nullopt (with why) when the template cannot hold it.
std::optional<nsa5_file> requantise(const nsa5_file& tpl, const nsa_input& in, std::string& why) {
  why = template_shape_fits(tpl, in);
  if (!why.empty()) return std::nullopt;
  nsa5_file f = tpl;
  for (auto step : {requantise_static, requantise_dynamic, requantise_trajectory}) {
    why = step(f, in);
    if (!why.empty()) return std::nullopt;
  }
  return f;
}

// The Forgelight encoder's result in this runtime's structures.
nsa5_file from_forgelight(const nsa_file& g, bool x64, std::uint32_t unknown) {
  nsa5_file f;
  f.h.x64 = x64;
  f.h.alignment = 16;
  f.h.type = source_type_nsa;
  f.h.duration = g.duration;
  f.h.sample_rate = g.sample_rate;
  f.h.channel_count = g.total_bones;
  f.h.frame_sections = 1;
  f.h.channel_sections = 1;
  f.h.unknown = unknown;
  auto list = [&](int k) { return g.indices[k] ? *g.indices[k] : std::vector<std::uint16_t>{}; };
  f.static_translation = list(0);
  f.static_rotation = list(1);
  f.dynamic_translation = list(3);
  f.dynamic_rotation = list(4);
  f.init = g.translation_init_factors;
  f.translation_factors = g.translation_factors;
  f.rotation_factors = g.rotation_factors;
  if (g.static_segment) {
    const auto& st = *g.static_segment;
    f.static_translation_count = st.translation_count;
    f.static_rotation_count = st.rotation_count;
    f.static_translation_factors = st.translation_factors;
    f.static_rotation_factors = st.rotation_factors;
    f.static_translations = st.translations;
    f.static_rotations = st.rotations;
  }
  nsa5_section s;
  if (g.dynamic_segment) {
    const auto& d = *g.dynamic_segment;
    s.sample_count = d.sample_count;
    s.translation_count = d.translation_count;
    s.rotation_count = d.rotation_count;
    s.translations = d.translations;
    s.translation_info = d.translation_info;
    s.rotations = d.rotations;
    s.rotation_row_stride = d.rotation_row_stride;
    s.rotation_info = d.rotation_info;
  } else {
    s.sample_count = 1;
  }
  f.section_frames = {0, s.sample_count ? s.sample_count - 1 : 0};
  f.sections.push_back(std::move(s));
  if (g.trajectory) {
    const auto& t = *g.trajectory;
    source5_trajectory o;
    o.type = source_type_nsa;
    o.alignment = 16;
    o.sample_rate = t.sample_rate;
    o.sample_count = t.sample_count;
    for (int k = 0; k < 3; ++k) {
      o.translation[k] = t.translation_factors.min[k];
      o.translation[3 + k] = t.translation_factors.extent[k];
    }
    if (t.has_translation) o.translations = t.translations;
    o.constant_rotation = t.constant_rotation;
    if (t.constant_rotation) {
      o.rotation = {t.rotation[0], t.rotation[1], t.rotation[2], t.rotation[3], 0, 0};
    } else {
      for (int k = 0; k < 3; ++k) {
        o.rotation[k] = t.rotation_factors.min[k];
        o.rotation[3 + k] = t.rotation_factors.extent[k];
      }
      o.rotations = t.rotations;
    }
    f.trajectory = std::move(o);
  }
  return f;
}

}  // namespace

nsa5_encoded encode_nsa5(const nsa_input& in, const nsa5_encode_options& o) {
  nsa5_encoded out;
  if (o.tpl) {
    std::string why;
    if (auto f = requantise(*o.tpl, in, why)) {
      f->h.x64 = o.x64;
      out.file = std::move(*f);
      out.on_template_grid = true;
      return out;
    }
    out.note = why;
  }
  out.file = from_forgelight(encode_nsa(in), o.x64, o.tpl ? o.tpl->h.unknown : o.unknown);
  return out;
}

namespace {

// Root-motion bones named by the animation's extras.
std::set<std::string> root_motion_bones(const animation& a) {
  std::set<std::string> roots;
  if (a.extras.is_object() && a.extras.contains("root_motion"))
    for (const auto& r : a.extras["root_motion"])
      if (r.is_string()) roots.insert(r.get<std::string>());
  return roots;
}

// Every animated bone must be one of the rig's channels (or root motion, which the trajectory holds).
void check_bones_are_channels(const animation& a, const channel_rig& rig, const std::set<std::string>& roots,
                              const std::string& rig_path) {
  std::set<std::string> rig_names(rig.bone_of_channel.begin(), rig.bone_of_channel.end());
  std::set<std::string> missing;
  for (const auto& t : a.tracks)
    if (!rig_names.count(t.bone) && !roots.count(t.bone)) missing.insert(t.bone);
  if (missing.empty()) return;
  std::string list;
  for (const auto& m : missing) list += (list.empty() ? "" : ", ") + m;
  fail(code::invalid_scene, "animation '" + a.name + "' animates bones no channel of " + rig_path + " drives: " + list);
}

// A track whose keys all hold one value is that value (interpolating it adds float noise).
bool constant_track(const track& t) {
  const std::size_t n = t.values.size() / std::max<std::size_t>(t.times.size(), 1);
  for (std::size_t i = n; i + n <= t.values.size(); i += n)
    if (!std::equal(t.values.begin(), t.values.begin() + static_cast<std::ptrdiff_t>(n),
                    t.values.begin() + static_cast<std::ptrdiff_t>(i)))
      return false;
  return true;
}

// The clip sampled on the NSA's grid: one value per channel where it holds still, S otherwise;
// channels without a track keep the skeleton's rest pose.
nsa_input sample_channels(const animation& a, const skeleton& sk, const channel_rig& rig,
                          const std::set<std::string>& roots, double fps, const pack_context& ctx) {
  double exact = a.duration * fps;
  if (!(exact >= 0) || exact > 1e6) fail(code::limit_exceeded, "animation '" + a.name + "': too many samples");
  const std::uint32_t S = static_cast<std::uint32_t>(std::round(exact)) + 1;
  double rate = fps;
  if (S > 1 && std::fabs(exact - (S - 1)) > 1e-3) rate = (S - 1) / a.duration;
  auto sample_at = [&](const track& t, std::uint32_t i) {
    float time = static_cast<float>(std::min(static_cast<double>(i) / rate, a.duration));
    return scene_ops::sample(t, time);
  };
  auto moving = [](const track& t) { return t.times.size() > 1 && !constant_track(t); };
  auto samples = [&](const track& t) { return moving(t) ? S : 1u; };
  auto rest_of = [&](const std::string& name) -> const bone* {
    for (const auto& b : sk.bones)
      if (b.name == name) return &b;
    return nullptr;
  };
  nsa_input in;
  in.sample_rate = rate;
  in.sample_count = S;
  in.channels.resize(rig.bone_of_channel.size());
  bool scale_dropped = false;
  for (std::size_t c = 0; c < rig.bone_of_channel.size(); ++c) {
    const auto& name = rig.bone_of_channel[c];
    const track *tt = nullptr, *rt = nullptr;
    for (const auto& t : a.tracks) {
      if (t.bone != name) continue;
      if (t.path == path::translation) tt = &t;
      else if (t.path == path::rotation) rt = &t;
      else scale_dropped = true;
    }
    const bone* rb = rest_of(name);
    auto& ch = in.channels[c];
    if (roots.count(name)) tt = rt = nullptr;  // the trajectory carries it
    // A still track gives its first stored value as is (no interpolation noise).
    if (tt && moving(*tt))
      for (std::uint32_t i = 0; i < S; ++i) {
        auto v = sample_at(*tt, i);
        ch.translation.push_back({v[0], v[1], v[2]});
      }
    else if (tt)
      ch.translation.push_back({tt->values[0], tt->values[1], tt->values[2]});
    else if (rb)
      ch.translation.push_back(rb->translation);
    if (rt && moving(*rt))
      for (std::uint32_t i = 0; i < S; ++i) {
        auto v = sample_at(*rt, i);
        ch.rotation.push_back(core::normalize(quat{v[0], v[1], v[2], v[3]}));
      }
    else if (rt)
      ch.rotation.push_back(core::normalize(quat{rt->values[0], rt->values[1], rt->values[2], rt->values[3]}));
    else if (rb)
      ch.rotation.push_back(core::normalize(rb->rotation));
  }
  if (!roots.empty()) {  // one trajectory: the first root-motion bone's
    in.has_trajectory = true;
    for (const auto& t : a.tracks) {
      if (t.bone != *roots.begin()) continue;
      for (std::uint32_t i = 0; i < samples(t) && t.path != path::scale; ++i) {
        auto v = sample_at(t, i);
        if (t.path == path::translation) in.trajectory_translation.push_back({v[0], v[1], v[2]});
        else in.trajectory_rotation.push_back(core::normalize(quat{v[0], v[1], v[2], v[3]}));
      }
    }
  }
  if (roots.size() > 1) ctx.warn(code::w_lossy, "animation '" + a.name + "': only the first root-motion bone is written");
  if (scale_dropped) ctx.warn(code::w_lossy, "animation '" + a.name + "': scale tracks dropped (NSA has no scale)");
  std::size_t unset = 0;
  for (const auto& ch : in.channels) unset += ch.translation.empty() || ch.rotation.empty();
  if (unset)
    ctx.warn(code::w_missing_bone, std::to_string(unset) + " channels name bones the scene's skeleton lacks; "
                                                           "they keep the rig's bind pose");
  return in;
}

}  // namespace

bytes pack_nsa5(const scene& s, const pack_context& ctx) {
  if (s.animations.empty()) fail(code::write_unsupported, "an NSA holds one animation; the scene has none");
  if (s.animations.size() > 1)
    ctx.warn(code::w_lossy, "an NSA holds one animation: '" + s.animations[0].name + "' is written, " +
                                std::to_string(s.animations.size() - 1) + " others are not");
  const auto& a = s.animations[0];
  if (a.skeleton < 0 || static_cast<std::size_t>(a.skeleton) >= s.skeletons.size())
    fail(code::missing_skeleton, "animation '" + a.name + "' has no skeleton");
  const auto& sk = s.skeletons[static_cast<std::size_t>(a.skeleton)];
  // Template and pointer size.
  std::optional<nsa5_file> tpl;
  nsa5_encode_options opt;
  if (ctx.template_file) {
    auto p = probe_source5(*ctx.template_file);
    if (!p || p->type != source_type_nsa)
      fail(code::write_unsupported, "--template " + ctx.template_path +
                                        " is not a morpheme 5 NSA (the runtime-5 writer keeps its pointer size and grid)");
    tpl = parse_nsa5(core::byte_reader(*ctx.template_file));
    opt.x64 = tpl->h.x64;
  }
  if (!ctx.skeleton_file)
    fail(code::missing_skeleton, "a morpheme 5 NSA needs the bundle whose AnimToRig map orders its channels: "
                                 "pass --skeleton X.nmb");
  auto rig = rig_of_bundle(*ctx.skeleton_file, ctx.skeleton_path);
  if (!tpl) {
    opt.x64 = rig.pointer_size == 8;
    if (s.metadata.is_object() && s.metadata.contains("pointer_size") && s.metadata["pointer_size"].is_number() &&
        s.metadata["pointer_size"] != rig.pointer_size)
      ctx.warn(code::w_lossy, "the scene came from a " + s.metadata["pointer_size"].dump() +
                                  "-byte-pointer file; the bundle's pointer size (" + std::to_string(rig.pointer_size) +
                                  ") is written");
  }
  if (tpl && tpl->h.channel_count != rig.bone_of_channel.size())
    fail(code::bad_count, "--template has " + std::to_string(tpl->h.channel_count) + " channels, the bundle's map " +
                              std::to_string(rig.bone_of_channel.size()));
  const auto roots = root_motion_bones(a);
  check_bones_are_channels(a, rig, roots, ctx.skeleton_path);
  const double fps = ctx.fps ? *ctx.fps : (a.fps && *a.fps > 0 ? *a.fps : (tpl ? tpl->h.sample_rate : 30.0));
  const nsa_input in = sample_channels(a, sk, rig, roots, fps, ctx);
  opt.tpl = tpl ? &*tpl : nullptr;
  opt.unknown = static_cast<std::uint32_t>(rig.bone_of_channel.size() ? rig.bone_of_channel.size() - 1 : 0);
  auto enc = encode_nsa5(in, opt);
  if (tpl && !enc.on_template_grid)
    ctx.warn(code::w_lossy, "the clip does not fit the template's quantisation (" + enc.note +
                                "); quantised afresh, so the bytes differ from the template's");
  return serialise_nsa5(enc.file);
}

}  // namespace rigrip::morpheme
