// json_out::put_float (integer shortest-digits fast path) and writer::floats (chunked
// array writer) against the formula they replaced: std::to_chars re-laid out as nlohmann
// prints a double, one number at a time through the string. Must match byte for byte.
#include <gtest/gtest.h>

#include <bit>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "scene/json_out.hpp"

namespace {
using namespace rigrip::json_out;

// The previous put_number, kept verbatim as the reference.
void ref_lay_out(std::string& o, bool negative, std::string_view digits, int n) {
  const int k = static_cast<int>(digits.size());
  if (negative) o += '-';
  if (k <= n && n <= 15) {
    o += digits;
    o.append(static_cast<std::size_t>(n - k), '0');
    o += ".0";
  } else if (0 < n && n <= 15) {
    o += digits.substr(0, static_cast<std::size_t>(n));
    o += '.';
    o += digits.substr(static_cast<std::size_t>(n));
  } else if (-4 < n && n <= 0) {
    o += "0.";
    o.append(static_cast<std::size_t>(-n), '0');
    o += digits;
  } else {
    o += digits[0];
    if (k > 1) {
      o += '.';
      o += digits.substr(1);
    }
    int e = n - 1;
    o += 'e';
    o += e < 0 ? '-' : '+';
    e = e < 0 ? -e : e;
    if (e < 10) o += '0';
    char buf[8];
    auto r = std::to_chars(buf, buf + sizeof buf, e);
    o.append(buf, r.ptr);
  }
}

void ref_put_number(std::string& o, float v) {
  if (!std::isfinite(v)) {
    o += "null";
    return;
  }
  if (v == 0) {
    o += std::signbit(v) ? "-0.0" : "0.0";
    return;
  }
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  if (const void* dot = std::memchr(buf, '.', static_cast<std::size_t>(r.ptr - buf));
      dot && !std::memchr(buf, 'e', static_cast<std::size_t>(r.ptr - buf)) &&
      static_cast<const char*>(dot) - buf <= (buf[0] == '-' ? 16 : 15)) {
    o.append(buf, r.ptr);
    return;
  }
  const char* p = buf;
  bool negative = false;
  if (*p == '-') {
    negative = true;
    ++p;
  }
  char digits[48];
  int k = 0, point = -1;
  for (; p < r.ptr && *p != 'e'; ++p) {
    if (*p == '.') point = k;
    else if (k < 48) digits[k++] = *p;
  }
  if (point < 0) point = k;
  int exp10 = 0;
  if (p < r.ptr) std::from_chars(p + 1 + (p[1] == '+' ? 1 : 0), r.ptr, exp10);
  int n = point + exp10;
  int first = 0;
  while (first < k - 1 && digits[first] == '0') ++first, --n;
  while (k - first > 1 && digits[k - 1] == '0') --k;
  ref_lay_out(o, negative, std::string_view(digits + first, static_cast<std::size_t>(k - first)), n);
}

float from_bits(std::uint32_t b) {
  float f;
  std::memcpy(&f, &b, sizeof f);
  return f;
}

std::string fast(float v) {
  char buf[128];
  std::memset(buf, '#', sizeof buf);
  char* e = put_float(buf, v);
  return std::string(buf, e);
}
std::string ref(float v) {
  std::string o;
  ref_put_number(o, v);
  return o;
}

// Many kinds of float: random bit patterns (subnormals, NaN, infinities included), both
// zeros, powers of two and their neighbours (the asymmetric interval), the fast path's
// range edges, integers, frame times k/30 and k/60, short decimals.
std::vector<float> samples() {
  std::vector<float> v;
  std::mt19937 rng(16);
  for (int i = 0; i < 400000; ++i) v.push_back(from_bits(static_cast<std::uint32_t>(rng())));
  for (std::uint32_t b : {0x00000000u, 0x80000000u, 0x00000001u, 0x007fffffu, 0x00800000u, 0x7f7fffffu,
                          0x7f800000u, 0xff800000u, 0x7fc00000u})
    v.push_back(from_bits(b));
  for (std::uint32_t biased = 1; biased < 255; ++biased)
    for (std::uint32_t frac : {0u, 1u, 2u, 3u, 0x400000u, 0x7ffffdu, 0x7ffffeu, 0x7fffffu})
      for (std::uint32_t sign : {0u, 1u}) v.push_back(from_bits(sign << 31 | biased << 23 | frac));
  for (std::uint32_t biased : {89u, 90u, 91u, 148u, 149u, 150u})  // the fast range's edges
    for (std::uint32_t frac = 0; frac < 0x800000u; frac += 97) v.push_back(from_bits(biased << 23 | frac));
  for (int i = -100000; i <= 100000; ++i) v.push_back(static_cast<float>(i));
  for (int i = 0; i < 100000; ++i) {
    v.push_back(static_cast<float>(i) / 30.0f);
    v.push_back(static_cast<float>(i / 60.0));
    v.push_back(static_cast<float>(i) * 0.001f);
    v.push_back(std::ldexp(static_cast<float>(rng() & 0xffffff), static_cast<int>(rng() % 80) - 70));
  }
  return v;
}

TEST(JsonOutFloat, PutFloatEqualsToCharsLayout) {
  int bad = 0;
  for (float f : samples()) {
    const std::string a = fast(f), b = ref(f);
    if (a != b && ++bad < 20) ADD_FAILURE() << std::hex << std::bit_cast<std::uint32_t>(f) << ": " << a << " vs " << b;
  }
  EXPECT_EQ(bad, 0);
}

TEST(JsonOutFloat, PutNumberEqualsReference) {
  for (float f : samples()) {
    std::string a;
    put_number(a, f);
    ASSERT_EQ(a, ref(f));
  }
}

// The array writer against open/item/number/close, at several indents (including one too
// deep for its chunk), empty and long arrays (chunk flushes), and nested depths.
TEST(JsonOutFloat, FloatsArrayEqualsItemByItem) {
  const std::vector<float> all = samples();
  for (int step : {-1, 0, 1, 2, 4, 5000}) {
    for (std::size_t len : {std::size_t(0), std::size_t(1), std::size_t(3), std::size_t(777), std::size_t(20000)}) {
      if (step > 4 && len > 1000) continue;  // 20000 numbers x 15000 spaces: too much text
      for (int depth : {0, 3}) {
        std::vector<float> a(all.begin() + static_cast<std::ptrdiff_t>(len), all.begin() + static_cast<std::ptrdiff_t>(2 * len));
        std::string got, want;
        writer w(got, step);
        for (int i = 0; i < depth; ++i) {
          w.open('[');
          w.item();
        }
        w.floats(a);
        writer r(want, step);
        for (int i = 0; i < depth; ++i) {
          r.open('[');
          r.item();
        }
        r.open('[');
        for (float f : a) {
          r.item();
          ref_put_number(r.o_, f);
        }
        r.close(']');
        ASSERT_EQ(got, want) << "step " << step << " len " << len << " depth " << depth;
      }
    }
  }
}
// Repeated values (the per-writer text cache): a pool of a few thousand bit patterns,
// drawn many times over, over several arrays of one writer, must print as item by item.
TEST(JsonOutFloat, FloatsWithRepeatsEqualItemByItem) {
  const std::vector<float> all = samples();
  std::mt19937 rng(7);
  std::vector<float> pool(all.begin(), all.begin() + 3000);
  for (float f : {0.0f, -0.0f, 1.0f, -1.0f, 0.5f}) pool.push_back(f);
  std::string got, want;
  writer w(got, 1), r(want, 1);
  w.open('[');
  r.open('[');
  for (int arr = 0; arr < 40; ++arr) {
    std::vector<float> a(static_cast<std::size_t>(rng() % 3000));
    for (float& f : a) f = pool[rng() % pool.size()];
    w.item();
    w.floats(a);
    r.item();
    r.open('[');
    for (float f : a) {
      r.item();
      ref_put_number(r.o_, f);
    }
    r.close(']');
  }
  w.close(']');
  r.close(']');
  EXPECT_EQ(got, want);
}
// A fresh writer's cache: the first numbers printed are the patterns its empty slots hold
// (0 in every slot but slot 0, 1 in slot 0) and patterns sharing slot 0 with them; each must
// be printed, not taken from an empty slot.
TEST(JsonOutFloat, FreshCacheEqualsItemByItem) {
  std::vector<float> firsts = {from_bits(0), from_bits(1), from_bits(0x80000000u), from_bits(0x80000001u)};
  for (std::uint32_t b = 2, found = 0; found < 6; ++b)  // other patterns of slot 0
    if (((b * 0x9E3779B1u) >> 19) == 0) firsts.push_back(from_bits(b)), ++found;
  for (float first : firsts)
    for (float second : firsts) {
      const std::vector<float> a = {first, second, first, 1.0f, second};
      std::string got, want;
      writer w(got, 1), r(want, 1);
      w.floats(a);
      r.open('[');
      for (float f : a) {
        r.item();
        ref_put_number(r.o_, f);
      }
      r.close(']');
      ASSERT_EQ(got, want) << std::hex << std::bit_cast<std::uint32_t>(first) << " " << std::bit_cast<std::uint32_t>(second);
      std::string rows;
      writer wr(rows, -1);
      wr.float_rows(a.data(), 1, a.size());
      std::string want_rows = "[[";
      for (std::size_t i = 0; i < a.size(); ++i) {
        if (i) want_rows += ',';
        ref_put_number(want_rows, a[i]);
      }
      want_rows += "]]";
      ASSERT_EQ(rows, want_rows);
    }
}
// Track values: rows of n floats in one chunk against item + floats per row (the old
// put_track loop) and item-by-item numbers, at several indents, with repeats.
TEST(JsonOutFloat, FloatRowsEqualItemByItem) {
  const std::vector<float> all = samples();
  std::mt19937 rng(3);
  for (int step : {-1, 0, 1, 3, 5000}) {
    for (std::size_t n : {std::size_t(1), std::size_t(3), std::size_t(4)}) {
      for (std::size_t rows : {std::size_t(0), std::size_t(1), std::size_t(2), std::size_t(900)}) {
        if (step > 4 && rows > 2) continue;
        std::vector<float> v(rows * n);
        for (float& f : v) f = all[rng() % 5000];
        std::string got, want;
        writer w(got, step), r(want, step);
        w.open('{');
        w.key("values");
        w.float_rows(v.data(), rows, n);
        w.close('}');
        r.open('{');
        r.key("values");
        r.open('[');
        for (std::size_t i = 0; i < rows; ++i) {
          r.item();
          r.open('[');
          for (std::size_t j = 0; j < n; ++j) {
            r.item();
            ref_put_number(r.o_, v[i * n + j]);
          }
          r.close(']');
        }
        r.close(']');
        r.close('}');
        ASSERT_EQ(got, want) << "step " << step << " n " << n << " rows " << rows;
      }
    }
  }
}
}  // namespace
namespace {
// The digit writer put_float uses instead of std::to_chars: every d below 2^21, every lane
// value in both 4-digit halves (d = x * 10^4 + x), random values and powers of ten with
// neighbours below 10^8.
TEST(JsonOutFloat, EightDigitsEqualToChars) {
  std::vector<std::uint32_t> ds;
  for (std::uint32_t d = 0; d < (1u << 21); ++d) ds.push_back(d);
  for (std::uint32_t x = 0; x < 10000; ++x) ds.push_back(x * 10000 + x);
  std::mt19937 rng(21);
  for (int i = 0; i < 1000000; ++i) ds.push_back(static_cast<std::uint32_t>(rng() % 100000000u));
  for (std::uint32_t p = 10; p <= 100000000u; p *= 10)
    for (std::uint32_t d : {p - 1, p, p + 1, p / 2, p / 10 * 9 + p / 100}) ds.push_back(d);
  for (std::uint32_t d : ds) {
    if (d >= 100000000u) continue;
    char want[16];
    const std::string w(want, std::to_chars(want, want + sizeof want, d).ptr);
    char t[16];
    const int zeros = put_eight_digits(t, d);
    const int nd = d == 0 ? 0 : static_cast<int>(w.size());
    ASSERT_EQ(zeros, 8 - nd) << d;
    ASSERT_EQ(std::string(t + zeros, t + 8), d == 0 ? std::string() : w) << d;
    ASSERT_EQ(std::string(t, t + zeros), std::string(static_cast<std::size_t>(zeros), '0')) << d;
  }
}

// put_float's eight-digit writer (SSE2 on x86-64) against the scalar SWAR writer, bit for bit
// (text and leading-zero count): every value of each 4-digit half with the other half at its
// edges and at random, a million random values, powers of ten and their neighbours.
TEST(JsonOutFloat, EightDigitsFastEqualsScalar) {
  std::vector<std::uint32_t> ds;
  std::mt19937 rng(2121);
  for (std::uint32_t x = 0; x < 10000; ++x)
    for (std::uint32_t y : {0u, 1u, 9u, 10u, 999u, 1000u, 5000u, 9999u, static_cast<std::uint32_t>(rng() % 10000u)}) {
      ds.push_back(x * 10000 + y);
      ds.push_back(y * 10000 + x);
    }
  for (int i = 0; i < 1000000; ++i) ds.push_back(static_cast<std::uint32_t>(rng() % 100000000u));
  for (std::uint32_t p = 10; p <= 100000000u; p *= 10)
    for (std::uint32_t d : {p - 1, p, p + 1}) ds.push_back(d);
  int bad = 0;
  for (std::uint32_t d : ds) {
    if (d >= 100000000u) continue;
    char a[8], b[8];
    const int za = put_eight_digits(a, d), zb = put_eight_digits_fast(b, d);
    if ((za != zb || std::memcmp(a, b, 8) != 0) && ++bad < 20)
      ADD_FAILURE() << d << ": " << std::string(a, 8) << " " << za << " vs " << std::string(b, 8) << " " << zb;
  }
  EXPECT_EQ(bad, 0);
}
}  // namespace
