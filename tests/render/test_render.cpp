// The preview rasteriser (src/render) and `rigrip preview`: pixels of known triangles, depth
// order, texture lookup; pictures of every example, of one shared sample per family (skipped
// when absent), the SF3 model's texture colours, GIF frame counts read back with giflib.
#include <gif_lib.h>
#include <stb_image.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <set>

#include "render/encode.hpp"
#include "render/preview.hpp"
#include "render/raster.hpp"
#include "rigrip/registry.hpp"
#include "test_support.hpp"

namespace fs = std::filesystem;
using namespace rigrip;
using namespace rigrip::render;

namespace {

constexpr std::array<std::uint8_t, 4> black{0, 0, 0, 255};

vertex vx(float x, float y, float z = 0.5f, float w = 1, float u = 0, float v = 0) {
  vertex r;
  r.x = x, r.y = y, r.z = z, r.w = w, r.u = u, r.v = v;
  return r;
}
vertex coloured(vertex v, float r, float g, float b) {
  v.color = {r, g, b, 1};
  return v;
}
int count(const canvas& c, std::array<std::uint8_t, 4> colour) {
  int n = 0;
  for (int y = 0; y < c.height; ++y)
    for (int x = 0; x < c.width; ++x) n += c.at(x, y) == colour;
  return n;
}

struct png {
  int width = 0, height = 0;
  std::vector<std::array<std::uint8_t, 3>> px;
  [[nodiscard]] const std::array<std::uint8_t, 3>& at(int x, int y) const {
    return px[static_cast<std::size_t>(y) * static_cast<std::size_t>(width) + static_cast<std::size_t>(x)];
  }
};
png load_png(const std::string& path) {
  png p;
  int n = 0;
  unsigned char* d = stbi_load(path.c_str(), &p.width, &p.height, &n, 3);
  if (!d) return p;
  for (int i = 0; i < p.width * p.height; ++i) p.px.push_back({d[i * 3], d[i * 3 + 1], d[i * 3 + 2]});
  stbi_image_free(d);
  return p;
}

constexpr std::array<std::uint8_t, 3> bg{46, 50, 58};  // the previewer's background

// Not blank: many colours, the model's pixels present and all inside the frame (the outermost
// rows and columns are background). `min_colours` is lower for skeleton-only pictures.
void expect_picture(const std::string& path, int w, int h, std::size_t min_colours, bool grid_drawn = false) {
  SCOPED_TRACE(path);
  const png p = load_png(path);
  ASSERT_EQ(p.width, w);
  ASSERT_EQ(p.height, h);
  std::set<std::array<std::uint8_t, 3>> colours(p.px.begin(), p.px.end());
  EXPECT_GE(colours.size(), min_colours);
  int model = 0, border = 0;
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      if (p.at(x, y) == bg) continue;
      ++model;
      border += x == 0 || y == 0 || x == w - 1 || y == h - 1;
    }
  EXPECT_GT(model, w * h / 400) << "almost nothing drawn";
  if (!grid_drawn) EXPECT_EQ(border, 0) << "the model touches the edge of the frame";
}

std::string cli() { return RIGRIP_CLI; }
std::string q(const std::string& s) { return "'" + s + "'"; }

int gif_frames(const std::string& path, int* w = nullptr, int* h = nullptr) {
  int err = 0;
  GifFileType* g = DGifOpenFileName(path.c_str(), &err);
  if (!g) return -1;
  int n = DGifSlurp(g) == GIF_OK ? g->ImageCount : -1;
  if (w) *w = g->SWidth;
  if (h) *h = g->SHeight;
  DGifCloseFile(g, &err);
  return n;
}

}  // namespace

// ------------------------------------------------------------------ rasteriser
TEST(Raster, TriangleCoversTheExpectedPixels) {
  for (bool flip : {false, true}) {
    canvas c(16, 16, black);
    vertex a = coloured(vx(0, 0), 1, 0, 0), b = coloured(vx(16, 0), 1, 0, 0), d = coloured(vx(0, 16), 1, 0, 0);
    flip ? draw_triangle(c, a, d, b, {}) : draw_triangle(c, a, b, d, {});
    const std::array<std::uint8_t, 4> red{255, 0, 0, 255};
    // Pixel centres with x + y < 15 are inside; those on the hypotenuse (x + y == 15) belong to
    // it or to its neighbour by the top-left rule: 120 or 136 pixels, never anything else.
    const int n = count(c, red);
    EXPECT_TRUE(n == 120 || n == 136) << n;
    EXPECT_EQ(c.at(0, 0), red);
    EXPECT_EQ(c.at(14, 0), red);
    EXPECT_EQ(c.at(0, 14), red);
    EXPECT_EQ(c.at(15, 15), black);
    EXPECT_EQ(c.at(10, 10), black);
  }
}

