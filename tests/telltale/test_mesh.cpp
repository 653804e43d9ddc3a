// Telltale .d3dmesh / .d3dtx: raw layers, surface decoding (BC1-BC5 via libsquish, BC7 ours),
// samples, the whole character (mesh + generated .skl + .anm), pack into a template, hostile input.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <filesystem>
#include <random>
#include <set>

#include "core/byte_reader.hpp"
#include "core/failure.hpp"
#include "formats/telltale/anm.hpp"
#include "core/image/bc7.hpp"
#include "formats/telltale/cspk2.hpp"
#include "formats/telltale/d3dmesh.hpp"
#include "formats/telltale/d3dtx.hpp"
#include "formats/telltale/decode.hpp"
#include "formats/telltale/encode.hpp"
#include "formats/telltale/register.hpp"
#include "formats/telltale/skl.hpp"
#include "formats/telltale/symbols.hpp"
#include "rigrip/gltf.hpp"
#include "scene/tangents.hpp"
#include "test_support.hpp"

using namespace rigrip;
using namespace rigrip::telltale;
namespace fs = std::filesystem;

namespace {

const char* mesh_samples[] = {"sk62_clementine_hoodDown.d3dmesh", "ui_boot_title.d3dmesh",
                              "obj_flashlightMaglite.d3dmesh"};
const char* texture_samples[] = {"TLSE_Development_IconCamera.d3dtx",
                                 "color_7F7F7F.d3dtx",
                                 "fx_fallingLeaf.d3dtx",
                                 "fx_waterStream_foam.d3dtx",
                                 "obj_flashlightMagLiteLens.d3dtx",
                                 "obj_flashlightMagLiteLens_nm.d3dtx"};

read_context ctx_for(const std::string& path, const bytes& data, diagnostics& d) {
  read_context ctx;
  ctx.path = path;
  ctx.data = data;
  ctx.diags = &d;
  ctx.load = [](const std::string& p) -> result<bytes> {
    if (!fs::is_regular_file(p)) return make_error(code::io_error, "missing " + p);
    return test::read_bytes(p);
  };
  return ctx;
}

// The warning count of a gltf-validator report ("<file>: N errors, M warnings, ...").
int validator_warnings(const std::string& report) {
  auto e = report.find(" errors, ");
  return e == std::string::npos ? -1 : std::atoi(report.c_str() + e + 9);
}

// Writes the scene as a .glb and runs gltf-validator: 0 errors and 0 warnings expected.
int validate_glb(const scene& s, const std::string& name) {
  diagnostics d;
  auto w = gltf::write(s, {}, d);
  EXPECT_TRUE(w.ok()) << name << ": " << (w.ok() ? "" : w.error().to_string());
  if (!w.ok()) return 1;
  std::string path = test::out_path(name);
  test::write_bytes(path, w->main);
  std::string report;
  int e = test::gltf_validator_errors(path, &report);
  EXPECT_LE(e, 0) << report;
  if (e >= 0) EXPECT_EQ(validator_warnings(report), 0) << report;
  return e;
}

// The JSON chunk of a .glb the writer made from `s`.
nlohmann::json glb_json(const scene& s) {
  diagnostics d;
  auto w = gltf::write(s, {}, d);
  if (!w.ok() || w->main.size() < 20) return nullptr;
  const auto& b = w->main;
  const std::size_t n = b[12] | b[13] << 8 | b[14] << 16 | std::size_t{b[15]} << 24;
  if (20 + n > b.size()) return nullptr;
  return nlohmann::json::parse(b.begin() + 20, b.begin() + 20 + static_cast<std::ptrdiff_t>(n));
}

// LSB-first bit writer for hand-made BC7 blocks.
struct block_bits {
  std::array<std::uint8_t, 16> b{};
  int pos = 0;
  void put(unsigned v, int n) {
    for (int i = 0; i < n; ++i, ++pos)
      if ((v >> i) & 1)
        b[static_cast<std::size_t>(pos >> 3)] |= static_cast<std::uint8_t>(1u << (pos & 7));
  }
};
std::array<std::uint8_t, 64> bc7(const block_bits& w) {
  std::array<std::uint8_t, 64> px{};
  core::image::decode_bc7_block(w.b.data(), px.data(), 16);
  return px;
}
int lerp(int a, int b, int w) {
  return (a * (64 - w) + b * w + 32) >> 6;
}

}  // namespace

// ------------------------------------------------------------------ tangent space

// scene_ops::tangents_from_uvs on a quad facing +z, its image upright (glTF UVs: v grows
// downwards): +u is +x and glTF's bitangent cross(n, t) * w must be the image's up, +y.
TEST(Tangents, FromUvGradientsFollowGltfHandedness) {
  mesh q;
  q.positions = {{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0}};
  q.normals.assign(4, {0, 0, 1});
  q.uvs = {{0, 1}, {1, 1}, {1, 0}, {0, 0}};
  q.indices = {0, 1, 2, 0, 2, 3};
  auto t = scene_ops::tangents_from_uvs(q);
  ASSERT_EQ(t.size(), 4u);
  for (const auto& v : t) {
    EXPECT_NEAR(v[0], 1, 1e-6);
    EXPECT_NEAR(v[1], 0, 1e-6);
    EXPECT_EQ(v[3], 1.0f);
  }
  // The image mirrored left-right: +u is -x, the bitangent still +y, so w flips.
  for (auto& uv : q.uvs) uv[0] = 1 - uv[0];
  t = scene_ops::tangents_from_uvs(q);
  for (const auto& v : t) {
    EXPECT_NEAR(v[0], -1, 1e-6);
    EXPECT_EQ(v[3], -1.0f);
  }
  // No UV area: a unit vector perpendicular to the normal, w = +1; bad indices are skipped.
  q.uvs.assign(4, {0.5f, 0.5f});
  q.indices.push_back(99);
  q.indices.push_back(0);
  q.indices.push_back(1);
  t = scene_ops::tangents_from_uvs(q);
  ASSERT_EQ(t.size(), 4u);
  for (const auto& v : t) {
    EXPECT_NEAR(v[0] * v[0] + v[1] * v[1] + v[2] * v[2], 1, 1e-5);
    EXPECT_NEAR(v[2], 0, 1e-6);
    EXPECT_EQ(v[3], 1.0f);
  }
  q.uvs.pop_back();  // counts disagree: nothing
  EXPECT_TRUE(scene_ops::tangents_from_uvs(q).empty());
}

// ------------------------------------------------------------------ surfaces

