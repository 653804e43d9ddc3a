#include "scene/tangents.hpp"

#include <cmath>

namespace rigrip::scene_ops {

namespace {
vec3 cross(const vec3& a, const vec3& b) {
  return {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]};
}
float dot(const vec3& a, const vec3& b) {
  return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}
}  // namespace

std::vector<vec4> tangents_from_uvs(std::span<const vec3> positions, std::span<const vec3> normals,
                                    std::span<const vec2> uvs,
                                    std::span<const std::uint32_t> indices) {
  const std::size_t n = positions.size();
  if (normals.size() != n || uvs.size() != n) return {};
  std::vector<vec3> du(n, vec3{0, 0, 0}), dv(n, vec3{0, 0, 0});
  const std::size_t corners = indices.empty() ? n : indices.size();
  auto at = [&](std::size_t k) {
    return indices.empty() ? static_cast<std::uint32_t>(k) : indices[k];
  };
  for (std::size_t t = 0; t + 2 < corners; t += 3) {
    const std::uint32_t i0 = at(t), i1 = at(t + 1), i2 = at(t + 2);
    if (i0 >= n || i1 >= n || i2 >= n) continue;
    const float du1 = uvs[i1][0] - uvs[i0][0], dv1 = uvs[i1][1] - uvs[i0][1],
                du2 = uvs[i2][0] - uvs[i0][0], dv2 = uvs[i2][1] - uvs[i0][1];
    const float det = du1 * dv2 - du2 * dv1;
    if (!(std::fabs(det) > 1e-12f) || !std::isfinite(det)) continue;  // no UV area: no gradient
    const float r = 1.0f / det;
    vec3 su{}, sv{};
    for (int c = 0; c < 3; ++c) {
      const float e1 = positions[i1][c] - positions[i0][c],
                  e2 = positions[i2][c] - positions[i0][c];
      su[c] = (e1 * dv2 - e2 * dv1) * r;  // dP/du
      sv[c] = (e2 * du1 - e1 * du2) * r;  // dP/dv
    }
    for (std::uint32_t i : {i0, i1, i2})
      for (int c = 0; c < 3; ++c) du[i][c] += su[c], dv[i][c] += sv[c];
  }
  std::vector<vec4> out(n);
  for (std::size_t i = 0; i < n; ++i) {
    const vec3& nn = normals[i];
    vec3 t = du[i];
    const float d = dot(nn, t);
    for (int c = 0; c < 3; ++c) t[c] -= nn[c] * d;  // Gram-Schmidt against the normal
    float l = std::sqrt(dot(t, t));
    if (!(l > 1e-12f) || !std::isfinite(l)) {  // any vector perpendicular to the normal
      t = std::fabs(nn[0]) < 0.9f ? vec3{0, -nn[2], nn[1]} : vec3{nn[2], 0, -nn[0]};
      l = std::sqrt(dot(t, t));
      if (!(l > 1e-12f)) t = {1, 0, 0}, l = 1;
    }
    // glTF's bitangent (cross(n, t) * w) points to decreasing v: the image's up.
    const float w = dot(cross(nn, t), dv[i]) > 0 ? -1.0f : 1.0f;
    out[i] = {t[0] / l, t[1] / l, t[2] / l, w};
  }
  return out;
}

std::vector<vec4> tangents_from_uvs(const mesh& me, int uv_set) {
  return tangents_from_uvs(me.positions, me.normals, uv_set == 1 ? me.uvs1 : me.uvs, me.indices);
}

}  // namespace rigrip::scene_ops
