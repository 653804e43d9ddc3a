// SF3 key tables, the keyframe layout shared by the x8pc animation chunk and the x8an
// segments, and the basics of the raw layer (big-endian, 0x800 sectors).
#pragma once

#include <nlohmann/json.hpp>

#include <array>
#include <bit>
#include <cstdint>
#include <cstring>
#include <memory>
#include <memory_resource>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/byte_reader.hpp"

namespace rigrip::sf3 {

using byte_vec = std::vector<std::uint8_t>;
using byte_span = std::span<const std::uint8_t>;

inline constexpr std::uint32_t sector = 0x800;  // chunk / slot / segment alignment
inline constexpr std::uint32_t end_marker = 0xFFFFFFFFu;

[[nodiscard]] constexpr std::uint32_t align_up(std::uint32_t v, std::uint32_t a) { return (v + a - 1) / a * a; }
[[nodiscard]] inline std::string hex(std::uint64_t v) { return core::byte_reader::hex(v); }

// The arrays of a key record. Parsed tables put them in one arena per file (13 arrays per
// bone were 13 heap allocations each, the main cost of parsing); a record built or copied
// elsewhere uses the heap as usual.
template <typename T>
using key_vec = std::pmr::vector<T>;
using key_arena = std::pmr::monotonic_buffer_resource;

// One bone's keys as stored (BoneKeyframes record + its arrays). Moving a parsed record out of
// its key_table must not outlive the table's arena (copies are safe: they use the heap).
struct key_record {
  key_record() = default;
  explicit key_record(std::pmr::memory_resource* mr)
      : t_frames(mr), r_frames(mr), s_frames(mr), t{key_vec<std::int32_t>(mr), key_vec<std::int32_t>(mr), key_vec<std::int32_t>(mr)},
        r{key_vec<std::int16_t>(mr), key_vec<std::int16_t>(mr), key_vec<std::int16_t>(mr), key_vec<std::int16_t>(mr)},
        s{key_vec<std::int32_t>(mr), key_vec<std::int32_t>(mr), key_vec<std::int32_t>(mr)} {}
  key_vec<std::uint16_t> t_frames, r_frames, s_frames;
  std::array<key_vec<std::int32_t>, 3> t;  // FIXED 16.16
  std::array<key_vec<std::int16_t>, 4> r;  // quaternion x y z w, s16 / 16384
  std::array<key_vec<std::int32_t>, 3> s;  // FIXED 16.16
};

// A BoneKeyframes table with its data, in the canonical layout every real file uses:
// per bone the three u16 frame arrays, pad to 4, Tx Ty Tz, Rx Ry Rz Rw, pad to 4,
// Sx Sy Sz; then the 64-byte records; then 0xFFFFFFFF.
struct key_table {
  std::shared_ptr<key_arena> arena;  // declared before bones: outlives their arrays (may be shared by a file's tables)
  std::vector<key_record> bones;
  bool canonical = true;  // offsets follow the canonical layout (every shared sample does)
  std::uint32_t end = 0;  // offset just past the 0xFFFFFFFF terminator
};
// A key table as checked positions in its bytes, without copies: what parse_key_table checks
// (counts against the bytes, the work budget, the canonical layout, the terminator) is done by
// scan_key_table, and parse_key_table copies the arrays of the records it found. The scene
// readers take the values straight from the bytes through these records.
struct key_record_ref {
  std::uint32_t n[3] = {0, 0, 0};  // key counts T R S
  // Array offsets as in the record: frames T R S, Tx Ty Tz, Rx Ry Rz Rw, Sx Sy Sz. Only an
  // array with a count above 0 is checked (and only then meaningful).
  std::uint32_t off[13] = {};
};
struct key_table_ref {
  std::vector<key_record_ref> bones;
  core::endian order = core::endian::big;
  bool canonical = true;
  std::uint32_t end = 0;
};

// Work budget: hostile files can point many records at the same large arrays; every
// array read is charged here so the total work stays proportional to the file size.
struct work_budget {
  std::uint64_t left = 0;
  void spend(std::uint64_t bytes, std::uint64_t at, const char* what) {
    if (bytes > left)
      core::fail(code::limit_exceeded, std::string(what) + ": overlapping arrays would read more than twice the file size",
                 at);
    left -= bytes;
  }
};
// Key table at `table_offset` of `r` (offsets inside relative to r's start); key data
// must start at `data_start` and follow the canonical layout.
[[nodiscard]] key_table parse_key_table(const core::byte_reader& r, std::uint32_t table_offset,
                                        std::uint32_t data_start, work_budget* budget = nullptr,
                                        std::shared_ptr<key_arena> arena = nullptr);
// The same checks and failures as parse_key_table, no arrays copied.
[[nodiscard]] key_table_ref scan_key_table(const core::byte_reader& r, std::uint32_t table_offset, std::uint32_t data_start,
                                           work_budget* budget = nullptr);
// The arrays of a table scanned from the same reader, copied (parse_key_table = scan + read).
[[nodiscard]] key_table read_key_table(const core::byte_reader& r, const key_table_ref& ref,
                                       std::shared_ptr<key_arena> arena = nullptr);
// Element of a key array at p, big- or little-endian (T: a 1-4 byte integer), for arrays
// whose span the caller has checked (scan_key_table): one load (and a byte swap when the
// order differs from the machine's) instead of a bounds-checked byte_reader read.
namespace detail {
template <typename U>
[[nodiscard]] inline U byteswap(U v) {
  if constexpr (sizeof(U) == 1) {
    return v;
  } else {
#if defined(__GNUC__) || defined(__clang__)
    if constexpr (sizeof(U) == 2) return __builtin_bswap16(v);
    else return __builtin_bswap32(v);
#else
    U r = 0;
    for (std::size_t i = 0; i < sizeof(U); ++i) r = static_cast<U>((r << 8) | ((v >> (8 * i)) & 0xFFu));
    return r;
#endif
  }
}
}  // namespace detail
template <typename T>
[[nodiscard]] inline T load_at(const std::uint8_t* p, core::endian e) {
  static_assert(sizeof(T) == 1 || sizeof(T) == 2 || sizeof(T) == 4);
  using U = std::conditional_t<sizeof(T) == 1, std::uint8_t, std::conditional_t<sizeof(T) == 2, std::uint16_t, std::uint32_t>>;
  U v;
  std::memcpy(&v, p, sizeof v);
  if ((e == core::endian::big) != (std::endian::native == std::endian::big)) v = detail::byteswap(v);
  return static_cast<T>(v);
}
// Lowest and highest frame of any key of a scanned table whose bytes start at `data` (= frame_range
// of the parsed table).
[[nodiscard]] std::pair<int, int> frame_range(const key_table_ref& t, const std::uint8_t* data);
// Smallest and largest of n u16 values at p (big- or little-endian) folded into lo and hi:
// frame_range's accumulator (key_table.cpp) on one array; eight at a time where SSE2 exists.
void u16_min_max(const std::uint8_t* p, std::size_t n, bool big, unsigned& lo, unsigned& hi);
// Appends the key data and table starting at w.size() - origin (origin = where offsets count from).
// Returns the table offset (relative to origin).
std::uint32_t write_key_table(core::byte_writer& w, std::size_t origin, const key_table& t);

// Lowest and highest frame of any key (-1, -1 when the table is empty).
[[nodiscard]] std::pair<int, int> frame_range(const key_table& t);

// `dump --raw` JSON of a key table.
[[nodiscard]] nlohmann::json key_table_to_json(const key_table& t);

}  // namespace rigrip::sf3