TEST(Surface, Bc7SpecVectors) {
  const int w4[16] = {0,  4,  9,  13, 17, 21, 26, 30,
                      34, 38, 43, 47, 51, 55, 60, 64};  // the spec's 4-bit weights
  {  // an all-zero block has no mode bit: reserved, decodes to transparent black
    block_bits z;
    auto px = bc7(z);
    for (auto v : px) EXPECT_EQ(v, 0);
  }
  {  // mode 6: R from 0 (p 0) to 127 (p 1) -> 0..255; indices 0..15; G/B/A fixed 10 -> 20 or 21
    block_bits w;
    w.put(1u << 6, 7);
    for (int c = 0; c < 4; ++c) w.put(c == 0 ? 0 : 10, 7), w.put(c == 0 ? 127 : 10, 7);
    w.put(0, 1);
    w.put(1, 1);
    w.put(0, 3);  // pixel 0 is the anchor: one bit fewer
    for (int i = 1; i < 16; ++i) w.put(static_cast<unsigned>(i), 4);
    auto px = bc7(w);
    for (int i = 0; i < 16; ++i) {
      EXPECT_EQ(px[static_cast<std::size_t>(i * 4)], lerp(0, 255, w4[i])) << i;
      EXPECT_EQ(px[static_cast<std::size_t>(i * 4 + 1)], lerp(20, 21, w4[i])) << i;
      EXPECT_EQ(px[static_cast<std::size_t>(i * 4 + 3)], lerp(20, 21, w4[i])) << i;
    }
  }
  {  // mode 1, partition 13 (rows 0-1 subset 0, rows 2-3 subset 1; anchor 15): shared p-bits
    block_bits w;
    w.put(2, 2);
    w.put(13, 6);
    for (int c = 0; c < 3; ++c)
      w.put(63, 6), w.put(63, 6), w.put(c == 1 ? 32 : 0, 6), w.put(c == 1 ? 32 : 0, 6);
    w.put(1, 1);  // subset 0: 63<<1|1 = 127 -> 255
    w.put(0, 1);  // subset 1: G 32<<1 = 64 -> 64<<1 | 64>>6 = 129
    for (int i = 0; i < 16; ++i) w.put(0, i == 0 || i == 15 ? 2 : 3);
    auto px = bc7(w);
    for (int i = 0; i < 16; ++i) {
      const auto* p = &px[static_cast<std::size_t>(i * 4)];
      if (i < 8)
        EXPECT_EQ((std::array<int, 4>{p[0], p[1], p[2], p[3]}),
                  (std::array<int, 4>{255, 255, 255, 255}))
            << i;
      else
        EXPECT_EQ((std::array<int, 4>{p[0], p[1], p[2], p[3]}),
                  (std::array<int, 4>{0, 129, 0, 255}))
            << i;
    }
  }
  {  // mode 4, rotation 1 (swap R and A), index selector 1 (colour takes the 3-bit indices)
    block_bits w;
    w.put(1u << 4, 5);
    w.put(1, 2);                // rotation
    w.put(1, 1);                // selector
    w.put(0, 5), w.put(31, 5);  // R 0 -> 255
    w.put(0, 5), w.put(0, 5);   // G 0
    w.put(0, 5), w.put(0, 5);   // B 0
    w.put(63, 6), w.put(0, 6);  // A 255 -> 0
    for (int i = 0; i < 16; ++i)
      w.put(i == 0 ? 0 : 3, i == 0 ? 1 : 2);  // 2-bit set (alpha here): index 3 -> e1
    for (int i = 0; i < 16; ++i)
      w.put(i == 0 ? 0 : 7, i == 0 ? 2 : 3);  // 3-bit set (colour): 7 -> e1
    auto px = bc7(w);
    // pixel 0: colour e0 (R 0), alpha e0 (255); rotation swaps -> R 255, A 0
    EXPECT_EQ(px[0], 255);
    EXPECT_EQ(px[3], 0);
    // pixel 1: colour e1 (R 255), alpha e1 (0); swapped -> R 0, A 255
    EXPECT_EQ(px[4], 0);
    EXPECT_EQ(px[7], 255);
  }
  {  // mode 0, partition 0 (3 subsets; anchors 0, 3, 15), 4-bit colours with unique p-bits
    block_bits w;
    w.put(1, 1);
    w.put(0, 4);
    const int r[6] = {15, 15, 0, 0, 8, 8};
    for (int c = 0; c < 3; ++c)
      for (int e = 0; e < 6; ++e) w.put(static_cast<unsigned>(c == 0 ? r[e] : 0), 4);
    for (int e = 0; e < 6; ++e) w.put(e < 2 ? 1 : 0, 1);
    for (int i = 0; i < 16; ++i) w.put(0, i == 0 || i == 3 || i == 15 ? 2 : 3);
    auto px = bc7(w);
    const char* part = "0011001102212222";
    for (int i = 0; i < 16; ++i) {
      int s = part[i] - '0';
      // 5-bit value v -> v<<3 | v>>2: subset 0 31 -> 255, subset 1 0 -> 0, subset 2 16 -> 132
      int expect = s == 0 ? 255 : s == 1 ? 0 : 132;
      EXPECT_EQ(px[static_cast<std::size_t>(i * 4)], expect) << i;
      EXPECT_EQ(px[static_cast<std::size_t>(i * 4 + 3)], 255) << i;
    }
  }
}

TEST(Surface, UncompressedAndBc1) {
  bytes argb = {10, 20, 30, 40};  // ARGB8 is B, G, R, A in memory
  auto p = decode_surface(0, 1, 1, argb);
  EXPECT_EQ(p, (bytes{30, 20, 10, 40}));
  p = decode_surface(10, 1, 1, argb);
  EXPECT_EQ(p, argb);
  p = decode_surface(17, 2, 1, bytes{7, 9});
  EXPECT_EQ(p, (bytes{7, 7, 7, 255, 9, 9, 9, 255}));
  // BC1: colour0 pure red (0xF800) > colour1 blue, every index 0 -> red everywhere; a 5x3 image
  // needs two blocks per row and one row of blocks.
  bytes blocks = {0x00, 0xF8, 0x1F, 0x00, 0, 0, 0, 0, 0x00, 0xF8, 0x1F, 0x00, 0, 0, 0, 0};
  p = decode_surface(64, 5, 3, blocks);
  ASSERT_EQ(p.size(), 5u * 3 * 4);
  for (std::size_t i = 0; i < 15; ++i)
    EXPECT_EQ((bytes{p[i * 4], p[i * 4 + 1], p[i * 4 + 2], p[i * 4 + 3]}), (bytes{255, 0, 0, 255}));
  EXPECT_EQ(surface_bytes(66, 128, 128), 16384u);
  EXPECT_EQ(surface_bytes(64, 1, 1), 8u);
  EXPECT_THROW((void)decode_surface(64, 8, 8, blocks), core::failure);     // 4 blocks needed
  EXPECT_THROW((void)decode_surface(99, 4, 4, bytes(16)), core::failure);  // unknown: refused
}

