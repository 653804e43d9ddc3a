// Software rasteriser: edge functions over each triangle's pixel bounds, barycentric depth
// (affine in screen space) and perspective-correct attributes (divided by w, then back).
#include "render/raster.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace rigrip::render {

canvas::canvas(int w, int h, std::array<std::uint8_t, 4> background) : width(w), height(h) {
  const auto n = static_cast<std::size_t>(std::max(w, 0)) * static_cast<std::size_t>(std::max(h, 0));
  rgba.resize(n * 4);
  depth.resize(n);
  clear(background);
}

void canvas::clear(std::array<std::uint8_t, 4> background) {
  for (std::size_t i = 0; i < depth.size(); ++i) std::copy(background.begin(), background.end(), &rgba[i * 4]);
  std::fill(depth.begin(), depth.end(), std::numeric_limits<float>::infinity());
}

std::array<std::uint8_t, 4> canvas::at(int x, int y) const {
  if (x < 0 || y < 0 || x >= width || y >= height) return {0, 0, 0, 0};
  const std::size_t i = (static_cast<std::size_t>(y) * static_cast<std::size_t>(width) + static_cast<std::size_t>(x)) * 4;
  return {rgba[i], rgba[i + 1], rgba[i + 2], rgba[i + 3]};
}

namespace {

// Texel index along one axis of `size` texels for the integer coordinate i.
int wrap(int i, int size, texture_wrap mode) {
  switch (mode) {
    case texture_wrap::repeat: {
      int r = i % size;
      return r < 0 ? r + size : r;
    }
    case texture_wrap::mirrored_repeat: {
      const int period = 2 * size;
      int r = i % period;
      if (r < 0) r += period;
      return r < size ? r : period - 1 - r;
    }
    case texture_wrap::clamp_to_edge:
    default:
      return std::clamp(i, 0, size - 1);
  }
}

// Float to int without UB for huge or NaN coordinates.
int to_int(float f) {
  if (!(f > -1e8f)) return -100000000;
  if (!(f < 1e8f)) return 100000000;
  return static_cast<int>(std::floor(f));
}

std::array<float, 4> texel(const texture& t, int x, int y) {
  const std::size_t i = (static_cast<std::size_t>(y) * t.width + static_cast<std::size_t>(x)) * 4;
  constexpr float k = 1.0f / 255.0f;
  return {t.rgba[i] * k, t.rgba[i + 1] * k, t.rgba[i + 2] * k, t.rgba[i + 3] * k};
}

std::uint8_t to_byte(float f) {
  return static_cast<std::uint8_t>(std::clamp(f, 0.0f, 1.0f) * 255.0f + 0.5f);
}

}  // namespace

std::array<float, 4> sample(const texture& t, float u, float v) {
  const int w = static_cast<int>(t.width), h = static_cast<int>(t.height);
  if (w <= 0 || h <= 0 || t.rgba.size() < static_cast<std::size_t>(w) * static_cast<std::size_t>(h) * 4)
    return {1, 1, 1, 1};
  const float fx = u * static_cast<float>(w), fy = v * static_cast<float>(h);
  if (t.mag_filter == texture_filter::nearest)
    return texel(t, wrap(to_int(fx), w, t.wrap_s), wrap(to_int(fy), h, t.wrap_t));
  const float gx = fx - 0.5f, gy = fy - 0.5f;
  const int x0 = to_int(gx), y0 = to_int(gy);
  const float ax = std::isfinite(gx) ? gx - std::floor(gx) : 0, ay = std::isfinite(gy) ? gy - std::floor(gy) : 0;
  const int xa = wrap(x0, w, t.wrap_s), xb = wrap(x0 + 1, w, t.wrap_s);
  const int ya = wrap(y0, h, t.wrap_t), yb = wrap(y0 + 1, h, t.wrap_t);
  const auto p = texel(t, xa, ya), q = texel(t, xb, ya), r = texel(t, xa, yb), s = texel(t, xb, yb);
  std::array<float, 4> out{};
  for (std::size_t i = 0; i < 4; ++i)
    out[i] = (p[i] * (1 - ax) + q[i] * ax) * (1 - ay) + (r[i] * (1 - ax) + s[i] * ax) * ay;
  return out;
}

