// The public scene JSON of `rigrip dump` written as text without a DOM.
#pragma once

#include <string>

#include "rigrip/scene.hpp"

namespace rigrip::scene_json {
// The same document as to_json(s).dump(indent) (indent < 0: compact) with invalid UTF-8
// replaced, written straight to text: each float printed once, in its shortest
// round-trip spelling laid out as nlohmann prints numbers, so the bytes do not change.
[[nodiscard]] std::string to_text(const scene& s, int indent = 1);
void append_text(const scene& s, int indent, std::string& out);
}  // namespace rigrip::scene_json
