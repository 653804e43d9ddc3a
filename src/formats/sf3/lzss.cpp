// The word-based LZSS of the x8pc texture chunk (decoding only: pack keeps textures verbatim).
#include "formats/sf3/lzss.hpp"

namespace rigrip::sf3 {

using core::byte_reader;
using core::fail;

byte_vec lzss_decompress(const byte_reader& in, std::size_t max_bytes, std::size_t* consumed) {
  byte_reader r = in;
  std::vector<std::uint16_t> out;
  const std::size_t max_words = max_bytes / 2;
  out.reserve(std::min<std::size_t>(max_words, 1u << 20));
  bool done = false;
  while (!done) {
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
