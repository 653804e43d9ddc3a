// Registration of the telltale family: Telltale Tool MetaStream .anm and .skl, with
// detection and the raw-layer entries (dump --raw, rewrite).
#include "formats/telltale/register.hpp"

#include "core/failure.hpp"
#include "formats/telltale/anm.hpp"
#include "formats/telltale/common.hpp"
#include "formats/telltale/d3dmesh.hpp"
#include "formats/telltale/d3dtx.hpp"
#include "formats/telltale/decode.hpp"
#include "formats/telltale/encode.hpp"
#include "formats/telltale/skl.hpp"
#include "formats/telltale/symbols.hpp"

namespace rigrip::telltale {

namespace {

bool is_old_stream(byte_view d) {
  if (d.size() < 4) return false;
  std::uint32_t m = std::uint32_t(d[0]) | std::uint32_t(d[1]) << 8 | std::uint32_t(d[2]) << 16 | std::uint32_t(d[3]) << 24;
  return m != magic_msv5 && m != magic_msv6 && stream_version_name(m).has_value();
}

// A MetaStream whose class table holds `cls`; an older stream version by its magic and
// the extension (it is then refused by version).
int detect_stream_of(byte_view data, std::string_view name, std::uint64_t cls, std::string_view ext) {
  metastream h;
  if (probe(data, &h)) {
    if (h.has_class(cls)) return score::magic;
    // Cut inside the class table: the name decides, the parser reports the damage.
    return h.classes.empty() && ends_with_ci(name, ext) ? score::name_only : score::none;
  }
  if (is_old_stream(data) && ends_with_ci(name, ext)) return score::magic;
  return score::none;
}

}  // namespace

// ------------------------------------------------------------------ detection

int detect_anm(byte_view data, std::string_view name) { return detect_stream_of(data, name, sym_animation, ".anm"); }
int detect_skl(byte_view data, std::string_view name) { return detect_stream_of(data, name, sym_skeleton, ".skl"); }

int detect_d3dmesh(byte_view data, std::string_view name) { return detect_stream_of(data, name, sym_d3dmesh, ".d3dmesh"); }
int detect_d3dtx(byte_view data, std::string_view name) { return detect_stream_of(data, name, sym_t3texture, ".d3dtx"); }

// ------------------------------------------------------------------ raw layer entries

result<nlohmann::json> dump_anm(const read_context& ctx) {
  return core::guarded(ctx.path, "telltale-anm", [&] { return anm_to_json(parse_animation(ctx.data)); });
}

result<bytes> rewrite_anm(const read_context& ctx) {
  return core::guarded(ctx.path, "telltale-anm", [&] { return write_animation(parse_animation(ctx.data)); });
}

result<nlohmann::json> dump_skl(const read_context& ctx) {
  return core::guarded(ctx.path, "telltale-skl", [&] { return skl_to_json(parse_skeleton(ctx.data)); });
}

result<bytes> rewrite_skl(const read_context& ctx) {
  return core::guarded(ctx.path, "telltale-skl", [&] { return write_skeleton(parse_skeleton(ctx.data)); });
}

result<nlohmann::json> dump_d3dmesh(const read_context& ctx) {
  return core::guarded(ctx.path, "telltale-d3dmesh", [&] { return d3dmesh_to_json(parse_d3dmesh(ctx.data)); });
}

result<bytes> rewrite_d3dmesh(const read_context& ctx) {
  return core::guarded(ctx.path, "telltale-d3dmesh", [&] { return write_d3dmesh(parse_d3dmesh(ctx.data)); });
}

result<nlohmann::json> dump_d3dtx(const read_context& ctx) {
  return core::guarded(ctx.path, "telltale-d3dtx", [&] { return d3dtx_to_json(parse_d3dtx(ctx.data)); });
}

result<bytes> rewrite_d3dtx(const read_context& ctx) {
  return core::guarded(ctx.path, "telltale-d3dtx", [&] { return write_d3dtx(parse_d3dtx(ctx.data)); });
}

}  // namespace rigrip::telltale

std::vector<rigrip::format> rigrip_family_telltale() {
  using namespace rigrip;
  return {
      format{"telltale-anm", "telltale",
             "Telltale Tool Animation (MetaStream MSV5/MSV6; CompressedSkeletonPoseKeys2, KeyframedValue tracks)",
             {".anm"},
             "content: MetaStream magic '6VSM'/'5VSM' (stored byte-reversed) with 'Animation' in the class table; "
             "older MTRE/MBIN/encrypted streams by magic + .anm, refused by version",
             telltale::detect_anm, telltale::read_anm, telltale::dump_anm, telltale::rewrite_anm, telltale::pack_anm},
      format{"telltale-skl", "telltale", "Telltale Tool Skeleton (MetaStream MSV5/MSV6; Skeleton::Entry list)",
             {".skl"},
             "content: MetaStream magic '6VSM'/'5VSM' with 'Skeleton' in the class table; older streams by magic + .skl",
             telltale::detect_skl, telltale::read_skl, telltale::dump_skl, telltale::rewrite_skl, telltale::pack_skl},
      format{"telltale-d3dmesh", "telltale",
             "Telltale Tool D3DMesh (MetaStream MSV5/MSV6, mVersion 37/55): LOD 0 meshes, skin, materials with sibling .d3dtx; "
             "with a .skl (--skeleton or naming rule) the whole character and its .anm",
             {".d3dmesh"},
             "content: MetaStream magic with 'D3DMesh' in the class table; older streams by magic + .d3dmesh",
             telltale::detect_d3dmesh, telltale::read_d3dmesh, telltale::dump_d3dmesh, telltale::rewrite_d3dmesh,
             telltale::pack_d3dmesh},
      format{"telltale-d3dtx", "telltale",
             "Telltale Tool T3Texture (MetaStream MSV5/MSV6, mVersion 9): BC1-BC5 (libsquish), BC7, 8-bit formats to RGBA",
             {".d3dtx"},
             "content: MetaStream magic with 'T3Texture' in the class table; older streams by magic + .d3dtx",
             telltale::detect_d3dtx, telltale::read_d3dtx, telltale::dump_d3dtx, telltale::rewrite_d3dtx, nullptr},
  };
}
