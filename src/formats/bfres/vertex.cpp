#include "formats/bfres/vertex.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdio>

namespace rigrip::bfres {
namespace {

float half_to_float(std::uint16_t h) {
  const std::uint32_t sign = (h >> 15) & 1u, exp = (h >> 10) & 31u, man = h & 1023u;
  float v;
  if (exp == 0) v = std::ldexp(static_cast<float>(man), -24);
  else if (exp == 31) v = man ? std::numeric_limits<float>::quiet_NaN() : std::numeric_limits<float>::infinity();
  else v = std::ldexp(static_cast<float>(man | 1024u), static_cast<int>(exp) - 25);
  return sign ? -v : v;
}
// Unsigned 11/10-bit floats (5-bit exponent, no sign) of the 10_11_11 format.
float small_float(std::uint32_t v, int mantissa_bits) {
  const std::uint32_t exp = v >> mantissa_bits, man = v & ((1u << mantissa_bits) - 1);
  if (exp == 0) return std::ldexp(static_cast<float>(man), -14 - mantissa_bits);
  if (exp == 31) return man ? std::numeric_limits<float>::quiet_NaN() : std::numeric_limits<float>::infinity();
  return std::ldexp(static_cast<float>(man | (1u << mantissa_bits)), static_cast<int>(exp) - 15 - mantissa_bits);
}

std::uint64_t read_uint(const std::uint8_t* p, int bytes, core::endian e) {
  std::uint64_t v = 0;
  for (int i = 0; i < bytes; ++i) {
    const int k = e == core::endian::big ? i : bytes - 1 - i;
    v = (v << 8) | p[k];
  }
  return v;
}

float convert(std::uint32_t raw, int bits, component_kind k) {
  const std::uint32_t mask = bits >= 32 ? 0xFFFFFFFFu : ((1u << bits) - 1);
  raw &= mask;
  const bool is_signed = k == component_kind::snorm || k == component_kind::sint || k == component_kind::sint_to_float;
  std::int64_t s = raw;
  if (is_signed && bits < 64 && (raw >> (bits - 1)) & 1u) s = static_cast<std::int64_t>(raw) - (std::int64_t{1} << bits);
  switch (k) {
    case component_kind::unorm: return static_cast<float>(static_cast<double>(raw) / mask);
    case component_kind::snorm: {
      const double max = static_cast<double>((std::int64_t{1} << (bits - 1)) - 1);
      return static_cast<float>(std::max(-1.0, static_cast<double>(s) / max));
    }
    case component_kind::uint:
    case component_kind::uint_to_float: return static_cast<float>(raw);
    case component_kind::sint:
    case component_kind::sint_to_float: return static_cast<float>(s);
    case component_kind::float_:
      if (bits == 16) return half_to_float(static_cast<std::uint16_t>(raw));
      return std::bit_cast<float>(raw);
  }
  return 0;
}

attrib_format make(std::uint8_t count, std::uint8_t bits, component_kind k) {
  attrib_format f;
  f.count = count;
  for (int i = 0; i < count; ++i) f.bits[static_cast<std::size_t>(i)] = bits;
  f.kind = k;
  return f;
}

}  // namespace

std::uint32_t attrib_format::size() const {
  if (packed) return bits[0] == 4 ? 1 : 4;
  std::uint32_t s = 0;
  for (int i = 0; i < count; ++i) s += bits[static_cast<std::size_t>(i)];
  return s / 8;
}

std::optional<attrib_format> describe_gx2_attrib(std::uint32_t format) {
  const std::uint32_t type = format >> 8, layout = format & 0xFF;
  if (format & ~0xFFFu) return std::nullopt;
  component_kind k;
  switch (type) {
    case 0x0: k = component_kind::unorm; break;
    case 0x1: k = component_kind::uint; break;
    case 0x2: k = component_kind::snorm; break;
    case 0x3: k = component_kind::sint; break;
    case 0x8: k = component_kind::uint_to_float; break;  // float layouts are told apart below
    case 0xA: k = component_kind::sint_to_float; break;
    default: return std::nullopt;
  }
  const bool flt = type == 0x8;
  switch (layout) {
    case 0x00: return make(1, 8, k);
    case 0x01:
      if (type != 0) return std::nullopt;
      {
        attrib_format f = make(2, 4, k);
        f.packed = true;
        return f;
      }
    case 0x02: return make(1, 16, k);
    case 0x03: return flt ? std::optional(make(1, 16, component_kind::float_)) : std::nullopt;
    case 0x04: return make(2, 8, k);
    case 0x05: return (type == 1 || type == 3) ? std::optional(make(1, 32, k)) : std::nullopt;
    case 0x06: return flt ? std::optional(make(1, 32, component_kind::float_)) : std::nullopt;
    case 0x07: return make(2, 16, k);
    case 0x08: return flt ? std::optional(make(2, 16, component_kind::float_)) : std::nullopt;
    case 0x09: {
      if (!flt) return std::nullopt;
      attrib_format f;
      f.count = 3;
      f.bits = {11, 11, 10, 0};
      f.packed = true;
      f.kind = component_kind::float_;
      return f;
    }
    case 0x0A: return make(4, 8, k);
    case 0x0B: {
      if (type > 3) return std::nullopt;
      attrib_format f;
      f.count = 4;
      f.bits = {10, 10, 10, 2};
      f.packed = true;
      f.kind = k;
      return f;
    }
    case 0x0C: return (type == 1 || type == 3) ? std::optional(make(2, 32, k)) : std::nullopt;
    case 0x0D: return flt ? std::optional(make(2, 32, component_kind::float_)) : std::nullopt;
    case 0x0E: return make(4, 16, k);
    case 0x0F: return flt ? std::optional(make(4, 16, component_kind::float_)) : std::nullopt;
    case 0x10: return (type == 1 || type == 3) ? std::optional(make(3, 32, k)) : std::nullopt;
    case 0x11: return flt ? std::optional(make(3, 32, component_kind::float_)) : std::nullopt;
    case 0x12: return (type == 1 || type == 3) ? std::optional(make(4, 32, k)) : std::nullopt;
    case 0x13: return flt ? std::optional(make(4, 32, component_kind::float_)) : std::nullopt;
    default: return std::nullopt;
  }
}

std::optional<attrib_format> describe_switch_attrib(std::uint32_t format) {
  if (format & ~0xFFFFu) return std::nullopt;
  const std::uint32_t channels = format >> 8, type = format & 0xFF;
  component_kind k;
  switch (type) {
    case 1: k = component_kind::unorm; break;
    case 2: k = component_kind::snorm; break;
    case 3: k = component_kind::uint; break;
    case 4: k = component_kind::sint; break;
    case 5: k = component_kind::float_; break;
    case 8: k = component_kind::uint_to_float; break;
    case 9: k = component_kind::sint_to_float; break;
    default: return std::nullopt;
  }
  const bool flt = k == component_kind::float_;
  const bool integer32 = k == component_kind::uint || k == component_kind::sint;
  switch (channels) {
    case 0x01: {  // 4_4 (unorm only)
      if (k != component_kind::unorm) return std::nullopt;
      attrib_format f = make(2, 4, k);
      f.packed = true;
      return f;
    }
    case 0x02: return flt ? std::nullopt : std::optional(make(1, 8, k));
    case 0x09: return flt ? std::nullopt : std::optional(make(2, 8, k));
    case 0x0A: return make(1, 16, k);
    case 0x0B: return flt ? std::nullopt : std::optional(make(4, 8, k));
    case 0x0E: {  // 10_10_10_2: unorm, snorm, uint, sint
      if (type < 1 || type > 4) return std::nullopt;
      attrib_format f;
      f.count = 4;
      f.bits = {10, 10, 10, 2};
      f.packed = true;
      f.kind = k;
      return f;
    }
    case 0x12: return make(2, 16, k);
    case 0x14: return flt || integer32 ? std::optional(make(1, 32, k)) : std::nullopt;
    case 0x15: return make(4, 16, k);
    case 0x17: return flt || integer32 ? std::optional(make(2, 32, k)) : std::nullopt;
    case 0x18: return flt || integer32 ? std::optional(make(3, 32, k)) : std::nullopt;
    case 0x19: return flt || integer32 ? std::optional(make(4, 32, k)) : std::nullopt;
    default: return std::nullopt;
  }
}

std::string switch_attrib_name(std::uint32_t format) {
  char buf[48];
  auto f = describe_switch_attrib(format);
  static const char* kinds[] = {"unorm", "snorm", "uint", "sint", "float", "uint_to_float", "sint_to_float"};
  if (!f) {
    std::snprintf(buf, sizeof buf, "0x%X", format);
    return buf;
  }
  std::string s;
  for (int i = 0; i < f->count; ++i) s += (i ? "_" : "") + std::to_string(f->bits[static_cast<std::size_t>(i)]);
  std::snprintf(buf, sizeof buf, " %s (0x%X)", kinds[static_cast<int>(f->kind)], format);
  return s + buf;
}

std::string gx2_attrib_name(std::uint32_t format) {
  char buf[48];
  auto f = describe_gx2_attrib(format);
  static const char* kinds[] = {"unorm", "snorm", "uint", "sint", "float", "uint_to_float", "sint_to_float"};
  if (!f) {
    std::snprintf(buf, sizeof buf, "0x%X", format);
    return buf;
  }
  std::string s;
  for (int i = 0; i < f->count; ++i) s += (i ? "_" : "") + std::to_string(f->bits[static_cast<std::size_t>(i)]);
  std::snprintf(buf, sizeof buf, " %s (0x%X)", kinds[static_cast<int>(f->kind)], format);
  return s + buf;
}

std::array<float, 4> decode_attrib(const attrib_format& f, const std::uint8_t* p, core::endian e) {
  std::array<float, 4> out{0, 0, 0, 1};
  if (f.packed) {
    if (f.bits[0] == 4) {  // 4_4 in one byte: x in the low nibble
      out[0] = convert(p[0] & 15u, 4, f.kind);
      out[1] = convert(p[0] >> 4, 4, f.kind);
      return out;
    }
    const auto w = static_cast<std::uint32_t>(read_uint(p, 4, e));
    if (f.bits[0] == 11) {  // 10_11_11 float: x 11 bits, y 11 bits, z 10 bits from the low end
      out[0] = small_float(w & 2047u, 6);
      out[1] = small_float((w >> 11) & 2047u, 6);
      out[2] = small_float(w >> 22, 5);
      return out;
    }
    // 10_10_10_2: x in the low bits; w is unsigned 2 bits even in the signed formats.
    for (int i = 0; i < 3; ++i) out[static_cast<std::size_t>(i)] = convert((w >> (10 * i)) & 1023u, 10, f.kind);
    const component_kind wk = f.kind == component_kind::snorm ? component_kind::unorm
                              : f.kind == component_kind::sint ? component_kind::uint : f.kind;
    out[3] = convert(w >> 30, 2, wk);
    return out;
  }
  std::size_t at = 0;
  for (int i = 0; i < f.count; ++i) {
    const int bits = f.bits[static_cast<std::size_t>(i)];
    const auto raw = static_cast<std::uint32_t>(read_uint(p + at, bits / 8, e));
    out[static_cast<std::size_t>(i)] = convert(raw, bits, f.kind);
    at += static_cast<std::size_t>(bits / 8);
  }
  return out;
}

}  // namespace rigrip::bfres
