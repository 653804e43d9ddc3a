// The MetaStream container (raw layer): magic, section sizes, class table, sections.
// Only MSV5/MSV6 are read; older stream versions are recognised and refused by name.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/byte_reader.hpp"

namespace rigrip::telltale {

// Magics as the little-endian u32 of the first 4 bytes (the file shows them reversed).
inline constexpr std::uint32_t magic_msv6 = 0x4D535636;  // "6VSM"
inline constexpr std::uint32_t magic_msv5 = 0x4D535635;  // "5VSM"

struct class_entry {
  std::uint64_t type = 0;      // crc64 of the type name
  std::uint32_t version = 0;   // crc32 of its member layout in this game build
};

// Bytes: std::vector<std::uint8_t> (owning: the raw layer, writers) or
// std::span<const std::uint8_t> (views into the parsed file, which must outlive them: the
// scene readers, which need no copy of each section).
template <class Bytes>
struct basic_metastream {
  std::uint32_t magic = magic_msv6;
  std::vector<class_entry> classes;
  Bytes default_section{};
  Bytes debug_section{};
  Bytes async_section{};
  std::uint64_t default_offset = 0;  // absolute offset of the default section in the file
  [[nodiscard]] bool has_class(std::uint64_t type) const {
    for (const auto& c : classes)
      if (c.type == type) return true;
    return false;
  }
};
using metastream = basic_metastream<std::vector<std::uint8_t>>;
using metastream_view = basic_metastream<std::span<const std::uint8_t>>;

// Name of the stream version for a magic ("MSV6", "MTRE", "encrypted MBIN", ...), or
// nullopt when the 4 bytes are no MetaStream magic at all.
[[nodiscard]] std::optional<std::string> stream_version_name(std::uint32_t magic);

// Cheap probe for detection; never throws. True for MSV5/MSV6 with a sane header.
[[nodiscard]] bool probe(std::span<const std::uint8_t> data, metastream* header_only = nullptr);

// Parses the header and splits the sections. Fails (core::fail) with the stream
// version named for MTRE/MBIN/encrypted streams, and for compressed sections.
[[nodiscard]] metastream parse_metastream(std::span<const std::uint8_t> data);
[[nodiscard]] std::vector<std::uint8_t> write_metastream(const metastream& m);
// parse_metastream, then requires `cls` (named `cls_name`) in the class table; otherwise
// fails saying what the stream is instead: a D3DMesh, the `other` class (`other_is`) or
// `neither`.
[[nodiscard]] metastream parse_metastream_of(std::span<const std::uint8_t> data, std::uint64_t cls,
                                             std::string_view cls_name, std::uint64_t other,
                                             std::string_view other_is, std::string_view neither);
// The same two parses with the sections as views into `data` (no copies; `data` must
// outlive the result). Same checks and failures.
[[nodiscard]] metastream_view parse_metastream_view(std::span<const std::uint8_t> data);
[[nodiscard]] metastream_view parse_metastream_of_view(std::span<const std::uint8_t> data, std::uint64_t cls,
                                                       std::string_view cls_name, std::uint64_t other,
                                                       std::string_view other_is, std::string_view neither);

// ------------------------------------------------------------------ shared body types
// Serialised types that more than one body (.anm, .skl) holds.

// Transform as serialised: u32 block (32), quaternion x y z w, vector x y z.
struct transform {
  float rot[4] = {0, 0, 0, 1};
  float trans[3] = {0, 0, 0};
};
[[nodiscard]] transform decode_transform(std::span<const std::uint8_t> v);
[[nodiscard]] std::vector<std::uint8_t> encode_transform(const transform& t);

// Reads a u32 block size that must be `want`; fails naming `what` otherwise.
void expect_block(core::byte_reader& r, std::uint32_t want, const char* what);

}  // namespace rigrip::telltale
