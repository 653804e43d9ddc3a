// The word-based LZSS of the x8pc texture chunk (decoding only: pack keeps textures verbatim).
#include "formats/sf3/lzss.hpp"

#include <span>

namespace rigrip::sf3 {

using core::byte_reader;
using core::fail;

byte_vec lzss_decompress(const byte_reader& in, std::size_t max_bytes, std::size_t* consumed) {
  byte_reader r = in;
  std::vector<std::uint16_t> out;
  const std::size_t max_words = max_bytes / 2;
  out.reserve(std::min<std::size_t>(max_words, 1u << 20));
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
        if (!(ctrl & (1u << bit))) {
          if (out.size() >= max_words)
            fail(code::bad_count, "texture LZSS output exceeds vram_size (" + std::to_string(max_bytes) + " bytes)", at);
          out.push_back(w);
          continue;
        }
        if (w == 0) {
          done = true;
          break;
        }
        const std::size_t back = w >> 5, len = (w & 0x1Fu) + 2;
        if (back == 0 || back > out.size())
          fail(code::bad_value, "texture LZSS copy reaches " + std::to_string(back) + " words back, only " +
                                    std::to_string(out.size()) + " decoded", at);
        if (out.size() + len > max_words)
          fail(code::bad_count, "texture LZSS output exceeds vram_size (" + std::to_string(max_bytes) + " bytes)", at);
        const std::size_t n0 = out.size();
        out.resize(n0 + len);
        std::uint16_t* o = out.data();
        for (std::size_t k = n0; k < n0 + len; ++k) o[k] = o[k - back];  // forward: overlapping copies repeat
      }
      r.seek(p);
      continue;
    }
    std::uint16_t ctrl = r.u16();
    for (int bit = 15; bit >= 0 && !done; --bit) {
      std::uint64_t at = r.abs();
      std::uint16_t w = r.u16();
      if (!(ctrl & (1u << bit))) {
        if (out.size() >= max_words)
          fail(code::bad_count, "texture LZSS output exceeds vram_size (" + std::to_string(max_bytes) + " bytes)", at);
        out.push_back(w);
        continue;
      }
      if (w == 0) {
        done = true;
        break;
      }
      std::size_t back = w >> 5, len = (w & 0x1Fu) + 2;
      if (back == 0 || back > out.size())
        fail(code::bad_value, "texture LZSS copy reaches " + std::to_string(back) + " words back, only " +
                                  std::to_string(out.size()) + " decoded", at);
      if (out.size() + len > max_words)
        fail(code::bad_count, "texture LZSS output exceeds vram_size (" + std::to_string(max_bytes) + " bytes)", at);
      for (std::size_t k = 0; k < len; ++k) out.push_back(out[out.size() - back]);
    }
  }
  if (consumed) *consumed = r.tell();
  byte_vec bytes(out.size() * 2);
  for (std::size_t i = 0; i < out.size(); ++i) {
    bytes[2 * i] = static_cast<std::uint8_t>(out[i] >> 8);
    bytes[2 * i + 1] = static_cast<std::uint8_t>(out[i]);
  }
  return bytes;
}

}  // namespace rigrip::sf3
