// LGP: Final Fantasy VII (PC)'s archive (battle.lgp, char.lgp, magic.lgp ...). Layout as
// implemented in src/formats/ff7/README.md ("LGP archives").
//
// The raw layer keeps every byte: parse() then serialise() gives the input back, even for an
// archive whose tables disagree or whose entries run past its end (those are reported, not
// fixed). build() writes a new archive with tables the game can use.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "rigrip/error.hpp"

namespace rigrip::containers::lgp {

using byte_vec = std::vector<std::uint8_t>;

inline constexpr std::size_t creator_size = 12;
inline constexpr std::size_t header_size = 16;       // creator + u32 count
inline constexpr std::size_t name_size = 20;
inline constexpr std::size_t toc_entry_size = 27;    // name, u32 offset, u8 check, u16 conflict
inline constexpr std::size_t lookup_side = 30;       // 30 x 30 two-character prefixes
inline constexpr std::size_t lookup_slots = lookup_side * lookup_side;
inline constexpr std::size_t lookup_size = lookup_slots * 4;  // u16 first (1-based), u16 count
inline constexpr std::size_t folder_size = 128;
inline constexpr std::size_t conflict_ref_size = folder_size + 2;
inline constexpr std::size_t file_header_size = 24;  // name + u32 size
inline constexpr std::uint8_t usual_check = 14;
inline constexpr std::string_view game_creator = "SQUARESOFT";
inline constexpr std::string_view game_terminator = "FINAL FANTASY7";

// The lookup slot of a name: its first two characters (letters, digits, '_' and '-', case
// ignored) as set * 30 + entry + 1; nullopt when the game could not look the name up.
[[nodiscard]] std::optional<std::size_t> lookup_slot(std::string_view name);
// The two-character prefix a slot stands for ("rt"), for messages and the dump.
[[nodiscard]] std::string slot_prefix(std::size_t slot);

struct toc_entry {
  std::array<std::uint8_t, name_size> raw_name{};  // as stored (bytes after the NUL kept)
  std::string name;                                // up to the first NUL
  std::uint32_t offset = 0;                        // of the entry's file header
  std::uint8_t check = usual_check;                // meaning unknown; 14 in game archives
  std::uint16_t conflict = 0;                      // 1-based conflict group, 0 = unique name
  // Filled by parse():
  std::string folder;                // from the conflict table ("" for most entries)
  std::optional<std::uint32_t> size; // from the file header, when it could be read
  std::optional<error> problem;      // why the entry's data cannot be taken out
};

struct lookup_entry {
  std::uint16_t first = 0;  // 1-based TOC index of the slot's first entry, 0 = none
  std::uint16_t count = 0;
  bool operator==(const lookup_entry&) const = default;
};

struct conflict_ref {
  std::array<std::uint8_t, folder_size> raw_folder{};
  std::string folder;
  std::uint16_t toc_index = 0;  // 0-based
};

// A file record in the data area: header (name, size) and data, at `offset`.
struct record {
  std::uint32_t offset = 0;
  std::array<std::uint8_t, name_size> raw_name{};
  std::string name;
  std::uint32_t size = 0;
  std::span<const std::uint8_t> data;  // view into the parsed buffer
};

// Everything after the TOC, in file order: the tables (when they parse), then pieces that
// are either a record or bytes no TOC entry points at, then the terminator.
struct piece {
  std::optional<std::size_t> record;  // index into archive::records, else raw bytes
  byte_vec raw;
};

struct archive {
  std::array<std::uint8_t, creator_size> creator{};
  std::vector<toc_entry> toc;
  // [toc end, first record): lookup + conflict tables when they parse, else kept as bytes.
  bool tables = false;
  std::vector<lookup_entry> lookup;               // lookup_slots entries when `tables`
  std::vector<std::vector<conflict_ref>> conflicts;
  byte_vec after_tables;                          // bytes between the tables and the first record
  byte_vec raw_tables;                            // the region as bytes when !tables
  std::vector<record> records;                    // distinct offsets, ascending
  std::vector<piece> layout;
  byte_vec terminator;                            // after the last record ("FINAL FANTASY7")
  std::vector<warning> warnings;                  // table disagreements, odd layouts
};

[[nodiscard]] bool has_signature(std::span<const std::uint8_t> data);
// Reads the structures. Throws core::failure when the header or the TOC cannot be read;
// an entry whose data cannot be taken out gets `problem`, a disagreement between tables a
// warning: neither stops the parse.
[[nodiscard]] archive parse(std::span<const std::uint8_t> data);
// The archive's bytes from its structures (byte-identical to parse()'s input).
[[nodiscard]] byte_vec serialise(const archive& a);
// The data of TOC entry i (throws its problem).
[[nodiscard]] std::span<const std::uint8_t> entry_data(const archive& a, std::size_t i);
// "folder/name" for entries the conflict table places in a folder, else the name.
[[nodiscard]] std::string entry_path(const toc_entry& e);

// One file to write into a new archive.
struct file {
  std::string path;  // "name" or "folder/name" (folder only to tell equal names apart)
  std::span<const std::uint8_t> data;
  std::uint8_t check = usual_check;
};
struct build_options {
  std::string creator = std::string(game_creator);
  byte_vec terminator = byte_vec(game_terminator.begin(), game_terminator.end());
};
// A new archive: TOC ordered by lookup slot (stable), lookup and conflict tables built from
// it, data in the order given, the terminator. Throws core::failure (E_BAD_VALUE) for a name
// the game cannot look up, longer than 20 bytes, or given twice.
[[nodiscard]] byte_vec build(const std::vector<file>& files, const build_options& o = {});

[[nodiscard]] nlohmann::json to_json(const archive& a);

}  // namespace rigrip::containers::lgp
