// FF7 field animations A (binary): per frame root transform + one Euler triple per bone.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "core/byte_reader.hpp"
#include "rigrip/registry.hpp"
#include "rigrip/scene.hpp"

namespace rigrip::ff7 {

constexpr double field_fps = 30.0;  // field animations play at 30 frames per second

struct a_frame {
  vec3 root_rotation{}, root_translation{};
  std::vector<vec3> rotations;
};
struct a_file {
  std::uint32_t version = 1, bone_count = 0;
  std::array<std::uint8_t, 4> order{1, 0, 2, 0};
  std::array<std::uint32_t, 5> runtime{};
  std::vector<a_frame> frames;
  bytes trailing;
};
[[nodiscard]] a_file parse_a(std::span<const std::uint8_t> data);
[[nodiscard]] bytes serialise_a(const a_file& a);
[[nodiscard]] int detect_a(std::span<const std::uint8_t> data);

}  // namespace rigrip::ff7
