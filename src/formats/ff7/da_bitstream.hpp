// FF7 DA delta bitstream: rotation delta codes, frame decoding and encoding, key choice.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "core/bit_reader.hpp"
#include "core/byte_reader.hpp"
#include "rigrip/registry.hpp"

namespace rigrip::ff7 {

inline constexpr std::size_t max_bitstream = 65535;  // the u16 sSize field

using triple = std::array<std::int16_t, 3>;

// One decoded frame: the s16 accumulators exactly as the game keeps them (position Y not
// inverted; rotations in 1/4096 turns, possibly past 4095 or negative: reduce mod 4096).
struct da_frame {
  triple position{0, 0, 0};
  std::vector<triple> rotations;
  bool operator==(const da_frame&) const = default;
};

// Rotation delta codes. `delta` is in key units (the value shifted right by key).
// Shortest code: 0 -> "0"; -1 -> "1 000"; 1..63 / -64..-2 -> "1 nnn" + n bits; else raw.
void write_rotation_delta(core::bit_writer& w, int delta_units, int key, bool negatives_raw = false);
[[nodiscard]] int read_rotation_delta(core::bit_reader& r, int key);  // full units (<< key)
[[nodiscard]] int rotation_delta_bits(int delta_units, int key, bool negatives_raw = false);

struct decode_result {
  std::vector<da_frame> frames;
  bool stopped_early = false;  // the bitstream ran out before the frame count said
  std::uint64_t bits_used = 0;
};
// Decodes up to `max_frames` frames of `nrot` triples. A bitstream that ends inside
// frame 0 fails (E_TRUNCATED with the offset); one that ends later stops there.
[[nodiscard]] decode_result decode_bitstream(std::span<const std::uint8_t> bits, int key,
                                             std::size_t nrot, std::size_t max_frames,
                                             std::uint64_t base_offset);

struct encode_options {
  bool negatives_raw = false;  // reference encoder that writes every negative delta raw (size comparison)
};
// Encodes frames whose rotations are reduced mod 4096 and floored to multiples of 1 << key.
[[nodiscard]] bytes encode_bitstream(const std::vector<da_frame>& frames, int key,
                                     const encode_options& o = {});
// Quantises one frame set to `key` (rounding to nearest, mod 4096).
[[nodiscard]] std::vector<da_frame> quantise(const std::vector<da_frame>& frames, int key);
// Reduces every rotation mod 4096 (the canonical form decode(encode(x)) is compared in).
[[nodiscard]] std::vector<da_frame> canonical(const std::vector<da_frame>& frames);
// Picks key 0, 2 or 4: least quantisation error among keys whose bitstream fits 65535
// bytes, ties to the smaller output. Fails with E_LIMIT when none fits.
struct key_choice {
  int key = 0;
  bytes bits;
  std::int64_t error = 0;  // sum of |quantised - input| in 1/4096 turns
};
[[nodiscard]] key_choice choose_key(const std::vector<da_frame>& frames);

}  // namespace rigrip::ff7
