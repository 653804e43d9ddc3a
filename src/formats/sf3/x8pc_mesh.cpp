// The x8pc mesh chunk: body/weapon mesh lists (XPDATA) and the skeleton command stream,
// read as stored (read-only: pack keeps the mesh chunk verbatim).
#include "formats/sf3/x8pc_mesh.hpp"

#include <algorithm>

namespace rigrip::sf3 {
namespace {

using core::byte_reader;
using core::endian;
using core::fail;

constexpr int max_depth = 256;          // push nesting; real files use < 16
constexpr std::uint32_t max_points = 65536;

vec3 read_point(byte_reader& r) {
  vec3 p;
  for (auto& c : p) c = fixed_to_float(r.i32());
  return p;
}

// Big-endian values at q, inside a span checked beforehand (one check per table instead of
// one per value).
std::uint16_t be_u16(const std::uint8_t* q) { return static_cast<std::uint16_t>(q[0] << 8 | q[1]); }
std::int32_t be_i32(const std::uint8_t* q) {
  return static_cast<std::int32_t>(std::uint32_t{q[0]} << 24 | std::uint32_t{q[1]} << 16 | std::uint32_t{q[2]} << 8 | q[3]);
}
vec3 point_at(const std::uint8_t* q) { return {fixed_to_float(be_i32(q)), fixed_to_float(be_i32(q + 4)), fixed_to_float(be_i32(q + 8))}; }

// checked_count at r's position, its label built only when the check fails (it then throws).
std::size_t counted(const byte_reader& r, std::uint64_t count, std::uint64_t elem, const std::string& what, const char* part) {
  if (count <= r.remaining() / elem) return static_cast<std::size_t>(count);
  return r.checked_count(count, elem, (what + part).c_str());
}
const std::uint8_t* here(const byte_reader& r) { return r.data().data() + r.tell(); }

xpdata read_xpdata(const byte_reader& mc, std::uint32_t at, const std::string& what, work_budget& budget) {
  byte_reader h = mc.peek(at);
  std::uint32_t pnt = h.u32(), np = h.u32(), plt = h.u32(), npl = h.u32(), att = h.u32(), vnt = h.u32();
  xpdata x;
  if (np > max_points) fail(code::bad_count, what + ": " + std::to_string(np) + " points exceed the 65536 limit", mc.base() + at + 4);
  budget.spend(std::uint64_t{np} * 18 + std::uint64_t{npl} * 32, mc.base() + at, "mesh tables");
  byte_reader p = mc.peek(pnt);
  x.points.resize(counted(p, np, 12, what, " points"));
  const std::uint8_t* pq = here(p);
  for (std::size_t i = 0; i < x.points.size(); ++i) x.points[i] = point_at(pq + 12 * i);
  byte_reader f = mc.peek(plt);
  x.faces.resize(counted(f, npl, 20, what, " polygons"));
  const std::uint8_t* fq = here(f);
  for (std::size_t i = 0; i < x.faces.size(); ++i) {
    auto& fc = x.faces[i];
    const std::uint8_t* q = fq + 20 * i;
    fc.normal = point_at(q);
    for (std::size_t k = 0; k < 4; ++k) {
      const std::uint16_t v = be_u16(q + 12 + 2 * k);
      fc.v[k] = v;
      if (v >= np)
        fail(code::bad_value, what + " polygon " + std::to_string(i) + ": vertex " + std::to_string(v) + " of " +
                                  std::to_string(np) + " points", f.abs() + 20 * i + 12 + 2 * k);
    }
  }
  byte_reader a = mc.peek(att);
  counted(a, npl, 12, what, " attributes");
  const std::uint8_t* aq = here(a);
  for (std::size_t i = 0; i < x.faces.size(); ++i) {
    auto& fc = x.faces[i];
    const std::uint8_t* q = aq + 12 * i;
    fc.flag = q[0];
    fc.sort = q[1];
    fc.texno = be_u16(q + 2);
    fc.atrb = be_u16(q + 4);
    fc.colno = be_u16(q + 6);
    fc.gstb = be_u16(q + 8);
    fc.dir = be_u16(q + 10);
  }
  // Vertex normals: 3 x int16 per point, 1.0 = 4096 (not SGL's FIXED VECTOR).
  if (vnt != 0 && vnt < mc.size()) {
    byte_reader n = mc.peek(vnt);
    counted(n, np, 6, what, " vertex normals");
    const std::uint8_t* nq = here(n);
    x.normals.resize(np);
    for (std::size_t i = 0; i < x.normals.size(); ++i)
      for (std::size_t c = 0; c < 3; ++c)
        x.normals[i][c] = static_cast<float>(static_cast<std::int16_t>(be_u16(nq + 6 * i + 2 * c)) / 4096.0);
  }
  return x;
}

}  // namespace

skeleton_stream parse_skeleton(const byte_reader& mc, std::uint32_t offset) {
  skeleton_stream s;
  byte_reader r = mc.peek(offset);
  std::vector<int> stack;  // push bones; empty = implicit root
  std::size_t draw = 0;
  while (true) {
    std::uint64_t at = r.abs();
    std::uint8_t c = r.u8();
    if (c == 0xFD) {
      if (stack.size() >= max_depth) fail(code::limit_exceeded, "skeleton nests deeper than 256 pushes", at);
      if (s.parent.size() >= 4096) fail(code::limit_exceeded, "skeleton has more than 4096 bones", at);
      s.parent.push_back(stack.empty() ? -1 : stack.back());
      stack.push_back(static_cast<int>(s.parent.size() - 1));
    } else if (c == 0xFE) {
      if (stack.empty()) break;  // closes the implicit root: end of stream
      stack.pop_back();
    } else if (c == 0x00 || c == 0x80) {
      s.mesh_bone.push_back(stack.empty() ? -1 : stack.back());
      ++draw;
    } else if (c == 0x01 || c == 0x09 || c == 0x10 || c == 0x11 || c == 0x12 || c == 0x20 || c == 0x21 || c == 0x22 ||
               c == 0x30 || c == 0x81) {
      // Tag: align to 4 from the stream start, then POINT (+ quaternion + scale for 0x30/0x81).
      while ((r.tell() - offset) % 4) r.u8();
      tag_node t;
      t.code = c;
      t.parent = stack.empty() ? -1 : stack.back();
      t.position = read_point(r);
      if (c == 0x30 || c == 0x81) {
        t.has_rotation = true;
        for (auto& q : t.rotation) q = fixed_to_float(r.i32());
        t.scale = read_point(r);
      }
      if (s.tags.size() >= 4096) fail(code::limit_exceeded, "skeleton has more than 4096 tags", at);
      s.tags.push_back(t);
    } else {
      fail(code::bad_value, "skeleton stream: unknown command byte " + hex(c), at);
    }
  }
  s.length = static_cast<std::uint32_t>(r.tell() - offset);
  return s;
}

model_geometry parse_geometry(const model_raw& m) {
  model_geometry g;
  const auto& e = m.entries[2];
  byte_reader mc(m.data[2], endian::big, m.base + e.offset);
  std::uint32_t skel = mc.u32_at(4);
  std::vector<std::uint32_t> lists;
  for (std::uint32_t at = 8;; at += 4) {
    std::uint32_t v = mc.u32_at(at);
    if (v == end_marker) break;
    if (lists.size() >= 8) fail(code::bad_count, "mesh header: more than 8 mesh lists (no 0xFFFFFFFF)", mc.base() + at);
    lists.push_back(v);
  }
  if (lists.empty()) fail(code::bad_value, "mesh header has no body mesh list", mc.base() + 8);
  g.skel = parse_skeleton(mc, skel);
  work_budget budget{2 * static_cast<std::uint64_t>(mc.size()) + 4096};
  std::uint32_t at = lists[0];
  std::size_t guard = mc.checked_count_at(at, (mc.size() - std::min<std::size_t>(at, mc.size())) / 24, 24, "body meshes");
  for (std::size_t i = 0;; ++i, at += 24) {
    if (mc.u32_at(at) == end_marker) break;
    if (i >= guard) fail(code::truncated, "body mesh list has no 0xFFFFFFFF end marker", mc.base() + at);
    g.body.push_back(read_xpdata(mc, at, "body mesh " + std::to_string(i), budget));
  }
  if (lists.size() > 1 && mc.u32_at(lists[1]) != end_marker) g.weapon = read_xpdata(mc, lists[1], "weapon mesh", budget);
  return g;
}

}  // namespace rigrip::sf3
