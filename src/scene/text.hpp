// Text from game files is bytes, not UTF-8: names can hold Latin-1, Shift-JIS or garbage.
// JSON (and glTF) need valid UTF-8, so every string leaving a reader is repaired here.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "rigrip/scene.hpp"

namespace rigrip::scene_ops {

// Valid UTF-8 sequences are kept; every byte that is not part of one is read as Latin-1
// (0xE9 -> "é"), so the result is valid UTF-8, deterministic, and unchanged for good text.
[[nodiscard]] bool is_valid_utf8(std::string_view s) noexcept;
void repair_utf8(std::string& s);
void repair_utf8(nlohmann::json& j);  // strings and object keys, recursively
void repair_utf8(scene& s);           // every name, reference and extras/metadata string

}  // namespace rigrip::scene_ops
