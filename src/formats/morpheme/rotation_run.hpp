// One animated rotation channel of an NSA section (Forgelight and morpheme 5 alike):
//   v = extent * q + min (per axis), out = normalize(init (x) mrp_to_quat(v)).
// decode_rotation_run computes four samples at once with SSE; every lane performs exactly the
// scalar operations in the scalar order (IEEE division and square root round the same in a
// lane as in a scalar register), so the floats are the same bits as decode_rotation_scalar.
#pragma once

#include <cfloat>
#include <cstddef>

#include "core/math.hpp"
#include "formats/morpheme/hemisphere.hpp"
#include "formats/morpheme/nsa.hpp"

#if defined(__SSE2__) || defined(_M_X64)
#include <emmintrin.h>
#define RIGRIP_MORPHEME_SSE 1
#endif

namespace rigrip::morpheme {

// The reference: one sample at a time through mrp_to_quat, multiply and normalize.
inline void decode_rotation_scalar(const u16x3* in, std::size_t stride, std::size_t n, const float ex[3],
                                   const float mn[3], const quat& init, float* out) {
  for (std::size_t t = 0; t < n; ++t) {
    const u16x3& q = in[t * stride];
    std::array<float, 3> v;
    for (std::size_t c = 0; c < 3; ++c) v[c] = ex[c] * q[c] + mn[c];
    quat r = core::normalize(core::multiply(init, mrp_to_quat(v)));
    for (std::size_t c = 0; c < 4; ++c) out[4 * t + c] = r[c];
  }
}
inline void decode_rotation_scalar(const u16x3* in, std::size_t stride, std::size_t n, const float ex[3],
                                   const float mn[3], const quat& init, quat* out) {
  decode_rotation_scalar(in, stride, n, ex, mn, init, n ? out[0].data() : nullptr);
}

// `Continuous`: the run is a whole track and also gets core::make_hemisphere_continuous (the
// flips of hemisphere.hpp applied to the four samples while they are in registers).
template <bool Continuous = false>
inline void decode_rotation_run(const u16x3* in, std::size_t stride, std::size_t n, const float ex[3],
                                const float mn[3], const quat& init, float* out) {
  std::size_t t = 0;
#ifdef RIGRIP_MORPHEME_SSE
  const __m128 ex0 = _mm_set1_ps(ex[0]), ex1 = _mm_set1_ps(ex[1]), ex2 = _mm_set1_ps(ex[2]);
  const __m128 mn0 = _mm_set1_ps(mn[0]), mn1 = _mm_set1_ps(mn[1]), mn2 = _mm_set1_ps(mn[2]);
  const __m128 p0 = _mm_set1_ps(init[0]), p1 = _mm_set1_ps(init[1]), p2 = _mm_set1_ps(init[2]),
               p3 = _mm_set1_ps(init[3]);
  const __m128 one = _mm_set1_ps(1.0f), two = _mm_set1_ps(2.0f), tiny = _mm_set1_ps(1e-12f),
               fmax = _mm_set1_ps(FLT_MAX);
  [[maybe_unused]] hemi::state hs;
  for (; t + 4 <= n; t += 4) {
    const u16x3& a = in[t * stride];
    const u16x3& b = in[(t + 1) * stride];
    const u16x3& c = in[(t + 2) * stride];
    const u16x3& d = in[(t + 3) * stride];
    // u16 -> float is exact through int32; lanes are samples t..t+3 (low to high).
    __m128 qx = _mm_cvtepi32_ps(_mm_setr_epi32(a[0], b[0], c[0], d[0]));
    __m128 qy = _mm_cvtepi32_ps(_mm_setr_epi32(a[1], b[1], c[1], d[1]));
    __m128 qz = _mm_cvtepi32_ps(_mm_setr_epi32(a[2], b[2], c[2], d[2]));
    __m128 vx = _mm_add_ps(_mm_mul_ps(ex0, qx), mn0);
    __m128 vy = _mm_add_ps(_mm_mul_ps(ex1, qy), mn1);
    __m128 vz = _mm_add_ps(_mm_mul_ps(ex2, qz), mn2);
    // mrp_to_quat
    __m128 nn = _mm_add_ps(_mm_add_ps(_mm_mul_ps(vx, vx), _mm_mul_ps(vy, vy)), _mm_mul_ps(vz, vz));
    __m128 den = _mm_add_ps(one, nn);
    __m128 s = _mm_div_ps(two, den);
    __m128 mx = _mm_mul_ps(s, vx), my = _mm_mul_ps(s, vy), mz = _mm_mul_ps(s, vz);
    __m128 mw = _mm_div_ps(_mm_sub_ps(one, nn), den);
    // core::multiply(init, m), term for term
    __m128 x = _mm_sub_ps(_mm_add_ps(_mm_add_ps(_mm_mul_ps(p3, mx), _mm_mul_ps(p0, mw)), _mm_mul_ps(p1, mz)),
                          _mm_mul_ps(p2, my));
    __m128 y = _mm_sub_ps(_mm_add_ps(_mm_add_ps(_mm_mul_ps(p3, my), _mm_mul_ps(p1, mw)), _mm_mul_ps(p2, mx)),
                          _mm_mul_ps(p0, mz));
    __m128 z = _mm_sub_ps(_mm_add_ps(_mm_add_ps(_mm_mul_ps(p3, mz), _mm_mul_ps(p2, mw)), _mm_mul_ps(p0, my)),
                          _mm_mul_ps(p1, mx));
    __m128 w = _mm_sub_ps(_mm_sub_ps(_mm_sub_ps(_mm_mul_ps(p3, mw), _mm_mul_ps(p0, mx)), _mm_mul_ps(p1, my)),
                          _mm_mul_ps(p2, mz));
    // core::normalize: identity unless 1e-12 < length <= FLT_MAX (NaN fails both tests)
    __m128 len = _mm_sqrt_ps(
        _mm_add_ps(_mm_add_ps(_mm_add_ps(_mm_mul_ps(x, x), _mm_mul_ps(y, y)), _mm_mul_ps(z, z)), _mm_mul_ps(w, w)));
    __m128 ok = _mm_and_ps(_mm_cmpgt_ps(len, tiny), _mm_cmple_ps(len, fmax));
    x = _mm_and_ps(ok, _mm_div_ps(x, len));
    y = _mm_and_ps(ok, _mm_div_ps(y, len));
    z = _mm_and_ps(ok, _mm_div_ps(z, len));
    w = _mm_or_ps(_mm_and_ps(ok, _mm_div_ps(w, len)), _mm_andnot_ps(ok, one));
    if constexpr (Continuous) hemi::step(hs, x, y, z, w);
    _MM_TRANSPOSE4_PS(x, y, z, w);  // rows are now the samples' (x, y, z, w)
    _mm_storeu_ps(out + 4 * t, x);
    _mm_storeu_ps(out + 4 * t + 4, y);
    _mm_storeu_ps(out + 4 * t + 8, z);
    _mm_storeu_ps(out + 4 * t + 12, w);
  }
#endif
  decode_rotation_scalar(in + t * stride, stride, n - t, ex, mn, init, out + 4 * t);
  if constexpr (Continuous) hemisphere_scalar(out, n, t);
}
template <bool Continuous = false>
inline void decode_rotation_run(const u16x3* in, std::size_t stride, std::size_t n, const float ex[3],
                                const float mn[3], const quat& init, quat* out) {
  decode_rotation_run<Continuous>(in, stride, n, ex, mn, init, n ? out[0].data() : nullptr);
}

// One animated translation channel: 11:11:10 words, v = (extent * q + min) + init per axis.
inline void decode_translation_scalar(const std::uint32_t* in, std::size_t stride, std::size_t n, const float ex[3],
                                      const float mn[3], const vec3& init, float* out) {
  for (std::size_t t = 0; t < n; ++t) {
    auto q = unpack_111110(in[t * stride]);
    for (std::size_t c = 0; c < 3; ++c) out[3 * t + c] = ex[c] * static_cast<float>(q[c]) + mn[c] + init[c];
  }
}
inline void decode_translation_scalar(const std::uint32_t* in, std::size_t stride, std::size_t n, const float ex[3],
                                      const float mn[3], const vec3& init, vec3* out) {
  decode_translation_scalar(in, stride, n, ex, mn, init, n ? out[0].data() : nullptr);
}

// Four samples per SSE step, each lane doing the scalar operations in order (same floats).
inline void decode_translation_run(const std::uint32_t* in, std::size_t stride, std::size_t n, const float ex[3],
                                   const float mn[3], const vec3& init, float* out) {
  std::size_t t = 0;
#ifdef RIGRIP_MORPHEME_SSE
  static_assert(sizeof(vec3) == 3 * sizeof(float), "vec3 rows are packed floats");
  const __m128 ex0 = _mm_set1_ps(ex[0]), ex1 = _mm_set1_ps(ex[1]), ex2 = _mm_set1_ps(ex[2]);
  const __m128 mn0 = _mm_set1_ps(mn[0]), mn1 = _mm_set1_ps(mn[1]), mn2 = _mm_set1_ps(mn[2]);
  const __m128 in0 = _mm_set1_ps(init[0]), in1 = _mm_set1_ps(init[1]), in2 = _mm_set1_ps(init[2]);
  const __m128i m11 = _mm_set1_epi32(0x7FF), m10 = _mm_set1_epi32(0x3FF);
  for (; t + 4 <= n; t += 4) {
    // Words below 2^31 after the shifts and masks: the signed conversion is exact.
    __m128i w = _mm_setr_epi32(static_cast<int>(in[t * stride]), static_cast<int>(in[(t + 1) * stride]),
                               static_cast<int>(in[(t + 2) * stride]), static_cast<int>(in[(t + 3) * stride]));
    __m128 qx = _mm_cvtepi32_ps(_mm_srli_epi32(w, 21));
    __m128 qy = _mm_cvtepi32_ps(_mm_and_si128(_mm_srli_epi32(w, 10), m11));
    __m128 qz = _mm_cvtepi32_ps(_mm_and_si128(w, m10));
    __m128 x = _mm_add_ps(_mm_add_ps(_mm_mul_ps(ex0, qx), mn0), in0);
    __m128 y = _mm_add_ps(_mm_add_ps(_mm_mul_ps(ex1, qy), mn1), in1);
    __m128 z = _mm_add_ps(_mm_add_ps(_mm_mul_ps(ex2, qz), mn2), in2);
    // Lanes (x0..x3), (y0..y3), (z0..z3) -> rows x0 y0 z0 x1 | y1 z1 x2 y2 | z2 x3 y3 z3.
    __m128 xy_lo = _mm_unpacklo_ps(x, y), xy_hi = _mm_unpackhi_ps(x, y);  // x0 y0 x1 y1, x2 y2 x3 y3
    __m128 zx = _mm_shuffle_ps(z, x, _MM_SHUFFLE(1, 1, 0, 0));            // z0 z0 x1 x1
    __m128 yz = _mm_shuffle_ps(xy_lo, z, _MM_SHUFFLE(1, 1, 3, 3));        // y1 y1 z1 z1
    __m128 zz = _mm_shuffle_ps(z, xy_hi, _MM_SHUFFLE(3, 2, 3, 2));        // z2 z3 x3 y3
    float* o = out + 3 * t;
    _mm_storeu_ps(o, _mm_shuffle_ps(xy_lo, zx, _MM_SHUFFLE(2, 0, 1, 0)));
    _mm_storeu_ps(o + 4, _mm_shuffle_ps(yz, xy_hi, _MM_SHUFFLE(1, 0, 2, 0)));
    _mm_storeu_ps(o + 8, _mm_shuffle_ps(zz, zz, _MM_SHUFFLE(1, 3, 2, 0)));
  }
#endif
  decode_translation_scalar(in + t * stride, stride, n - t, ex, mn, init, out + 3 * t);
}
inline void decode_translation_run(const std::uint32_t* in, std::size_t stride, std::size_t n, const float ex[3],
                                   const float mn[3], const vec3& init, vec3* out) {
  decode_translation_run(in, stride, n, ex, mn, init, n ? out[0].data() : nullptr);
}

}  // namespace rigrip::morpheme
