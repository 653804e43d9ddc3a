// See euler_block.hpp. The arithmetic mirrors core::euler_xyz_sequence term for term; SSE
// lanes round every operation exactly as the scalar instructions do.
#include "formats/bfres/euler_block.hpp"

#include <array>
#include <bit>
#include <cmath>
#include <limits>

#include "core/euler.hpp"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace rigrip::bfres {

#if defined(__SSE2__)
namespace {
struct quat4 {  // four quaternions, one per lane
  __m128 x, y, z, w;
};
__m128 select(__m128 mask, __m128 a, __m128 b) { return _mm_or_ps(_mm_and_ps(mask, a), _mm_andnot_ps(mask, b)); }
// core::normalize per lane: the same sum order, the identity where the norm is out of range.
quat4 normalize4(const quat4& q) {
  const __m128 len = _mm_sqrt_ps(_mm_add_ps(
      _mm_add_ps(_mm_add_ps(_mm_mul_ps(q.x, q.x), _mm_mul_ps(q.y, q.y)), _mm_mul_ps(q.z, q.z)), _mm_mul_ps(q.w, q.w)));
  const __m128 ok = _mm_and_ps(_mm_cmpgt_ps(len, _mm_set1_ps(1e-12f)),
                               _mm_cmplt_ps(len, _mm_set1_ps(std::numeric_limits<float>::infinity())));
  const __m128 zero = _mm_setzero_ps(), one = _mm_set1_ps(1.0f);
  return {select(ok, _mm_div_ps(q.x, len), zero), select(ok, _mm_div_ps(q.y, len), zero),
          select(ok, _mm_div_ps(q.z, len), zero), select(ok, _mm_div_ps(q.w, len), one)};
}
// core::multiply(p, q) per lane, term for term in its order.
quat4 multiply4(const quat4& p, const quat4& q) {
  auto m = [](__m128 a, __m128 b) { return _mm_mul_ps(a, b); };
  return {_mm_sub_ps(_mm_add_ps(_mm_add_ps(m(p.w, q.x), m(p.x, q.w)), m(p.y, q.z)), m(p.z, q.y)),
          _mm_sub_ps(_mm_add_ps(_mm_add_ps(m(p.w, q.y), m(p.y, q.w)), m(p.z, q.x)), m(p.x, q.z)),
          _mm_sub_ps(_mm_add_ps(_mm_add_ps(m(p.w, q.z), m(p.z, q.w)), m(p.x, q.y)), m(p.y, q.x)),
          _mm_sub_ps(_mm_sub_ps(_mm_sub_ps(m(p.w, q.w), m(p.x, q.x)), m(p.y, q.y)), m(p.z, q.z))};
}
// core::from_euler_xyz per lane from the half angles' sines and cosines: every product of
// world_axis_angle (0*s in the other components, 1*s on the axis), normalize and multiply.
quat4 from_euler_xyz4(const __m128 s[3], const __m128 c[3]) {
  const __m128 zero = _mm_setzero_ps();
  quat4 q{zero, zero, zero, _mm_set1_ps(1.0f)};
  for (std::size_t k = 0; k < 3; ++k) {
    const __m128 zs = _mm_mul_ps(zero, s[k]), on = _mm_mul_ps(_mm_set1_ps(1.0f), s[k]);
    const quat4 a = normalize4({k == 0 ? on : zs, k == 1 ? on : zs, k == 2 ? on : zs, c[k]});
    q = multiply4(a, q);
  }
  return normalize4(q);
}
}  // namespace
#endif

namespace {
// world_axis_angle's sin and cos of the half angle: the same libm routine. GCC already
// turns that sin/cos pair into one sincosf call; calling it directly with the outputs in
// place leaves no copies around the call.
void sincosf_half(float h, float* s, float* c) {
#if defined(__GLIBC__)
  ::sincosf(h, s, c);
#else
  *s = std::sin(h), *c = std::cos(h);
#endif
}
void half_sin_cos(float a, float* s, float* c) { sincosf_half(a * 0.5f, s, c); }
}  // namespace

