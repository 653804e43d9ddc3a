// BC6H (BPTC float, UF16 and SF16) block decoding (Debian ships no BC6H decoder).
#pragma once

#include <cstddef>
#include <cstdint>

namespace rigrip::core::image {

// Decodes one 16-byte BC6H block to 4x4 RGB half floats (IEEE binary16 bit patterns, exactly
// as the D3D reference decoder returns them); `stride` is the number of uint16_t between output
// rows (12 for a tight 4x4 block). Reserved modes decode to zero, as the spec says.
void decode_bc6h_block_half(const std::uint8_t* block, bool is_signed, std::uint16_t* rgb,
                            std::size_t stride);

// The same as floats; `stride_floats` is the number of floats between output rows.
void decode_bc6h_block(const std::uint8_t* block, bool is_signed, float* rgb,
                       std::size_t stride_floats);

// An IEEE binary16 bit pattern as a float (subnormals and infinities included).
[[nodiscard]] float half_to_float(std::uint16_t h);

// What the 8-bit tone mapping lost: values above 1 (HDR) or below 0 (signed format).
struct hdr_clip {
  bool above_one = false;
  bool below_zero = false;
};

// The tone mapping used for PNG / glTF output: each channel clamped to [0, 1], then encoded
// with the sRGB transfer function and rounded to 8 bits; alpha 255. HDR values above 1 are
// clipped to white in the 8-bit image (reported in the result).
hdr_clip rgb_float_to_srgb8(const float* rgb, std::size_t count, std::uint8_t* rgba);

// One block straight to 4x4 sRGB-encoded RGBA8 through the tone mapping above; `stride` is
// the byte distance between output rows. Clipping is OR-ed into `clip`.
void decode_bc6h_block_rgba8(const std::uint8_t* block, bool is_signed, std::uint8_t* rgba,
                             std::size_t stride, hdr_clip& clip);

}  // namespace rigrip::core::image
