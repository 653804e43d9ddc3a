// Deterministic mutations for the hostile-input campaign. Every mutated input is named by
// (file, kind, index): the same triple always gives the same bytes, on every machine (the
// generator is splitmix64, not a std:: distribution), so a failure reproduces from its
// description alone:  RIGRIP_HOSTILE_ONLY='<file name>:<kind>:<index>'.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <iterator>
#include <string>
#include <string_view>
#include <vector>

namespace hostile {

using bytes = std::vector<std::uint8_t>;

enum class kind { truncate, flip, field };
inline const char* kind_name(kind k) {
  switch (k) {
    case kind::truncate: return "truncate";
    case kind::flip: return "flip";
    case kind::field: return "field";
  }
  return "?";
}

struct rng {
  std::uint64_t s;
  explicit rng(std::uint64_t seed) : s(seed) {}
  std::uint64_t next() {
    std::uint64_t z = (s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  std::uint64_t below(std::uint64_t n) { return n ? next() % n : 0; }
};

inline std::uint64_t fnv1a(std::string_view s) {
  std::uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char c : s) h = (h ^ c) * 0x100000001b3ull;
  return h;
}

// How many runs of each kind a file of `size` bytes gets. The budget shrinks with the
// file size (a run costs roughly linear time) and `scale` (RIGRIP_HOSTILE_SCALE) raises it
// for a long campaign.
struct plan {
  std::size_t truncations = 0;
  std::size_t flips = 0;
  std::size_t fields = 0;
};
inline plan plan_for(std::size_t size, double scale) {
  // Full budget up to 64 KiB, then proportional to 1/size with a floor.
  double f = size <= 65536 ? 1.0 : 65536.0 / static_cast<double>(size);
  f = std::max(f, 0.04);
  auto n = [&](double base, double floor_) {
    return static_cast<std::size_t>(std::max(floor_ * std::min(scale, 1.0), base * f * scale));
  };
  plan p;
  p.truncations = std::min<std::size_t>(size + 1, n(400, 40));
  p.flips = n(2000, 80);
  p.fields = n(1500, 60);
  return p;
}

// Truncation grid: every length up to 64, the last 32 lengths, and an even grid between.
inline std::vector<std::size_t> truncation_lengths(std::size_t size, std::size_t count) {
  std::vector<std::size_t> v;
  for (std::size_t i = 0; i <= std::min<std::size_t>(size, 64); ++i) v.push_back(i);
  for (std::size_t k = 1; k <= 32 && k <= size; ++k) v.push_back(size - k);
  std::size_t grid = count > v.size() ? count - v.size() : 0;
  for (std::size_t i = 1; i <= grid; ++i) v.push_back(size * i / (grid + 1));
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
  v.erase(std::remove_if(v.begin(), v.end(), [&](std::size_t x) { return x >= size; }), v.end());
  return v;
}

// Field runs with an index below this are the systematic header sweep.
inline std::size_t header_sweep_runs(std::size_t size) { return std::min<std::size_t>(size, 512) / 4 * 4; }

// Picks a position: half the time in the first 4 KiB where headers, counts and offset
// tables live, otherwise anywhere.
inline std::size_t pick_pos(rng& r, std::size_t size, std::size_t align) {
  std::size_t limit = (r.next() & 1) ? std::min<std::size_t>(size, 4096) : size;
  std::size_t slots = limit / align;
  return slots ? r.below(slots) * align : 0;
}

inline void put(bytes& b, std::size_t pos, std::uint64_t v, int width, bool big) {
  for (int i = 0; i < width && pos + i < b.size(); ++i) {
    int shift = big ? 8 * (width - 1 - i) : 8 * i;
    b[pos + i] = static_cast<std::uint8_t>(v >> shift);
  }
}

// The mutated bytes for (kind, index). `trunc` is the truncation grid for this file.
inline bytes mutate(const bytes& in, std::string_view file_key, kind k, std::size_t index,
                    const std::vector<std::size_t>& trunc, std::string* what = nullptr) {
  bytes b = in;
  rng r(fnv1a(file_key) ^ (static_cast<std::uint64_t>(k) << 56) ^ (index * 0x2545F4914F6CDD1Dull));
  r.next();
  if (k == kind::truncate) {
    std::size_t len = index < trunc.size() ? trunc[index] : 0;
    b.resize(len);
    if (what) *what = "truncated to " + std::to_string(len) + " bytes";
    return b;
  }
  if (b.empty()) return b;
  if (k == kind::flip) {
    std::size_t n = 1 + r.below(8);
    if (what) *what = std::to_string(n) + " random byte changes";
    for (std::size_t i = 0; i < n; ++i) {
      std::size_t pos = pick_pos(r, b.size(), 1);
      if (r.next() & 1)
        b[pos] ^= static_cast<std::uint8_t>(1u << r.below(8));  // a single bit
      else
        b[pos] = static_cast<std::uint8_t>(r.next());  // a whole byte
    }
    return b;
  }
  // Field-targeted: overwrite an aligned 16- or 32-bit word (either byte order) with a
  // value that breaks counts, offsets and sizes: 0, all ones, sign bits, "a bit more than
  // the file", 65536, 2^30.
  const std::uint64_t size = b.size();
  if (index < header_sweep_runs(b.size())) {
    // Systematic sweep: every aligned 32-bit word of the first 512 bytes gets 0,
    // all ones, and 2^30 in each byte order.
    static constexpr std::uint64_t sweep[] = {0, 0xFFFFFFFFull, 0x40000000ull, 0x40000000ull};
    std::size_t pos = (index / 4) * 4;
    std::size_t which = index % 4;
    put(b, pos, sweep[which], 4, which == 3);
    if (what) {
      char buf[96];
      std::snprintf(buf, sizeof buf, "header sweep: 32-bit %s word at 0x%zX := 0x%llX", which == 3 ? "BE" : "LE",
                    pos, static_cast<unsigned long long>(sweep[which]));
      *what = buf;
    }
    return b;
  }
  const std::uint64_t values32[] = {0, 0xFFFFFFFFull, 0x7FFFFFFFull, 0x80000000ull, size, size + 1,
                                    size - 1, size * 2, 0x00010000ull, 0x40000000ull, 0xFFFFFFF0ull, 1};
  const std::uint64_t values16[] = {0, 0xFFFF, 0x7FFF, 0x8000, 0x0100, 1};
  bool wide = r.below(4) != 0;
  int width = wide ? 4 : 2;
  std::size_t pos = pick_pos(r, b.size(), static_cast<std::size_t>(width));
  bool big = r.next() & 1;
  std::uint64_t v = wide ? values32[r.below(std::size(values32))] : values16[r.below(std::size(values16))];
  put(b, pos, v, width, big);
  if (what) {
    char buf[128];
    std::snprintf(buf, sizeof buf, "%d-bit %s word at 0x%zX := 0x%llX", width * 8, big ? "BE" : "LE", pos,
                  static_cast<unsigned long long>(v));
    *what = buf;
  }
  return b;
}

}  // namespace hostile
