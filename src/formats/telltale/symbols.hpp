// Telltale symbols: CRC-64/ECMA-182 of the ASCII-lowercased name, and a small
// name database so output shows readable bone names where we know them.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rigrip::telltale {

// CRC-64/ECMA-182 (poly 0x42F0E1EBA9EA3693, MSB first, init 0, xorout 0) over the
// lowercased bytes; the engine hashes names case-insensitively this way.
[[nodiscard]] std::uint64_t crc64(std::string_view s);
[[nodiscard]] std::uint64_t crc64_raw(std::string_view s);  // no lowercasing (check value)

[[nodiscard]] std::string hex16(std::uint64_t v);                 // 16 lower-case hex digits
[[nodiscard]] std::optional<std::uint64_t> parse_hex16(std::string_view s);

// Name of a symbol when the database knows it.
[[nodiscard]] std::optional<std::string> symbol_name(std::uint64_t sym);
// Name when known, else 16 hex digits.
[[nodiscard]] std::string symbol_label(std::uint64_t sym);
// Label of an .anm value name: the engine's own names for the well-known ones
// ("SkeletonPose", "root", "absoluteNode"), else symbol_label.
[[nodiscard]] std::string value_label(std::uint64_t sym);
// Inverse for names coming back from glTF: 16 hex digits parse as the symbol itself,
// anything else is hashed.
[[nodiscard]] std::uint64_t symbol_of_label(std::string_view label);
[[nodiscard]] std::size_t symbol_database_size();

namespace detail {  // for the tests: the database's symbols, and the lookup by binary search
[[nodiscard]] std::vector<std::uint64_t> symbol_database_symbols();
[[nodiscard]] std::optional<std::string> symbol_name_by_search(std::uint64_t sym);
}  // namespace detail

// Well-known constants (computed; see README).
inline constexpr std::uint64_t sym_animation = 0x774CFA08CA715D06ull;
inline constexpr std::uint64_t sym_skeleton = 0x26D936F7FF759D39ull;
inline constexpr std::uint64_t sym_cspk2 = 0x59D13F814FD13B69ull;
inline constexpr std::uint64_t sym_root = 0x632FD7A5765BA466ull;
inline constexpr std::uint64_t sym_absolute_node = 0xE469742866DA9111ull;
inline constexpr std::uint64_t sym_skeleton_pose = 0x72CD1B7B793305EAull;

}  // namespace rigrip::telltale