void draw_triangle(canvas& c, const vertex& a, const vertex& b0, const vertex& d0, const triangle_style& style) {
  if (c.width <= 0 || c.height <= 0) return;
  auto edge = [](const vertex& p, const vertex& q, float x, float y) {
    return (q.x - p.x) * (y - p.y) - (q.y - p.y) * (x - p.x);
  };
  float area = edge(a, b0, d0.x, d0.y);
  if (!std::isfinite(area) || std::fabs(area) < 1e-8f) return;
  // One winding for the loop: the edge functions are positive inside.
  const vertex& b = area > 0 ? b0 : d0;
  const vertex& d = area > 0 ? d0 : b0;
  area = std::fabs(area);
  for (const vertex* v : {&a, &b, &d})
    if (!std::isfinite(v->x) || !std::isfinite(v->y) || !std::isfinite(v->z) || !(v->w > 0)) return;
  const float minx = std::min({a.x, b.x, d.x}), maxx = std::max({a.x, b.x, d.x});
  const float miny = std::min({a.y, b.y, d.y}), maxy = std::max({a.y, b.y, d.y});
  const int x0 = std::max(0, to_int(minx)), x1 = std::min(c.width - 1, to_int(maxx));
  const int y0 = std::max(0, to_int(miny)), y1 = std::min(c.height - 1, to_int(maxy));
  if (x0 > x1 || y0 > y1) return;
  // Top-left rule: a pixel centre exactly on an edge belongs to the triangle only when the
  // edge is a top or a left edge, so triangles sharing an edge never both draw it.
  auto top_left = [](const vertex& p, const vertex& q) {
    const float dy = q.y - p.y, dx = q.x - p.x;
    return (dy == 0 && dx < 0) || dy > 0;
  };
  const bool tl0 = top_left(b, d), tl1 = top_left(d, a), tl2 = top_left(a, b);
  const float ia = 1.0f / a.w, ib = 1.0f / b.w, id = 1.0f / d.w;
  const float inv_area = 1.0f / area;
  // Edge functions step by constants along a row: e(x + 1) = e(x) + dx_k.
  const float dx0 = -(d.y - b.y), dx1 = -(a.y - d.y), dx2 = -(b.y - a.y);
  for (int y = y0; y <= y1; ++y) {
    const float py = static_cast<float>(y) + 0.5f, px0 = static_cast<float>(x0) + 0.5f;
    float e0 = edge(b, d, px0, py), e1 = edge(d, a, px0, py), e2 = edge(a, b, px0, py);
    bool entered = false;
    for (int x = x0; x <= x1; ++x, e0 += dx0, e1 += dx1, e2 += dx2) {
      if (e0 < 0 || e1 < 0 || e2 < 0) {
        if (entered) break;  // a triangle's row is one span
        continue;
      }
      entered = true;
      if ((e0 == 0 && !tl0) || (e1 == 0 && !tl1) || (e2 == 0 && !tl2)) continue;
      const float l0 = e0 * inv_area, l1 = e1 * inv_area, l2 = e2 * inv_area;
      const float z = l0 * a.z + l1 * b.z + l2 * d.z;
      const std::size_t pi = static_cast<std::size_t>(y) * static_cast<std::size_t>(c.width) + static_cast<std::size_t>(x);
      if (!(z < c.depth[pi])) continue;
      // Perspective-correct weights.
      float p0 = l0 * ia, p1 = l1 * ib, p2 = l2 * id;
      const float s = p0 + p1 + p2;
      if (!(s > 0)) continue;
      p0 /= s, p1 /= s, p2 /= s;
      std::array<float, 4> col;
      for (std::size_t k = 0; k < 4; ++k) col[k] = p0 * a.color[k] + p1 * b.color[k] + p2 * d.color[k];
      if (style.tex) {
        const float u = p0 * a.u + p1 * b.u + p2 * d.u, v = p0 * a.v + p1 * b.v + p2 * d.v;
        const auto t = sample(*style.tex, u, v);
        for (std::size_t k = 0; k < 4; ++k) col[k] *= t[k];
      }
      if (col[3] < style.alpha_cutoff) continue;
      c.depth[pi] = z;
      std::uint8_t* o = &c.rgba[pi * 4];
      o[0] = to_byte(col[0]), o[1] = to_byte(col[1]), o[2] = to_byte(col[2]), o[3] = 255;
    }
  }
}

void draw_line(canvas& c, float x0, float y0, float z0, float x1, float y1, float z1,
               std::array<std::uint8_t, 4> color, int thickness, bool depth_test) {
  for (float f : {x0, y0, z0, x1, y1, z1})
    if (!std::isfinite(f)) return;
  const float dx = x1 - x0, dy = y1 - y0;
  const int steps = std::clamp(static_cast<int>(std::ceil(std::max(std::fabs(dx), std::fabs(dy)))), 1, 1 << 14);
  const int lo = -(thickness - 1) / 2, hi = thickness / 2;
  for (int i = 0; i <= steps; ++i) {
    const float t = static_cast<float>(i) / static_cast<float>(steps);
    const int cx = to_int(x0 + dx * t), cy = to_int(y0 + dy * t);
    const float z = z0 + (z1 - z0) * t;
    for (int oy = lo; oy <= hi; ++oy)
      for (int ox = lo; ox <= hi; ++ox) {
        const int x = cx + ox, y = cy + oy;
        if (x < 0 || y < 0 || x >= c.width || y >= c.height) continue;
        const std::size_t pi = static_cast<std::size_t>(y) * static_cast<std::size_t>(c.width) + static_cast<std::size_t>(x);
        if (depth_test && !(z < c.depth[pi])) continue;
        std::copy(color.begin(), color.end(), &c.rgba[pi * 4]);
        if (depth_test) c.depth[pi] = z;
      }
  }
}

void draw_dot(canvas& c, float x, float y, std::array<std::uint8_t, 4> color, int radius) {
  if (!std::isfinite(x) || !std::isfinite(y)) return;
  const int cx = to_int(x), cy = to_int(y);
  for (int oy = -radius; oy <= radius; ++oy)
    for (int ox = -radius; ox <= radius; ++ox) {
      const int px = cx + ox, py = cy + oy;
      if (px < 0 || py < 0 || px >= c.width || py >= c.height) continue;
      const std::size_t pi = static_cast<std::size_t>(py) * static_cast<std::size_t>(c.width) + static_cast<std::size_t>(px);
      std::copy(color.begin(), color.end(), &c.rgba[pi * 4]);
    }
}

}  // namespace rigrip::render
