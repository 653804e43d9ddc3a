// JSON text written without a DOM, laid out as nlohmann::json::dump prints it (its number
// spelling, separators and indentation), for the scene-JSON writer and the glTF writer.
#pragma once

#include <charconv>
#include <cmath>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace rigrip::json_out {
using nlohmann::json;

// nlohmann's layout of a number given its shortest digits: value = digits * 10^(n - k).
// Mirrors nlohmann::detail::dtoa_impl::format_buffer (min_exp -4, max_exp 15).
inline void lay_out(std::string& o, bool negative, std::string_view digits, int n) {
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

// The shortest round-trip text of a float or double (std::to_chars, which picks fixed or
// scientific form: the same text the DOM path parsed, so the same value), re-laid out as
// nlohmann prints a double.
template <class F>
inline void put_number(std::string& o, F v) {
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
  // Fast path: a fixed spelling with a point and at most 15 digits before it is already
  // nlohmann's layout (shortest digits, no exponent for -4 < exponent <= 15).
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
  int n = point + exp10;  // value = 0.digits * 10^n
  int first = 0;
  while (first < k - 1 && digits[first] == '0') ++first, --n;
  while (k - first > 1 && digits[k - 1] == '0') --k;
  lay_out(o, negative, std::string_view(digits + first, static_cast<std::size_t>(k - first)), n);
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
  template <class A>
  void floats(const A& a) {
    open('[');
    for (float f : a) {
      item();
      put_number(o_, f);
    }
    close(']');
  }

 private:
  void newline() {
    if (step_ < 0) return;
    o_ += '\n';
    o_.append(first_.size() * static_cast<std::size_t>(step_), ' ');
  }
  int step_;
  std::vector<bool> first_;
};

}  // namespace rigrip::json_out
