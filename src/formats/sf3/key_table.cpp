// SF3 key tables (x8pc animation chunk and x8an segments): parse and write back.
#include "formats/sf3/key_table.hpp"

#include <algorithm>
#include <iterator>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace rigrip::sf3 {
namespace {

using core::byte_reader;
using core::byte_writer;
using core::endian;
using core::fail;


// Walks a checked array as values of T: lets a vector be filled by assign() in one pass,
// without the zero-fill of resize() and a second pass over it.
template <typename T>
class element_iter {
 public:
  // Random access so assign() takes the length by one subtraction.
  using iterator_category = std::random_access_iterator_tag;
  using value_type = T;
  using difference_type = std::ptrdiff_t;
  using pointer = const T*;
  using reference = T;
  element_iter() = default;
  element_iter(const std::uint8_t* p, endian e) : p_(p), e_(e) {}
  T operator*() const { return e_ == endian::big ? load_at<T>(p_, endian::big) : load_at<T>(p_, endian::little); }
  element_iter& operator++() {
    p_ += sizeof(T);
    return *this;
  }
  element_iter operator++(int) {
    element_iter t = *this;
    ++*this;
    return t;
  }
  element_iter& operator--() {
    p_ -= sizeof(T);
    return *this;
  }
  element_iter& operator+=(difference_type n) {
    p_ += n * static_cast<difference_type>(sizeof(T));
    return *this;
  }
  element_iter operator+(difference_type n) const { return element_iter(*this) += n; }
  element_iter operator-(difference_type n) const { return element_iter(*this) += -n; }
  T operator[](difference_type n) const { return *(*this + n); }
  friend difference_type operator-(const element_iter& a, const element_iter& b) {
    return (a.p_ - b.p_) / static_cast<difference_type>(sizeof(T));
  }
  bool operator==(const element_iter& o) const { return p_ == o.p_; }
  bool operator<(const element_iter& o) const { return p_ < o.p_; }

 private:
  const std::uint8_t* p_ = nullptr;
  endian e_ = endian::big;
};

template <typename T>
void read_array(const byte_reader& r, std::uint32_t off, std::size_t n, key_vec<T>& out) {
  const std::uint8_t* p = r.data().data() + off;
  out.assign(element_iter<T>(p, r.byte_order()), element_iter<T>(p + n * sizeof(T), r.byte_order()));
}

}  // namespace