// BC6H (70) as unsigned float through the tone mapping: clamped to [0, 1], sRGB-encoded.
TEST(Surface, Bc6hToneMapped) {
  // Mode 11 (5-bit mode 00011): 10-bit endpoints e0 = (0, 0, 1023), e1 = (480, 0, 1023), then
  // 16 indices of 4 bits (the first 3 bits); texel 1 takes e1 (index 15), the rest e0.
  block_bits w;
  w.put(0b00011, 5);
  for (unsigned v : {0u, 0u, 1023u, 480u, 0u, 1023u}) w.put(v, 10);
  w.put(0, 3);
  w.put(15, 4);
  for (int i = 2; i < 16; ++i) w.put(0, 4);
  ASSERT_EQ(w.pos, 128);
  bool clipped = false;
  const auto p = decode_surface(70, 4, 4, bytes(w.b.begin(), w.b.end()), &clipped);
  ASSERT_EQ(p.size(), 64u);
  // Blue: 1023 -> 0xFFFF -> half 0x7BFF = 65504, clipped to 255. Red of texel 1: 480 ->
  // (480 << 15) + 0x4000 >> 9 = 30752 -> * 31 >> 6 = 0x3A2F = 0.77295 -> sRGB 228.
  EXPECT_EQ((bytes{p[0], p[1], p[2], p[3]}), (bytes{0, 0, 255, 255}));
  EXPECT_EQ((bytes{p[4], p[5], p[6], p[7]}), (bytes{228, 0, 255, 255}));
  EXPECT_EQ((bytes{p[60], p[61], p[62], p[63]}), (bytes{0, 0, 255, 255}));
  EXPECT_TRUE(clipped);
  EXPECT_THROW((void)decode_surface(70, 8, 4, bytes(16)), core::failure);  // 2 blocks needed
}

TEST(Textures, EverySampleDecodesToItsDeclaredSizeAndRewritesIdentically) {
  int seen = 0;
  for (const char* n : texture_samples) {
    auto path = test::sample(std::string("telltale/d3dtx/") + n);
    if (!path) continue;
    ++seen;
    auto b = test::read_bytes(*path);
    EXPECT_EQ(detect_d3dtx(b, n), score::magic);
    EXPECT_EQ(detect_anm(b, n), score::none);
    auto t = parse_d3dtx(b);
    EXPECT_EQ(write_d3dtx(t), b) << n;
    std::uint64_t sum = 0;
    for (const auto& g : t.regions) {
      std::uint32_t w = std::max(1u, t.width >> g.mip), h = std::max(1u, t.height >> g.mip);
      EXPECT_EQ(g.data_size, surface_bytes(t.surface_format, w, h)) << n << " mip " << g.mip;
      sum += g.data_size;
    }
    EXPECT_EQ(sum, t.total_size);
    EXPECT_EQ(t.regions.size(), t.num_mips);
    diagnostics d;
    auto s = read_d3dtx(ctx_for(*path, b, d));
    ASSERT_TRUE(s.ok()) << n << ": " << s.error().to_string();
    ASSERT_EQ(s->textures.size(), 1u);
    EXPECT_EQ(s->textures[0].width, t.width);
    EXPECT_EQ(s->textures[0].height, t.height);
    EXPECT_EQ(s->textures[0].rgba.size(), std::size_t{t.width} * t.height * 4);
    validate_glb(*s, std::string("telltale_tex_") + n + ".glb");
  }
  if (!seen) GTEST_SKIP() << "shared sample not present: telltale/d3dtx/";
  // A 7F7F7F colour texture is mid grey (BC1 rounds 0x7F to 5/6 bits).
  if (auto p = test::sample("telltale/d3dtx/color_7F7F7F.d3dtx")) {
    auto t = parse_d3dtx(test::read_bytes(*p));
    auto px = decode_surface(t.surface_format, t.width, t.height, t.regions[0].data);
    for (int c = 0; c < 3; ++c) EXPECT_NEAR(px[static_cast<std::size_t>(c)], 127, 2);
  }
}

// ------------------------------------------------------------------ meshes: raw layer

// A normal map on its own converts as glTF's: the swizzle applied (X from alpha, Y from blue),
// Z rebuilt, alpha opaque; flagged sRGB, its channels are decoded to linear first.
TEST(Textures, NormalMapSwizzledAndLinear) {
  RIGRIP_REQUIRE_SAMPLE(p, "telltale/d3dtx/obj_flashlightMagLiteLens_nm.d3dtx");
  auto b = test::read_bytes(p);
  for (int srgb = 0; srgb < 2; ++srgb) {
    auto t = parse_d3dtx(b);
    ASSERT_EQ(t.type, 3u);
    ASSERT_EQ(t.gamma, 0u);
    t.gamma = static_cast<std::uint32_t>(srgb);
    const auto bytes_ = write_d3dtx(t);
    diagnostics d;
    auto s = read_d3dtx(ctx_for(p, bytes_, d));
    ASSERT_TRUE(s.ok()) << s.error().to_string();
    const auto& px = s->textures[0].rgba;
    // Stored 255,255,129,128. Linear: X 128, Y 129 -> Z 255. As sRGB, only the colour channels
    // are decoded (alpha never is): X stays 128, Y 129 -> 56, Z = sqrt(1 - x² - y²) = 0.83 -> 233.
    const std::array<int, 4> want =
        srgb ? std::array<int, 4>{128, 56, 233, 255} : std::array<int, 4>{128, 129, 255, 255};
    for (int c = 0; c < 4; ++c)
      EXPECT_NEAR(px[static_cast<std::size_t>(c)], want[static_cast<std::size_t>(c)], 1)
          << srgb << " " << c;
    EXPECT_EQ(s->textures[0].extras["normal_map"]["srgb_decoded"], srgb == 1);
  }
}

