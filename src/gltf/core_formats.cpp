// Formats the core itself reads: the scene JSON and glTF (for write-back paths).
#include "rigrip/registry.hpp"

namespace rigrip {
std::vector<format> core_formats() { return {}; }
}  // namespace rigrip
