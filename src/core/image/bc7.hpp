// BC7 block decoding (Debian ships no BC7 decoder; libsquish stops at BC5).
#pragma once

#include <cstddef>
#include <cstdint>

namespace rigrip::core::image {

// Decodes one 16-byte BC7 block to 4x4 RGBA8 pixels; `stride` is the byte distance
// between the output rows. Reserved mode bytes decode to transparent black, as the spec says.
void decode_bc7_block(const std::uint8_t* block, std::uint8_t* rgba, std::size_t stride);

}  // namespace rigrip::core::image
