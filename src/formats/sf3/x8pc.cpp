// X8PC*.BIN battle models (and X8PCnnX containers): the chunk table, texture
// definitions and animation chunk, parsed and written back byte for byte.
#include "formats/sf3/x8pc.hpp"

#include "formats/sf3/x8pc_mesh.hpp"

#include <algorithm>

namespace rigrip::sf3 {
namespace {

using core::byte_reader;
using core::byte_writer;
using core::endian;
using core::fail;

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

void parse_anim(model_raw& m, const byte_reader& r, bool copy_keys) {
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
  a.key_refs = scan_key_table(c, table, data_start);
  if (copy_keys) {
    a.keys = read_key_table(c, a.key_refs);
  } else {
    a.keys.canonical = a.key_refs.canonical;
    a.keys.end = a.key_refs.end;
  }
  auto all = c.data();
  a.prefix.assign(all.begin(), all.begin() + data_start);
  a.trailer.assign(all.begin() + std::min<std::size_t>(a.keys.end, all.size()), all.end());
  if (!a.keys.canonical) a.original.assign(all.begin(), all.end());  // only such a chunk is written back from it
}

}  // namespace

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

model_raw parse_model(byte_span file, std::uint64_t base, std::uint32_t slot_size, bool copy_keys) {
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
  parse_anim(m, r.sub(m.entries[3].offset, m.entries[3].data_size), copy_keys);
  return m;
}

x8pc_file parse_x8pc(byte_span file, bool copy_keys) {
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
    f.models.push_back(parse_model(file, at, f.stride, copy_keys));
  return f;
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

// `dump --raw` of an X8PC file (the mesh chunk is parsed for its skeleton and tags).
nlohmann::json x8pc_to_json(const x8pc_file& f) {
  using nlohmann::json;
  json models = json::array();
  for (const auto& m : f.models) {
    model_geometry g = parse_geometry(m);
    json chunks = json::array();
    for (const auto& e : m.entries)
      chunks.push_back({{"offset", e.offset}, {"data_size", e.data_size}, {"chunk_size", e.chunk_size}});
    json defs = json::array();
    for (const auto& d : m.anim.defs) {
      json ev = json::array();
      for (const auto& e : d.events) ev.push_back({e.frame, e.code});
      defs.push_back({{"start", d.first_frame()}, {"external", d.external()}, {"count", d.count}, {"id", d.id},
                      {"distance", d.distance}, {"events", ev}});
    }
    json tags = json::array();
    for (const auto& t : g.skel.tags) tags.push_back({{"code", t.code}, {"bone", t.parent}, {"position", t.position}});
    models.push_back({{"bones", g.skel.parent.size()},
                      {"meshes", g.body.size() + (g.weapon ? 1 : 0)},
                      {"textures", m.textures.size()},
                      {"keyframes", key_table_to_json(m.anim.keys)},
                      {"offset", m.base},
                      {"body_meshes", g.body.size()},
                      {"weapon", g.weapon.has_value()},
                      {"vram_size", m.vram_size},
                      {"chunks", chunks},
                      {"animations", defs},
                      {"tags", tags},
                      {"mesh_bones", g.skel.mesh_bone},
                      {"bone_parents", g.skel.parent}});
  }
  return json{{"format", "sf3-x8pc"}, {"models", models}};
}

}  // namespace rigrip::sf3
