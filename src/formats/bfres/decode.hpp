// FRES raw layer -> neutral scene (decode), plus the rotation helpers shared with the
// encoder (encode.cpp).
#pragma once

#include <optional>

#include "formats/bfres/fres.hpp"
#include "rigrip/registry.hpp"

namespace rigrip::bfres {

// Parses a FRES image (the registry has already taken it out of any Yaz0 stream).
[[nodiscard]] file load(std::span<const std::uint8_t> data);
// load() for reading a scene: parse_for_scene (no stored copies of float curve arrays).
[[nodiscard]] file load_for_scene(std::span<const std::uint8_t> data);
[[nodiscard]] scene to_scene(const file& f, const read_context& ctx);

// nw::g3d Euler XYZ: R = Rz(z) * Ry(y) * Rx(x) (column vectors), q = qz * qy * qx.
[[nodiscard]] quat euler_to_quat(const vec3& radians);
// Inverse of euler_to_quat. With `near`, picks among the equivalent angle triples (the
// two branches and 2*pi multiples) the one closest to `near`, so sampled curves stay continuous.
[[nodiscard]] vec3 quat_to_euler(const quat& q, const std::optional<vec3>& near = std::nullopt);

// Sibling model files for an animation file, by BotW's naming rule
// (Foo_Animation.bfres / .sbfres -> Foo.bfres, Foo.sbfres in the same folder).
[[nodiscard]] std::vector<std::string> sibling_model_paths(const std::string& path);

}  // namespace rigrip::bfres
