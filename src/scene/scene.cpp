// Scene model helpers and validate(): the invariants every reader's output and
// every writer's input must satisfy.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <unordered_map>

#include "rigrip/scene.hpp"

#include "core/math.hpp"
#include "scene/bone_name_index.hpp"
#include "scene/unit_norm.hpp"

namespace rigrip {

int skeleton::find(std::string_view bone_name) const {
  for (std::size_t i = 0; i < bones.size(); ++i)
    if (bones[i].name == bone_name) return static_cast<int>(i);
  return -1;
}

std::string_view to_string(path p) {
  switch (p) {
    case path::translation: return "translation";
    case path::rotation: return "rotation";
    case path::scale: return "scale";
  }
  return "rotation";
}
std::string_view to_string(interpolation i) {
  switch (i) {
    case interpolation::step: return "STEP";
    case interpolation::linear: return "LINEAR";
    case interpolation::cubic_spline: return "CUBICSPLINE";
  }
  return "LINEAR";
}
std::string_view to_string(material_track::target t) {
  switch (t) {
    case material_track::target::offset: return "offset";
    case material_track::target::rotation: return "rotation";
    case material_track::target::scale: return "scale";
  }
  return "offset";
}
std::optional<path> path_from_string(std::string_view s) {
  if (s == "translation") return path::translation;
  if (s == "rotation") return path::rotation;
  if (s == "scale") return path::scale;
  return std::nullopt;
}
std::optional<interpolation> interpolation_from_string(std::string_view s) {
  if (s == "STEP") return interpolation::step;
  if (s == "LINEAR") return interpolation::linear;
  if (s == "CUBICSPLINE") return interpolation::cubic_spline;
  return std::nullopt;
}
int components(path p) { return p == path::rotation ? 4 : 3; }

namespace {
using core::all_finite;
bool unit(const quat& q, float tol = 1e-3f) {
  float n = std::sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
  return std::fabs(n - 1.0f) <= tol;
}
bool finite_numbers(const nlohmann::json& j, std::size_t n) {
  if (!j.is_array() || j.size() != n) return false;
  for (const auto& v : j)
    if (!v.is_number() || !std::isfinite(v.get<double>())) return false;
  return true;
}

error bad(const std::string& where, const std::string& what) {
  return make_error(code::invalid_scene, where + ": " + what);
}

}  // namespace

namespace detail {

// A word hash of a name (8 bytes per step, the tail read once); any spread will do: the
// table below compares the names themselves.
std::uint64_t name_hash(std::string_view s) noexcept {
  const char* p = s.data();
  std::size_t n = s.size();
  std::uint64_t h = 0x9e3779b97f4a7c15ull ^ (n * 0xff51afd7ed558ccdull);
  for (; n >= 8; n -= 8, p += 8) {
    std::uint64_t w;
    std::memcpy(&w, p, 8);
    h = (h ^ w) * 0x9e3779b97f4a7c15ull;
    h ^= h >> 29;
  }
  if (n) {
    std::uint64_t w = 0;
    std::memcpy(&w, p, n);
    h = (h ^ w) * 0x9e3779b97f4a7c15ull;
  }
  h ^= h >> 32;
  return h * 0xc4ceb9fe1a85ec53ull;
}

bone_name_index::bone_name_index(const skeleton& sk) : bones_(&sk.bones) {
  std::size_t n = 8;
  while (n < 2 * sk.bones.size()) n *= 2;
  slot_.assign(n, entry{0, -1});
  mask_ = n - 1;
}

int bone_name_index::add(std::size_t b) {
  const std::string& name = (*bones_)[b].name;
  const std::uint64_t h = name_hash(name);
  const auto tag = static_cast<std::uint32_t>(h >> 32);
  for (std::size_t i = h & mask_;; i = (i + 1) & mask_) {
    entry& e = slot_[i];
    if (e.bone < 0) {
      e = {tag, static_cast<std::int32_t>(b)};
      return static_cast<int>(b);
    }
    if (e.tag == tag && (*bones_)[static_cast<std::size_t>(e.bone)].name == name) return e.bone;
  }
}

int bone_name_index::find(std::string_view name) const {
  const std::uint64_t h = name_hash(name);
  const auto tag = static_cast<std::uint32_t>(h >> 32);
  for (std::size_t i = h & mask_;; i = (i + 1) & mask_) {
    const entry& e = slot_[i];
    if (e.bone < 0) return -1;
    if (e.tag == tag && (*bones_)[static_cast<std::size_t>(e.bone)].name == name) return e.bone;
  }
}

}  // namespace detail

namespace {
// check_track's conditions in one branch-free pass per array, without messages: true when
// the track passes them all (the usual case), so only a failing track takes the detailed
// path that finds and words its first problem.
bool track_plainly_ok(const track& tr, double end) {
  const std::size_t nk = tr.times.size();
  if (nk == 0 || (tr.interpolation == interpolation::cubic_spline && nk < 2)) return false;
  const std::size_t e = tr.elements_per_key();
  if (tr.values.size() != nk * static_cast<std::size_t>(components(tr.path)) * e) return false;
  // The largest float <= end: for a float time, tm <= end exactly when tm <= end_f (and a
  // time within [0, end_f] is finite), so the loop compares floats only.
  float end_f = static_cast<float>(end);
  if (static_cast<double>(end_f) > end) end_f = std::nextafter(end_f, -std::numeric_limits<float>::infinity());
  // Strictly increasing from times[0] >= 0 to times[nk-1] <= end_f puts every time in
  // [0, end_f]; a NaN fails its comparisons. Flags are ORed as integers so the loops vectorise.
  const float* times = tr.times.data();
  const bool ends_ok = std::isfinite(end) && times[0] >= 0 && times[nk - 1] <= end_f;
  std::uint32_t bad = 0;
  for (std::size_t k = 1; k < nk; ++k) bad |= static_cast<std::uint32_t>(!(times[k] > times[k - 1]));
  if (!ends_ok || bad) return false;
  const float* v = tr.values.data();
  const std::size_t nv = tr.values.size();
  if (tr.path == path::rotation) {
    // The sum of squares is NaN or infinite when a component is, so for one value per key
    // (no tangents) the unit test below also covers finiteness.
    const float lo = detail::unit_norm_sq_lo(), hi = detail::unit_norm_sq_hi();
    const std::size_t at = e == 3 ? 4 : 0, step = 4 * e;
    for (std::size_t k = 0; k < nk; ++k) {
      const float* q = v + k * step + at;
      const float x = q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3];
      bad |= static_cast<std::uint32_t>(!(x >= lo)) | static_cast<std::uint32_t>(!(x <= hi));
    }
    if (bad) return false;
    if (e == 1) return true;
  }
  // Finite: the exponent bits are not all ones (compared as integers, so the loop vectorises).
  std::uint32_t inf_nan = 0;
  for (std::size_t i = 0; i < nv; ++i) {
    std::uint32_t b;
    std::memcpy(&b, v + i, 4);
    inf_nan |= static_cast<std::uint32_t>((b & 0x7f800000u) == 0x7f800000u);
  }
  return inf_nan == 0;
}

// One track's keys and values (its bone and path are checked by the caller).
result<void> check_track(const track& tr, std::size_t a, std::size_t t, double end, const char* list = "animations") {
  if (track_plainly_ok(tr, end)) return {};
  auto w = [&] { return std::string(list) + "[" + std::to_string(a) + "].tracks[" + std::to_string(t) + "]"; };
  if (tr.times.empty()) return bad(w(), "no keys");
  if (tr.interpolation == interpolation::cubic_spline && tr.times.size() < 2)
    return bad(w(), "CUBICSPLINE needs at least two keys");
  std::size_t n = static_cast<std::size_t>(components(tr.path));
  if (tr.values.size() != tr.times.size() * n * tr.elements_per_key())
    return bad(w(), "value count " + std::to_string(tr.values.size()) + " does not match " +
                        std::to_string(tr.times.size()) + " keys");
  const float* times = tr.times.data();
  for (std::size_t k = 0; k < tr.times.size(); ++k) {
    float tm = times[k];
    if (!std::isfinite(tm) || tm < 0 || tm > end)
      return bad(w() + ".times[" + std::to_string(k) + "]",
                 "time " + std::to_string(tm) + " outside [0, duration]");
    if (k > 0 && !(tm > times[k - 1]))
      return bad(w() + ".times[" + std::to_string(k) + "]", "times not strictly increasing");
  }
  if (!all_finite(tr.values)) {
    for (std::size_t i = 0; i < tr.values.size(); ++i)
      if (!std::isfinite(tr.values[i]))
        return bad(w() + ".values[" + std::to_string(i) + "]", "non-finite value");
  }
  if (tr.path == path::rotation) {
    std::size_t e = tr.elements_per_key();
    for (std::size_t k = 0; k < tr.times.size(); ++k) {
      const float* q = &tr.values[(k * e + (e == 3 ? 1 : 0)) * 4];
      if (!unit({q[0], q[1], q[2], q[3]}))
        return bad(w() + ".values key " + std::to_string(k), "rotation is not a unit quaternion");
    }
  }
  return {};
}

result<void> check_mesh(const mesh& me, std::size_t m, const std::vector<skeleton>& skeletons,
                        const std::vector<material>& materials) {
  std::string w = "meshes[" + std::to_string(m) + "]";
  std::size_t n = me.positions.size();
  if (!me.normals.empty() && me.normals.size() != n) return bad(w, "normal count mismatch");
  if (!me.tangents.empty()) {
    if (me.tangents.size() != n) return bad(w, "tangent count mismatch");
    if (me.normals.empty()) return bad(w, "tangents without normals");
    for (const auto& t : me.tangents)
      if (t[3] != 1.0f && t[3] != -1.0f) return bad(w, "tangent w (handedness) is not +1 or -1");
  }
  if (!me.uvs.empty() && me.uvs.size() != n) return bad(w, "uv count mismatch");
  if (!me.uvs1.empty() && me.uvs1.size() != n) return bad(w, "uv1 count mismatch");
  if (!me.colors.empty() && me.colors.size() != n) return bad(w, "colour count mismatch");
  if (me.joints.size() != me.weights.size()) return bad(w, "joints/weights count mismatch");
  if (!me.joints.empty() && me.joints.size() != n) return bad(w, "joint count mismatch");
  if (me.skeleton >= static_cast<int>(skeletons.size()) || me.skeleton < -1)
    return bad(w, "skeleton index out of range");
  if ((me.bone >= 0 || !me.joints.empty()) && me.skeleton < 0)
    return bad(w, "bone binding without a skeleton");
  if (me.skeleton >= 0) {
    auto nb = skeletons[static_cast<std::size_t>(me.skeleton)].bones.size();
    if (me.bone >= static_cast<int>(nb)) return bad(w, "bone index out of range");
    for (const auto& j : me.joints)
      for (auto ji : j)
        if (ji >= nb) return bad(w, "joint index out of range");
  }
  if (me.material >= static_cast<int>(materials.size())) return bad(w, "material out of range");
  for (auto i : me.indices)
    if (i >= n) return bad(w, "index out of range");
  if (me.indices.empty() ? n % 3 != 0 : me.indices.size() % 3 != 0)
    return bad(w, "triangle list length is not a multiple of 3");
  for (const auto& p : me.positions)
    if (!all_finite(p)) return bad(w, "non-finite position");
  for (const auto& p : me.normals)
    if (!all_finite(p)) return bad(w, "non-finite normal");
  for (const auto& p : me.tangents)
    if (!all_finite(p)) return bad(w, "non-finite tangent");
  for (const auto& p : me.uvs)
    if (!all_finite(p)) return bad(w, "non-finite uv");
  for (const auto& p : me.uvs1)
    if (!all_finite(p)) return bad(w, "non-finite uv1");
  for (const auto& p : me.weights)
    if (!all_finite(p)) return bad(w, "non-finite weight");
  return {};
}

// Cameras and camera clips (scene-model.md): lens values in range, tracks on named cameras.
result<void> check_cameras(const scene& sc) {
  for (std::size_t c = 0; c < sc.cameras.size(); ++c) {
    const auto& cm = sc.cameras[c];
    const std::string w = "cameras[" + std::to_string(c) + "]";
    if (cm.name.empty()) return bad(w, "empty name");
    for (std::size_t k = 0; k < c; ++k)
      if (sc.cameras[k].name == cm.name) return bad(w, "duplicate camera name '" + cm.name + "'");
    if (!all_finite(cm.translation) || !all_finite(cm.rotation)) return bad(w, "non-finite transform");
    if (!unit(cm.rotation)) return bad(w, "rotation is not a unit quaternion");
    if (!(cm.znear > 0) || !std::isfinite(cm.znear)) return bad(w, "znear must be a positive number");
    if (cm.zfar && (!std::isfinite(*cm.zfar) || !(*cm.zfar > cm.znear))) return bad(w, "zfar must be greater than znear");
    if (cm.type == camera::projection::perspective) {
      if (!(cm.yfov > 0 && cm.yfov < 3.14159265f)) return bad(w, "yfov must be in (0, pi) radians");
      if (cm.aspect && (!std::isfinite(*cm.aspect) || !(*cm.aspect > 0))) return bad(w, "aspect must be positive");
    } else {
      if (!cm.zfar) return bad(w, "an orthographic camera needs zfar");
      if (!std::isfinite(cm.xmag) || !std::isfinite(cm.ymag) || cm.xmag == 0 || cm.ymag == 0)
        return bad(w, "xmag and ymag must be finite and non-zero");
    }
  }
  auto find = [&](const std::string& n) {
    for (std::size_t c = 0; c < sc.cameras.size(); ++c)
      if (sc.cameras[c].name == n) return static_cast<int>(c);
    return -1;
  };
  for (std::size_t a = 0; a < sc.camera_animations.size(); ++a) {
    const auto& an = sc.camera_animations[a];
    const std::string wa = "camera_animations[" + std::to_string(a) + "]";
    if (!std::isfinite(an.duration) || an.duration < 0) return bad(wa, "bad duration");
    if (an.fps && (!std::isfinite(*an.fps) || *an.fps <= 0)) return bad(wa, "bad fps");
    const double end = an.duration + 1e-4 * (1 + an.duration);
    std::vector<std::uint8_t> seen(sc.cameras.size(), 0);
    for (std::size_t t = 0; t < an.tracks.size(); ++t) {
      const auto& tr = an.tracks[t];
      const std::string w = wa + ".tracks[" + std::to_string(t) + "]";
      const int ci = find(tr.bone);
      if (ci < 0) return bad(w, "camera '" + tr.bone + "' not in the scene");
      if (tr.path == path::scale) return bad(w, "a camera track moves or turns it (translation, rotation), never scales");
      const auto bit = static_cast<std::uint8_t>(1u << static_cast<int>(tr.path));
      auto& flags = seen[static_cast<std::size_t>(ci)];
      if (flags & bit) return bad(w, "second track for the same camera and path");
      flags = static_cast<std::uint8_t>(flags | bit);
      if (auto r = check_track(tr, a, t, end, "camera_animations"); !r) return r;
    }
    for (std::size_t t = 0; t < an.lens.size(); ++t) {
      const auto& lt = an.lens[t];
      const std::string w = wa + ".lens[" + std::to_string(t) + "]";
      if (find(lt.camera) < 0) return bad(w, "camera '" + lt.camera + "' not in the scene");
      if (lt.interpolation == interpolation::cubic_spline) return bad(w, "lens keys are STEP or LINEAR");
      if (lt.times.empty() || lt.times.size() != lt.yfov.size()) return bad(w, "needs one yfov per key time");
      for (std::size_t k = 0; k < lt.times.size(); ++k) {
        if (!std::isfinite(lt.times[k]) || lt.times[k] < 0 || lt.times[k] > end)
          return bad(w + ".times[" + std::to_string(k) + "]", "time outside [0, duration]");
        if (k > 0 && !(lt.times[k] > lt.times[k - 1]))
          return bad(w + ".times[" + std::to_string(k) + "]", "times not strictly increasing");
        if (!(lt.yfov[k] > 0 && lt.yfov[k] < 3.14159265f))
          return bad(w + ".yfov[" + std::to_string(k) + "]", "yfov must be in (0, pi) radians");
      }
    }
  }
  return {};
}

}  // namespace