TEST(Meshes, EverySampleParsesCountsAgreeAndRewritesIdentically) {
  int seen = 0;
  for (const char* n : mesh_samples) {
    auto path = test::sample(std::string("telltale/") + n);
    if (!path) continue;
    ++seen;
    auto b = test::read_bytes(*path);
    EXPECT_EQ(detect_d3dmesh(b, n), score::magic);
    EXPECT_EQ(detect_anm(b, n), score::none);
    auto f = parse_d3dmesh(b);
    EXPECT_EQ(write_d3dmesh(f), b) << n;
    ASSERT_EQ(f.mesh.vertex_states.size(), 1u);
    const auto& vs = f.mesh.vertex_states[0];
    for (const auto& vb : vs.vertex_buffers) EXPECT_EQ(vb.count, f.mesh.vertex_count) << n;
    for (const auto& l : f.mesh.lods) {
      std::uint32_t prims = 0;
      for (int k = 0; k < 2; ++k)
        for (const auto& bt : l.batches[k]) prims += bt.num_primitives;
      EXPECT_EQ(prims, l.num_primitives) << n;  // the LOD counts draw + shadow triangles
      EXPECT_EQ(l.batches[0].size() + l.batches[1].size(), l.num_batches) << n;
      for (int k = 0; k < 2; ++k) {
        const auto& ib = vs.index_buffers[static_cast<std::size_t>(k)];
        for (const auto& bt : l.batches[k]) {
          ASSERT_LE(bt.start_index + bt.num_primitives * 3, ib.count) << n;
          for (std::uint32_t i = bt.start_index; i < bt.start_index + bt.num_primitives * 3; ++i) {
            std::uint32_t v = ib.data[i * 2] | ib.data[i * 2 + 1] << 8;
            ASSERT_LT(v, f.mesh.vertex_count) << n;
            ASSERT_GE(v, bt.min_vertex) << n;
            ASSERT_LE(v, bt.max_vertex) << n;
          }
        }
      }
    }
  }
  if (!seen) GTEST_SKIP() << "shared sample not present: telltale/*.d3dmesh";
}

TEST(Meshes, ClementineSkinnedMesh) {
  RIGRIP_REQUIRE_SAMPLE(p, "telltale/sk62_clementine_hoodDown.d3dmesh");
  auto b = test::read_bytes(p);
  auto f = parse_d3dmesh(b);
  EXPECT_EQ(f.version, 37);
  EXPECT_EQ(f.mesh.vertex_count, 3221u);
  ASSERT_EQ(f.mesh.lods.size(), 4u);
  ASSERT_EQ(f.mesh.bone_palettes.size(), 1u);
  EXPECT_EQ(f.mesh.bone_palettes[0].size(), 20u);
  // Raw skin weights (UN16x4) sum to 1 exactly; every weighted index is inside the palette.
  const auto& vs = f.mesh.vertex_states[0];
  const vertex_attribute *wa = nullptr, *ia = nullptr;
  for (const auto& a : vs.attributes) {
    if (a.attribute == 3) wa = &a;
    if (a.attribute == 4) ia = &a;
  }
  ASSERT_TRUE(wa && ia);
  for (std::uint32_t v = 0; v < f.mesh.vertex_count; ++v) {
    float w[4], j[4];
    const auto& vbw = vs.vertex_buffers[wa->buffer_index];
    const auto& vbi = vs.vertex_buffers[ia->buffer_index];
    ASSERT_TRUE(gfx_decode(wa->format, vbw.data.data() + v * vbw.stride + wa->buffer_offset, w));
    ASSERT_TRUE(gfx_decode(ia->format, vbi.data.data() + v * vbi.stride + ia->buffer_offset, j));
    EXPECT_NEAR(w[0] + w[1] + w[2] + w[3], 1.0f, 1e-3f) << v;
    for (int k = 0; k < 4; ++k)
      if (w[k] > 0) EXPECT_LT(j[k], 20.0f);
  }
  diagnostics d;
  auto s = read_d3dmesh(ctx_for(p, b, d));
  ASSERT_TRUE(s.ok()) << s.error().to_string();
  ASSERT_EQ(s->meshes.size(), 3u);
  std::size_t tris = 0;
  for (const auto& m : s->meshes) {
    tris += m.indices.size() / 3;
    ASSERT_EQ(m.weights.size(), m.positions.size());
    for (std::size_t v = 0; v < m.positions.size(); ++v) {
      for (int c = 0; c < 3; ++c) {
        EXPECT_GE(m.positions[v][c], f.mesh.box.min[c] - 1e-5f);
        EXPECT_LE(m.positions[v][c], f.mesh.box.max[c] + 1e-5f);
      }
      const auto& n = m.normals[v];
      EXPECT_NEAR(std::sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]), 1.0f, 1e-3f);
      const auto& w = m.weights[v];
      EXPECT_NEAR(w[0] + w[1] + w[2] + w[3], 1.0f, 1e-3f);
    }
    for (auto i : m.indices) ASSERT_LT(i, m.positions.size());
  }
  std::uint32_t declared = 0;
  for (const auto& bt : f.mesh.lods[0].batches[0]) declared += bt.num_primitives;
  EXPECT_EQ(tris, declared);
  // Vertices: each batch uses exactly its declared range mMinVertIndex..mMaxVertIndex.
  std::size_t verts = 0;
  for (std::size_t i = 0; i < s->meshes.size(); ++i) {
    const auto& bt = f.mesh.lods[0].batches[0][i];
    EXPECT_EQ(s->meshes[i].positions.size(), bt.max_vertex - bt.min_vertex + 1u) << i;
    verts += s->meshes[i].positions.size();
  }
  EXPECT_EQ(verts, 2849u);
  ASSERT_EQ(s->skeletons.size(), 1u);
  EXPECT_EQ(s->skeletons[0].bones.size(), 20u);
  // Upright: the head mesh sits 1.2-1.55 m up the +Y axis, and the joints placed from the
  // palette's bounds stack spine3 < neck < head up +Y.
  EXPECT_GT(f.mesh.box.min[1], 1.0f);
  const auto& sk = s->skeletons[0];
  const int spine3 = sk.find("spine3"), neck = sk.find("neck"), head = sk.find("head");
  ASSERT_TRUE(spine3 >= 0 && neck >= 0 && head >= 0);
  EXPECT_LT(sk.bones[static_cast<std::size_t>(spine3)].translation[1],
            sk.bones[static_cast<std::size_t>(neck)].translation[1]);
  EXPECT_LT(sk.bones[static_cast<std::size_t>(neck)].translation[1],
            sk.bones[static_cast<std::size_t>(head)].translation[1]);
  // Tangents: one per vertex, unit, perpendicular to the normal within SN8 quantisation, w ±1;
  // the stored frame agrees with the UV gradients' +u and handedness (README: 99.5 %).
  for (const auto& m : s->meshes) {
    ASSERT_EQ(m.tangents.size(), m.positions.size());
    for (std::size_t v = 0; v < m.tangents.size(); ++v) {
      const auto& t = m.tangents[v];
      const auto& n = m.normals[v];
      EXPECT_NEAR(std::sqrt(t[0] * t[0] + t[1] * t[1] + t[2] * t[2]), 1.0f, 1e-3f);
      EXPECT_LT(std::fabs(t[0] * n[0] + t[1] * n[1] + t[2] * n[2]), 0.1f) << v;
      EXPECT_TRUE(t[3] == 1.0f || t[3] == -1.0f);
    }
  }
  const auto& tm = s->metadata["tangents"];
  const auto compared = tm["compared_with_uv_gradients"].get<double>();
  EXPECT_EQ(tm["vertices"].get<std::size_t>(), 2849u);
  EXPECT_GT(tm["same_direction_as_uv_gradients"].get<double>() / compared, 0.99);
  EXPECT_GT(tm["same_handedness_as_uv_gradients"].get<double>() / compared, 0.99);
  // Vertex colours: all (0,0,0,1), so kept in extras, not as COLOR_0 (which would paint black).
  EXPECT_EQ(s->metadata["vertex_colors"]["exported"], false);
  for (const auto& m : s->meshes) {
    EXPECT_TRUE(m.colors.empty());
    EXPECT_EQ(m.extras["vertex_color"], nlohmann::json({0.0, 0.0, 0.0, 1.0}));
  }
  validate_glb(*s, "telltale_clementine.glb");
  const auto gj = glb_json(*s);
  for (const auto& gm : gj["meshes"]) {
    EXPECT_TRUE(gm["primitives"][0]["attributes"].contains("TANGENT"));
    EXPECT_FALSE(gm["primitives"][0]["attributes"].contains("COLOR_0"));
  }
}

