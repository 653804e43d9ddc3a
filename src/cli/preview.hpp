// Preview pictures of a scene (`rigrip preview`, `rigrip convert --previews`): one PNG frame, a
// PNG contact sheet of several frames, or an animated GIF, written without partial files.
#pragma once

#include <optional>
#include <string>

#include "rigrip/scene.hpp"

namespace rigrip::cli {

struct preview_request {
  std::string clip;                 // animation name or glob; empty: the first animation
  int frames = 0;                   // 0: 1 for PNG, the clip's frame count up to 24 for GIF
  int width = 256, height = 256;    // of one frame
  std::optional<double> time;       // seconds: the one frame of a PNG (default 0)
  bool bones = true;
  bool grid = true;
};

struct preview_written {
  int frames = 0;
  int width = 0, height = 0;  // of the file's picture (a contact sheet holds several frames)
  double ms_per_frame = 0;    // rendering only, without encoding
  std::string clip;           // empty: the rest pose
};

// Writes `path` (.png or .gif, by its extension).
[[nodiscard]] result<preview_written> write_preview(const scene& s, const std::string& path, const preview_request& r);

}  // namespace rigrip::cli
