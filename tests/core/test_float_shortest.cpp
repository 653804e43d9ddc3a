// json_out::shortest_float_digits (Schubfach-style shortest digits with 64-bit products)
// against std::to_chars in scientific form (the shortest round-trip digits, nearest, ties to
// even) bit for bit: random bit patterns, every exponent's edges, powers of two and ten,
// subnormals, min/max, integers. (Once, locally, every finite positive float was checked.)
#include <gtest/gtest.h>

#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "scene/float_shortest.hpp"

namespace {
using rigrip::json_out::shortest_float_digits;

float from_bits(std::uint32_t b) {
  float f;
  std::memcpy(&f, &b, sizeof f);
  return f;
}

// "d.ddde±x" from to_chars -> digits without trailing zeros, and exponent of the last one.
void reference(float v, std::uint32_t& digits, int& exp10) {
  char buf[64];
  const auto r = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::scientific);
  const char* p = buf;
  if (*p == '-') ++p;
  std::uint64_t d = 0;
  int after_point = 0;
  bool point = false;
  for (; p < r.ptr && *p != 'e'; ++p) {
    if (*p == '.') {
      point = true;
      continue;
    }
    d = d * 10 + static_cast<std::uint64_t>(*p - '0');
    if (point) ++after_point;
  }
  int e = 0;
  std::from_chars(p + 1 + (p[1] == '+' ? 1 : 0), r.ptr, e);
  e -= after_point;
  while (d != 0 && d % 10 == 0) d /= 10, ++e;
  digits = static_cast<std::uint32_t>(d);
  exp10 = e;
}

void check(float v, int& bad) {
  if (v == 0) return;  // not an input: zero is spelled without digits
  std::uint32_t d, rd;
  int e, re;
  shortest_float_digits(v, d, e);
  reference(v, rd, re);
  if ((d != rd || e != re) && ++bad < 20)
    ADD_FAILURE() << std::hex << std::bit_cast<std::uint32_t>(v) << std::dec << ": " << d << "e" << e << " vs " << rd
                  << "e" << re;
}

TEST(JsonFloatShortest, EqualsToCharsScientificOnSamplesAndEdges) {
  std::vector<float> v;
  std::mt19937 rng(1616);
  for (int i = 0; i < 600000; ++i) {
    const std::uint32_t b = static_cast<std::uint32_t>(rng());
    if ((b & 0x7f800000u) != 0x7f800000u && (b & 0x7fffffffu) != 0) v.push_back(from_bits(b));
  }
  // Every exponent (every table entry, regular and power-of-two intervals): the first and
  // last mantissas and a few between, both signs.
  for (std::uint32_t biased = 0; biased < 255; ++biased)
    for (std::uint32_t frac : {0u, 1u, 2u, 3u, 4u, 5u, 0x123456u, 0x400000u, 0x400001u, 0x7ffffcu, 0x7ffffdu, 0x7ffffeu, 0x7fffffu})
      for (std::uint32_t sign : {0u, 1u})
        if (biased != 0 || frac != 0) v.push_back(from_bits(sign << 31 | biased << 23 | frac));
  // Subnormals: the smallest thousand and random ones.
  for (std::uint32_t b = 1; b < 1000; ++b) v.push_back(from_bits(b));
  for (int i = 0; i < 20000; ++i) v.push_back(from_bits(1 + static_cast<std::uint32_t>(rng() % 0x7fffffu)));
  // Powers of ten (and their float neighbours), min/max, integers, frame times.
  for (int p = -45; p <= 38; ++p) {
    const float f = std::strtof(("1e" + std::to_string(p)).c_str(), nullptr);
    if (f == 0 || !std::isfinite(f)) continue;
    v.push_back(f);
    v.push_back(std::nextafter(f, 0.0f));
    v.push_back(std::nextafter(f, 1e39f));
  }
  v.push_back(std::numeric_limits<float>::min());
  v.push_back(std::numeric_limits<float>::max());
  v.push_back(std::numeric_limits<float>::denorm_min());
  v.push_back(std::numeric_limits<float>::epsilon());
  for (int i = 1; i <= 300000; ++i) v.push_back(static_cast<float>(i));
  for (std::uint32_t i = 1; i < 1000; ++i) v.push_back(static_cast<float>(1 + (rng() & 0xffffff)) * static_cast<float>(i));
  for (int i = 1; i < 20000; ++i) {
    v.push_back(static_cast<float>(i) / 30.0f);
    v.push_back(static_cast<float>(i) * 0.001f);
  }
  int bad = 0;
  for (float f : v) check(f, bad);
  EXPECT_EQ(bad, 0);
}

// A contiguous run of a million patterns around 1.0 (values animation data is full of).
TEST(JsonFloatShortest, EqualsToCharsScientificAroundOne) {
  int bad = 0;
  for (std::uint32_t b = 0x3f800000u - 500000u; b < 0x3f800000u + 500000u; ++b) check(from_bits(b), bad);
  EXPECT_EQ(bad, 0);
}

// Patterns (found by a search over all floats) where the routine's comparisons are exact:
// the middle product exactly halfway between s and s + 1 (the tie goes to the even one),
// and a scaled bound exactly on s, s + 1 or a multiple of ten (in when the mantissa is even,
// out when it is odd), with both signs.
TEST(JsonFloatShortest, ExactBoundsAndTiesEqualToChars) {
  const std::uint32_t patterns[] = {
      0x3a400000u, 0x3ac00000u, 0x3b200000u, 0x3b600000u, 0x3b900000u, 0x3bb00000u,
      0x3bd00000u, 0x3bf00000u, 0x3c080000u, 0x3c180000u, 0x3c280000u, 0x3c380000u,
      0x3c480000u, 0x3c580000u, 0x3c680000u, 0x3c780000u, 0x3c880000u, 0x3c980000u,
      0x3ca80000u, 0x3cb80000u, 0x3cc80000u, 0x3cd80000u, 0x3ce80000u, 0x3cf80000u,
      0x4b800001u, 0x4b800002u, 0x4b800003u, 0x4b800004u, 0x4b800005u, 0x4b800006u,
      0x4b800007u, 0x4b800008u, 0x4b800009u, 0x4b80000au, 0x4b80000bu, 0x4b80000cu,
      0x4c000004u, 0x4c000005u, 0x4c000009u, 0x4c00000au, 0x4c00000eu, 0x4c00000fu,
      0x4c000013u, 0x4c000014u, 0x4c000018u, 0x4c000019u, 0x4c00001du, 0x4c00001eu,
      0x4c000022u, 0x4c000023u, 0x4c000027u, 0x4c000028u, 0x4c00002cu, 0x4c00002du,
      0x4c000031u, 0x4c000032u, 0x4c000036u, 0x4c000037u, 0x4c00003bu, 0x4c00003cu,
      0x4d000005u, 0x4d00000au, 0x4d00000fu, 0x4d000014u, 0x4d000019u, 0x4d00001eu,
      0x4d000023u, 0x4d000028u, 0x4d00002du, 0x4d000032u, 0x4d000037u, 0x4d00003cu};
  int bad = 0;
  for (std::uint32_t b : patterns) {
    check(from_bits(b), bad);
    check(from_bits(b | 0x80000000u), bad);
  }
  EXPECT_EQ(bad, 0);
}
}  // namespace
