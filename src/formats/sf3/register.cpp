// Registration of the sf3 family: Shining Force III (Saturn) battle meshes.
//   sf3-x8pc  X8PC*.BIN models (and X8PCnnX.BIN multi-model containers)
//   sf3-x8an  X8AN*.BIN external attack animations (paired with their X8PC model)
// Detection and the registry entries only; the work is in the raw files (with their `--raw` JSON), decode and encode.
#include "core/failure.hpp"
#include "formats/sf3/decode.hpp"
#include "formats/sf3/encode.hpp"
#include "formats/sf3/names.hpp"
#include "rigrip/registry.hpp"

namespace rigrip::sf3 {
namespace {

using nlohmann::json;

bool name_is(std::string_view filename, std::string_view prefix) {
  std::string b = lower(base_name(filename));
  return b.starts_with(prefix) && b.ends_with(".bin");
}

// ---------------------------------------------------------------- x8pc
int detect_x8pc(byte_view d, std::string_view name) {
  bool named = name_is(name, "x8pc");
  if (looks_like_chunk_table(d, 0)) return score::structure + (named ? 5 : 0);
  return named ? score::name_only : score::none;
}

result<scene> read_x8pc(const read_context& ctx) {
  return core::guarded(ctx.path, "sf3-x8pc", [&]() -> scene { return read_x8pc_scene(ctx); });
}

result<json> dump_x8pc(const read_context& ctx) {
  return core::guarded(ctx.path, "sf3-x8pc", [&]() -> json { return x8pc_to_json(parse_x8pc(ctx.data)); });
}

result<bytes> rewrite_x8pc(const read_context& ctx) {
  return core::guarded(ctx.path, "sf3-x8pc", [&]() -> bytes { return write_x8pc(parse_x8pc(ctx.data)); });
}

result<bytes> pack_x8pc_entry(const scene& s, const pack_context& ctx) {
  return core::guarded(ctx.output_path, "sf3-x8pc", [&]() -> bytes { return pack_x8pc(s, ctx); });
}

// ---------------------------------------------------------------- x8an
int detect_x8an(byte_view d, std::string_view name) {
  bool named = name_is(name, "x8an");
  if (looks_like_x8an(d)) return score::structure + (named ? 5 : 0);
  return named ? score::name_only : score::none;
}

result<scene> read_x8an(const read_context& ctx) {
  return core::guarded(ctx.path, "sf3-x8an", [&]() -> scene { return read_x8an_scene(ctx); });
}

result<json> dump_x8an(const read_context& ctx) {
  return core::guarded(ctx.path, "sf3-x8an", [&]() -> json { return x8an_to_json(parse_x8an(ctx.data)); });
}

result<bytes> rewrite_x8an(const read_context& ctx) {
  return core::guarded(ctx.path, "sf3-x8an", [&]() -> bytes { return write_x8an(parse_x8an(ctx.data)); });
}

}  // namespace
}  // namespace rigrip::sf3

std::vector<rigrip::format> rigrip_family_sf3() {
  using namespace rigrip;
  return {
      format{"sf3-x8pc", "sf3",
             "Shining Force III (Saturn) battle model X8PC*.BIN: mesh, textures, skeleton, keyframes; X8PCnnX containers",
             {".bin"},
             "content: 0x800-aligned chunk table at 0 (first chunk at 0x800, sizes rounded to 0x800, 0xFF padding); "
             "name X8PC*.BIN second",
             sf3::detect_x8pc, sf3::read_x8pc, sf3::dump_x8pc, sf3::rewrite_x8pc, sf3::pack_x8pc_entry},
      format{"sf3-x8an", "sf3", "Shining Force III (Saturn) battle animations X8AN*.BIN (paired with X8PCnnA.BIN)",
             {".bin"},
             "content: u32 keyframe-table offset at 0 whose first record's arrays start at 4 in order; name X8AN*.BIN second",
             sf3::detect_x8an, sf3::read_x8an, sf3::dump_x8an, sf3::rewrite_x8an, nullptr},
  };
}
