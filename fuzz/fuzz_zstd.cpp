// libFuzzer target for the zstd container (.zs): decompression must fail cleanly
// (core::failure) on any input and stay within its output bound; a small output must come
// back from our own compressor.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "containers/zstd.hpp"
#include "core/failure.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::span<const std::uint8_t> in(data, size);
  std::vector<std::uint8_t> out;
  try {
    (void)rigrip::containers::zstd_dictionary_id(in);
    out = rigrip::containers::zstd_decompress(in);
  } catch (const rigrip::core::failure& f) {
    if (f.error().message.empty()) {
      std::fprintf(stderr, "zstd: failure without a message\n");
      std::abort();
    }
    return 0;
  }
  if (out.size() > 1024 * size + 65536) {
    std::fprintf(stderr, "zstd: %zu bytes out of %zu is over the bound\n", out.size(), size);
    std::abort();
  }
  if (out.size() <= (64u << 10) && rigrip::containers::zstd_decompress(rigrip::containers::zstd_compress(out, 0, 1)) != out) {
    std::fprintf(stderr, "zstd: compress/decompress round trip of %zu bytes differs\n", out.size());
    std::abort();
  }
  return 0;
}