TEST(Raster, SharedEdgeIsDrawnOnce) {
  // Two triangles of a square: every pixel exactly once (drawn twice, the second would need
  // a nearer depth; the depth test uses strict <, so coverage is counted with a fresh depth).
  canvas c(8, 8, black);
  int covered = 0;
  for (int tri = 0; tri < 2; ++tri) {
    canvas one(8, 8, black);
    const vertex a = vx(0, 0), b = vx(8, 0), d = vx(8, 8), e = vx(0, 8);
    tri == 0 ? draw_triangle(one, a, b, d, {}) : draw_triangle(one, a, d, e, {});
    covered += count(one, {255, 255, 255, 255});
  }
  EXPECT_EQ(covered, 64);
}

TEST(Raster, DepthBufferKeepsTheNearestWhateverTheOrder) {
  for (bool near_first : {true, false}) {
    canvas c(20, 20, black);
    const vertex n0 = coloured(vx(0, 0, 0.2f), 1, 0, 0), n1 = coloured(vx(20, 0, 0.2f), 1, 0, 0),
                 n2 = coloured(vx(0, 20, 0.2f), 1, 0, 0);
    const vertex f0 = coloured(vx(0, 0, 0.8f), 0, 0, 1), f1 = coloured(vx(20, 0, 0.8f), 0, 0, 1),
                 f2 = coloured(vx(20, 20, 0.8f), 0, 0, 1);
    if (near_first) {
      draw_triangle(c, n0, n1, n2, {});
      draw_triangle(c, f0, f1, f2, {});
    } else {
      draw_triangle(c, f0, f1, f2, {});
      draw_triangle(c, n0, n1, n2, {});
    }
    EXPECT_EQ(c.at(12, 2), (std::array<std::uint8_t, 4>{255, 0, 0, 255}));  // both cover it: the near one
    EXPECT_EQ(c.at(18, 15), (std::array<std::uint8_t, 4>{0, 0, 255, 255}));  // only the far one
  }
}

TEST(Raster, TextureLookupNearestBilinearAndWrap) {
  texture t;
  t.width = 2, t.height = 2;
  t.rgba = {255, 0, 0, 255, 0, 255, 0, 255, 0, 0, 255, 255, 255, 255, 255, 255};  // R G / B W
  canvas c(8, 8, black);
  const vertex a = vx(0, 0, 0.5f, 1, 0, 0), b = vx(8, 0, 0.5f, 1, 1, 0), d = vx(8, 8, 0.5f, 1, 1, 1),
               e = vx(0, 8, 0.5f, 1, 0, 1);
  triangle_style st;
  st.tex = &t;
  draw_triangle(c, a, b, d, st);
  draw_triangle(c, a, d, e, st);
  EXPECT_EQ(c.at(1, 1), (std::array<std::uint8_t, 4>{255, 0, 0, 255}));
  EXPECT_EQ(c.at(6, 1), (std::array<std::uint8_t, 4>{0, 255, 0, 255}));
  EXPECT_EQ(c.at(1, 6), (std::array<std::uint8_t, 4>{0, 0, 255, 255}));
  EXPECT_EQ(c.at(6, 6), (std::array<std::uint8_t, 4>{255, 255, 255, 255}));

  EXPECT_EQ(sample(t, 1.25f, 0.25f), sample(t, 0.75f, 0.25f));  // clamped to the edge texel
  t.wrap_s = texture_wrap::repeat;
  EXPECT_EQ(sample(t, 1.25f, 0.25f), sample(t, 0.25f, 0.25f));
  t.wrap_s = texture_wrap::mirrored_repeat;
  EXPECT_EQ(sample(t, 1.25f, 0.25f), sample(t, 0.75f, 0.25f));
  t.mag_filter = texture_filter::linear;
  t.wrap_s = texture_wrap::clamp_to_edge;
  const auto mid = sample(t, 0.5f, 0.25f);  // half red, half green
  EXPECT_NEAR(mid[0], 0.5f, 0.01f);
  EXPECT_NEAR(mid[1], 0.5f, 0.01f);
  EXPECT_NEAR(mid[2], 0.0f, 0.01f);
}

