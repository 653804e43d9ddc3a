// Raw layer of the Telltale T3Texture (.d3dtx) MetaStream body (mVersion 9, MSV5/MSV6):
// every field kept so that writing it back reproduces the input bytes.
#pragma once

#include <array>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "formats/telltale/metastream.hpp"

namespace rigrip::telltale {

struct texture_region {  // T3Texture::RegionStreamHeader + its bytes
  std::uint32_t face = 0, mip = 0, mip_count = 1, data_size = 0, pitch = 0, slice_pitch = 0;
  std::vector<std::uint8_t> data;
};

struct texture_file {
  metastream ms;
  std::int32_t version = 9;
  std::uint32_t sampler_state = 0;  // T3SamplerStateBlock
  std::uint32_t platform = 0;       // EnumPlatformType
  std::string name, import_name;
  float import_scale = 1;
  std::uint8_t tool_props = '0';
  std::uint32_t num_mips = 1, width = 0, height = 0, depth = 1, array_size = 1;
  std::uint32_t surface_format = 0, layout = 0, gamma = 0, multisample = 0, resource_usage = 0,
                type = 0;
  std::array<std::uint8_t, 4> swizzle{0, 1, 2, 3};
  float specular_gloss = 0, hdr_lightmap_scale = 0, toon_gradient_cutoff = 0;
  std::int32_t alpha_mode = 0, color_mode = 0;
  std::array<float, 2> uv_offset{0, 0}, uv_scale{1, 1};
  std::vector<std::uint64_t> array_frame_names;
  std::uint32_t toon_region_count = 0;
  std::vector<std::uint8_t> toon_regions;  // count x 24 bytes (Color + 2 floats)
  std::uint32_t total_size = 0;
  std::vector<texture_region> regions;
  std::vector<std::uint8_t> trailing_async;
};

inline constexpr std::uint64_t sym_t3texture = 0x3E249E7E6F38CCE2ull;  // crc64("T3Texture")

[[nodiscard]] texture_file parse_d3dtx(std::span<const std::uint8_t> file);
// The mName stored in a .d3dtx, from the first bytes of the file only (the MetaStream header
// and the start of the default section); nullopt when they are not a T3Texture.
[[nodiscard]] std::optional<std::string> peek_d3dtx_name(std::span<const std::uint8_t> head);
[[nodiscard]] std::vector<std::uint8_t> write_d3dtx(const texture_file& t);

// `dump --raw`: every header field and the region table.
[[nodiscard]] nlohmann::json d3dtx_to_json(const texture_file& t);

[[nodiscard]] const char* surface_format_name(std::uint32_t f);
// Bytes of one mip level of the format (0 when the format is not known).
[[nodiscard]] std::uint64_t surface_bytes(std::uint32_t format, std::uint32_t width,
                                          std::uint32_t height);
// Decodes `width` x `height` pixels of `format` to RGBA8 (rows top to bottom). Fails with
// E_UNSUPPORTED_FEATURE naming formats it cannot decode, E_TRUNCATED when data is short.
// BC6H (70, HDR) goes through core/image/bc6h.hpp's tone mapping (clamped to [0,1],
// sRGB-encoded); `hdr_clipped`, when given, is set to whether any value exceeded 1.
[[nodiscard]] std::vector<std::uint8_t> decode_surface(std::uint32_t format, std::uint32_t width,
                                                       std::uint32_t height,
                                                       std::span<const std::uint8_t> data,
                                                       bool* hdr_clipped = nullptr);

}  // namespace rigrip::telltale
