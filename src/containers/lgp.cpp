#include "containers/lgp.hpp"

#include <algorithm>
#include <cstring>
#include <map>
#include <set>

#include "core/byte_reader.hpp"
#include "rigrip/registry.hpp"

namespace rigrip::containers::lgp {
namespace {
using core::byte_reader;

std::string lower(std::string_view s) {
  std::string r(s);
  for (auto& c : r) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return r;
}

// The value of one name character in the lookup hash: letters and digits count alike
// ('a' and '0' are both 0), '_' is 10 and '-' 11; anything else cannot be looked up.
std::optional<std::size_t> char_value(char ch) {
  auto c = static_cast<unsigned char>(std::tolower(static_cast<unsigned char>(ch)));
  if (c >= 'a' && c <= 'z') return c - 'a';
  if (c >= '0' && c <= '9') return c - '0';
  if (c == '_') return 10;
  if (c == '-') return 11;
  return std::nullopt;
}

template <std::size_t N>
std::string until_nul(const std::array<std::uint8_t, N>& raw) {
  std::size_t n = 0;
  while (n < N && raw[n] != 0) ++n;
  return std::string(raw.begin(), raw.begin() + static_cast<std::ptrdiff_t>(n));
}

template <std::size_t N>
std::array<std::uint8_t, N> read_array(byte_reader& r) {
  std::array<std::uint8_t, N> a{};
  auto b = r.bytes(N);
  std::copy(b.begin(), b.end(), a.begin());
  return a;
}

std::string hex(std::uint64_t v) { return byte_reader::hex(v); }

std::string describe(std::size_t i, const std::string& name) {
  return "entry " + std::to_string(i) + " '" + name + "'";
}

// Warnings of one kind past this many are summed up in one line: a damaged table of a
// 10,000-file archive must not bury the other messages.
constexpr std::size_t max_warnings_per_kind = 12;

struct warner {
  archive& a;
  std::map<std::string, std::size_t> counts;
  void operator()(const std::string& kind, code c, std::string message, std::uint64_t offset) {
    if (++counts[kind] <= max_warnings_per_kind) a.warnings.push_back(warning{c, std::move(message), {}, offset, {}});
  }
  void finish() {
    for (const auto& [kind, n] : counts)
      if (n > max_warnings_per_kind)
        a.warnings.push_back(warning{code::w_suspicious_value,
                                     std::to_string(n - max_warnings_per_kind) + " more warnings like the above (" + kind + ")",
                                     {}, no_offset, {}});
  }
};

// ---- parse ------------------------------------------------------------------------------

void read_toc(byte_reader& r, archive& a) {
  const std::uint32_t count = r.u32();
  r.checked_count(count, toc_entry_size, "LGP table of contents");
  a.toc.resize(count);
  for (auto& e : a.toc) {
    e.raw_name = read_array<name_size>(r);
    e.name = until_nul(e.raw_name);
    e.offset = r.u32();
    e.check = r.u8();
    e.conflict = r.u16();
  }
}

// Checks where each entry's file header and data lie; fills `size` or `problem`.
void locate_entries(std::span<const std::uint8_t> data, archive& a, warner& warn) {
  const std::uint64_t toc_end = header_size + toc_entry_size * a.toc.size();
  const std::uint64_t n = data.size();
  byte_reader r(data);
  for (std::size_t i = 0; i < a.toc.size(); ++i) {
    auto& e = a.toc[i];
    const std::uint64_t field = header_size + toc_entry_size * i + name_size;  // the offset field
    if (e.offset < toc_end) {
      e.problem = make_error(code::bad_offset, describe(i, e.name) + ": its file header at " + hex(e.offset) +
                                                   " lies inside the header and table of contents (which end at " +
                                                   hex(toc_end) + ")", field);
    } else if (e.offset > n || n - e.offset < file_header_size) {
      e.problem = make_error(code::bad_offset, describe(i, e.name) + ": its file header at " + hex(e.offset) +
                                                   " is past the end of the archive (" + std::to_string(n) + " bytes)",
                             field);
    } else {
      const std::uint32_t size = r.u32_at(e.offset + name_size);
      if (size > n - e.offset - file_header_size) {
        e.problem = make_error(code::truncated, describe(i, e.name) + ": its " + std::to_string(size) +
                                                    " bytes of data at " + hex(e.offset + file_header_size) +
                                                    " run past the end of the archive (" + std::to_string(n) + " bytes)",
                               e.offset + name_size);
      } else {
        e.size = size;
      }
    }
    if (e.problem) {
      e.problem->format = "lgp";
      continue;
    }
    std::array<std::uint8_t, name_size> stored{};
    std::memcpy(stored.data(), data.data() + e.offset, name_size);
    const std::string stored_name = until_nul(stored);
    if (lower(stored_name) != lower(e.name))
      warn("file header names", code::w_name_mismatch,
           describe(i, e.name) + ": its file header at " + hex(e.offset) + " names '" + stored_name +
               "'; the table of contents' name is used", e.offset);
  }
}

// The records the entries point at, one per distinct offset, in file order.
void collect_records(std::span<const std::uint8_t> data, archive& a) {
  std::set<std::uint32_t> offsets;
  for (const auto& e : a.toc)
    if (!e.problem) offsets.insert(e.offset);
  for (auto off : offsets) {
    record rec;
    rec.offset = off;
    std::memcpy(rec.raw_name.data(), data.data() + off, name_size);
    rec.name = until_nul(rec.raw_name);
    byte_reader r(data);
    rec.size = r.u32_at(off + name_size);
    rec.data = data.subspan(off + file_header_size, rec.size);
    a.records.push_back(rec);
  }
}

// Lookup table (3600 bytes) then the conflict table (u16 groups; per group u16 refs, each a
// 128-byte folder and a u16 TOC index). False when they do not fit in the region.
bool read_tables(byte_reader r, archive& a) {
  if (r.size() < lookup_size) return false;
  a.lookup.resize(lookup_slots);
  for (auto& l : a.lookup) {
    l.first = r.u16();
    l.count = r.u16();
  }
  if (r.remaining() < 2) {
    a.lookup.clear();
    return false;
  }
  const std::uint16_t groups = r.u16();
  for (std::uint16_t g = 0; g < groups; ++g) {
    if (r.remaining() < 2) return false;
    const std::uint16_t refs = r.u16();
    if (refs > r.remaining() / conflict_ref_size) return false;
    std::vector<conflict_ref> group(refs);
    for (auto& c : group) {
      c.raw_folder = read_array<folder_size>(r);
      c.folder = until_nul(c.raw_folder);
      c.toc_index = r.u16();
    }
    a.conflicts.push_back(std::move(group));
  }
  auto rest = r.bytes(r.remaining());
  a.after_tables.assign(rest.begin(), rest.end());
  return true;
}

void read_table_region(std::span<const std::uint8_t> data, archive& a, std::uint64_t begin, std::uint64_t end,
                       warner& warn) {
  byte_reader all(data);
  byte_reader region = all.sub(begin, end - begin);
  a.tables = read_tables(region, a);
  if (a.tables) return;
  a.lookup.clear();
  a.conflicts.clear();
  a.after_tables.clear();
  auto b = data.subspan(static_cast<std::size_t>(begin), static_cast<std::size_t>(end - begin));
  a.raw_tables.assign(b.begin(), b.end());
  if (end - begin < lookup_size + 2)
    warn("tables", code::w_opaque_data,
         "no lookup table: " + std::to_string(end - begin) + " bytes lie between the table of contents and the first file (" +
             std::to_string(lookup_size + 2) + " at least in a game archive); they are kept as they are, and the "
             "game cannot look files up in this archive until it is rebuilt",
         begin);
  else
    warn("tables", code::w_opaque_data,
         "the conflict table after the lookup table runs past the first file; the " + std::to_string(end - begin) +
             " bytes of tables are kept as they are", begin + lookup_size);
}

// Does the lookup table send the game to every entry, and only to entries of its prefix?
void check_lookup(archive& a, warner& warn) {
  const std::uint64_t table_at = header_size + toc_entry_size * a.toc.size();
  const std::size_t n = a.toc.size();
  std::vector<std::optional<std::size_t>> slot_of(n);
  for (std::size_t i = 0; i < n; ++i) slot_of[i] = lookup_slot(a.toc[i].name);
  for (std::size_t i = 0; i < n; ++i) {
    const auto& e = a.toc[i];
    const auto& slot = slot_of[i];
    if (!slot) {
      warn("names the game cannot look up", code::w_suspicious_value,
           describe(i, e.name) + ": the game cannot look this name up (its first two characters must be letters, "
                                 "digits, '_' or '-')", header_size + toc_entry_size * i);
      continue;
    }
    const auto& l = a.lookup[*slot];
    if (l.first == 0 || i + 1 < l.first || i + 1 >= std::size_t(l.first) + l.count)
      warn("lookup table", code::w_suspicious_value,
           describe(i, e.name) + ": the lookup table's slot '" + slot_prefix(*slot) + "' lists " +
               (l.count == 0 || l.first == 0 ? std::string("no entries")
                                             : "entries " + std::to_string(l.first - 1) + ".." +
                                                   std::to_string(l.first - 1 + l.count - 1)) +
               ", not this one: the game will not find it (the table of contents is used here)",
           table_at + 4 * *slot);
  }
  for (std::size_t s = 0; s < lookup_slots; ++s) {
    const auto& l = a.lookup[s];
    if (l.count == 0) continue;
    if (l.first == 0 || std::size_t(l.first) - 1 + l.count > n) {
      warn("lookup table", code::w_suspicious_value,
           "lookup slot '" + slot_prefix(s) + "' points at entries " + std::to_string(l.first) + "+" +
               std::to_string(l.count) + " (1-based) beyond the " + std::to_string(n) + " in the table of contents",
           table_at + 4 * s);
      continue;
    }
    // The first stranger ends the walk: one message per slot, and the walks together stay
    // linear in the TOC size (a run of entries matches one slot only).
    for (std::size_t j = l.first - 1; j < std::size_t(l.first) - 1 + l.count; ++j)
      if (slot_of[j] != s) {
        warn("lookup table", code::w_suspicious_value,
             "lookup slot '" + slot_prefix(s) + "' covers " + describe(j, a.toc[j].name) +
                 ", whose name does not start with that prefix", table_at + 4 * s);
        break;
      }
  }
}

// Folders from the conflict table, and agreement between it and the TOC's conflict fields.
void apply_conflicts(archive& a, warner& warn) {
  std::vector<bool> placed(a.toc.size(), false);
  for (std::size_t g = 0; g < a.conflicts.size(); ++g)
    for (const auto& c : a.conflicts[g]) {
      if (c.toc_index >= a.toc.size()) {
        warn("conflict table", code::w_suspicious_value,
             "conflict group " + std::to_string(g + 1) + " names TOC entry " + std::to_string(c.toc_index) +
                 " of " + std::to_string(a.toc.size()) + "; ignored", no_offset);
        continue;
      }
      auto& e = a.toc[c.toc_index];
      if (e.conflict != g + 1) {
        warn("conflict table", code::w_suspicious_value,
             "conflict group " + std::to_string(g + 1) + " places " + describe(c.toc_index, e.name) + " in folder '" +
                 c.folder + "' but the entry names group " + std::to_string(e.conflict) + "; ignored", no_offset);
        continue;
      }
      e.folder = c.folder;
      placed[c.toc_index] = true;
    }
  for (std::size_t i = 0; i < a.toc.size(); ++i)
    if (a.toc[i].conflict != 0 && !placed[i])
      warn("conflict table", code::w_suspicious_value,
           describe(i, a.toc[i].name) + " names conflict group " + std::to_string(a.toc[i].conflict) + " of " +
               std::to_string(a.conflicts.size()) + ", which does not list it: its folder is unknown",
           header_size + toc_entry_size * i + name_size + 5);
}

// Records and the bytes around them, in file order, covering [begin, end of data).
void build_layout(std::span<const std::uint8_t> data, archive& a, std::uint64_t begin, warner& warn) {
  std::uint64_t cursor = begin;
  auto raw = [&](std::uint64_t from, std::uint64_t to) {
    piece p;
    p.raw.assign(data.begin() + static_cast<std::ptrdiff_t>(from), data.begin() + static_cast<std::ptrdiff_t>(to));
    a.layout.push_back(std::move(p));
  };
  std::size_t last = 0;
  for (std::size_t k = 0; k < a.records.size(); ++k) {
    const auto& rec = a.records[k];
    const std::uint64_t end = std::uint64_t(rec.offset) + file_header_size + rec.size;
    if (rec.offset >= cursor) {
      if (rec.offset > cursor) raw(cursor, rec.offset);
      a.layout.push_back(piece{k, {}});
      cursor = end;
      last = k;
      continue;
    }
    // Starts inside the record before it: its bytes are already written as that record's.
    warn("overlapping files", code::w_suspicious_value,
         "the file at " + hex(rec.offset) + " ('" + rec.name + "') overlaps the one at " + hex(a.records[last].offset) +
             " ('" + a.records[last].name + "')", rec.offset);
    if (end > cursor) {
      raw(cursor, end);
      cursor = end;
    }
  }
  a.terminator.assign(data.begin() + static_cast<std::ptrdiff_t>(cursor), data.end());
}

void warn_duplicates(archive& a, warner& warn) {
  std::map<std::string, std::size_t> first;
  for (std::size_t i = 0; i < a.toc.size(); ++i) {
    auto [it, fresh] = first.emplace(lower(entry_path(a.toc[i])), i);
    if (!fresh)
      warn("duplicate names", code::w_suspicious_value,
           describe(i, entry_path(a.toc[i])) + " has the same name as entry " + std::to_string(it->second) +
               " and no folder from the conflict table tells them apart",
           header_size + toc_entry_size * i);
  }
}
}  // namespace

std::optional<std::size_t> lookup_slot(std::string_view name) {
  if (name.size() < 2) return std::nullopt;
  auto a = char_value(name[0]), b = char_value(name[1]);
  if (!a || !b) return std::nullopt;
  return *a * lookup_side + *b + 1;
}

std::string slot_prefix(std::size_t slot) {
  if (slot == 0 || slot >= lookup_slots) return "?";
  std::size_t v = slot - 1;
  return {static_cast<char>('a' + v / lookup_side), static_cast<char>('a' + v % lookup_side)};
}

bool has_signature(std::span<const std::uint8_t> d) {
  if (d.size() < header_size) return false;
  std::size_t i = 0;
  while (i < creator_size && d[i] == 0) ++i;  // right-aligned: NULs first
  std::string creator(d.begin() + static_cast<std::ptrdiff_t>(i), d.begin() + creator_size);
  return creator == game_creator || creator == "FICEDULA-LGP";
}

std::string entry_path(const toc_entry& e) { return e.folder.empty() ? e.name : e.folder + "/" + e.name; }

archive parse(std::span<const std::uint8_t> data) {
  archive a;
  warner warn{a, {}};
  byte_reader r(data);
  a.creator = read_array<creator_size>(r);
  read_toc(r, a);
  const std::uint64_t toc_end = r.tell();
  locate_entries(data, a, warn);
  collect_records(data, a);
  const std::uint64_t first = a.records.empty() ? data.size() : a.records.front().offset;
  read_table_region(data, a, toc_end, first, warn);
  if (a.tables) {
    check_lookup(a, warn);
    apply_conflicts(a, warn);
  } else {
    for (std::size_t i = 0; i < a.toc.size(); ++i)
      if (a.toc[i].conflict != 0)
        warn("conflict table", code::w_suspicious_value,
             describe(i, a.toc[i].name) + " names conflict group " + std::to_string(a.toc[i].conflict) +
                 " but the archive has no conflict table: its folder is unknown",
             header_size + toc_entry_size * i + name_size + 5);
  }
  warn_duplicates(a, warn);
  build_layout(data, a, first, warn);
  if (a.records.empty() && a.terminator.empty()) std::swap(a.terminator, a.after_tables);  // no files: just the end
  warn.finish();
  return a;
}

byte_vec serialise(const archive& a) {
  core::byte_writer w;
  w.bytes(a.creator);
  w.u32(static_cast<std::uint32_t>(a.toc.size()));
  for (const auto& e : a.toc) {
    w.bytes(e.raw_name);
    w.u32(e.offset);
    w.u8(e.check);
    w.u16(e.conflict);
  }
  if (a.tables) {
    for (const auto& l : a.lookup) w.u16(l.first), w.u16(l.count);
    w.u16(static_cast<std::uint16_t>(a.conflicts.size()));
    for (const auto& g : a.conflicts) {
      w.u16(static_cast<std::uint16_t>(g.size()));
      for (const auto& c : g) w.bytes(c.raw_folder), w.u16(c.toc_index);
    }
    w.bytes(a.after_tables);
  } else {
    w.bytes(a.raw_tables);
  }
  for (const auto& p : a.layout) {
    if (!p.record) {
      w.bytes(p.raw);
      continue;
    }
    const auto& rec = a.records[*p.record];
    w.bytes(rec.raw_name);
    w.u32(rec.size);
    w.bytes(rec.data);
  }
  w.bytes(a.terminator);
  return w.take();
}

std::span<const std::uint8_t> entry_data(const archive& a, std::size_t i) {
  const auto& e = a.toc.at(i);
  if (e.problem) throw core::failure(*e.problem);
  for (const auto& rec : a.records)
    if (rec.offset == e.offset) return rec.data;
  core::fail(code::internal, describe(i, e.name) + ": no record at its offset");
}

// ---- build ------------------------------------------------------------------------------

namespace {
struct placed_file {
  std::string folder, name;
  std::size_t slot = 0;
  std::size_t input = 0;  // index into the given files
};

placed_file check_file(const file& f, std::size_t i) {
  placed_file p;
  p.input = i;
  auto cut = f.path.rfind('/');
  p.name = cut == std::string::npos ? f.path : f.path.substr(cut + 1);
  p.folder = cut == std::string::npos ? std::string() : f.path.substr(0, cut);
  auto bad = [&](const std::string& why) { core::fail(code::bad_value, "LGP entry '" + f.path + "': " + why); };
  if (p.name.empty()) bad("empty file name");
  if (p.name.size() > name_size) bad("the name is longer than " + std::to_string(name_size) + " bytes");
  if (p.folder.size() >= folder_size) bad("the folder is longer than " + std::to_string(folder_size - 1) + " bytes");
  auto slot = lookup_slot(p.name);
  if (!slot) bad("the game cannot look this name up: its first two characters must be letters, digits, '_' or '-'");
  p.slot = *slot;
  return p;
}

template <std::size_t N>
std::array<std::uint8_t, N> padded(const std::string& s) {
  std::array<std::uint8_t, N> a{};
  std::copy_n(s.begin(), std::min(s.size(), N), a.begin());
  return a;
}
}  // namespace

byte_vec build(const std::vector<file>& files, const build_options& o) {
  if (files.size() > 0xFFFF)
    core::fail(code::limit_exceeded, "an LGP holds at most 65535 files (its lookup table counts in 16 bits); " +
                                         std::to_string(files.size()) + " given");
  if (o.creator.size() > creator_size) core::fail(code::bad_value, "LGP creator longer than 12 bytes: " + o.creator);
  std::vector<placed_file> toc;
  std::set<std::string> seen;
  for (std::size_t i = 0; i < files.size(); ++i) {
    toc.push_back(check_file(files[i], i));
    if (!seen.insert(lower(files[i].path)).second)
      core::fail(code::bad_value, "LGP entry '" + files[i].path + "' given twice");
  }
  std::stable_sort(toc.begin(), toc.end(), [](const auto& x, const auto& y) { return x.slot < y.slot; });

  // Lookup: each slot's first TOC entry (1-based) and count; conflicts: equal names in one slot.
  std::vector<lookup_entry> lookup(lookup_slots);
  for (std::size_t t = 0; t < toc.size(); ++t) {
    auto& l = lookup[toc[t].slot];
    if (l.count == 0) l.first = static_cast<std::uint16_t>(t + 1);
    ++l.count;
  }
  std::vector<std::uint16_t> conflict_of(toc.size(), 0);
  std::vector<std::vector<std::size_t>> groups;
  for (std::size_t t = 0; t < toc.size(); ++t) {
    if (conflict_of[t]) continue;
    std::vector<std::size_t> same{t};
    for (std::size_t u = t + 1; u < toc.size() && toc[u].slot == toc[t].slot; ++u)
      if (lower(toc[u].name) == lower(toc[t].name)) same.push_back(u);
    if (same.size() < 2) continue;
    groups.push_back(same);
    for (auto u : same) conflict_of[u] = static_cast<std::uint16_t>(groups.size());
  }
  if (groups.size() > 0xFFFF) core::fail(code::limit_exceeded, "too many conflict groups for an LGP");

  std::uint64_t offset = header_size + toc_entry_size * toc.size() + lookup_size + 2;
  for (const auto& g : groups) offset += 2 + conflict_ref_size * g.size();
  std::vector<std::uint32_t> offset_of(files.size());
  for (std::size_t i = 0; i < files.size(); ++i) {
    if (offset > 0xFFFFFFFFull)
      core::fail(code::limit_exceeded, "LGP offsets are 32-bit: the files do not fit in 4 GiB");
    offset_of[i] = static_cast<std::uint32_t>(offset);
    offset += file_header_size + files[i].data.size();
  }

  core::byte_writer w;
  w.fill(creator_size - o.creator.size());
  w.string(o.creator, false);
  w.u32(static_cast<std::uint32_t>(toc.size()));
  for (std::size_t t = 0; t < toc.size(); ++t) {
    w.bytes(padded<name_size>(toc[t].name));
    w.u32(offset_of[toc[t].input]);
    w.u8(files[toc[t].input].check);
    w.u16(conflict_of[t]);
  }
  for (const auto& l : lookup) w.u16(l.first), w.u16(l.count);
  w.u16(static_cast<std::uint16_t>(groups.size()));
  for (const auto& g : groups) {
    w.u16(static_cast<std::uint16_t>(g.size()));
    for (auto t : g) w.bytes(padded<folder_size>(toc[t].folder)), w.u16(static_cast<std::uint16_t>(t));
  }
  for (std::size_t i = 0; i < files.size(); ++i) {
    const auto cut = files[i].path.rfind('/');
    w.bytes(padded<name_size>(cut == std::string::npos ? files[i].path : files[i].path.substr(cut + 1)));
    if (files[i].data.size() > 0xFFFFFFFFull) core::fail(code::limit_exceeded, "LGP entry larger than 4 GiB");
    w.u32(static_cast<std::uint32_t>(files[i].data.size()));
    w.bytes(files[i].data);
  }
  w.bytes(o.terminator);
  return w.take();
}

// ---- JSON -------------------------------------------------------------------------------

namespace {
nlohmann::json text_or_size(const byte_vec& b) {
  bool printable = std::all_of(b.begin(), b.end(), [](std::uint8_t c) { return c >= 0x20 && c < 0x7F; });
  if (printable) return std::string(b.begin(), b.end());
  return nlohmann::json{{"bytes", b.size()}};
}
}  // namespace

nlohmann::json to_json(const archive& a) {
  using nlohmann::json;
  std::size_t i0 = 0;
  while (i0 < creator_size && a.creator[i0] == 0) ++i0;
  json j{{"container", "lgp"},
         {"creator", std::string(a.creator.begin() + static_cast<std::ptrdiff_t>(i0), a.creator.end())},
         {"file_count", a.toc.size()}};
  json toc = json::array();
  for (std::size_t i = 0; i < a.toc.size(); ++i) {
    const auto& e = a.toc[i];
    json t{{"index", i}, {"name", e.name}, {"offset", e.offset}, {"check", e.check}, {"conflict", e.conflict}};
    if (!e.folder.empty()) t["folder"] = e.folder;
    if (e.size) t["size"] = *e.size;
    if (auto s = lookup_slot(e.name)) t["lookup_slot"] = *s;
    if (e.problem) t["problem"] = e.problem->message;
    toc.push_back(std::move(t));
  }
  j["toc"] = std::move(toc);
  json lookup{{"present", a.tables}};
  if (a.tables) {
    json slots = json::array();
    for (std::size_t s = 0; s < a.lookup.size(); ++s)
      if (a.lookup[s].first || a.lookup[s].count)
        slots.push_back({{"slot", s}, {"prefix", slot_prefix(s)}, {"first", a.lookup[s].first}, {"count", a.lookup[s].count}});
    lookup["slots"] = std::move(slots);
  } else {
    lookup["raw_bytes"] = a.raw_tables.size();
  }
  j["lookup_table"] = std::move(lookup);
  json conflicts = json::array();
  for (const auto& g : a.conflicts) {
    json refs = json::array();
    for (const auto& c : g) refs.push_back({{"folder", c.folder}, {"toc_index", c.toc_index}});
    conflicts.push_back(std::move(refs));
  }
  j["conflicts"] = std::move(conflicts);
  json gaps = json::array();
  std::uint64_t at = a.records.empty() ? 0 : a.records.front().offset;
  for (const auto& p : a.layout) {
    if (p.record) {
      const auto& rec = a.records[*p.record];
      at = rec.offset + file_header_size + std::uint64_t(rec.size);
    } else {
      gaps.push_back({{"offset", at}, {"size", p.raw.size()}});
      at += p.raw.size();
    }
  }
  j["layout"] = {{"after_tables_bytes", a.after_tables.size()},
                 {"records", a.records.size()},
                 {"unreferenced_gaps", std::move(gaps)}};
  j["terminator"] = text_or_size(a.terminator);
  json warnings = json::array();
  for (const auto& w : a.warnings) {
    json x{{"code", info(w.code).id}, {"message", w.message}};
    if (w.offset != no_offset) x["offset"] = w.offset;
    warnings.push_back(std::move(x));
  }
  j["warnings"] = std::move(warnings);
  return j;
}

}  // namespace rigrip::containers::lgp

