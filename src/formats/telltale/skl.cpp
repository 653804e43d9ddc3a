// Raw .skl body and its dump JSON. Layout: see README.md (and the notes §2.4).
#include "formats/telltale/skl.hpp"

#include "core/byte_reader.hpp"
#include "formats/telltale/symbols.hpp"

namespace rigrip::telltale {

using core::byte_reader;
using core::byte_writer;
using core::fail;

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
  s.ms = parse_metastream_of(file, sym_skeleton, "Skeleton", sym_animation, "this is an Animation: use --format telltale-anm",
                             "not a skeleton");
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

// ------------------------------------------------------------------ dump --raw

nlohmann::json skl_to_json(const skeleton_file& f) {
  using nlohmann::json;
  json e = json::array();
  for (const auto& x : f.entries) {
    json rg = json::array();
    for (const auto& [sym, w] : x.resource_groups) rg.push_back(json{{"group", symbol_label(sym)}, {"weight", w}});
    e.push_back(json{{"joint", hex16(x.joint)},
                     {"name", symbol_label(x.joint)},
                     {"parent", hex16(x.parent_name)},
                     {"parent_index", x.parent_index},
                     {"mirror", hex16(x.mirror_name)},
                     {"mirror_index", x.mirror_index},
                     {"local_pos", x.local_pos},
                     {"local_quat", x.local_quat},
                     {"rest_rot", x.rest.rot},
                     {"rest_trans", x.rest.trans},
                     {"global_translation_scale", x.global_translation_scale},
                     {"local_translation_scale", x.local_translation_scale},
                     {"anim_translation_scale", x.anim_translation_scale},
                     {"resource_groups", rg},
                     {"bone_type", x.bone_type},
                     {"hinge_axis", x.hinge_axis},
                     {"axis_range", {x.axis_range[0], x.axis_range[1], x.axis_range[2]}},
                     {"flags", x.flags}});
  }
  return json{{"format", "telltale-skl"}, {"entries", e}};
}

}  // namespace rigrip::telltale
