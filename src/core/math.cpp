#include "core/math.hpp"
#include "core/euler.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <limits>

#if defined(__SSE2__)
#include <xmmintrin.h>
#endif

#define GLM_FORCE_CTOR_INIT
#include <glm/glm.hpp>
#include <glm/gtc/matrix_transform.hpp>
#include <glm/gtc/quaternion.hpp>
#include <glm/gtc/type_ptr.hpp>

namespace rigrip::core {
namespace {
glm::quat to_glm(const quat& q) { return glm::quat(q[3], q[0], q[1], q[2]); }
quat from_glm(const glm::quat& q) { return {q.x, q.y, q.z, q.w}; }
glm::mat4 to_glm(const mat4& m) { return glm::make_mat4(m.data()); }
mat4 from_glm(const glm::mat4& m) {
  mat4 r;
  const float* p = glm::value_ptr(m);
  for (int i = 0; i < 16; ++i) r[static_cast<std::size_t>(i)] = p[i];
  return r;
}
}  // namespace

quat conjugate(const quat& q) { return {-q[0], -q[1], -q[2], q[3]}; }
vec3 rotate(const quat& q, const vec3& v) {
  glm::vec3 r = to_glm(q) * glm::vec3(v[0], v[1], v[2]);
  return {r.x, r.y, r.z};
}
quat slerp(const quat& a, quat b, float t) {
  if (dot(a, b) < 0) b = {-b[0], -b[1], -b[2], -b[3]};
  // glm::slerp(a, b, t) (glm 0.9.9) written out term for term, in glm's order: its dot
  // (w·w + x·x) + (y·y + z·z), its own sign flip, mix near 1, else (a sin((1 - t)θ) +
  // b sin(tθ)) / sin θ. At t = ±0 (a sample at a key: most of the bake's) (1 - t)θ is θ and
  // sinf(±0) is ±0 (C Annex F), so one libm sine gives the same floats as three.
  float c = (a[3] * b[3] + a[0] * b[0]) + (a[1] * b[1] + a[2] * b[2]);
  if (c < 0.0f) b = {-b[0], -b[1], -b[2], -b[3]}, c = -c;
  float x, y, z, w;
  if (c > 1.0f - std::numeric_limits<float>::epsilon()) {
    const float u = 1.0f - t;
    x = a[0] * u + b[0] * t, y = a[1] * u + b[1] * t, z = a[2] * u + b[2] * t, w = a[3] * u + b[3] * t;
  } else {
    const float angle = std::acos(c);
    const float s = std::sin(angle);
    float s0 = s, s1 = t * angle;
    if (t != 0.0f) s0 = std::sin((1.0f - t) * angle), s1 = std::sin(s1);
    x = (a[0] * s0 + b[0] * s1) / s, y = (a[1] * s0 + b[1] * s1) / s;
    z = (a[2] * s0 + b[2] * s1) / s, w = (a[3] * s0 + b[3] * s1) / s;
  }
  return normalize({x, y, z, w});
}
quat axis_angle(const vec3& axis, float radians) {
  return normalize(from_glm(glm::angleAxis(radians, glm::normalize(glm::vec3(axis[0], axis[1], axis[2])))));
}
quat from_rotation_matrix(const double r[3][3]) {
  glm::dmat3 m;  // glm is column-major: m[column][row]
  for (int row = 0; row < 3; ++row)
    for (int col = 0; col < 3; ++col) m[col][row] = r[row][col];
  const glm::dquat q = glm::quat_cast(m);
  return normalize({static_cast<float>(q.x), static_cast<float>(q.y), static_cast<float>(q.z), static_cast<float>(q.w)});
}

namespace {
// axis_angle() about world axis `k`: glm::angleAxis (w = cos, xyz = axis * sin, the zero
// components as 0 * sin, signs included) and normalize(), without normalising the axis.
quat world_axis_angle(std::size_t k, float radians) {
  const float s = std::sin(radians * 0.5f), c = std::cos(radians * 0.5f);
  quat q{0.0f * s, 0.0f * s, 0.0f * s, c};
  q[k] = 1.0f * s;
  return normalize(q);
}
}  // namespace

// X, then Y, then Z (BFRES, once per key and bone): from_euler's general path without the
// walk over the order string, so the same products in the same order give the same floats,
// signed zeros included.
quat from_euler_xyz(const vec3& r) {
  quat q = multiply(world_axis_angle(0, r[0]), quat{0, 0, 0, 1});
  q = multiply(world_axis_angle(1, r[1]), q);
  q = multiply(world_axis_angle(2, r[2]), q);
  return normalize(q);
}

quat from_euler(const vec3& r, std::string_view order) {
  if (order == "XYZ") return from_euler_xyz(r);
  quat q{0, 0, 0, 1};
  for (char c : order) {
    quat step{0, 0, 0, 1};
    switch (c) {
      case 'X': case 'x': step = axis_angle({1, 0, 0}, r[0]); break;
      case 'Y': case 'y': step = axis_angle({0, 1, 0}, r[1]); break;
      case 'Z': case 'z': step = axis_angle({0, 0, 1}, r[2]); break;
      default: break;
    }
    q = multiply(step, q);  // later axes apply after earlier ones
  }
  return normalize(q);
}
bool finite(const quat& q) {
  return std::isfinite(q[0]) && std::isfinite(q[1]) && std::isfinite(q[2]) && std::isfinite(q[3]);
}
bool finite(const vec3& v) { return std::isfinite(v[0]) && std::isfinite(v[1]) && std::isfinite(v[2]); }

// The plain loop: each key's dot with the key before it as that one was left (flipped or not).
void make_hemisphere_continuous_scalar(std::vector<float>& v, std::size_t stride_keys) {
  // stride_keys = 3 for CUBICSPLINE (in-tangent, value, out-tangent): flip whole triples.
  std::size_t per_key = 4 * stride_keys;
  if (v.size() < per_key) return;
  std::size_t keys = v.size() / per_key;
  std::size_t value_at = stride_keys == 3 ? 4 : 0;
  for (std::size_t k = 1; k < keys; ++k) {
    const float* p = &v[(k - 1) * per_key + value_at];
    float* c = &v[k * per_key + value_at];
    float d = p[0] * c[0] + p[1] * c[1] + p[2] * c[2] + p[3] * c[3];
    if (d < 0)
      for (std::size_t i = 0; i < per_key; ++i) v[k * per_key + i] = -v[k * per_key + i];
  }
}

#if defined(__SSE2__)
namespace {
// Which of four keys flip (bit j: key j), from bit j of `below` (its dot with the key before
// it, both as loaded, is < 0), of `above` (> 0) and whether the key before the four was
// flipped: key j flips when the dot is < 0 and key j - 1 was kept, or > 0 and it was flipped.
// Indexed by flipped << 8 | above << 4 | below.
constexpr std::array<std::uint8_t, 512> hemisphere_flips = [] {
  std::array<std::uint8_t, 512> t{};
  for (unsigned i = 0; i < 512; ++i) {
    bool flipped = i >> 8;
    unsigned out = 0;
    for (unsigned j = 0; j < 4; ++j) {
      flipped = ((flipped ? i >> 4 : i) >> j) & 1;
      out |= static_cast<unsigned>(flipped) << j;
    }
    t[i] = static_cast<std::uint8_t>(out);
  }
  return t;
}();
}  // namespace
#endif

void make_hemisphere_continuous(std::vector<float>& v, std::size_t stride_keys) {
#if defined(__SSE2__)
  // One value per key (stride 1): four keys a step. A flipped key's dot with the next is the
  // negated dot of the unflipped keys (negation is exact), so the dots are made from the keys
  // as loaded, each summed as the plain loop sums it ((x + y) + z) + w, and key j flips when
  // its dot is < 0 with the key before it kept, or > 0 with that one flipped (±0 and NaN
  // never flip, as in the plain loop). Negating is flipping the sign bit, as -v is.
  if (stride_keys == 1 && v.size() >= 8) {
    const std::size_t keys = v.size() / 4;
    float* q = v.data();
    const __m128 zero = _mm_setzero_ps(), sign = _mm_set1_ps(-0.0f);
    __m128 prev = _mm_loadu_ps(q);  // key k - 1 as loaded
    bool flipped = false;           // whether it was stored negated
    std::size_t k = 1;
    for (; k + 4 <= keys; k += 4) {
      const __m128 c0 = _mm_loadu_ps(q + 4 * k), c1 = _mm_loadu_ps(q + 4 * k + 4);
      const __m128 c2 = _mm_loadu_ps(q + 4 * k + 8), c3 = _mm_loadu_ps(q + 4 * k + 12);
      __m128 p0 = _mm_mul_ps(prev, c0), p1 = _mm_mul_ps(c0, c1), p2 = _mm_mul_ps(c1, c2), p3 = _mm_mul_ps(c2, c3);
      _MM_TRANSPOSE4_PS(p0, p1, p2, p3);  // p0: the x products of the four pairs, and so on
      const __m128 d = _mm_add_ps(_mm_add_ps(_mm_add_ps(p0, p1), p2), p3);
      const unsigned below = static_cast<unsigned>(_mm_movemask_ps(_mm_cmplt_ps(d, zero)));
      const unsigned above = static_cast<unsigned>(_mm_movemask_ps(_mm_cmpgt_ps(d, zero)));
      const unsigned flips = hemisphere_flips[(flipped ? 256u : 0u) | above << 4 | below];
      flipped = flips >> 3;
      if (flips) {  // (rare: 0.7 % of Dog's keys)
        const __m128 c[4] = {c0, c1, c2, c3};
        for (unsigned j = 0; j < 4; ++j)
          if (flips >> j & 1) _mm_storeu_ps(q + 4 * (k + j), _mm_xor_ps(c[j], sign));
      }
      prev = c3;
    }
    for (; k < keys; ++k) {  // the last keys as the plain loop does them (prev as stored)
      const float* p = q + 4 * (k - 1);
      float* c = q + 4 * k;
      const float d = p[0] * c[0] + p[1] * c[1] + p[2] * c[2] + p[3] * c[3];
      if (d < 0)
        for (std::size_t i = 0; i < 4; ++i) c[i] = -c[i];
    }
    return;
  }
#endif
  make_hemisphere_continuous_scalar(v, stride_keys);
}

mat4 inverse(const mat4& m) { return from_glm(glm::inverse(to_glm(m))); }
mat4 identity() { return from_glm(glm::mat4(1.0f)); }

}  // namespace rigrip::core
