// P models (PC): the raw layer, byte-faithful in both directions, and a builder that
// makes a game-shaped P file from triangles.
#include <algorithm>
#include <cmath>
#include <map>

#include "formats/ff7/p_model.hpp"

namespace rigrip::ff7 {
namespace {
enum slot : int {
  version = 0, vertex_type = 2, n_vertices = 3, n_normals = 4, n_unknown1 = 5, n_texcoords = 6,
  n_vertex_colors = 7, n_edges = 8, n_polys = 9, n_unknown2 = 10, n_unknown3 = 11, n_hundreds = 12,
  n_groups = 13, n_bboxes = 14, norm_index_flag = 15
};

vec3 read_vec3(core::byte_reader& r) { return {r.f32(), r.f32(), r.f32()}; }
}  // namespace

p_model parse_p(std::span<const std::uint8_t> data) {
  core::byte_reader r(data);
  p_model p;
  for (auto& h : p.head) h = r.u32();
  for (auto& h : p.runtime) h = r.u32();
  if (p.head[version] != 1)
    core::fail(code::bad_magic, "P version is " + std::to_string(p.head[version]) + ", expected 1", 0);
  auto count = [&](int s, std::uint64_t elem, const char* what) {
    return r.checked_count(p.head[static_cast<std::size_t>(s)], elem, what);
  };
  p.vertices.resize(count(n_vertices, 12, "P vertices"));
  for (auto& v : p.vertices) v = read_vec3(r);
  p.normals.resize(count(n_normals, 12, "P normals"));
  for (auto& v : p.normals) v = read_vec3(r);
  p.unknown1.resize(count(n_unknown1, 12, "P unknown float3 block"));
  for (auto& v : p.unknown1) v = read_vec3(r);
  p.texcoords.resize(count(n_texcoords, 8, "P texture coordinates"));
  for (auto& t : p.texcoords) t = {r.f32(), r.f32()};
  p.vertex_colors.resize(count(n_vertex_colors, 4, "P vertex colours"));
  for (auto& c : p.vertex_colors)
    for (auto& b : c) b = r.u8();
  p.poly_colors.resize(count(n_polys, 4, "P polygon colours"));
  for (auto& c : p.poly_colors)
    for (auto& b : c) b = r.u8();
  p.edges.resize(count(n_edges, 4, "P edges"));
  for (auto& e : p.edges) e = {r.u16(), r.u16()};
  p.polys.resize(count(n_polys, 24, "P polygons"));
  for (auto& q : p.polys) {
    q.tag1 = r.u16();
    for (auto& v : q.v) v = r.u16();
    for (auto& v : q.n) v = r.u16();
    for (auto& v : q.e) v = r.u16();
    q.tag2 = r.u32();
  }
  auto u2 = r.bytes(24ull * count(n_unknown2, 24, "P unknown 24-byte block"));
  p.unknown2.assign(u2.begin(), u2.end());
  auto u3 = r.bytes(3ull * count(n_unknown3, 3, "P unknown 3-byte block"));
  p.unknown3.assign(u3.begin(), u3.end());
  p.hundreds.resize(count(n_hundreds, 100, "P render-state (hundreds) blocks"));
  for (auto& h : p.hundreds)
    for (auto& x : h) x = r.u32();
  p.groups.resize(count(n_groups, 56, "P polygon groups"));
  for (auto& g : p.groups)
    for (auto& x : g.w) x = r.i32();
  p.bboxes.resize(count(n_bboxes, 28, "P bounding boxes"));
  for (auto& b : p.bboxes)
    for (auto& x : b) x = r.u32();
  if (p.head[norm_index_flag]) {
    p.normal_index.resize(count(n_vertices, 4, "P normal index table"));
    for (auto& x : p.normal_index) x = r.i32();
  }
  auto rest = r.bytes(r.remaining());
  p.trailing.assign(rest.begin(), rest.end());

  // Cross-checks that make later indexing safe (offsets name the offending record).
  const std::uint64_t polys_at = 128 + 12ull * (p.vertices.size() + p.normals.size() + p.unknown1.size()) +
                                 8ull * p.texcoords.size() + 4ull * (p.vertex_colors.size() + p.poly_colors.size() +
                                                                     p.edges.size());
  const std::uint64_t groups_at = polys_at + 24ull * p.polys.size() + p.unknown2.size() + p.unknown3.size() +
                                  100ull * p.hundreds.size();
  for (std::size_t gi = 0; gi < p.groups.size(); ++gi) {
    const auto& g = p.groups[gi];
    auto at = groups_at + 56 * gi;
    auto in_range = [](std::int64_t start, std::int64_t n, std::size_t size) {
      return start >= 0 && n >= 0 && start + n <= static_cast<std::int64_t>(size);
    };
    if (!in_range(g.poly_start(), g.poly_count(), p.polys.size()))
      core::fail(code::bad_count, "group " + std::to_string(gi) + " polygons " + std::to_string(g.poly_start()) + "+" +
                                      std::to_string(g.poly_count()) + " outside the " +
                                      std::to_string(p.polys.size()) + " polygons", at + 4);
    if (!in_range(g.vert_start(), g.vert_count(), p.vertices.size()))
      core::fail(code::bad_count, "group " + std::to_string(gi) + " vertices " + std::to_string(g.vert_start()) + "+" +
                                      std::to_string(g.vert_count()) + " outside the " +
                                      std::to_string(p.vertices.size()) + " vertices", at + 12);
    if (g.textured() && !in_range(g.tex_start(), g.vert_count(), p.texcoords.size()))
      core::fail(code::bad_count, "group " + std::to_string(gi) + " texture coordinates " +
                                      std::to_string(g.tex_start()) + "+" + std::to_string(g.vert_count()) +
                                      " outside the " + std::to_string(p.texcoords.size()) + " coordinates",
                 at + 44);
    for (std::int32_t k = 0; k < g.poly_count(); ++k) {
      const auto& q = p.polys[static_cast<std::size_t>(g.poly_start() + k)];
      for (auto v : q.v)
        if (v >= g.vert_count())
          core::fail(code::bad_value, "polygon " + std::to_string(g.poly_start() + k) + " uses vertex " +
                                          std::to_string(v) + " of a group with " + std::to_string(g.vert_count()) +
                                          " vertices",
                     polys_at + 24ull * static_cast<std::uint64_t>(g.poly_start() + k) + 2);
    }
  }
  return p;
}

bytes serialise_p(const p_model& p) {
  core::byte_writer w;
  for (auto h : p.head) w.u32(h);
  for (auto h : p.runtime) w.u32(h);
  auto v3 = [&](const vec3& v) {
    for (float f : v) w.f32(f);
  };
  for (const auto& v : p.vertices) v3(v);
  for (const auto& v : p.normals) v3(v);
  for (const auto& v : p.unknown1) v3(v);
  for (const auto& t : p.texcoords) {
    w.f32(t[0]);
    w.f32(t[1]);
  }
  for (const auto& c : p.vertex_colors) w.bytes(c);
  for (const auto& c : p.poly_colors) w.bytes(c);
  for (const auto& e : p.edges) {
    w.u16(e[0]);
    w.u16(e[1]);
  }
  for (const auto& q : p.polys) {
    w.u16(q.tag1);
    for (auto v : q.v) w.u16(v);
    for (auto v : q.n) w.u16(v);
    for (auto v : q.e) w.u16(v);
    w.u32(q.tag2);
  }
  w.bytes(p.unknown2);
  w.bytes(p.unknown3);
  for (const auto& h : p.hundreds)
    for (auto x : h) w.u32(x);
  for (const auto& g : p.groups)
    for (auto x : g.w) w.i32(x);
  for (const auto& b : p.bboxes)
    for (auto x : b) w.u32(x);
  for (auto x : p.normal_index) w.i32(x);
  w.bytes(p.trailing);
  return w.take();
}

int detect_p(std::span<const std::uint8_t> data) {
  if (data.size() < 128) return score::none;
  core::byte_reader r(data);
  if (r.u32_at(0) != 1 || r.u32_at(4) != 1) return score::none;
  try {
    auto p = parse_p(data);
    // The counts add up to the file size: a strong structural match.
    return p.trailing.empty() ? score::structure + 20 : score::structure;
  } catch (...) {
    return score::none;
  }
}

p_model build_p(const std::vector<p_part>& parts) {
  p_model p;
  std::uint32_t tex_total = 0;
  float mn[3] = {1e30f, 1e30f, 1e30f}, mx[3] = {-1e30f, -1e30f, -1e30f};
  for (const auto& part : parts) {
    if (part.positions.size() > 0xFFFF) core::fail(code::limit_exceeded, "P part with more than 65535 vertices");
    if (!part.colors_bgra.empty() && part.colors_bgra.size() != part.positions.size())
      core::fail(code::bad_value, "P part colours do not match its vertices");
    if (!part.uvs.empty() && part.uvs.size() != part.positions.size())
      core::fail(code::bad_value, "P part texture coordinates do not match its vertices");
    p_group g;
    const bool textured = !part.uvs.empty();
    g.w = {textured ? 2 : 1,
           static_cast<std::int32_t>(p.polys.size()), static_cast<std::int32_t>(part.triangles.size()),
           static_cast<std::int32_t>(p.vertices.size()), static_cast<std::int32_t>(part.positions.size()),
           static_cast<std::int32_t>(p.edges.size()), 0, 0, 0, 0, 0,
           static_cast<std::int32_t>(textured ? tex_total : 0), textured ? 1 : 0, textured ? part.tex_id : 0};
    // Per-vertex normals (area weighted), one normal per vertex through the index table.
    std::vector<vec3> nrm(part.positions.size(), vec3{0, 0, 0});
    std::map<std::pair<std::uint16_t, std::uint16_t>, std::uint16_t> edge_ids;
    const auto edge_base = p.edges.size();
    for (const auto& t : part.triangles) {
      for (auto v : t)
        if (v >= part.positions.size()) core::fail(code::bad_value, "P part triangle index out of range");
      const auto &a = part.positions[t[0]], &b = part.positions[t[1]], &c = part.positions[t[2]];
      vec3 u{b[0] - a[0], b[1] - a[1], b[2] - a[2]}, v{c[0] - a[0], c[1] - a[1], c[2] - a[2]};
      vec3 n{u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0]};
      p_poly q;
      q.v = t;
      for (int k = 0; k < 3; ++k) {
        for (int a2 = 0; a2 < 3; ++a2) nrm[t[static_cast<std::size_t>(k)]][static_cast<std::size_t>(a2)] += n[static_cast<std::size_t>(a2)];
        auto e0 = t[static_cast<std::size_t>(k)], e1 = t[static_cast<std::size_t>((k + 1) % 3)];
        auto key = std::minmax(e0, e1);
        auto [it, fresh] = edge_ids.emplace(std::pair{key.first, key.second}, static_cast<std::uint16_t>(edge_ids.size()));
        if (fresh) p.edges.push_back({key.first, key.second});
        q.e[static_cast<std::size_t>(k)] = it->second;
        q.n[static_cast<std::size_t>(k)] = static_cast<std::uint16_t>(p.normals.size() + t[static_cast<std::size_t>(k)]);
      }
      p.polys.push_back(q);
      p.poly_colors.push_back({0x80, 0x80, 0x80, 0xFF});
    }
    g.w[6] = static_cast<std::int32_t>(p.edges.size() - edge_base);
    for (std::size_t i = 0; i < part.positions.size(); ++i) {
      auto n = nrm[i];
      float len = std::sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
      if (len > 0) n = {n[0] / len, n[1] / len, n[2] / len};
      p.normal_index.push_back(static_cast<std::int32_t>(p.normals.size() + i));
      (void)n;
    }
    for (std::size_t i = 0; i < part.positions.size(); ++i) {
      auto n = nrm[i];
      float len = std::sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
      p.vertices.push_back(part.positions[i]);
      p.normals.push_back(len > 0 ? vec3{n[0] / len, n[1] / len, n[2] / len} : vec3{0, 1, 0});
      p.vertex_colors.push_back(part.colors_bgra.empty() ? std::array<std::uint8_t, 4>{0x80, 0x80, 0x80, 0xFF}
                                                         : part.colors_bgra[i]);
      for (int a = 0; a < 3; ++a) {
        mn[a] = std::min(mn[a], part.positions[i][static_cast<std::size_t>(a)]);
        mx[a] = std::max(mx[a], part.positions[i][static_cast<std::size_t>(a)]);
      }
    }
    for (const auto& t : part.uvs) p.texcoords.push_back(t);
    if (textured) tex_total += static_cast<std::uint32_t>(part.uvs.size());
    std::array<std::uint32_t, 25> h{};
    h[0] = 1;                      // flags as the game's files carry them
    h[4] = textured ? static_cast<std::uint32_t>(part.tex_id) : 0;  // texID @0x10
    h[9] = 2;                      // shademode @0x24: Gouraud
    h[13] = 4;                     // srcblend @0x34
    h[14] = 1;                     // destblend @0x38
    h[17] = 4;                     // blend_mode @0x44: none
    p.hundreds.push_back(h);
    p.groups.push_back(g);
  }
  if (p.vertices.empty()) mn[0] = mn[1] = mn[2] = mx[0] = mx[1] = mx[2] = 0;
  std::array<std::uint32_t, 7> box{};
  for (int a = 0; a < 3; ++a) {
    box[static_cast<std::size_t>(1 + a)] = std::bit_cast<std::uint32_t>(mx[a]);
    box[static_cast<std::size_t>(4 + a)] = std::bit_cast<std::uint32_t>(mn[a]);
  }
  p.bboxes.push_back(box);
  auto u = [](std::size_t n) { return static_cast<std::uint32_t>(n); };
  p.head = {1, 1, 1, u(p.vertices.size()), u(p.normals.size()), 0, u(p.texcoords.size()),
            u(p.vertex_colors.size()), u(p.edges.size()), u(p.polys.size()), 0, 0,
            u(p.hundreds.size()), u(p.groups.size()), u(p.bboxes.size()), 1};
  return p;
}

}  // namespace rigrip::ff7
