// Registration of the BFRES family: Wii U FRES (and Yaz0-wrapped .sbfres).
#include <algorithm>

#include "formats/bfres/bntx.hpp"
#include "formats/bfres/decode.hpp"
#include "formats/bfres/encode.hpp"
#include "rigrip/registry.hpp"

namespace rigrip::bfres {
namespace {

int detect(byte_view d, std::string_view name) {
  // Yaz0 (.sbfres) is opened by the container layer before detection.
  (void)name;
  return detect_platform(d) != platform::unknown ? score::magic : score::none;
}

result<scene> read(const read_context& ctx) { return to_scene(load_for_scene(ctx.data), ctx); }

result<nlohmann::json> dump(const read_context& ctx) {
  auto j = to_json(load(ctx.data));
  // Part of the dump contract since the first BFRES reader: whether the file was Yaz0.
  j["yaz0"] = std::find(ctx.containers.begin(), ctx.containers.end(), "yaz0") != ctx.containers.end();
  return j;
}

// The registry wraps the payload back into the file's Yaz0 stream.
result<bytes> rewrite(const read_context& ctx) { return serialise(load(ctx.data)); }

result<bytes> pack(const scene& s, const pack_context& ctx) { return pack_file(s, ctx); }

// A standalone BNTX (Switch texture container): its textures on their own.
int detect_bntx(byte_view d, std::string_view) { return is_bntx(d) ? score::magic : score::none; }
result<scene> read_bntx(const read_context& ctx) { return bntx_scene(ctx.data, ctx); }
result<nlohmann::json> dump_bntx(const read_context& ctx) {
  return bntx_to_json(parse_bntx(std::vector<std::uint8_t>(ctx.data.begin(), ctx.data.end())));
}
result<bytes> rewrite_bntx(const read_context& ctx) {
  return serialise_bntx(parse_bntx(std::vector<std::uint8_t>(ctx.data.begin(), ctx.data.end())));
}

}  // namespace
}  // namespace rigrip::bfres

std::vector<rigrip::format> rigrip_family_bfres() {
  using namespace rigrip;
  return {format{"bfres", "bfres", "Nintendo BFRES (Wii U FRES 2.4-4.x: FSKL, FSKA, FMDL meshes, FTEX; Switch FRES 0.5-0.10: FSKA skeletal animations, FMDL models (FSKL, skinned meshes, materials with BNTX textures; from the notes, hand-built files only), embedded files and rewrite, verified on 0.5.0.3 from Breath of the Wild (0.6-0.10 from the notes); cameras: BotW .brtcamera in .bcamanim (verified on real files) and FSCN/FCAM scene animations, Wii U and Switch (from the notes, hand-built files only), aim and Euler modes, as animated glTF cameras; .sbfres through the Yaz0 container); pack writes FSKAs into a Wii U or Switch --template",
                 {".bfres", ".sbfres"},
                 "content: 'FRES' magic, then 4 spaces for Switch (little-endian) or the big-endian Wii U header; Yaz0 is opened by the container layer",
                 bfres::detect, bfres::read, bfres::dump, bfres::rewrite, bfres::pack,
                 /*stores_segment_scale_compensate=*/true},
          format{"bntx", "bfres", "Nintendo Switch BNTX texture container (.bntx; also read inside Switch FRES embedded files): BRTI textures, block-linear (Tegra X1) R8, R8G8, R5G6B5, RGBA8, BGRA8, BC1-BC5, BC6H (tone-mapped), BC7, ASTC LDR (astcenc) with mips, to RGBA8; rewrite byte-identical (hand-built files only: no real BNTX at hand)",
                 {".bntx"}, "content: 'BNTX' magic", bfres::detect_bntx, bfres::read_bntx, bfres::dump_bntx,
                 bfres::rewrite_bntx, nullptr}};
}
