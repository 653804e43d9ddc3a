#include "scene/tangents.hpp"

#include <array>
#include <cmath>

namespace rigrip::scene_ops {

std::vector<vec4> uv_tangents(std::span<const vec3> positions, std::span<const vec3> normals,
                              std::span<const vec2> uvs, std::span<const std::uint32_t> triangles,
                              bitangent_dir dir) {
  const std::size_t n = positions.size();
  std::vector<vec4> out(n, vec4{1, 0, 0, 1});
  if (normals.size() != n || uvs.size() != n) return out;
  // Sums of dP/du and dP/dv over the triangles of each vertex (in double: long thin
  // triangles cancel in float).
  std::vector<std::array<double, 3>> tan(n, {0, 0, 0}), bit(n, {0, 0, 0});
  for (std::size_t t = 0; t + 2 < triangles.size(); t += 3) {
    const std::uint32_t ia = triangles[t], ib = triangles[t + 1], ic = triangles[t + 2];
    if (ia >= n || ib >= n || ic >= n) continue;
    const double du1 = double(uvs[ib][0]) - uvs[ia][0], dv1 = double(uvs[ib][1]) - uvs[ia][1];
    const double du2 = double(uvs[ic][0]) - uvs[ia][0], dv2 = double(uvs[ic][1]) - uvs[ia][1];
    const double det = du1 * dv2 - du2 * dv1;
    if (!(std::fabs(det) > 1e-20)) continue;
    const double r = 1.0 / det;
    for (int i = 0; i < 3; ++i) {
      const double e1 = double(positions[ib][i]) - positions[ia][i], e2 = double(positions[ic][i]) - positions[ia][i];
      const double sd = (e1 * dv2 - e2 * dv1) * r, td = (e2 * du1 - e1 * du2) * r;
      for (std::uint32_t v : {ia, ib, ic}) tan[v][i] += sd, bit[v][i] += td;
    }
  }
  const double sign = dir == bitangent_dir::plus_v ? 1.0 : -1.0;
  for (std::size_t i = 0; i < n; ++i) {
    std::array<double, 3> nn{normals[i][0], normals[i][1], normals[i][2]};
    const double nl = std::sqrt(nn[0] * nn[0] + nn[1] * nn[1] + nn[2] * nn[2]);
    if (!(nl > 1e-12)) nn = {0, 0, 1};
    else
      for (auto& c : nn) c /= nl;
    std::array<double, 3> t = tan[i];
    const double d = nn[0] * t[0] + nn[1] * t[1] + nn[2] * t[2];
    for (int k = 0; k < 3; ++k) t[k] -= nn[k] * d;
    double l = std::sqrt(t[0] * t[0] + t[1] * t[1] + t[2] * t[2]);
    if (!(l > 1e-12 * (1 + std::sqrt(tan[i][0] * tan[i][0] + tan[i][1] * tan[i][1] + tan[i][2] * tan[i][2])))) {
      // No usable gradient: any vector perpendicular to the normal.
      t = std::fabs(nn[0]) < 0.9 ? std::array<double, 3>{0, -nn[2], nn[1]} : std::array<double, 3>{nn[2], 0, -nn[0]};
      l = std::sqrt(t[0] * t[0] + t[1] * t[1] + t[2] * t[2]);
    }
    const std::array<double, 3> c{nn[1] * t[2] - nn[2] * t[1], nn[2] * t[0] - nn[0] * t[2], nn[0] * t[1] - nn[1] * t[0]};
    const double along = (c[0] * bit[i][0] + c[1] * bit[i][1] + c[2] * bit[i][2]) * sign;
    out[i] = {static_cast<float>(t[0] / l), static_cast<float>(t[1] / l), static_cast<float>(t[2] / l),
              along < 0 ? -1.0f : 1.0f};
  }
  return out;
}

std::vector<vec4> tangents_from_uvs(std::span<const vec3> positions, std::span<const vec3> normals,
                                    std::span<const vec2> uvs, std::span<const std::uint32_t> indices) {
  if (normals.size() != positions.size() || uvs.size() != positions.size()) return {};
  if (!indices.empty()) return uv_tangents(positions, normals, uvs, indices);
  std::vector<std::uint32_t> all(positions.size());
  for (std::uint32_t i = 0; i < all.size(); ++i) all[i] = i;
  return uv_tangents(positions, normals, uvs, all);
}

std::vector<vec4> tangents_from_uvs(const mesh& me, int uv_set) {
  return tangents_from_uvs(me.positions, me.normals, uv_set == 1 ? me.uvs1 : me.uvs, me.indices);
}

int add_missing_tangents(scene& s) {
  int made = 0;
  for (auto& me : s.meshes) {
    if (!me.tangents.empty() || me.normals.empty() || me.material < 0 ||
        static_cast<std::size_t>(me.material) >= s.materials.size())
      continue;
    const material& mt = s.materials[static_cast<std::size_t>(me.material)];
    if (mt.normal_texture < 0) continue;
    const std::vector<vec2>& uv = mt.normal_texcoord == 1 ? me.uvs1 : me.uvs;
    if (uv.size() != me.positions.size() || me.normals.size() != me.positions.size()) continue;
    me.tangents = tangents_from_uvs(me.positions, me.normals, uv, me.indices);
    ++made;
  }
  return made;
}

}  // namespace rigrip::scene_ops