key_table_ref scan_key_table(const byte_reader& r, std::uint32_t table_offset, std::uint32_t data_start,
                             work_budget* budget) {
  key_table_ref t;
  t.order = r.byte_order();
  work_budget local{2 * static_cast<std::uint64_t>(r.size()) + 4096};
  if (!budget) budget = &local;
  if (table_offset > r.size())
    fail(code::bad_offset, "keyframe table offset " + hex(table_offset) + " past the end (" +
                               std::to_string(r.size()) + " bytes)", r.base());
  std::size_t max_bones = r.checked_count_at(table_offset, (r.size() - table_offset) / 64, 64, "keyframe table");
  const endian order = r.byte_order();
  const std::uint8_t* bytes = r.data().data();
  // The records before the terminator (at most max_bones, each inside the bytes): sized once,
  // and the loop below reads the terminator only after them.
  std::size_t nb = 0;
  for (std::uint32_t a = table_offset; nb < max_bones && load_at<std::uint32_t>(bytes + a, order) != end_marker; a += 64) ++nb;
  t.bones.resize(nb);
  std::uint32_t pos = data_start;  // where the canonical layout puts the next array
  std::uint32_t at = table_offset;
  // Records in the canonical layout are checked as one span (below): with the bytes below
  // 4 GiB - 64 k, a record whose arrays follow each other from `pos` (64-bit sums) lies in the
  // bytes exactly when its last array ends inside them, and then no 32-bit sum of the generic
  // checks wraps, so both give the same result.
  const bool span_checks = r.size() <= 0xFFFF0000u;
  auto pad_zero = [&](std::uint64_t from, std::uint64_t to) {
    for (std::uint64_t p = from; p < to && p < r.size(); ++p)
      if (bytes[p] != 0) t.canonical = false;
  };
  for (std::size_t bone = 0;; ++bone) {
    if (bone == nb) {
      // What the terminator test of the record after the last gives (as it always did).
      if (r.u32_at(at) == end_marker) break;
      fail(code::truncated, "keyframe table at " + hex(r.base() + table_offset) + " has no 0xFFFFFFFF end marker",
           r.base() + at);
    }
    // The record lies inside the table: at + 64 <= table_offset + 64 * max_bones <= size.
    const std::uint8_t* rec = bytes + at;
    key_record_ref& k = t.bones[bone];
    for (int i = 0; i < 3; ++i) k.n[i] = load_at<std::uint32_t>(rec + 4 * i, order);
    for (int i = 0; i < 13; ++i) k.off[i] = load_at<std::uint32_t>(rec + 12 + 4 * i, order);
    at += 64;
    // off[0..2] frame arrays T R S, off[3..5] Tx Ty Tz, off[6..9] Rx Ry Rz Rw, off[10..12] Sx Sy Sz.
    if (span_checks) {
      const std::uint64_t nt = k.n[0], nr = k.n[1], ns = k.n[2];
      std::uint64_t e = pos;
      bool follow = true;
      const auto next = [&](int i, std::uint64_t bytes) {  // array i starts where the last ended
        follow &= k.off[i] == e;
        e = std::uint64_t{k.off[i]} + bytes;
      };
      next(0, 2 * nt), next(1, 2 * nr), next(2, 2 * ns);
      const std::uint64_t pad1 = e, a1 = (e + 3) / 4 * 4;
      e = a1;
      next(3, 4 * nt), next(4, 4 * nt), next(5, 4 * nt);
      next(6, 2 * nr), next(7, 2 * nr), next(8, 2 * nr), next(9, 2 * nr);
      const std::uint64_t pad2 = e, a2 = (e + 3) / 4 * 4;
      e = a2;
      next(10, 4 * ns), next(11, 4 * ns), next(12, 4 * ns);
      const std::uint64_t total = 14 * nt + 10 * nr + 14 * ns;  // the 13 arrays' bytes
      if (follow && e <= r.size() && total <= budget->left) {
        budget->left -= total;
        pad_zero(pad1, a1);
        pad_zero(pad2, a2);
        pos = static_cast<std::uint32_t>(e);
        continue;
      }
    }
    static constexpr int count_of[13] = {0, 1, 2, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2};
    static constexpr std::uint32_t elem_of[13] = {2, 2, 2, 4, 4, 4, 2, 2, 2, 2, 4, 4, 4};
    // Every array inside the bytes and the budget enough for all 13: charged at once (the
    // common case). Otherwise array by array as below, which fails where it failed before.
    std::uint64_t total = 0;
    bool all_fit = true;
    for (int i = 0; i < 13; ++i) {
      const std::uint64_t b = std::uint64_t{k.n[count_of[i]]} * elem_of[i];
      all_fit &= std::uint64_t{k.off[i]} + b <= r.size();
      total += b;
    }
    if (all_fit && total <= budget->left) {
      budget->left -= total;
    } else {
      auto count = [&](std::uint32_t c, std::uint32_t elem, int field) {
        // The label is built only when the check fails (checked_count_at then throws).
        const bool fits = k.off[field] <= r.size() && c <= (r.size() - k.off[field]) / elem;
        std::size_t n = fits ? std::size_t{c}
                             : r.checked_count_at(k.off[field], c, elem, ("keyframes of bone " + std::to_string(bone)).c_str());
        budget->spend(std::uint64_t{n} * elem, r.base() + at - 64, "keyframe table");
      };
      for (int i = 0; i < 13; ++i) count(k.n[count_of[i]], elem_of[i], i);
    }
    // The canonical layout: the arrays in field order, zero padding to 4 after the frames
    // and after the rotations.
    auto expect = [&](int i) {
      if (k.off[i] != pos) t.canonical = false;
      pos = k.off[i] + k.n[count_of[i]] * elem_of[i];
    };
    auto pad = [&]() {
      std::uint32_t aligned = align_up(pos, 4);
      pad_zero(pos, aligned);
      pos = aligned;
    };
    for (int i = 0; i < 3; ++i) expect(i);
    pad();
    for (int i = 3; i < 10; ++i) expect(i);
    pad();
    for (int i = 10; i < 13; ++i) expect(i);
  }
  if (pos != table_offset) t.canonical = false;
  t.end = at + 4;
  return t;
}

key_table parse_key_table(const byte_reader& r, std::uint32_t table_offset, std::uint32_t data_start,
                          work_budget* budget, std::shared_ptr<key_arena> arena) {
  return read_key_table(r, scan_key_table(r, table_offset, data_start, budget), std::move(arena));
}

