// SF3 battle meshes: raw layer -> scene model (and the pieces the raw dump needs).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "formats/sf3/raw.hpp"
#include "rigrip/registry.hpp"
#include "rigrip/scene.hpp"

namespace rigrip::sf3 {

struct tag_node {
  std::uint8_t code = 0;
  int parent = -1;  // push-bone index, -1 = implicit root
  vec3 position{0, 0, 0};
  quat rotation{0, 0, 0, 1};
  vec3 scale{1, 1, 1};
  bool has_rotation = false;
};

// The skeleton command stream (0xFD push, 0xFE pop, 0x00/0x80 draw, tags).
struct skeleton_stream {
  std::vector<int> parent;     // per push bone: parent push bone, -1 = implicit root
  std::vector<int> mesh_bone;  // per draw command: bone at the top of the stack (-1 = root)
  std::vector<tag_node> tags;
  std::uint32_t length = 0;    // bytes consumed
};

struct xpdata {
  std::vector<vec3> points;
  std::vector<vec3> normals;  // per point, may be empty
  struct face {
    std::array<std::uint16_t, 4> v{};
    vec3 normal{0, 0, 0};
    std::uint8_t flag = 0, sort = 0;
    std::uint16_t texno = 0, atrb = 0, colno = 0, gstb = 0, dir = 0;
  };
  std::vector<face> faces;
};

struct model_geometry {
  skeleton_stream skel;
  std::vector<xpdata> body;
  std::optional<xpdata> weapon;
};

[[nodiscard]] model_geometry parse_geometry(const model_raw& m);
[[nodiscard]] skeleton_stream parse_skeleton(const core::byte_reader& mesh_chunk, std::uint32_t offset);
[[nodiscard]] std::string tag_name(std::uint8_t code);

// Key values as stored -> floats.
[[nodiscard]] inline float fixed_to_float(std::int32_t v) { return static_cast<float>(v / 65536.0); }
[[nodiscard]] inline float rot_to_float(std::int16_t v) { return static_cast<float>(v / 16384.0); }

// Decoded textures in VRAM order (RGBA8 each) from a model's LZSS texture chunk.
struct decoded_textures {
  std::size_t vram_bytes = 0;  // LZSS output length (equals vram_size in real files)
  std::vector<texture> images;
};
[[nodiscard]] decoded_textures decode_textures(const model_raw& m);

// x8an segment groups (heuristic: a new group starts when the bone count changes or a
// segment starts again at the first segment's first frame).
[[nodiscard]] std::vector<int> x8an_groups(const x8an_file& f);
[[nodiscard]] std::pair<int, int> frame_range(const key_table& t);  // min, max frame (-1,-1 when empty)

struct sibling_animations {
  const x8an_file* file = nullptr;
  int group = 0;
  std::string name;
};

// Appends one model (skeleton, meshes, atlas, materials, animations) to the scene.
void add_model(scene& s, const model_raw& m, const std::string& name, double fps, const read_context& ctx,
               const sibling_animations& an, bool include_clips);
// Appends the x8an animations of `group` for skeleton `skel` (whose bone count must match).
void add_x8an_animations(scene& s, int skel, const x8an_file& f, int group, double fps, const read_context& ctx,
                         const std::string& prefix);

// The glTF-facing scene metadata: Y-down Saturn space -> Y-up (180 degrees about X).
void set_root_transform(scene& s);

}  // namespace rigrip::sf3
