// The Switch FRES writer for `pack`: a template's image with new FSKAs. Layout (README.md,
// "Switch writer"): the template's bytes up to the end of its string table stay where they
// are (so every pointer into them, relocated or not, stays valid); new names are appended
// to the string table; then the new FSKA array, its bone animations, curves, arrays and
// dictionary; then whatever followed the strings (buffers, embedded files), moved by a
// multiple of 4 KB so its alignment holds; then a rebuilt relocation table covering every
// pointer of the template's table (moved where their targets moved) and every new one.
#include <algorithm>
#include <bit>
#include <cstring>
#include <map>
#include <set>

#include "core/failure.hpp"
#include "formats/bfres/encode.hpp"
#include "formats/bfres/fres_detail.hpp"

namespace rigrip::bfres {
namespace {
using core::fail;

struct le_out {
  std::vector<std::uint8_t> b;
  void u8(std::uint8_t v) { b.push_back(v); }
  void u16(std::uint16_t v) {
    u8(static_cast<std::uint8_t>(v)), u8(static_cast<std::uint8_t>(v >> 8));
  }
  void u32(std::uint32_t v) {
    u16(static_cast<std::uint16_t>(v)), u16(static_cast<std::uint16_t>(v >> 16));
  }
  void u64(std::uint64_t v) {
    u32(static_cast<std::uint32_t>(v)), u32(static_cast<std::uint32_t>(v >> 32));
  }
  void f32(float v) { u32(std::bit_cast<std::uint32_t>(v)); }
  void align(std::size_t a) {
    while (b.size() % a) u8(0);
  }
  [[nodiscard]] std::uint32_t pos() const { return static_cast<std::uint32_t>(b.size()); }
  void put16(std::uint32_t at, std::uint16_t v) {
    for (int i = 0; i < 2; ++i) b[at + i] = static_cast<std::uint8_t>(v >> (8 * i));
  }
  void put32(std::uint32_t at, std::uint32_t v) {
    for (int i = 0; i < 4; ++i) b[at + i] = static_cast<std::uint8_t>(v >> (8 * i));
  }
  void put64(std::uint32_t at, std::uint64_t v) {
    for (int i = 0; i < 8; ++i) b[at + i] = static_cast<std::uint8_t>(v >> (8 * i));
  }
  [[nodiscard]] std::uint64_t get64(std::uint32_t at) const {
    std::uint64_t v = 0;
    for (int i = 7; i >= 0; --i) v = (v << 8) | b[at + i];
    return v;
  }
};

std::uint32_t le32(const std::vector<std::uint8_t>& d, std::size_t at) {
  return static_cast<std::uint32_t>(d[at]) | static_cast<std::uint32_t>(d[at + 1]) << 8 |
         static_cast<std::uint32_t>(d[at + 2]) << 16 | static_cast<std::uint32_t>(d[at + 3]) << 24;
}
std::uint64_t le64(const std::vector<std::uint8_t>& d, std::size_t at) {
  return le32(d, at) | static_cast<std::uint64_t>(le32(d, at + 4)) << 32;
}

// Relocation entries from sorted pointer positions: runs of adjacent pointers (at most 255),
// then runs of the same length at a constant stride folded into one entry (struct count).
std::vector<switch_header::rlt_entry> compress_slots(const std::vector<std::uint32_t>& slots) {
  struct run {
    std::uint32_t at, n;
  };
  std::vector<run> runs;
  for (std::uint32_t s : slots) {
    if (!runs.empty() && runs.back().at + 8 * runs.back().n == s && runs.back().n < 255)
      ++runs.back().n;
    else
      runs.push_back({s, 1});
  }
  std::vector<switch_header::rlt_entry> out;
  for (std::size_t i = 0; i < runs.size();) {
    std::size_t j = i + 1;
    std::uint32_t pad = 0;
    if (j < runs.size() && runs[j].n == runs[i].n) {
      const std::uint32_t stride = runs[j].at - runs[i].at;
      if (stride % 8 == 0 && stride / 8 - runs[i].n <= 255) {
        pad = stride / 8 - runs[i].n;
        while (j < runs.size() && runs[j].n == runs[i].n && runs[j].at - runs[j - 1].at == stride &&
               j - i < 65535)
          ++j;
      }
    }
    switch_header::rlt_entry e;
    e.position = runs[i].at;
    e.structs = static_cast<std::uint16_t>(j - i);
    e.offsets = static_cast<std::uint8_t>(runs[i].n);
    e.padding = static_cast<std::uint8_t>(j - i > 1 ? pad : 0);
    out.push_back(e);
    i = j;
  }
  return out;
}

// The `_STR` block's strings (u16 length, characters, NUL, 2-byte alignment), by name.
std::map<std::string, std::uint32_t> string_table(const file& tpl, std::uint32_t block,
                                                  std::uint32_t end) {
  std::map<std::string, std::uint32_t> out;
  const auto& d = tpl.image;
  const std::uint32_t count = le32(d, block + 0x10);
  std::uint32_t at = block + 0x14;
  for (std::uint32_t i = 0; i < count && at + 2 <= end; ++i) {
    const std::uint32_t n = d[at] | d[at + 1] << 8;
    if (at + 2 + n > end) break;
    out.emplace(std::string(d.begin() + at + 2, d.begin() + at + 2 + n), at);
    at += 2 + n + 1;
    at += at & 1;
  }
  return out;
}

}  // namespace

std::vector<patricia_node> build_patricia_switch(const std::vector<std::string>& names) {
  // nn::util's ResDic: the root's bit index is -1, bit indices grow down the tree, a new key
  // branches at the lowest bit where it differs from the closest key (detail::switch_name_bit).
  std::vector<patricia_node> nodes(1);
  nodes[0].ref_bit = 0xFFFFFFFF;
  std::vector<std::string> keys{""};
  auto ref = [&](std::size_t i) {
    return static_cast<std::int64_t>(static_cast<std::int32_t>(nodes[i].ref_bit));
  };
  auto bit = [](const std::string& s, std::uint32_t b) { return detail::switch_name_bit(s, b); };
  for (const auto& k : names) {
    std::size_t p = 0, c = nodes[0].left;
    while (ref(c) > ref(p)) {
      p = c;
      c = bit(k, nodes[c].ref_bit) ? nodes[c].right : nodes[c].left;
    }
    const std::string& other = keys[c];
    const auto bits = static_cast<std::uint32_t>(std::max(k.size(), other.size()) * 8);
    std::uint32_t d = 0;
    bool found = false;
    for (std::uint32_t b = 0; b < bits && !found; ++b)
      if (bit(k, b) != bit(other, b)) d = b, found = true;
    if (!found) fail(code::bad_value, "duplicate dictionary name '" + k + "'");
    p = 0;
    c = nodes[0].left;
    while (ref(c) > ref(p) && ref(c) < static_cast<std::int64_t>(d)) {
      p = c;
      c = bit(k, nodes[c].ref_bit) ? nodes[c].right : nodes[c].left;
    }
    const auto n = static_cast<std::uint16_t>(nodes.size());
    patricia_node nn;
    nn.ref_bit = d;
    if (bit(k, d))
      nn.right = n, nn.left = static_cast<std::uint16_t>(c);
    else
      nn.left = n, nn.right = static_cast<std::uint16_t>(c);
    nodes.push_back(nn);
    keys.push_back(k);
    if (p == 0)
      nodes[0].left = n;
    else if (bit(k, nodes[p].ref_bit))
      nodes[p].right = n;
    else
      nodes[p].left = n;
  }
  return nodes;
}

std::vector<std::uint8_t> write_switch_fskas(const file& tpl,
                                             const std::vector<packed_anim>& anims) {
  if (!tpl.sw) fail(code::internal, "Switch writer without a Switch template");
  const switch_header& h = *tpl.sw;
  const auto& img = tpl.image;
  const auto size = static_cast<std::uint32_t>(img.size());
  const bool v09 = h.v09();
  auto refuse = [](const std::string& why) {
    fail(code::write_unsupported, "pack into this Switch template: " + why);
  };

  // Where the template's parts are: its relocation table must be the last block.
  std::uint32_t end_of_data = size;
  if (h.relocation_at) {
    const std::uint32_t rlt_end = static_cast<std::uint32_t>(
        h.relocation_at + 16 + 24 * h.rlt_sections.size() + 8 * h.rlt_entries.size());
    if (rlt_end != size)
      refuse(
          "its relocation table is not the last block (data after it would have to move "
          "unrelocated)");
    end_of_data = h.relocation_at;
  }
  // The string table block (`_STR`, count at +0x10, strings from +0x14, which the header points
  // at).
  std::uint32_t str_block = 0;
  const std::uint64_t first_string = h.offsets[18];
  if (first_string >= 0x14 && first_string + 2 <= size &&
      std::memcmp(img.data() + first_string - 0x14, "_STR", 4) == 0)
    str_block = static_cast<std::uint32_t>(first_string - 0x14);
  // Insertion point: after the strings (or at the end of the data when there is no `_STR`).
  const std::uint32_t P = str_block ? str_block + h.string_table_size : end_of_data;
  if (P > end_of_data || P < h.header_size) refuse("its string table size runs past the data");

  // Every pointer to carry over, by relocation section: the template's table, plus the
  // pointers the reader knows (a template without a table gets them all in section 0).
  std::vector<std::vector<std::uint32_t>> sections = relocated_slots(h);
  if (sections.empty()) sections.emplace_back();
  std::set<std::uint32_t> known;
  for (const auto& sec : sections) known.insert(sec.begin(), sec.end());
  std::set<std::uint32_t> extra;
  auto add_known = [&](std::uint32_t slot) {
    const std::uint64_t v = le64(img, slot);
    if (known.count(slot) || v == 0) return;
    // A field the reader does not follow (a model array with no models) may hold anything;
    // relocating it would make the output unreadable, so it is refused here.
    if (v > size)
      fail(code::bad_offset,
           "pointer at " + std::to_string(slot) + " holds " + std::to_string(v) +
               ", outside the file",
           slot);
    extra.insert(slot);
  };
  for (std::uint32_t i = 0; i < 19; ++i) add_known(h.field(0x20 + 8 * i));
  for (const auto& e : tpl.external_files) add_known(e.entry_at);
  for (const auto& d : tpl.dicts)
    if (d)
      for (std::size_t i = 1; i < d->nodes.size(); ++i) add_known(d->nodes[i].at + 8);
  for (const auto& a : tpl.anims) {
    for (std::uint32_t k = 0; k < 7; ++k) add_known(a.at + (v09 ? 8 : 0x10) + 8 * k);
    for (const auto& b : a.bone_anims) {
      for (std::uint32_t k = 0; k < 3; ++k) add_known(b.at + 8 * k);
      for (const auto& c : b.curves) add_known(c.at), add_known(c.at + 8);
    }
  }
  for (auto s : extra) {
    if (s >= P && s < end_of_data && !h.relocation_at)
      refuse("a pointer after its string table is not relocated");
    sections[0].push_back(s);
  }
  for (const auto& sec : sections)
    for (auto s : sec)
      if (s >= str_block && s < P && str_block)
        refuse("its relocation table names a pointer inside the string table");

  // The FSKAs in array (= dictionary) order: the template's, each replaced by a packed one of
  // the same name, then the new names.
  struct slot_fska {
    const skeletal_anim* old = nullptr;
    const packed_anim* packed = nullptr;
    std::string name;
  };
  std::vector<slot_fska> order;
  for (const auto& a : tpl.anims) order.push_back({&a, nullptr, a.name});
  for (const auto& pa : anims) {
    auto it = std::find_if(order.begin(), order.end(),
                           [&](const slot_fska& x) { return x.name == pa.name; });
    if (it != order.end())
      it->packed = &pa, it->old = nullptr;
    else
      order.push_back({nullptr, &pa, pa.name});
  }
  if (order.size() > 65535) fail(code::bad_count, "more than 65535 skeletal animations");

  le_out w;
  w.b.assign(img.begin(), img.begin() + P);
  // New names go to the end of the string table: the template's strings stay where they are.
  std::map<std::string, std::uint32_t> strings;
  if (str_block)
    strings = string_table(tpl, str_block, P);
  else {
    for (const auto& d : tpl.dicts)
      if (d)
        for (const auto& n : d->nodes)
          if (n.name_at) strings.emplace(n.name, n.name_at);
    for (const auto& a : tpl.anims) {
      if (a.name_at) strings.emplace(a.name, a.name_at);
      if (a.path_at) strings.emplace(a.path, a.path_at);
      for (const auto& b : a.bone_anims)
        if (b.name_at) strings.emplace(b.name, b.name_at);
    }
  }
  std::uint32_t added = 0;
  auto need = [&](const std::string& n) {
    if (strings.count(n)) return;
    if (n.size() > 65535)
      fail(code::bad_value, "name longer than 65535 characters: '" + n.substr(0, 40) + "...'");
    w.align(2);
    strings[n] = w.pos();
    w.u16(static_cast<std::uint16_t>(n.size()));
    for (char ch : n) w.u8(static_cast<std::uint8_t>(ch));
    w.u8(0);
    ++added;
  };
  need("");
  for (const auto& o : order) need(o.name);
  for (const auto& pa : anims)
    for (const auto& b : pa.bones) need(b.name);
  const std::uint32_t strings_end = w.pos();
  w.align(8);
  const std::uint32_t B = w.pos();
  std::vector<std::uint32_t> fresh;  // new pointers (section 0)
  auto ptr = [&](std::uint32_t at, std::uint32_t target) {
    w.put64(at, target);
    if (target) fresh.push_back(at);
  };

  // The FSKA array, filled once its parts are placed.
  const std::uint32_t fska_size = v09 ? 0x50 : 0x60;
  const std::uint32_t array_at = w.pos();
  w.b.resize(w.b.size() + fska_size * order.size(), 0);
  const std::uint32_t ba_size = v09 ? 0x38 : 0x28;
  for (std::size_t i = 0; i < order.size(); ++i) {
    const std::uint32_t at = array_at + static_cast<std::uint32_t>(i * fska_size);
    const std::uint32_t p = at + (v09 ? 8 : 0x10);
    if (order[i].old) {  // the template's FSKA, copied; its parts stay where they are
      const auto& a = *order[i].old;
      std::copy(img.begin() + a.at, img.begin() + a.at + fska_size, w.b.begin() + at);
      for (std::uint32_t k = 0; k < 7; ++k)
        ptr(p + 8 * k, static_cast<std::uint32_t>(le64(img, a.at + (p - at) + 8 * k)));
      continue;
    }
    const packed_anim& pa = *order[i].packed;
    std::copy_n("FSKA", 4, w.b.begin() + at);
    w.align(8);
    const std::uint32_t bind_at = w.pos();
    for (std::size_t k = 0; k < pa.bones.size(); ++k) w.u16(0xFFFF);  // bound at run time by name
    w.align(8);
    const std::uint32_t bones_at = w.pos();
    w.b.resize(w.b.size() + ba_size * pa.bones.size(), 0);
    std::uint32_t begin_curve = 0, baked = 0;
    for (std::size_t bi = 0; bi < pa.bones.size(); ++bi) {
      const auto& b = pa.bones[bi];
      const std::uint32_t ba = bones_at + static_cast<std::uint32_t>(bi * ba_size);
      w.align(8);
      const std::uint32_t curves_at = b.curves.empty() ? 0 : w.pos();
      w.b.resize(w.b.size() + 0x30 * b.curves.size(), 0);
      w.align(8);
      const std::uint32_t base_at = w.pos();
      for (float x : b.base) w.f32(x);
      std::uint32_t bflags = (1u << 3) | (1u << 4) | (1u << 5) | (b.ssc ? 1u << 23 : 0u);
      for (std::size_t ci = 0; ci < b.curves.size(); ++ci) {
        const auto& c = b.curves[ci];
        if (const int k = curve_component(c.target); k >= 0) bflags |= 1u << (6 + k);
        w.align(8);
        const std::uint32_t frames_at = w.pos();
        for (auto x : c.frames_raw) {
          const auto u = static_cast<std::uint32_t>(x);
          c.frame_bytes() == 4   ? w.u32(u)
          : c.frame_bytes() == 2 ? w.u16(static_cast<std::uint16_t>(u))
                                 : w.u8(static_cast<std::uint8_t>(u));
        }
        w.align(8);
        const std::uint32_t keys_at = w.pos();
        for (auto x : c.keys_raw) {
          const auto u = static_cast<std::uint32_t>(x);
          c.key_bytes() == 4   ? w.u32(u)
          : c.key_bytes() == 2 ? w.u16(static_cast<std::uint16_t>(u))
                               : w.u8(static_cast<std::uint8_t>(u));
        }
        const std::uint32_t cv = curves_at + static_cast<std::uint32_t>(0x30 * ci);
        ptr(cv, frames_at);
        ptr(cv + 8, keys_at);
        w.put16(cv + 0x10, c.flags);
        w.put16(cv + 0x12, c.num_keys);
        w.put32(cv + 0x14, c.target);
        w.put32(cv + 0x18, std::bit_cast<std::uint32_t>(c.start));
        w.put32(cv + 0x1C, std::bit_cast<std::uint32_t>(c.end));
        w.put32(cv + 0x20, std::bit_cast<std::uint32_t>(c.scale));
        w.put32(cv + 0x24, std::bit_cast<std::uint32_t>(c.offset));
        w.put32(cv + 0x28, std::bit_cast<std::uint32_t>(c.delta));
        // Switch baked size: 4 bytes per frame + 28 (BfresLibrary CalculateBakeSize).
        baked += static_cast<std::uint32_t>(4 * (c.end - c.start + 1) + 28);
      }
      ptr(ba, strings.at(b.name));
      ptr(ba + 8, curves_at);
      ptr(ba + 0x10, base_at);
      const std::uint32_t fa =
          ba + (v09 ? 0x28 : 0x18);  // 0.9+: user-data array and dictionary (null) first
      w.put32(fa, bflags);
      w.b[fa + 4] = 3;                 // begin rotate (S occupies 0-2)
      w.b[fa + 5] = pa.euler ? 6 : 7;  // begin translate
      w.b[fa + 6] = static_cast<std::uint8_t>(b.curves.size());
      w.b[fa + 7] = 7;  // begin base translate
      w.put32(fa + 8, begin_curve);
      begin_curve += static_cast<std::uint32_t>(b.curves.size());
    }
    if (v09) w.put32(at + 4, pa.flags);
    ptr(p, strings.at(pa.name));
    ptr(p + 8, strings.at(""));
    ptr(p + 0x18, pa.bones.empty() ? 0 : bind_at);
    ptr(p + 0x20, pa.bones.empty() ? 0 : bones_at);
    std::uint32_t n = p + 0x38;
    if (!v09) w.put32(n, pa.flags), n += 4;
    w.put32(n, static_cast<std::uint32_t>(pa.frames));
    w.put32(n + 4, begin_curve);
    w.put32(n + 8, baked);
    w.put16(n + 12, static_cast<std::uint16_t>(pa.bones.size()));
    w.put16(n + 14, 0);
  }
  // The dictionary: rebuilt for the names in array order (node i + 1 = element i). The
  // root's name is not relocated (as in the game's files).
  w.align(8);
  const std::uint32_t dict_at = w.pos();
  {
    std::vector<std::string> names;
    for (const auto& o : order) names.push_back(o.name);
    const auto nodes = build_patricia_switch(names);
    w.u32(tpl.dicts[2] ? tpl.dicts[2]->size : 0);  // the magic word as the template has it
    w.u32(static_cast<std::uint32_t>(names.size()));
    for (std::size_t i = 0; i < nodes.size(); ++i) {
      w.u32(nodes[i].ref_bit);
      w.u16(nodes[i].left);
      w.u16(nodes[i].right);
      const std::uint32_t at = w.pos();
      w.u64(strings.at(i == 0 ? std::string() : names[i - 1]));
      if (i > 0) fresh.push_back(at);
    }
  }
  w.align(8);
  const std::uint32_t B_end = w.pos();

  // Whatever followed the strings moves by a multiple of 4 KB (or of the file's alignment).
  bool d_used = false;
  for (std::uint32_t at = P; at < end_of_data && !d_used; ++at) d_used = img[at] != 0;
  for (std::size_t i = 1; i < h.rlt_sections.size(); ++i)
    d_used = d_used || (h.rlt_sections[i].size && h.rlt_sections[i].position >= P);
  const std::uint64_t big =
      std::max<std::uint64_t>(0x1000, 1ull << std::min<std::uint32_t>(h.alignment_log2, 16));
  std::uint64_t delta = 0;
  if (d_used) {
    delta = (B_end - P + big - 1) / big * big;
    if (P + delta + (end_of_data - P) > 0xFFFFFFF0ull)
      fail(code::limit_exceeded, "packed Switch file larger than 4 GB");
    w.b.resize(P + delta, 0);
    w.b.insert(w.b.end(), img.begin() + P, img.begin() + end_of_data);
    w.align(8);
  }
  auto moved = [&](std::uint64_t v) {
    return d_used && v >= P && v <= end_of_data ? v + delta : v;
  };

  // The template's pointers: moved with their structure and retargeted with their target.
  for (auto& sec : sections)
    for (auto& s : sec) {
      const std::uint64_t v = le64(img, s);
      s = static_cast<std::uint32_t>(moved(s));
      w.put64(s, moved(v));
    }
  // Header: the new array and dictionary, the count, the string table size.
  w.put64(h.field(0x38), array_at);
  w.put64(h.field(0x40), dict_at);
  for (auto s : {h.field(0x38), h.field(0x40)})
    if (std::find(sections[0].begin(), sections[0].end(), s) == sections[0].end())
      fresh.push_back(s);
  w.put16(h.v09() ? 0xE2 : 0xBE, static_cast<std::uint16_t>(order.size()));
  if (str_block) {
    w.put32(h.field(0xB8), strings_end - str_block);
    w.put32(str_block + 0x10, le32(img, str_block + 0x10) + added);
    w.put64(str_block + 8, B - str_block);
  }
  // Block chain (0.5-0.8 FSKAs carry one): the string block leads to the new FSKAs, which
  // lead to each other; the last one's block runs to the end of the new sections and leads
  // where the string block led (0 in the game's files: the strings are the last block).
  if (!v09 && !order.empty()) {
    std::uint64_t after = 0;
    if (str_block) {
      const std::uint32_t old_next = le32(img, str_block + 4);
      if (old_next) after = moved(std::uint64_t{str_block} + old_next);
      w.put32(str_block + 4, array_at - str_block);
    }
    for (std::size_t i = 0; i < order.size(); ++i) {
      const std::uint32_t at = array_at + static_cast<std::uint32_t>(i * fska_size);
      const bool last = i + 1 == order.size();
      w.put32(at + 4, last ? (after > at ? static_cast<std::uint32_t>(after - at) : 0) : fska_size);
      w.put64(at + 8, last ? B_end - at : fska_size);
    }
  }
  for (auto s : fresh) sections[0].push_back(s);

  // The relocation table.
  w.align(8);
  const std::uint32_t rlt = w.pos();
  std::vector<switch_header::rlt_section> secs = h.rlt_sections;
  if (secs.empty()) secs.resize(1);
  std::vector<std::vector<switch_header::rlt_entry>> entries;
  std::uint32_t first = 0;
  for (std::size_t i = 0; i < secs.size(); ++i) {
    auto& sl = sections[i];
    std::sort(sl.begin(), sl.end());
    sl.erase(std::unique(sl.begin(), sl.end()), sl.end());
    entries.push_back(compress_slots(sl));
    auto& sec = secs[i];
    if (i == 0) {
      sec.position = 0;
      sec.size = h.rlt_sections.empty() ? rlt : B_end;
    } else if (sec.position >= P) {
      sec.position = sec.size == 0 && sec.position == P
                         ? B_end
                         : static_cast<std::uint32_t>(moved(sec.position));
    }
    sec.first_entry = first;
    sec.entry_count = static_cast<std::uint32_t>(entries.back().size());
    first += sec.entry_count;
  }
  w.u8('_'), w.u8('R'), w.u8('L'), w.u8('T');
  w.u32(rlt);
  w.u32(static_cast<std::uint32_t>(secs.size()));
  w.u32(0);
  for (const auto& sec : secs) {
    w.u64(sec.base);
    w.u32(sec.position);
    w.u32(sec.size);
    w.u32(sec.first_entry);
    w.u32(sec.entry_count);
  }
  for (const auto& es : entries)
    for (const auto& e : es) {
      w.u32(e.position);
      w.u16(e.structs);
      w.u8(e.offsets);
      w.u8(e.padding);
    }
  w.put32(0x18, rlt);
  w.put32(0x1C, w.pos());
  return std::move(w.b);
}

}  // namespace rigrip::bfres