TEST(Meshes, StaticMeshesTexturedFromSiblingTextures) {
  RIGRIP_REQUIRE_SAMPLE(flash, "telltale/obj_flashlightMaglite.d3dmesh");
  RIGRIP_REQUIRE_SAMPLE(ui, "telltale/ui_boot_title.d3dmesh");
  RIGRIP_REQUIRE_SAMPLE(lens, "telltale/d3dtx/obj_flashlightMagLiteLens.d3dtx");
  {
    auto b = test::read_bytes(flash);
    diagnostics d;
    auto s = read_d3dmesh(ctx_for(flash, b, d));
    ASSERT_TRUE(s.ok()) << s.error().to_string();
    ASSERT_EQ(s->materials.size(), 2u);
    // material 0 is the lens (its PropertySet names obj_flashlightMagLiteLens.d3dtx, in d3dtx/);
    // material 1 names obj_flashlightMaglite.d3dtx, which the samples do not have.
    ASSERT_GE(s->materials[0].texture, 0);
    EXPECT_EQ(s->textures[static_cast<std::size_t>(s->materials[0].texture)].name,
              "obj_flashlightMagLiteLens");
    EXPECT_EQ(s->materials[1].texture, -1);
    // The lens PropertySet's "Material - Normal Map Texture" is obj_flashlightMagLiteLens_nm
    // (a flat map, BC3, swizzle 3,2,1,0: X from alpha 128, Y from blue 129); Z is rebuilt.
    ASSERT_GE(s->materials[0].normal_texture, 0);
    const auto& nm = s->textures[static_cast<std::size_t>(s->materials[0].normal_texture)];
    EXPECT_EQ(nm.name, "obj_flashlightMagLiteLens_nm");
    EXPECT_EQ(nm.extras["srgb"], false);
    for (std::size_t i = 0; i + 3 < nm.rgba.size(); i += 4) {
      ASSERT_EQ(nm.rgba[i], 128);
      ASSERT_EQ(nm.rgba[i + 1], 129);
      ASSERT_EQ(nm.rgba[i + 2], 255);
      ASSERT_EQ(nm.rgba[i + 3], 255);
    }
    EXPECT_EQ(s->materials[1].normal_texture, -1);  // obj_flashlightMaglite_nm is not a sample
    EXPECT_EQ(s->metadata["missing_normal_maps"].size(), 1u);
    for (const auto& m : s->meshes) EXPECT_EQ(m.tangents.size(), m.positions.size());
    {  // the glb: normalTexture on the lens material, TANGENT on every primitive
      const auto gj = glb_json(*s);
      ASSERT_TRUE(gj["materials"][0].contains("normalTexture"));
      const int ti = gj["materials"][0]["normalTexture"]["index"];
      EXPECT_EQ(gj["images"][static_cast<std::size_t>(
                    gj["textures"][static_cast<std::size_t>(ti)]["source"].get<int>())]["name"],
                "obj_flashlightMagLiteLens_nm");
      for (const auto& gm : gj["meshes"])
        EXPECT_TRUE(gm["primitives"][0]["attributes"].contains("TANGENT"));
    }
    bool warned = false;
    for (const auto& w : d.warnings)
      warned |=
          w.code == code::w_fallback && w.message.find("not next to the mesh") != std::string::npos;
    EXPECT_TRUE(warned);
    auto f = parse_d3dmesh(b);
    // UN10x3_UN2 positions dequantise inside the bounds.
    for (const auto& m : s->meshes)
      for (const auto& v : m.positions)
        for (int c = 0; c < 3; ++c) {
          EXPECT_GE(v[c], f.mesh.box.min[c] - 1e-5f);
          EXPECT_LE(v[c], f.mesh.box.max[c] + 1e-5f);
        }
    validate_glb(*s, "telltale_flashlight.glb");
  }
  {
    // The title quad's texture is stored under another file name; its inner mName resolves it.
    auto b = test::read_bytes(ui);
    diagnostics d;
    auto s = read_d3dmesh(ctx_for(ui, b, d));
    ASSERT_TRUE(s.ok()) << s.error().to_string();
    ASSERT_EQ(s->materials.size(), 1u);
    ASSERT_GE(s->materials[0].texture, 0);
    EXPECT_EQ(s->textures[0].name, "TLSE_Development_IconCamera");
    validate_glb(*s, "telltale_ui_boot_title.glb");
  }
}

// ------------------------------------------------------------------ the whole character

