// Zstandard (.zs: Tears of the Kingdom and other later Switch games): one compressed stream,
// optionally made with a dictionary that the game ships apart (Pack/ZsDic.pack.zs).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace rigrip::containers {

[[nodiscard]] bool is_zstd(std::span<const std::uint8_t> data);
// The dictionary ID a stream's first frame names (0: none).
[[nodiscard]] std::uint32_t zstd_dictionary_id(std::span<const std::uint8_t> data);
// Whether a dictionary of that ID is registered.
[[nodiscard]] bool zstd_has_dictionary(std::uint32_t id);
// Decompresses every frame. The output is bounded (frame sizes are checked before anything
// is allocated; frames without a size grow to at most 1 GiB and 1024x the input). A frame
// that names a dictionary needs it registered first. Throws core::failure.
[[nodiscard]] std::vector<std::uint8_t> zstd_decompress(std::span<const std::uint8_t> data);
// One frame with the content size, made with the dictionary `dictionary_id` (0: none).
[[nodiscard]] std::vector<std::uint8_t> zstd_compress(std::span<const std::uint8_t> data,
                                                      std::uint32_t dictionary_id = 0, int level = 9);
// Registers dictionaries from a file: a zstd dictionary (magic 37 A4 30 EC), or an archive of
// them (a SARC, plain or zstd-compressed, as Tears of the Kingdom's ZsDic.pack.zs). Returns
// the IDs it holds; an ID already registered keeps its first dictionary. Throws core::failure
// when the file holds none.
std::vector<std::uint32_t> add_zstd_dictionaries(std::span<const std::uint8_t> file);

}  // namespace rigrip::containers