bool euler_xyz_block::sines(std::size_t k, const float* a, std::size_t n) {
  float* s = s_[k];
  float* c = c_[k];
  bool held = true;  // every frame after the first repeats its angle's bits
  if (n > 0) {
    // Frame 0 against the last angle of the previous block, each later frame against the
    // one before it (whose sine and cosine are in place, computed or held).
    if (have_[k] && std::bit_cast<std::uint32_t>(a[0]) == bits_[k]) s[0] = last_s_[k], c[0] = last_c_[k];
    else half_sin_cos(a[0], &s[0], &c[0]);
    std::size_t j = 1;
#if defined(__SSE2__)
    // Four frames at a time: which angles differ from the one before (bits) and the half
    // angles in one step, then a call per differing frame, a copy per repeated one.
    float* const half = half_;  // a member: reloaded after each call, not kept in registers
    for (; j + 4 <= n; j += 4) {
      const __m128i cur = _mm_loadu_si128(reinterpret_cast<const __m128i*>(a + j));
      const __m128i before = _mm_loadu_si128(reinterpret_cast<const __m128i*>(a + j - 1));
      const int same = _mm_movemask_ps(_mm_castsi128_ps(_mm_cmpeq_epi32(cur, before)));
      if (same == 0xF) {  // a held angle (constant channels): the previous frame's pair four times
        _mm_storeu_ps(s + j, _mm_set1_ps(s[j - 1])), _mm_storeu_ps(c + j, _mm_set1_ps(c[j - 1]));
        continue;
      }
      held = false;
      _mm_store_ps(half, _mm_mul_ps(_mm_castsi128_ps(cur), _mm_set1_ps(0.5f)));
      if (same == 0) {
        for (std::size_t e = 0; e < 4; ++e) sincosf_half(half[e], &s[j + e], &c[j + e]);
        continue;
      }
      for (std::size_t e = 0; e < 4; ++e) {
        if ((same >> e) & 1) s[j + e] = s[j + e - 1], c[j + e] = c[j + e - 1];
        else sincosf_half(half[e], &s[j + e], &c[j + e]);
      }
    }
#endif
    for (; j < n; ++j) {
      if (std::bit_cast<std::uint32_t>(a[j]) == std::bit_cast<std::uint32_t>(a[j - 1])) s[j] = s[j - 1], c[j] = c[j - 1];
      else half_sin_cos(a[j], &s[j], &c[j]), held = false;
    }
    last_s_[k] = s[n - 1], last_c_[k] = c[n - 1], bits_[k] = std::bit_cast<std::uint32_t>(a[n - 1]), have_[k] = true;
  }
  for (std::size_t j = n; j < ((n + 3) & ~std::size_t{3}); ++j) s[j] = 0, c[j] = 1;  // padding lanes
  return held;
}

#if defined(__SSE2__)
namespace {
// Which of four frames flip, from their dot products d with the frame before each: lane 0's
// with the previous quaternion as written, lanes 1-3's with the one before as computed. A
// negated neighbour negates the dot product exactly, so lane e flips when d < 0 and its
// neighbour kept its sign, or d > 0 and it flipped (neither for +-0 or NaN). Index: the
// lanes with d < 0 (bits 0-3) and with d > 0 (bits 4-7).
constexpr auto flip_table = [] {
  std::array<std::uint8_t, 256> t{};
  for (unsigned i = 0; i < 256; ++i) {
    unsigned flip = 0, before = 0;
    for (unsigned e = 0; e < 4; ++e) {
      const unsigned lt = (i >> e) & 1, gt = (i >> (4 + e)) & 1;
      before = e == 0 ? lt : (lt & (before ^ 1)) | (gt & before);
      flip |= before << e;
    }
    t[i] = static_cast<std::uint8_t>(flip);
  }
  return t;
}();
// (a[3], b[0], b[1], b[2]): each lane's frame before, a holding the last one of the step before.
__m128 lanes_before(__m128 a, __m128 b) {
  const __m128 u = _mm_shuffle_ps(a, b, _MM_SHUFFLE(0, 0, 3, 3));  // a3 a3 b0 b0
  return _mm_shuffle_ps(u, b, _MM_SHUFFLE(2, 1, 2, 0));           // a3 b0 b1 b2
}
}  // namespace
#endif

void euler_xyz_block::convert(const float* x, const float* y, const float* z, std::size_t n, float* out) {
  convert_impl<false>(x, y, z, n, out, false);
}

