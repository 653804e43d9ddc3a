// morpheme NSA ("compressed animation source") as stored in Forgelight x64 MRN packets
// of type 0x10 or as standalone .nsa files. Raw structures (parse/serialise), decoding
// by the corrected maths of ../shared/specs/morpheme.md §8/§16, and the encoder.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/byte_reader.hpp"
#include "rigrip/scene.hpp"

namespace rigrip::morpheme {

using bytes = std::vector<std::uint8_t>;

// DequantizationFactors: value[c] = extent[c] * q[c] + min[c].
struct factors {
  std::array<float, 3> min{0, 0, 0};
  std::array<float, 3> extent{0, 0, 0};
  bool operator==(const factors&) const = default;
};

// DequantizationInfo (6 bytes): 8-bit init value per axis, then the factor set per axis.
struct deq_info {
  std::array<std::uint8_t, 3> init{0, 0, 0};
  std::array<std::uint8_t, 3> index{0, 0, 0};
  bool operator==(const deq_info&) const = default;
};

using u16x3 = std::array<std::uint16_t, 3>;

struct nsa_static {
  std::uint32_t translation_count = 0, rotation_count = 0, scale_count = 0;
  factors translation_factors, rotation_factors, scale_factors;
  // Which static layout the pointer check accepted: "fixed" (factor sets always present,
  // pointers at 0x48) or "compact" (a factor set only when its count > 0, as pydmod reads).
  std::string layout = "fixed";
  std::uint64_t unknown = 0;  // the u64 before the pointer block
  std::vector<u16x3> translations, rotations, scales;
};

struct nsa_dynamic {
  std::uint32_t sample_count = 0;
  std::uint32_t translation_count = 0, rotation_count = 0, scale_count = 0;
  std::vector<std::uint32_t> translations;  // [sample][channel], 11:11:10 words
  std::vector<u16x3> rotations;              // [sample][channel]
  std::uint32_t rotation_row_stride = 0;     // align4(6 * rotation_count)
  std::string note;                          // set when a fallback reading was used
  std::vector<deq_info> translation_info;    // align4(translation_count) entries
  std::vector<deq_info> rotation_info;       // align4(rotation_count) entries
  bool has_scale = false;
};

struct nsa_trajectory {
  std::uint32_t version = 0;
  std::array<std::uint32_t, 3> unknown{0, 0, 0};
  std::uint32_t data_length = 0, alignment = 16;
  float sample_rate = 0;
  std::uint32_t sample_count = 0;
  factors translation_factors;
  bool constant_rotation = true;
  // The hexpat/pydmod test for the union (u64 at 0x48 non-zero) agrees with the pointer test.
  bool union_tests_agree = true;
  factors rotation_factors;    // factor form
  quat rotation{0, 0, 0, 1};   // constant form (x, y, z, w)
  bool has_translation = false;  // null pointer => origin
  std::vector<std::uint32_t> translations;
  std::vector<u16x3> rotations;
};

struct nsa_file {
  std::uint32_t crc = 0;  // stored big-endian
  std::uint32_t version = 0;
  std::uint32_t static_length = 0, alignment = 16;
  float duration = 0, sample_rate = 0;
  std::uint32_t total_bones = 0, total_animated_bones = 0;
  // static T/R/S, dynamic T/R/S channel index arrays; nullopt = null pointer.
  std::array<std::optional<std::vector<std::uint16_t>>, 6> indices;
  factors translation_init_factors;
  std::vector<factors> translation_factors, rotation_factors, scale_factors;
  std::optional<nsa_static> static_segment;
  std::optional<nsa_dynamic> dynamic_segment;
  std::optional<nsa_trajectory> trajectory;
  std::uint32_t computed_crc = 0;  // CRC-32 (IEEE) of payload bytes [4, end)
};

inline constexpr std::size_t nsa_header_size = 0xC0;

// Parses one NSA payload; `r` covers exactly the payload, with absolute file offsets.
[[nodiscard]] nsa_file parse_nsa(const core::byte_reader& r);
// Serialises in the layout our writer uses (header, index arrays, factor arrays, static,
// dynamic, trajectory; 16-byte aligned blocks); the CRC field is recomputed.
[[nodiscard]] bytes serialise_nsa(const nsa_file& f);
[[nodiscard]] nlohmann::json nsa_to_json(const nsa_file& f);
// zlib/IEEE CRC-32.
[[nodiscard]] std::uint32_t crc32(std::span<const std::uint8_t> data);

// ---- maths
// The modified Rodrigues parameters' quaternion (x, y, z, w). mrp_quat_inline is the formula,
// for per-sample loops (the QSA decoder); mrp_to_quat calls it out of line (as before, so the
// Forgelight decoder's code is unchanged).
[[nodiscard]] inline quat mrp_quat_inline(const std::array<float, 3>& v) {
  float n = v[0] * v[0] + v[1] * v[1] + v[2] * v[2];
  float s = 2.0f / (1.0f + n);
  return quat{s * v[0], s * v[1], s * v[2], (1.0f - n) / (1.0f + n)};
}
[[nodiscard]] quat mrp_to_quat(const std::array<float, 3>& v);
[[nodiscard]] std::array<float, 3> quat_to_mrp(quat q);          // picks w >= 0, |v| <= 1
[[nodiscard]] std::array<std::uint32_t, 3> unpack_111110(std::uint32_t w);
[[nodiscard]] std::uint32_t pack_111110(std::uint32_t x, std::uint32_t y, std::uint32_t z);

// ---- decoded form (per channel, native units)
struct channel_samples {
  std::vector<vec3> translation;  // empty: no data; 1 element: static; else one per sample
  std::vector<quat> rotation;
};
struct nsa_decoded {
  double duration = 0;
  double sample_rate = 0;
  std::uint32_t sample_count = 0;  // dynamic samples (0 for a pure static pose)
  std::vector<channel_samples> channels;  // total_bones entries
  bool has_trajectory = false;
  double trajectory_rate = 0;
  std::vector<vec3> trajectory_translation;  // one per trajectory sample (origin when null)
  std::vector<quat> trajectory_rotation;
  std::size_t scale_channels_skipped = 0;
};
[[nodiscard]] nsa_decoded decode_nsa(const nsa_file& f);

// decode_nsa in two steps, for the scene reader: with `defer` (and two samples or more) the
// dynamic channels are left empty and named by their dynamic entry, whose samples
// fill_dynamic_* then decode straight into a track's values (sample_count * 3 or 4 floats).
// Without `defer`, `d` is decode_nsa(f).
struct nsa_plan {
  nsa_decoded d;
  std::vector<std::int32_t> dynamic_translation, dynamic_rotation;  // per channel: entry j or -1 (empty: none)
  [[nodiscard]] std::int32_t translation_entry(std::size_t c) const {
    return c < dynamic_translation.size() ? dynamic_translation[c] : -1;
  }
  [[nodiscard]] std::int32_t rotation_entry(std::size_t c) const {
    return c < dynamic_rotation.size() ? dynamic_rotation[c] : -1;
  }
};
[[nodiscard]] nsa_plan plan_nsa(const nsa_file& f, bool defer);
void fill_dynamic_translation(const nsa_file& f, std::uint32_t j, float* out);
// `continuous`: also core::make_hemisphere_continuous over the S samples (the same floats).
void fill_dynamic_rotation(const nsa_file& f, std::uint32_t j, float* out, bool continuous);

// ---- encoder input: channels with either 1 (static) or sample_count values per path.
struct nsa_input {
  double sample_rate = 30;
  std::uint32_t sample_count = 1;
  std::vector<channel_samples> channels;  // empty vectors: channel not animated
  bool has_trajectory = false;
  std::vector<vec3> trajectory_translation;  // sample_count values (or 1 / empty)
  std::vector<quat> trajectory_rotation;     // sample_count values or 1 (constant)
};
// Builds the raw structure: static/dynamic split, factor sets per axis, 8-bit init values,
// 11:11:10 and 16-bit quantisation, padded info arrays and rotation rows.
[[nodiscard]] nsa_file encode_nsa(const nsa_input& in);

}  // namespace rigrip::morpheme
