// JSON text written without a DOM, laid out as nlohmann::json::dump prints it (its number
// spelling, separators and indentation), for the scene-JSON writer and the glTF writer.
#pragma once

#include <bit>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace rigrip::json_out {
using nlohmann::json;

// nlohmann's layout of a number given its shortest digits: value = digits * 10^(n - k).
// Mirrors nlohmann::detail::dtoa_impl::format_buffer (min_exp -4, max_exp 15). Writes at
// most 1 + k + 17 characters (k <= 17 digits) at p; returns the end.
inline char* lay_out(char* p, bool negative, std::string_view digits, int n) {
  const int k = static_cast<int>(digits.size());
  if (negative) *p++ = '-';
  if (k <= n && n <= 15) {
    std::memcpy(p, digits.data(), digits.size());
    p += k;
    std::memset(p, '0', static_cast<std::size_t>(n - k));
    p += n - k;
    *p++ = '.';
    *p++ = '0';
  } else if (0 < n && n <= 15) {
    std::memcpy(p, digits.data(), static_cast<std::size_t>(n));
    p += n;
    *p++ = '.';
    std::memcpy(p, digits.data() + n, static_cast<std::size_t>(k - n));
    p += k - n;
  } else if (-4 < n && n <= 0) {
    *p++ = '0';
    *p++ = '.';
    std::memset(p, '0', static_cast<std::size_t>(-n));
    p += -n;
    std::memcpy(p, digits.data(), digits.size());
    p += k;
  } else {
    *p++ = digits[0];
    if (k > 1) {
      *p++ = '.';
      std::memcpy(p, digits.data() + 1, digits.size() - 1);
      p += k - 1;
    }
    int e = n - 1;
    *p++ = 'e';
    *p++ = e < 0 ? '-' : '+';
    e = e < 0 ? -e : e;
    if (e < 10) *p++ = '0';
    p = std::to_chars(p, p + 8, e).ptr;
  }
  return p;
}

inline void lay_out(std::string& o, bool negative, std::string_view digits, int n) {
  char buf[64];
  o.append(buf, lay_out(buf, negative, digits, n));
}

