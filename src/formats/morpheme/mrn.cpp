// MRN packet layer, typed payload views and payload writers. Layout: README.md here.
#include "formats/morpheme/mrn.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "core/math.hpp"
#include "formats/morpheme/common.hpp"

namespace rigrip::morpheme {

using core::byte_reader;
using core::fail;
using hexs = core::byte_reader;

const char* packet_type_name(std::uint32_t t) {
  switch (t) {
    case pt_skeleton: return "skeleton";
    case pt_skeleton_map: return "skeleton_map";
    case pt_event_track: return "event_track";
    case pt_event_track_duration: return "event_track_duration";
    case pt_character_controller: return "character_controller";
    case pt_network: return "network";
    case pt_plugin_list: return "plugin_list";
    case pt_file_names: return "file_names";
    case pt_skeleton_names: return "skeleton_names";
    case pt_nsa: return "nsa";
    default: return nullptr;
  }
}

namespace {

// Header geometry of each variant.
struct variant_layout {
  std::uint32_t magic0, magic1;
  std::uint32_t header_size;
  bool u64_length;         // length field width
  bool absolute_alignment; // payload aligned in the file (morpheme 5) or after the header (Forgelight)
  std::uint64_t next_alignment;
};
variant_layout layout_of(bundle_variant v) {
  switch (v) {
    case bundle_variant::sdk_x64: return {magic_sdk_x64[0], magic_sdk_x64[1], 0x30, true, true, 4};
    case bundle_variant::sdk_win32: return {magic_x86[0], magic_x86[1], 0x28, false, true, 4};
    default: return {magic_x64[0], magic_x64[1], 0x28, false, false, 16};
  }
}

std::uint64_t align_up(std::uint64_t v, std::uint64_t a) { return (v + a - 1) / a * a; }

// Header geometry checks for detection: magic, alignment 1..4096, payload inside the data.
bool header_sane(std::span<const std::uint8_t> d, bundle_variant v) {
  auto L = layout_of(v);
  if (d.size() < L.header_size) return false;
  if (le32(d, 0) != L.magic0 || le32(d, 4) != L.magic1) return false;
  std::uint64_t len = le32(d, 0x20);
  if (L.u64_length) len |= static_cast<std::uint64_t>(le32(d, 0x24)) << 32;
  std::uint32_t al = le32(d, L.u64_length ? 0x28 : 0x24);
  if (al == 0 || al > 4096) return false;
  std::uint64_t pad = L.absolute_alignment ? align_up(L.header_size, al) - L.header_size
                                           : (al - L.header_size % al) % al;
  return L.header_size + pad <= d.size() && len <= d.size() - L.header_size - pad;
}

}  // namespace

const char* sdk_packet_type_name(std::uint32_t t) {
  switch (t) {
    case 1: return "rig";
    case 2: return "rig_to_anim_map";
    case 3: return "discrete_event_track";
    case 4: return "duration_event_track";
    case 7: return "character_controller";
    case 10: return "network";
    case 12: return "file_header";
    case 13: return "file_name_lookup_table";
    default: return nullptr;
  }
}

bool looks_like_x64_mrn(std::span<const std::uint8_t> d) { return header_sane(d, bundle_variant::forgelight_x64); }
bool looks_like_x86_mrn(std::span<const std::uint8_t> d) {
  return d.size() >= 8 && le32(d, 0) == magic_x86[0] && le32(d, 4) == magic_x86[1];
}
bool looks_like_sdk_bundle(std::span<const std::uint8_t> d) {
  return header_sane(d, bundle_variant::sdk_x64) || header_sane(d, bundle_variant::sdk_win32);
}

mrn_view scan_mrn(std::span<const std::uint8_t> data) {
  mrn_view f;
  if (data.size() < 8) fail(code::truncated, "a packet file needs at least one 40-byte header", 0);
  if (le32(data, 0) == magic_sdk_x64[0] && le32(data, 4) == magic_sdk_x64[1]) f.variant = bundle_variant::sdk_x64;
  else if (le32(data, 0) == magic_x86[0] && le32(data, 4) == magic_x86[1]) f.variant = bundle_variant::sdk_win32;
  const auto L = layout_of(f.variant);
  std::uint64_t pos = 0;
  while (pos < data.size()) {
    std::uint64_t left = data.size() - pos;
    bool blank_rest = std::all_of(data.begin() + static_cast<std::ptrdiff_t>(pos), data.end(),
                                  [](std::uint8_t b) { return b == 0 || b == 0xCD; });
    if (!f.packets.empty() && blank_rest) {
      f.tail = data.subspan(static_cast<std::size_t>(pos));
      break;
    }
    if (left < L.header_size)
      fail(code::truncated, "packet header needs " + std::to_string(L.header_size) + " bytes, " +
                                std::to_string(left) + " left", pos);
    // The whole header is inside the data (checked just above): its fields read directly.
    const auto at = static_cast<std::size_t>(pos);
    packet_view p;
    p.offset = pos;
    p.header_size = L.header_size;
    p.magic0 = le32(data, at);
    p.magic1 = le32(data, at + 4);
    if (p.magic0 != L.magic0 || p.magic1 != L.magic1)
      fail(code::bad_magic, "packet " + std::to_string(f.packets.size()) + ": magic " + hexs::hex(p.magic0) + "/" +
                                hexs::hex(p.magic1) + ", expected " + hexs::hex(L.magic0) + "/" + hexs::hex(L.magic1) +
                                " like the first packet", pos);
    p.type = le32(data, at + 8);
    p.index = le32(data, at + 12);
    for (std::size_t k = 0; k < 4; ++k) p.unknown[k] = le32(data, at + 16 + 4 * k);
    std::uint64_t len = le32(data, at + 0x20);
    if (L.u64_length) len |= static_cast<std::uint64_t>(le32(data, at + 0x24)) << 32;
    p.alignment = le32(data, at + (L.u64_length ? 0x28 : 0x24));
    if (L.u64_length) p.header_extra = le32(data, at + 0x2C);
    std::uint64_t left_after = left - L.header_size;  // bytes after the header
    if (p.alignment == 0 || p.alignment > 4096)
      fail(code::bad_value, "packet alignment " + std::to_string(p.alignment) + " is not in 1..4096",
           pos + (L.u64_length ? 0x28 : 0x24));
    std::uint64_t pad = L.absolute_alignment ? align_up(pos + L.header_size, p.alignment) - (pos + L.header_size)
                                             : (p.alignment - L.header_size % p.alignment) % p.alignment;
    if (pad > left_after) fail(code::truncated, "packet header padding runs past the end of the file", pos);
    p.header_pad = data.subspan(at + L.header_size, static_cast<std::size_t>(pad));
    left_after -= pad;
    if (len > left_after)
      fail(code::bad_count, "packet " + std::to_string(f.packets.size()) + " (type " + hexs::hex(p.type) +
                                ") payload of " + std::to_string(len) + " bytes exceeds the " +
                                std::to_string(left_after) + " bytes left", pos + 0x20);
    p.payload = data.subspan(at + L.header_size + static_cast<std::size_t>(pad), static_cast<std::size_t>(len));
    std::uint64_t end = pos + L.header_size + pad + len;
    std::uint64_t next = std::min<std::uint64_t>(align_up(end, L.next_alignment), data.size());
    // Take another 4/8/16-aligned position when the usual one holds no header but that one does.
    auto header_at = [&](std::uint64_t at) {
      return at + 8 <= data.size() && le32(data, static_cast<std::size_t>(at)) == L.magic0 &&
             le32(data, static_cast<std::size_t>(at) + 4) == L.magic1;
    };
    if (!header_at(next))
      for (std::uint64_t a : {4u, 8u, 16u})
        if (align_up(end, a) != next && align_up(end, a) <= data.size() && header_at(align_up(end, a))) {
          next = align_up(end, a);
          break;
        }
    p.fill = data.subspan(static_cast<std::size_t>(end), static_cast<std::size_t>(next - end));
    f.packets.push_back(p);
    pos = next;
  }
  if (f.packets.empty()) fail(code::truncated, "no packet in the file", 0);
  return f;
}

mrn_file parse_mrn(std::span<const std::uint8_t> data) {
  const auto v = scan_mrn(data);
  mrn_file f;
  f.variant = v.variant;
  f.packets.reserve(v.packets.size());
  for (const auto& pv : v.packets) {
    packet p;
    p.offset = pv.offset;
    p.magic0 = pv.magic0;
    p.magic1 = pv.magic1;
    p.type = pv.type;
    p.index = pv.index;
    p.unknown = pv.unknown;
    p.alignment = pv.alignment;
    p.header_extra = pv.header_extra;
    p.header_size = pv.header_size;
    p.header_pad.assign(pv.header_pad.begin(), pv.header_pad.end());
    p.payload.assign(pv.payload.begin(), pv.payload.end());
    p.fill.assign(pv.fill.begin(), pv.fill.end());
    f.packets.push_back(std::move(p));
  }
  f.tail.assign(v.tail.begin(), v.tail.end());
  return f;
}

bytes serialise_mrn(const mrn_file& f) {
  const auto L = layout_of(f.variant);
  core::byte_writer w;
  for (const auto& p : f.packets) {
    w.u32(p.magic0);
    w.u32(p.magic1);
    w.u32(p.type);
    w.u32(p.index);
    for (auto u : p.unknown) w.u32(u);
    if (L.u64_length) w.u64(p.payload.size());
    else w.u32(static_cast<std::uint32_t>(p.payload.size()));
    w.u32(p.alignment);
    if (L.u64_length) w.u32(p.header_extra);
    w.bytes(p.header_pad);
    w.bytes(p.payload);
    w.bytes(p.fill);
  }
  w.bytes(f.tail);
  return w.take();
}

// ------------------------------------------------------------------ string tables

string_table read_string_table(const byte_reader& block, std::uint64_t at) {
  if (at > block.size()) fail(code::bad_offset, "string table pointer " + hexs::hex(at) + " outside its block", block.base());
  auto t = block.sub(at, block.size() - at);
  auto h = t.peek(0);
  std::uint32_t count = h.u32(), size = h.u32();
  std::uint64_t op = h.u64(), sp = h.u64();
  string_table st;
  if (count == 0) return st;
  t.checked_count_at(std::min<std::uint64_t>(op, t.size()), count, 4, "string table offsets");
  if (op > t.size()) fail(code::bad_offset, "string table offsets pointer outside the block", t.base() + 8);
  if (sp > t.size() || size > t.size() - sp)
    fail(code::bad_count, "string table character data: " + std::to_string(size) + " bytes at " + hexs::hex(sp) +
                              " exceed the " + std::to_string(t.size()) + "-byte block", t.base() + 4);
  auto chars = t.sub(sp, size);
  auto o = t.peek(op);
  st.offsets.resize(count);
  st.strings.resize(count);
  for (std::uint32_t i = 0; i < count; ++i) {
    st.offsets[i] = o.u32();
    if (st.offsets[i] >= size)
      fail(code::bad_offset, "string " + std::to_string(i) + " offset " + std::to_string(st.offsets[i]) +
                                 " outside the " + std::to_string(size) + " character bytes", o.abs() - 4);
    st.strings[i] = chars.cstring_at(st.offsets[i], 4096);
  }
  return st;
}

expanded_string_table read_expanded_string_table(const byte_reader& block, std::uint64_t at) {
  if (at > block.size()) fail(code::bad_offset, "expanded string table pointer outside its block", block.base());
  auto t = block.sub(at, block.size() - at);
  auto h = t.peek(0);
  std::uint32_t count = h.u32(), size = h.u32();
  std::uint64_t ip = h.u64(), op = h.u64(), up = h.u64(), sp = h.u64();
  expanded_string_table st;
  if (count == 0) return st;
  auto arr = [&](std::uint64_t p, const char* what, std::vector<std::uint32_t>& out) {
    if (p == 0) return;
    if (p > t.size()) fail(code::bad_offset, std::string(what) + " pointer outside the block", t.base());
    t.checked_count_at(p, count, 4, what);
    auto r = t.peek(p);
    out.resize(count);
    for (auto& x : out) x = r.u32();
  };
  arr(ip, "expanded string table ids", st.ids);
  arr(op, "expanded string table offsets", st.offsets);
  arr(up, "expanded string table hashes", st.unknown);
  if (st.offsets.empty()) fail(code::bad_offset, "expanded string table without offsets", t.base() + 0x10);
  if (sp > t.size() || size > t.size() - sp)
    fail(code::bad_count, "expanded string table character data exceeds its block", t.base() + 4);
  auto chars = t.sub(sp, size);
  for (std::uint32_t i = 0; i < count; ++i) {
    if (st.offsets[i] >= size) fail(code::bad_offset, "expanded string offset outside the character data", t.base() + op + 4 * i);
    st.strings.push_back(chars.cstring_at(st.offsets[i], 4096));
  }
  return st;
}

file_names read_file_names(const byte_reader& payload) {
  auto h = payload.peek(0);
  std::uint64_t p[5];
  for (auto& x : p) x = h.u64();
  file_names fn;
  if (p[0]) fn.files = read_string_table(payload, p[0]);
  if (p[1]) fn.types = read_string_table(payload, p[1]);
  if (p[2]) fn.sources = read_string_table(payload, p[2]);
  if (p[3]) fn.takes = read_string_table(payload, p[3]);
  if (p[4] && !fn.files.strings.empty()) {
    if (p[4] > payload.size()) fail(code::bad_offset, "file-name CRC pointer outside the packet", payload.base() + 0x20);
    payload.checked_count_at(p[4], fn.files.strings.size(), 4, "file-name CRCs");
    auto r = payload.peek(p[4]);
    r.set_byte_order(core::endian::big);
    for (std::size_t i = 0; i < fn.files.strings.size(); ++i) fn.crcs.push_back(r.u32());
  }
  return fn;
}

// ------------------------------------------------------------------ rig

rig_data read_rig(const byte_reader& payload) {
  rig_data rig;
  auto h = payload.peek(0);
  for (auto& v : rig.rotation) v = h.f32();
  for (auto& v : rig.position) v = h.f32();
  std::uint32_t chain_count = h.u32();
  std::uint64_t hier_ptr = payload.u64_at(0x30);
  std::uint64_t names_ptr = payload.u64_at(0x40);
  std::uint64_t bind_ptr = payload.u64_at(0x48);
  payload.checked_count_at(0x80, chain_count, 16, "skeleton bone chains");
  auto c = payload.peek(0x80);
  rig.chains.resize(chain_count);
  for (auto& ch : rig.chains) {
    ch.unknown = c.i32();
    ch.parent = c.i32();
    ch.start = c.i32();
    ch.length = c.i32();
  }
  // Hierarchy: { u32 bone_count; pad4; u64 -> parents[] } (null pointer: right after the chains).
  std::uint64_t hier = hier_ptr ? hier_ptr : 0x80 + 16ull * chain_count;
  if (hier > payload.size() || payload.size() - hier < 16)
    fail(code::bad_offset, "skeleton hierarchy at " + hexs::hex(hier) + " is outside the packet", payload.base() + 0x30);
  rig.bone_count = payload.u32_at(hier);
  if (rig.bone_count > 65536)
    fail(code::bad_count, "skeleton bone count " + std::to_string(rig.bone_count) + " exceeds the limit 65536",
         payload.base() + hier);
  std::uint64_t arr_rel = payload.u64_at(hier + 8);
  std::uint64_t arr = hier + 16;
  if (arr_rel && arr_rel <= payload.size() - hier && (payload.size() - hier - arr_rel) / 4 >= rig.bone_count)
    arr = hier + arr_rel;
  payload.checked_count_at(arr, rig.bone_count, 4, "skeleton parent array");
  auto pr = payload.peek(arr);
  const auto n = static_cast<std::int32_t>(rig.bone_count);
  rig.parents.resize(rig.bone_count);
  bool hierarchy_ok = true;
  for (std::int32_t i = 0; i < n; ++i) {
    rig.parents[static_cast<std::size_t>(i)] = pr.i32();
    auto p = rig.parents[static_cast<std::size_t>(i)];
    if (p < -1 || p >= n || p == i) hierarchy_ok = false;
  }
  // Chain table: parents follow along each chain from the chain's parent.
  rig.parents_from_chains.assign(rig.bone_count, -2);
  bool chains_ok = !rig.chains.empty();
  for (const auto& ch : rig.chains) {
    std::int32_t p = ch.parent;
    if (ch.start < 0 || ch.length < 0 || ch.start >= n || ch.length > n - ch.start || p < -1 || p >= n) {
      chains_ok = false;
      continue;
    }
    for (std::int32_t j = 0; j < ch.length; ++j) {
      std::int32_t b = ch.start + j;
      rig.parents_from_chains[static_cast<std::size_t>(b)] = p;
      p = b;
    }
  }
  for (std::int32_t i = 0; i < n; ++i) {
    auto pc = rig.parents_from_chains[static_cast<std::size_t>(i)];
    if (pc == -2) continue;
    if (pc != rig.parents[static_cast<std::size_t>(i)]) {
      if (rig.disagreements++ == 0)
        rig.first_disagreement = "bone " + std::to_string(i) + ": hierarchy " +
                                 std::to_string(rig.parents[static_cast<std::size_t>(i)]) + ", chains " + std::to_string(pc);
    }
  }
  if (!hierarchy_ok) {
    bool all_covered = std::none_of(rig.parents_from_chains.begin(), rig.parents_from_chains.end(), [](int p) { return p == -2; });
    if (!chains_ok || !all_covered)
      fail(code::bad_value, "skeleton parent array holds an out-of-range parent and the chain table does not cover every bone",
           payload.base() + arr);
    rig.parents = rig.parents_from_chains;
    rig.parents_source = "chains";
  }
  // Bone names.
  if (names_ptr) rig.names = read_string_table(payload, names_ptr).strings;
  // Bind pose: B = ptr + 16; the DataBuffer header at S = B + 16 holds a count word at +8
  // (B + 0x18) and, at +0x20, the pointer (relative to S) to { translations_ptr, rotations_ptr }.
  // The arrays are read for the hierarchy's bone count: the word at B + 0x18 is only compared
  // (it is the element-array count, 2, in some readings of morpheme's DataBuffer).
  if (bind_ptr) {
    std::uint64_t S = bind_ptr + 32;
    if (bind_ptr > payload.size() || payload.size() - bind_ptr < 32 + 0x28)
      fail(code::bad_offset, "bind pose at " + hexs::hex(bind_ptr) + " is outside the packet", payload.base() + 0x48);
    rig.bind_entry_word = payload.u32_at(S + 8);
    std::uint64_t tp = payload.u64_at(S + 0x20);
    if (tp > payload.size() - S || payload.size() - S - tp < 16)
      fail(code::bad_offset, "bind pose transform pointers outside the packet", payload.base() + S + 0x20);
    std::uint64_t trans = payload.u64_at(S + tp), rots = payload.u64_at(S + tp + 8);
    auto entries_at = [&](std::uint64_t rel, const char* what) -> std::uint64_t {
      if (rel > payload.size() - S) fail(code::bad_offset, std::string(what) + " pointer outside the packet", payload.base() + S + tp);
      return (payload.size() - S - rel) / 16;
    };
    std::uint64_t fit = std::min(entries_at(trans, "bind pose translations"), entries_at(rots, "bind pose rotations"));
    auto count = static_cast<std::uint32_t>(std::min<std::uint64_t>(fit, rig.bone_count));
    auto t = payload.peek(S + trans);
    auto q = payload.peek(S + rots);
    rig.bind_translation.assign(rig.bone_count, vec3{0, 0, 0});
    rig.bind_rotation.assign(rig.bone_count, quat{0, 0, 0, 1});
    for (std::uint32_t i = 0; i < count; ++i) {
      vec3 v{t.f32(), t.f32(), t.f32()};
      (void)t.f32();
      quat r{q.f32(), q.f32(), q.f32(), q.f32()};
      rig.bind_translation[i] = v;
      rig.bind_rotation[i] = r;
    }
    rig.has_bind_pose = count == rig.bone_count;
  }
  return rig;
}

skeleton_map read_skeleton_map(const byte_reader& payload) {
  skeleton_map m;
  auto h = payload.peek(0);
  m.version = h.u64();
  std::uint64_t flags_ptr = h.u64();
  m.unk1 = h.u32();
  m.unk2 = h.u32();
  m.unk3 = h.u64();
  std::uint64_t map_ptr = h.u64();
  if (flags_ptr) {
    if (flags_ptr > payload.size() || payload.size() - flags_ptr < 8)
      fail(code::bad_offset, "skeleton map bone-flag block outside the packet", payload.base() + 8);
    auto f = payload.peek(flags_ptr);
    m.rig_bone_count = f.u32();
    std::uint32_t used = f.u32();
    f.checked_count(used, 4, "skeleton map bone flags");
    m.flags.resize(used);
    for (auto& x : m.flags) x = f.u32();
  }
  if (map_ptr) {
    if (map_ptr > payload.size() || payload.size() - map_ptr < 16)
      fail(code::bad_offset, "skeleton map table at " + hexs::hex(map_ptr) + " is outside the packet", payload.base() + 0x20);
    auto mr = payload.peek(map_ptr);
    std::uint32_t count = mr.u32();
    m.idx_unk1 = mr.u16();
    m.idx_unk2 = mr.u16();
    std::uint64_t ip = mr.u64();
    // Pointers are relative to their containing struct (the map table); a payload-relative
    // value is accepted as the fallback when only it fits.
    auto fits = [&](std::uint64_t abs) { return abs <= payload.size() && (payload.size() - abs) / 2 >= count; };
    std::uint64_t at;
    if (fits(map_ptr + ip)) at = map_ptr + ip;
    else if (fits(ip)) { at = ip; m.indices_base = "payload"; }
    else {
      payload.checked_count_at(std::min<std::uint64_t>(map_ptr + ip, payload.size()), count, 2, "skeleton map channel indices");
      at = 0;
    }
    auto r = payload.peek(at);
    m.indices.resize(count);
    for (auto& x : m.indices) x = r.u16();
  }
  return m;
}

// ------------------------------------------------------------------ writers

namespace {

void put_string_table(core::byte_writer& w, const std::vector<std::string>& v) {
  std::size_t t0 = w.size();
  std::uint32_t size = 0;
  for (const auto& s : v) size += static_cast<std::uint32_t>(s.size() + 1);
  w.u32(static_cast<std::uint32_t>(v.size()));
  w.u32(size);
  w.u64(24);
  w.u64(24 + 4 * v.size());
  std::uint32_t off = 0;
  for (const auto& s : v) {
    w.u32(off);
    off += static_cast<std::uint32_t>(s.size() + 1);
  }
  for (const auto& s : v) w.string(s);
  (void)t0;
  w.align(16, 0xCD);
}

}  // namespace

bytes write_rig(const rig_input& r) {
  const auto n = r.names.size();
  // Chains: maximal runs where bone i+1 is the child of bone i.
  std::vector<bone_chain> chains;
  for (std::size_t i = 0; i < n; ++i) {
    if (!chains.empty() && r.parents[i] == static_cast<int>(i) - 1 &&
        chains.back().start + chains.back().length == static_cast<std::int32_t>(i)) {
      ++chains.back().length;
      continue;
    }
    chains.push_back(bone_chain{0, r.parents[i], static_cast<std::int32_t>(i), 1});
  }
  core::byte_writer w;
  for (float v : {0.f, 0.f, 0.f, 1.f}) w.f32(v);
  for (float v : {0.f, 0.f, 0.f, 1.f}) w.f32(v);
  w.u32(static_cast<std::uint32_t>(chains.size()));
  w.u32(0);
  w.u64(0);
  w.u64(0);  // 0x30 hierarchy, patched
  w.u64(0);
  w.u64(0);  // 0x40 names, patched
  w.u64(0);  // 0x48 bind pose, patched
  w.u32(0); w.u32(0);
  w.u64(0);
  w.u32(0); w.u32(0);
  w.u64(0);
  w.u64(0);
  w.u64(0);
  for (const auto& c : chains) {
    w.i32(c.unknown);
    w.i32(c.parent);
    w.i32(c.start);
    w.i32(c.length);
  }
  w.patch_u64(0x30, w.size());
  w.u32(static_cast<std::uint32_t>(n));
  w.u32(0);
  w.u64(16);
  for (std::size_t i = 0; i < n; ++i) w.i32(r.parents[i]);
  w.align(16);
  w.patch_u64(0x40, w.size());
  put_string_table(w, r.names);
  std::size_t X = w.size();
  w.patch_u64(0x48, X);
  w.fill(16);             // u32 magic; pad4; 8 bytes
  w.u32(0x40); w.u32(0);  // B: header_size, unknown
  w.u64(0);
  std::size_t S = w.size();
  std::size_t rows = (16 * n + 63) / 64 * 64;
  w.u32(static_cast<std::uint32_t>(0x40 + 2 * rows));  // data_length
  w.u32(16);                                           // alignment
  w.u32(static_cast<std::uint32_t>(n));                // element_count
  w.u8(1); w.fill(3);                                  // full
  w.u32(0); w.u32(0);                                  // element_type, pad
  w.u64(0);                                            // unknown_ptr1
  w.u64(0x30);                                         // transforms, relative to S
  w.u64(0);
  w.u64(0x40);
  w.u64(0x40 + rows);
  for (std::size_t i = 0; i < n; ++i) {
    for (auto v : r.translation[i]) w.f32(v);
    w.f32(1.0f);
  }
  w.fill(S + 0x40 + rows - w.size());
  for (std::size_t i = 0; i < n; ++i)
    for (auto v : r.rotation[i]) w.f32(v);
  w.fill(S + 0x40 + 2 * rows - w.size());
  w.align(16);
  return w.take();
}

bytes write_skeleton_map(std::uint32_t rig_bones, const std::vector<std::uint16_t>& map) {
  core::byte_writer w;
  w.u64(1);     // version (AnimToRig)
  w.u64(0x30);  // bone flags
  w.u32(0); w.u32(0);
  w.u64(0);
  w.u64(0);     // 0x20 map table, patched
  w.u64(0);
  std::uint32_t ints = (rig_bones + 31) / 32;
  w.u32(rig_bones);
  w.u32(ints);
  std::vector<std::uint32_t> flags(ints, 0);
  for (auto b : map)
    if (b < rig_bones) flags[b / 32] |= 1u << (b % 32);
  for (auto f : flags) w.u32(f);
  w.align(16);
  std::size_t M = w.size();
  w.patch_u64(0x20, M);
  w.u32(static_cast<std::uint32_t>(map.size()));
  w.u16(0); w.u16(0);
  w.u64(0x20);  // indices, relative to the map table
  w.u64(0);
  w.u64(0);
  for (auto b : map) w.u16(b);
  w.align(16);
  return w.take();
}

bytes write_file_names(const std::vector<std::string>& files, const std::vector<std::string>& types,
                       const std::vector<std::string>& sources, const std::vector<std::string>& takes,
                       const std::vector<std::uint32_t>& crcs) {
  core::byte_writer w;
  for (int i = 0; i < 6; ++i) w.u64(0);
  const std::vector<std::string>* t[4] = {&files, &types, &sources, &takes};
  for (std::size_t i = 0; i < 4; ++i) {
    w.align(16);
    w.patch_u64(8 * i, w.size());
    put_string_table(w, *t[i]);
  }
  w.align(16);
  w.patch_u64(0x20, w.size());
  for (auto c : crcs) {
    w.u8(static_cast<std::uint8_t>(c >> 24));
    w.u8(static_cast<std::uint8_t>(c >> 16));
    w.u8(static_cast<std::uint8_t>(c >> 8));
    w.u8(static_cast<std::uint8_t>(c));
  }
  w.align(16);
  return w.take();
}

bytes write_skeleton_names(const std::vector<std::string>& names, const std::vector<std::uint32_t>& ids) {
  core::byte_writer w;
  w.u64(16);
  w.u64(0);
  std::size_t t0 = w.size();
  std::uint32_t size = 0;
  for (const auto& s : names) size += static_cast<std::uint32_t>(s.size() + 1);
  const std::uint64_t n = names.size();
  w.u32(static_cast<std::uint32_t>(n));
  w.u32(size);
  w.u64(40);
  w.u64(40 + 4 * n);
  w.u64(40 + 8 * n);
  w.u64(40 + 12 * n);
  for (auto id : ids) w.u32(id);
  std::uint32_t off = 0;
  for (const auto& s : names) {
    w.u32(off);
    off += static_cast<std::uint32_t>(s.size() + 1);
  }
  for (const auto& s : names) w.u32(crc32(std::span<const std::uint8_t>(reinterpret_cast<const std::uint8_t*>(s.data()), s.size())));
  for (const auto& s : names) w.string(s);
  (void)t0;
  w.align(16, 0xCD);
  return w.take();
}

packet make_packet(std::uint32_t type, std::uint32_t index, bytes payload, std::array<std::uint32_t, 4> unknown) {
  packet p;
  p.type = type;
  p.index = index;
  p.unknown = unknown;
  p.alignment = 16;
  p.header_pad.assign(8, 0);
  p.payload = std::move(payload);
  return p;
}

bytes layout_mrn(std::vector<packet> packets) {
  mrn_file f;
  std::uint64_t pos = 0;
  for (auto& p : packets) {
    p.offset = pos;
    p.header_pad.assign((p.alignment - packet_header_size % p.alignment) % p.alignment, 0);
    std::uint64_t end = pos + packet_header_size + p.header_pad.size() + p.payload.size();
    p.fill.assign(align_up(end, 16) - end, 0);
    pos = align_up(end, 16);
  }
  f.packets = std::move(packets);
  return serialise_mrn(f);
}

// ------------------------------------------------------------------ raw JSON

nlohmann::json mrn_to_json(const mrn_file& f) {
  using nlohmann::json;
  json j{{"format", "morpheme-mrn"}, {"packet_count", f.packets.size()}, {"trailing_bytes", f.tail.size()}};
  json arr = json::array();
  for (std::size_t i = 0; i < f.packets.size(); ++i) {
    const auto& p = f.packets[i];
    const char* nm = packet_type_name(p.type);
    json pj{{"offset", p.offset}, {"type", p.type}, {"type_name", nm ? json(nm) : json(nullptr)},
            {"index", p.index}, {"unknown", p.unknown}, {"data_length", p.payload.size()},
            {"alignment", p.alignment}, {"payload_offset", p.payload_offset()}};
    byte_reader r(p.payload, core::endian::little, p.payload_offset());
    auto decode = [&]() -> json {
      switch (p.type) {
        case pt_nsa: return nsa_to_json(parse_nsa(r));
        case pt_skeleton: {
          auto rig = read_rig(r);
          json bones = json::array();
          for (std::size_t b = 0; b < rig.bone_count; ++b) {
            json bj{{"name", b < rig.names.size() ? json(rig.names[b]) : json(nullptr)}, {"parent", rig.parents[b]},
                    {"parent_from_chains", rig.parents_from_chains[b] == -2 ? json(nullptr) : json(rig.parents_from_chains[b])}};
            if (b < rig.bind_translation.size()) {
              bj["translation"] = rig.bind_translation[b];
              bj["rotation"] = rig.bind_rotation[b];
            }
            bones.push_back(bj);
          }
          json chains = json::array();
          for (const auto& c : rig.chains) chains.push_back({c.unknown, c.parent, c.start, c.length});
          return {{"rotation", rig.rotation}, {"position", rig.position}, {"bone_count", rig.bone_count},
                  {"bind_pose_count_word", rig.bind_entry_word},
                  {"parents_source", rig.parents_source}, {"chain_disagreements", rig.disagreements},
                  {"chains", chains}, {"bones", bones}};
        }
        case pt_skeleton_map: {
          auto m = read_skeleton_map(r);
          return {{"version", m.version}, {"rig_bone_count", m.rig_bone_count}, {"flags", m.flags},
                  {"unknown", {m.unk1, m.unk2, m.unk3, m.idx_unk1, m.idx_unk2}},
                  {"indices_base", m.indices_base}, {"channel_to_bone", m.indices}};
        }
        case pt_file_names: {
          auto fn = read_file_names(r);
          json crcs = json::array();
          for (auto c : fn.crcs) {
            char b[16];
            std::snprintf(b, sizeof b, "%08X", c);
            crcs.push_back(b);
          }
          return {{"files", fn.files.strings}, {"types", fn.types.strings}, {"sources", fn.sources.strings},
                  {"takes", fn.takes.strings}, {"crc32", crcs}};
        }
        case pt_skeleton_names: {
          auto t = read_expanded_string_table(r, r.u64_at(0));
          return {{"ids", t.ids}, {"offsets", t.offsets}, {"hashes", t.unknown}, {"names", t.strings}};
        }
        case pt_plugin_list: return {{"strings", read_string_table(r, 0).strings}};
        default: return nullptr;
      }
    };
    try {
      pj["decoded"] = decode();
    } catch (const core::failure& e) {
      pj["decoded"] = nullptr;
      pj["decode_error"] = e.error().message;
    }
    arr.push_back(pj);
  }
  j["packets"] = arr;
  return j;
}

}  // namespace rigrip::morpheme
