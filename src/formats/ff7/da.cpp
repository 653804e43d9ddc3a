// DA animation packs: the chunk layer (byte-faithful) and the delta bitstream codec.
#include <algorithm>
#include <bit>
#include <cstdlib>

#include "formats/ff7/ff7.hpp"

namespace rigrip::ff7 {
namespace {
constexpr std::size_t max_bitstream = 65535;

// Bits of the 1-6-bit forms: positive deltas 1..63 use bit_width(d) bits, negative
// deltas -64..-2 use bit_width(-d - 1) bits (Qhimm's "magnitude" encoding). 0 = none.
int small_form_bits(int d) {
  if (d >= 1 && d <= 63) return std::bit_width(static_cast<unsigned>(d));
  if (d <= -2 && d >= -64) return std::bit_width(static_cast<unsigned>(-d - 1));
  return 0;
}

// Reduces a delta in key units to the signed range the raw form can hold.
int wrap_units(int d, int key) {
  const int full = 1 << (12 - key), half = full / 2;
  d %= full;
  if (d < -half) d += full;
  if (d >= half) d -= full;
  return d;
}

int mod4096(int v) { return ((v % 4096) + 4096) % 4096; }
}  // namespace

int rotation_delta_bits(int d, int key, bool negatives_raw) {
  if (d == 0) return 1;
  if (negatives_raw && d < 0) return 4 + 12 - key;
  if (d == -1) return 4;
  if (int n = small_form_bits(d)) return 4 + n;
  return 4 + 12 - key;
}

void write_rotation_delta(core::bit_writer& w, int d, int key, bool negatives_raw) {
  if (d == 0) {
    w.write(0, 1);
    return;
  }
  w.write(1, 1);
  if (!(negatives_raw && d < 0)) {
    if (d == -1) {
      w.write(0, 3);
      return;
    }
    if (int n = small_form_bits(d)) {
      // Subtract the signed magnitude; the remainder fits n signed bits.
      int v = d > 0 ? d - (1 << (n - 1)) : d + (1 << (n - 1));
      w.write(static_cast<std::uint32_t>(n), 3);
      w.write_signed(v, static_cast<unsigned>(n));
      return;
    }
  }
  w.write(7, 3);
  w.write_signed(d, static_cast<unsigned>(12 - key));
}

int read_rotation_delta(core::bit_reader& r, int key) {
  if (!r.bit()) return 0;
  unsigned type = r.read(3);
  if (type == 0) return -1 * (1 << key);
  if (type == 7) return r.read_signed(static_cast<unsigned>(12 - key)) * (1 << key);
  int v = r.read_signed(type);
  v += v < 0 ? -(1 << (type - 1)) : (1 << (type - 1));
  return v * (1 << key);
}

decode_result decode_bitstream(std::span<const std::uint8_t> bits, int key, std::size_t nrot,
                               std::size_t max_frames, std::uint64_t base) {
  if (key < 0 || key > 11)
    core::fail(code::bad_value, "key " + std::to_string(key) + " is not a rotation precision (0, 2 or 4)", base);
  decode_result out;
  core::bit_reader r(bits, core::bit_order::msb_first, base);
  // Every frame costs at least 48 (first) or 24 + 3 * nrot bits, so the loop is bounded
  // by the bitstream length as well as by the frame count.
  da_frame cur;
  cur.rotations.assign(nrot, triple{0, 0, 0});
  for (std::size_t f = 0; f < max_frames; ++f) {
    std::uint64_t frame_start = r.bit_pos();
    try {
      da_frame next = cur;
      if (f == 0) {
        for (auto& p : next.position) p = static_cast<std::int16_t>(r.read_signed(16));
        for (auto& t : next.rotations)
          for (auto& c : t)
            c = static_cast<std::int16_t>(r.read_signed(static_cast<unsigned>(12 - key)) * (1 << key));
      } else {
        for (auto& p : next.position) {
          int d = r.bit() ? r.read_signed(16) : r.read_signed(7);
          p = static_cast<std::int16_t>(p + d);  // s16 wrap, as the game adds shorts
        }
        for (auto& t : next.rotations)
          for (auto& c : t) c = static_cast<std::int16_t>(c + read_rotation_delta(r, key));
      }
      cur = std::move(next);
      out.frames.push_back(cur);
    } catch (const core::failure& e) {
      if (e.error().code != code::truncated || f == 0) throw;
      r.seek_bit(frame_start);
      out.stopped_early = true;
      break;
    }
  }
  out.bits_used = r.bit_pos();
  return out;
}

std::vector<da_frame> canonical(const std::vector<da_frame>& frames) {
  auto out = frames;
  for (auto& f : out)
    for (auto& t : f.rotations)
      for (auto& c : t) c = static_cast<std::int16_t>(mod4096(c));
  return out;
}

std::vector<da_frame> quantise(const std::vector<da_frame>& frames, int key) {
  auto out = canonical(frames);
  if (key == 0) return out;
  const int half = 1 << (key - 1);
  for (auto& f : out)
    for (auto& t : f.rotations)
      for (auto& c : t) c = static_cast<std::int16_t>(mod4096(((c + half) >> key) << key));
  return out;
}

bytes encode_bitstream(const std::vector<da_frame>& frames, int key, const encode_options& o) {
  if (key < 0 || key > 11) core::fail(code::bad_value, "key must be 0, 2 or 4");
  core::bit_writer w(core::bit_order::msb_first);
  const da_frame* prev = nullptr;
  for (const auto& f : frames) {
    if (prev && prev->rotations.size() != f.rotations.size())
      core::fail(code::bad_value, "frames disagree on the number of rotation triples");
    if (!prev) {
      for (auto p : f.position) w.write_signed(p, 16);
      for (const auto& t : f.rotations)
        for (auto c : t) w.write_signed(mod4096(c) >> key, static_cast<unsigned>(12 - key));
    } else {
      for (int a = 0; a < 3; ++a) {
        auto d = static_cast<std::int16_t>(f.position[a] - prev->position[a]);
        if (d >= -64 && d <= 63) {
          w.write(0, 1);
          w.write_signed(d, 7);
        } else {
          w.write(1, 1);
          w.write_signed(d, 16);
        }
      }
      for (std::size_t k = 0; k < f.rotations.size(); ++k)
        for (int a = 0; a < 3; ++a) {
          int d = (mod4096(f.rotations[k][a]) >> key) - (mod4096(prev->rotations[k][a]) >> key);
          write_rotation_delta(w, wrap_units(d, key), key, o.negatives_raw);
        }
    }
    prev = &f;
  }
  return w.take();
}

key_choice choose_key(const std::vector<da_frame>& frames) {
  std::optional<key_choice> best;
  auto input = canonical(frames);
  for (int key : {0, 2, 4}) {
    auto q = quantise(input, key);
    std::int64_t err = 0;
    for (std::size_t i = 0; i < q.size(); ++i)
      for (std::size_t k = 0; k < q[i].rotations.size(); ++k)
        for (int a = 0; a < 3; ++a) {
          int d = std::abs(q[i].rotations[k][a] - input[i].rotations[k][a]);
          err += std::min(d, 4096 - d);
        }
    auto bits = encode_bitstream(q, key);
    if (bits.size() > max_bitstream) continue;
    if (!best || err < best->error || (err == best->error && bits.size() < best->bits.size()))
      best = key_choice{key, std::move(bits), err};
  }
  if (!best)
    core::fail(code::limit_exceeded, "animation of " + std::to_string(frames.size()) +
                                         " frames does not fit the 65535-byte bitstream limit even at key 4");
  return *best;
}

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

int detect_da(std::span<const std::uint8_t> data) {
  try {
    if (data.size() < 4 + 12) return score::none;
    auto p = parse_da(data);
    if (p.count == 0 || p.trailing.size() > 64) return score::none;
    bool any_anim = false;
    for (const auto& c : p.chunks) {
      if (c.special) continue;
      if (c.key != 0 && c.key != 2 && c.key != 4) return score::none;
      if (c.bones_field == 0 || c.bones_field > 1000) return score::none;
      any_anim = true;
    }
    if (!any_anim) return score::none;
    return p.trailing.empty() ? score::structure + 10 : score::structure;
  } catch (...) {
    return score::none;
  }
}

}  // namespace rigrip::ff7
