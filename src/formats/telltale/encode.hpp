// Encode: scene -> raw .anm/.skl bytes.
#pragma once

#include "rigrip/registry.hpp"

namespace rigrip::telltale {

result<bytes> pack_anm(const scene& s, const pack_context& ctx);
result<bytes> pack_skl(const scene& s, const pack_context& ctx);

}  // namespace rigrip::telltale
