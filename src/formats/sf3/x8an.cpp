// X8AN*.BIN external attack animations: key-table segments at 0x800-aligned offsets.
#include "formats/sf3/x8an.hpp"

#include <algorithm>

namespace rigrip::sf3 {
namespace {

using core::byte_reader;
using core::byte_writer;
using core::endian;
using core::fail;

}  // namespace

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

x8an_file parse_x8an(byte_span file, bool copy_keys) {
  x8an_file f;
  f.source = file;
  byte_reader r(file, endian::big);
  std::uint64_t off = 0;
  work_budget budget{2 * static_cast<std::uint64_t>(file.size()) + 4096};
  // One arena for every segment's arrays: they take about the file's bytes.
  auto arena = copy_keys ? std::make_shared<key_arena>(std::max<std::size_t>(file.size(), 256)) : nullptr;
  while (off < file.size()) {
    x8an_segment s;
    s.offset = off;
    byte_reader seg = r.sub(off, file.size() - off);
    std::uint32_t table = seg.u32_at(0);
    if (table < 4)
      fail(code::bad_offset, "x8an segment at " + hex(off) + ": table offset " + hex(table) + " inside the segment header", off);
    s.key_refs = scan_key_table(seg, table, 4, &budget);
    s.frames = frame_range(s.key_refs, seg.data().data());
    if (copy_keys) {
      s.keys = read_key_table(seg, s.key_refs, arena);
    } else {
      s.keys.canonical = s.key_refs.canonical;
      s.keys.end = s.key_refs.end;
    }
    std::uint64_t end = off + s.keys.end;
    // Only a non-canonical layout is written back from its bytes.
    if (!s.keys.canonical) {
      auto d = seg.data();
      s.original.assign(d.begin(), d.begin() + s.keys.end);
    }
    std::uint64_t next = (end + sector - 1) / sector * sector;
    std::uint64_t pad_end = std::min<std::uint64_t>(next, file.size());
    s.padding.assign(file.begin() + static_cast<std::ptrdiff_t>(end), file.begin() + static_cast<std::ptrdiff_t>(pad_end));
    f.segments.push_back(std::move(s));
    off = next;
  }
  if (f.segments.empty()) fail(code::truncated, "x8an file is empty", 0);
  return f;
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

x8an_layout x8an_index(const x8an_file& f) {
  x8an_layout l;
  l.groups.reserve(f.segments.size());
  l.ranges.reserve(f.segments.size());
  int group = 0;
  for (std::size_t i = 0; i < f.segments.size(); ++i) {
    l.ranges.push_back(f.segments[i].frames);
    if (i > 0) {
      bool bones_change = f.segments[i].key_refs.bones.size() != f.segments[i - 1].key_refs.bones.size();
      bool restart = l.ranges[i].first == l.ranges[0].first;
      if (bones_change || restart) ++group;
    }
    l.groups.push_back(group);
  }
  return l;
}

std::vector<int> x8an_groups(const x8an_file& f) { return x8an_index(f).groups; }

// `dump --raw` of an X8AN file.
nlohmann::json x8an_to_json(const x8an_file& an) {
  using nlohmann::json;
  auto groups = x8an_groups(an);
  json segs = json::array();
  for (std::size_t i = 0; i < an.segments.size(); ++i) {
    const auto& sg = an.segments[i];
    auto fr = sg.frames;
    segs.push_back({{"offset", sg.offset}, {"group", groups[i]}, {"bones", sg.keys.bones.size()},
                    {"first_frame", fr.first}, {"last_frame", fr.second}, {"keyframes", key_table_to_json(sg.keys)}});
  }
  return json{{"format", "sf3-x8an"}, {"segments", segs}};
}

}  // namespace rigrip::sf3
