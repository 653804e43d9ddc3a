// DA delta bitstream codec: rotation delta codes, frame decoding/encoding, quantisation, key choice.
#include "formats/ff7/da_bitstream.hpp"

#include <algorithm>
#include <bit>
#include <cstdlib>
#include <cstring>
#include <optional>

namespace rigrip::ff7 {
namespace {
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

namespace {
// Reads MSB-first fields with no bounds check of its own: the caller has made sure the
// whole frame plus an 8-byte load window lies inside the data (one big-endian load per field).
class unchecked_msb_reader {
 public:
  unchecked_msb_reader(const std::uint8_t* data, std::uint64_t pos) : data_(data), pos_(pos) {}
  [[nodiscard]] std::uint64_t bit_pos() const noexcept { return pos_; }
  // The next 32 bits, most significant first (needs 8 readable bytes from pos_ / 8).
  [[nodiscard]] std::uint32_t peek32() const noexcept {
    std::uint64_t w;
    std::memcpy(&w, data_ + pos_ / 8, sizeof w);
    if constexpr (std::endian::native == std::endian::little) w = __builtin_bswap64(w);
    return static_cast<std::uint32_t>((w << (pos_ % 8)) >> 32);
  }
  void skip(unsigned n) noexcept { pos_ += n; }
  // n (1..16) bits from the top of `w`, sign-extended.
  static std::int32_t top_signed(std::uint32_t w, unsigned n) noexcept {
    return static_cast<std::int32_t>(w) >> (32 - n);
  }
  // read_rotation_delta's codes from one 32-bit window (a code is at most 16 bits).
  int rotation_delta(int key) noexcept {
    const std::uint32_t w = peek32();
    if (!(w >> 31)) {
      pos_ += 1;
      return 0;
    }
    const unsigned type = (w >> 28) & 7u;
    if (type == 0) {
      pos_ += 4;
      return -1 * (1 << key);
    }
    if (type == 7) {
      const auto n = static_cast<unsigned>(12 - key);
      pos_ += 4 + n;
      return top_signed(w << 4, n) * (1 << key);
    }
    int v = top_signed(w << 4, type);
    pos_ += 4 + type;
    v += v < 0 ? -(1 << (type - 1)) : (1 << (type - 1));
    return v * (1 << key);
  }
  int position_delta() noexcept {
    const std::uint32_t w = peek32();
    const unsigned n = (w >> 31) ? 16u : 7u;
    pos_ += 1 + n;
    return top_signed(w << 1, n);
  }

 private:
  const std::uint8_t* data_;
  std::uint64_t pos_;
};
}  // namespace

decode_result decode_bitstream(std::span<const std::uint8_t> bits, int key, std::size_t nrot,
                               std::size_t max_frames, std::uint64_t base) {
  if (key < 0 || key > 11)
    core::fail(code::bad_value, "key " + std::to_string(key) + " is not a rotation precision (0, 2 or 4)", base);
  decode_result out;
  core::bit_reader r(bits, core::bit_order::msb_first, base);
  // Every frame costs at least 48 (first) or 24 + 3 * nrot bits, so the loop is bounded
  // by the bitstream length as well as by the frame count.
  const std::uint64_t total_bits = static_cast<std::uint64_t>(bits.size()) * 8;
  {
    const std::uint64_t min_frame = 24 + 3 * static_cast<std::uint64_t>(nrot);
    out.frames.reserve(static_cast<std::size_t>(std::min<std::uint64_t>(max_frames, total_bits / min_frame + 1)));
  }
  // The longest later frame: three 17-bit position deltas and the longest rotation codes
  // (raw, or the 6-bit form when the key is large). A frame that starts with that many bits
  // (plus the 8-byte load window) left cannot run out, so it is read unchecked; the frames
  // nearer the end go through the checked reader, which stops or fails as before.
  const std::uint64_t longest_code = 4 + static_cast<std::uint64_t>(std::max(6, 12 - key));
  const std::uint64_t max_frame = 3 * 17 + 3 * static_cast<std::uint64_t>(nrot) * longest_code;
  const std::uint64_t unchecked_limit = total_bits >= max_frame + 64 ? total_bits - max_frame - 64 : 0;
  da_frame cur;
  cur.rotations.assign(nrot, triple{0, 0, 0});
  for (std::size_t f = 0; f < max_frames; ++f) {
    std::uint64_t frame_start = r.bit_pos();
    if (f > 0 && frame_start <= unchecked_limit && total_bits >= max_frame + 64) {
      da_frame& next = out.frames.emplace_back(out.frames.back());
      unchecked_msb_reader u(bits.data(), frame_start);
      for (auto& p : next.position) p = static_cast<std::int16_t>(p + u.position_delta());  // s16 wrap
      for (auto& t : next.rotations)
        for (auto& c : t) c = static_cast<std::int16_t>(c + u.rotation_delta(key));
      r.seek_bit(u.bit_pos());
      continue;
    }
    try {
      da_frame next = f == 0 ? cur : out.frames.back();
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
      out.frames.push_back(std::move(next));
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

}  // namespace rigrip::ff7
