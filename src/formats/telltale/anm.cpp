// Raw .anm body and its dump JSON. Layout: see README.md (and the notes §2.5).
#include "formats/telltale/anm.hpp"

#include <bit>
#include <cstring>

#include "core/byte_reader.hpp"
#include "formats/telltale/cspk2.hpp"
#include "formats/telltale/symbols.hpp"

namespace rigrip::telltale {

using core::byte_reader;
using core::byte_writer;
using core::fail;

const char* kind_name(value_kind k) {
  switch (k) {
    case value_kind::cspk2: return "CompressedSkeletonPoseKeys2";
    case value_kind::kf_transform: return "KeyframedValue<Transform>";
    case value_kind::kf_float: return "KeyframedValue<float>";
    case value_kind::kf_bool: return "KeyframedValue<bool>";
    case value_kind::kf_vector3: return "KeyframedValue<Vector3>";
    case value_kind::kf_quaternion: return "KeyframedValue<Quaternion>";
    case value_kind::kf_phoneme: return "KeyframedValue<PhonemeKey>";
  }
  return "?";
}

std::uint64_t type_symbol(value_kind k) { return crc64(kind_name(k)); }


namespace {

constexpr value_kind all_kinds[] = {value_kind::cspk2,     value_kind::kf_transform,  value_kind::kf_float,
                                    value_kind::kf_bool,   value_kind::kf_vector3,    value_kind::kf_quaternion,
                                    value_kind::kf_phoneme};

bool kind_of(std::uint64_t type, value_kind& out) {
  for (auto k : all_kinds)
    if (type_symbol(k) == type) {
      out = k;
      return true;
    }
  return false;
}

void set_bytes(std::vector<std::uint8_t>& to, std::span<const std::uint8_t> b) { to.assign(b.begin(), b.end()); }
void set_bytes(std::span<const std::uint8_t>& to, std::span<const std::uint8_t> b) { to = b; }

// Reads one serialised T of a KeyframedValue<T>; blocked types carry their size.
std::span<const std::uint8_t> read_t(byte_reader& r, value_kind k) {
  std::size_t n = 0;
  switch (k) {
    case value_kind::kf_float: n = 4; break;
    case value_kind::kf_bool: {
      std::uint8_t b = r.u8_at(r.tell());
      if (b != '0' && b != '1') r.error(code::bad_value, "bool must be the byte '0' or '1', found " + byte_reader::hex(b));
      n = 1;
      break;
    }
    case value_kind::kf_vector3: n = 12; break;
    case value_kind::kf_quaternion: n = 16; break;
    case value_kind::kf_transform: {
      std::uint32_t b = r.u32_at(r.tell());
      if (b != 32) r.error(code::bad_value, "Transform block size " + std::to_string(b) + ", expected 32");
      n = 32;
      break;
    }
    default: {  // blocked class (PhonemeKey)
      std::uint32_t b = r.u32_at(r.tell());
      if (b < 4 || b > r.remaining())
        r.error(code::bad_count, "value block size " + std::to_string(b) + " outside 4.." + std::to_string(r.remaining()));
      n = b;
    }
  }
  return r.bytes(n);
}

template <class Bytes>
basic_anm_value<Bytes> read_value(byte_reader& r, value_kind k) {
  basic_anm_value<Bytes> v;
  v.kind = k;
  if (k == value_kind::cspk2) {
    std::uint64_t at = r.abs();
    std::uint32_t size = r.u32();
    if (size > r.remaining())
      fail(code::bad_count, "CompressedSkeletonPoseKeys2 buffer size " + std::to_string(size) + " exceeds the " +
                                std::to_string(r.remaining()) + " bytes available", at);
    v.offset = r.abs();
    set_bytes(v.cspk2, r.bytes(size));
    return v;
  }
  v.offset = r.abs();
  expect_block(r, 20, "AnimatedValueInterface");
  expect_block(r, 16, "AnimationValueInterfaceBase");
  v.kf_name = r.u64();
  v.kf_flags = r.u32();
  set_bytes(v.min_value, read_t(r, k));
  set_bytes(v.max_value, read_t(r, k));
  std::uint64_t block_at = r.abs();
  std::size_t block_start = r.tell();
  std::uint32_t block = r.u32();
  if (block < 8 || block - 4 > r.remaining())
    fail(code::bad_count, "sample array block size " + std::to_string(block) + " outside 8.." + std::to_string(r.remaining() + 4), block_at);
  std::uint32_t count = r.u32();
  // Each sample is at least 10 bytes (time, bool, tangent, 1-byte T).
  r.checked_count(count, 10, "keyframe samples");
  v.samples.reserve(count);
  for (std::uint32_t i = 0; i < count; ++i) {
    basic_kf_sample<Bytes> s;
    s.time_bits = r.u32();
    s.interpolate = r.u8();
    if (s.interpolate != '0' && s.interpolate != '1')
      fail(code::bad_value, "mbInterpolateToNextKey must be '0' or '1', found " + byte_reader::hex(s.interpolate), r.abs() - 1);
    s.tangent_mode = r.i32();
    set_bytes(s.value, read_t(r, k));
    v.samples.push_back(std::move(s));
  }
  if (r.tell() - block_start != block)
    fail(code::bad_value, "sample array block says " + std::to_string(block) + " bytes, the samples used " +
                              std::to_string(r.tell() - block_start), block_at);
  return v;
}

void write_value(byte_writer& w, const anm_value& v) {
  if (v.kind == value_kind::cspk2) {
    w.u32(static_cast<std::uint32_t>(v.cspk2.size()));
    w.bytes(v.cspk2);
    return;
  }
  w.u32(20);
  w.u32(16);
  w.u64(v.kf_name);
  w.u32(v.kf_flags);
  w.bytes(v.min_value);
  w.bytes(v.max_value);
  std::size_t at = w.size();
  w.u32(0);
  w.u32(static_cast<std::uint32_t>(v.samples.size()));
  for (const auto& s : v.samples) {
    w.u32(s.time_bits);
    w.u8(s.interpolate);
    w.i32(s.tangent_mode);
    w.bytes(s.value);
  }
  w.patch_u32(at, static_cast<std::uint32_t>(w.size() - at));
}

}  // namespace

namespace {

template <class Bytes>
basic_metastream<Bytes> animation_stream(std::span<const std::uint8_t> file);
template <>
metastream animation_stream(std::span<const std::uint8_t> file) {
  return parse_metastream_of(file, sym_animation, "Animation", sym_skeleton, "this is a Skeleton: use --format telltale-skl",
                             "not an animation");
}
template <>
metastream_view animation_stream(std::span<const std::uint8_t> file) {
  return parse_metastream_of_view(file, sym_animation, "Animation", sym_skeleton, "this is a Skeleton: use --format telltale-skl",
                                  "not an animation");
}

template <class Bytes>
basic_animation_file<Bytes> parse_as(std::span<const std::uint8_t> file) {
  basic_animation_file<Bytes> a;
  a.ms = animation_stream<Bytes>(file);
  byte_reader r(a.ms.default_section, core::endian::little, a.ms.default_offset);
  std::uint64_t ver_at = r.abs();
  a.version = r.i32();
  if (a.version <= 0)
    fail(code::unsupported_version, "Animation mVersion " + std::to_string(a.version) +
                                        " is the legacy layout (older games); only mVersion >= 1 (TWDDE uses 5) is read", ver_at);
  a.flags = r.u32();
  a.name = r.u64();
  a.length_bits = r.u32();
  a.additive_mask_bits = r.u32();
  a.tool_props = r.u8();
  if (a.tool_props != '0')
    fail(a.tool_props == '1' ? code::unsupported_feature : code::bad_value,
         a.tool_props == '1' ? "mToolProps holds a PropertySet, which is not supported"
                             : "mToolProps must be the byte '0' or '1', found " + byte_reader::hex(a.tool_props),
         r.abs() - 1);
  std::uint64_t block_at = r.abs();
  std::uint32_t block = r.u32();
  if (block != r.remaining() + 4)
    fail(code::bad_value, "Animation value block says " + std::to_string(block) + " bytes, " + std::to_string(r.remaining() + 4) +
                              " remain in the default section", block_at);
  std::uint64_t nv_at = r.abs();
  a.num_values = r.i32();
  a.data_buffer_size = r.i32();
  std::int32_t num_types = r.i32();
  if (a.num_values < 0) fail(code::bad_count, "value count " + std::to_string(a.num_values) + " is negative", nv_at);
  if (num_types < 0) fail(code::bad_count, "value type count " + std::to_string(num_types) + " is negative", nv_at + 8);
  r.checked_count(static_cast<std::uint32_t>(num_types), 12, "value type table");
  std::uint64_t total = 0;
  for (std::int32_t i = 0; i < num_types; ++i) {
    type_entry t;
    t.type = r.u64();
    t.count = r.u16();
    t.version = r.u16();
    total += t.count;
    a.types.push_back(t);
  }
  if (total != static_cast<std::uint64_t>(a.num_values))
    fail(code::bad_count, "type table counts sum to " + std::to_string(total) + " values, the header says " +
                              std::to_string(a.num_values), nv_at);
  // The value tables at the end have a fixed size, so the bodies' end is known even
  // when a body's type is unknown: u32 flags per value, u16 noNames, u64 name per value.
  std::uint64_t nv = static_cast<std::uint64_t>(a.num_values);
  r.checked_count(nv, 4, "value flag table");
  std::size_t end = r.size();
  std::size_t tail_named = static_cast<std::size_t>(nv * 12 + 2), tail_plain = static_cast<std::size_t>(nv * 4 + 2);
  std::size_t bodies_end = 0;
  bool named = false;
  if (end - r.tell() >= tail_named && r.u16_at(end - tail_named + nv * 4) == 0) {
    bodies_end = end - tail_named;
    named = true;
  } else if (end - r.tell() >= tail_plain && r.u16_at(end - 2) != 0) {
    bodies_end = end - tail_plain;
  } else {
    fail(code::bad_value, "no consistent value flag/name table at the end of the Animation block (" + std::to_string(nv) + " values)",
         r.abs());
  }
  byte_reader body = r.sub(r.tell(), bodies_end - r.tell());
  for (std::size_t ti = 0; ti < a.types.size(); ++ti) {
    value_kind k;
    if (!kind_of(a.types[ti].type, k)) {
      a.opaque_first_type = ti;
      a.opaque_offset = body.abs();
      set_bytes(a.opaque_bodies, body.bytes(body.remaining()));
      break;
    }
    for (std::uint16_t i = 0; i < a.types[ti].count; ++i) a.values.push_back(read_value<Bytes>(body, k));
  }
  if (a.opaque_bodies.empty()) a.opaque_first_type = a.types.size();
  if (!body.eof())
    fail(code::bad_value, std::to_string(body.remaining()) + " bytes between the last value body and the value flag table",
         body.abs());
  r.seek(bodies_end);
  for (std::uint64_t i = 0; i < nv; ++i) a.value_flags.push_back(r.u32());
  a.no_names = r.u16();
  if (named)
    for (std::uint64_t i = 0; i < nv; ++i) a.value_names.push_back(r.u64());
  return a;
}

}  // namespace

animation_file parse_animation(std::span<const std::uint8_t> file) { return parse_as<std::vector<std::uint8_t>>(file); }
animation_view parse_animation_view(std::span<const std::uint8_t> file) { return parse_as<std::span<const std::uint8_t>>(file); }

std::vector<std::uint8_t> write_animation(const animation_file& a) {
  byte_writer w;
  w.i32(a.version);
  w.u32(a.flags);
  w.u64(a.name);
  w.u32(a.length_bits);
  w.u32(a.additive_mask_bits);
  w.u8(a.tool_props);
  std::size_t block_at = w.size();
  w.u32(0);
  w.i32(a.num_values);
  w.i32(a.data_buffer_size);
  w.i32(static_cast<std::int32_t>(a.types.size()));
  for (const auto& t : a.types) {
    w.u64(t.type);
    w.u16(t.count);
    w.u16(t.version);
  }
  for (const auto& v : a.values) write_value(w, v);
  w.bytes(a.opaque_bodies);
  for (auto f : a.value_flags) w.u32(f);
  w.u16(a.no_names);
  if (a.no_names == 0)
    for (auto n : a.value_names) w.u64(n);
  w.patch_u32(block_at, static_cast<std::uint32_t>(w.size() - block_at));
  metastream m = a.ms;
  m.default_section = w.take();
  return write_metastream(m);
}

std::vector<class_entry> animation_class_table() {
  return {{sym_animation, 0x195C41F6u},
          {crc64("Flags"), 0x0527D6BFu},
          {crc64("Symbol"), 0xB539B0FFu},
          {crc64("KeyframedValue<Transform>"), 0xD8BEF995u},
          {crc64("AnimatedValueInterface<Transform>"), 0x71EFB71Eu},
          {crc64("AnimationValueInterfaceBase"), 0x385703CFu},
          {crc64("Transform"), 0x8E2AE740u},
          {crc64("KeyframedValue<Transform>::Sample"), 0xD7705883u}};
}

// ------------------------------------------------------------------ dump --raw

namespace {
template <class Bytes>
nlohmann::json values_json(const basic_animation_file<Bytes>& a) {
  nlohmann::json vals = nlohmann::json::array();
  std::size_t vi = 0;
  for (std::size_t ti = 0; ti < a.types.size(); ++ti) {
    bool opaque = ti >= a.opaque_first_type;
    for (std::uint16_t i = 0; i < a.types[ti].count; ++i, ++vi) {
      // Filled by emplace: json's initializer lists copy every element (also the scene
      // reader's `info` metadata, once per value and file).
      nlohmann::json::object_t v;
      v.emplace("type", hex16(a.types[ti].type));
      v.emplace("index", vi);
      if (!opaque) {
        const auto& val = a.values[vi];
        v.emplace("type_name", kind_name(val.kind));
        if (val.kind == value_kind::cspk2) v.emplace("bytes", val.cspk2.size());
        else v.emplace("keys", val.samples.size());
      } else {
        v.emplace("opaque", true);
      }
      if (vi < a.value_flags.size()) {
        v.emplace("flags", a.value_flags[vi]);
        v.emplace("kind", a.value_flags[vi] >> 24);
        v.emplace("additive", (a.value_flags[vi] & flag_additive) != 0);
      }
      if (vi < a.value_names.size()) v.emplace("name", value_label(a.value_names[vi]));
      vals.push_back(nlohmann::json(std::move(v)));
    }
  }
  return vals;
}

}  // namespace

nlohmann::json values_to_json(const animation_file& a) { return values_json(a); }
nlohmann::json values_to_json(const animation_view& a) { return values_json(a); }

nlohmann::json anm_to_json(const animation_file& a) {
  using nlohmann::json;
  json j;
  j["format"] = "telltale-anm";
  j["length"] = a.length();
  j["bones"] = json::array();
  j["keys"] = json::array();
  for (const auto& v : a.values) {
    if (v.kind != value_kind::cspk2) continue;
    auto d = decode_cspk2(v.cspk2, v.offset);
    for (auto b : d.bones) j["bones"].push_back(hex16(b));
    auto& keys = j["keys"];
    for (const auto& k : d.keys) {
      json val = k.rotation ? json::array({k.value[0], k.value[1], k.value[2], k.value[3]})
                            : json::array({k.value[0], k.value[1], k.value[2]});
      keys.push_back(json{{"bone", k.bone}, {"kind", k.rotation ? "rotation" : "translation"}, {"time", k.time}, {"value", std::move(val)}});
    }
    j["range_time"] = d.header.range_time;
    j["sample_data_size"] = d.header.sample_data_size;
    j["sample_bytes_consumed"] = d.sample_bytes_consumed;
    break;
  }
  j["name_symbol"] = hex16(a.name);
  j["values"] = values_to_json(a);
  return j;
}

}  // namespace rigrip::telltale
