// A tiny, independent BNTX writer for hand-built test vectors, laid out from the public
// notes (EPD BntxLibrary docs/Structure.md, BNTX-Extractor): header, NX section, memory
// pool, texture pointers, _STR, _DIC, BRTI blocks, BRTD with block-linear images, _RLT.
// Mip block heights follow the readers' running-shift formulation (not our reader's
// per-level rule), so the two are checked against each other. Also wraps a BNTX as the
// embedded file of a minimal Switch FRES (the shape of a BotW `X.Tex.sbfres`).
#pragma once

#include <array>
#include <cstdint>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "formats/bfres/tegra.hpp"

namespace bntx_test {

struct le {
  std::vector<std::uint8_t> b;
  std::map<std::string, std::size_t> labels;
  std::vector<std::pair<std::size_t, std::string>> fixups;
  void u8(std::uint8_t v) { b.push_back(v); }
  void u16(std::uint16_t v) { u8(std::uint8_t(v)), u8(std::uint8_t(v >> 8)); }
  void u32(std::uint32_t v) { u16(std::uint16_t(v)), u16(std::uint16_t(v >> 16)); }
  void u64(std::uint64_t v) { u32(std::uint32_t(v)), u32(std::uint32_t(v >> 32)); }
  void raw(const std::string& s) { b.insert(b.end(), s.begin(), s.end()); }
  void ptr(const std::string& label) {
    if (!label.empty()) fixups.push_back({b.size(), label});
    u64(0);
  }
  void mark(const std::string& l) { labels[l] = b.size(); }
  void align(std::size_t a) {
    while (b.size() % a) u8(0);
  }
  void pad(std::size_t n) { b.insert(b.end(), n, 0); }
  void put32(std::size_t at, std::uint32_t v) { std::memcpy(b.data() + at, &v, 4); }
  void put16(std::size_t at, std::uint16_t v) { std::memcpy(b.data() + at, &v, 2); }
  void str(const std::string& l, const std::string& s) {  // u16 length, chars, NUL, align 2
    align(2);
    mark(l);
    u16(std::uint16_t(s.size()));
    raw(s);
    u8(0);
  }
  void finish() {
    for (auto& [at, l] : fixups) {
      const std::uint64_t v = labels.at(l);
      std::memcpy(b.data() + at, &v, 8);
    }
  }
};

struct tex {
  std::string name;
  std::uint32_t format = 0x0b01;
  std::uint32_t width = 0, height = 0;
  std::uint32_t bytes = 4;  // per element
  bool block = false;       // 4x4 blocks
  std::uint32_t block_w = 4, block_h = 4;  // the footprint of a block format (ASTC: 4x4 ... 12x12)
  std::uint32_t block_height_log2 = 0;
  std::array<std::uint8_t, 4> channels{2, 3, 4, 5};
  std::uint32_t array_count = 1;
  std::uint8_t image_dim = 1;
  std::uint16_t tile_mode = 0;  // 1: linear rows, pitch aligned to 32 bytes
  // Linear element rows per mip level (level k: max(1, width >> k) x ..., in elements).
  std::vector<std::vector<std::uint8_t>> levels;
};

inline std::uint32_t div_up(std::uint32_t a, std::uint32_t b) {
  return (a + b - 1) / b;
}
inline std::uint32_t pow2_up(std::uint32_t v) {
  std::uint32_t p = 1;
  while (p < v) p <<= 1;
  return p;
}

// The swizzled bytes of every level, each starting 512-aligned; offsets per level.
inline std::vector<std::uint8_t> swizzle_levels(const tex& t, std::vector<std::uint32_t>& offsets) {
  std::vector<std::uint8_t> out;
  const std::uint32_t bw = t.block ? t.block_w : 1, bh = t.block ? t.block_h : 1;
  const std::int32_t lines = (1 << t.block_height_log2) * 8;
  std::int32_t shift = 0;
  for (std::uint32_t k = 0; k < t.levels.size(); ++k) {
    const std::uint32_t w = std::max(1u, t.width >> k), h = std::max(1u, t.height >> k);
    const std::uint32_t ew = div_up(w, bw), eh = div_up(h, bh);
    // The readers' running shift; a single level keeps its block height (as yuzu does).
    if (t.levels.size() > 1 && std::int32_t(pow2_up(eh)) < lines) ++shift;
    const std::int32_t log2 = std::max(0, std::int32_t(t.block_height_log2) - shift);
    while (out.size() % 512) out.push_back(0);
    offsets.push_back(std::uint32_t(out.size()));
    if (t.tile_mode == 1) {
      const std::size_t row = std::size_t{ew} * t.bytes, pitch = (row + 31) / 32 * 32;
      for (std::uint32_t y = 0; y < eh; ++y) {
        out.insert(out.end(), t.levels[k].begin() + std::ptrdiff_t(y * row),
                   t.levels[k].begin() + std::ptrdiff_t((y + 1) * row));
        out.insert(out.end(), pitch - row, 0xEE);  // padding the reader must skip
      }
      continue;
    }
    const auto s = rigrip::bfres::tegra::swizzle(t.levels[k], ew, eh, t.bytes, 1u << log2);
    out.insert(out.end(), s.begin(), s.end());
  }
  return out;
}

inline std::vector<std::uint8_t> build(const std::vector<tex>& texs,
                                       const std::string& file_name = "tex") {
  le w;
  const auto n = std::uint32_t(texs.size());
  w.raw(std::string("BNTX\0\0\0\0", 8));
  w.u32(0x00040000);  // 4.0.0
  w.u8(0xFF), w.u8(0xFE), w.u8(12), w.u8(64);
  w.u32(0), w.u16(0), w.u16(0), w.u32(0),
      w.u32(0);  // name, flags, first block, reloc, size: patched
  w.raw("NX  "), w.u32(n);
  w.ptr("infos"), w.ptr("brtd"), w.ptr("dict"), w.ptr("pool"), w.u64(0), w.u32(0), w.u32(0);
  w.mark("pool");
  w.pad(0x140);
  w.mark("infos");
  for (std::uint32_t i = 0; i < n; ++i) w.ptr("brti" + std::to_string(i));
  w.align(8);
  w.mark("str");
  w.raw("_STR"), w.u32(0), w.u32(0), w.u32(0), w.u32(n + 1);
  w.str("s:", "");
  w.str("s:file", file_name);
  for (std::uint32_t i = 0; i < n; ++i) w.str("s:t" + std::to_string(i), texs[i].name);
  w.align(8);
  const std::size_t str_end = w.b.size();
  w.mark("dict");
  w.raw("_DIC"), w.u32(n);
  w.u32(0xFFFFFFFF), w.u16(1), w.u16(0), w.ptr("s:");
  for (std::uint32_t i = 0; i < n; ++i)
    w.u32(i), w.u16(std::uint16_t(i)), w.u16(std::uint16_t(i + 1)),
        w.ptr("s:t" + std::to_string(i));
  // Image data first (so the BRTIs can point at it), placed after them below.
  std::vector<std::vector<std::uint32_t>> offsets(n);
  std::vector<std::vector<std::uint8_t>> datas;
  for (std::uint32_t i = 0; i < n; ++i) datas.push_back(swizzle_levels(texs[i], offsets[i]));
  for (std::uint32_t i = 0; i < n; ++i) {
    const tex& t = texs[i];
    w.align(8);
    const std::size_t at = w.b.size();
    w.mark("brti" + std::to_string(i));
    w.raw("BRTI"), w.u32(0), w.u32(0x2A0 + 8 * std::uint32_t(t.levels.size())), w.u32(0);
    w.u8(0x01), w.u8(2), w.u16(t.tile_mode), w.u16(0), w.u16(std::uint16_t(t.levels.size()));
    w.u32(1), w.u32(t.format), w.u32(0x20);
    w.u32(t.width), w.u32(t.height), w.u32(1), w.u32(t.array_count), w.u32(t.block_height_log2),
        w.u32(0x10007);
    w.pad(20);
    w.u32(std::uint32_t(datas[i].size())), w.u32(512);
    for (auto c : t.channels) w.u8(c);
    w.u8(t.image_dim), w.u8(0), w.u8(0), w.u8(0);
    w.ptr("s:t" + std::to_string(i)), w.ptr("nx"), w.ptr("mips" + std::to_string(i)), w.u64(0);
    w.ptr("region" + std::to_string(i)), w.ptr("view" + std::to_string(i)), w.u64(0), w.u64(0);
    w.mark("region" + std::to_string(i));
    w.pad(0x100);
    w.mark("view" + std::to_string(i));
    w.pad(0x100);
    w.mark("mips" + std::to_string(i));
    for (std::size_t k = 0; k < t.levels.size(); ++k)
      w.ptr("data" + std::to_string(i) + "." + std::to_string(k));
    (void)at;
  }
  w.labels["nx"] = 0x20;
  w.align(0x200);
  w.mark("brtd");
  const std::size_t brtd = w.b.size();
  w.raw("BRTD"), w.u32(0), w.u32(0), w.u32(0);
  for (std::uint32_t i = 0; i < n; ++i) {
    w.align(0x200);
    const std::size_t base = w.b.size();
    for (std::size_t k = 0; k < offsets[i].size(); ++k)
      w.labels["data" + std::to_string(i) + "." + std::to_string(k)] = base + offsets[i][k];
    w.b.insert(w.b.end(), datas[i].begin(), datas[i].end());
  }
  const std::size_t brtd_end = w.b.size();
  w.align(8);
  w.mark("rlt");
  const std::size_t rlt = w.b.size();
  w.raw("_RLT"), w.u32(std::uint32_t(rlt)), w.u32(2), w.u32(0);
  w.u64(0), w.u32(0), w.u32(std::uint32_t(brtd)), w.u32(0), w.u32(2);
  w.u64(0), w.u32(std::uint32_t(brtd)), w.u32(std::uint32_t(brtd_end - brtd)), w.u32(2), w.u32(1);
  w.u32(0x28), w.u16(2), w.u8(1), w.u8(1);  // NX pointers
  w.u32(0x38), w.u16(1), w.u8(1), w.u8(0);
  w.u32(0), w.u16(1), w.u8(1), w.u8(0);
  w.finish();
  w.put32(0x10, std::uint32_t(w.labels["s:file"] + 2));
  w.put16(0x16, std::uint16_t(w.labels["str"]));
  w.put32(0x18, std::uint32_t(rlt));
  w.put32(0x1C, std::uint32_t(w.b.size()));
  w.put32(w.labels["str"] + 8, std::uint32_t(str_end - w.labels["str"]));
  w.put32(brtd + 8, std::uint32_t(brtd_end - brtd));
  return w.b;
}

// A Switch FRES 0.5.0.3 holding `embedded` as its one embedded file `file_name` (a texture
// file: no models, no animations).
inline std::vector<std::uint8_t> switch_fres_with(const std::vector<std::uint8_t>& embedded,
                                                  const std::string& file_name = "textures.bntx",
                                                  const std::string& fres_name = "Tex") {
  le w;
  w.raw("FRES    ");
  w.u32(0x00050003);
  w.u8(0xFF), w.u8(0xFE), w.u8(12), w.u8(0);
  w.u32(0), w.u16(0), w.u16(0xD0), w.u32(0), w.u32(0);
  w.ptr("s:file");
  for (std::uint32_t at = 0x28; at <= 0xB0; at += 8)
    w.ptr(at == 0x98 ? "ext" : at == 0xA0 ? "extdict" : at == 0xB0 ? "s:" : "");
  w.u32(0);
  for (int i = 0; i < 7; ++i) w.u16(i == 6 ? 1 : 0);
  while (w.b.size() < 0xD0) w.u8(0);
  w.mark("ext");
  w.ptr("bntx"), w.u64(embedded.size());
  w.mark("extdict");
  w.u32(0), w.u32(1);
  // A one-entry Switch dictionary is a Patricia tree: the entry branches off the empty root
  // key at the name's lowest set bit, bits counted from the end of the name (readers search
  // by name). Its 0 side leads back to the root, its 1 side to itself.
  std::uint32_t ref_bit = 0;
  for (std::size_t i = 0; i < file_name.size() * 8; ++i)
    if ((std::uint8_t(file_name[file_name.size() - 1 - i / 8]) >> (i % 8)) & 1) {
      ref_bit = std::uint32_t(i);
      break;
    }
  w.u32(0xFFFFFFFF), w.u16(1), w.u16(0), w.ptr("s:");
  w.u32(ref_bit), w.u16(0), w.u16(1), w.ptr("s:ext");
  w.str("s:", "");
  w.str("s:file", fres_name);
  w.str("s:ext", file_name);
  w.align(0x1000);
  w.mark("bntx");
  w.b.insert(w.b.end(), embedded.begin(), embedded.end());
  w.align(8);
  w.finish();
  w.put32(0x10, std::uint32_t(w.labels["s:file"] + 2));
  w.put32(0x1C, std::uint32_t(w.b.size()));
  return w.b;
}

}  // namespace bntx_test