// ---- registration (src/containers/containers.inc) -----------------------------------

namespace rigrip::containers {
namespace {
int detect_lgp(byte_view d, std::string_view) { return lgp::has_signature(d) ? score::magic : score::none; }

// Inner paths, made unique: a second entry of the same name (an archive the conflict table
// does not sort out) is listed as "name~2".
std::vector<std::string> inner_paths(const lgp::archive& a) {
  std::vector<std::string> out;
  std::map<std::string, int> uses;
  for (const auto& e : a.toc) {
    std::string p = lgp::entry_path(e);
    int n = ++uses[lgp::lower(p)];
    out.push_back(n == 1 ? p : p + "~" + std::to_string(n));
  }
  return out;
}

std::vector<container_entry> entries_of(const lgp::archive& a, bool strict) {
  std::vector<container_entry> out;
  auto names = inner_paths(a);
  for (std::size_t i = 0; i < a.toc.size(); ++i) {
    const auto& e = a.toc[i];
    if (e.problem) {
      if (strict) throw core::failure(*e.problem);
      out.push_back(container_entry{names[i], {}, e.problem});
      continue;
    }
    auto d = lgp::entry_data(a, i);
    out.push_back(container_entry{names[i], bytes(d.begin(), d.end()), std::nullopt});
  }
  return out;
}

std::vector<container_entry> unpack_lgp(byte_view d) { return entries_of(lgp::parse(d), true); }

std::vector<container_entry> unpack_lgp_checked(byte_view d, diagnostics& diags) {
  auto a = lgp::parse(d);
  for (auto& w : a.warnings) {
    if (w.file.empty()) w.file = diags.file;
    diags.warnings.push_back(w);
  }
  return entries_of(a, false);
}

bool same_entries(const std::vector<container_entry>& x, const std::vector<container_entry>& y) {
  if (x.size() != y.size()) return false;
  for (std::size_t i = 0; i < x.size(); ++i)
    if (x[i].name != y[i].name || x[i].data != y[i].data || x[i].problem.has_value() != y[i].problem.has_value())
      return false;
  return true;
}

// The archive rebuilt around `entries`: unchanged, the original bytes come back through the raw
// layer; otherwise a new archive keeps the original's creator, terminator, per-entry check
// bytes and data order (new entries last), with the TOC and tables rebuilt.
bytes repack_lgp(byte_view original, const std::vector<container_entry>& entries) {
  lgp::build_options o;
  std::map<std::string, std::pair<std::uint32_t, std::uint8_t>> known;  // path -> (offset, check)
  if (lgp::has_signature(original)) {
    auto a = lgp::parse(original);
    if (same_entries(entries_of(a, false), entries)) return lgp::serialise(a);
    std::size_t i0 = 0;
    while (i0 < lgp::creator_size && a.creator[i0] == 0) ++i0;
    o.creator.assign(a.creator.begin() + static_cast<std::ptrdiff_t>(i0), a.creator.end());
    o.terminator = a.terminator;
    auto names = inner_paths(a);
    for (std::size_t i = 0; i < a.toc.size(); ++i)
      known.emplace(lgp::lower(names[i]), std::pair{a.toc[i].offset, a.toc[i].check});
  }
  std::vector<std::size_t> order(entries.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  auto place = [&](std::size_t i) {
    auto it = known.find(lgp::lower(entries[i].name));
    return it == known.end() ? std::uint64_t(1) << 40 : std::uint64_t(it->second.first);
  };
  std::stable_sort(order.begin(), order.end(), [&](auto x, auto y) { return place(x) < place(y); });
  std::vector<lgp::file> files;
  for (auto i : order) {
    if (entries[i].problem) throw core::failure(*entries[i].problem);
    auto it = known.find(lgp::lower(entries[i].name));
    files.push_back({entries[i].name, entries[i].data, it == known.end() ? lgp::usual_check : it->second.second});
  }
  return lgp::build(files, o);
}

nlohmann::json dump_lgp(byte_view d) { return lgp::to_json(lgp::parse(d)); }
}  // namespace
}  // namespace rigrip::containers

rigrip::container rigrip_container_lgp() {
  using namespace rigrip;
  container c{"lgp", "Final Fantasy VII (PC) LGP archive (battle.lgp, char.lgp, magic.lgp ...): named files",
              {".lgp"}, "content: right-aligned creator 'SQUARESOFT' (or 'FICEDULA-LGP') in the first 12 bytes",
              /*archive=*/true, "the LGP archive", containers::detect_lgp, containers::unpack_lgp,
              containers::repack_lgp, containers::dump_lgp};
  c.unpack_checked = containers::unpack_lgp_checked;
  return c;
}