namespace {

// A .skl made by our writer for the Clementine head: every symbol of the gesture
// animation's rig plus the mesh's palette, the first as root, each bone at its palette
// bounds centre (relative to the root) when the mesh knows it.
bytes character_skeleton(const d3dmesh_file& mesh, const std::vector<std::uint64_t>& anim_bones) {
  std::vector<std::uint64_t> syms = anim_bones;
  for (const auto& e : mesh.mesh.bone_palettes[0])
    if (std::find(syms.begin(), syms.end(), e.name) == syms.end()) syms.push_back(e.name);
  skeleton_file f;
  f.ms.classes = skeleton_class_table();
  for (std::size_t i = 0; i < syms.size(); ++i) {
    skl_entry e;
    e.joint = syms[i];
    e.parent_index = i ? 0 : -1;
    e.parent_name = i ? syms[0] : 0;
    for (const auto& pe : mesh.mesh.bone_palettes[0])
      if (pe.name == syms[i] && i)
        for (int c = 0; c < 3; ++c) e.local_pos[c] = (pe.box.min[c] + pe.box.max[c]) / 2;
    if (!i) e.local_pos[1] = 0;
    f.entries.push_back(e);
  }
  return write_skeleton(f);
}

}  // namespace

TEST(Character, MeshSkeletonAndAnimationsInOneGlb) {
  RIGRIP_REQUIRE_SAMPLE(p, "telltale/sk62_clementine_hoodDown.d3dmesh");
  RIGRIP_REQUIRE_SAMPLE(gesture, "telltale/sk62_clementine400StandA_talkWithHandsGestureB.anm");
  auto mb = test::read_bytes(p);
  auto mesh = parse_d3dmesh(mb);
  auto anm = parse_animation(test::read_bytes(gesture));
  std::vector<std::uint64_t> rig;
  for (const auto& v : anm.values)
    if (v.kind == value_kind::cspk2) rig = decode_cspk2(v.cspk2, 0).bones;
  ASSERT_FALSE(rig.empty());
  std::string skl = test::out_path("sk62_clementine400.skl");
  test::write_bytes(skl, character_skeleton(mesh, rig));
  diagnostics d;
  auto ctx = ctx_for(p, mb, d);
  ctx.options.skeleton_path = skl;
  ctx.options.animations = {fs::path(gesture).parent_path().string() +
                            "/sk62_clementine400StandA_*.anm"};
  auto s = read_d3dmesh(ctx);
  ASSERT_TRUE(s.ok()) << s.error().to_string();
  ASSERT_EQ(s->skeletons.size(), 1u);
  EXPECT_GE(s->skeletons[0].bones.size(), rig.size());
  EXPECT_EQ(s->animations.size(), 3u);  // gesture B, B_add, C_add
  for (const auto& m : s->meshes) EXPECT_EQ(m.skeleton, 0);
  for (const auto& w : d.warnings) EXPECT_NE(w.code, code::w_missing_bone) << w.message;
  validate_glb(*s, "telltale_character.glb");
  diagnostics d2;
  auto g = gltf::write(*s, {}, d2);
  ASSERT_TRUE(g.ok());
  test::gltf_evaluator ev(g->main);
  EXPECT_EQ(ev.animation_count(), 3u);
}

// ------------------------------------------------------------------ pack into a template

namespace {

struct mesh_stats {
  std::size_t vertices = 0, triangles = 0;
};

// `edit` packed into the template at `path`.
result<bytes> pack_into(const std::string& path, const scene& edit, diagnostics& d) {
  pack_context pc;
  const auto tb = test::read_bytes(path);
  pc.output_path = test::out_path("telltale_packed.d3dmesh");
  pc.template_file = tb;
  pc.template_path = path;
  pc.diags = &d;
  return pack_d3dmesh(edit, pc);
}

// Moves every vertex, drops the last triangle of the first mesh and adds one new triangle,
// packs into the template, reads back, and compares within `pos_tol`.
void pack_round_trip(const std::string& path, float pos_tol_fraction) {
  auto tb = test::read_bytes(path);
  diagnostics d;
  auto s = read_d3dmesh(ctx_for(path, tb, d));
  ASSERT_TRUE(s.ok()) << s.error().to_string();
  scene edit = *s;
  for (auto& m : edit.meshes)
    for (auto& v : m.positions) v = {v[0] * 1.25f + 0.01f, v[1] * 0.9f, v[2] + 0.02f};
  auto& m0 = edit.meshes[0];
  m0.indices.resize(m0.indices.size() - 3);
  {  // one extra triangle made of three new vertices
    auto base = static_cast<std::uint32_t>(m0.positions.size());
    for (int k = 0; k < 3; ++k) {
      m0.positions.push_back(m0.positions[static_cast<std::size_t>(k)]);
      m0.positions.back()[1] += 0.001f * static_cast<float>(k + 1);
      if (!m0.normals.empty()) m0.normals.push_back(m0.normals[static_cast<std::size_t>(k)]);
      if (!m0.tangents.empty()) m0.tangents.push_back(m0.tangents[static_cast<std::size_t>(k)]);
      if (!m0.colors.empty()) m0.colors.push_back(m0.colors[static_cast<std::size_t>(k)]);
      if (!m0.uvs.empty()) m0.uvs.push_back(m0.uvs[static_cast<std::size_t>(k)]);
      if (!m0.joints.empty())
        m0.joints.push_back(m0.joints[static_cast<std::size_t>(k)]),
            m0.weights.push_back(m0.weights[static_cast<std::size_t>(k)]);
    }
    m0.indices.insert(m0.indices.end(), {base, base + 1, base + 2});
  }
  ASSERT_TRUE(edit.validate().ok());
  auto packed = pack_into(path, edit, d);
  ASSERT_TRUE(packed.ok()) << packed.error().to_string();
  auto f = parse_d3dmesh(packed.value());
  EXPECT_EQ(write_d3dmesh(f), packed.value());
  std::string out = test::out_path("telltale_packed_" + fs::path(path).filename().string());
  test::write_bytes(out, packed.value());
  diagnostics d2;
  auto back = read_d3dmesh(ctx_for(out, packed.value(), d2));
  ASSERT_TRUE(back.ok()) << back.error().to_string();
  ASSERT_EQ(back->meshes.size(), edit.meshes.size());
  float ext = 0;
  for (int c = 0; c < 3; ++c) ext = std::max(ext, f.mesh.box.max[c] - f.mesh.box.min[c]);
  for (std::size_t mi = 0; mi < edit.meshes.size(); ++mi) {
    const auto& a = edit.meshes[mi];
    const auto& b = back->meshes[mi];
    ASSERT_EQ(b.indices.size(), a.indices.size()) << mi;
    // Decode compacts the vertices of each batch in first-use order: compare per corner.
    for (std::size_t k = 0; k < a.indices.size(); ++k) {
      const auto& pa = a.positions[a.indices[k]];
      const auto& pb = b.positions[b.indices[k]];
      for (int c = 0; c < 3; ++c)
        ASSERT_NEAR(pa[c], pb[c], ext * pos_tol_fraction + 1e-6f) << mi << " corner " << k;
      if (!a.uvs.empty())
        for (int c = 0; c < 2; ++c)
          ASSERT_NEAR(a.uvs[a.indices[k]][c], b.uvs[b.indices[k]][c], 2e-4f)
              << mi << " corner " << k;
      if (!a.normals.empty()) {
        const auto &na = a.normals[a.indices[k]], &nb = b.normals[b.indices[k]];
        EXPECT_GT(na[0] * nb[0] + na[1] * nb[1] + na[2] * nb[2], 0.999f);
      }
      if (!a.tangents.empty()) {  // the glb's tangents, within SN8 (1/127 per component)
        ASSERT_EQ(b.tangents.size(), b.positions.size());
        const auto &ta = a.tangents[a.indices[k]], &tb = b.tangents[b.indices[k]];
        EXPECT_GT(ta[0] * tb[0] + ta[1] * tb[1] + ta[2] * tb[2], 0.995f) << mi << " corner " << k;
        EXPECT_EQ(ta[3], tb[3]) << mi << " corner " << k;
      }
      if (!a.weights.empty()) {
        // same influences (bones by name), weights within UN16
        for (int j = 0; j < 4; ++j) {
          float wa = a.weights[a.indices[k]][j];
          if (wa <= 1e-4f) continue;
          const auto& nameA = s->skeletons[0].bones[a.joints[a.indices[k]][j]].name;
          float wb = 0;
          for (int jj = 0; jj < 4; ++jj)
            if (back->skeletons[0].bones[b.joints[b.indices[k]][jj]].name == nameA)
              wb += b.weights[b.indices[k]][jj];
          EXPECT_NEAR(wa, wb, 1e-4f);
        }
      }
    }
  }
  validate_glb(*back, "telltale_packed_" + fs::path(path).stem().string() + ".glb");
}

}  // namespace

