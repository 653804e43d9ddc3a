// Yaz0: Nintendo's LZ77 variant wrapping .sbfres files.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace rigrip::bfres {

[[nodiscard]] bool is_yaz0(std::span<const std::uint8_t> data);
// Decompresses; the output size comes from the header and is checked against a bound
// (at most 256x the input, at most 1 GiB) before anything is allocated. Throws core::failure.
[[nodiscard]] std::vector<std::uint8_t> yaz0_decompress(std::span<const std::uint8_t> data);
// Compresses with a hash-chain matcher (not Nintendo's exact encoder: the output differs
// byte-wise from game files but decompresses to the same payload).
[[nodiscard]] std::vector<std::uint8_t> yaz0_compress(std::span<const std::uint8_t> data,
                                                      std::uint32_t alignment = 0);

}  // namespace rigrip::bfres
