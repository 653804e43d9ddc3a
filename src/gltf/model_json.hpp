// The glTF JSON of a tinygltf::Model written straight to text (no JSON DOM, no copy of the
// binary buffer), and the GLB container around it.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <tiny_gltf.h>

#include "rigrip/gltf.hpp"

namespace rigrip::gltf::detail {

// The document tinygltf 2.7's WriteGltfSceneToStream builds for `m` (the same members, the
// same defaults left out, the same quirks: an empty array or object inside extras prints as
// null), printed as nlohmann::json::dump(indent) prints it (indent < 0: compact), with invalid
// UTF-8 in strings replaced instead of thrown. `bin_uri` empty: buffer 0 is the GLB's BIN
// chunk (no uri); otherwise buffer 0 points at that external file. Buffers other than the
// first and images without a bufferView keep their own uri.
[[nodiscard]] std::string model_json(const tinygltf::Model& m, int indent, std::string_view bin_uri);

// A GLB file: header, the JSON chunk (padded with spaces) and, when `bin` is not empty, the
// BIN chunk (padded with zeros), laid out once into one buffer.
[[nodiscard]] std::vector<std::uint8_t> glb(std::string_view json, std::span<const std::uint8_t> bin);
// The same file in three parts, so that a large binary buffer goes to the file from where it
// is instead of being copied behind the JSON first: the bytes before the binary (header, JSON
// chunk and, when bin_size > 0, the BIN chunk's header), then the binary, then
// glb_padding(bin_size) zeros. glb(j, b) is glb_head(j, b.size()) + b + those zeros.
[[nodiscard]] std::vector<std::uint8_t> glb_head(std::string_view json, std::size_t bin_size);
[[nodiscard]] constexpr std::size_t glb_padding(std::size_t bin_size) { return (4 - bin_size % 4) % 4; }

// gltf::write() with tinygltf's own serialiser instead (the reference for the tests).
[[nodiscard]] result<encoded> write_with_tinygltf(const scene& s, const write_options& options, diagnostics& diags,
                                                  const std::string& bin_name = "scene.bin");

}  // namespace rigrip::gltf::detail
