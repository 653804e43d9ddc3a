// The word-based LZSS of the x8pc texture chunk (decoding only: pack keeps textures verbatim).
#include "formats/sf3/lzss.hpp"

#include <algorithm>
#include <cstring>
#include <span>

namespace rigrip::sf3 {

using core::byte_reader;
using core::fail;

namespace {
// The decoded words, kept directly as the big-endian bytes the caller gets back, written
// through a pointer into a buffer grown geometrically (a push_back per byte and a resize
// per copy were most of the decoder's cost). The buffer keeps `slack` bytes past what any
// item writes, so a copy may move 8 bytes at a time; the bytes past size() are scratch.
class word_out {
 public:
  static constexpr std::size_t slack = 8;
  // limit_bytes: the most the caller lets it decode (checked before every item).
  word_out(std::size_t first_bytes, std::size_t limit_bytes)
      : b_(std::min(first_bytes, limit_bytes) + slack), o_(b_.data()), limit_(limit_bytes + slack) {}
  [[nodiscard]] std::size_t size() const noexcept { return n_ / 2; }
  void push(std::uint16_t w) {
    room(2);
    o_[n_] = static_cast<std::uint8_t>(w >> 8);
    o_[n_ + 1] = static_cast<std::uint8_t>(w);
    n_ += 2;
  }
  // Copies len words from back words before the end, forward, so an overlap repeats words
  // (byte by byte forward is the same as word by word). With 8 or more bytes between source
  // and destination every 8-byte block reads only bytes already written.
  void copy(std::size_t back, std::size_t len) {
    const std::size_t d = 2 * back, bytes = 2 * len;
    room(bytes);
    std::uint8_t* out = o_ + n_;
    const std::uint8_t* in = out - d;
    if (d >= 8) {
      for (std::size_t k = 0; k < bytes; k += 8) std::memcpy(out + k, in + k, 8);
    } else {
      for (std::size_t k = 0; k < bytes; ++k) out[k] = in[k];
    }
    n_ += bytes;
  }
  byte_vec take() {
    b_.resize(n_);
    return std::move(b_);
  }

 private:
  void room(std::size_t bytes) {
    // A copy's 8-byte blocks may write up to 7 bytes past its end: slack covers them.
    if (n_ + bytes + slack > b_.size()) grow(n_ + bytes + slack);
  }
  [[gnu::noinline]] void grow(std::size_t need) {
    b_.resize(std::max(need, std::min(2 * b_.size(), limit_)));
    o_ = b_.data();
  }
  byte_vec b_;
  std::uint8_t* o_;
  std::size_t limit_;
  std::size_t n_ = 0;  // bytes decoded
};

[[noreturn]] void overflow(std::size_t max_bytes, std::uint64_t at) {
  fail(code::bad_count, "texture LZSS output exceeds vram_size (" + std::to_string(max_bytes) + " bytes)", at);
}

// One item of a block (word w at file offset `at`): a literal when its control bit is clear,
// else a command, 0 = end (returns true) or a back-reference copy. Shared by the fast and the
// checked block readers so both give the same output and errors.
[[gnu::always_inline]] inline bool block_item(word_out& out, bool command, std::uint16_t w, std::uint64_t at, std::size_t max_words,
                       std::size_t max_bytes) {
  if (!command) {
    if (out.size() >= max_words) overflow(max_bytes, at);
    out.push(w);
    return false;
  }
  if (w == 0) return true;
  const std::size_t back = w >> 5, len = (w & 0x1Fu) + 2;
  if (back == 0 || back > out.size())
    fail(code::bad_value, "texture LZSS copy reaches " + std::to_string(back) + " words back, only " +
                              std::to_string(out.size()) + " decoded", at);
  if (out.size() + len > max_words) overflow(max_bytes, at);
  out.copy(back, len);
  return false;
}
}  // namespace

byte_vec lzss_decompress(const byte_reader& in, std::size_t max_bytes, std::size_t* consumed) {
  byte_reader r = in;
  const std::size_t max_words = max_bytes / 2;
  // Sized once: an item of 2 input bytes gives at most 33 words (66 bytes), so the output never
  // passes 33 times the input (nor the caller's limit), and the buffer never has to grow.
  word_out out(33 * in.remaining() + 64, 2 * max_words);
  const std::span<const std::uint8_t> data = r.data();
  const bool big = r.byte_order() == core::endian::big;
  auto word_at = [&](std::size_t p) {
    return static_cast<std::uint16_t>(big ? data[p] << 8 | data[p + 1] : data[p] | data[p + 1] << 8);
  };
  bool done = false;
  while (!done) {
    // Fast path: the control word and its 16 items (34 bytes) all lie in the data, so they
    // are read without the reader's per-word checks; the output checks stay as below.
    if (r.remaining() >= 34) {
      std::size_t p = r.tell();
      const std::uint16_t ctrl = word_at(p);
      p += 2;
      for (int bit = 15; bit >= 0; --bit) {
        const std::uint64_t at = r.base() + p;
        const std::uint16_t w = word_at(p);
        p += 2;
        if (block_item(out, (ctrl & (1u << bit)) != 0, w, at, max_words, max_bytes)) {
          done = true;
          break;
        }
      }
      r.seek(p);
      continue;
    }
    std::uint16_t ctrl = r.u16();
    for (int bit = 15; bit >= 0 && !done; --bit) {
      std::uint64_t at = r.abs();
      std::uint16_t w = r.u16();
      done = block_item(out, (ctrl & (1u << bit)) != 0, w, at, max_words, max_bytes);
    }
  }
  if (consumed) *consumed = r.tell();
  return out.take();
}

}  // namespace rigrip::sf3
