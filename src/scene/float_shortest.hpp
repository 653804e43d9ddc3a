// The shortest round-trip decimal of a binary32 float (the digits std::to_chars prints),
// computed with one 64 x 64 -> high-64 multiply per bound: Giulietti's Schubfach idea
// (bounds of the rounding interval scaled by a 63-bit approximation of a power of ten, with a
// sticky bit) worked out for floats. Checked against std::to_chars over every finite
// positive float once, and by tests/core/test_float_shortest.cpp on samples and edges. The
// eighth session's form (bounds compared unreduced, the nearest by rounding the middle, the
// multipliers in the exponent table) was checked once against the seventh session's over all
// 4,278,190,078 finite nonzero patterns: 0 mismatches.
#pragma once

#include <bit>
#include <cstdint>
#include <cstring>

namespace rigrip::json_out {
namespace float_shortest_detail {

// floor(e * log2(10)), floor(q * log10(2)), floor(log10(3/4 * 2^q)) for the float range.
constexpr int floor_log2_pow10(int e) { return static_cast<int>((std::int64_t{e} * 913124641741) >> 38); }
constexpr int floor_log10_pow2(int q) { return static_cast<int>((std::int64_t{q} * 661971961083) >> 41); }
constexpr int floor_log10_three_quarters_pow2(int q) {
  return static_cast<int>((std::int64_t{q} * 661971961083 - 274743187321) >> 41);
}

// g(e) = floor(10^e * 2^(62 - floor_log2_pow10(e))) + 1 for -31 <= e <= 45: a value in
// (2^62, 2^63] a little above the power of ten (generated exactly with rationals).
constexpr int g_min = -31, g_max = 45;
inline constexpr std::uint64_t g_table[g_max - g_min + 1] = {
    0x40e7599625a1fe7bull, 0x51212ffbaf0a7e19ull, 0x65697bfa9acd1da0ull,
    0x7ec3daf941806507ull, 0x4f3a68dbc8f03f25ull, 0x63090312bb2c4eeeull,
    0x7bcb43d769f762a9ull, 0x4d5f0a66a23a9daaull, 0x60b6cd004ac94514ull,
    0x78e480405d7b9659ull, 0x4b8ed0283a6d3df8ull, 0x5e72843249088d76ull,
    0x760f253edb4ab0d3ull, 0x49c97747490eae84ull, 0x5c3bd5191b525a25ull,
    0x734aca5f6226f0aeull, 0x480ebe7b9d58566dull, 0x5a126e1a84ae6c08ull,
    0x709709a125da070aull, 0x465e6604b7a84466ull, 0x57f5ff85e5925580ull,
    0x6df37f675ef6eae0ull, 0x44b82fa09b5a52ccull, 0x55e63b88c230e77full,
    0x6b5fca6af2bd215full, 0x431bde82d7b634dbull, 0x53e2d6238da3c212ull,
    0x68db8bac710cb296ull, 0x4189374bc6a7ef9eull, 0x51eb851eb851eb86ull,
    0x6666666666666667ull, 0x4000000000000001ull, 0x5000000000000001ull,
    0x6400000000000001ull, 0x7d00000000000001ull, 0x4e20000000000001ull,
    0x61a8000000000001ull, 0x7a12000000000001ull, 0x4c4b400000000001ull,
    0x5f5e100000000001ull, 0x7735940000000001ull, 0x4a817c8000000001ull,
    0x5d21dba000000001ull, 0x746a528800000001ull, 0x48c2739500000001ull,
    0x5af3107a40000001ull, 0x71afd498d0000001ull, 0x470de4df82000001ull,
    0x58d15e1762800001ull, 0x6f05b59d3b200001ull, 0x4563918244f40001ull,
    0x56bc75e2d6310001ull, 0x6c6b935b8bbd4001ull, 0x43c33c1937564801ull,
    0x54b40b1f852bda01ull, 0x69e10de76676d081ull, 0x422ca8b0a00a4251ull,
    0x52b7d2dcc80cd2e5ull, 0x6765c793fa10079eull, 0x409f9cbc7c4a04c3ull,
    0x50c783eb9b5c85f3ull, 0x64f964e68233a770ull, 0x7e37be2022c0914cull,
    0x4ee2d6d415b85acfull, 0x629b8c891b267183ull, 0x7b426fab61f00de4ull,
    0x4d0985cb1d3608afull, 0x604be73de4838adaull, 0x785ee10d5da46d91ull,
    0x4b3b4ca85a86c47bull, 0x5e0a1fd271287599ull, 0x758ca7c70d7292ffull,
    0x4977e8dc68679be0ull, 0x5bd5e313828182d7ull, 0x72cb5bd86321e38dull,
    0x47bf19673df52e38ull, 0x59aedfc10d7279c6ull
};

// Per biased exponent (0 and 1 share q = -149): the power of ten k with 10^k <= 2^q < 10^(k+1),
// its g and the shift h (32..36) that puts the products' binary point at bit 95, kept as the
// multipliers the routine uses: 4 * 2^h (the mantissa's scale, in units of 2^(q-2)), the
// implicit bit times that (0 for subnormals) and 2 * 2^h (the half-gap to each neighbour).
struct exponent_entry {
  std::uint64_t g;
  std::uint64_t scale;     // 2^(h+2)
  std::uint64_t implicit;  // 2^23 * 2^(h+2) for normal floats, 0 for subnormals
  std::uint64_t half_gap;  // 2^(h+1)
  std::int32_t k;
  std::int32_t h;
};
struct exponent_table {
  exponent_entry e[255];
};
constexpr exponent_table make_exponent_table() {
  exponent_table t{};
  for (int biased = 0; biased < 255; ++biased) {
    const int q = (biased == 0 ? 1 : biased) - 150;
    const int k = floor_log10_pow2(q);
    const int h = q + floor_log2_pow10(-k) + 33;
    const std::uint64_t scale = std::uint64_t{4} << h;
    t.e[biased] = {g_table[-k - g_min], scale, biased == 0 ? 0 : scale << 23, scale >> 1, k, h};
  }
  return t;
}
inline constexpr exponent_table exponents = make_exponent_table();

inline std::uint64_t high64(std::uint64_t a, std::uint64_t b) {
  return static_cast<std::uint64_t>((static_cast<unsigned __int128>(a) * b) >> 64);
}

// A mantissa of 2^23 (frac 0) by Schubfach's general case, out of line (254 of the 2^32
// patterns): above the subnormals the interval below 2^q * 2^23 is half as wide as the one
// above it; at the smallest normal (biased 1) both gaps are the subnormals' one.
[[gnu::noinline, gnu::cold]] inline std::uint64_t power_of_two_digits(std::uint32_t biased) {
  const int q = static_cast<int>(biased) - 150;
  const int k = biased > 1 ? floor_log10_three_quarters_pow2(q) : floor_log10_pow2(q);
  const int h = q + floor_log2_pow10(-k) + 33;
  const std::uint64_t g = g_table[-k - g_min];
  const std::uint64_t cp = std::uint64_t{1} << (23 + 2 + h);
  const std::uint64_t xb = high64(g, cp), xl = high64(g, cp - (std::uint64_t{biased > 1 ? 1u : 2u} << h)),
                      xr = high64(g, cp + (std::uint64_t{2} << h));  // c is even: closed
  const std::uint32_t s = static_cast<std::uint32_t>(xb >> 33);
  const std::uint32_t sp = s / 10, sp10 = 10 * sp;
  const bool upin = xl <= std::uint64_t{sp10} << 33;
  const bool wpin = (std::uint64_t{sp10 + 10} << 33) <= xr;
  std::uint32_t r;
  int e = k;
  if (upin != wpin) {
    r = upin ? sp : sp + 1;
    ++e;
    while (r % 10 == 0) r /= 10, ++e;
  } else {
    const bool uin = xl <= std::uint64_t{s} << 33;
    const bool win = (std::uint64_t{s + 1} << 33) <= xr;
    if (uin != win) r = s + win;
    else r = static_cast<std::uint32_t>((xb + (s & 1) + 0xffffffffu) >> 33);
  }
  return std::uint64_t{r} | static_cast<std::uint64_t>(static_cast<std::uint32_t>(e)) << 32;
}

}  // namespace float_shortest_detail

// v = digits * 10^exp10 with the fewest digits that read back as |v|, the one nearest |v| among
// them (ties to an even digit); no trailing zeros. |v| must be finite and nonzero.
//
// Schubfach reads each scaled bound as vb = floor(x / 2^31) with its lowest bit set when the
// low 32 bits of x (the high 64 bits of g * cp) are not all zero, and compares vb with
// multiples of 4. For a multiple of 4, T, that comparison is one on x itself:
// vb + out <= T  <=>  x + out <= T * 2^31, and T + out <= vb  <=>  T * 2^31 + out <= x; so no
// bound is reduced. When no multiple of 10^(k+1) fits, the candidates are s and s + 1 at 10^k;
// with the interval symmetric around v, at least one inside and the nearer one inside too,
// so the answer is the middle rounded to the nearest (ties to even; Schubfach's tie test
// vb = 4s + 2 is x's low 33 bits equal to 2^32), and when neither is inside Schubfach also
// takes the nearer. Only powers of two have an asymmetric interval: they (mantissa 2^23 and
// frac 0: also the smallest normal, whose interval is symmetric) go the general way.
inline void shortest_float_digits(float v, std::uint32_t& digits, int& exp10) {
  namespace d = float_shortest_detail;
  std::uint32_t bits;
  std::memcpy(&bits, &v, sizeof bits);
  const std::uint32_t biased = (bits >> 23) & 0xff, frac = bits & 0x7fffff;
  if (frac == 0) [[unlikely]] {
    const std::uint64_t p = d::power_of_two_digits(biased);
    digits = static_cast<std::uint32_t>(p);
    exp10 = static_cast<int>(static_cast<std::uint32_t>(p >> 32));
    return;
  }
  const d::exponent_entry& x = d::exponents.e[biased];
  // The mantissa and the rounding interval [cp - half_gap, cp + half_gap] in units of
  // 2^(q-2-h), open when the mantissa is odd (round-half-even reads an odd mantissa's
  // midpoints as the neighbours).
  const std::uint64_t out = frac & 1;
  const std::uint64_t cp = frac * x.scale + x.implicit;
  const std::uint64_t xb = d::high64(x.g, cp);
  const std::uint64_t xl = d::high64(x.g, cp - x.half_gap) + out;
  const std::uint64_t xr = d::high64(x.g, cp + x.half_gap) - out;
  // At most one multiple of 10^(k+1) fits in the interval; if one does it is the shortest.
  const std::uint32_t s = static_cast<std::uint32_t>(xb >> 33);
  const std::uint32_t sp = s / 10, sp10 = 10 * sp;
  const bool upin = xl <= std::uint64_t{sp10} << 33;
  const bool wpin = (std::uint64_t{sp10 + 10} << 33) <= xr;
  if (upin == wpin) {  // (both only if the interval held two: never)
    digits = static_cast<std::uint32_t>((xb + (s & 1) + 0xffffffffu) >> 33);
    exp10 = x.k;
    return;
  }
  std::uint32_t r = upin ? sp : sp + 1;
  int e = x.k + 1;
  // Further trailing zeros, two at a time: r * 25^-1 mod 2^32, rotated right by two, is
  // r / 100 when r is a multiple of 100 and above 2^32 / 100 otherwise.
  for (;;) {
    const std::uint32_t t = std::rotr(r * 0xC28F5C29u, 2);
    if (t > 0x028F5C28u) break;
    r = t;
    e += 2;
  }
  const std::uint32_t t = std::rotr(r * 0xCCCCCCCDu, 1);  // the same with 5^-1 and 10
  if (t <= 0x19999999u) {
    r = t;
    ++e;
  }
  digits = r;
  exp10 = e;
}

}  // namespace rigrip::json_out
