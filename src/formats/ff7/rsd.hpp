// FF7 field resources RSD (text): one P part with its textures.
#pragma once

#include <span>
#include <string>
#include <vector>

#include "core/byte_reader.hpp"
#include "rigrip/registry.hpp"

namespace rigrip::ff7 {

struct rsd_file {
  std::string ply;
  std::vector<std::string> textures;
};
[[nodiscard]] rsd_file parse_rsd(std::span<const std::uint8_t> data);

}  // namespace rigrip::ff7