// The shortest round-trip text of a float or double (std::to_chars, which picks fixed or
// scientific form: the same text the DOM path parsed, so the same value), re-laid out as
// nlohmann prints a double. Writes at most 40 characters at o; returns the end.
template <class F>
inline char* put_number_general(char* o, F v) {
  if (!std::isfinite(v)) {
    std::memcpy(o, "null", 4);
    return o + 4;
  }
  if (v == 0) {
    if (std::signbit(v)) *o++ = '-';
    std::memcpy(o, "0.0", 3);
    return o + 3;
  }
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  // Fast path: a fixed spelling with a point and at most 15 digits before it is already
  // nlohmann's layout (shortest digits, no exponent for -4 < exponent <= 15).
  if (const void* dot = std::memchr(buf, '.', static_cast<std::size_t>(r.ptr - buf));
      dot && !std::memchr(buf, 'e', static_cast<std::size_t>(r.ptr - buf)) &&
      static_cast<const char*>(dot) - buf <= (buf[0] == '-' ? 16 : 15)) {
    std::memcpy(o, buf, static_cast<std::size_t>(r.ptr - buf));
    return o + (r.ptr - buf);
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
  int n = point + exp10;  // value = 0.digits * 10^n
  int first = 0;
  while (first < k - 1 && digits[first] == '0') ++first, --n;
  while (k - first > 1 && digits[k - 1] == '0') --k;
  return lay_out(o, negative, std::string_view(digits + first, static_cast<std::size_t>(k - first)), n);
}

template <class F>
inline void put_number(std::string& o, F v) {
  char buf[64];
  o.append(buf, put_number_general(buf, v));
}

// The shortest round-trip decimal of a float, v = digits * 10^exp10, computed exactly with
// integers for 2^-37 <= |v| < 2^23 (almost every animation value): the fewest digits that
// read back as v, then the one nearest v (ties to an even last digit) - the digits
// std::to_chars prints, at a fraction of its cost. Returns false outside that range.
inline bool shortest_float(float v, std::uint32_t& digits, int& exp10) {
  std::uint32_t bits;
  std::memcpy(&bits, &v, sizeof bits);
  const int biased = static_cast<int>((bits >> 23) & 0xff);
  const std::uint32_t frac = bits & 0x7fffff;
  const int e = biased - 150;  // v = m * 2^e
  if (e < -60 || e > -1) return false;
  const std::uint64_t m = (1u << 23) | frac;
  const int s = 2 - e;  // everything below in units of 2^-s (3 <= s <= 62)
  const std::uint64_t mid = 4 * m, hi = mid + 2;
  // The gap below a power of two is half the gap above it.
  const std::uint64_t lo = mid - (frac == 0 && biased > 1 ? 1 : 2);
  const bool inclusive = (m & 1) == 0;  // an even mantissa wins the tie at the midpoints
  static constexpr std::uint64_t pow10[] = {1ull,
                                            10ull,
                                            100ull,
                                            1000ull,
                                            10000ull,
                                            100000ull,
                                            1000000ull,
                                            10000000ull,
                                            100000000ull,
                                            1000000000ull,
                                            10000000000ull,
                                            100000000000ull,
                                            1000000000000ull,
                                            10000000000000ull,
                                            100000000000000ull,
                                            1000000000000000ull,
                                            10000000000000000ull,
                                            100000000000000000ull,
                                            1000000000000000000ull,
                                            10000000000000000000ull};
  using u128 = unsigned __int128;
  const u128 mask = (u128(1) << s) - 1;
  // 10^k0 <= 2^e < the interval's width, so the interval holds a multiple of 10^k0:
  // dlo..dhi, the d with d * 10^k0 inside it (exact: everything scaled by 10^-k0 > 1).
  const int k0 = (e * 78913) >> 18;  // floor(e * log10(2)): -19 <= k0 <= -1
  const std::uint64_t scale = pow10[-k0];
  const u128 a = u128(lo) * scale, b = u128(hi) * scale, x = u128(mid) * scale;
  std::uint64_t dlo = static_cast<std::uint64_t>(inclusive ? (a + mask) >> s : (a >> s) + 1);
  std::uint64_t dhi = static_cast<std::uint64_t>(inclusive ? b >> s : (b - 1) >> s);
  // Fewer digits while some multiple of the next power of ten is still inside: those are
  // the multiples of 10 among dlo..dhi.
  int j = 0;
  while (j < 19 && (dlo + 9) / 10 <= dhi / 10) {
    dlo = (dlo + 9) / 10;
    dhi /= 10;
    ++j;
  }
  // The nearest d to v at 10^(k0 + j), ties to even, kept inside the interval.
  const std::uint64_t q = static_cast<std::uint64_t>(x >> s);  // v * 10^-k0, truncated
  const bool exact = (x & mask) == 0;
  std::uint64_t d;
  if (j == 0) {
    d = q;
    const u128 rem = x & mask, half = u128(1) << (s - 1);
    if (rem > half || (rem == half && (d & 1))) ++d;
  } else {
    const std::uint64_t p = pow10[j];
    d = q / p;
    const std::uint64_t rem = q % p, half = p / 2;
    if (rem > half || (rem == half && (!exact || (d & 1)))) ++d;
  }
  const int k = k0 + j;
  if (d < dlo) d = dlo;
  if (d > dhi) d = dhi;
  digits = static_cast<std::uint32_t>(d);
  exp10 = k;
  return true;
}

// The number of decimal digits of d > 0 (bit width scaled by log10(2), then one compare).
inline int decimal_digits(std::uint32_t d) {
  static constexpr std::uint32_t pow10[] = {1u,      10u,      100u,      1000u,      10000u,
                                            100000u, 1000000u, 10000000u, 100000000u, 1000000000u};
  const int t = (std::bit_width(d) * 1233) >> 12;
  return t + (t < 10 && d >= pow10[t]);
}

// d < 10^9 as exactly nine characters with leading zeros, two digits per table look-up.
inline void put_nine_digits(char* t, std::uint32_t d) {
  static constexpr char pairs[] =
      "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
      "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
      "8081828384858687888990919293949596979899";
  const std::uint32_t hi = d / 100000000u, lo = d % 100000000u;
  const std::uint32_t a = lo / 10000u, b = lo % 10000u;
  t[0] = static_cast<char>('0' + hi);
  std::memcpy(t + 1, pairs + 2 * (a / 100u), 2);
  std::memcpy(t + 3, pairs + 2 * (a % 100u), 2);
  std::memcpy(t + 5, pairs + 2 * (b / 100u), 2);
  std::memcpy(t + 7, pairs + 2 * (b % 100u), 2);
}

// A float in nlohmann's layout, as put_number prints it: the integer fast path above for
// the usual range, to_chars otherwise. o must have 48 writable bytes (the common layouts
// copy in fixed 16-byte blocks); returns the end of the text.
inline char* put_float(char* o, float v) {
  std::uint32_t d;
  int k;
  if (!shortest_float(v, d, k)) return put_number_general(o, v);
  char buf[48];  // nine digit places, then room for a fixed-size copy past them
  const int nd = decimal_digits(d);
  if (nd == 0 || nd > 9) return put_number_general(o, v);  // never: 1 to 9 digits
  put_nine_digits(buf, d);
  const char* t = buf + 9 - nd;
  const int n = nd + k;  // v = 0.digits * 10^n
  if (std::signbit(v)) *o++ = '-';
  if (nd <= n && n <= 15) {  // ddd000.0
    std::memcpy(o, t, 16);
    o += nd;
    std::memcpy(o, "0000000000000000", 16);
    o += n - nd;
    std::memcpy(o, ".0", 2);
    return o + 2;
  }
  if (0 < n && n <= 15) {  // dd.ddd
    std::memcpy(o, t, 16);
    o += n;
    *o++ = '.';
    std::memcpy(o, t + n, 16);
    return o + (nd - n);
  }
  if (-4 < n && n <= 0) {  // 0.000ddd
    std::memcpy(o, "0.000000", 8);
    o += 2 - n;
    std::memcpy(o, t, 16);
    return o + nd;
  }
  return lay_out(o, false, std::string_view(t, static_cast<std::size_t>(nd)), n);
}

template <class I>
inline void put_int(std::string& o, I v) {
  char buf[24];
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  o.append(buf, r.ptr);
}

// Strings: printable ASCII without quotes or backslashes is copied; anything else goes
// through nlohmann's own escaping (with invalid UTF-8 replaced, as the CLI prints).
inline void put_string(std::string& o, std::string_view s) {
  bool plain = true;
  for (unsigned char c : s)
    if (c < 0x20 || c >= 0x7f || c == '"' || c == '\\') {
      plain = false;
      break;
    }
  if (plain) {
    o += '"';
    o += s;
    o += '"';
    return;
  }
  o += json(std::string(s)).dump(-1, ' ', false, json::error_handler_t::replace);
}

// Containers with nlohmann's separators: pretty ("{\n<indent>\"k\": v,\n...\n}") or compact.
class writer {
 public:
  writer(std::string& o, int step) : o_(o), step_(step) {}
  std::string& o_;

  void open(char c) {
    o_ += c;
    first_.push_back(true);
  }
  void close(char c) {
    const bool empty = first_.back();
    first_.pop_back();
    if (!empty) newline();
    o_ += c;
  }
  void item() {  // before each array element
    if (!first_.back()) o_ += ',';
    first_.back() = false;
    newline();
  }
  void key(std::string_view k) {  // keys are fixed ASCII names
    item();
    o_ += '"';
    o_ += k;
    o_ += step_ >= 0 ? "\": " : "\":";
  }
  void key_escaped(std::string_view k) {  // keys from data (names, attribute names)
    item();
    put_string(o_, k);
    o_ += step_ >= 0 ? ": " : ":";
  }
  // Closes a container opened at text position `at`; an empty one becomes `null` instead
  // (what a DOM prints for a member that was declared but never filled).
  void close_or_null(char c, std::size_t at) {
    if (!first_.back()) return close(c);
    first_.pop_back();
    o_.resize(at);
    o_ += "null";
  }
  // A free-form subtree (extras, metadata): nlohmann's dump, indented to this depth.
  void value(const json& j) {
    std::string t = j.dump(step_, ' ', false, json::error_handler_t::replace);
    if (step_ < 0) {
      o_ += t;
      return;
    }
    const std::size_t pad = first_.size() * static_cast<std::size_t>(step_);
    for (char c : t) {
      o_ += c;
      if (c == '\n') o_.append(pad, ' ');
    }
  }
  // An array of floats, as open/item/put_number/close print it, built in a local chunk
  // so each number costs no string bookkeeping (these arrays are most of a dump).
  template <class A>
  void floats(const A& a) {
    if (std::begin(a) == std::end(a)) {
      o_ += "[]";
      return;
    }
    const std::size_t pad = step_ < 0 ? 0 : (first_.size() + 1) * static_cast<std::size_t>(step_);
    char chunk[chunk_size];
    if (pad + most + 8 > sizeof chunk) {  // absurd indentation: the plain way
      open('[');
      for (float f : a) {
        item();
        put_number(o_, f);
      }
      close(']');
      return;
    }
    if (!cache_) cache_.reset(new cached[std::size_t(1) << cache_bits]());
    char* p = chunk;
    *p++ = '[';
    bool first = true;
    for (float f : a) {
      p = room(chunk, p, pad + most);
      if (!first) *p++ = ',';
      first = false;
      if (step_ >= 0) {
        *p++ = '\n';
        p = spaces(p, pad);
      }
      p = put_cached(p, f);
    }
    p = room(chunk, p, pad + 24);
    if (step_ >= 0) {
      *p++ = '\n';
      p = spaces(p, pad - static_cast<std::size_t>(step_));
    }
    *p++ = ']';
    o_.append(chunk, static_cast<std::size_t>(p - chunk));
  }

  // Rows of n floats (track values) as an array of float arrays, as open, item + floats
  // per row and close print it, in one chunk.
  void float_rows(const float* v, std::size_t rows, std::size_t n) {
    const std::size_t step = step_ < 0 ? 0 : static_cast<std::size_t>(step_);
    const std::size_t pad1 = (first_.size() + 1) * step, pad2 = pad1 + step;
    char chunk[chunk_size];
    // Room for a whole row (its numbers, its brackets and their lines), checked once a row.
    const std::size_t row = n * (pad2 + most) + 2 * (pad1 + most);
    if (rows == 0 || n == 0 || n > 64 || row + 8 > sizeof chunk) {
      open('[');
      for (std::size_t r = 0; r < rows; ++r) {
        item();
        floats(std::span<const float>(v + r * n, n));
      }
      close(']');
      return;
    }
    if (!cache_) cache_.reset(new cached[std::size_t(1) << cache_bits]());
    char* p = chunk;
    *p++ = '[';
    for (std::size_t r = 0; r < rows; ++r) {
      p = room(chunk, p, row);
      if (r) *p++ = ',';
      if (step_ >= 0) {
        *p++ = '\n';
        p = spaces(p, pad1);
      }
      *p++ = '[';
      for (std::size_t i = 0; i < n; ++i) {
        if (i) *p++ = ',';
        if (step_ >= 0) {
          *p++ = '\n';
          p = spaces(p, pad2);
        }
        p = put_cached(p, v[r * n + i]);
      }
      if (step_ >= 0) {
        *p++ = '\n';
        p = spaces(p, pad1);
      }
      *p++ = ']';
    }
    p = room(chunk, p, pad1 + most);
    if (step_ >= 0) {
      *p++ = '\n';
      p = spaces(p, pad1 - step);
    }
    *p++ = ']';
    o_.append(chunk, static_cast<std::size_t>(p - chunk));
  }

 private:
  // A float's text, from the cache when this bit pattern was printed last in its slot
  // (animation arrays repeat values: zeros, frame times, held keys). 48 bytes of room.
  char* put_cached(char* p, float f) {
    std::uint32_t bits;
    std::memcpy(&bits, &f, sizeof bits);
    cached& c = cache_[(bits * 0x9E3779B1u) >> (32 - cache_bits)];
    if (c.bits == bits && c.size != 0) {
      std::memcpy(p, c.text, sizeof c.text);
      return p + c.size;
    }
    char* e = put_float(p, f);
    const std::size_t size = static_cast<std::size_t>(e - p);
    if (size <= sizeof c.text) {
      c.bits = bits;
      c.size = static_cast<std::uint32_t>(size);
      std::memcpy(c.text, p, sizeof c.text);  // fixed size: p has 48 bytes of room
    }
    return e;
  }
  static constexpr std::size_t chunk_size = 4096;
  static constexpr std::size_t most = 64;  // a comma, a newline, put_float's 48 bytes
  // The chunk's text appended to the output when fewer than `need` bytes are left after p;
  // returns where to go on writing.
  char* room(char* chunk, char* p, std::size_t need) {
    if (static_cast<std::size_t>(chunk + chunk_size - p) >= need) return p;
    o_.append(chunk, static_cast<std::size_t>(p - chunk));
    return chunk;
  }
  // n spaces at p (a fixed 16-byte copy for the usual shallow depths; 16 bytes of room).
  static char* spaces(char* p, std::size_t n) {
    if (n <= 16) std::memcpy(p, "                ", 16);
    else std::memset(p, ' ', n);
    return p + n;
  }
  void newline() {
    if (step_ < 0) return;
    o_ += '\n';
    o_.append(first_.size() * static_cast<std::size_t>(step_), ' ');
  }
  int step_;
  std::vector<bool> first_;
  // Last text of each float bit pattern per slot (size 0: empty), for floats().
  struct cached {
    std::uint32_t bits;
    std::uint32_t size;
    char text[24];
  };
  static constexpr int cache_bits = 13;  // 8,192 slots, 256 KB: 1.4 % fewer Ir on Dog than 4,096
  std::unique_ptr<cached[]> cache_;
};

}  // namespace rigrip::json_out
