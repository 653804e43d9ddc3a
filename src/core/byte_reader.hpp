// Bounds-checked byte reading. Every read checks the remaining length first and
// fails with E_TRUNCATED naming the absolute file offset; counts are checked
// against the bytes actually available before anything is allocated.
#pragma once

#include <bit>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <vector>

#include "core/failure.hpp"

namespace rigrip::core {

enum class endian { little, big };

class byte_reader {
 public:
  byte_reader() = default;
  // `base` is the absolute file offset of data[0], so sub-readers report true offsets.
  explicit byte_reader(std::span<const std::uint8_t> data, endian e = endian::little,
                       std::uint64_t base = 0)
      : data_(data), endian_(e), base_(base) {}

  [[nodiscard]] std::size_t size() const noexcept { return data_.size(); }
  [[nodiscard]] std::size_t tell() const noexcept { return pos_; }
  [[nodiscard]] std::uint64_t abs() const noexcept { return base_ + pos_; }  // absolute offset
  [[nodiscard]] std::uint64_t base() const noexcept { return base_; }
  [[nodiscard]] std::size_t remaining() const noexcept { return data_.size() - pos_; }
  [[nodiscard]] bool eof() const noexcept { return pos_ >= data_.size(); }
  [[nodiscard]] endian byte_order() const noexcept { return endian_; }
  void set_byte_order(endian e) noexcept { endian_ = e; }
  [[nodiscard]] std::span<const std::uint8_t> data() const noexcept { return data_; }

  void seek(std::uint64_t pos) {
    if (pos > data_.size())
      fail(code::bad_offset, "seek to " + hex(base_ + pos) + " past the end (" +
                                 hex(base_ + data_.size()) + ")", base_ + pos_);
    pos_ = static_cast<std::size_t>(pos);
  }
  void skip(std::uint64_t n) { need(n, "skip"); pos_ += static_cast<std::size_t>(n); }
  void align(std::size_t a) {
    std::size_t r = pos_ % a;
    if (r) skip(a - r);
  }

  std::uint8_t u8() { need(1, "u8"); return data_[pos_++]; }
  std::int8_t i8() { return static_cast<std::int8_t>(u8()); }
  std::uint16_t u16() { return static_cast<std::uint16_t>(read_uint(2)); }
  std::int16_t i16() { return static_cast<std::int16_t>(u16()); }
  std::uint32_t u32() { return static_cast<std::uint32_t>(read_uint(4)); }
  std::int32_t i32() { return static_cast<std::int32_t>(u32()); }
  std::uint64_t u64() { return read_uint(8); }
  std::int64_t i64() { return static_cast<std::int64_t>(u64()); }
  float f32() { return std::bit_cast<float>(u32()); }
  double f64() { return std::bit_cast<double>(u64()); }

  // Reads at an absolute position of this reader without moving it.
  std::uint8_t u8_at(std::uint64_t pos) const { return peek(pos).u8(); }
  std::uint16_t u16_at(std::uint64_t pos) const { return peek(pos).u16(); }
  std::uint32_t u32_at(std::uint64_t pos) const { return peek(pos).u32(); }
  std::uint64_t u64_at(std::uint64_t pos) const { return peek(pos).u64(); }
  float f32_at(std::uint64_t pos) const { return peek(pos).f32(); }

  std::span<const std::uint8_t> bytes(std::uint64_t n) {
    need(n, "bytes");
    auto s = data_.subspan(pos_, static_cast<std::size_t>(n));
    pos_ += static_cast<std::size_t>(n);
    return s;
  }
  std::string fixed_string(std::size_t n) {  // NULs trimmed at the end
    auto b = bytes(n);
    std::string s(b.begin(), b.end());
    auto z = s.find('\0');
    if (z != std::string::npos) s.resize(z);
    return s;
  }
  std::string cstring(std::size_t max_len = 4096) {  // NUL-terminated
    std::size_t start = pos_;
    while (true) {
      if (pos_ >= data_.size())
        fail(code::truncated, "string not terminated before end of data", base_ + start);
      if (data_[pos_] == 0) break;
      if (pos_ - start >= max_len) fail(code::bad_value, "string longer than limit", base_ + start);
      ++pos_;
    }
    std::string s(data_.begin() + static_cast<std::ptrdiff_t>(start),
                  data_.begin() + static_cast<std::ptrdiff_t>(pos_));
    ++pos_;
    return s;
  }
  std::string cstring_at(std::uint64_t pos, std::size_t max_len = 4096) const {
    auto r = peek(pos);
    return r.cstring(max_len);
  }

  // A reader over [pos, pos + len) of this one, with absolute offsets preserved.
  [[nodiscard]] byte_reader sub(std::uint64_t pos, std::uint64_t len) const {
    if (pos > data_.size() || len > data_.size() - pos)
      fail(code::bad_offset, "range " + hex(base_ + pos) + "+" + std::to_string(len) +
                                 " outside the data (" + hex(base_ + data_.size()) + ")",
           base_ + pos);
    return byte_reader(data_.subspan(static_cast<std::size_t>(pos), static_cast<std::size_t>(len)),
                       endian_, base_ + pos);
  }
  [[nodiscard]] byte_reader peek(std::uint64_t pos) const {
    byte_reader r = *this;
    r.seek(pos);
    return r;
  }

