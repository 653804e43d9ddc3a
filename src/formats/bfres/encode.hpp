// Encode: scene animations -> FSKA sections written into a copy of a template FRES.
#pragma once

#include <array>
#include <string>
#include <vector>

#include "formats/bfres/fres.hpp"
#include "rigrip/registry.hpp"

namespace rigrip::bfres {

struct patricia_node {
  std::uint32_t ref_bit = 0;
  std::uint16_t left = 0, right = 0;
};
// Builds nw::g3d's ResDicPatricia nodes (node 0 = root) for names inserted in order;
// the lookup bit test counts bytes from the start of the name (spec 2.3).
[[nodiscard]] std::vector<patricia_node> build_patricia(const std::vector<std::string>& names);

// Tolerances of the curve fit (spec: 0.01 units, 0.01 degrees).
inline constexpr float pack_tolerance_units = 0.01f;
inline constexpr float pack_tolerance_radians = 0.01f * 3.14159265358979f / 180.0f;

// A fitted curve, platform-neutral up to serialisation (raw frames and keys as stored).
struct fitted_curve {
  std::uint16_t flags = 0;
  std::uint32_t target = 0;
  float start = 0, end = 0, scale = 1, offset = 0, delta = 0;
  std::vector<std::int64_t> frames_raw;
  std::vector<std::int64_t> keys_raw;
  std::uint16_t num_keys = 0;
  [[nodiscard]] int frame_bytes() const {
    int t = flags & 3;
    return t == 0 ? 4 : t == 1 ? 2 : 1;
  }
  [[nodiscard]] int key_bytes() const {
    int t = (flags >> 2) & 3;
    return t == 0 ? 4 : t == 1 ? 2 : 1;
  }
  [[nodiscard]] std::size_t size() const {
    auto a4 = [](std::size_t n) { return (n + 3) & ~std::size_t{3}; };
    return a4(frames_raw.size() * static_cast<std::size_t>(frame_bytes())) +
           a4(keys_raw.size() * static_cast<std::size_t>(key_bytes()));
  }
  // The reader's own curve, to evaluate exactly what the game (and our reader) will see.
  [[nodiscard]] curve as_curve() const;
};
// One BoneAnim to write: base S(3) R(4) T(3) and the moving components' curves.
struct packed_bone {
  std::string name;
  bool ssc = false;
  std::array<float, 10> base{};
  std::vector<fitted_curve> curves;
};
// One FSKA to write (flags in the template's conventions, loop bit set).
struct packed_anim {
  std::string name;
  std::uint32_t flags = 0;
  int frames = 0;
  bool euler = true;
  std::vector<packed_bone> bones;
};

[[nodiscard]] std::vector<std::uint8_t> pack_file(const scene& s, const pack_context& ctx);

// Switch (fres_switch_write.cpp): nn::util ResDic nodes (node 0 = root, bit tests from the
// name's end) and the template rewritten with `anims` as its FSKAs (same name: replaced;
// new name: added), string table, dictionary and relocation table rebuilt.
[[nodiscard]] std::vector<patricia_node> build_patricia_switch(
    const std::vector<std::string>& names);
[[nodiscard]] std::vector<std::uint8_t> write_switch_fskas(const file& tpl,
                                                           const std::vector<packed_anim>& anims);

}  // namespace rigrip::bfres
