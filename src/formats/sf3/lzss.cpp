// The word-based LZSS of the x8pc texture chunk (decoding only: pack keeps textures verbatim).
#include "formats/sf3/lzss.hpp"

#include <span>

namespace rigrip::sf3 {

using core::byte_reader;
using core::fail;

namespace {
// The decoded words, kept directly as the big-endian bytes the caller gets back (no word
// vector and no conversion pass at the end).
class word_out {
 public:
  explicit word_out(std::size_t reserve_words) { b_.reserve(2 * reserve_words); }
  [[nodiscard]] std::size_t size() const noexcept { return b_.size() / 2; }
  void push(std::uint16_t w) {
    b_.push_back(static_cast<std::uint8_t>(w >> 8));
    b_.push_back(static_cast<std::uint8_t>(w));
  }
  // Copies len words from back words before the end, forward, so an overlap repeats words
  // (byte by byte forward is the same as word by word).
  void copy(std::size_t back, std::size_t len) {
    const std::size_t n0 = b_.size(), d = 2 * back;
    b_.resize(n0 + 2 * len);
    std::uint8_t* o = b_.data();
    for (std::size_t k = n0; k < n0 + 2 * len; ++k) o[k] = o[k - d];
  }
  byte_vec take() { return std::move(b_); }

 private:
  byte_vec b_;
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
  word_out out(std::min<std::size_t>(max_words, 1u << 20));
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
