// libFuzzer target for the Yaz0 decompressor on its own (BFRES's .sbfres wrapper).
// The decompressor must fail cleanly (core::failure) on any input; when it succeeds on a
// small output, compressing that output and decompressing again must give it back.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "core/failure.hpp"
#include "containers/yaz0.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::span<const std::uint8_t> in(data, size);
  std::vector<std::uint8_t> out;
  try {
    (void)rigrip::containers::is_yaz0(in);
    out = rigrip::containers::yaz0_decompress(in);
  } catch (const rigrip::core::failure& f) {
    if (f.error().message.empty()) {
      std::fprintf(stderr, "yaz0: failure without a message\n");
      std::abort();
    }
    return 0;
  }
  if (out.size() <= (64u << 10)) {
    auto again = rigrip::containers::yaz0_decompress(rigrip::containers::yaz0_compress(out));
    if (again != out) {
      std::fprintf(stderr, "yaz0: compress/decompress round trip of %zu bytes differs\n", out.size());
      std::abort();
    }
  }
  return 0;
}