  // Checks that `count` elements of `elem_size` bytes can still be present at the
  // current position (or at `at`), before anything is allocated for them.
  std::size_t checked_count(std::uint64_t count, std::uint64_t elem_size, const char* what) const {
    return checked_count_at(pos_, count, elem_size, what);
  }
  std::size_t checked_count_at(std::uint64_t at, std::uint64_t count, std::uint64_t elem_size,
                               const char* what) const {
    std::uint64_t avail = at <= data_.size() ? data_.size() - at : 0;
    if (elem_size == 0) elem_size = 1;
    if (count > avail / elem_size)
      fail(code::bad_count, std::string(what) + ": count " + std::to_string(count) + " x " +
                                std::to_string(elem_size) + " bytes exceeds the " +
                                std::to_string(avail) + " bytes available",
           base_ + pos_);
    return static_cast<std::size_t>(count);
  }

  [[noreturn]] void error(code c, const std::string& message) const { fail(c, message, abs()); }
  void expect(bool cond, code c, const char* message) const {
    if (!cond) fail(c, message, abs());
  }

  static std::string hex(std::uint64_t v) {
    char buf[24];
    std::snprintf(buf, sizeof buf, "0x%llX", static_cast<unsigned long long>(v));
    return buf;
  }

 private:
  void need(std::uint64_t n, const char* what) const {
    if (n > data_.size() - pos_)
      fail(code::truncated, std::string("need ") + std::to_string(n) + " bytes (" + what +
                                "), only " + std::to_string(data_.size() - pos_) + " left",
           base_ + pos_);
  }
  std::uint64_t read_uint(int n) {
    need(static_cast<std::uint64_t>(n), "integer");
    std::uint64_t v = 0;
    const std::uint8_t* p = data_.data() + pos_;
    if (endian_ == endian::little) {
      for (int i = n - 1; i >= 0; --i) v = (v << 8) | p[i];
    } else {
      for (int i = 0; i < n; ++i) v = (v << 8) | p[i];
    }
    pos_ += static_cast<std::size_t>(n);
    return v;
  }

  std::span<const std::uint8_t> data_;
  std::size_t pos_ = 0;
  endian endian_ = endian::little;
  std::uint64_t base_ = 0;
};

// Growable byte output with patching, for raw-layer writers and encoders.
class byte_writer {
 public:
  explicit byte_writer(endian e = endian::little) : endian_(e) {}
  [[nodiscard]] std::size_t size() const noexcept { return buf_.size(); }
  [[nodiscard]] std::vector<std::uint8_t>& buffer() noexcept { return buf_; }
  [[nodiscard]] std::vector<std::uint8_t> take() { return std::move(buf_); }
  void set_byte_order(endian e) noexcept { endian_ = e; }

  void u8(std::uint8_t v) { buf_.push_back(v); }
  void i8(std::int8_t v) { u8(static_cast<std::uint8_t>(v)); }
  void u16(std::uint16_t v) { put(v, 2); }
  void i16(std::int16_t v) { u16(static_cast<std::uint16_t>(v)); }
  void u32(std::uint32_t v) { put(v, 4); }
  void i32(std::int32_t v) { u32(static_cast<std::uint32_t>(v)); }
  void u64(std::uint64_t v) { put(v, 8); }
  void f32(float v) { u32(std::bit_cast<std::uint32_t>(v)); }
  void f64(double v) { u64(std::bit_cast<std::uint64_t>(v)); }
  void bytes(std::span<const std::uint8_t> b) { buf_.insert(buf_.end(), b.begin(), b.end()); }
  void string(std::string_view s, bool nul = true) {
    buf_.insert(buf_.end(), s.begin(), s.end());
    if (nul) buf_.push_back(0);
  }
  void fill(std::size_t n, std::uint8_t v = 0) { buf_.insert(buf_.end(), n, v); }
  void align(std::size_t a, std::uint8_t v = 0) {
    while (buf_.size() % a) buf_.push_back(v);
  }
  void patch_u16(std::size_t at, std::uint16_t v) { patch(at, v, 2); }
  void patch_u32(std::size_t at, std::uint32_t v) { patch(at, v, 4); }
  void patch_u64(std::size_t at, std::uint64_t v) { patch(at, v, 8); }

 private:
  void put(std::uint64_t v, int n) {
    for (int i = 0; i < n; ++i) {
      int shift = endian_ == endian::little ? 8 * i : 8 * (n - 1 - i);
      buf_.push_back(static_cast<std::uint8_t>(v >> shift));
    }
  }
  void patch(std::size_t at, std::uint64_t v, int n) {
    if (at + static_cast<std::size_t>(n) > buf_.size())
      fail(code::internal, "patch outside the written buffer");
    for (int i = 0; i < n; ++i) {
      int shift = endian_ == endian::little ? 8 * i : 8 * (n - 1 - i);
      buf_[at + static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(v >> shift);
    }
  }
  std::vector<std::uint8_t> buf_;
  endian endian_;
};

}  // namespace rigrip::core
