// Tangent spaces for normal maps: per-vertex tangents from UV gradients, and the
// scene-level pass that gives them to every mesh whose material has a normal map.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "rigrip/scene.hpp"

namespace rigrip::scene_ops {

// Which way the bitangent (cross(n, t.xyz) * w) points in UV space. With top-left-origin
// UVs (the scene's and glTF's), glTF / OpenGL-style normal maps have green = up = -v
// (`minus_v`); Direct3D-style maps have green = +v (`plus_v`).
enum class bitangent_dir { minus_v, plus_v };

// Per-vertex tangents from the UV gradients of the triangles using each vertex (summed,
// Gram-Schmidt against the normal, unit xyz, w = +-1 handedness). A vertex whose
// gradients vanish gets a unit vector perpendicular to its normal (w = +1). `normals`
// and `uvs` have one entry per position; indices out of range are ignored.
[[nodiscard]] std::vector<vec4> uv_tangents(std::span<const vec3> positions, std::span<const vec3> normals,
                                            std::span<const vec2> uvs, std::span<const std::uint32_t> triangles,
                                            bitangent_dir dir = bitangent_dir::minus_v);

// The same in glTF's convention (minus_v), for a triangle list or, with `indices` empty,
// non-indexed triangles; nothing when the normal or UV counts differ from the position count.
[[nodiscard]] std::vector<vec4> tangents_from_uvs(std::span<const vec3> positions, std::span<const vec3> normals,
                                                  std::span<const vec2> uvs,
                                                  std::span<const std::uint32_t> indices);
// The same for a scene mesh, from UV set `uv_set` (0 = uvs, 1 = uvs1).
[[nodiscard]] std::vector<vec4> tangents_from_uvs(const mesh& me, int uv_set = 0);

// Fills `tangents` (glTF convention) on every mesh that has normals and the UV set of its
// material's normal map but no tangents. Returns how many meshes got them.
int add_missing_tangents(scene& s);

}  // namespace rigrip::scene_ops