TEST(Raster, TextureCoordinatesArePerspectiveCorrect) {
  // A quad whose right edge is three times as far: at 60% of the width on screen, the texture
  // coordinate is (0.6/3) / (0.4 + 0.6/3) = 1/3, in the left texel; affine would give 0.6.
  texture t;
  t.width = 2, t.height = 1;
  t.rgba = {255, 0, 0, 255, 0, 255, 0, 255};
  canvas c(100, 10, black);
  const vertex a = vx(0, 0, 0.5f, 1, 0, 0), b = vx(100, 0, 0.5f, 3, 1, 0), d = vx(100, 10, 0.5f, 3, 1, 1),
               e = vx(0, 10, 0.5f, 1, 0, 1);
  triangle_style st;
  st.tex = &t;
  draw_triangle(c, a, b, d, st);
  draw_triangle(c, a, d, e, st);
  EXPECT_EQ(c.at(60, 5), (std::array<std::uint8_t, 4>{255, 0, 0, 255}));
  EXPECT_EQ(c.at(80, 5), (std::array<std::uint8_t, 4>{0, 255, 0, 255}));  // u = 0.8/3 / (0.2+0.8/3) = 4/7
}

TEST(Raster, LinesOnTopOrHiddenByDepth) {
  canvas c(10, 10, black);
  draw_triangle(c, vx(0, 0, 0.1f), vx(10, 0, 0.1f), vx(0, 10, 0.1f), {});
  draw_line(c, 0.5f, 2.5f, 0.9f, 9.5f, 2.5f, 0.9f, {255, 0, 0, 255}, 1, true);
  EXPECT_EQ(c.at(1, 2), (std::array<std::uint8_t, 4>{255, 255, 255, 255}));  // behind the triangle
  EXPECT_EQ(c.at(9, 2), (std::array<std::uint8_t, 4>{255, 0, 0, 255}));
  draw_line(c, 0.5f, 2.5f, 0.9f, 9.5f, 2.5f, 0.9f, {0, 255, 0, 255}, 1, false);
  EXPECT_EQ(c.at(1, 2), (std::array<std::uint8_t, 4>{0, 255, 0, 255}));  // on top
}

// ------------------------------------------------------------------ previewer
namespace {
// One bone 1 unit up from a root, a rigid quad on the child (bone space), a clip turning the
// root 90 degrees about Z.
scene arm_scene(bool with_mesh) {
  scene s;
  s.format = "test";
  skeleton sk;
  sk.name = "arm";
  sk.bones.push_back(bone{"root", -1});
  bone tip{"tip", 0};
  tip.translation = {0, 1, 0};
  sk.bones.push_back(tip);
  s.skeletons.push_back(sk);
  if (with_mesh) {
    mesh m;
    m.skeleton = 0;
    m.bone = 1;
    m.positions = {{-0.3f, 0, 0}, {0.3f, 0, 0}, {0.3f, 0.6f, 0}, {-0.3f, 0.6f, 0}};
    m.indices = {0, 1, 2, 0, 2, 3};
    m.colors = {{1, 0, 0, 1}, {1, 0, 0, 1}, {0, 0, 1, 1}, {0, 0, 1, 1}};
    s.meshes.push_back(m);
  }
  animation a;
  a.name = "turn";
  a.duration = 1;
  track t{"root", path::rotation, interpolation::linear, {0, 1}, {0, 0, 0, 1, 0, 0, 0.70710678f, 0.70710678f}};
  a.tracks.push_back(t);
  s.animations.push_back(a);
  return s;
}
}  // namespace

