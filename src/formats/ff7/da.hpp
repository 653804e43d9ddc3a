// FF7 battle animation packs DA (xxda): the chunk layer, byte-faithful both ways.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "formats/ff7/da_bitstream.hpp"

namespace rigrip::ff7 {

constexpr double battle_fps = 15.0;  // battle animations play at 15 frames per second

struct da_chunk {
  std::uint64_t offset = 0;  // absolute offset of the 12-byte chunk header
  std::uint32_t bones_field = 0, frames_field = 0, chunk_size = 0;
  bool special = false;          // chunk_size < 11: not an animation, bytes kept verbatim
  bool no_frames_field = false;  // the RSAA quirk: mini header is sSize u16 + key u8 only
  std::uint16_t s_frames = 0, s_size = 0;
  std::uint8_t key = 0;
  std::uint64_t bits_offset = 0;  // absolute offset of the bitstream
  bytes body;                     // chunk_size bytes, verbatim
  [[nodiscard]] std::size_t header_size() const { return no_frames_field ? 3 : 5; }
  [[nodiscard]] std::span<const std::uint8_t> bitstream() const {
    return std::span<const std::uint8_t>(body).subspan(header_size(), s_size);
  }
};
struct da_pack {
  std::uint32_t count = 0;
  std::vector<da_chunk> chunks;
  bytes trailing;  // bytes after the last chunk, kept verbatim
};
[[nodiscard]] da_pack parse_da(std::span<const std::uint8_t> data);
[[nodiscard]] bytes serialise_da(const da_pack& p);
[[nodiscard]] int detect_da(std::span<const std::uint8_t> data);
// A fresh animation chunk from frames (dwBones = nrot field, padding to 4 bytes).
[[nodiscard]] da_chunk make_chunk(const std::vector<da_frame>& frames, int key, std::uint32_t bones_field,
                                  const encode_options& o = {});

}  // namespace rigrip::ff7