// Linear in the scene's size: one table of the bone names per skeleton (filled bone by
// bone, so a name already in it is a duplicate), a flag per (bone, path) for duplicate
// tracks, and the element paths of messages built only when something is wrong.
result<void> scene::validate() const {
  std::vector<detail::bone_name_index> lookups;
  lookups.reserve(skeletons.size());
  for (std::size_t s = 0; s < skeletons.size(); ++s) {
    const auto& sk = skeletons[s];
    auto& names = lookups.emplace_back(sk);
    for (std::size_t b = 0; b < sk.bones.size(); ++b) {
      const auto& bn = sk.bones[b];
      auto w = [&] { return "skeletons[" + std::to_string(s) + "].bones[" + std::to_string(b) + "]"; };
      if (bn.name.empty()) return bad(w(), "empty name (unnamed bones must be bone_<index>)");
      // The first bone of a name is the one a lookup finds: a later one is the duplicate.
      if (names.add(b) != static_cast<int>(b)) return bad(w(), "duplicate bone name '" + bn.name + "'");
      if (bn.parent < -1 || bn.parent >= static_cast<int>(b))
        return bad(w(), "parent " + std::to_string(bn.parent) +
                            " must precede the bone (no cycles, no forward parents)");
      if (!all_finite(bn.translation) || !all_finite(bn.rotation) || !all_finite(bn.scale))
        return bad(w(), "non-finite rest transform");
      if (!unit(bn.rotation)) return bad(w(), "rest rotation is not a unit quaternion");
    }
  }
  std::vector<std::uint8_t> seen;  // per bone: bit per path that already has a track
  for (std::size_t a = 0; a < animations.size(); ++a) {
    const auto& an = animations[a];
    auto wa = [&] { return "animations[" + std::to_string(a) + "]"; };
    if (an.skeleton < 0 || an.skeleton >= static_cast<int>(skeletons.size()))
      return bad(wa(), "skeleton index " + std::to_string(an.skeleton) + " out of range");
    if (!std::isfinite(an.duration) || an.duration < 0) return bad(wa(), "bad duration");
    if (an.fps && (!std::isfinite(*an.fps) || *an.fps <= 0)) return bad(wa(), "bad fps");
    const auto si = static_cast<std::size_t>(an.skeleton);
    const auto& names = lookups[si];
    const auto& bones = skeletons[si].bones;
    seen.assign(bones.size(), 0);
    const double end = an.duration + 1e-4 * (1 + an.duration);
    std::size_t hint = 0;  // the bone of the previous track: tracks usually come bone by bone
    for (std::size_t t = 0; t < an.tracks.size(); ++t) {
      const auto& tr = an.tracks[t];
      auto w = [&] { return wa() + ".tracks[" + std::to_string(t) + "]"; };
      // The names are unique here (checked above), so a bone whose name equals the track's
      // is the one the table finds; the previous track's bone and the next are tried first.
      int bi;
      if (hint < bones.size() && bones[hint].name == tr.bone) bi = static_cast<int>(hint);
      else if (hint + 1 < bones.size() && bones[hint + 1].name == tr.bone) bi = static_cast<int>(hint + 1);
      else bi = names.find(tr.bone);
      if (bi < 0) return bad(w(), "bone '" + tr.bone + "' not in the skeleton");
      hint = static_cast<std::size_t>(bi);
      const auto bit = static_cast<std::uint8_t>(1u << static_cast<int>(tr.path));
      auto& flags = seen[static_cast<std::size_t>(bi)];
      if (flags & bit) return bad(w(), "second track for the same bone and path");
      flags = static_cast<std::uint8_t>(flags | bit);
      if (auto r = check_track(tr, a, t, end); !r) return r;
    }
    for (std::size_t t = 0; t < an.material_tracks.size(); ++t) {
      const auto& mt = an.material_tracks[t];
      const std::string w = wa() + ".material_tracks[" + std::to_string(t) + "]";
      if (mt.material < 0 || mt.material >= static_cast<int>(materials.size()))
        return bad(w, "material index " + std::to_string(mt.material) + " out of range");
      if (mt.texcoord < 0 || mt.texcoord > 1) return bad(w, "texcoord is not 0 or 1");
      if (mt.interpolation == interpolation::cubic_spline) return bad(w, "only STEP or LINEAR");
      if (mt.times.empty()) return bad(w, "no keys");
      if (mt.values.size() != mt.times.size() * mt.components()) return bad(w, "value count does not match the keys");
      for (std::size_t k = 0; k < mt.times.size(); ++k)
        if (!std::isfinite(mt.times[k]) || mt.times[k] < 0 || mt.times[k] > end || (k > 0 && !(mt.times[k] > mt.times[k - 1])))
          return bad(w + ".times[" + std::to_string(k) + "]", "time outside [0, duration] or not increasing");
      if (!all_finite(mt.values)) return bad(w, "non-finite value");
    }
  }
  for (std::size_t m = 0; m < meshes.size(); ++m)
    if (auto r = check_mesh(meshes[m], m, skeletons, materials); !r) return r;
  for (std::size_t t = 0; t < textures.size(); ++t) {
    const auto& tx = textures[t];
    if (tx.width == 0 || tx.height == 0 ||
        tx.rgba.size() != static_cast<std::size_t>(tx.width) * tx.height * 4)
      return bad("textures[" + std::to_string(t) + "]", "size does not match width*height*4");
    for (std::size_t k = 0; k < tx.mips.size(); ++k) {
      const auto& lv = tx.mips[k];
      if (lv.width == 0 || lv.height == 0 || lv.rgba.size() != static_cast<std::size_t>(lv.width) * lv.height * 4)
        return bad("textures[" + std::to_string(t) + "].mips[" + std::to_string(k) + "]",
                   "size does not match width*height*4");
    }
  }
  for (std::size_t m = 0; m < materials.size(); ++m) {
    const auto& mt = materials[m];
    const int nt = static_cast<int>(textures.size());
    if (mt.texture >= nt || mt.normal_texture >= nt || mt.emissive_texture >= nt)
      return bad("materials[" + std::to_string(m) + "]", "texture index out of range");
    for (int tc : {mt.texcoord, mt.normal_texcoord, mt.emissive_texcoord})
      if (tc < 0 || tc > 1) return bad("materials[" + std::to_string(m) + "]", "texcoord is not 0 or 1");
    if (!all_finite(mt.emissive_factor)) return bad("materials[" + std::to_string(m) + "]", "non-finite emissive factor");
  }
  if (auto r = check_cameras(*this); !r) return r;
  // The few metadata/extras keys writers act on (a scene JSON may carry anything there).
  if (metadata.is_object() && metadata.contains("root_transform")) {
    const auto& rt = metadata["root_transform"];
    if (!rt.is_object()) return bad("metadata.root_transform", "must be an object");
    if (rt.contains("rotation") && !finite_numbers(rt["rotation"], 4))
      return bad("metadata.root_transform.rotation", "must be 4 finite numbers (x, y, z, w)");
    if (rt.contains("scale") && !finite_numbers(rt["scale"], 3))
      return bad("metadata.root_transform.scale", "must be 3 finite numbers");
  }
  for (std::size_t k = 0; k < skeletons.size(); ++k) {
    const auto& ex = skeletons[k].extras;
    if (ex.is_object() && ex.contains("display_offset") && !finite_numbers(ex["display_offset"], 3))
      return bad("skeletons[" + std::to_string(k) + "].extras.display_offset", "must be 3 finite numbers");
  }
  return {};
}

}  // namespace rigrip