key_table read_key_table(const byte_reader& r, const key_table_ref& ref, std::shared_ptr<key_arena> arena) {
  key_table t;
  // The arrays take at most about the table's bytes (more only when arrays overlap, which the
  // work budget bounds); the arena grows by itself past its first block.
  if (!arena) arena = std::make_shared<key_arena>(std::max<std::size_t>(r.size(), 256));
  t.arena = std::move(arena);
  t.canonical = ref.canonical;
  t.end = ref.end;
  t.bones.reserve(ref.bones.size());
  for (const auto& kr : ref.bones) {
    key_record k(t.arena.get());
    // Every array with a count above 0 was checked by the scan.
    key_vec<std::uint16_t>* frames[3] = {&k.t_frames, &k.r_frames, &k.s_frames};
    for (int c = 0; c < 3; ++c)
      if (kr.n[c]) read_array(r, kr.off[c], kr.n[c], *frames[c]);
    if (kr.n[0])
      for (int c = 0; c < 3; ++c) read_array(r, kr.off[3 + c], kr.n[0], k.t[c]);
    if (kr.n[1])
      for (int c = 0; c < 4; ++c) read_array(r, kr.off[6 + c], kr.n[1], k.r[c]);
    if (kr.n[2])
      for (int c = 0; c < 3; ++c) read_array(r, kr.off[10 + c], kr.n[2], k.s[c]);
    t.bones.push_back(std::move(k));
  }
  return t;
}

std::uint32_t write_key_table(byte_writer& w, std::size_t origin, const key_table& t) {
  auto rel = [&]() { return static_cast<std::uint32_t>(w.size() - origin); };
  auto pad4 = [&]() {
    while (rel() % 4) w.u8(0);
  };
  std::vector<std::array<std::uint32_t, 16>> records;
  for (std::size_t b = 0; b < t.bones.size(); ++b) {
    const auto& k = t.bones[b];
    const std::size_t nt = k.t_frames.size(), nr = k.r_frames.size(), ns = k.s_frames.size();
    for (const auto& c : k.t)
      if (c.size() != nt) fail(code::internal, "bone " + std::to_string(b) + ": translation arrays differ in length");
    for (const auto& c : k.r)
      if (c.size() != nr) fail(code::internal, "bone " + std::to_string(b) + ": rotation arrays differ in length");
    for (const auto& c : k.s)
      if (c.size() != ns) fail(code::internal, "bone " + std::to_string(b) + ": scale arrays differ in length");
    std::array<std::uint32_t, 16> rec{};
    rec[0] = static_cast<std::uint32_t>(nt);
    rec[1] = static_cast<std::uint32_t>(nr);
    rec[2] = static_cast<std::uint32_t>(ns);
    const key_vec<std::uint16_t>* frames[3] = {&k.t_frames, &k.r_frames, &k.s_frames};
    for (int c = 0; c < 3; ++c) {
      rec[3 + c] = rel();
      for (auto f : *frames[c]) w.u16(f);
    }
    pad4();
    for (int c = 0; c < 3; ++c) {
      rec[6 + c] = rel();
      for (auto v : k.t[c]) w.i32(v);
    }
    for (int c = 0; c < 4; ++c) {
      rec[9 + c] = rel();
      for (auto v : k.r[c]) w.i16(v);
    }
    pad4();
    for (int c = 0; c < 3; ++c) {
      rec[13 + c] = rel();
      for (auto v : k.s[c]) w.i32(v);
    }
    records.push_back(rec);
  }
  std::uint32_t table = rel();
  for (const auto& rec : records)
    for (auto v : rec) w.u32(v);
  w.u32(end_marker);
  return table;
}

std::pair<int, int> frame_range(const key_table& t) {
  int lo = -1, hi = -1;
  for (const auto& b : t.bones)
    for (const auto* f : {&b.t_frames, &b.r_frames, &b.s_frames})
      for (auto v : *f) {
        if (lo < 0 || v < lo) lo = v;
        if (v > hi) hi = v;
      }
  return {lo, hi};
}

