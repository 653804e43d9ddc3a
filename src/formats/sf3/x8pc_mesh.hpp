// The x8pc mesh chunk (chunk 2): mesh lists and the skeleton command stream, as stored.
#pragma once

#include <optional>
#include <vector>

#include "formats/sf3/x8pc.hpp"
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

// Key values as stored -> floats.
[[nodiscard]] inline float fixed_to_float(std::int32_t v) { return static_cast<float>(v / 65536.0); }
[[nodiscard]] inline float rot_to_float(std::int16_t v) { return static_cast<float>(v / 16384.0); }

}  // namespace rigrip::sf3
