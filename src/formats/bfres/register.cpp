// Registration of the BFRES family: Wii U FRES (and Yaz0-wrapped .sbfres).
#include <cstring>

#include "formats/bfres/convert.hpp"
#include "formats/bfres/pack.hpp"
#include "formats/bfres/yaz0.hpp"
#include "rigrip/registry.hpp"

namespace rigrip::bfres {
namespace {

int detect(byte_view d, std::string_view name) {
  if (detect_platform(d) != platform::unknown) return score::magic;
  // Yaz0: the first group's literals carry the FRES magic at 0x11.
  if (is_yaz0(d) && d.size() >= 0x15 && std::memcmp(d.data() + 0x11, "FRES", 4) == 0) return score::magic;
  if (is_yaz0(d) && name.ends_with(".sbfres")) return score::structure;
  return score::none;
}

result<scene> read(const read_context& ctx) { return to_scene(load(ctx.data, nullptr), ctx); }

result<nlohmann::json> dump(const read_context& ctx) {
  bool y = false;
  auto f = load(ctx.data, &y);
  auto j = to_json(f);
  j["yaz0"] = y;
  return j;
}

result<bytes> rewrite(const read_context& ctx) {
  bool y = false;
  auto f = load(ctx.data, &y);
  auto out = serialise(f);
  if (!y) return out;
  // The payload is what the raw layer owns; when it comes back unchanged the original
  // compressed stream is kept (our Yaz0 encoder is valid but not Nintendo's byte for byte).
  if (out == f.image) return bytes(ctx.data.begin(), ctx.data.end());
  std::uint32_t alignment = ctx.data.size() >= 12 ? (std::uint32_t(ctx.data[8]) << 24 | std::uint32_t(ctx.data[9]) << 16 |
                                                     std::uint32_t(ctx.data[10]) << 8 | ctx.data[11]) : 0;
  return yaz0_compress(out, alignment);
}

result<bytes> pack(const scene& s, const pack_context& ctx) { return pack_file(s, ctx); }

}  // namespace
}  // namespace rigrip::bfres

std::vector<rigrip::format> rigrip_family_bfres() {
  using namespace rigrip;
  return {format{"bfres", "bfres", "Nintendo BFRES (Wii U FRES 2.4-4.x, Yaz0 .sbfres): FSKL skeletons, FSKA skeletal animations; pack writes FSKAs into a --template",
                 {".bfres", ".sbfres"},
                 "content: 'FRES' magic (Switch FRES detected and refused), or 'Yaz0' wrapping FRES",
                 bfres::detect, bfres::read, bfres::dump, bfres::rewrite, bfres::pack,
                 /*stores_segment_scale_compensate=*/true}};
}
