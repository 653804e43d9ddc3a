// SF3 battle meshes: raw layer -> scene model (and the pieces the raw dump needs).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "formats/sf3/lzss.hpp"
#include "formats/sf3/x8an.hpp"
#include "formats/sf3/x8pc_mesh.hpp"
#include "rigrip/registry.hpp"
#include "rigrip/scene.hpp"

namespace rigrip::sf3 {

[[nodiscard]] std::string tag_name(std::uint8_t code);

// A model's LZSS texture chunk decompressed, with the textures in VRAM order as places in it
// (checked to lie inside). The pixels stay RGB555 until the atlas converts them (rgb555_pixels)
// straight into its rows: no RGBA copy per texture.
struct decoded_textures {
  std::size_t vram_bytes = 0;  // LZSS output length (equals vram_size in real files)
  lzss_bytes vram;             // the LZSS output
  struct image {
    std::uint32_t width = 0, height = 0;
    std::size_t start = 0;  // byte offset of its big-endian RGB555 pixels in vram
  };
  std::vector<image> images;
};
[[nodiscard]] decoded_textures decode_textures(const model_raw& m);
// n big-endian RGB555 pixels (2 bytes each) to RGBA8 (4 bytes each), as rgb555 per pixel.
void rgb555_pixels(const std::uint8_t* src, std::size_t n, std::uint8_t* dst);
[[nodiscard]] std::array<std::uint8_t, 4> rgb555_reference(std::uint16_t p);  // the per-pixel formula
// Linear value of a flat face's 5-bit colour channel (a table), and the formula it equals.
[[nodiscard]] float flat_linear(unsigned v5);
[[nodiscard]] float flat_linear_reference(unsigned v5);

// A channel's keys as the key-table decode appends them: u16 frames and the component arrays
// (rotation: s16 Rx Ry Rz Rw; else FIXED x y z, comp[3] unused), n each, big- or little-endian,
// to frames at fo and the values at vo, keys whose frame is not above the last kept one
// dropped, non-unit rotations repaired (both counted). `simd` = SSE2 blocks of four where
// SSE2 exists, else key by key (the tests compare them). Returns the keys kept.
std::size_t decode_channel_keys(const std::uint8_t* frames, const std::array<const std::uint8_t*, 4>& comp, std::uint32_t n,
                                bool rotation, bool big, bool simd, int* fo, float* vo, std::size_t& dropped,
                                std::size_t& repaired);

// A JSON object filled key by key (key, value, key, value, ...), equal to the initializer-list
// form {{key, value}, ...} with the same value types; that form builds a two-element array per
// key and copies it into the object (most of the cost of the extras of meshes, bones and clips).
inline void put_all(nlohmann::json::object_t&) {}
template <typename V, typename... Rest>
void put_all(nlohmann::json::object_t& o, const char* key, V&& value, Rest&&... rest) {
  o.emplace(key, nlohmann::json(std::forward<V>(value)));
  put_all(o, std::forward<Rest>(rest)...);
}
template <typename... Kv>
[[nodiscard]] nlohmann::json json_object(Kv&&... kv) {
  nlohmann::json j(nlohmann::json::value_t::object);
  put_all(j.get_ref<nlohmann::json::object_t&>(), std::forward<Kv>(kv)...);
  return j;
}

// A JSON array of the values in order, equal to the initializer-list form {v, ...} (numbers,
// not an object) with the same value types, without its list of references.
template <typename... V>
[[nodiscard]] nlohmann::json json_array(V&&... v) {
  nlohmann::json j(nlohmann::json::value_t::array);
  auto& a = j.get_ref<nlohmann::json::array_t&>();
  a.reserve(sizeof...(V));
  (a.emplace_back(std::forward<V>(v)), ...);
  return j;
}

struct sibling_animations {
  const x8an_file* file = nullptr;
  const x8an_layout* layout = nullptr;  // x8an_index(*file), set with file
  int group = 0;
  std::string name;
};

// Appends one model (skeleton, meshes, atlas, materials, animations) to the scene.
void add_model(scene& s, const model_raw& m, const std::string& name, double fps, const read_context& ctx,
               const sibling_animations& an, bool include_clips);
// Appends the x8an animations of `group` for skeleton `skel` (whose bone count must match).
void add_x8an_animations(scene& s, int skel, const x8an_file& f, const x8an_layout& layout, int group, double fps, const read_context& ctx,
                         const std::string& prefix);

// The readers behind the registry entries (throw core::failure; register.cpp wraps them).
// A model pairs with its X8ANnn.BIN sibling; an x8an file needs its model (sibling or --skeleton).
[[nodiscard]] scene read_x8pc_scene(const read_context& ctx);
[[nodiscard]] scene read_x8an_scene(const read_context& ctx);

// The glTF-facing scene metadata: Y-down Saturn space -> Y-up (180 degrees about X).
void set_root_transform(scene& s);

}  // namespace rigrip::sf3
