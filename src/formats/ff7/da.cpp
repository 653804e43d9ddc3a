// DA animation packs: the chunk layer (byte-faithful) and fresh chunks from frames.
#include "formats/ff7/da.hpp"

#include <algorithm>

namespace rigrip::ff7 {

da_chunk make_chunk(const std::vector<da_frame>& frames, int key, std::uint32_t bones_field,
                    const encode_options& o) {
  if (frames.empty()) core::fail(code::bad_value, "an animation needs at least one frame");
  if (frames.size() > 0xFFFF) core::fail(code::limit_exceeded, "more than 65535 frames");
  auto bits = encode_bitstream(quantise(frames, key), key, o);
  if (bits.size() > max_bitstream)
    core::fail(code::limit_exceeded, "bitstream of " + std::to_string(bits.size()) + " bytes exceeds 65535");
  da_chunk c;
  c.bones_field = bones_field;
  c.frames_field = static_cast<std::uint32_t>(frames.size());
  c.s_frames = static_cast<std::uint16_t>(frames.size());
  c.s_size = static_cast<std::uint16_t>(bits.size());
  c.key = static_cast<std::uint8_t>(key);
  core::byte_writer w;
  w.u16(c.s_frames);
  w.u16(c.s_size);
  w.u8(c.key);
  w.bytes(bits);
  w.align(4);  // chunk data padded so the next header is 4-aligned (file offsets 4 + 12k + ...)
  c.body = w.take();
  c.chunk_size = static_cast<std::uint32_t>(c.body.size());
  return c;
}

da_pack parse_da(std::span<const std::uint8_t> data) {
  core::byte_reader r(data);
  da_pack p;
  p.count = r.u32();
  // Each chunk has at least its 12-byte header.
  r.checked_count(p.count, 12, "DA animation count");
  p.chunks.reserve(p.count);
  for (std::uint32_t i = 0; i < p.count; ++i) {
    da_chunk c;
    c.offset = r.abs();
    c.bones_field = r.u32();
    c.frames_field = r.u32();
    c.chunk_size = r.u32();
    if (c.chunk_size > r.remaining())
      core::fail(code::truncated, "animation " + std::to_string(i) + ": chunk of " + std::to_string(c.chunk_size) +
                                      " bytes exceeds the " + std::to_string(r.remaining()) + " bytes left",
                 c.offset + 8);
    auto body = r.sub(r.tell(), c.chunk_size);
    auto raw = r.bytes(c.chunk_size);
    c.body.assign(raw.begin(), raw.end());
    c.special = c.chunk_size < 11;
    if (!c.special) {
      std::uint16_t first = body.u16_at(0);
      std::uint8_t third = body.u8_at(2);
      // RSAA quirk: the sFrames field is missing; sSize sits at +0 and the key at +2.
      if (first == c.chunk_size - 5 && (third == 0 || third == 2 || third == 4)) {
        c.no_frames_field = true;
        c.s_size = first;
        c.key = third;
        c.s_frames = static_cast<std::uint16_t>(std::min<std::uint32_t>(c.frames_field, 0xFFFF));
      } else {
        c.s_frames = first;
        c.s_size = body.u16_at(2);
        c.key = body.u8_at(4);
      }
      c.bits_offset = c.offset + 12 + c.header_size();
      if (c.s_size > c.chunk_size - c.header_size())
        core::fail(code::bad_count, "animation " + std::to_string(i) + ": bitstream size " +
                                        std::to_string(c.s_size) + " exceeds the chunk's " +
                                        std::to_string(c.chunk_size - c.header_size()) + " bytes",
                   c.offset + 12 + (c.no_frames_field ? 0 : 2));
      if (c.key > 11)
        core::fail(code::bad_value, "animation " + std::to_string(i) + ": key " + std::to_string(c.key) +
                                        " is not 0, 2 or 4",
                   c.offset + 12 + (c.no_frames_field ? 2 : 4));
    }
    p.chunks.push_back(std::move(c));
  }
  auto rest = r.bytes(r.remaining());
  p.trailing.assign(rest.begin(), rest.end());
  return p;
}

bytes serialise_da(const da_pack& p) {
  core::byte_writer w;
  w.u32(p.count);
  for (const auto& c : p.chunks) {
    w.u32(c.bones_field);
    w.u32(c.frames_field);
    w.u32(static_cast<std::uint32_t>(c.body.size()));
    w.bytes(c.body);
  }
  w.bytes(p.trailing);
  return w.take();
}

namespace {
std::uint32_t le32(std::span<const std::uint8_t> d, std::size_t at) {
  return std::uint32_t{d[at]} | std::uint32_t{d[at + 1]} << 8 | std::uint32_t{d[at + 2]} << 16 |
         std::uint32_t{d[at + 3]} << 24;
}
std::uint16_t le16(std::span<const std::uint8_t> d, std::size_t at) {
  return static_cast<std::uint16_t>(d[at] | d[at + 1] << 8);
}
}  // namespace

// parse_da's checks as return values, then the detection rules (the registry probes every
// file; throwing and catching for each non-DA file was most of that probe).
int detect_da(std::span<const std::uint8_t> data) {
  if (data.size() < 4 + 12) return score::none;
  const std::size_t size = data.size();
  const std::uint32_t count = le32(data, 0);
  if (count > (size - 4) / 12) return score::none;  // parse_da: "DA animation count"
  if (count == 0) return score::none;
  std::size_t pos = 4;
  bool any_anim = false;
  for (std::uint32_t i = 0; i < count; ++i) {
    if (size - pos < 12) return score::none;  // chunk header truncated
    const std::uint32_t bones_field = le32(data, pos), chunk_size = le32(data, pos + 8);
    pos += 12;
    if (chunk_size > size - pos) return score::none;
    if (chunk_size >= 11) {  // an animation chunk (smaller ones are special)
      const std::uint16_t first = le16(data, pos);
      const std::uint8_t third = data[pos + 2];
      std::uint32_t s_size, key, header;
      if (first == chunk_size - 5 && (third == 0 || third == 2 || third == 4)) {  // the RSAA quirk
        s_size = first, key = third, header = 3;
      } else {
        s_size = le16(data, pos + 2), key = data[pos + 4], header = 5;
      }
      if (s_size > chunk_size - header || key > 11) return score::none;
      if (key != 0 && key != 2 && key != 4) return score::none;
      if (bones_field == 0 || bones_field > 1000) return score::none;
      any_anim = true;
    }
    pos += chunk_size;
  }
  const std::size_t trailing = size - pos;
  if (trailing > 64 || !any_anim) return score::none;
  return trailing == 0 ? score::structure + 10 : score::structure;
}

}  // namespace rigrip::ff7
