#include "containers/sarc.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <set>

#include "core/byte_patcher.hpp"
#include "core/byte_reader.hpp"
#include "rigrip/registry.hpp"

namespace rigrip::containers::sarc {
namespace {

using core::byte_reader;
using core::fail;

constexpr std::uint32_t kMaxFiles = 0x3FFF;  // the SFAT count field's documented limit

// SARC is either byte order; the header says which.
using writer = core::byte_patcher;

}  // namespace

std::span<const std::uint8_t> archive::data(std::size_t i) const {
  const entry& e = entries.at(i);
  return std::span<const std::uint8_t>(image).subspan(data_offset + e.begin, e.size());
}

bool is_sarc(std::span<const std::uint8_t> d) { return d.size() >= 0x14 && std::memcmp(d.data(), "SARC", 4) == 0; }

std::uint32_t name_hash(std::string_view name, std::uint32_t multiplier) {
  std::uint32_t h = 0;
  for (char c : name) h = h * multiplier + static_cast<std::uint32_t>(static_cast<std::int32_t>(static_cast<signed char>(c)));
  return h;
}

archive parse(std::vector<std::uint8_t> image) {
  archive a;
  a.image = std::move(image);
  byte_reader r(a.image, core::endian::big);
  if (r.fixed_string(4) != "SARC") fail(code::bad_magic, "expected 'SARC'", 0);
  // The byte-order mark reads FEFF in the file's own order.
  if (a.image.size() < 8) fail(code::truncated, "SARC header cut short", 0);
  if (a.image[6] == 0xFF && a.image[7] == 0xFE) a.little_endian = true;
  else if (!(a.image[6] == 0xFE && a.image[7] == 0xFF)) fail(code::bad_value, "SARC byte-order mark is neither FEFF nor FFFE", 6);
  r.set_byte_order(a.little_endian ? core::endian::little : core::endian::big);
  a.header_size = r.u16();
  a.bom = r.u16();
  a.file_size = r.u32();
  a.data_offset = r.u32();
  a.version = r.u16();
  a.reserved = r.u16();
  if (a.header_size < 0x14) fail(code::bad_value, "SARC header size " + std::to_string(a.header_size) + " is below 0x14", 4);
  if (a.data_offset > a.image.size())
    fail(code::bad_offset, "SARC data section at " + std::to_string(a.data_offset) + " lies past the end (" +
                               std::to_string(a.image.size()) + " bytes)", 0x0C);
  a.sfat_at = a.header_size;
  byte_reader s = r.peek(a.sfat_at);
  if (s.fixed_string(4) != "SFAT") fail(code::bad_magic, "expected 'SFAT'", a.sfat_at);
  a.sfat_header_size = s.u16();
  const std::uint16_t count = s.u16();
  a.multiplier = s.u32();
  if (count > kMaxFiles) fail(code::bad_count, "SFAT file count " + std::to_string(count) + " exceeds 0x3FFF", a.sfat_at + 6);
  if (a.sfat_header_size < 0xC) fail(code::bad_value, "SFAT header size below 0xC", a.sfat_at + 4);
  const std::uint32_t nodes_at = a.sfat_at + a.sfat_header_size;
  r.checked_count_at(nodes_at, count, 16, "SFAT nodes");
  a.sfnt_at = nodes_at + 16u * count;
  byte_reader n = r.peek(a.sfnt_at);
  if (n.fixed_string(4) != "SFNT") fail(code::bad_magic, "expected 'SFNT'", a.sfnt_at);
  a.sfnt_header_size = n.u16();
  a.sfnt_reserved = n.u16();
  const std::uint32_t names_at = a.sfnt_at + a.sfnt_header_size;
  if (names_at > a.data_offset) fail(code::bad_offset, "SFNT name table overlaps the data section", a.sfnt_at);
  const std::uint64_t data_size = a.image.size() - a.data_offset;
  std::uint32_t prev_hash = 0;
  for (std::uint32_t i = 0; i < count; ++i) {
    byte_reader e = r.peek(nodes_at + 16 * i);
    entry en;
    en.at = nodes_at + 16 * i;
    en.hash = e.u32();
    en.attributes = e.u32();
    en.begin = e.u32();
    en.end = e.u32();
    if (en.end < en.begin || en.end > data_size)
      fail(code::bad_offset, "SARC file " + std::to_string(i) + " spans " + std::to_string(en.begin) + ".." +
                                 std::to_string(en.end) + ", outside the " + std::to_string(data_size) +
                                 "-byte data section", en.at + 8);
    if (i > 0 && en.hash < prev_hash)
      fail(code::bad_value, "SFAT nodes are not sorted by name hash (the runtime's binary search would miss files)", en.at);
    prev_hash = en.hash;
    if (en.attributes) {
      const std::uint64_t name_at = names_at + 4ull * (en.attributes & 0xFFFFFF);
      if (name_at >= a.data_offset) fail(code::bad_offset, "SARC file name offset outside the name table", en.at + 4);
      en.name = r.sub(0, a.data_offset).cstring_at(name_at, 1024);
    }
    a.entries.push_back(std::move(en));
  }
  return a;
}

std::vector<std::uint8_t> serialise(const archive& a) {
  std::vector<std::uint8_t> out = a.image;
  writer w{out, a.little_endian, "SARC write"};
  w.magic(0, "SARC");
  w.u16(4, a.header_size);
  w.u16(6, a.bom);
  w.u32(8, a.file_size);
  w.u32(12, a.data_offset);
  w.u16(16, a.version);
  w.u16(18, a.reserved);
  w.magic(a.sfat_at, "SFAT");
  w.u16(a.sfat_at + 4, a.sfat_header_size);
  w.u16(a.sfat_at + 6, static_cast<std::uint16_t>(a.entries.size()));
  w.u32(a.sfat_at + 8, a.multiplier);
  for (const auto& e : a.entries) {
    w.u32(e.at, e.hash);
    w.u32(e.at + 4, e.attributes);
    w.u32(e.at + 8, e.begin);
    w.u32(e.at + 12, e.end);
  }
  w.magic(a.sfnt_at, "SFNT");
  w.u16(a.sfnt_at + 4, a.sfnt_header_size);
  w.u16(a.sfnt_at + 6, a.sfnt_reserved);
  const std::uint32_t names_at = a.sfnt_at + a.sfnt_header_size;
  for (const auto& e : a.entries)
    if (e.name && e.attributes) {
      const std::uint32_t at = names_at + 4 * (e.attributes & 0xFFFFFF);
      w.check(at, static_cast<std::uint32_t>(e.name->size() + 1));
      std::memcpy(out.data() + at, e.name->data(), e.name->size());
      out[at + e.name->size()] = 0;
    }
  return out;
}

namespace {
std::uint32_t guess_alignment(const std::vector<std::uint8_t>& d) {
  auto magic = [&](const char* m) { return d.size() >= 4 && std::memcmp(d.data(), m, 4) == 0; };
  if (magic("SARC") || magic("Yaz0") || magic("FRES") || magic("BNTX") || magic("Gfx2")) return 0x100;
  return 8;
}
std::uint32_t align_up(std::uint32_t v, std::uint32_t a) { return a ? (v + a - 1) / a * a : v; }
}  // namespace

std::vector<std::uint8_t> build(const std::vector<build_file>& files, bool le, std::uint32_t multiplier) {
  if (files.size() > kMaxFiles) fail(code::limit_exceeded, "a SARC holds at most 0x3FFF files");
  struct item {
    const build_file* f;
    std::uint32_t hash, name_off = 0, collision = 1, begin = 0, end = 0;
  };
  std::vector<item> items;
  std::set<std::string> seen;
  for (const auto& f : files) {
    if (!seen.insert(f.name).second) fail(code::bad_value, "duplicate SARC file name '" + f.name + "'");
    items.push_back({&f, name_hash(f.name, multiplier)});
  }
  std::stable_sort(items.begin(), items.end(), [](const item& a, const item& b) { return a.hash < b.hash; });
  for (std::size_t i = 1; i < items.size(); ++i)
    if (items[i].hash == items[i - 1].hash) items[i].collision = items[i - 1].collision + 1;
  // Name table: entries 4-byte aligned, in SFAT order.
  std::vector<std::uint8_t> names;
  for (auto& it : items) {
    it.name_off = static_cast<std::uint32_t>(names.size() / 4);
    names.insert(names.end(), it.f->name.begin(), it.f->name.end());
    names.push_back(0);
    while (names.size() % 4) names.push_back(0);
  }
  const std::uint32_t sfat_at = 0x14, nodes_at = sfat_at + 0xC;
  const std::uint32_t sfnt_at = nodes_at + 16 * static_cast<std::uint32_t>(items.size());
  const std::uint32_t names_end = sfnt_at + 8 + static_cast<std::uint32_t>(names.size());
  std::uint32_t data_align = 4;
  for (const auto& it : items) data_align = std::max(data_align, it.f->alignment ? it.f->alignment : guess_alignment(it.f->data));
  const std::uint32_t data_offset = align_up(names_end, data_align);
  std::uint32_t pos = 0;
  for (auto& it : items) {
    pos = align_up(pos, it.f->alignment ? it.f->alignment : guess_alignment(it.f->data));
    it.begin = pos;
    pos += static_cast<std::uint32_t>(it.f->data.size());
    it.end = pos;
  }
  std::vector<std::uint8_t> out(static_cast<std::size_t>(data_offset) + pos, 0);
  writer w{out, le, "SARC write"};
  w.magic(0, "SARC");
  w.u16(4, 0x14);
  w.u16(6, 0xFEFF);
  w.u32(8, static_cast<std::uint32_t>(out.size()));
  w.u32(12, data_offset);
  w.u16(16, 0x100);
  w.magic(sfat_at, "SFAT");
  w.u16(sfat_at + 4, 0xC);
  w.u16(sfat_at + 6, static_cast<std::uint16_t>(items.size()));
  w.u32(sfat_at + 8, multiplier);
  for (std::size_t i = 0; i < items.size(); ++i) {
    const std::uint32_t at = nodes_at + 16 * static_cast<std::uint32_t>(i);
    w.u32(at, items[i].hash);
    w.u32(at + 4, (items[i].collision << 24) | items[i].name_off);
    w.u32(at + 8, items[i].begin);
    w.u32(at + 12, items[i].end);
  }
  w.magic(sfnt_at, "SFNT");
  w.u16(sfnt_at + 4, 8);
  // An archive of nameless files has an empty name table; memcpy may not take its null data().
  if (!names.empty()) std::memcpy(out.data() + sfnt_at + 8, names.data(), names.size());
  for (const auto& it : items)
    if (!it.f->data.empty()) std::memcpy(out.data() + data_offset + it.begin, it.f->data.data(), it.f->data.size());
  return out;
}

}  // namespace rigrip::containers::sarc

