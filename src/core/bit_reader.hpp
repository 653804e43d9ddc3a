// Bounds-checked bit streams. FF7's DA packs bits most-significant first; other
// formats pack least-significant first. A read past the end fails with E_TRUNCATED,
// so a truncated bitstream can never loop forever.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "core/failure.hpp"

namespace rigrip::core {

enum class bit_order { msb_first, lsb_first };

class bit_reader {
 public:
  bit_reader(std::span<const std::uint8_t> data, bit_order order, std::uint64_t base = 0)
      : data_(data), order_(order), base_(base) {}

  [[nodiscard]] std::uint64_t bit_pos() const noexcept { return pos_; }
  [[nodiscard]] std::uint64_t bits_left() const noexcept { return data_.size() * 8 - pos_; }
  [[nodiscard]] std::uint64_t byte_offset() const noexcept { return base_ + pos_ / 8; }
  void seek_bit(std::uint64_t p) {
    if (p > data_.size() * 8) fail(code::bad_offset, "bit seek past the end", base_ + p / 8);
    pos_ = p;
  }

  // Reads n (0..32) bits as an unsigned value.
  std::uint32_t read(unsigned n) {
    if (n > 32) fail(code::internal, "bit read wider than 32");
    if (n > bits_left())
      fail(code::truncated, "bitstream ends: need " + std::to_string(n) + " bits, " +
                                std::to_string(bits_left()) + " left", byte_offset());
    // Fast path: the n bits lie in the 4 bytes from pos_ / 8 (n <= 25 covers any bit
    // offset); one word instead of a loop per bit (the FF7 DA decode reads every field so).
    if (n > 0 && n <= 25 && pos_ / 8 + 4 <= data_.size()) {
      const std::uint8_t* p = data_.data() + static_cast<std::size_t>(pos_ / 8);
      const unsigned sh = static_cast<unsigned>(pos_ % 8);
      std::uint32_t v;
      if (order_ == bit_order::msb_first) {
        const std::uint32_t w = std::uint32_t{p[0]} << 24 | std::uint32_t{p[1]} << 16 | std::uint32_t{p[2]} << 8 | p[3];
        v = (w << sh) >> (32 - n);
      } else {
        const std::uint32_t w = std::uint32_t{p[3]} << 24 | std::uint32_t{p[2]} << 16 | std::uint32_t{p[1]} << 8 | p[0];
        v = (w >> sh) & ((1u << n) - 1);
      }
      pos_ += n;
      return v;
    }
    std::uint32_t v = 0;
    for (unsigned i = 0; i < n; ++i) {
      std::uint64_t p = pos_ + i;
      std::uint8_t byte = data_[static_cast<std::size_t>(p / 8)];
      unsigned bit = order_ == bit_order::msb_first ? (byte >> (7 - p % 8)) & 1u : (byte >> (p % 8)) & 1u;
      if (order_ == bit_order::msb_first)
        v = (v << 1) | bit;
      else
        v |= bit << i;
    }
    pos_ += n;
    return v;
  }
  // Reads n bits and sign-extends them (two's complement).
  std::int32_t read_signed(unsigned n) {
    std::uint32_t v = read(n);
    if (n == 0) return 0;
    if (n < 32 && (v & (1u << (n - 1)))) v |= ~((1u << n) - 1);
    return static_cast<std::int32_t>(v);
  }
  bool bit() { return read(1) != 0; }

 private:
  std::span<const std::uint8_t> data_;
  bit_order order_;
  std::uint64_t base_;
  std::uint64_t pos_ = 0;
};

class bit_writer {
 public:
  explicit bit_writer(bit_order order) : order_(order) {}
  void write(std::uint32_t v, unsigned n) {
    for (unsigned i = 0; i < n; ++i) {
      unsigned bit = order_ == bit_order::msb_first ? (v >> (n - 1 - i)) & 1u : (v >> i) & 1u;
      if (pos_ % 8 == 0) buf_.push_back(0);
      if (bit) {
        if (order_ == bit_order::msb_first)
          buf_.back() |= static_cast<std::uint8_t>(0x80u >> (pos_ % 8));
        else
          buf_.back() |= static_cast<std::uint8_t>(1u << (pos_ % 8));
      }
      ++pos_;
    }
  }
  void write_signed(std::int32_t v, unsigned n) {
    write(static_cast<std::uint32_t>(v) & (n >= 32 ? 0xFFFFFFFFu : ((1u << n) - 1)), n);
  }
  [[nodiscard]] std::uint64_t bit_pos() const noexcept { return pos_; }
  [[nodiscard]] const std::vector<std::uint8_t>& bytes() const noexcept { return buf_; }
  [[nodiscard]] std::vector<std::uint8_t> take() { return std::move(buf_); }

 private:
  bit_order order_;
  std::vector<std::uint8_t> buf_;
  std::uint64_t pos_ = 0;
};

}  // namespace rigrip::core
