// core::make_hemisphere_continuous for one track of xyzw keys (stride 1), four keys per SSE2
// step, the same floats bit for bit.
//
// The core rule, key by key: d = ((p.x*c.x + p.y*c.y) + p.z*c.z) + p.w*c.w with p the previous
// key as already flipped; d < 0 negates c. Negating p negates every product and every partial
// sum exactly (round-to-nearest is symmetric), so with r = the same dot of the keys as decoded,
// d = +-r and the flips follow a carry: flip(k) = r < 0 ? !flip(k-1) : r > 0 ? flip(k-1) : 0
// (a zero or NaN r never flips). The vector step computes four r at once and takes the four
// flips from a table indexed by the signs and the carry; negation is a sign-bit XOR, as `-x`.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

#if defined(__SSE2__) || defined(_M_X64)
#include <emmintrin.h>
#define RIGRIP_MORPHEME_HEMI_SSE 1
#endif

namespace rigrip::morpheme {

// The reference: core::make_hemisphere_continuous on `keys` xyzw keys, from key `from` on
// (key from - 1 is taken as final).
inline void hemisphere_scalar(float* v, std::size_t keys, std::size_t from = 1) {
  for (std::size_t k = from < 1 ? 1 : from; k < keys; ++k) {
    const float* p = v + 4 * (k - 1);
    float* c = v + 4 * k;
    float d = p[0] * c[0] + p[1] * c[1] + p[2] * c[2] + p[3] * c[3];
    if (d < 0)
      for (std::size_t i = 0; i < 4; ++i) c[i] = -c[i];
  }
}

namespace hemi {

// [carry][lt | gt << 4] -> flip bits of the four keys (bit i = key i); bit 3 is the next carry.
struct flip_table {
  std::array<std::array<std::uint8_t, 256>, 2> t{};
  constexpr flip_table() {
    for (unsigned carry = 0; carry < 2; ++carry)
      for (unsigned idx = 0; idx < 256; ++idx) {
        unsigned f = carry, out = 0;
        for (unsigned i = 0; i < 4; ++i) {
          bool lt = (idx >> i) & 1u, gt = (idx >> (4 + i)) & 1u;
          f = lt ? !f : gt ? f : 0u;
          out |= f << i;
        }
        t[carry][idx] = static_cast<std::uint8_t>(out);
      }
  }
};
inline constexpr flip_table flips{};

#ifdef RIGRIP_MORPHEME_HEMI_SSE
// Lane i all ones when bit i of the index is set, as sign-bit masks for XOR.
struct sign_masks {
  alignas(16) std::array<std::array<std::uint32_t, 4>, 16> m{};
  constexpr sign_masks() {
    for (unsigned b = 0; b < 16; ++b)
      for (unsigned i = 0; i < 4; ++i) m[b][i] = (b >> i) & 1u ? 0x80000000u : 0u;
  }
};
alignas(16) inline constexpr sign_masks signs{};

// The running state of one track: the previous key as decoded (lane 0 of each register, the
// other lanes free) and whether it was flipped. `first` is set until a key has been seen.
struct state {
  __m128 px = _mm_setzero_ps(), py = _mm_setzero_ps(), pz = _mm_setzero_ps(), pw = _mm_setzero_ps();
  unsigned carry = 0;
  bool first = true;
};

// Four keys in SoA registers (lanes = keys k..k+3, as decoded): flips them in place and
// returns the flip bits (bit i = key k+i).
inline unsigned step(state& s, __m128& x, __m128& y, __m128& z, __m128& w) {
  // (prev, k, k+1, k+2) per component: rotate the lanes up by one, prev into lane 0.
  __m128 rx = _mm_shuffle_ps(x, x, _MM_SHUFFLE(2, 1, 0, 3)), ry = _mm_shuffle_ps(y, y, _MM_SHUFFLE(2, 1, 0, 3)),
         rz = _mm_shuffle_ps(z, z, _MM_SHUFFLE(2, 1, 0, 3)), rw = _mm_shuffle_ps(w, w, _MM_SHUFFLE(2, 1, 0, 3));
  __m128 qx = _mm_move_ss(rx, s.px), qy = _mm_move_ss(ry, s.py), qz = _mm_move_ss(rz, s.pz),
         qw = _mm_move_ss(rw, s.pw);
  s.px = rx;
  s.py = ry;
  s.pz = rz;
  s.pw = rw;
  __m128 d = _mm_add_ps(_mm_add_ps(_mm_add_ps(_mm_mul_ps(qx, x), _mm_mul_ps(qy, y)), _mm_mul_ps(qz, z)),
                        _mm_mul_ps(qw, w));
  const __m128 zero = _mm_setzero_ps();
  unsigned lt = static_cast<unsigned>(_mm_movemask_ps(_mm_cmplt_ps(d, zero)));
  unsigned gt = static_cast<unsigned>(_mm_movemask_ps(_mm_cmpgt_ps(d, zero)));
  if (s.first) {  // key 0 of the track has no previous key: never flipped
    lt &= ~1u;
    gt &= ~1u;
    s.first = false;
  }
  unsigned f = flips.t[s.carry][lt | (gt << 4)];
  s.carry = (f >> 3) & 1u;
  if (f) {
    __m128 m = _mm_load_ps(reinterpret_cast<const float*>(signs.m[f].data()));
    x = _mm_xor_ps(x, m);
    y = _mm_xor_ps(y, m);
    z = _mm_xor_ps(z, m);
    w = _mm_xor_ps(w, m);
  }
  return f;
}
#endif

}  // namespace hemi

// core::make_hemisphere_continuous(v as a vector of 4 * keys floats), same bits.
inline void hemisphere_run(float* v, std::size_t keys) {
  std::size_t k = 0;
#ifdef RIGRIP_MORPHEME_HEMI_SSE
  hemi::state s;
  for (; k + 4 <= keys; k += 4) {
    float* p = v + 4 * k;
    __m128 x = _mm_loadu_ps(p), y = _mm_loadu_ps(p + 4), z = _mm_loadu_ps(p + 8), w = _mm_loadu_ps(p + 12);
    _MM_TRANSPOSE4_PS(x, y, z, w);  // x..w now hold one component of the four keys
    if (unsigned f = hemi::step(s, x, y, z, w)) {
      _MM_TRANSPOSE4_PS(x, y, z, w);
      if (f & 1u) _mm_storeu_ps(p, x);
      if (f & 2u) _mm_storeu_ps(p + 4, y);
      if (f & 4u) _mm_storeu_ps(p + 8, z);
      if (f & 8u) _mm_storeu_ps(p + 12, w);
    }
  }
#endif
  hemisphere_scalar(v, keys, k);
}

}  // namespace rigrip::morpheme
