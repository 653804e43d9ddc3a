// Raw .anm / .skl bodies. Layout: see README.md (and the notes §2.4/§2.5).
#include "formats/telltale/anm.hpp"

#include <bit>
#include <cstring>

#include "core/byte_reader.hpp"
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

float kf_sample::time() const { return std::bit_cast<float>(time_bits); }
float animation_file::length() const { return std::bit_cast<float>(length_bits); }

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

// Reads one serialised T of a KeyframedValue<T>; blocked types carry their size.
std::vector<std::uint8_t> read_t(byte_reader& r, value_kind k) {
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
  auto s = r.bytes(n);
  return {s.begin(), s.end()};
}

void expect_block(byte_reader& r, std::uint32_t want, const char* what) {
  std::uint64_t at = r.abs();
  std::uint32_t b = r.u32();
  if (b != want)
    fail(code::bad_value, std::string(what) + " block size " + std::to_string(b) + ", expected " + std::to_string(want), at);
}

anm_value read_value(byte_reader& r, value_kind k) {
  anm_value v;
  v.kind = k;
  if (k == value_kind::cspk2) {
    std::uint64_t at = r.abs();
    std::uint32_t size = r.u32();
    if (size > r.remaining())
      fail(code::bad_count, "CompressedSkeletonPoseKeys2 buffer size " + std::to_string(size) + " exceeds the " +
                                std::to_string(r.remaining()) + " bytes available", at);
    v.offset = r.abs();
    auto b = r.bytes(size);
    v.cspk2.assign(b.begin(), b.end());
    return v;
  }
  v.offset = r.abs();
  expect_block(r, 20, "AnimatedValueInterface");
  expect_block(r, 16, "AnimationValueInterfaceBase");
  v.kf_name = r.u64();
  v.kf_flags = r.u32();
  v.min_value = read_t(r, k);
  v.max_value = read_t(r, k);
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
    kf_sample s;
    s.time_bits = r.u32();
    s.interpolate = r.u8();
    if (s.interpolate != '0' && s.interpolate != '1')
      fail(code::bad_value, "mbInterpolateToNextKey must be '0' or '1', found " + byte_reader::hex(s.interpolate), r.abs() - 1);
    s.tangent_mode = r.i32();
    s.value = read_t(r, k);
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

transform decode_transform(std::span<const std::uint8_t> v) {
  byte_reader r(v);
  transform t;
  r.skip(4);
  for (float& f : t.rot) f = r.f32();
  for (float& f : t.trans) f = r.f32();
  return t;
}

std::vector<std::uint8_t> encode_transform(const transform& t) {
  byte_writer w;
  w.u32(32);
  for (float f : t.rot) w.f32(f);
  for (float f : t.trans) w.f32(f);
  return w.take();
}

animation_file parse_animation(std::span<const std::uint8_t> file) {
  animation_file a;
  a.ms = parse_metastream(file);
  if (!a.ms.has_class(sym_animation))
    fail(code::bad_value, "the MetaStream class table has no 'Animation' class (" +
                              std::string(a.ms.has_class(crc64("D3DMesh")) ? "this is a D3DMesh: meshes are not supported yet"
                                          : a.ms.has_class(sym_skeleton) ? "this is a Skeleton: use --format telltale-skl"
                                                                          : "not an animation") + ")", 20);
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
      auto rest = body.bytes(body.remaining());
      a.opaque_bodies.assign(rest.begin(), rest.end());
      break;
    }
    for (std::uint16_t i = 0; i < a.types[ti].count; ++i) a.values.push_back(read_value(body, k));
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

// ------------------------------------------------------------------ skeleton

namespace {
void f3(byte_reader& r, float (&v)[3]) {
  for (float& f : v) f = r.f32();
}
void w3(byte_writer& w, const float (&v)[3]) {
  for (float f : v) w.f32(f);
}
}  // namespace

skeleton_file parse_skeleton(std::span<const std::uint8_t> file) {
  skeleton_file s;
  s.ms = parse_metastream(file);
  if (!s.ms.has_class(sym_skeleton))
    fail(code::bad_value, "the MetaStream class table has no 'Skeleton' class (" +
                              std::string(s.ms.has_class(crc64("D3DMesh")) ? "this is a D3DMesh: meshes are not supported yet"
                                          : s.ms.has_class(sym_animation) ? "this is an Animation: use --format telltale-anm"
                                                                           : "not a skeleton") + ")", 20);
  byte_reader r(s.ms.default_section, core::endian::little, s.ms.default_offset);
  std::uint64_t at = r.abs();
  std::uint32_t block = r.u32();
  if (block < 8 || block - 4 > r.remaining())
    fail(code::bad_count, "entry array block size " + std::to_string(block) + " outside 8.." + std::to_string(r.remaining() + 4), at);
  std::uint32_t count = r.u32();
  r.checked_count(count, 188, "skeleton entries");
  for (std::uint32_t i = 0; i < count; ++i) {
    skl_entry e;
    std::uint64_t eat = r.abs();
    e.joint = r.u64();
    e.parent_name = r.u64();
    e.parent_index = r.i32();
    e.mirror_name = r.u64();
    e.mirror_index = r.i32();
    if (e.parent_index < -1 || e.parent_index >= static_cast<std::int32_t>(i))
      fail(code::bad_value, "entry " + std::to_string(i) + " parent index " + std::to_string(e.parent_index) +
                                " must be -1 or an earlier entry", eat + 16);
    f3(r, e.local_pos);
    for (float& f : e.local_quat) f = r.f32();
    auto t = r.bytes(4);
    if (t[0] != 32 || t[1] || t[2] || t[3]) fail(code::bad_value, "mRestXform block size must be 32", r.abs() - 4);
    r.seek(r.tell() - 4);
    e.rest = decode_transform(r.bytes(32));
    f3(r, e.global_translation_scale);
    f3(r, e.local_translation_scale);
    f3(r, e.anim_translation_scale);
    std::uint64_t mat = r.abs();
    std::uint32_t mblock = r.u32();
    std::uint32_t n = r.u32();
    r.checked_count(n, 12, "resource group map");
    if (mblock != 8 + 12ull * n)
      fail(code::bad_value, "resource group map block " + std::to_string(mblock) + ", expected 8 + 12 x " + std::to_string(n), mat);
    for (std::uint32_t k = 0; k < n; ++k) {
      std::uint64_t sym = r.u64();
      e.resource_groups.emplace_back(sym, r.f32());
    }
    expect_block(r, 48, "BoneContraints");
    e.bone_type = r.i32();
    f3(r, e.hinge_axis);
    expect_block(r, 28, "mAxisRange");
    for (auto& rg : e.axis_range) rg[0] = r.f32(), rg[1] = r.f32();
    e.flags = r.u32();
    s.entries.push_back(std::move(e));
  }
  if (r.tell() != block)
    fail(code::bad_value, "entry array block says " + std::to_string(block) + " bytes, the entries used " + std::to_string(r.tell()), at);
  if (!r.eof())
    fail(code::bad_value, std::to_string(r.remaining()) + " unexpected bytes after the skeleton entries", r.abs());
  return s;
}

std::vector<std::uint8_t> write_skeleton(const skeleton_file& s) {
  byte_writer w;
  w.u32(0);
  w.u32(static_cast<std::uint32_t>(s.entries.size()));
  for (const auto& e : s.entries) {
    w.u64(e.joint);
    w.u64(e.parent_name);
    w.i32(e.parent_index);
    w.u64(e.mirror_name);
    w.i32(e.mirror_index);
    w3(w, e.local_pos);
    for (float f : e.local_quat) w.f32(f);
    w.bytes(encode_transform(e.rest));
    w3(w, e.global_translation_scale);
    w3(w, e.local_translation_scale);
    w3(w, e.anim_translation_scale);
    w.u32(static_cast<std::uint32_t>(8 + 12 * e.resource_groups.size()));
    w.u32(static_cast<std::uint32_t>(e.resource_groups.size()));
    for (const auto& [sym, weight] : e.resource_groups) {
      w.u64(sym);
      w.f32(weight);
    }
    w.u32(48);
    w.i32(e.bone_type);
    w3(w, e.hinge_axis);
    w.u32(28);
    for (const auto& rg : e.axis_range) w.f32(rg[0]), w.f32(rg[1]);
    w.u32(e.flags);
  }
  w.patch_u32(0, static_cast<std::uint32_t>(w.size()));
  metastream m = s.ms;
  m.default_section = w.take();
  m.debug_section.clear();
  m.async_section.clear();
  return write_metastream(m);
}

std::vector<class_entry> skeleton_class_table() {
  // Version CRCs: Skeleton and Skeleton::Entry from the notes (TTK TWDDE vdb); the others
  // as the sample .anm class tables carry them.
  return {{sym_skeleton, 1563143003u}, {crc64("Skeleton::Entry"), 623317840u},
          {crc64("Symbol"), 0xB539B0FFu}, {crc64("Transform"), 0x8E2AE740u}, {crc64("Flags"), 0x0527D6BFu}};
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

}  // namespace rigrip::telltale