TEST(Preview, RigidMeshFollowsItsBoneAndTheFrameHoldsTheWholeClip) {
  const scene s = arm_scene(true);
  preview_options o;
  o.width = 96, o.height = 64, o.animation = 0;
  const previewer pv(s, o);
  ASSERT_FALSE(pv.empty());
  const canvas a = pv.render(0), b = pv.render(1);
  EXPECT_NE(a.rgba, b.rgba);  // the pose changed
  for (const canvas* c : {&a, &b}) {
    int model = 0, edge = 0;
    for (int y = 0; y < c->height; ++y)
      for (int x = 0; x < c->width; ++x) {
        const auto p = c->at(x, y);
        if (p == std::array<std::uint8_t, 4>{46, 50, 58, 255}) continue;
        ++model;
        edge += x == 0 || y == 0 || x == c->width - 1 || y == c->height - 1;
      }
    EXPECT_GT(model, 200);
  }
  // Vertex colours reach the picture: reddish and bluish pixels.
  int red = 0, blue = 0;
  for (int y = 0; y < a.height; ++y)
    for (int x = 0; x < a.width; ++x) {
      const auto p = a.at(x, y);
      red += p[0] > 120 && p[2] < 90 && p[1] < 90;
      blue += p[2] > 120 && p[0] < 90 && p[1] < 90;
    }
  EXPECT_GT(red, 20);
  EXPECT_GT(blue, 20);
}

TEST(Preview, SkeletonWithoutMeshesDrawsBones) {
  const scene s = arm_scene(false);
  preview_options o;
  o.width = 64, o.height = 64;
  const previewer pv(s, o);
  ASSERT_FALSE(pv.empty());
  const canvas c = pv.render(0);
  EXPECT_GT(count(c, {255, 170, 40, 255}), 20);  // bone lines
}

TEST(Preview, SkinnedMeshAtRestIsWhereItWasBound) {
  // The same quad skinned (model space, weight 1 on "tip") and rigid (bone space) draws the
  // same pixels at every time: both follow the bone.
  scene rigid = arm_scene(true), skinned = rigid;
  auto& m = skinned.meshes[0];
  m.bone = -1;
  for (auto& p : m.positions) p[1] += 1;  // bone space -> model space (tip's rest is +1 Y)
  m.joints.assign(m.positions.size(), {1, 0, 0, 0});
  m.weights.assign(m.positions.size(), {1, 0, 0, 0});
  preview_options o;
  o.width = o.height = 64, o.animation = 0;
  const previewer a(rigid, o), b(skinned, o);
  for (double t : {0.0, 0.5, 1.0}) EXPECT_EQ(a.render(t).rgba, b.render(t).rgba) << t;
}

TEST(Preview, GifHasItsFramesAndPngDecodes) {
  const scene s = arm_scene(true);
  preview_options o;
  o.width = 40, o.height = 30, o.animation = 0;
  const previewer pv(s, o);
  std::vector<canvas> frames;
  for (int i = 0; i < 5; ++i) frames.push_back(pv.render(i / 4.0));
  auto gif = encode_gif(frames, 8);
  ASSERT_TRUE(gif) << gif.error().message;
  const std::string path = test::out_path("render_unit.gif");
  test::write_bytes(path, gif.value());
  int w = 0, h = 0;
  EXPECT_EQ(gif_frames(path, &w, &h), 5);
  EXPECT_EQ(w, 40);
  EXPECT_EQ(h, 30);
  // The palette keeps the colours: frame 2 decoded through its colour map is close to the render.
  {
    int err = 0;
    GifFileType* g = DGifOpenFileName(path.c_str(), &err);
    ASSERT_NE(g, nullptr);
    ASSERT_EQ(DGifSlurp(g), GIF_OK);
    const SavedImage& im = g->SavedImages[2];
    const ColorMapObject* map = im.ImageDesc.ColorMap ? im.ImageDesc.ColorMap : g->SColorMap;
    ASSERT_NE(map, nullptr);
    double diff = 0;
    for (int i = 0; i < 40 * 30; ++i) {
      const GifColorType c = map->Colors[im.RasterBits[i]];
      diff += std::abs(c.Red - frames[2].rgba[i * 4]) + std::abs(c.Green - frames[2].rgba[i * 4 + 1]) +
              std::abs(c.Blue - frames[2].rgba[i * 4 + 2]);
    }
    EXPECT_LT(diff / (40 * 30 * 3), 4.0);
    DGifCloseFile(g, &err);
  }
  auto pngb = encode_png(contact_sheet(frames, 3));
  ASSERT_TRUE(pngb);
  test::write_bytes(test::out_path("render_unit.png"), pngb.value());
  const png p = load_png(test::out_path("render_unit.png"));
  EXPECT_EQ(p.width, 120);
  EXPECT_EQ(p.height, 60);
}

