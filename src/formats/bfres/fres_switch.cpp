// The Switch FRES raw layer: little-endian, offsets are absolute 64-bit values, names are
// (u16 length, characters), dictionaries map names to indices of arrays that hold the
// structures back to back. Parsed here: the header, the skeletal-animation dictionary
// and array (FSKA), their bone animations, base values, bind indices and curves; the
// curves' frame/key arrays share the Wii U code; the relocation table is read and
// checked (fres_switch_write.cpp rebuilds it when FSKAs are packed). Everything else
// (models, other animation kinds, external files, string table) stays as bytes of the
// image, and serialise_switch() writes the parsed fields back over it. 0.9+ (0.9, 0.10)
// differ in three places: the header (32 reserved bytes after the model dictionary, two
// more counts), the FSKA (flags in place of the block header: 0x50 bytes) and the bone
// animation (user-data array and dictionary: 0x38 bytes).
#include <algorithm>
#include <cmath>
#include <cstring>

#include "core/byte_patcher.hpp"
#include "core/byte_reader.hpp"
#include "formats/bfres/fres.hpp"
#include "formats/bfres/fres_detail.hpp"

namespace rigrip::bfres {
namespace {
using core::byte_reader;
using core::fail;
using namespace detail;

constexpr std::uint32_t kHeaderSize = 0xD0;
constexpr std::uint32_t kHeaderSize09 = 0xF0;
constexpr std::uint32_t kCurveSize = 0x30;
constexpr std::uint32_t kMaxEntries = 65535;

// The second version byte: 0.5.0.3 (Breath of the Wild) -> 5.
std::uint32_t minor(std::uint32_t version) { return (version >> 16) & 0xFF; }

// An absolute offset, checked to land in the file (0 = null).
std::uint32_t offset_at(const byte_reader& file, std::uint64_t field) {
  const std::uint64_t v = file.u64_at(field);
  if (v == 0) return 0;
  if (v >= file.size())
    fail(code::bad_offset, "offset field points outside the file (" + std::to_string(v) + ")", field);
  return static_cast<std::uint32_t>(v);
}

// A name: the offset points at its u16 length.
std::string name_at(const byte_reader& file, std::uint32_t at) {
  if (at == 0) return {};
  byte_reader r = file.peek(at);
  const std::uint16_t n = r.u16();
  r.checked_count(n, 1, "name characters");
  auto b = r.bytes(n);
  return std::string(b.begin(), b.end());
}

}  // namespace

namespace detail {
// nn::util's ResDic bit test: bit b is bit (b % 8) of the (b / 8)-th character from the
// end of the name (0 past its start). Checked on the real Demo344_1 dictionary.
int switch_name_bit(const std::string& s, std::uint32_t bit) {
  const std::uint32_t byte = bit >> 3;
  return byte < s.size() ? (static_cast<std::uint8_t>(s[s.size() - 1 - byte]) >> (bit & 7)) & 1 : 0;
}

int switch_dict_find(const dict& d, const std::string& name) {
  if (d.nodes.size() < 2) return -1;
  // Descend while the bit index grows (the root's is -1): at most one step per node.
  auto ref = [&](std::size_t i) {
    return static_cast<std::int64_t>(static_cast<std::int32_t>(d.nodes[i].ref_bit));
  };
  std::size_t p = 0, c = d.nodes[0].left;
  for (std::size_t steps = 0; c < d.nodes.size() && ref(c) > ref(p) && steps < d.nodes.size();
       ++steps) {
    p = c;
    c = switch_name_bit(name, static_cast<std::uint32_t>(d.nodes[c].ref_bit)) ? d.nodes[c].right
                                                                              : d.nodes[c].left;
  }
  return c < d.nodes.size() && c > 0 && d.nodes[c].name == name ? static_cast<int>(c) : -1;
}
}  // namespace detail

namespace {

// "_DIC" (or 0), s32 count, then count + 1 nodes {u32 ref bit, u16 left, u16 right, u64 name}.
dict parse_switch_dict(const byte_reader& file, std::uint32_t at) {
  byte_reader r = file.peek(at);
  dict d;
  d.at = at;
  d.size = r.u32();  // the magic word
  const std::uint32_t raw = r.u32();
  if (raw > kMaxEntries)
    fail(code::bad_count, "dictionary entry count " + std::to_string(raw) + " exceeds the limit of " +
                              std::to_string(kMaxEntries), at + 4);
  d.count = static_cast<std::int32_t>(raw);
  r.checked_count(raw + 1ull, 16, "dictionary nodes");
  spend(raw + 1ull, at);
  for (std::uint32_t i = 0; i <= raw; ++i) {
    dict_node n;
    n.at = static_cast<std::uint32_t>(r.tell());
    n.ref_bit = r.u32();
    n.left = r.u16();
    n.right = r.u16();
    n.name_at = offset_at(file, n.at + 8);
    r.skip(8);
    n.name = name_at(file, n.name_at);
    if (i > 0 && (n.left > raw || n.right > raw))
      fail(code::bad_value, "dictionary node " + std::to_string(i) + " links past the last node", n.at + 4);
    if (i == 0 && (n.left > raw || n.right > raw))
      fail(code::bad_value, "dictionary root links past the last node", n.at + 4);
    d.nodes.push_back(std::move(n));
  }
  // The runtime finds entries by a Patricia search: every entry must be found by its own
  // name (a malformed tree, e.g. links that loop without the bit index growing, is refused;
  // the search stops after count + 1 steps whatever the links say).
  for (std::uint32_t i = 1; i <= raw; ++i) {
    spend(raw + 1ull, at);
    if (switch_dict_find(d, d.nodes[i].name) != static_cast<int>(i))
      fail(code::bad_value,
           "dictionary entry " + std::to_string(i) + " ('" + d.nodes[i].name +
               "') is not found by its name: the dictionary's tree is malformed",
           d.nodes[i].at);
  }
  return d;
}

curve parse_switch_curve(const byte_reader& file, std::uint32_t at) {
  byte_reader r = file.peek(at);
  r.checked_count(1, kCurveSize, "curve");
  curve c;
  c.at = at;
  c.frames_at = offset_at(file, at);
  c.keys_at = offset_at(file, at + 8);
  r.skip(16);
  c.flags = r.u16();
  c.num_keys = r.u16();
  c.target = r.u32();
  c.start = r.f32();
  c.end = r.f32();
  c.scale_bits = r.u32();
  c.offset_bits = r.u32();
  c.delta = r.f32();
  read_curve_arrays(file, c);
  return c;
}

// Bone animation (0x28 bytes; 0.9+: 0x38): name, curves, base values (u64 each), 0.9+ a
// user-data array and dictionary (kept as bytes), flags, the begin indices and the curve count.
bone_anim parse_switch_bone_anim(const byte_reader& file, std::uint32_t at, bool v09) {
  bone_anim ba;
  ba.at = at;
  ba.name_at = offset_at(file, at);
  ba.name = name_at(file, ba.name_at);
  ba.curves_at = offset_at(file, at + 8);
  ba.base_at = offset_at(file, at + 0x10);
  byte_reader r = file.peek(at + (v09 ? 0x28 : 0x18));
  ba.flags = r.u32();
  ba.begin_rotate = r.u8();
  ba.begin_translate = r.u8();
  ba.num_curves = r.u8();
  ba.begin_base_translate = r.u8();
  auto bc = r.bytes(4);
  std::copy(bc.begin(), bc.end(), ba.begin_curve.begin());
  if (ba.num_curves && !ba.curves_at) fail(code::bad_offset, "curves declared but absent", at + 8);
  if (ba.num_curves) file.checked_count_at(ba.curves_at, ba.num_curves, kCurveSize, "curves");
  for (std::uint32_t c = 0; c < ba.num_curves; ++c) ba.curves.push_back(parse_switch_curve(file, ba.curves_at + c * kCurveSize));
  const std::size_t nbase =
      (ba.has_base_scale() ? 3 : 0) + (ba.has_base_rotate() ? 4 : 0) + (ba.has_base_translate() ? 3 : 0);
  if (nbase) {
    if (!ba.base_at) fail(code::bad_offset, "base values declared but absent", at + 0x10);
    byte_reader bv = file.peek(ba.base_at);
    bv.checked_count(nbase, 4, "base values");
    for (std::size_t k = 0; k < nbase; ++k) {
      ba.base.push_back(bv.f32());
      if (!std::isfinite(ba.base.back())) fail(code::bad_value, "non-finite base value", ba.base_at + k * 4);
    }
  }
  return ba;
}

// FSKA (0x60 bytes in 0.5-0.8): magic, block header (u32 next, u64 size), seven offsets
// (name, path, bind skeleton, bind indices, bone animations, user data array and
// dictionary), flags, frame count, curve count, baked size, bone-anim and user-data counts,
// u32 padding. 0.9+ (0x50 bytes): magic, flags, the seven offsets, then the counts.
skeletal_anim parse_switch_anim(const byte_reader& file, std::uint32_t at, const switch_header& h) {
  file.checked_count_at(at, 1, h.fska_size, "skeletal animation");
  if (file.peek(at).fixed_string(4) != "FSKA") fail(code::bad_magic, "expected 'FSKA'", at);
  skeletal_anim a;
  a.at = at;
  const bool v09 = h.v09();
  const std::uint32_t p = at + (v09 ? 8 : 0x10);  // the first offset
  a.name_at = offset_at(file, p);
  a.path_at = offset_at(file, p + 8);
  a.name = name_at(file, a.name_at);
  a.path = name_at(file, a.path_at);
  a.bind_skeleton_at = offset_at(file, p + 0x10);
  a.bind_index_at = offset_at(file, p + 0x18);
  a.bone_anims_at = offset_at(file, p + 0x20);
  a.user_data_at = offset_at(file, p + 0x28);  // the user-data array (its dictionary at +0x30 is kept as bytes)
  byte_reader r = file.peek(p + 0x38);
  if (v09)
    a.flags = file.u32_at(at + 4);
  else
    a.flags = r.u32();
  a.frame_count = r.i32();
  a.num_curves = r.i32();
  a.baked_size = r.u32();
  a.num_bone_anims = r.u16();
  a.num_user_data = r.u16();
  if (a.frame_count < 0) fail(code::bad_value, "negative frame count", at);
  if (a.num_bone_anims && !a.bone_anims_at) fail(code::bad_offset, "bone animations declared but absent", p + 0x20);
  if (a.num_bone_anims) file.checked_count_at(a.bone_anims_at, a.num_bone_anims, h.bone_anim_size, "bone animations");
  for (std::uint32_t i = 0; i < a.num_bone_anims; ++i) {
    spend(1, a.bone_anims_at);
    a.bone_anims.push_back(
        parse_switch_bone_anim(file, a.bone_anims_at + i * h.bone_anim_size, v09));
  }
  if (a.bind_index_at && a.num_bone_anims) {
    byte_reader bi = file.peek(a.bind_index_at);
    bi.checked_count(a.num_bone_anims, 2, "bind indices");
    for (std::uint32_t i = 0; i < a.num_bone_anims; ++i) a.bind_indices.push_back(bi.u16());
  }
  return a;
}

// The i-th of the 7 counts (model, skeletal ... external files): 0.9+ puts two more
// counts after the model count.
std::uint32_t count_at(const switch_header& h, std::uint32_t i) {
  if (!h.v09()) return 0xBC + 2 * i;
  return i == 0 ? 0xDC : 0xE0 + 2 * i;
}

// `_RLT`, u32 its own position, u32 section count, u32 0; sections (0x18 bytes), then the
// entries (8 bytes). Every relocated pointer must lie inside the file and hold 0 or an
// offset inside it; the table itself must not overlap the header.
void parse_relocation_table(const byte_reader& file, switch_header& h) {
  const std::uint32_t at = h.relocation_at;
  if (at == 0) return;  // hand-built files may have none
  if (at < h.header_size || at >= file.size())
    fail(
        code::bad_offset,
        "relocation table offset " + std::to_string(at) + " is not inside the file past the header",
        0x18);
  file.checked_count_at(at, 1, 16, "relocation table");
  if (file.peek(at).fixed_string(4) != "_RLT") fail(code::bad_magic, "expected '_RLT'", at);
  const std::uint32_t n_sections = file.u32_at(at + 8);
  if (n_sections > 16)
    fail(code::bad_count, "relocation table with " + std::to_string(n_sections) + " sections",
         at + 8);
  file.checked_count_at(at + 16, n_sections, 24, "relocation sections");
  std::uint64_t n_entries = 0;
  for (std::uint32_t i = 0; i < n_sections; ++i) {
    const std::uint32_t s = at + 16 + 24 * i;
    switch_header::rlt_section sec;
    sec.base = file.u64_at(s);
    sec.position = file.u32_at(s + 8);
    sec.size = file.u32_at(s + 12);
    sec.first_entry = file.u32_at(s + 16);
    sec.entry_count = file.u32_at(s + 20);
    if (static_cast<std::uint64_t>(sec.position) + sec.size > file.size())
      fail(code::bad_offset, "relocation section " + std::to_string(i) + " lies outside the file",
           s + 8);
    if (sec.first_entry != n_entries)
      fail(code::bad_value,
           "relocation section " + std::to_string(i) + " does not start at entry " +
               std::to_string(n_entries),
           s + 16);
    n_entries += sec.entry_count;
    h.rlt_sections.push_back(sec);
  }
  const std::uint32_t entries_at = at + 16 + 24 * n_sections;
  file.checked_count_at(entries_at, n_entries, 8, "relocation entries");
  spend(n_entries, entries_at);
  for (std::uint64_t k = 0; k < n_entries; ++k) {
    const auto e_at = static_cast<std::uint32_t>(entries_at + 8 * k);
    switch_header::rlt_entry e;
    e.position = file.u32_at(e_at);
    e.structs = file.u16_at(e_at + 4);
    e.offsets = file.u8_at(e_at + 6);
    e.padding = file.u8_at(e_at + 7);
    // The last pointer's end: position + ((structs - 1) * stride + offsets) * 8.
    const std::uint64_t stride = 8ull * (e.offsets + e.padding);
    const std::uint64_t end =
        e.structs ? e.position + (e.structs - 1ull) * stride + 8ull * e.offsets : e.position;
    if (e.position < 0x20)
      fail(code::bad_offset,
           "relocation entry " + std::to_string(k) + " points into the header's fixed part", e_at);
    if (end > file.size() || (e.structs && e.offsets && end > at && e.position < at + 16))
      fail(code::bad_offset,
           "relocation entry " + std::to_string(k) + " (" + std::to_string(e.structs) + " x " +
               std::to_string(e.offsets) + " pointers at " + std::to_string(e.position) +
               ") reaches outside the file or into the table",
           e_at);
    spend(static_cast<std::uint64_t>(e.structs) * e.offsets, e_at);
    for (std::uint32_t s = 0; s < e.structs; ++s)
      for (std::uint32_t o = 0; o < e.offsets; ++o) {
        const std::uint64_t slot = e.position + s * stride + 8ull * o;
        const std::uint64_t v = file.u64_at(slot);
        if (v > file.size())
          fail(code::bad_offset,
               "relocated pointer at " + std::to_string(slot) + " holds " + std::to_string(v) +
                   ", outside the file",
               slot);
      }
    h.rlt_entries.push_back(e);
  }
}

}  // namespace

std::uint32_t switch_header::field(std::uint32_t v05) const {
  return v09() && v05 >= 0x38 ? v05 + 0x20 : v05;
}

std::vector<std::vector<std::uint32_t>> relocated_slots(const switch_header& h) {
  std::vector<std::vector<std::uint32_t>> out;
  for (const auto& sec : h.rlt_sections) {
    std::vector<std::uint32_t> slots;
    for (std::uint32_t k = sec.first_entry;
         k < sec.first_entry + sec.entry_count && k < h.rlt_entries.size(); ++k) {
      const auto& e = h.rlt_entries[k];
      for (std::uint32_t s = 0; s < e.structs; ++s)
        for (std::uint32_t o = 0; o < e.offsets; ++o)
          slots.push_back(e.position + s * 8u * (e.offsets + e.padding) + 8u * o);
    }
    std::sort(slots.begin(), slots.end());
    out.push_back(std::move(slots));
  }
  return out;
}

namespace detail {
curve parse_switch_curve_at(const byte_reader& file, std::uint32_t at) { return parse_switch_curve(file, at); }
std::string switch_name_at(const byte_reader& file, std::uint32_t at) { return name_at(file, at); }
std::uint32_t switch_offset_at(const byte_reader& file, std::uint64_t field) { return offset_at(file, field); }
}  // namespace detail

file parse_switch(std::vector<std::uint8_t> image) {
  file f;
  f.image = std::move(image);
  f.plat = platform::switch_;
  reset_work(f.image.size());
  const byte_reader r(f.image, core::endian::little);
  r.checked_count_at(0, 1, kHeaderSize, "Switch FRES header");
  switch_header h;
  f.version = r.u32_at(8);
  f.bom = r.u16_at(0x0C);
  if (f.bom != 0xFEFF)
    fail(code::unsupported_version, "Switch FRES byte-order mark is not FF FE (big-endian Switch files are not supported)", 0x0C);
  if (minor(f.version) < 5 || minor(f.version) > 10 || (f.version >> 24) != 0)
    fail(code::unsupported_version,
         "Switch FRES version " + f.version_string() + " (supported: 0.5 to 0.10)", 8);
  // 0.9 and 0.10 (BfresLibrary's loader, and a 0.10 writer's 0xF0-byte header): 32 reserved
  // bytes after the model dictionary and two more counts. Not checked on a real file.
  if (minor(f.version) >= 9) h.header_size = kHeaderSize09;
  r.checked_count_at(0, 1, h.header_size, "Switch FRES header");
  h.alignment_log2 = r.u8_at(0x0E);
  h.address_size = r.u8_at(0x0F);
  h.file_name_at = r.u32_at(0x10);
  h.flags = r.u16_at(0x14);
  h.first_block = r.u16_at(0x16);
  h.relocation_at = r.u32_at(0x18);
  f.file_size = r.u32_at(0x1C);
  if (f.file_size != f.image.size())
    fail(code::bad_value, "header file size " + std::to_string(f.file_size) + " differs from the data's " +
                              std::to_string(f.image.size()) + " bytes", 0x1C);
  if (h.first_block != 0 && h.first_block < h.header_size)
    fail(code::bad_offset,
         "first block offset " + std::to_string(h.first_block) + " overlaps the " +
             std::to_string(h.header_size) + "-byte header",
         0x16);
  for (std::uint32_t i = 0; i < h.offsets.size(); ++i)
    h.offsets[i] = r.u64_at(h.field(0x20 + 8 * i));
  h.string_table_size = r.u32_at(h.field(0xB8));
  for (std::uint32_t i = 0; i < h.counts.size(); ++i) h.counts[i] = r.u16_at(count_at(h, i));
  if (h.v09()) {
    for (std::uint32_t i = 0; i < 32; ++i) h.reserved[i] = r.u8_at(0x38 + i);
    h.extra_counts = {r.u16_at(0xDE), r.u16_at(0xE0)};
  }
  h.fska_size = h.v09() ? 0x50 : 0x60;
  h.bone_anim_size = h.v09() ? 0x38 : 0x28;
  // Every header offset that is set must point past the header (a hostile offset into the
  // header would make structures overlap it).
  for (std::uint32_t i = 0; i < h.offsets.size(); ++i)
    if (h.offsets[i] != 0 && h.offsets[i] < h.header_size)
      fail(code::bad_offset,
           "header offset " + std::to_string(h.offsets[i]) + " points into the header",
           h.field(0x20 + 8 * i));
  parse_relocation_table(r, h);
  f.alignment = 1u << std::min<std::uint32_t>(h.alignment_log2, 31);
  f.name_at = offset_at(r, 0x20);
  if (f.name_at && f.name_at < h.header_size)
    fail(code::bad_offset, "the file name points into the header", 0x20);
  f.name = name_at(r, f.name_at);
  for (std::uint32_t i = 0; i < 12; ++i) f.counts[i] = i < h.counts.size() ? h.counts[i] : 0;

  // Skeletal animations: the array holds them back to back; the dictionary names them.
  const std::uint32_t fska_array = offset_at(r, h.field(0x38)),
                      fska_dict = offset_at(r, h.field(0x40));
  const std::uint16_t n_fska = h.counts[1];
  if (fska_dict) f.dicts[2] = parse_switch_dict(r, fska_dict);
  if (n_fska) {
    if (!fska_array)
      fail(code::bad_offset, "skeletal animations counted but no array", h.field(0x38));
    if (f.dicts[2] && f.dicts[2]->count != n_fska)
      fail(code::bad_count, "skeletal-animation dictionary has " + std::to_string(f.dicts[2]->count) +
                                " entries for " + std::to_string(n_fska) + " animations", fska_dict + 4);
    if (!f.dicts[2])
      fail(code::bad_offset, "skeletal animations counted but no dictionary", h.field(0x40));
    r.checked_count_at(fska_array, n_fska, h.fska_size, "skeletal animations");
    for (std::uint32_t i = 0; i < n_fska; ++i) f.anims.push_back(parse_switch_anim(r, fska_array + i * h.fska_size, h));
  }
  // Scene animations (cameras): the array holds the FSCNs back to back.
  if (const std::uint16_t n_scn = h.counts[5]) {
    const std::uint32_t scn_array = offset_at(r, h.field(0x78));
    if (!scn_array) fail(code::bad_offset, "scene animations counted but no array", h.field(0x78));
    f.scene_anims = parse_scene_anims_switch(r, scn_array, n_scn, h.v09());
  }
  // Embedded files: the array holds {u64 offset, u64 size}; the dictionary names them.
  const std::uint32_t ext_array = offset_at(r, h.field(0x98)),
                      ext_dict = offset_at(r, h.field(0xA0));
  const std::uint16_t n_ext = h.counts[6];
  if (ext_dict) f.dicts[11] = parse_switch_dict(r, ext_dict);
  if (n_ext) {
    if (!ext_array) fail(code::bad_offset, "embedded files counted but no array", h.field(0x98));
    if (!f.dicts[11] || f.dicts[11]->count != n_ext)
      fail(code::bad_count,
           "embedded-file dictionary does not have the " + std::to_string(n_ext) +
               " entries counted",
           h.field(0xA0));
    r.checked_count_at(ext_array, n_ext, 16, "embedded files");
    for (std::uint32_t i = 0; i < n_ext; ++i) {
      external_file e;
      e.entry_at = ext_array + 16 * i;
      e.data_at = r.u64_at(e.entry_at);
      e.size = r.u64_at(e.entry_at + 8);
      e.name = f.dicts[11]->nodes[i + 1].name;
      if (e.data_at > f.image.size() || e.size > f.image.size() - e.data_at)
        fail(code::bad_offset, "embedded file '" + e.name + "' (" + std::to_string(e.size) + " bytes at " +
                                   std::to_string(e.data_at) + ") lies outside the file", e.entry_at);
      f.external_files.push_back(std::move(e));
    }
  }
  // Models (FMDL with FSKL, FVTX, FSHP, FMAT): read-only, in fres_switch_model.cpp.
  parse_switch_models(r, f);
  f.sw = h;
  return f;
}

std::vector<std::uint8_t> serialise_switch(const file& f) {
  if (!f.sw) fail(code::internal, "Switch file without its header", 0);
  const switch_header& h = *f.sw;
  std::vector<std::uint8_t> out = f.image;
  core::byte_patcher p{out, true, "serialise"};
  auto u64 = [&](std::uint32_t at, std::uint64_t v) {
    p.u32(at, static_cast<std::uint32_t>(v));
    p.u32(at + 4, static_cast<std::uint32_t>(v >> 32));
  };
  p.magic(0, "FRES");
  p.magic(4, "    ");
  p.u32(8, f.version);
  p.u16(0x0C, f.bom);
  p.u8(0x0E, h.alignment_log2);
  p.u8(0x0F, h.address_size);
  p.u32(0x10, h.file_name_at);
  p.u16(0x14, h.flags);
  p.u16(0x16, h.first_block);
  p.u32(0x18, h.relocation_at);
  p.u32(0x1C, f.file_size);
  for (std::uint32_t i = 0; i < h.offsets.size(); ++i) u64(h.field(0x20 + 8 * i), h.offsets[i]);
  p.u32(h.field(0xB8), h.string_table_size);
  for (std::uint32_t i = 0; i < h.counts.size(); ++i) p.u16(count_at(h, i), h.counts[i]);
  if (h.v09()) {
    for (std::uint32_t i = 0; i < 32; ++i) p.u8(0x38 + i, h.reserved[i]);
    p.u16(0xDE, h.extra_counts[0]);
    p.u16(0xE0, h.extra_counts[1]);
  }
  for (const auto& d : {f.dicts[2], f.dicts[11]}) {
    if (!d) continue;
    p.u32(d->at, d->size);
    p.u32(d->at + 4, static_cast<std::uint32_t>(d->count));
    for (const auto& n : d->nodes) {
      p.u32(n.at, n.ref_bit);
      p.u16(n.at + 4, n.left);
      p.u16(n.at + 6, n.right);
      u64(n.at + 8, n.name_at);
    }
  }
  for (const auto& e : f.external_files) {
    u64(e.entry_at, e.data_at);
    u64(e.entry_at + 8, e.size);
  }
  for (const auto& a : f.anims) {
    p.magic(a.at, "FSKA");
    const std::uint32_t o = a.at + (h.v09() ? 8 : 0x10);
    u64(o, a.name_at);
    u64(o + 8, a.path_at);
    u64(o + 0x10, a.bind_skeleton_at);
    u64(o + 0x18, a.bind_index_at);
    u64(o + 0x20, a.bone_anims_at);
    u64(o + 0x28, a.user_data_at);
    if (h.v09())
      p.u32(a.at + 4, a.flags);
    else
      p.u32(o + 0x38, a.flags);
    const std::uint32_t n = o + (h.v09() ? 0x38 : 0x3C);
    p.u32(n, static_cast<std::uint32_t>(a.frame_count));
    p.u32(n + 4, static_cast<std::uint32_t>(a.num_curves));
    p.u32(n + 8, a.baked_size);
    p.u16(n + 12, a.num_bone_anims);
    p.u16(n + 14, a.num_user_data);
    for (std::uint32_t i = 0; i < a.bind_indices.size(); ++i) p.u16(a.bind_index_at + 2 * i, a.bind_indices[i]);
    for (const auto& b : a.bone_anims) {
      u64(b.at, b.name_at);
      u64(b.at + 8, b.curves_at);
      u64(b.at + 0x10, b.base_at);
      const std::uint32_t fa = b.at + (h.v09() ? 0x28 : 0x18);
      p.u32(fa, b.flags);
      p.u8(fa + 4, b.begin_rotate);
      p.u8(fa + 5, b.begin_translate);
      p.u8(fa + 6, b.num_curves);
      p.u8(fa + 7, b.begin_base_translate);
      for (std::uint32_t i = 0; i < 4; ++i) p.u8(fa + 8 + i, b.begin_curve[i]);
      for (std::uint32_t i = 0; i < b.base.size(); ++i) p.f32(b.base_at + 4 * i, b.base[i]);
      for (const auto& cv : b.curves) {
        u64(cv.at, cv.frames_at);
        u64(cv.at + 8, cv.keys_at);
        p.u16(cv.at + 0x10, cv.flags);
        p.u16(cv.at + 0x12, cv.num_keys);
        p.u32(cv.at + 0x14, cv.target);
        p.f32(cv.at + 0x18, cv.start);
        p.f32(cv.at + 0x1C, cv.end);
        p.u32(cv.at + 0x20, cv.scale_bits);
        p.u32(cv.at + 0x24, cv.offset_bits);
        if (cv.delta) p.f32(cv.at + 0x28, *cv.delta);
        patch_curve_arrays(p, cv);
      }
    }
  }
  return out;
}

}  // namespace rigrip::bfres
