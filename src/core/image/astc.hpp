// ASTC (Adaptive Scalable Texture Compression) decoding through Arm's astcenc library
// (Debian's libastcenc-dev): Switch games since Tears of the Kingdom store most textures as ASTC.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace rigrip::core::image {

// Decodes a whole ASTC image: `blocks` holds the 16-byte blocks of a `width` x `height` image
// in raster order (ceil(width / block_w) per row), 2D footprints only. Returns width x height
// RGBA8 pixels. `srgb`: the sRGB colour profile (the format's variant), whose 8-bit results are
// the stored sRGB values. Throws core::failure (E_BAD_VALUE) for a footprint ASTC does not
// have, too few bytes, or a library error; error blocks decode to the library's magenta.
[[nodiscard]] std::vector<std::uint8_t> decode_astc(std::span<const std::uint8_t> blocks,
                                                    std::uint32_t width, std::uint32_t height,
                                                    std::uint32_t block_w, std::uint32_t block_h,
                                                    bool srgb);

// True for the 2D block footprints the ASTC specification defines (4x4 ... 12x12).
[[nodiscard]] bool is_astc_footprint(std::uint32_t block_w, std::uint32_t block_h);

}  // namespace rigrip::core::image
