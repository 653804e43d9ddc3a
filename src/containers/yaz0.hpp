// Yaz0: Nintendo's LZ77 variant (.sbfres, .szs, .sbactorpack ...): one compressed stream.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace rigrip::containers {

[[nodiscard]] bool is_yaz0(std::span<const std::uint8_t> data);
// Decompresses; the output size comes from the header and is checked against a bound
// (at most 256x the input, at most 1 GiB) before anything is allocated. Throws core::failure.
[[nodiscard]] std::vector<std::uint8_t> yaz0_decompress(std::span<const std::uint8_t> data);
// Compresses: greedy longest match with one-step lookahead, close to Nintendo's encoder (see
// yaz0.cpp); the output decompresses to the same payload but is not byte-identical to game files.
[[nodiscard]] std::vector<std::uint8_t> yaz0_compress(std::span<const std::uint8_t> data,
                                                      std::uint32_t alignment = 0);

}  // namespace rigrip::containers
