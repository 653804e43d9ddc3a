// Registration of the telltale family: Telltale Tool MetaStream .anm and .skl, with
// detection and the raw-layer entries (dump --raw, rewrite).
#include "formats/telltale/register.hpp"

#include "core/failure.hpp"
#include "formats/telltale/anm.hpp"
#include "formats/telltale/common.hpp"
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
  };
}