TEST(Pack, ClementineIntoTemplateReadsBackExactly) {
  RIGRIP_REQUIRE_SAMPLE(p, "telltale/sk62_clementine_hoodDown.d3dmesh");
  pack_round_trip(p, 0);  // F32x3 positions: exact
}

TEST(Pack, FlashlightIntoTemplateWithinQuantisation) {
  RIGRIP_REQUIRE_SAMPLE(p, "telltale/obj_flashlightMaglite.d3dmesh");
  pack_round_trip(p, 1.0f / 2046);  // UN10 + 2-bit quarter on the long axis, 10 bits on the others
}

TEST(Pack, UiQuadIntoTemplateWithinQuantisation) {
  RIGRIP_REQUIRE_SAMPLE(p, "telltale/ui_boot_title.d3dmesh");
  pack_round_trip(p, 1.0f / 65535);
}

// The scene of a sample mesh (empty, with a failure, when it does not read).
scene read_mesh(const std::string& path) {
  const auto b = test::read_bytes(path);
  diagnostics d;
  auto s = read_d3dmesh(ctx_for(path, b, d));
  EXPECT_TRUE(s.ok()) << s.error().to_string();
  return s.ok() ? *s : scene{};
}

// Packs `edit` into the template at `path` and reads the result back.
scene pack_and_read(const std::string& path, const scene& edit) {
  diagnostics d;
  auto packed = pack_into(path, edit, d);
  EXPECT_TRUE(packed.ok()) << packed.error().to_string();
  if (!packed.ok()) return {};
  auto back = read_d3dmesh(ctx_for(test::out_path("telltale_packed.d3dmesh"), packed.value(), d));
  EXPECT_TRUE(back.ok()) << back.error().to_string();
  return back.ok() ? *back : scene{};
}

// A glb without TANGENT: pack computes them from the UV gradients (scene_ops::tangents_from_uvs),
// and the file then holds exactly those (within SN8).
TEST(Pack, WithoutTangentsTheyComeFromUvGradients) {
  RIGRIP_REQUIRE_SAMPLE(p, "telltale/sk62_clementine_hoodDown.d3dmesh");
  scene edit = read_mesh(p);
  ASSERT_FALSE(edit.meshes.empty());
  for (auto& m : edit.meshes) m.tangents.clear();
  scene back = pack_and_read(p, edit);
  ASSERT_EQ(back.meshes.size(), edit.meshes.size());
  std::size_t corners = 0;
  for (std::size_t mi = 0; mi < edit.meshes.size(); ++mi) {
    const auto& a = edit.meshes[mi];
    const auto& b = back.meshes[mi];
    const auto expect = scene_ops::tangents_from_uvs(a);
    ASSERT_EQ(expect.size(), a.positions.size());
    ASSERT_EQ(b.tangents.size(), b.positions.size());
    ASSERT_EQ(a.indices.size(), b.indices.size());
    for (std::size_t k = 0; k < a.indices.size(); ++k, ++corners) {
      const auto& te = expect[a.indices[k]];
      const auto& tg = b.tangents[b.indices[k]];
      EXPECT_GT(te[0] * tg[0] + te[1] * tg[1] + te[2] * tg[2], 0.995f) << mi << " corner " << k;
      EXPECT_EQ(te[3], tg[3]) << mi << " corner " << k;
    }
  }
  EXPECT_GT(corners, 12000u);
}

