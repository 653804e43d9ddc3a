// The word-based texture LZSS of the x8pc texture chunk.
#pragma once

#include "formats/sf3/key_table.hpp"

namespace rigrip::sf3 {

// Decodes until the end command; returns the output words as big-endian bytes. Fails when
// the output would exceed `max_bytes`.
[[nodiscard]] byte_vec lzss_decompress(const core::byte_reader& r, std::size_t max_bytes,
                                       std::size_t* consumed = nullptr);

}  // namespace rigrip::sf3
