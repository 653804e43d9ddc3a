// A small software rasteriser for previews: z-buffered triangles with perspective-correct
// attributes and texture lookup, and lines. Knows images and textures, no scene and no format.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "rigrip/scene.hpp"

namespace rigrip::render {

// An RGBA8 picture, rows top to bottom, with its depth buffer (smaller = nearer).
struct canvas {
  int width = 0, height = 0;
  std::vector<std::uint8_t> rgba;  // width * height * 4
  std::vector<float> depth;        // width * height
  canvas() = default;
  canvas(int w, int h, std::array<std::uint8_t, 4> background);
  void clear(std::array<std::uint8_t, 4> background);
  [[nodiscard]] std::array<std::uint8_t, 4> at(int x, int y) const;
};

// A vertex after projection: pixel position (x right, y down, pixel centres at +0.5), depth
// in [0, 1], the clip-space w (for perspective-correct interpolation; 1 for orthographic),
// texture coordinates and a colour (0..1, multiplied with the texel).
struct vertex {
  float x = 0, y = 0, z = 0, w = 1;
  float u = 0, v = 0;
  std::array<float, 4> color{1, 1, 1, 1};
};

struct triangle_style {
  const texture* tex = nullptr;  // nullptr: the vertex colour alone
  float alpha_cutoff = -1;       // fragments whose alpha is below it are not drawn (-1: all drawn)
};

// Samples a texture at (u, v) (top-left origin, as the scene model) with its wrap modes and its
// magnification filter (nearest or bilinear). Returns 0..1 RGBA.
[[nodiscard]] std::array<float, 4> sample(const texture& t, float u, float v);

// Fills a triangle of either winding: pixels whose centres lie inside (top-left rule on shared
// edges), nearer than the depth buffer, get colour * texel.
void draw_triangle(canvas& c, const vertex& a, const vertex& b, const vertex& d, const triangle_style& style);

// A line between two pixel positions, `thickness` pixels wide; with `depth_test`, it is hidden
// behind nearer surfaces (z interpolated linearly in screen space).
void draw_line(canvas& c, float x0, float y0, float z0, float x1, float y1, float z1,
               std::array<std::uint8_t, 4> color, int thickness, bool depth_test);

// A filled square dot of `radius` pixels, drawn on top.
void draw_dot(canvas& c, float x, float y, std::array<std::uint8_t, 4> color, int radius);

}  // namespace rigrip::render
