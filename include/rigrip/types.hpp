// The small value types shared by the scene model and the math helpers.
#pragma once

#include <array>

namespace rigrip {

using vec2 = std::array<float, 2>;
using vec3 = std::array<float, 3>;
using vec4 = std::array<float, 4>;
using quat = std::array<float, 4>;  // x, y, z, w (glTF order)

}  // namespace rigrip
