// Tangent space from texture coordinates, for meshes whose source stores no tangents (or a
// writer whose target needs them): a scene-level op any format or the glTF side may use.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "rigrip/scene.hpp"

namespace rigrip::scene_ops {

// Per-vertex tangents of a triangle list from its UV gradients (each triangle's dP/du and
// dP/dv summed on its corners), in glTF's convention (mesh::tangents): xyz = the +u direction
// made orthogonal to the normal and unit; w = +1 when cross(normal, xyz) points towards
// *decreasing* v (image "up", the normal map's +Y, as glTF's top-left UV origin wants), else -1.
// Vertices on no usable triangle (zero UV area) get any unit vector perpendicular to their
// normal and w = +1. `indices` empty means non-indexed triangles; triangles naming a vertex
// out of range are skipped. Returns one tangent per position, or nothing when the normal or
// UV counts differ from the position count.
[[nodiscard]] std::vector<vec4> tangents_from_uvs(std::span<const vec3> positions,
                                                  std::span<const vec3> normals,
                                                  std::span<const vec2> uvs,
                                                  std::span<const std::uint32_t> indices);
// The same for a scene mesh, from UV set `uv_set` (0 = uvs, 1 = uvs1).
[[nodiscard]] std::vector<vec4> tangents_from_uvs(const mesh& me, int uv_set = 0);

}  // namespace rigrip::scene_ops