namespace {
// The smallest and largest of u16 arrays added one after another, reduced once at the end
// (frame arrays are short: a reduction per array was most of the cost). With SSE2, eight
// values per step as signed lanes (value ^ 0x8000 keeps the unsigned order); an array of eight
// or more ends with an 8-wide block overlapping the one before (min and max do not mind
// seeing a value twice); shorter arrays go one value at a time.
class u16_range {
 public:
  void add(const std::uint8_t* p, std::size_t n, bool big) {
#if defined(__SSE2__)
    if (n >= 8) {
      std::size_t i = 0;
      for (; i + 8 <= n; i += 8) block(p + 2 * i, big);
      if (i < n) block(p + 2 * (n - 8), big);
      return;
    }
#endif
    for (std::size_t i = 0; i < n; ++i) {
      const unsigned v = big ? (unsigned{p[2 * i]} << 8 | p[2 * i + 1]) : (unsigned{p[2 * i + 1]} << 8 | p[2 * i]);
      lo_ = std::min(lo_, v);
      hi_ = std::max(hi_, v);
    }
  }
  // lo = min(lo, every value added), hi = max(hi, ...); unchanged when nothing was added.
  void reduce(unsigned& lo, unsigned& hi) const {
#if defined(__SSE2__)
    if (blocks_) {
      alignas(16) std::int16_t a[8], b[8];
      _mm_store_si128(reinterpret_cast<__m128i*>(a), mn_);
      _mm_store_si128(reinterpret_cast<__m128i*>(b), mx_);
      for (int k = 0; k < 8; ++k) {
        lo = std::min(lo, static_cast<unsigned>(static_cast<std::uint16_t>(a[k]) ^ 0x8000u));
        hi = std::max(hi, static_cast<unsigned>(static_cast<std::uint16_t>(b[k]) ^ 0x8000u));
      }
    }
#endif
    lo = std::min(lo, lo_);
    hi = std::max(hi, hi_);
  }

 private:
#if defined(__SSE2__)
  void block(const std::uint8_t* q, bool big) {
    __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(q));
    if (big) v = _mm_or_si128(_mm_slli_epi16(v, 8), _mm_srli_epi16(v, 8));
    v = _mm_xor_si128(v, _mm_set1_epi16(static_cast<short>(0x8000)));
    mn_ = _mm_min_epi16(mn_, v);
    mx_ = _mm_max_epi16(mx_, v);
    blocks_ = true;
  }
  __m128i mn_ = _mm_set1_epi16(0x7FFF), mx_ = _mm_set1_epi16(static_cast<short>(0x8000));
  bool blocks_ = false;
#endif
  unsigned lo_ = 0x10000, hi_ = 0;
};
}  // namespace

void u16_min_max(const std::uint8_t* p, std::size_t n, bool big, unsigned& lo, unsigned& hi) {
  u16_range r;
  r.add(p, n, big);
  r.reduce(lo, hi);
}

std::pair<int, int> frame_range(const key_table_ref& t, const std::uint8_t* data) {
  // Smallest and largest frame over every frame array (lo starts above any u16).
  unsigned lo = 0x10000, hi = 0;
  bool any = false;
  const bool big = t.order == endian::big;
  u16_range r;
  for (const auto& b : t.bones) {
    // The canonical layout puts a bone's three frame arrays one after another: one run of
    // n[0] + n[1] + n[2] values (the same values; fewer short tails than three arrays).
    const std::uint64_t n0 = b.n[0], n1 = b.n[1], n2 = b.n[2];
    if (std::uint64_t{b.off[1]} == b.off[0] + 2 * n0 && std::uint64_t{b.off[2]} == b.off[1] + 2 * n1) {
      if (n0 + n1 + n2) {
        any = true;
        r.add(data + b.off[0], static_cast<std::size_t>(n0 + n1 + n2), big);
      }
      continue;
    }
    for (int c = 0; c < 3; ++c)
      if (b.n[c]) {
        any = true;
        r.add(data + b.off[c], b.n[c], big);
      }
  }
  r.reduce(lo, hi);
  if (!any) return {-1, -1};
  return {static_cast<int>(lo), static_cast<int>(hi)};
}

// `dump --raw`: the keys as stored, fixed point scaled to numbers.
nlohmann::json key_table_to_json(const key_table& t) {
  using nlohmann::json;
  json out = json::array();
  for (std::size_t b = 0; b < t.bones.size(); ++b) {
    const auto& k = t.bones[b];
    json tr = json::array(), ro = json::array(), sc = json::array();
    for (std::size_t i = 0; i < k.t_frames.size(); ++i)
      tr.push_back({k.t_frames[i], k.t[0][i] / 65536.0, k.t[1][i] / 65536.0, k.t[2][i] / 65536.0});
    for (std::size_t i = 0; i < k.r_frames.size(); ++i)
      ro.push_back({k.r_frames[i], k.r[0][i] / 16384.0, k.r[1][i] / 16384.0, k.r[2][i] / 16384.0, k.r[3][i] / 16384.0});
    for (std::size_t i = 0; i < k.s_frames.size(); ++i)
      sc.push_back({k.s_frames[i], k.s[0][i] / 65536.0, k.s[1][i] / 65536.0, k.s[2][i] / 65536.0});
    out.push_back({{"bone", b}, {"translation", tr}, {"rotation", ro}, {"scale", sc}});
  }
  return out;
}

}  // namespace rigrip::sf3
