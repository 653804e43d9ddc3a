// Registration of the morpheme family: Forgelight (PlanetSide 2, H1Z1) x64 MRN packet
// files, morpheme 5 runtime bundles (.nmb, x64 and win32) and standalone NSA / QSA animations.
#include <cmath>
#include <cstring>

#include "core/failure.hpp"
#include "formats/morpheme/decode.hpp"
#include "formats/morpheme/decode_sdk.hpp"
#include "formats/morpheme/encode.hpp"
#include "formats/morpheme/encode_nsa5.hpp"
#include "rigrip/registry.hpp"

namespace rigrip::morpheme {
namespace {

bool ends_with_ci(std::string_view s, std::string_view suffix) {
  if (s.size() < suffix.size()) return false;
  for (std::size_t i = 0; i < suffix.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(s[s.size() - suffix.size() + i])) != suffix[i]) return false;
  return true;
}

int detect_mrn(byte_view d, std::string_view name) {
  if (looks_like_x64_mrn(d)) return score::magic;
  if (ends_with_ci(name, ".mrn")) return score::name_only;
  return score::none;
}

int detect_nmb(byte_view d, std::string_view name) {
  if (looks_like_sdk_bundle(d)) return score::magic;
  if (ends_with_ci(name, ".nmb")) return score::name_only;
  return score::none;
}

bool is_source5(byte_view d, std::uint32_t type) {
  auto p = probe_source5(d);
  return p && p->type == type;
}

// A standalone NSA has no magic: the header structure must check out.
bool nsa_structure(byte_view d) {
  if (d.size() < nsa_header_size) return false;
  core::byte_reader r(d);
  for (int i = 0x08; i < 0x10; ++i)
    if (d[static_cast<std::size_t>(i)] != 0) return false;
  std::uint32_t al = r.u32_at(0x14);
  if (al == 0 || al > 256 || (al & (al - 1))) return false;
  float dur = r.f32_at(0x18), rate = r.f32_at(0x1C);
  if (!std::isfinite(dur) || dur < 0 || dur > 1e5f || !std::isfinite(rate) || rate < 0 || rate > 1e4f) return false;
  if (r.u32_at(0x20) > 65536 || r.u32_at(0x24) > r.u32_at(0x20)) return false;
  for (std::uint64_t off = 0x28; off < 0x58; off += 8) {
    auto p = r.u64_at(off);
    if (p && (p < nsa_header_size || p >= d.size())) return false;
  }
  for (std::uint64_t off = 0x88; off < 0xB8; off += 8) {
    auto p = r.u64_at(off);
    if (p && (p < nsa_header_size || p >= d.size())) return false;
  }
  for (int i = 0x70; i < 0x78; ++i)
    if (d[static_cast<std::size_t>(i)] != 0) return false;
  return true;
}

int detect_nsa(byte_view d, std::string_view name) {
  if (nsa_structure(d) || is_source5(d, source_type_nsa)) return score::structure;
  if (ends_with_ci(name, ".nsa")) return score::name_only;
  return score::none;
}

int detect_qsa(byte_view d, std::string_view name) {
  if (is_source5(d, source_type_qsa)) return score::structure;
  if (ends_with_ci(name, ".qsa")) return score::name_only;
  return score::none;
}

result<scene> read_mrn(const read_context& ctx) { return read_mrn_scene(ctx); }
result<scene> read_nmb(const read_context& ctx) { return read_nmb_scene(ctx); }
// A runtime-5 NSA (the SDK's) or a Forgelight one.
result<scene> read_nsa(const read_context& ctx) {
  return is_source5(ctx.data, source_type_nsa) ? read_source5_scene(ctx) : read_nsa_scene(ctx);
}
result<scene> read_qsa(const read_context& ctx) { return read_source5_scene(ctx); }

result<nlohmann::json> dump_mrn(const read_context& ctx) {
  auto f = parse_mrn(ctx.data);
  return f.variant == bundle_variant::forgelight_x64 ? mrn_to_json(f) : nmb_to_json(f);
}
result<nlohmann::json> dump_nsa(const read_context& ctx) {
  auto j = is_source5(ctx.data, source_type_nsa) ? nsa5_to_json(parse_nsa5(core::byte_reader(ctx.data)))
                                                 : nsa_to_json(parse_nsa(core::byte_reader(ctx.data)));
  j["format"] = "morpheme-nsa";
  return j;
}
result<nlohmann::json> dump_qsa(const read_context& ctx) {
  auto j = qsa_to_json(parse_qsa(core::byte_reader(ctx.data)));
  j["format"] = "morpheme-qsa";
  return j;
}
result<nlohmann::json> dump_network(const read_context& ctx) { return network_json_of(ctx); }

result<bytes> rewrite_mrn(const read_context& ctx) {
  auto out = serialise_mrn(parse_mrn(ctx.data));
  if (out.size() != ctx.data.size() || !std::equal(out.begin(), out.end(), ctx.data.begin()))
    core::fail(code::roundtrip_mismatch, "packet layer did not write back byte for byte");
  return out;
}

// Runtime-5 NSA only: Forgelight's standalone NSA has no byte-exact writer.
result<bytes> rewrite_nsa(const read_context& ctx) {
  if (!is_source5(ctx.data, source_type_nsa))
    core::fail(code::write_unsupported, "rewrite of a Forgelight standalone NSA is not supported (only morpheme 5 NSA)");
  auto out = serialise_nsa5(parse_nsa5(core::byte_reader(ctx.data)));
  if (out.size() != ctx.data.size() || !std::equal(out.begin(), out.end(), ctx.data.begin()))
    core::fail(code::roundtrip_mismatch, "runtime-5 NSA raw layer did not write back byte for byte");
  return out;
}

result<bytes> rewrite_qsa(const read_context& ctx) {
  auto out = serialise_qsa(parse_qsa(core::byte_reader(ctx.data)));
  if (out.size() != ctx.data.size() || !std::equal(out.begin(), out.end(), ctx.data.begin()))
    core::fail(code::roundtrip_mismatch, "runtime-5 QSA raw layer did not write back byte for byte");
  return out;
}

result<bytes> pack(const scene& s, const pack_context& ctx) { return pack_mrn(s, ctx); }
result<bytes> pack_nsa(const scene& s, const pack_context& ctx) { return pack_nsa5(s, ctx); }

}  // namespace
}  // namespace rigrip::morpheme

