// The word-based LZSS of the x8pc texture chunk (decoding only: pack keeps textures verbatim).
#include "formats/sf3/lzss.hpp"

#include <algorithm>
#include <cstring>
#include <span>

namespace rigrip::sf3 {

using core::byte_reader;
using core::fail;

namespace {

[[noreturn]] void overflow(std::size_t max_bytes, std::uint64_t at) {
  fail(code::bad_count, "texture LZSS output exceeds vram_size (" + std::to_string(max_bytes) + " bytes)", at);
}
[[noreturn]] void reaches_before(std::size_t back, std::size_t have, std::uint64_t at) {
  fail(code::bad_value, "texture LZSS copy reaches " + std::to_string(back) + " words back, only " + std::to_string(have) +
                            " decoded", at);
}

// The decoder's output: the words as big-endian bytes in a buffer sized once. `cap` words fit
// (plus `slack` bytes of scratch, so a copy may move 8 bytes at a time); `max` is the caller's
// limit (cap <= max: cap only falls short of max where the input cannot produce more).
struct out_buf {
  static constexpr std::size_t slack = 8;
  std::uint8_t* o;
  std::size_t n = 0;  // words decoded
  std::size_t cap, max, max_bytes;

  // The checks of an item before it writes `len` words at file offset `at`.
  [[gnu::always_inline]] void need(std::size_t len, std::uint64_t at) const {
    if (n + len > cap) [[unlikely]] {
      if (n + len > max) overflow(max_bytes, at);
      fail(code::internal, "texture LZSS output passes its bound", at);
    }
  }
  // Copies len words from back words before the end, forward, so an overlap repeats words.
  [[gnu::always_inline]] void copy(std::size_t back, std::size_t len) {
    const std::size_t d = 2 * back, bytes = 2 * len;
    std::uint8_t* out = o + 2 * n;
    if (d >= 8) {
      // Every 8-byte block reads only bytes already written.
      for (std::size_t k = 0; k < bytes; k += 8) std::memcpy(out + k, out + k - d, 8);
    } else {
      // A period of d bytes (2, 4 or 6) repeats with period p = the first multiple of d from 8
      // on: the first p bytes word by word, the rest 8 bytes at a time from p back.
      const std::size_t p = d == 6 ? 12 : 8;
      std::size_t k = 0;
      for (; k < bytes && k < p; k += 2) std::memcpy(out + k, out + k - d, 2);
      for (; k < bytes; k += 8) std::memcpy(out + k, out + k - p, 8);
    }
    n += len;
  }
};

// One item (word w at file offset `at`): a literal, or a command: 0 = end (returns true), else
// a back-reference copy.
[[gnu::always_inline]] inline bool item(out_buf& out, bool command, std::uint16_t w, std::uint64_t at) {
  if (!command) {
    out.need(1, at);
    out.o[2 * out.n] = static_cast<std::uint8_t>(w >> 8);
    out.o[2 * out.n + 1] = static_cast<std::uint8_t>(w);
    ++out.n;
    return false;
  }
  if (w == 0) return true;
  const std::size_t back = w >> 5, len = (w & 0x1Fu) + 2;
  if (back == 0 || back > out.n) [[unlikely]]
    reaches_before(back, out.n, at);
  out.need(len, at);
  out.copy(back, len);
  return false;
}

// Decodes the blocks from r's position; returns the words decoded. Blocks whose control word
// and 16 items (34 bytes) lie in the data are read without the reader's per-word checks; a
// block of 16 literals is one copy of 32 bytes (the input words are the output's big-endian
// bytes as they stand, or swapped for little-endian input).
template <bool Big>
void decode_blocks(byte_reader& r, out_buf& out) {
  const std::uint8_t* data = r.data().data();
  const std::size_t size = r.data().size();
  const std::uint64_t base = r.base();
  auto word_at = [&](std::size_t p) {
    return static_cast<std::uint16_t>(Big ? data[p] << 8 | data[p + 1] : data[p] | data[p + 1] << 8);
  };
  std::size_t p = r.tell();
  while (size - p >= 34) {
    const unsigned ctrl = word_at(p);
    p += 2;
    if (ctrl == 0 && out.n + 16 <= out.cap) {
      std::uint8_t* o = out.o + 2 * out.n;
      if constexpr (Big) {
        std::memcpy(o, data + p, 32);
      } else {
        for (int k = 0; k < 32; k += 2) o[k] = data[p + k + 1], o[k + 1] = data[p + k];
      }
      out.n += 16;
      p += 32;
      continue;
    }
    for (unsigned bit = 0x8000; bit; bit >>= 1) {
      const std::uint16_t w = word_at(p);
      if (item(out, (ctrl & bit) != 0, w, base + p)) {
        r.seek(p + 2);
        return;
      }
      p += 2;
    }
  }
  r.seek(p);
  // The last blocks through the checked reader (fails at the end of the data as before).
  while (true) {
    const std::uint16_t ctrl = r.u16();
    for (int bit = 15; bit >= 0; --bit) {
      const std::uint64_t at = r.abs();
      const std::uint16_t w = r.u16();
      if (item(out, (ctrl & (1u << bit)) != 0, w, at)) return;
    }
  }
}

}  // namespace

lzss_bytes lzss_decode(const byte_reader& in, std::size_t max_bytes, std::size_t* consumed) {
  byte_reader r = in;
  const std::size_t max_words = max_bytes / 2;
  // Sized once: an item of 2 input bytes gives at most 33 words (66 bytes), so the output never
  // passes 33 times the input (nor the caller's limit). Not zero-filled: every byte below the
  // decoded length is written by the decoder.
  const std::size_t cap_words = std::min(max_words, (33 * in.remaining() + 64) / 2);
  lzss_bytes b(2 * cap_words + out_buf::slack);
  out_buf out{b.data(), 0, cap_words, max_words, max_bytes};
  if (r.byte_order() == core::endian::big) decode_blocks<true>(r, out);
  else decode_blocks<false>(r, out);
  if (consumed) *consumed = r.tell();
  b.resize(2 * out.n);
  return b;
}

byte_vec lzss_decompress(const byte_reader& in, std::size_t max_bytes, std::size_t* consumed) {
  const lzss_bytes b = lzss_decode(in, max_bytes, consumed);
  return byte_vec(b.begin(), b.end());
}

}  // namespace rigrip::sf3