// ------------------------------------------------------------------ rigrip preview
TEST(PreviewCli, EveryExample) {
  const fs::path dir = fs::path(RIGRIP_SOURCE_DIR) / "examples";
  const std::string out = test::out_path("preview/examples");
  fs::create_directories(out);
  int n = 0;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    if (!e.is_regular_file() || e.path().extension() == ".md") continue;
    const std::string name = e.path().parent_path().filename().string() + "_" + e.path().filename().string();
    const std::string png_path = out + "/" + name + ".png";
    std::string log;
    const int rc = test::run(q(cli()) + " preview " + q(e.path().string()) + " -o " + q(png_path) +
                                 " --size 160x120 --no-grid --time 0.5", &log);
    ASSERT_EQ(rc, 0) << log;
    // A skeleton alone has background, bone and joint colours only, as has a flat-coloured quad
    // (FF7 parts, an FF7 texture on its quad); real models have many.
    diagnostics d;
    auto s = read_scene(e.path().string(), read_options{}, d);
    ASSERT_TRUE(s) << s.error().to_string();
    std::size_t vertices = 0;
    for (const auto& m : s->meshes) vertices += m.positions.size();
    bool chained = false;  // a bone with a parent: something with length to draw
    for (const auto& sk : s->skeletons)
      for (const auto& b : sk.bones) chained = chained || b.parent >= 0;
    if (s->meshes.empty() && s->skeletons.empty() == false && !chained && s->cameras.empty()) {
      // Root bones at identity (animation-only test files without a rig) meet at one point:
      // only the picture's size is checked.
      const png p = load_png(png_path);
      EXPECT_EQ(p.width, 160);
      EXPECT_EQ(p.height, 120);
    } else if (s->meshes.empty() && s->skeletons.empty() && !s->textures.empty()) {
      expect_picture(png_path, 160, 120, 3, /*grid_drawn=*/true);  // a texture sheet fills the frame
    } else {
      expect_picture(png_path, 160, 120, vertices >= 50 ? 12 : 3);
    }
    ++n;
  }
  EXPECT_GE(n, 15);
}

TEST(PreviewCli, OneSharedSamplePerFamily) {
  const std::vector<std::string> samples{"bfres/Animal_Bass.bfres", "bfres/Animal_Bass_Animation.bfres",
                                         "ff7/field/aafe.a", "sf3/X8PC00A.BIN", "sf3/X8PC41X.BIN",
                                         "telltale/sk62_clementine_hoodDown.d3dmesh",
                                         "telltale/sk62_action_clementine400DropsTheTool.anm",
                                         "morpheme/sdk/RuntimeBasic1/x64/Network_RuntimeBasic1.nmb"};
  const std::string out = test::out_path("preview/samples");
  fs::create_directories(out);
  int present = 0;
  for (const auto& rel : samples) {
    auto path = test::sample(rel);
    if (!path) {
      std::cout << "sample absent, not checked: " << rel << "\n";
      continue;
    }
    ++present;
    const std::string png_path = out + "/" + fs::path(rel).filename().string() + ".png";
    std::string log;
    const int rc = test::run(q(cli()) + " preview " + q(*path) + " -o " + q(png_path) + " --size 200x160 --no-grid", &log);
    EXPECT_EQ(rc, 0) << rel << ": " << log;
    if (rc == 0) expect_picture(png_path, 200, 160, 3);
  }
  if (!present) GTEST_SKIP() << "no shared sample present";
}