std::vector<rigrip::format> rigrip_family_morpheme() {
  using namespace rigrip;
  return {
      format{"morpheme-mrn", "morpheme",
             "NaturalMotion morpheme x64 MRN (PlanetSide 2, H1Z1): skeletons, bind pose, NSA animations",
             {".mrn"},
             "content: packet header magic 1A 00 00 00 0A 00 00 00 with a sane length/alignment",
             morpheme::detect_mrn, morpheme::read_mrn, morpheme::dump_mrn, morpheme::rewrite_mrn, morpheme::pack},
      format{"morpheme-nmb", "morpheme",
             "NaturalMotion morpheme 5 runtime bundle (.nmb, x64 and win32): rig, bind pose, network and state machines, the NSA/QSA animations beside it",
             {".nmb"},
             "content: packet header magic 18 00 00 00 0A 00 00 00 (x64) or 18 00 00 00 06 00 00 00 (win32) with a sane length/alignment; name .nmb",
             morpheme::detect_nmb, morpheme::read_nmb, morpheme::dump_mrn, morpheme::rewrite_mrn, nullptr, false,
             morpheme::dump_network},
      format{"morpheme-nsa", "morpheme",
             "NaturalMotion morpheme standalone NSA animation, Forgelight or morpheme 5 x64/win32 (rig from --skeleton, the .mrn/.nmb beside it); writes morpheme 5 NSA (channels from --skeleton X.nmb, pointer size and grid from --template X.nsa)",
             {".nsa"},
             "content: Forgelight NSA header structure (zero field, alignment, duration/rate, pointers in range) or the morpheme 5 header (type 2); name .nsa",
             morpheme::detect_nsa, morpheme::read_nsa, morpheme::dump_nsa, morpheme::rewrite_nsa, morpheme::pack_nsa},
      format{"morpheme-qsa", "morpheme",
             "NaturalMotion morpheme 5 QSA animation, x64/win32 (rig from --skeleton X.nmb or the bundle beside it that lists it)",
             {".qsa"},
             "content: morpheme 5 animation-source header with type 3 (zero word, size, alignment, duration, rate, counts); name .qsa",
             morpheme::detect_qsa, morpheme::read_qsa, morpheme::dump_qsa, morpheme::rewrite_qsa, nullptr},
  };
}
