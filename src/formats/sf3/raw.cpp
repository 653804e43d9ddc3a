// Raw layer of the SF3 battle-mesh files: parse and write back byte for byte.
#include "formats/sf3/raw.hpp"

#include <algorithm>

namespace rigrip::sf3 {
namespace {

using core::byte_reader;
using core::byte_writer;
using core::endian;
using core::fail;

std::string hex(std::uint64_t v) { return byte_reader::hex(v); }

constexpr std::uint32_t align_up(std::uint32_t v, std::uint32_t a) { return (v + a - 1) / a * a; }

// Hard limits that no real file comes near; they keep hostile input cheap.
constexpr std::size_t max_extra_chunks = (sector - 0x40) / 16;
constexpr std::uint32_t max_vram = 4u << 20;

chunk_entry read_entry(byte_reader& r) {
  chunk_entry e;
  e.offset = r.u32();
  e.data_size = r.u32();
  e.chunk_size = r.u32();
  e.reserved = r.u32();
  return e;
}

bool entry_sane(const chunk_entry& e, std::uint64_t limit) {
  return e.offset >= sector && e.offset % sector == 0 && e.data_size <= e.chunk_size &&
         e.chunk_size % sector == 0 && e.chunk_size - e.data_size < sector &&
         static_cast<std::uint64_t>(e.offset) + e.chunk_size <= limit;
}

void parse_texdefs(model_raw& m, const byte_reader& r) {
  byte_reader t = r;
  std::uint32_t header_size = t.u32();
  std::uint32_t count = t.u32();
  m.vram_size = t.u32();
  if (header_size < 0x14)
    fail(code::bad_value, "texture definitions: header size " + std::to_string(header_size) +
                              " is smaller than the 0x14-byte header", t.base());
  if (m.vram_size > max_vram)
    fail(code::bad_count, "texture definitions: vram_size " + std::to_string(m.vram_size) +
                              " exceeds the 4 MiB limit", t.base() + 8);
  t.seek(header_size);
  std::size_t n = t.checked_count(count, 8, "texture definitions");
  m.textures.resize(n);
  for (auto& d : m.textures) {
    d.width = t.u16();
    d.height = t.u16();
    d.cg_address = t.u16();
    d.hv_size = t.u16();
  }
}

void parse_anim(model_raw& m, const byte_reader& r) {
  anim_chunk& a = m.anim;
  byte_reader c = r;
  for (auto& v : a.bbox) v = c.i32();
  std::uint32_t table = c.u32();
  // Definitions: 12 bytes each, the list ends with a u16 0xFFFF.
  std::size_t max_defs = c.remaining() / 12 + 1;
  while (true) {
    if (c.u16_at(c.tell()) == 0xFFFF) break;
    if (a.defs.size() >= max_defs) fail(code::bad_count, "animation definitions never end", c.abs());
    anim_def d;
    d.start = c.u16();
    d.count = c.u16();
    d.id = c.u16();
    d.distance = c.u16();
    d.events_offset = c.u32();
    a.defs.push_back(d);
  }
  if (a.defs.size() > 256)
    fail(code::limit_exceeded, "animation chunk lists " + std::to_string(a.defs.size()) + " animations (limit 256)", c.base() + 0x1C);
  std::size_t total_events = 0;
  for (std::size_t i = 0; i < a.defs.size(); ++i) {
    auto& d = a.defs[i];
    byte_reader e = c.peek(d.events_offset);
    std::size_t guard = e.remaining() / 4 + 1;
    while (e.u16_at(e.tell()) != 0xFFFF) {
      if (d.events.size() >= guard)
        fail(code::bad_count, "event list of animation " + std::to_string(i) + " never ends", e.abs());
      if (++total_events > c.size() / 2 + 1024)
        fail(code::limit_exceeded, "event lists overlap beyond the chunk size", e.abs());
      anim_event ev;
      ev.frame = e.u16();
      ev.code = e.u16();
      d.events.push_back(ev);
    }
  }
  if (table > c.size() || table < 0x1C)
    fail(code::bad_offset, "animation chunk: keyframe table offset " + hex(table) + " outside the " +
                               std::to_string(c.size()) + "-byte chunk", c.base() + 0x18);
  // The key data starts where the first record's first array is; everything before it
  // (definitions, event lists) is the verbatim prefix.
  std::uint32_t data_start = table;
  if (c.size() - table >= 4 && c.u32_at(table) != end_marker) data_start = c.peek(table + 12).u32();
  if (data_start > table || data_start < 0x1C)
    fail(code::bad_offset, "animation chunk: key data offset " + hex(data_start) +
                               " is not between the definitions and the table at " + hex(table),
         c.base() + table + 12);
  a.keys = parse_key_table(c, table, data_start);
  auto all = c.data();
  a.prefix.assign(all.begin(), all.begin() + data_start);
  a.trailer.assign(all.begin() + std::min<std::size_t>(a.keys.end, all.size()), all.end());
  a.original.assign(all.begin(), all.end());
}

}  // namespace

key_table parse_key_table(const byte_reader& r, std::uint32_t table_offset, std::uint32_t data_start,
                          work_budget* budget) {
  key_table t;
  work_budget local{2 * static_cast<std::uint64_t>(r.size()) + 4096};
  if (!budget) budget = &local;
  if (table_offset > r.size())
    fail(code::bad_offset, "keyframe table offset " + hex(table_offset) + " past the end (" +
                               std::to_string(r.size()) + " bytes)", r.base());
  std::size_t max_bones = r.checked_count_at(table_offset, (r.size() - table_offset) / 64, 64, "keyframe table");
  std::uint32_t pos = data_start;  // where the canonical layout puts the next array
  std::uint32_t at = table_offset;
  while (true) {
    if (r.u32_at(at) == end_marker) break;
    if (t.bones.size() >= max_bones)
      fail(code::truncated, "keyframe table at " + hex(r.base() + table_offset) + " has no 0xFFFFFFFF end marker",
           r.base() + at);
    byte_reader rec = r.peek(at);
    std::uint32_t n[3];
    for (auto& v : n) v = rec.u32();
    std::uint32_t off[13];
    for (auto& v : off) v = rec.u32();
    const std::size_t bone = t.bones.size();
    key_record k;
    auto expect = [&](int i, std::uint32_t bytes) {
      if (off[i] != pos) t.canonical = false;
      pos = off[i] + bytes;
    };
    auto count = [&](std::uint32_t c, std::uint32_t elem, int field) {
      std::size_t n = r.checked_count_at(off[field], c, elem, ("keyframes of bone " + std::to_string(bone)).c_str());
      budget->spend(std::uint64_t{n} * elem, r.base() + at, "keyframe table");
      return n;
    };
    // off[0..2] frame arrays T R S, off[3..5] Tx Ty Tz, off[6..9] Rx Ry Rz Rw, off[10..12] Sx Sy Sz.
    std::vector<std::uint16_t>* frames[3] = {&k.t_frames, &k.r_frames, &k.s_frames};
    for (int c = 0; c < 3; ++c) {
      std::size_t cnt = count(n[c], 2, c);
      frames[c]->resize(cnt);
      if (cnt) {
        byte_reader a = r.peek(off[c]);
        for (auto& f : *frames[c]) f = a.u16();
      }
      expect(c, n[c] * 2);
    }
    auto pad_zero = [&]() {
      std::uint32_t aligned = align_up(pos, 4);
      for (std::uint32_t p = pos; p < aligned && p < r.size(); ++p)
        if (r.u8_at(p) != 0) t.canonical = false;
      pos = aligned;
    };
    pad_zero();
    for (int c = 0; c < 3; ++c) {
      std::size_t cnt = count(n[0], 4, 3 + c);
      k.t[c].resize(cnt);
      if (cnt) {
        byte_reader a = r.peek(off[3 + c]);
        for (auto& v : k.t[c]) v = a.i32();
      }
      expect(3 + c, n[0] * 4);
    }
    for (int c = 0; c < 4; ++c) {
      std::size_t cnt = count(n[1], 2, 6 + c);
      k.r[c].resize(cnt);
      if (cnt) {
        byte_reader a = r.peek(off[6 + c]);
        for (auto& v : k.r[c]) v = a.i16();
      }
      expect(6 + c, n[1] * 2);
    }
    pad_zero();
    for (int c = 0; c < 3; ++c) {
      std::size_t cnt = count(n[2], 4, 10 + c);
      k.s[c].resize(cnt);
      if (cnt) {
        byte_reader a = r.peek(off[10 + c]);
        for (auto& v : k.s[c]) v = a.i32();
      }
      expect(10 + c, n[2] * 4);
    }
    t.bones.push_back(std::move(k));
    at += 64;
  }
  if (pos != table_offset) t.canonical = false;
  t.end = at + 4;
  return t;
}

bool looks_like_chunk_table(byte_span file, std::uint64_t at) {
  if (at > file.size() || file.size() - at < sector) return false;
  byte_reader r(file.subspan(static_cast<std::size_t>(at)), endian::big);
  std::uint64_t limit = file.size() - at;
  std::uint32_t prev_end = sector;
  for (int i = 0; i < 4; ++i) {
    chunk_entry e = read_entry(r);
    if (!entry_sane(e, limit) || e.offset < prev_end || e.reserved != 0) return false;
    if (i == 0 && e.offset != sector) return false;
    prev_end = e.offset + e.chunk_size;
    // Chunk padding is 0xFF in every real file.
    if (e.data_size < e.chunk_size && file[static_cast<std::size_t>(at + e.offset + e.data_size)] != 0xFF) return false;
  }
  return true;
}

bool looks_like_x8an(byte_span file) {
  if (file.size() < 4 + 64 + 4) return false;
  byte_reader r(file, endian::big);
  std::uint32_t table = r.u32_at(0);
  if (table < 4 || table % 2 || table > file.size() - 4 || file.size() - table < 68) return false;
  std::uint32_t n[3], off[13];
  for (int i = 0; i < 3; ++i) n[i] = r.u32_at(table + 4 * i);
  for (int i = 0; i < 13; ++i) off[i] = r.u32_at(table + 12 + 4 * i);
  if (off[0] != 4) return false;
  if (n[0] > 0xFFFF || n[1] > 0xFFFF || n[2] > 0xFFFF) return false;
  return off[1] == 4 + 2 * n[0] && off[2] == off[1] + 2 * n[1] && off[12] <= table;
}

model_raw parse_model(byte_span file, std::uint64_t base, std::uint32_t slot_size) {
  model_raw m;
  m.base = base;
  m.slot_size = slot_size;
  if (base > file.size() || file.size() - base < slot_size)
    fail(code::truncated, "model slot " + hex(base) + "+" + hex(slot_size) + " past the end of the file", base);
  byte_reader r(file.subspan(static_cast<std::size_t>(base), slot_size), endian::big, base);
  if (r.size() < sector)
    fail(code::truncated, "model header needs 0x800 bytes, only " + std::to_string(r.size()) + " left", base);
  for (int i = 0; i < 4; ++i) m.entries.push_back(read_entry(r));
  // Scenario 2/3: more entries follow until 0xFFFFFFFF; scenario 1 has zeros here.
  if (r.u32_at(r.tell()) != 0) {
    while (true) {
      if (r.tell() + 4 > sector)
        fail(code::bad_count, "extra chunk list has no 0xFFFFFFFF end marker within the 0x800-byte header", r.abs());
      if (r.u32_at(r.tell()) == end_marker) {
        r.skip(4);
        m.extra_terminated = true;
        break;
      }
      if (m.entries.size() - 4 >= max_extra_chunks || r.tell() + 16 > sector)
        fail(code::bad_count, "extra chunk list has no 0xFFFFFFFF end marker within the 0x800-byte header", r.abs());
      m.entries.push_back(read_entry(r));
    }
  }
  auto all = r.data();
  m.header_rest.assign(all.begin() + static_cast<std::ptrdiff_t>(r.tell()), all.begin() + sector);
  std::uint32_t prev_end = sector;
  for (std::size_t i = 0; i < m.entries.size(); ++i) {
    const auto& e = m.entries[i];
    std::uint64_t at = base + 16 * i;
    if (e.offset % sector || e.chunk_size % sector || e.data_size > e.chunk_size)
      fail(code::bad_value, "chunk " + std::to_string(i) + " {offset " + hex(e.offset) + ", data " + hex(e.data_size) +
                                ", size " + hex(e.chunk_size) + "} breaks the 0x800 alignment rules", at);
    if (e.offset < prev_end)
      fail(code::bad_offset, "chunk " + std::to_string(i) + " at " + hex(e.offset) + " overlaps the previous chunk ending at " +
                                 hex(prev_end), at);
    if (static_cast<std::uint64_t>(e.offset) + e.chunk_size > slot_size)
      fail(code::bad_offset, "chunk " + std::to_string(i) + " " + hex(e.offset) + "+" + hex(e.chunk_size) +
                                 " extends past the model's " + hex(slot_size) + " bytes", at);
    m.gap_before.emplace_back(all.begin() + prev_end, all.begin() + e.offset);
    m.data.emplace_back(all.begin() + e.offset, all.begin() + e.offset + e.data_size);
    m.padding.emplace_back(all.begin() + e.offset + e.data_size, all.begin() + e.offset + e.chunk_size);
    prev_end = e.offset + e.chunk_size;
  }
  m.tail.assign(all.begin() + prev_end, all.end());
  parse_texdefs(m, r.sub(m.entries[0].offset, m.entries[0].data_size));
  parse_anim(m, r.sub(m.entries[3].offset, m.entries[3].data_size));
  return m;
}

x8pc_file parse_x8pc(byte_span file) {
  x8pc_file f;
  byte_reader r(file, endian::big);
  if (file.size() < sector)
    fail(code::truncated, "x8pc needs a 0x800-byte chunk table, the file has " + std::to_string(file.size()) + " bytes", 0);
  if (r.u32_at(0) != sector)
    fail(code::bad_value, "x8pc chunk table: first chunk offset " + hex(r.u32_at(0)) + ", expected 0x800", 0);
  // The first model's extent, then the smallest 0x800-multiple stride that divides the file
  // and puts a valid chunk table at every slot (containers X8PCnnX).
  std::uint64_t end = sector;
  for (int i = 0; i < 4; ++i) {
    std::uint64_t o = r.u32_at(16 * i), cs = r.u32_at(16 * i + 8);
    end = std::max(end, o + cs);
  }
  if (end > file.size())
    fail(code::truncated, "x8pc chunks end at " + hex(end) + ", past the end of the " + std::to_string(file.size()) +
                              "-byte file", 0);
  std::uint64_t stride = file.size();
  for (std::uint64_t s = align_up(static_cast<std::uint32_t>(end), sector); s < file.size(); s += sector) {
    if (file.size() % s) continue;
    bool ok = true;
    for (std::uint64_t at = s; at < file.size() && ok; at += s) ok = looks_like_chunk_table(file, at);
    if (ok) {
      stride = s;
      break;
    }
  }
  if (stride > 0xFFFFFFFFu) fail(code::limit_exceeded, "x8pc larger than 4 GiB", 0);
  f.stride = static_cast<std::uint32_t>(stride);
  for (std::uint64_t at = 0; at < file.size(); at += stride)
    f.models.push_back(parse_model(file, at, f.stride));
  return f;
}

x8an_file parse_x8an(byte_span file) {
  x8an_file f;
  byte_reader r(file, endian::big);
  std::uint64_t off = 0;
  work_budget budget{2 * static_cast<std::uint64_t>(file.size()) + 4096};
  while (off < file.size()) {
    x8an_segment s;
    s.offset = off;
    byte_reader seg = r.sub(off, file.size() - off);
    std::uint32_t table = seg.u32_at(0);
    if (table < 4)
      fail(code::bad_offset, "x8an segment at " + hex(off) + ": table offset " + hex(table) + " inside the segment header", off);
    s.keys = parse_key_table(seg, table, 4, &budget);
    std::uint64_t end = off + s.keys.end;
    auto d = seg.data();
    s.original.assign(d.begin(), d.begin() + s.keys.end);
    std::uint64_t next = (end + sector - 1) / sector * sector;
    std::uint64_t pad_end = std::min<std::uint64_t>(next, file.size());
    s.padding.assign(file.begin() + static_cast<std::ptrdiff_t>(end), file.begin() + static_cast<std::ptrdiff_t>(pad_end));
    f.segments.push_back(std::move(s));
    off = next;
  }
  if (f.segments.empty()) fail(code::truncated, "x8an file is empty", 0);
  return f;
}

byte_vec lzss_decompress(const byte_reader& in, std::size_t max_bytes, std::size_t* consumed) {
  byte_reader r = in;
  std::vector<std::uint16_t> out;
  const std::size_t max_words = max_bytes / 2;
  out.reserve(std::min<std::size_t>(max_words, 1u << 20));
  bool done = false;
  while (!done) {
    std::uint16_t ctrl = r.u16();
    for (int bit = 15; bit >= 0 && !done; --bit) {
      std::uint64_t at = r.abs();
      std::uint16_t w = r.u16();
      if (!(ctrl & (1u << bit))) {
        if (out.size() >= max_words)
          fail(code::bad_count, "texture LZSS output exceeds vram_size (" + std::to_string(max_bytes) + " bytes)", at);
        out.push_back(w);
        continue;
      }
      if (w == 0) {
        done = true;
        break;
      }
      std::size_t back = w >> 5, len = (w & 0x1Fu) + 2;
      if (back == 0 || back > out.size())
        fail(code::bad_value, "texture LZSS copy reaches " + std::to_string(back) + " words back, only " +
                                  std::to_string(out.size()) + " decoded", at);
      if (out.size() + len > max_words)
        fail(code::bad_count, "texture LZSS output exceeds vram_size (" + std::to_string(max_bytes) + " bytes)", at);
      for (std::size_t k = 0; k < len; ++k) out.push_back(out[out.size() - back]);
    }
  }
  if (consumed) *consumed = r.tell();
  byte_vec bytes(out.size() * 2);
  for (std::size_t i = 0; i < out.size(); ++i) {
    bytes[2 * i] = static_cast<std::uint8_t>(out[i] >> 8);
    bytes[2 * i + 1] = static_cast<std::uint8_t>(out[i]);
  }
  return bytes;
}

std::uint32_t write_key_table(byte_writer& w, std::size_t origin, const key_table& t) {
  auto rel = [&]() { return static_cast<std::uint32_t>(w.size() - origin); };
  auto pad4 = [&]() {
    while (rel() % 4) w.u8(0);
  };
  std::vector<std::array<std::uint32_t, 16>> records;
  for (std::size_t b = 0; b < t.bones.size(); ++b) {
    const auto& k = t.bones[b];
    const std::size_t nt = k.t_frames.size(), nr = k.r_frames.size(), ns = k.s_frames.size();
    for (const auto& c : k.t)
      if (c.size() != nt) fail(code::internal, "bone " + std::to_string(b) + ": translation arrays differ in length");
    for (const auto& c : k.r)
      if (c.size() != nr) fail(code::internal, "bone " + std::to_string(b) + ": rotation arrays differ in length");
    for (const auto& c : k.s)
      if (c.size() != ns) fail(code::internal, "bone " + std::to_string(b) + ": scale arrays differ in length");
    std::array<std::uint32_t, 16> rec{};
    rec[0] = static_cast<std::uint32_t>(nt);
    rec[1] = static_cast<std::uint32_t>(nr);
    rec[2] = static_cast<std::uint32_t>(ns);
    const std::vector<std::uint16_t>* frames[3] = {&k.t_frames, &k.r_frames, &k.s_frames};
    for (int c = 0; c < 3; ++c) {
      rec[3 + c] = rel();
      for (auto f : *frames[c]) w.u16(f);
    }
    pad4();
    for (int c = 0; c < 3; ++c) {
      rec[6 + c] = rel();
      for (auto v : k.t[c]) w.i32(v);
    }
    for (int c = 0; c < 4; ++c) {
      rec[9 + c] = rel();
      for (auto v : k.r[c]) w.i16(v);
    }
    pad4();
    for (int c = 0; c < 3; ++c) {
      rec[13 + c] = rel();
      for (auto v : k.s[c]) w.i32(v);
    }
    records.push_back(rec);
  }
  std::uint32_t table = rel();
  for (const auto& rec : records)
    for (auto v : rec) w.u32(v);
  w.u32(end_marker);
  return table;
}

byte_vec write_anim_chunk(const anim_chunk& a) {
  if (!a.keys.canonical) return a.original;
  if (a.prefix.size() < 0x1C) fail(code::internal, "animation chunk prefix shorter than its header");
  byte_writer w(endian::big);
  w.bytes(a.prefix);
  std::uint32_t table = write_key_table(w, 0, a.keys);
  w.patch_u32(0x18, table);
  w.bytes(a.trailer);
  return w.take();
}

byte_vec write_x8pc(const x8pc_file& f) {
  byte_writer w(endian::big);
  for (const auto& m : f.models) {
    const std::size_t start = w.size();
    for (const auto& e : m.entries) {
      w.u32(e.offset);
      w.u32(e.data_size);
      w.u32(e.chunk_size);
      w.u32(e.reserved);
    }
    if (m.extra_terminated) w.u32(end_marker);
    w.bytes(m.header_rest);
    if (w.size() - start != sector) fail(code::internal, "x8pc header is not 0x800 bytes");
    for (std::size_t i = 0; i < m.entries.size(); ++i) {
      w.bytes(m.gap_before[i]);
      if (w.size() - start != m.entries[i].offset) fail(code::internal, "chunk " + std::to_string(i) + " misplaced");
      if (i == 3) {
        byte_vec a = write_anim_chunk(m.anim);
        if (a.size() != m.entries[i].data_size) fail(code::internal, "animation chunk size differs from its entry");
        w.bytes(a);
      } else {
        w.bytes(m.data[i]);
      }
      w.bytes(m.padding[i]);
    }
    w.bytes(m.tail);
    if (w.size() - start != m.slot_size) fail(code::internal, "model slot size changed");
  }
  return w.take();
}

byte_vec write_x8an(const x8an_file& f) {
  byte_writer w(endian::big);
  for (const auto& s : f.segments) {
    if (w.size() != s.offset) fail(code::internal, "x8an segment misplaced");
    if (s.keys.canonical) {
      std::size_t start = w.size();
      w.u32(0);
      std::uint32_t table = write_key_table(w, start, s.keys);
      w.patch_u32(start, table);
    } else {
      w.bytes(s.original);
    }
    w.bytes(s.padding);
  }
  return w.take();
}

}  // namespace rigrip::sf3