void euler_xyz_block::convert_continuous(const float* x, const float* y, const float* z, std::size_t n, float* out,
                                         bool first_tested) {
  convert_impl<true>(x, y, z, n, out, first_tested);
}

template <bool Signs>
void euler_xyz_block::convert_impl(const float* x, const float* y, const float* z, std::size_t n, float* out,
                                   bool first_tested) {
  if (n > max_frames) n = max_frames;
  const float* ang[3] = {x, y, z};
#if defined(__SSE2__)
  bool held = true;
  for (std::size_t k = 0; k < 3; ++k) held = sines(k, ang[k], n) && held;
  // All three angles held over the block: every frame's sines are frame 0's, so every
  // quaternion is frame 0's (each lane's floats depend on its own sines only): one step, copied.
  const std::size_t n_all = n;
  if (held && n > 4) n = 4;
  const __m128 tiny = _mm_set1_ps(1e-12f), inf = _mm_set1_ps(std::numeric_limits<float>::infinity());
  const __m128 zero = _mm_setzero_ps(), sign = _mm_set1_ps(-0.0f);
  // The hemisphere rule in the step (Signs, blocks not held): lane 3 of these is the last
  // quaternion written (out[-4 .. -1] before the first step; zeros when the first frame is not
  // tested: its dot product is then +-0, which flips nothing, as an untested frame).
  const bool fuse = Signs && n_all == n;
  __m128 last_x = zero, last_y = zero, last_z = zero, last_w = zero;
  if (fuse && first_tested)
    last_x = _mm_set1_ps(out[-4]), last_y = _mm_set1_ps(out[-3]), last_z = _mm_set1_ps(out[-2]), last_w = _mm_set1_ps(out[-1]);
  for (std::size_t j = 0; j < n; j += 4) {
    // Each axis: world_axis_angle's normalize(): n = sqrt(s*s + c*c) in (1e-12, inf), then
    // s/n and c/n, both nonzero (euler_xyz_sequence::axis).
    __m128 sn[3], cn[3], sr[3], cr[3];
    __m128 ok = _mm_cmpeq_ps(zero, zero), axis_ok = ok;
    for (std::size_t k = 0; k < 3; ++k) {
      const __m128 s = sr[k] = _mm_load_ps(&s_[k][j]), c = cr[k] = _mm_load_ps(&c_[k][j]);
      const __m128 len = _mm_sqrt_ps(_mm_add_ps(_mm_mul_ps(s, s), _mm_mul_ps(c, c)));
      axis_ok = _mm_and_ps(_mm_cmpgt_ps(len, tiny), _mm_cmplt_ps(len, inf));
      sn[k] = _mm_div_ps(s, len), cn[k] = _mm_div_ps(c, len);
      axis_ok = _mm_and_ps(axis_ok, _mm_and_ps(_mm_cmpneq_ps(sn[k], zero), _mm_cmpneq_ps(cn[k], zero)));
      ok = _mm_and_ps(ok, axis_ok);  // after the loop axis_ok is the z axis'
    }
    // euler_xyz_sequence::from_axes: qy * (qx * identity), then qz * that, then normalize().
    const __m128 bw = _mm_mul_ps(cn[1], cn[0]), bx = _mm_mul_ps(cn[1], sn[0]);
    const __m128 by = _mm_mul_ps(sn[1], cn[0]), bz = _mm_xor_ps(_mm_mul_ps(sn[1], sn[0]), sign);
    ok = _mm_and_ps(ok, _mm_and_ps(_mm_and_ps(_mm_cmpneq_ps(bw, zero), _mm_cmpneq_ps(bx, zero)),
                                   _mm_and_ps(_mm_cmpneq_ps(by, zero), _mm_cmpneq_ps(bz, zero))));
    const __m128 cz = cn[2], sz = sn[2];
    __m128 w = _mm_sub_ps(_mm_mul_ps(cz, bw), _mm_mul_ps(sz, bz));
    __m128 qx = _mm_sub_ps(_mm_mul_ps(cz, bx), _mm_mul_ps(sz, by));
    __m128 qy = _mm_add_ps(_mm_mul_ps(cz, by), _mm_mul_ps(sz, bx));
    __m128 qz = _mm_add_ps(_mm_mul_ps(cz, bz), _mm_mul_ps(sz, bw));
    ok = _mm_and_ps(ok, _mm_and_ps(_mm_and_ps(_mm_cmpneq_ps(w, zero), _mm_cmpneq_ps(qx, zero)),
                                   _mm_and_ps(_mm_cmpneq_ps(qy, zero), _mm_cmpneq_ps(qz, zero))));
    const __m128 len = _mm_sqrt_ps(_mm_add_ps(
        _mm_add_ps(_mm_add_ps(_mm_mul_ps(qx, qx), _mm_mul_ps(qy, qy)), _mm_mul_ps(qz, qz)), _mm_mul_ps(w, w)));
    ok = _mm_and_ps(ok, _mm_and_ps(_mm_cmpgt_ps(len, tiny), _mm_cmplt_ps(len, inf)));
    qx = _mm_div_ps(qx, len), qy = _mm_div_ps(qy, len), qz = _mm_div_ps(qz, len), w = _mm_div_ps(w, len);
    if (_mm_movemask_ps(ok) != 0xF) {
      // x and y angles of +0 (sine +0, cosine 1; a bone turning about z only): every product
      // of from_euler_xyz reduces exactly to (+0, +0, sz, cz) before its normalize(): the
      // axis quaternions of x and y are (+0, +0, +0, 1), their products with the identity
      // give it again, and the z axis' zero parts (+-0) only add signed zeros to +0 in x and
      // y (the sums come out +0 for either sign) and to sz, cz (nonzero) in z and w. Its
      // normalize(): L = sqrt(sz*sz + cz*cz) (the squares of +0 add +0).
      const __m128 one = _mm_set1_ps(1.0f);
      const __m128i zbits = _mm_setzero_si128();
      const __m128 xy_zero =
          _mm_and_ps(_mm_and_ps(_mm_castsi128_ps(_mm_cmpeq_epi32(_mm_castps_si128(sr[0]), zbits)), _mm_cmpeq_ps(cr[0], one)),
                     _mm_and_ps(_mm_castsi128_ps(_mm_cmpeq_epi32(_mm_castps_si128(sr[1]), zbits)), _mm_cmpeq_ps(cr[1], one)));
      const __m128 sz = sn[2], cz = cn[2];
      const __m128 l = _mm_sqrt_ps(_mm_add_ps(_mm_mul_ps(sz, sz), _mm_mul_ps(cz, cz)));
      const __m128 about_z = _mm_and_ps(_mm_and_ps(xy_zero, axis_ok), _mm_and_ps(_mm_cmpgt_ps(l, tiny), _mm_cmplt_ps(l, inf)));
      if (_mm_movemask_ps(_mm_or_ps(ok, about_z)) == 0xF) {
        qx = select(about_z, zero, qx), qy = select(about_z, zero, qy);
        qz = select(about_z, _mm_div_ps(sz, l), qz), w = select(about_z, _mm_div_ps(cz, l), w);
      } else {
        // Another zero part or a norm out of range in some lane: every product of
        // from_euler_xyz for the four frames (the full path holds for any lane).
        const quat4 f = from_euler_xyz4(sr, cr);
        qx = f.x, qy = f.y, qz = f.z, w = f.w;
      }
    }
    if (fuse) {
      // continue_hemisphere's test per lane, its products (the frame before times this one)
      // summed in its order.
      const __m128 d = _mm_add_ps(_mm_add_ps(_mm_add_ps(_mm_mul_ps(lanes_before(last_x, qx), qx), _mm_mul_ps(lanes_before(last_y, qy), qy)),
                                             _mm_mul_ps(lanes_before(last_z, qz), qz)),
                                  _mm_mul_ps(lanes_before(last_w, w), w));
      const int lt = _mm_movemask_ps(_mm_cmplt_ps(d, zero)), gt = _mm_movemask_ps(_mm_cmpgt_ps(d, zero));
      if (const unsigned flip = flip_table[static_cast<unsigned>(lt | (gt << 4))]) {
        const __m128i bits = _mm_set_epi32(8, 4, 2, 1);
        const __m128 neg = _mm_and_ps(
            _mm_castsi128_ps(_mm_cmpeq_epi32(_mm_and_si128(_mm_set1_epi32(static_cast<int>(flip)), bits), bits)), sign);
        qx = _mm_xor_ps(qx, neg), qy = _mm_xor_ps(qy, neg), qz = _mm_xor_ps(qz, neg), w = _mm_xor_ps(w, neg);
      }
      last_x = qx, last_y = qy, last_z = qz, last_w = w;
    }
    _MM_TRANSPOSE4_PS(qx, qy, qz, w);  // rows: frames j .. j+3 as x, y, z, w
    float* o = out + 4 * j;
    if (n - j >= 4) {
      _mm_storeu_ps(o, qx), _mm_storeu_ps(o + 4, qy), _mm_storeu_ps(o + 8, qz), _mm_storeu_ps(o + 12, w);
      continue;
    }
    alignas(16) float rows[16];
    _mm_store_ps(rows, qx), _mm_store_ps(rows + 4, qy), _mm_store_ps(rows + 8, qz), _mm_store_ps(rows + 12, w);
    for (std::size_t e = 0; e < 4 * (n - j); ++e) o[e] = rows[e];
  }
  if (n_all > n) {
    const __m128 q0 = _mm_loadu_ps(out);
    for (std::size_t j = n; j < n_all; ++j) _mm_storeu_ps(out + 4 * j, q0);
  }
  if (Signs && !fuse) {
    const std::size_t from = first_tested ? 0 : 1;
    if (n_all > from) continue_hemisphere(out + 4 * from, n_all - from);
  }
#else
  core::euler_xyz_sequence seq;
  for (std::size_t j = 0; j < n; ++j) {
    const quat q = seq({ang[0][j], ang[1][j], ang[2][j]});
    for (std::size_t e = 0; e < 4; ++e) out[4 * j + e] = q[e];
  }
  if (Signs) {
    const std::size_t from = first_tested ? 0 : 1;
    if (n > from) continue_hemisphere(out + 4 * from, n - from);
  }
#endif
}

