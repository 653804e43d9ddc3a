// SARC archives (Nintendo sead): header, SFAT file table (sorted by name hash), SFNT
// name table and the data section. Big-endian (Wii U) and little-endian (Switch).
// The raw layer keeps the image and re-emits every parsed field over it, so an
// unchanged archive writes back byte for byte; build() is our own writer.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace rigrip::containers::sarc {

struct entry {
  std::uint32_t at = 0;          // the SFAT node
  std::uint32_t hash = 0;
  std::uint32_t attributes = 0;  // 0 (no name) or 0xAABBBBBB: AA collision index, BBBBBB name offset / 4
  std::uint32_t begin = 0, end = 0;  // relative to the data section
  std::optional<std::string> name;
  [[nodiscard]] std::uint32_t size() const { return end - begin; }
};

struct archive {
  std::vector<std::uint8_t> image;
  bool little_endian = false;
  std::uint16_t header_size = 0x14, bom = 0xFEFF;
  std::uint32_t file_size = 0, data_offset = 0;
  std::uint16_t version = 0x100, reserved = 0;
  std::uint32_t sfat_at = 0x14;
  std::uint16_t sfat_header_size = 0xC;
  std::uint32_t multiplier = 0x65;
  std::uint32_t sfnt_at = 0;
  std::uint16_t sfnt_header_size = 8, sfnt_reserved = 0;
  std::vector<entry> entries;
  // The bytes of entry i (a view into image).
  [[nodiscard]] std::span<const std::uint8_t> data(std::size_t i) const;
};

[[nodiscard]] bool is_sarc(std::span<const std::uint8_t> d);
// Name hash with the archive's multiplier (bytes sign-extended, as the Switch runtime does;
// identical for ASCII names).
[[nodiscard]] std::uint32_t name_hash(std::string_view name, std::uint32_t multiplier);

// Parses an uncompressed SARC image (throws core::failure with offsets on damage).
[[nodiscard]] archive parse(std::vector<std::uint8_t> image);
// Writes every parsed field back over a copy of the image.
[[nodiscard]] std::vector<std::uint8_t> serialise(const archive& a);

struct build_file {
  std::string name;
  std::vector<std::uint8_t> data;
  std::uint32_t alignment = 0;  // 0: the default guess for the content
};
// A new archive: entries sorted by hash, names in SFNT (4-byte aligned), data section
// and each file aligned (default: 0x100 for a nested archive / GPU resource, else 8).
[[nodiscard]] std::vector<std::uint8_t> build(const std::vector<build_file>& files, bool little_endian,
                                              std::uint32_t multiplier = 0x65);

}  // namespace rigrip::containers::sarc
