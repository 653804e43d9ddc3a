// A small synthetic x8pc model built with rigrip's own writers (no game data): two bones,
// a textured quad on bone 0, a flat-coloured triangle (degenerate quad) on bone 1, a chest
// tag, an 8x8 LZSS texture (literals plus one copy), one animation entry with an event.
#pragma once

#include <cstdint>
#include <random>
#include <vector>

#include "core/byte_reader.hpp"
#include "formats/sf3/lzss.hpp"
#include "formats/sf3/x8an.hpp"
#include "formats/sf3/x8pc.hpp"

namespace rigrip::sf3::synthetic {

// A key record with random counts (up to 11 translation and rotation keys, 3 scale keys)
// and values, frames from first_frame to first_frame + 299 (unordered): test input for the
// key-table readers.
inline key_record random_record(std::mt19937& rng, std::uint16_t first_frame) {
  key_record k;
  const std::size_t n[3] = {rng() % 12, rng() % 12, rng() % 4};
  for (std::size_t i = 0; i < n[0]; ++i) {
    k.t_frames.push_back(static_cast<std::uint16_t>(first_frame + rng() % 300));
    for (auto& c : k.t) c.push_back(static_cast<std::int32_t>(rng()));
  }
  for (std::size_t i = 0; i < n[1]; ++i) {
    k.r_frames.push_back(static_cast<std::uint16_t>(first_frame + rng() % 300));
    for (auto& c : k.r) c.push_back(static_cast<std::int16_t>(rng()));
  }
  for (std::size_t i = 0; i < n[2]; ++i) {
    k.s_frames.push_back(static_cast<std::uint16_t>(first_frame + rng() % 300));
    for (auto& c : k.s) c.push_back(static_cast<std::int32_t>(rng()));
  }
  return k;
}

// A key table of `bones` random records (frames from 0) written behind a u32 pointer to it, in
// `order`: the records, the table's offset and the file bytes.
struct table_file {
  key_table t;
  std::uint32_t table = 0;
  std::vector<std::uint8_t> b;
};
inline table_file random_table_file(std::mt19937& rng, std::size_t bones, core::endian order) {
  table_file f;
  for (std::size_t i = 0; i < bones; ++i) f.t.bones.push_back(random_record(rng, 0));
  core::byte_writer w(order);
  w.u32(0);
  f.table = write_key_table(w, 0, f.t);
  w.patch_u32(0, f.table);
  f.b = w.take();
  return f;
}

// 1-3 bytes from `from` on replaced by 0xFF (one in four), 0 (one in four of the rest, when
// `zeros`) or a random byte: counts and offsets out of range, overlaps, lost terminators.
inline void damage(std::mt19937& rng, std::vector<std::uint8_t>& b, std::size_t from, bool zeros) {
  const int flips = 1 + static_cast<int>(rng() % 3);
  for (int f = 0; f < flips; ++f) {
    const std::size_t p = from + rng() % (b.size() - from);
    b[p] = static_cast<std::uint8_t>(rng() % 4 == 0 ? 0xFF : zeros && rng() % 4 == 0 ? 0 : rng());
  }
}

inline std::vector<std::uint8_t> x8pc() {
  using core::byte_writer;
  using core::endian;
  auto fixed = [](double v) { return static_cast<std::int32_t>(v * 65536.0); };

  // Texture definitions: one 8x8 texture at CG address 0.
  byte_writer td(endian::big);
  td.u32(0x14);
  td.u32(1);
  td.u32(8 * 8 * 2);
  td.u32(0);
  td.u32(0);
  td.u16(8);
  td.u16(8);
  td.u16(0);
  td.u16((1 << 8) | 8);

  // LZSS: 16 literal words (two rows, the first with one transparent texel), then 6 copies of
  // 8 words from 16 back (len 6+2), then the end command.
  byte_writer tx(endian::big);
  tx.u16(0x0000);
  for (int i = 0; i < 8; ++i) tx.u16(i == 0 ? 0x0000 : static_cast<std::uint16_t>(0x8000 | (i * 4) | ((31 - i * 4) << 10)));
  for (int i = 0; i < 8; ++i) tx.u16(static_cast<std::uint16_t>(0x8000 | (i << 5)));  // row 2
  tx.u16(0xFE00);  // next words: 6 copies (bits 15..10), then the end command (bit 9)
  for (int i = 0; i < 6; ++i) tx.u16(static_cast<std::uint16_t>((16 << 5) | 6));
  tx.u16(0x0000);

  // Mesh chunk: header, points/polygons/attributes/normals of two parts, body list, skeleton.
  byte_writer mc(endian::big);
  mc.u32(8);
  mc.u32(0);  // skeleton offset, patched
  mc.u32(0);  // body list, patched
  mc.u32(0xFFFFFFFF);
  struct part {
    std::vector<std::array<double, 3>> pts;
    std::array<std::uint16_t, 4> v;
    std::uint16_t dir, texno, colno;
    std::uint8_t flag;
  };
  std::vector<part> parts = {
      {{{-2, -10, 0}, {2, -10, 0}, {2, -4, 0}, {-2, -4, 0}}, {0, 3, 2, 1}, 0x0002, 0, 0, 0},  // CCW about -Z
      {{{-1, -12, 0}, {1, -12, 0}, {0, -16, 0}}, {0, 1, 2, 2}, 0x0004, 0, 0x801F, 1},
  };
  std::vector<std::array<std::uint32_t, 6>> xp;
  for (const auto& p : parts) {
    std::array<std::uint32_t, 6> x{};
    x[0] = static_cast<std::uint32_t>(mc.size());
    x[1] = static_cast<std::uint32_t>(p.pts.size());
    for (const auto& q : p.pts)
      for (double c : q) mc.i32(fixed(c));
    x[2] = static_cast<std::uint32_t>(mc.size());
    x[3] = 1;
    mc.i32(0);
    mc.i32(0);
    mc.i32(fixed(-1));  // face normal toward the viewer (-Z in Saturn space)
    for (auto v : p.v) mc.u16(v);
    x[4] = static_cast<std::uint32_t>(mc.size());
    mc.u8(p.flag);
    mc.u8(0xC3);
    mc.u16(p.texno);
    mc.u16(p.dir == 2 ? 0x04AC : 0x04C4);
    mc.u16(p.colno);
    mc.u16(0);
    mc.u16(p.dir);
    x[5] = static_cast<std::uint32_t>(mc.size());
    for (std::size_t i = 0; i < p.pts.size(); ++i) {
      mc.i16(0);
      mc.i16(0);
      mc.i16(-4096);
    }
    mc.align(4);
    xp.push_back(x);
  }
  mc.patch_u32(8, static_cast<std::uint32_t>(mc.size()));
  for (const auto& x : xp)
    for (auto v : x) mc.u32(v);
  mc.u32(0xFFFFFFFF);
  mc.align(16);
  const std::size_t skel = mc.size();
  mc.patch_u32(4, static_cast<std::uint32_t>(skel));
  for (std::uint8_t b : {0xFD, 0x00, 0xFD, 0x00, 0x09}) mc.u8(b);
  while ((mc.size() - skel) % 4) mc.u8(0);
  mc.i32(fixed(0));
  mc.i32(fixed(-11));
  mc.i32(fixed(-1));
  for (std::uint8_t b : {0xFE, 0xFE, 0xFE}) mc.u8(b);
  mc.u8(0);

  // Animation chunk: bounding box, table offset, one entry (frames 0..10) with one event.
  byte_writer an(endian::big);
  for (double v : {-2.0, -16.0, -1.0, 2.0, 16.0, 1.0}) an.i32(fixed(v));
  an.u32(0);  // table offset, patched
  an.u16(0);
  an.u16(11);
  an.u16(0x00);
  an.u16(0);
  an.u32(0x1C + 12 + 4);
  an.u16(0xFFFF);
  an.u16(0);
  an.u16(5);
  an.u16(3);
  an.u16(0xFFFF);
  an.align(4);
  key_table kt;
  for (int b = 0; b < 2; ++b) {
    key_record k;
    k.t_frames = {0, 10};
    k.t = {key_vec<std::int32_t>{0, 0}, {0, b == 0 ? fixed(-1) : 0}, {0, 0}};
    k.r_frames = {0, 5, 10};
    // Bone 1 turns about the joint at y = -11 by 90 degrees (q = (0, 0, sin 45, cos 45)).
    std::int16_t s45 = static_cast<std::int16_t>(b == 1 ? 11585 : 0), c45 = static_cast<std::int16_t>(b == 1 ? 11585 : 16384);
    k.r = {key_vec<std::int16_t>{0, 0, 0}, {0, 0, 0}, {0, static_cast<std::int16_t>(b == 1 ? 6270 : 0), s45},
           {16384, static_cast<std::int16_t>(b == 1 ? 15137 : 16384), c45}};
    k.s_frames = {0};
    k.s = {key_vec<std::int32_t>{65536}, {65536}, {65536}};
    if (b == 1) {
      // Pivot compensation T = p - R p for the joint p = (0, -11, 0) (rotation about Z).
      k.t_frames = {0, 5, 10};
      k.t = {key_vec<std::int32_t>{0, fixed(-7.7781746), fixed(-11)}, {0, fixed(-3.2218254), fixed(-11)}, {0, 0, 0}};
    }
    kt.bones.push_back(k);
  }
  std::uint32_t table = write_key_table(an, 0, kt);
  an.patch_u32(0x18, table);

  // Chunk table + chunks, 0x800-aligned with 0xFF padding.
  byte_writer f(endian::big);
  std::vector<std::vector<std::uint8_t>> chunks = {td.take(), tx.take(), mc.take(), an.take()};
  std::uint32_t off = sector;
  for (const auto& c : chunks) {
    std::uint32_t size = static_cast<std::uint32_t>(c.size());
    std::uint32_t padded = (size + sector - 1) / sector * sector;
    f.u32(off);
    f.u32(size);
    f.u32(padded);
    f.u32(0);
    off += padded;
  }
  f.fill(sector - f.size(), 0);
  for (const auto& c : chunks) {
    f.bytes(c);
    f.align(sector, 0xFF);
  }
  return f.take();
}

}  // namespace rigrip::sf3::synthetic