void continue_hemisphere_scalar(float* q, std::size_t n) {
  for (std::size_t j = 0; j < n; ++j) {
    float* p = q + 4 * j;
    if (p[-4] * p[0] + p[-3] * p[1] + p[-2] * p[2] + p[-1] * p[3] < 0) p[0] = -p[0], p[1] = -p[1], p[2] = -p[2], p[3] = -p[3];
  }
}

void continue_hemisphere(float* q, std::size_t n) {
  std::size_t j = 0;
#if defined(__SSE2__)
  const __m128 zero = _mm_setzero_ps(), sign = _mm_set1_ps(-0.0f);
  for (; j + 4 <= n; j += 4) {
    float* p = q + 4 * j;
    const __m128 r0 = _mm_loadu_ps(p), r1 = _mm_loadu_ps(p + 4), r2 = _mm_loadu_ps(p + 8), r3 = _mm_loadu_ps(p + 12);
    __m128 x = _mm_mul_ps(_mm_loadu_ps(p - 4), r0), y = _mm_mul_ps(r0, r1), z = _mm_mul_ps(r1, r2), w = _mm_mul_ps(r2, r3);
    _MM_TRANSPOSE4_PS(x, y, z, w);  // x: the four frames' x products, ...
    const __m128 d = _mm_add_ps(_mm_add_ps(_mm_add_ps(x, y), z), w);
    const int lt = _mm_movemask_ps(_mm_cmplt_ps(d, zero)), gt = _mm_movemask_ps(_mm_cmpgt_ps(d, zero));
    const unsigned flip = flip_table[static_cast<unsigned>(lt | (gt << 4))];
    if (flip == 0) continue;
    if (flip & 1) _mm_storeu_ps(p, _mm_xor_ps(r0, sign));
    if (flip & 2) _mm_storeu_ps(p + 4, _mm_xor_ps(r1, sign));
    if (flip & 4) _mm_storeu_ps(p + 8, _mm_xor_ps(r2, sign));
    if (flip & 8) _mm_storeu_ps(p + 12, _mm_xor_ps(r3, sign));
  }
#endif
  continue_hemisphere_scalar(q + 4 * j, n - j);
}

}  // namespace rigrip::bfres