// ---- registration (src/containers/containers.inc) -----------------------------------
namespace rigrip::containers::sarc {
namespace {

std::uint32_t alignment_of(std::uint64_t absolute) {
  std::uint32_t a = 1;
  while (a < 0x2000 && absolute % (a * 2) == 0) a *= 2;
  return a;
}

int detect(byte_view d, std::string_view) { return is_sarc(d) ? score::magic : score::none; }

std::vector<container_entry> unpack(byte_view d) {
  archive a = parse(bytes(d.begin(), d.end()));
  std::vector<container_entry> out;
  for (std::size_t i = 0; i < a.entries.size(); ++i) {
    auto s = a.data(i);
    char fallback[32];
    std::snprintf(fallback, sizeof fallback, "0x%08X.bin", a.entries[i].hash);
    out.push_back({a.entries[i].name.value_or(fallback), bytes(s.begin(), s.end())});
  }
  return out;
}

bytes repack(byte_view original, const std::vector<container_entry>& entries) {
  archive a = parse(bytes(original.begin(), original.end()));
  // Unchanged names and sizes: the new bytes go where the old ones were, so the layout
  // (order, alignment, padding) is the original's, byte for byte where nothing changed.
  bool same_layout = entries.size() == a.entries.size();
  for (std::size_t i = 0; same_layout && i < entries.size(); ++i) {
    char fallback[32];
    std::snprintf(fallback, sizeof fallback, "0x%08X.bin", a.entries[i].hash);
    same_layout = entries[i].name == a.entries[i].name.value_or(fallback) && entries[i].data.size() == a.entries[i].size();
  }
  if (same_layout) {
    bytes out = serialise(a);
    for (std::size_t i = 0; i < entries.size(); ++i)
      std::copy(entries[i].data.begin(), entries[i].data.end(), out.begin() + a.data_offset + a.entries[i].begin);
    return out;
  }
  std::vector<build_file> files;
  for (const auto& e : entries) {
    build_file bf{e.name, e.data, 0};
    for (std::size_t i = 0; i < a.entries.size(); ++i)
      if (a.entries[i].name && *a.entries[i].name == e.name) bf.alignment = alignment_of(a.data_offset + a.entries[i].begin);
    files.push_back(std::move(bf));
  }
  return build(files, a.little_endian, a.multiplier);
}

nlohmann::json dump_raw(byte_view d) {
  archive a = parse(bytes(d.begin(), d.end()));
  nlohmann::json files = nlohmann::json::array();
  for (const auto& e : a.entries)
    files.push_back({{"name", e.name ? nlohmann::json(*e.name) : nlohmann::json(nullptr)},
                     {"hash", e.hash},
                     {"name_attributes", e.attributes},
                     {"begin", e.begin},
                     {"end", e.end},
                     {"alignment", alignment_of(a.data_offset + e.begin)}});
  return {{"format", "sarc"},           {"byte_order", a.little_endian ? "little" : "big"},
          {"version", a.version},       {"file_size", a.file_size},
          {"data_offset", a.data_offset}, {"hash_multiplier", a.multiplier},
          {"files", files}};
}

}  // namespace
}  // namespace rigrip::containers::sarc

rigrip::container rigrip_container_sarc() {
  using namespace rigrip;
  return container{"sarc", "Nintendo SARC archive (sead; .pack, .sarc, .sbactorpack, .sbeventpack, .szs once Yaz0 is opened)",
                   {".sarc", ".pack", ".bactorpack", ".beventpack", ".sbactorpack", ".sbeventpack", ".szs", ".ssarc"},
                   "content: 'SARC' magic (big- or little-endian by its byte-order mark)",
                   /*archive=*/true, "the SARC archive",
                   containers::sarc::detect, containers::sarc::unpack, containers::sarc::repack, containers::sarc::dump_raw};
}
