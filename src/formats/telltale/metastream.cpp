#include "formats/telltale/metastream.hpp"

#include <algorithm>

#include "core/byte_reader.hpp"
#include "formats/telltale/symbols.hpp"

namespace rigrip::telltale {

std::optional<std::string> stream_version_name(std::uint32_t magic) {
  switch (magic) {
    case 0x4D535636: return "MSV6 (stream version 6)";
    case 0x4D535635: return "MSV5 (stream version 5)";
    case 0x4D535634: case 0x4D535356: return "MSV4 (stream version 4)";
    case 0x4D545245: return "MTRE (stream version 3)";
    case 0x64AFDEAA: return "encrypted MTRE (stream version 3)";
    case 0x4D434F4D: return "MCOM (zlib-compressed stream)";
    case 0x4D42494E: return "MBIN (stream version 1)";
    case 0x4D424553: return "MBES (Blowfish-encrypted MBIN, stream version 1)";
    case 0xFB4A1764: case 0xEB794091: case 0x64AFDEFB: return "encrypted MBIN (stream version 2)";
    default: return std::nullopt;
  }
}

namespace {
constexpr std::uint32_t max_classes = 1024;  // TTK's own sanity bound
}

bool probe(std::span<const std::uint8_t> data, metastream* out) {
  // Lenient on purpose: a truncated file with a MetaStream magic is still ours, so
  // the parser (not "unknown format") reports where it ends.
  if (data.size() < 20) return false;
  core::byte_reader r(data);
  std::uint32_t magic = r.u32();
  if (magic != magic_msv6 && magic != magic_msv5) return false;
  r.skip(12);
  std::uint32_t n = r.u32();
  if (n >= max_classes) return false;
  if (out) {
    out->magic = magic;
    out->classes.clear();
    for (std::uint32_t i = 0; i < n && r.remaining() >= 12; ++i) {
      class_entry c;
      c.type = r.u64();
      c.version = r.u32();
      out->classes.push_back(c);
    }
  }
  return true;
}

namespace {

void set_bytes(std::vector<std::uint8_t>& to, std::span<const std::uint8_t> b) { to.assign(b.begin(), b.end()); }
void set_bytes(std::span<const std::uint8_t>& to, std::span<const std::uint8_t> b) { to = b; }

template <class Bytes>
basic_metastream<Bytes> parse_as(std::span<const std::uint8_t> data) {
  core::byte_reader r(data);
  if (data.size() < 4) core::fail(code::truncated, "file of " + std::to_string(data.size()) + " bytes is too small for a MetaStream magic", 0);
  std::uint32_t magic = r.u32();
  if (magic != magic_msv6 && magic != magic_msv5) {
    if (auto v = stream_version_name(magic))
      core::fail(code::unsupported_version,
                 "MetaStream " + *v + " is recognised but not supported; only MSV5 and MSV6 (2014+ Telltale Tool games) are read", 0);
    core::fail(code::bad_magic, "expected a MetaStream magic ('6VSM' or '5VSM' on disk), found " + core::byte_reader::hex(magic), 0);
  }
  basic_metastream<Bytes> m;
  m.magic = magic;
  std::uint32_t size[3];
  const char* names[3] = {"default", "debug", "async"};
  for (auto& s : size) s = r.u32();
  for (int i = 0; i < 3; ++i)
    if (size[i] & 0x80000000u)
      core::fail(code::unsupported_feature,
                 std::string(names[i]) + " section is compressed (size bit 31 set); compressed MetaStream sections are not supported", 4 + 4 * i);
  std::uint32_t n = r.u32();
  if (n >= max_classes)
    core::fail(code::bad_count, "class table count " + std::to_string(n) + " exceeds the limit of 1023", 16);
  r.checked_count(n, 12, "class table");
  m.classes.reserve(n);
  for (std::uint32_t i = 0; i < n; ++i) {
    class_entry c;
    c.type = r.u64();
    c.version = r.u32();
    m.classes.push_back(c);
  }
  std::uint64_t total = std::uint64_t{size[0]} + size[1] + size[2];
  if (total != r.remaining())
    core::fail(total > r.remaining() ? code::truncated : code::bad_value,
               "section sizes " + std::to_string(size[0]) + "+" + std::to_string(size[1]) + "+" + std::to_string(size[2]) +
                   " = " + std::to_string(total) + " bytes do not match the " + std::to_string(r.remaining()) +
                   " bytes after the header",
               r.abs());
  m.default_offset = r.abs();
  set_bytes(m.default_section, r.bytes(size[0]));
  set_bytes(m.debug_section, r.bytes(size[1]));
  set_bytes(m.async_section, r.bytes(size[2]));
  return m;
}

template <class Bytes>
basic_metastream<Bytes> parse_of_as(std::span<const std::uint8_t> data, std::uint64_t cls, std::string_view cls_name,
                                    std::uint64_t other, std::string_view other_is, std::string_view neither) {
  basic_metastream<Bytes> m = parse_as<Bytes>(data);
  if (!m.has_class(cls))
    core::fail(code::bad_value, "the MetaStream class table has no '" + std::string(cls_name) + "' class (" +
                                    std::string(m.has_class(crc64("D3DMesh")) ? "this is a D3DMesh: read it as telltale-d3dmesh"
                                                : m.has_class(crc64("T3Texture")) ? "this is a T3Texture: read it as telltale-d3dtx"
                                                : m.has_class(other)          ? other_is
                                                                              : neither) + ")", 20);
  return m;
}

}  // namespace

metastream parse_metastream(std::span<const std::uint8_t> data) { return parse_as<std::vector<std::uint8_t>>(data); }
metastream_view parse_metastream_view(std::span<const std::uint8_t> data) { return parse_as<std::span<const std::uint8_t>>(data); }

std::vector<std::uint8_t> write_metastream(const metastream& m) {
  core::byte_writer w;
  w.u32(m.magic);
  w.u32(static_cast<std::uint32_t>(m.default_section.size()));
  w.u32(static_cast<std::uint32_t>(m.debug_section.size()));
  w.u32(static_cast<std::uint32_t>(m.async_section.size()));
  w.u32(static_cast<std::uint32_t>(m.classes.size()));
  for (const auto& c : m.classes) {
    w.u64(c.type);
    w.u32(c.version);
  }
  w.bytes(m.default_section);
  w.bytes(m.debug_section);
  w.bytes(m.async_section);
  return w.take();
}

metastream parse_metastream_of(std::span<const std::uint8_t> data, std::uint64_t cls, std::string_view cls_name,
                              std::uint64_t other, std::string_view other_is, std::string_view neither) {
  return parse_of_as<std::vector<std::uint8_t>>(data, cls, cls_name, other, other_is, neither);
}
metastream_view parse_metastream_of_view(std::span<const std::uint8_t> data, std::uint64_t cls, std::string_view cls_name,
                                         std::uint64_t other, std::string_view other_is, std::string_view neither) {
  return parse_of_as<std::span<const std::uint8_t>>(data, cls, cls_name, other, other_is, neither);
}

transform decode_transform(std::span<const std::uint8_t> v) {
  core::byte_reader r(v);
  transform t;
  r.skip(4);
  for (float& f : t.rot) f = r.f32();
  for (float& f : t.trans) f = r.f32();
  return t;
}

std::vector<std::uint8_t> encode_transform(const transform& t) {
  core::byte_writer w;
  w.u32(32);
  for (float f : t.rot) w.f32(f);
  for (float f : t.trans) w.f32(f);
  return w.take();
}

void expect_block(core::byte_reader& r, std::uint32_t want, const char* what) {
  std::uint64_t at = r.abs();
  std::uint32_t b = r.u32();
  if (b != want)
    core::fail(code::bad_value, std::string(what) + " block size " + std::to_string(b) + ", expected " + std::to_string(want), at);
}

}  // namespace rigrip::telltale