// Vertex colours that vary are exported as COLOR_0 and packed into the template's colour set;
// tangents that are not unit are renormalised before SN8 would clamp them.
TEST(Pack, VaryingVertexColoursRoundTrip) {
  RIGRIP_REQUIRE_SAMPLE(p, "telltale/ui_boot_title.d3dmesh");
  const scene original = read_mesh(p);
  scene edit = original;
  ASSERT_EQ(edit.meshes.size(), 1u);
  auto& m = edit.meshes[0];
  for (std::size_t v = 0; v < m.positions.size(); ++v)
    m.colors.push_back(
        {0.25f * static_cast<float>(v), 1.0f - 0.2f * static_cast<float>(v), 0.5f, 1.0f});
  // Tangents of length 3 in the quad's plane (z = 0): clamped per component they would turn.
  for (auto& t : m.tangents) t = {0.8f, 0.6f, 0, t[3]};
  const auto unit_tangents = m.tangents;
  for (auto& t : m.tangents) t = {3 * t[0], 3 * t[1], 3 * t[2], t[3]};
  scene back = pack_and_read(p, edit);
  ASSERT_EQ(back.meshes.size(), 1u);
  const auto& b = back.meshes[0];
  ASSERT_EQ(b.colors.size(), b.positions.size());
  EXPECT_EQ(back.metadata["vertex_colors"]["exported"], "COLOR_0");
  for (std::size_t k = 0; k < m.indices.size(); ++k)
    for (int c = 0; c < 4; ++c)
      EXPECT_NEAR(m.colors[m.indices[k]][c], b.colors[b.indices[k]][c], 0.5f / 255 + 1e-6f);
  for (std::size_t k = 0; k < m.indices.size(); ++k) {
    const auto &ta = unit_tangents[m.indices[k]], &tb = b.tangents[b.indices[k]];
    EXPECT_GT(ta[0] * tb[0] + ta[1] * tb[1] + ta[2] * tb[2], 0.995f);
  }
  validate_glb(back, "telltale_packed_colours.glb");
  EXPECT_TRUE(glb_json(back)["meshes"][0]["primitives"][0]["attributes"].contains("COLOR_0"));
  {  // a template without a colour attribute: the colours are dropped with W_LOSSY
    auto t = parse_d3dmesh(test::read_bytes(p));
    std::erase_if(t.mesh.vertex_states[0].attributes,
                  [](const vertex_attribute& a) { return a.attribute == 5; });
    const bytes tb = write_d3dmesh(t);
    pack_context pc;
    diagnostics d;
    pc.output_path = test::out_path("telltale_packed_nocolour.d3dmesh");
    pc.template_file = tb;
    pc.diags = &d;
    ASSERT_TRUE(pack_d3dmesh(edit, pc).ok());
    bool warned = false;
    for (const auto& w : d.warnings)
      warned |=
          w.code == code::w_lossy && w.message.find("colours are dropped") != std::string::npos;
    EXPECT_TRUE(warned);
  }
  // Without colours in the scene, the template's constant (0,0,0,1) is written back.
  scene plain = pack_and_read(p, original);
  EXPECT_EQ(plain.metadata["vertex_colors"]["constant"], nlohmann::json({0.0, 0.0, 0.0, 1.0}));
}

TEST(Pack, NeedsATemplate) {
  scene s;
  pack_context pc;
  auto r = pack_d3dmesh(s, pc);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, code::usage);
}

// ------------------------------------------------------------------ hostile input

TEST(Hostile, MeshAndTextureMutationsNeverCrash) {
  std::vector<std::pair<std::string, bytes>> inputs;
  for (const char* n : mesh_samples)
    if (auto p = test::sample(std::string("telltale/") + n))
      inputs.emplace_back(n, test::read_bytes(*p));
  for (const char* n : {"color_7F7F7F.d3dtx", "obj_flashlightMagLiteLens_nm.d3dtx"})
    if (auto p = test::sample(std::string("telltale/d3dtx/") + n))
      inputs.emplace_back(n, test::read_bytes(*p));
  if (inputs.empty()) GTEST_SKIP() << "shared sample not present: telltale/*.d3dmesh";
  std::mt19937 rng(77);
  const char* env = std::getenv("RIGRIP_TELLTALE_MUTATIONS");
  int rounds = env ? std::atoi(env) : 60;
  int errors = 0;
  for (const auto& [name, in] : inputs) {
    bool mesh = name.ends_with(".d3dmesh");
    for (int it = 0; it < rounds; ++it) {
      bytes m = in;
      if (it % 3 == 0) {
        m.resize(std::uniform_int_distribution<std::size_t>(0, in.size() - 1)(rng));
      } else {
        int flips = 1 + it % 4;
        for (int k = 0; k < flips; ++k)
          m[std::uniform_int_distribution<std::size_t>(
              0, std::min<std::size_t>(m.size(), 40000) - 1)(rng)] ^=
              static_cast<std::uint8_t>(1 + rng() % 255);
      }
      diagnostics d;
      auto ctx = ctx_for("/nonexistent/" + name, m, d);
      auto r = mesh ? read_d3dmesh(ctx) : read_d3dtx(ctx);
      if (!r.ok()) {
        ++errors;
        EXPECT_NE(r.error().code, code::internal) << r.error().to_string();
      } else {
        (void)r->validate();
      }
      auto j = mesh ? dump_d3dmesh(ctx) : dump_d3dtx(ctx);
      auto w = mesh ? rewrite_d3dmesh(ctx) : rewrite_d3dtx(ctx);
      if (w.ok()) EXPECT_EQ(w.value(), m);
    }
  }
  EXPECT_GT(errors, 0);
}

TEST(Hostile, IndexAndPaletteOutOfRangeAreCleanErrors) {
  RIGRIP_REQUIRE_SAMPLE(p, "telltale/sk62_clementine_hoodDown.d3dmesh");
  auto f = parse_d3dmesh(test::read_bytes(p));
  // The damaged mesh reads as a clean error with this code and words.
  auto refused = [](const d3dmesh_file& g, code c, const std::string& words) {
    auto b = write_d3dmesh(g);
    diagnostics d;
    auto r = read_d3dmesh(ctx_for("/nonexistent/x.d3dmesh", b, d));
    ASSERT_FALSE(r.ok()) << words;
    EXPECT_EQ(r.error().code, c) << r.error().to_string();
    EXPECT_NE(r.error().message.find(words), std::string::npos) << r.error().message;
  };
  {  // an index beyond the vertex count
    auto g = f;
    auto& ib = g.mesh.vertex_states[0].index_buffers[0];
    ib.data[0] = 0xFF, ib.data[1] = 0xFF;
    refused(g, code::bad_value, "beyond the vertex count");
  }
  {  // a bone palette entry beyond the palette
    auto g = f;
    auto& vs = g.mesh.vertex_states[0];
    for (const auto& a : vs.attributes)
      if (a.attribute == 4) vs.vertex_buffers[a.buffer_index].data[a.buffer_offset] = 200;
    refused(g, code::bad_value, "beyond the palette");
  }
  {  // a batch whose triangles run past the index buffer
    auto g = f;
    g.mesh.lods[0].batches[0][0].num_primitives = 0x40000000;
    refused(g, code::bad_count, "past the index buffer");
  }
  {  // a count past the buffer
    auto b = test::read_bytes(p);
    auto g = f;
    g.mesh.vertex_states[0].vertex_buffers[0].count = 0x10000000;
    g.mesh.vertex_states[0].vertex_buffers[0].data.clear();
    auto w = write_d3dmesh(g);
    diagnostics d;
    auto r = read_d3dmesh(ctx_for("/nonexistent/x.d3dmesh", w, d));
    ASSERT_FALSE(r.ok());
    EXPECT_TRUE(r.error().code == code::bad_count || r.error().code == code::truncated)
        << r.error().to_string();
  }
}
