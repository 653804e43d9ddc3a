// FF7 P models (PC): the raw layer, byte-faithful both ways, and a builder from triangles.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "core/byte_reader.hpp"
#include "rigrip/registry.hpp"
#include "rigrip/scene.hpp"

namespace rigrip::ff7 {

struct p_poly {
  std::uint16_t tag1 = 0;
  std::array<std::uint16_t, 3> v{}, n{}, e{};
  std::uint32_t tag2 = 0;
};
struct p_group {
  // polyType, polyStart, numPolys, vertStart, numVerts, edgeStart, numEdges,
  // u1..u4, texCoordStart, texFlag, texID
  std::array<std::int32_t, 14> w{};
  [[nodiscard]] std::int32_t poly_start() const { return w[1]; }
  [[nodiscard]] std::int32_t poly_count() const { return w[2]; }
  [[nodiscard]] std::int32_t vert_start() const { return w[3]; }
  [[nodiscard]] std::int32_t vert_count() const { return w[4]; }
  [[nodiscard]] std::int32_t tex_start() const { return w[11]; }
  [[nodiscard]] bool textured() const { return w[12] != 0; }
  [[nodiscard]] std::int32_t tex_id() const { return w[13]; }
};
struct p_model {
  std::array<std::uint32_t, 16> head{};  // version .. normIndexTableFlag
  std::array<std::uint32_t, 16> runtime{};
  std::vector<vec3> vertices, normals, unknown1;
  std::vector<vec2> texcoords;
  std::vector<std::array<std::uint8_t, 4>> vertex_colors, poly_colors;  // B, G, R, A
  std::vector<std::array<std::uint16_t, 2>> edges;
  std::vector<p_poly> polys;
  bytes unknown2, unknown3;
  std::vector<std::array<std::uint32_t, 25>> hundreds;
  std::vector<p_group> groups;
  std::vector<std::array<std::uint32_t, 7>> bboxes;
  std::vector<std::int32_t> normal_index;
  bytes trailing;
};
[[nodiscard]] p_model parse_p(std::span<const std::uint8_t> data);
[[nodiscard]] bytes serialise_p(const p_model& p);
[[nodiscard]] int detect_p(std::span<const std::uint8_t> data);
// Builds a P model from triangles (one group per part), with edges, normals, bbox.
struct p_part {
  std::vector<vec3> positions;
  std::vector<std::array<std::uint8_t, 4>> colors_bgra;  // per vertex
  std::vector<vec2> uvs;                                 // empty: untextured
  std::vector<std::array<std::uint16_t, 3>> triangles;   // game winding (clockwise)
  int tex_id = 0;
};
[[nodiscard]] p_model build_p(const std::vector<p_part>& parts);

}  // namespace rigrip::ff7
