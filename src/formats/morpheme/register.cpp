// Registration of the morpheme family: Forgelight (PlanetSide 2, H1Z1) x64 MRN packet
// files and standalone NSA animations.
#include <cmath>
#include <cstring>

#include "core/failure.hpp"
#include "formats/morpheme/decode.hpp"
#include "formats/morpheme/encode.hpp"
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
  if (looks_like_x86_mrn(d)) return score::magic;  // recognised, then refused with a clear message
  if (ends_with_ci(name, ".mrn")) return score::name_only;
  return score::none;
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
  if (nsa_structure(d)) return score::structure;
  if (ends_with_ci(name, ".nsa")) return score::name_only;
  return score::none;
}

result<scene> read_mrn(const read_context& ctx) { return read_mrn_scene(ctx); }
result<scene> read_nsa(const read_context& ctx) { return read_nsa_scene(ctx); }

result<nlohmann::json> dump_mrn(const read_context& ctx) { return mrn_to_json(parse_mrn(ctx.data)); }
result<nlohmann::json> dump_nsa(const read_context& ctx) {
  auto j = nsa_to_json(parse_nsa(core::byte_reader(ctx.data)));
  j["format"] = "morpheme-nsa";
  return j;
}

result<bytes> rewrite_mrn(const read_context& ctx) {
  auto out = serialise_mrn(parse_mrn(ctx.data));
  if (out.size() != ctx.data.size() || !std::equal(out.begin(), out.end(), ctx.data.begin()))
    core::fail(code::roundtrip_mismatch, "MRN packet layer did not write back byte for byte");
  return out;
}

result<bytes> pack(const scene& s, const pack_context& ctx) { return pack_mrn(s, ctx); }

}  // namespace
}  // namespace rigrip::morpheme

std::vector<rigrip::format> rigrip_family_morpheme() {
  using namespace rigrip;
  return {
      format{"morpheme-mrn", "morpheme",
             "NaturalMotion morpheme x64 MRN (PlanetSide 2, H1Z1): skeletons, bind pose, NSA animations",
             {".mrn"},
             "content: packet header magic 1A 00 00 00 0A 00 00 00 with a sane length/alignment (32-bit 18/06 recognised and refused)",
             morpheme::detect_mrn, morpheme::read_mrn, morpheme::dump_mrn, morpheme::rewrite_mrn, morpheme::pack},
      format{"morpheme-nsa", "morpheme",
             "NaturalMotion morpheme standalone NSA animation (skeleton from --skeleton X.mrn, <stem>.mrn or the folder's only .mrn)",
             {".nsa"},
             "content: NSA header structure (zero field, alignment, duration/rate, pointers in range); name .nsa",
             morpheme::detect_nsa, morpheme::read_nsa, morpheme::dump_nsa, nullptr, nullptr},
  };
}
