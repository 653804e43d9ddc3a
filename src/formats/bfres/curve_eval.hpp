// Curve evaluation helpers beside curve's members (fres.hpp) for the decoder's samplers.
#pragma once

#include <cstddef>

#include "formats/bfres/fres.hpp"

namespace rigrip::bfres {

// c.value_left(frame, lower, cursor) != c.value(frame, cursor), evaluating only where the
// two can differ (a key at `frame` that ends a segment of positive length). Same answer.
[[nodiscard]] bool jumps_at(const curve& c, double frame, std::size_t& lower, std::size_t& cursor);

}  // namespace rigrip::bfres
