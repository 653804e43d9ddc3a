// FMDL shapes and FMAT materials -> scene meshes, materials and textures (decode side).
#pragma once

#include <string>
#include <vector>

#include "formats/bfres/fres.hpp"
#include "rigrip/registry.hpp"

namespace rigrip::bfres {

// The skeleton a model's shapes bind to: its raw FSKL and the scene skeleton made from it.
struct skeleton_binding {
  const skeleton* raw = nullptr;
  const rigrip::skeleton* scene = nullptr;
  int scene_index = -1;
};

struct model_geometry {
  rigrip::mesh mesh;
  int lod = 0;
  std::vector<std::string> unused_attribs;  // extra sets and attributes not converted: kept in extras
  std::vector<std::uint32_t> degenerate_tangents;  // vertices whose _t0 is unusable (zero, along the normal)
  std::string tangent_source;                      // which attributes gave mesh.tangents
};

// One shape's LOD `lod` (clamped to the shape's LODs) as a scene mesh; positions in the
// model's space (or the bone's, for rigid shapes: mesh.bone). Throws core::failure on
// damage that makes the shape unreadable; warns and returns an empty mesh for parts it skips.
[[nodiscard]] model_geometry decode_shape(const file& f, const model& m, const shape& sh, int lod,
                                          const skeleton_binding& bind, const read_context& ctx);

// A loaded texture file (X.Tex1.sbfres, --textures) whose FTEX the materials may name.
struct texture_file {
  std::string path;
  const file* f = nullptr;
};

// Adds every FMDL with shapes of `f` to the scene: meshes (LOD `lod`), materials, and the
// textures they use, found in `f` itself or in `textures` (first match by name).
// `skeleton_of_model[i]` is the scene skeleton index of f.models[i] (-1: none).
void add_models(const file& f, const std::vector<int>& skeleton_of_model, const std::vector<texture_file>& textures,
                const read_context& ctx, scene& s);

// Every FTEX of a file that holds textures only (X.Tex1.sbfres opened on its own), decoded
// as a material would use it (role by name: _Alb colour, _Nrm normal ...).
void add_textures(const file& f, const read_context& ctx, scene& s);

// FSHU and FVIS animations of `f`: bone visibility as STEP scale tracks (rest scale / 0)
// where exact, and everything decoded into extras (materials, animations, metadata).
void add_material_animations(const file& f, const read_context& ctx, double fps, scene& s);

// Sibling texture files by the game's naming rule: X.bfres / X.sbfres -> X.Tex1.sbfres,
// X.Tex1.bfres, X.Tex.sbfres, X.Tex.bfres (same folder), in that order.
[[nodiscard]] std::vector<std::string> sibling_texture_paths(const std::string& model_path);

}  // namespace rigrip::bfres