TEST(PreviewCli, TexturedSf3ModelShowsItsTextureColours) {
  RIGRIP_REQUIRE_SAMPLE(path, "sf3/X8PC00A.BIN");
  diagnostics d;
  auto s = read_scene(path, read_options{}, d);
  ASSERT_TRUE(s) << s.error().to_string();
  ASSERT_FALSE(s->textures.empty());
  // Chromaticity (r:g:b, 4 levels each of r/(r+g+b), g/(r+g+b)) of every opaque texel.
  auto chroma = [](int r, int g, int b) {
    const int sum = r + g + b;
    if (sum < 40) return -1;  // too dark to have a hue
    return (r * 16 / sum) * 32 + g * 16 / sum;
  };
  std::set<int> texel_chroma;
  for (const auto& t : s->textures)
    for (std::size_t i = 0; i + 3 < t.rgba.size(); i += 4)
      if (t.rgba[i + 3] > 127) texel_chroma.insert(chroma(t.rgba[i], t.rgba[i + 1], t.rgba[i + 2]));
  preview_options o;
  o.width = o.height = 256, o.bones = false, o.grid = false;
  const canvas c = previewer(s.value(), o).render(0);
  test::write_bytes(test::out_path("preview/X8PC00A_rest.png"), encode_png(c).value());
  int model = 0, matching = 0;
  std::set<std::array<std::uint8_t, 4>> colours;
  for (int y = 0; y < c.height; ++y)
    for (int x = 0; x < c.width; ++x) {
      const auto p = c.at(x, y);
      if (p == std::array<std::uint8_t, 4>{46, 50, 58, 255}) continue;
      const int k = chroma(p[0], p[1], p[2]);
      if (k < 0) continue;
      ++model;
      colours.insert(p);
      matching += texel_chroma.count(k) > 0;
    }
  EXPECT_GT(model, 2000);
  EXPECT_GT(colours.size(), 50u);
  // Lighting scales a texel's colour, which keeps its chromaticity: the model's pixels are the
  // texture's colours, not the untextured clay.
  EXPECT_GT(matching, model * 9 / 10) << matching << " of " << model;
  // Untextured, the same model is one clay colour shaded: a handful of chromaticities, where
  // the textured one has many.
  std::set<int> textured_chroma, clay_chroma;
  for (std::size_t i = 0; i < c.rgba.size(); i += 4)
    if (int k = chroma(c.rgba[i], c.rgba[i + 1], c.rgba[i + 2]); k >= 0) textured_chroma.insert(k);
  scene clay = s.value();
  for (auto& m : clay.materials) m.texture = -1;
  const canvas u = previewer(clay, o).render(0);
  for (std::size_t i = 0; i < u.rgba.size(); i += 4)
    if (int k = chroma(u.rgba[i], u.rgba[i + 1], u.rgba[i + 2]); k >= 0) clay_chroma.insert(k);
  EXPECT_GT(textured_chroma.size(), 3 * clay_chroma.size()) << textured_chroma.size() << " vs " << clay_chroma.size();
}

TEST(PreviewCli, GifHasTheRequestedFrameCount) {
  const std::string gif = test::out_path("preview/seed_linear.gif");
  fs::create_directories(fs::path(gif).parent_path());
  std::string log;
  ASSERT_EQ(test::run(q(cli()) + " preview " + q(std::string(RIGRIP_SOURCE_DIR) + "/examples/bfres/seed_linear.bfres") +
                          " -o " + q(gif) + " --frames 7 --size 96x72", &log), 0) << log;
  int w = 0, h = 0;
  EXPECT_EQ(gif_frames(gif, &w, &h), 7);
  EXPECT_EQ(w, 96);
  EXPECT_EQ(h, 72);
  // Default: the clip's frames up to 24.
  const std::string gif2 = test::out_path("preview/Male_Wave.gif");
  ASSERT_EQ(test::run(q(cli()) + " preview " + q(std::string(RIGRIP_SOURCE_DIR) + "/examples/morpheme/Male_Wave.nsa") +
                          " -o " + q(gif2) + " --size 64x64", &log), 0) << log;
  const int n = gif_frames(gif2);
  EXPECT_GE(n, 2);
  EXPECT_LE(n, 24);
}

TEST(PreviewCli, ContactSheet) {
  const std::string out = test::out_path("preview/sheet.png");
  fs::create_directories(fs::path(out).parent_path());
  std::string log;
  ASSERT_EQ(test::run(q(cli()) + " preview " + q(std::string(RIGRIP_SOURCE_DIR) + "/examples/scene/waving_arm.json") +
                          " -o " + q(out) + " --frames 5 --size 64x48", &log), 0) << log;
  const png p = load_png(out);
  EXPECT_EQ(p.width, 64 * 3);
  EXPECT_EQ(p.height, 48 * 2);
}

