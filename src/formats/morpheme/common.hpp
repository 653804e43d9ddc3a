// Small helpers shared by decode.cpp, decode_sdk.cpp and encode.cpp; internal to the family.
#pragma once

#include <cctype>
#include <cstdint>
#include <cstdio>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/failure.hpp"

#include "rigrip/scene.hpp"

namespace rigrip::morpheme {

// The little-endian u32 at `at` of bytes the caller has already bounds-checked.
[[nodiscard]] inline std::uint32_t le32(std::span<const std::uint8_t> d, std::size_t at) {
  return std::uint32_t(d[at]) | std::uint32_t(d[at + 1]) << 8 | std::uint32_t(d[at + 2]) << 16 |
         std::uint32_t(d[at + 3]) << 24;
}

inline std::string lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// The trajectory (root-motion) bone of a rig: the bone named "trajectory" (any case),
// otherwise bone 0. Shared by the reader and the writer so they agree.
[[nodiscard]] inline int trajectory_bone(const skeleton& sk) {
  for (std::size_t i = 0; i < sk.bones.size(); ++i)
    if (lower(sk.bones[i].name) == "trajectory") return static_cast<int>(i);
  return sk.bones.empty() ? -1 : 0;
}

[[nodiscard]] inline std::string hex8(std::uint32_t v) {
  char b[16];
  std::snprintf(b, sizeof b, "%08X", v);
  return b;
}

// A path's file name without its extension ("a/b/run.nsa" -> "run"), as a view into `path`.
[[nodiscard]] inline std::string_view stem_view(std::string_view path) {
  // One backward scan for the last separator, one for the last dot after it.
  std::size_t start = path.size();
  while (start > 0 && path[start - 1] != '/' && path[start - 1] != '\\') --start;
  std::size_t end = path.size();
  for (std::size_t i = path.size(); i > start; --i)
    if (path[i - 1] == '.') {
      if (i - 1 > start) end = i - 1;  // a leading dot is part of the name
      break;
    }
  return path.substr(start, end - start);
}
[[nodiscard]] inline std::string stem_of(const std::string& path) { return std::string(stem_view(path)); }

// Parents must precede children in the scene model; morpheme rigs normally already do.
// Otherwise the bones are re-ordered (roots first, breadth first), the old index kept in
// extras, and `remap` maps old index -> new. `what` names the rig in the cycle message.
inline void order_bones(skeleton& sk, std::vector<int>& remap, std::uint64_t offset, const char* what) {
  const auto n = sk.bones.size();
  remap.resize(n);
  bool ordered = true;
  for (std::size_t i = 0; i < n; ++i)
    if (sk.bones[i].parent >= static_cast<int>(i)) ordered = false;
  if (ordered) {
    for (std::size_t i = 0; i < n; ++i) remap[i] = static_cast<int>(i);
    return;
  }
  std::vector<std::vector<int>> kids(n);
  std::vector<int> order;
  for (std::size_t i = 0; i < n; ++i) {
    if (sk.bones[i].parent < 0)
      order.push_back(static_cast<int>(i));
    else
      kids[static_cast<std::size_t>(sk.bones[i].parent)].push_back(static_cast<int>(i));
  }
  for (std::size_t k = 0; k < order.size(); ++k)
    for (int c : kids[static_cast<std::size_t>(order[k])]) order.push_back(c);
  if (order.size() != n)
    core::fail(code::bad_value, std::string(what) + " parent array contains a cycle", offset);
  for (std::size_t k = 0; k < n; ++k) remap[static_cast<std::size_t>(order[k])] = static_cast<int>(k);
  std::vector<bone> out(n);
  for (std::size_t k = 0; k < n; ++k) {
    out[k] = sk.bones[static_cast<std::size_t>(order[k])];
    out[k].extras["morpheme_index"] = order[k];
    if (out[k].parent >= 0) out[k].parent = remap[static_cast<std::size_t>(out[k].parent)];
  }
  sk.bones = std::move(out);
}

}  // namespace rigrip::morpheme
