// Pictures to files: PNG (stb_image_write), animated GIF (giflib, one palette for all frames
// from giflib's median-cut quantiser), and contact sheets of several frames.
#pragma once

#include <vector>

#include "render/raster.hpp"
#include "rigrip/error.hpp"
#include "rigrip/types.hpp"
#include <cstdint>

namespace rigrip::render {

[[nodiscard]] result<std::vector<std::uint8_t>> encode_png(const canvas& c);

// An endlessly looping GIF; `delay_cs` hundredths of a second per frame. Frames of one size.
[[nodiscard]] result<std::vector<std::uint8_t>> encode_gif(const std::vector<canvas>& frames, int delay_cs);

// Frames side by side, `columns` per row, in a picture of columns x rows cells.
[[nodiscard]] canvas contact_sheet(const std::vector<canvas>& frames, int columns);

}  // namespace rigrip::render