TEST(PreviewCli, BadInputFailsWithoutOutput) {
  const std::string out = test::out_path("preview/bad.png");
  fs::create_directories(fs::path(out).parent_path());
  fs::remove(out);
  std::string log;
  const int rc = test::run(q(cli()) + " preview " + q(std::string(RIGRIP_SOURCE_DIR) + "/examples/sf3/README.md") +
                               " -o " + q(out), &log);
  EXPECT_EQ(rc, 1) << log;
  EXPECT_NE(log.find("E_UNKNOWN_FORMAT"), std::string::npos) << log;
  EXPECT_FALSE(fs::exists(out));
  // A clip that is not there, and a picture format we do not write: usage errors.
  EXPECT_EQ(test::run(q(cli()) + " preview " + q(std::string(RIGRIP_SOURCE_DIR) + "/examples/scene/waving_arm.json") +
                          " -o " + q(out) + " --clip nope", &log), 2) << log;
  EXPECT_NE(log.find("matches none"), std::string::npos) << log;
  EXPECT_FALSE(fs::exists(out));
}

TEST(PreviewCli, ConvertWritesPreviewsBesideEveryGlb) {
  const std::string dir = test::out_path("preview/convert");
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::string log;
  const std::string src = RIGRIP_SOURCE_DIR;
  ASSERT_EQ(test::run(q(cli()) + " convert " + q(src + "/examples/sf3/X8PC90A.BIN") + " -o " + q(dir + "/one.glb") +
                          " --previews", &log), 0) << log;
  EXPECT_TRUE(fs::exists(dir + "/one.glb"));
  expect_picture(dir + "/one.png", 256, 256, 12, true);
  ASSERT_EQ(test::run(q(cli()) + " convert " + q(src + "/examples/ff7") + " -o " + q(dir + "/batch") +
                          " --previews -j 2", &log), 0) << log;
  int glbs = 0;
  for (const auto& e : fs::recursive_directory_iterator(dir + "/batch"))
    if (e.path().extension() == ".glb") {
      ++glbs;
      fs::path png_path = e.path();
      png_path.replace_extension(".png");
      EXPECT_TRUE(fs::exists(png_path)) << png_path;
    }
  EXPECT_GE(glbs, 10);
}

// Every shared sample in-process (the CLI sweep without a process per file): a game file rigrip
// reads gives a picture that is not blank — the model, its skeleton, or its textures — or it
// truly holds nothing to draw; files that are no game file (notes, .mcn sources) and archives
// (whose entries are files of their own) are counted apart.
TEST(PreviewSamples, EverySharedSampleDrawsOrHoldsNothing) {
  auto root = test::sample("");
  if (!root || !fs::is_directory(*root)) GTEST_SKIP() << "shared samples not present";
  std::vector<fs::path> files;
  for (const auto& e : fs::recursive_directory_iterator(*root))
    if (e.is_regular_file()) files.push_back(e.path());
  std::sort(files.begin(), files.end());
  int drawn = 0, textures_only = 0, nothing = 0, not_game = 0;
  for (const auto& p : files) {
    diagnostics d;
    auto s = read_scene(p.string(), read_options{}, d);
    if (!s) {
      EXPECT_TRUE(s.error().code == code::unknown_format) << s.error().to_string();
      ++not_game;
      continue;
    }
    preview_options po;
    po.width = po.height = 48;
    po.grid = false;
    po.animation = s->animations.empty() ? -1 : 0;
    const previewer pv(s.value(), po);
    canvas c;
    if (!pv.empty()) {
      c = pv.render(pv.duration() / 2);
      ++drawn;
    } else if (!s->textures.empty()) {
      c = draw_texture(s->textures[0], 48, 48);
      ++textures_only;
    } else {
      std::size_t bones = 0, triangles = 0;
      for (const auto& sk : s->skeletons) bones += sk.bones.size();
      for (const auto& m : s->meshes) triangles += (m.indices.empty() ? m.positions.size() : m.indices.size()) / 3;
      EXPECT_EQ(bones + triangles, 0u) << p << ": the previewer found nothing to draw in a scene with content";
      ++nothing;
      continue;
    }
    std::set<std::uint32_t> colours;
    for (std::size_t i = 0; i + 3 < c.rgba.size(); i += 4)
      colours.insert(std::uint32_t(c.rgba[i]) << 16 | std::uint32_t(c.rgba[i + 1]) << 8 | c.rgba[i + 2]);
    EXPECT_GE(colours.size(), 2u) << p << ": a blank picture";
  }
  std::cout << "samples: " << drawn << " drawn, " << textures_only << " texture files drawn as textures, " << nothing
            << " with nothing to draw, " << not_game << " not game files or archives\n";
  EXPECT_GE(drawn, 150);
  EXPECT_LE(nothing, 3);
}
