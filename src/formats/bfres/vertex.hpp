// Vertex attribute formats of BFRES vertex buffers, described independently of the
// platform's enum (Wii U GX2AttribFormat here; the Switch's formats map onto the same
// description), and decoded to floats.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>

#include "core/byte_reader.hpp"

namespace rigrip::bfres {

enum class component_kind { unorm, snorm, uint, sint, float_, uint_to_float, sint_to_float };

struct attrib_format {
  std::uint8_t count = 0;                 // components, 1..4
  std::array<std::uint8_t, 4> bits{};     // bits per component (packed formats differ per component)
  bool packed = false;                    // components packed in one 32-bit word (10_10_10_2, 10_11_11, 4_4)
  component_kind kind = component_kind::float_;
  [[nodiscard]] std::uint32_t size() const;  // bytes per vertex
};

// GX2AttribFormat -> description, or nothing for a value the decoder does not know.
[[nodiscard]] std::optional<attrib_format> describe_gx2_attrib(std::uint32_t format);
[[nodiscard]] std::string gx2_attrib_name(std::uint32_t format);
// Switch: nn::gfx AttributeFormat (u32: channel layout << 8 | type; e.g. 0x0B01 unorm
// 8_8_8_8, 0x1805 float 32_32_32) -> description, or nothing.
[[nodiscard]] std::optional<attrib_format> describe_switch_attrib(std::uint32_t format);
[[nodiscard]] std::string switch_attrib_name(std::uint32_t format);

// Decodes one element at `p` (at least size() bytes): unused components are 0 (w = 1
// for count < 4). Normalised kinds give [0,1] / [-1,1]; integer kinds their values.
[[nodiscard]] std::array<float, 4> decode_attrib(const attrib_format& f, const std::uint8_t* p, core::endian e);

}  // namespace rigrip::bfres
