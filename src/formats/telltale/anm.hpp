// Raw layer of the Telltale Animation (.anm) MetaStream body: every field kept so that
// writing it back reproduces the input bytes; and its `dump --raw` JSON.
#pragma once

#include <bit>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "formats/telltale/metastream.hpp"

namespace rigrip::telltale {

enum class value_kind { cspk2, kf_transform, kf_float, kf_bool, kf_vector3, kf_quaternion, kf_phoneme };

[[nodiscard]] const char* kind_name(value_kind k);
[[nodiscard]] std::uint64_t type_symbol(value_kind k);  // crc64 of the type name

// Value flag bit of an additive animation's values.
inline constexpr std::uint32_t flag_additive = 0x00010000u;

// Bytes: std::vector<std::uint8_t> (owning) or std::span<const std::uint8_t> (views into
// the parsed file, see basic_metastream).
template <class Bytes>
struct basic_kf_sample {
  std::uint32_t time_bits = 0;        // f32 mTime
  std::uint8_t interpolate = '1';     // bool mbInterpolateToNextKey ('0'/'1')
  std::int32_t tangent_mode = 0;
  Bytes value{};                      // T as serialised (a blocked T includes its block)
  [[nodiscard]] float time() const { return std::bit_cast<float>(time_bits); }
};

template <class Bytes>
struct basic_anm_value {
  value_kind kind = value_kind::cspk2;
  Bytes cspk2{};                      // CSPK2 buffer (after its u32 size)
  std::uint64_t offset = 0;           // file offset of the body (of the CSPK2 buffer), for messages
  // KeyframedValue<T>
  std::uint64_t kf_name = 0;
  std::uint32_t kf_flags = 0;
  Bytes min_value{}, max_value{};
  std::vector<basic_kf_sample<Bytes>> samples;
};

struct type_entry {
  std::uint64_t type = 0;
  std::uint16_t count = 0;
  std::uint16_t version = 0;
};

template <class Bytes>
struct basic_animation_file {
  basic_metastream<Bytes> ms;
  std::int32_t version = 5;
  std::uint32_t flags = 0;
  std::uint64_t name = 0;
  std::uint32_t length_bits = 0;        // f32 mLength
  std::uint32_t additive_mask_bits = 0; // f32 mAdditiveMask
  std::uint8_t tool_props = '0';
  std::int32_t num_values = 0;
  std::int32_t data_buffer_size = 0;
  std::vector<type_entry> types;
  std::vector<basic_anm_value<Bytes>> values;  // bodies in type order, up to the first unknown type
  Bytes opaque_bodies{};                // bodies from the first unknown type on, kept as bytes
  std::size_t opaque_first_type = 0;    // index into types where opaque_bodies starts
  std::uint64_t opaque_offset = 0;      // file offset of opaque_bodies
  std::vector<std::uint32_t> value_flags;
  std::uint16_t no_names = 0;
  std::vector<std::uint64_t> value_names;
  [[nodiscard]] float length() const { return std::bit_cast<float>(length_bits); }
};

using kf_sample = basic_kf_sample<std::vector<std::uint8_t>>;
using anm_value = basic_anm_value<std::vector<std::uint8_t>>;
using animation_file = basic_animation_file<std::vector<std::uint8_t>>;
// The scene reader's parse: every byte field a view into the file (no copy per buffer or
// per sample).
using anm_value_view = basic_anm_value<std::span<const std::uint8_t>>;
using animation_view = basic_animation_file<std::span<const std::uint8_t>>;

// Values in the type table whose bodies were kept opaque are listed but not decoded.
[[nodiscard]] animation_file parse_animation(std::span<const std::uint8_t> file);
// The same parse (same checks and failures) with views into `file`, which must outlive it.
[[nodiscard]] animation_view parse_animation_view(std::span<const std::uint8_t> file);
[[nodiscard]] std::vector<std::uint8_t> write_animation(const animation_file& a);

// Class table our animation writer emits (version CRCs as the sample .anm files carry them).
[[nodiscard]] std::vector<class_entry> animation_class_table();

// `dump --raw`: the value table (also `info` metadata), and the whole file with the
// decoded CSPK2 keys.
[[nodiscard]] nlohmann::json values_to_json(const animation_file& a);
[[nodiscard]] nlohmann::json values_to_json(const animation_view& a);
[[nodiscard]] nlohmann::json anm_to_json(const animation_file& a);

}  // namespace rigrip::telltale
