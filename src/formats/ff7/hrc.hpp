// FF7 field skeletons HRC (text): bone names, parents, lengths and RSD resources.
#pragma once

#include <span>
#include <string>
#include <vector>

#include "core/byte_reader.hpp"
#include "rigrip/registry.hpp"

namespace rigrip::ff7 {

struct hrc_bone {
  std::string name, parent;
  float length = 0;
  std::vector<std::string> resources;
};
struct hrc_file {
  std::string name;
  std::vector<hrc_bone> bones;
};
[[nodiscard]] hrc_file parse_hrc(std::span<const std::uint8_t> data);

}  // namespace rigrip::ff7
