#include "scene/pose.hpp"

#include <algorithm>

#include "rigrip/bone_lookup.hpp"

namespace rigrip::scene_ops {

using namespace core;

pose rest_pose(const skeleton& s) {
  pose p;
  for (const auto& b : s.bones) {
    p.translation.push_back(b.translation);
    p.rotation.push_back(b.rotation);
    p.scale.push_back(b.scale);
  }
  return p;
}

pose sample_pose(const skeleton& s, const animation& a, float time) {
  pose p = rest_pose(s);
  const bone_lookup bones(s);
  for (const auto& t : a.tracks) {
    int bi = bones.find(t.bone);
    if (bi < 0) continue;
    float v[4];
    sample(t, time, v);
    const auto i = static_cast<std::size_t>(bi);
    if (t.path == path::translation) p.translation[i] = {v[0], v[1], v[2]};
    else if (t.path == path::rotation) p.rotation[i] = normalize({v[0], v[1], v[2], v[3]});
    else p.scale[i] = {v[0], v[1], v[2]};
  }
  return p;
}

vec3 compensation(const vec3& s) {
  vec3 r;
  for (std::size_t k = 0; k < 3; ++k) r[k] = s[k] == 0.0f ? 0.0f : 1.0f / s[k];
  return r;
}

std::vector<mat4> world_matrices(const skeleton& s, const pose& p) {
  std::vector<mat4> w;
  world_matrices(s, p, w);
  return w;
}

#if defined(__SSE2__)
// The scalar formula below in SSE2 registers (core::simd: the same floats), the matrices
// never stored between the steps.
mat4 bone_world(const skeleton& s, const pose& p, std::size_t i, const mat4& parent_world) {
  const bone& b = s.bones[i];
  const bool has_parent = b.parent >= 0 && static_cast<std::size_t>(b.parent) < i;
  mat4 w;
  if (!has_parent) {
    simd::store_compose(simd::compose_cols(simd::point(p.translation[i]), simd::normalized(p.rotation[i]), p.scale[i]), w);
    return w;
  }
  const simd::cols parent = simd::load(parent_world);
  if (b.segment_scale_compensate) {
    // helper = compose(t, (0, 0, 0, 1), c): normalize keeps (0, 0, 0, 1), whose rotation
    // matrix is the identity with +0 off the diagonal, so column k of the helper holds
    // 1 * c_k = c_k on the diagonal (c_k is a quotient or +0, never a signalling NaN) and
    // 0 * c_k (±0 or NaN) off it. parent * helper is multiply_affine's sums with those entries.
    const vec3& ps = p.scale[static_cast<std::size_t>(b.parent)];
    const __m128 sp = _mm_setr_ps(ps[0], ps[1], ps[2], 1.0f);
    const __m128 c = _mm_andnot_ps(_mm_cmpeq_ps(sp, _mm_setzero_ps()), _mm_div_ps(_mm_set1_ps(1.0f), sp));  // compensation
    const __m128 zero = _mm_setzero_ps(), a3_0 = _mm_mul_ps(parent.c[3], zero);
    const __m128 c0 = simd::lane<0>(c), c1 = simd::lane<1>(c), c2 = simd::lane<2>(c);
    const __m128 z0 = _mm_mul_ps(zero, c0), z1 = _mm_mul_ps(zero, c1), z2 = _mm_mul_ps(zero, c2);
    simd::cols ph;
    ph.c[0] = _mm_add_ps(_mm_add_ps(_mm_add_ps(_mm_mul_ps(parent.c[0], c0), _mm_mul_ps(parent.c[1], z0)),
                                    _mm_mul_ps(parent.c[2], z0)), a3_0);
    ph.c[1] = _mm_add_ps(_mm_add_ps(_mm_add_ps(_mm_mul_ps(parent.c[0], z1), _mm_mul_ps(parent.c[1], c1)),
                                    _mm_mul_ps(parent.c[2], z1)), a3_0);
    ph.c[2] = _mm_add_ps(_mm_add_ps(_mm_add_ps(_mm_mul_ps(parent.c[0], z2), _mm_mul_ps(parent.c[1], z2)),
                                    _mm_mul_ps(parent.c[2], c2)), a3_0);
    const vec3& t = p.translation[i];
    ph.c[3] = _mm_add_ps(_mm_add_ps(_mm_add_ps(_mm_mul_ps(parent.c[0], _mm_set1_ps(t[0])), _mm_mul_ps(parent.c[1], _mm_set1_ps(t[1]))),
                                    _mm_mul_ps(parent.c[2], _mm_set1_ps(t[2]))), _mm_mul_ps(parent.c[3], _mm_set1_ps(1.0f)));
    const simd::cols rs = simd::compose_cols(_mm_setr_ps(0, 0, 0, 1), simd::normalized(p.rotation[i]), p.scale[i]);
    simd::store(simd::multiply_affine(ph, rs), w);
    return w;
  }
  const simd::cols local = simd::compose_cols(simd::point(p.translation[i]), simd::normalized(p.rotation[i]), p.scale[i]);
  simd::store(simd::multiply_affine(parent, local), w);
  return w;
}
#else
mat4 bone_world(const skeleton& s, const pose& p, std::size_t i, const mat4& parent_world) {
  const bone& b = s.bones[i];
  const bool has_parent = b.parent >= 0 && static_cast<std::size_t>(b.parent) < i;
  if (!has_parent) return compose(p.translation[i], p.rotation[i], p.scale[i]);
  const auto pi = static_cast<std::size_t>(b.parent);
  if (b.segment_scale_compensate) {
    // The glTF writer's helper node (T(t) * S(1/s_parent)) and then the bone's R * S.
    mat4 helper = compose(p.translation[i], {0, 0, 0, 1}, compensation(p.scale[pi]));
    return multiply(multiply(parent_world, helper), compose({0, 0, 0}, p.rotation[i], p.scale[i]));
  }
  return multiply(parent_world, compose(p.translation[i], p.rotation[i], p.scale[i]));
}
#endif

void world_matrices(const skeleton& s, const pose& p, std::vector<mat4>& w) {
  w.resize(s.bones.size());
  for (std::size_t i = 0; i < s.bones.size(); ++i) {
    const int parent = s.bones[i].parent;
    const bool has_parent = parent >= 0 && static_cast<std::size_t>(parent) < i;
    w[i] = bone_world(s, p, i, has_parent ? w[static_cast<std::size_t>(parent)] : w[i]);
  }
}

std::vector<mat4> world_matrices(const skeleton& s) { return world_matrices(s, rest_pose(s)); }

namespace {
// The segment [k, k+1] holding `time` (times[k] <= time < times[k+1]), as upper_bound - 1
// finds it; `cursor` is a guess that is stepped forward when it is not after `time`.
std::size_t segment_of(const track& t, float time, std::size_t* cursor) {
  const auto& ts = t.times;
  if (cursor && *cursor < ts.size() && ts[*cursor] <= time) {
    std::size_t k = *cursor;
    while (k + 1 < ts.size() && ts[k + 1] <= time) ++k;
    return *cursor = k;
  }
  const auto k =
      static_cast<std::size_t>(std::upper_bound(ts.begin(), ts.end(), time) - ts.begin()) - 1;
  if (cursor) *cursor = k;
  return k;
}

// sample_at for N = components(path) known at compile time (3, or 4 for rotations), so the
// per-component loops unroll; the same operations in the same order as the general form.
template <std::size_t N>
void sample_n(const track& t, float time, float* out, std::size_t* cursor) {
  const bool cubic = t.interpolation == interpolation::cubic_spline;
  const std::size_t e = cubic ? 3 : 1;
  const std::size_t keys = t.times.size();
  if (keys == 0 || t.values.size() < keys * N * e) {
    std::fill_n(out, N, 0.0f);
    return;
  }
  const float* values = t.values.data();
  // which: 0 in-tangent, 1 value, 2 out-tangent (cubic); the value otherwise
  auto value = [&](std::size_t k, std::size_t which) { return values + (k * e + (cubic ? which : 0)) * N; };
  if (time <= t.times.front() || keys == 1) {
    std::copy_n(value(0, 1), N, out);
    return;
  }
  if (time >= t.times.back()) {
    std::copy_n(value(keys - 1, 1), N, out);
    return;
  }
  const std::size_t k = segment_of(t, time, cursor);
  float t0 = t.times[k], t1 = t.times[k + 1];
  float dt = t1 - t0;
  float u = dt > 0 ? (time - t0) / dt : 0.0f;
  if (t.interpolation == interpolation::step) {
    std::copy_n(value(k, 1), N, out);
    return;
  }
  if (!cubic) {
    const float* a = value(k, 1);
    const float* b = value(k + 1, 1);
    if constexpr (N == 4) {
      if (t.path == path::rotation) {
        quat q = slerp({a[0], a[1], a[2], a[3]}, {b[0], b[1], b[2], b[3]}, u);
        std::copy(q.begin(), q.end(), out);
        return;
      }
    }
    for (std::size_t i = 0; i < N; ++i) out[i] = a[i] + (b[i] - a[i]) * u;
    return;
  }
  // CUBICSPLINE as glTF defines it: tangents scaled by the segment length.
  const float* p0 = value(k, 1);
  const float* m0 = value(k, 2);
  const float* p1 = value(k + 1, 1);
  const float* m1 = value(k + 1, 0);
  float u2 = u * u, u3 = u2 * u;
  float h00 = 2 * u3 - 3 * u2 + 1, h10 = u3 - 2 * u2 + u, h01 = -2 * u3 + 3 * u2, h11 = u3 - u2;
  for (std::size_t i = 0; i < N; ++i)
    out[i] = h00 * p0[i] + h10 * dt * m0[i] + h01 * p1[i] + h11 * dt * m1[i];
  if constexpr (N == 4) {
    if (t.path == path::rotation) {
      quat q = normalize({out[0], out[1], out[2], out[3]});
      std::copy(q.begin(), q.end(), out);
    }
  }
}

void sample_at(const track& t, float time, float* out, std::size_t* cursor) {
  if (t.path == path::rotation) sample_n<4>(t, time, out, cursor);
  else sample_n<3>(t, time, out, cursor);
}

}  // namespace

void sample(const track& t, float time, float* out) {
  sample_at(t, time, out, nullptr);
}

void sample(const track& t, float time, float* out, std::size_t& cursor) {
  sample_at(t, time, out, &cursor);
}

std::vector<float> sample(const track& t, float time) {
  std::vector<float> out(static_cast<std::size_t>(components(t.path)), 0.0f);
  sample(t, time, out.data());
  return out;
}

void layer_additive_onto_rest(animation& a, const skeleton& sk) {
  if (!a.extras.is_object() || !a.extras.value("additive", false)) return;
  for (auto& t : a.tracks) {
    const int bi = sk.find(t.bone);
    if (bi < 0) continue;
    const auto& b = sk.bones[static_cast<std::size_t>(bi)];
    const std::size_t e = t.elements_per_key(), c = static_cast<std::size_t>(components(t.path));
    for (std::size_t k = 0; k < t.times.size(); ++k)
      for (std::size_t el = 0; el < e; ++el) {
        if ((k * e + el + 1) * c > t.values.size()) return;  // an unvalidated scene: stop, never overrun
        float* v = &t.values[(k * e + el) * c];
        const bool tangent = e == 3 && el != 1;
        if (t.path == path::translation) {
          if (!tangent)
            for (std::size_t i = 0; i < 3; ++i) v[i] += b.translation[i];
        } else if (t.path == path::rotation) {
          const quat r = core::multiply(b.rotation, quat{v[0], v[1], v[2], v[3]});
          std::copy(r.begin(), r.end(), v);
        } else {
          for (std::size_t i = 0; i < 3; ++i) v[i] *= b.scale[i];
        }
      }
  }
}

}  // namespace rigrip::scene_ops
