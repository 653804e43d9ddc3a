// ASTC through astcenc: one decompress-only context per image (the library validates the
// footprint), a single thread (batch conversion already runs files in parallel).
#include "core/image/astc.hpp"

#include <astcenc.h>

#include <memory>
#include <string>

#include "core/failure.hpp"

namespace rigrip::core::image {

bool is_astc_footprint(std::uint32_t w, std::uint32_t h) {
  // The 14 2D footprints of the ASTC specification.
  static constexpr std::uint32_t sizes[][2] = {{4, 4},  {5, 4},   {5, 5},   {6, 5},  {6, 6},
                                               {8, 5},  {8, 6},   {8, 8},   {10, 5}, {10, 6},
                                               {10, 8}, {10, 10}, {12, 10}, {12, 12}};
  for (const auto& s : sizes)
    if (s[0] == w && s[1] == h) return true;
  return false;
}

std::vector<std::uint8_t> decode_astc(std::span<const std::uint8_t> blocks, std::uint32_t width,
                                      std::uint32_t height, std::uint32_t block_w,
                                      std::uint32_t block_h, bool srgb) {
  if (!is_astc_footprint(block_w, block_h))
    fail(code::bad_value, "ASTC block footprint " + std::to_string(block_w) + "x" +
                              std::to_string(block_h) + " does not exist");
  if (width == 0 || height == 0 || width > 16384 || height > 16384)
    fail(code::bad_value, "ASTC image size " + std::to_string(width) + "x" +
                              std::to_string(height) + " is outside 1..16384");
  const std::uint64_t need =
      std::uint64_t{(width + block_w - 1) / block_w} * ((height + block_h - 1) / block_h) * 16;
  if (blocks.size() < need)
    fail(code::truncated, "ASTC image needs " + std::to_string(need) + " bytes of blocks, has " +
                              std::to_string(blocks.size()));
  astcenc_config config{};
  astcenc_error err =
      astcenc_config_init(srgb ? ASTCENC_PRF_LDR_SRGB : ASTCENC_PRF_LDR, block_w, block_h, 1,
                          ASTCENC_PRE_FASTEST, ASTCENC_FLG_DECOMPRESS_ONLY, &config);
  if (err != ASTCENC_SUCCESS)
    fail(code::bad_value, std::string("ASTC: ") + astcenc_get_error_string(err));
  astcenc_context* raw = nullptr;
  err = astcenc_context_alloc(&config, 1, &raw);
  if (err != ASTCENC_SUCCESS)
    fail(code::bad_value, std::string("ASTC: ") + astcenc_get_error_string(err));
  const std::unique_ptr<astcenc_context, void (*)(astcenc_context*)> ctx(raw, astcenc_context_free);
  std::vector<std::uint8_t> rgba(std::size_t{width} * height * 4);
  void* slice = rgba.data();
  astcenc_image image{width, height, 1, ASTCENC_TYPE_U8, &slice};
  const astcenc_swizzle identity{ASTCENC_SWZ_R, ASTCENC_SWZ_G, ASTCENC_SWZ_B, ASTCENC_SWZ_A};
  err = astcenc_decompress_image(ctx.get(), blocks.data(), static_cast<std::size_t>(need), &image,
                                 &identity, 0);
  if (err != ASTCENC_SUCCESS)
    fail(code::bad_value, std::string("ASTC: ") + astcenc_get_error_string(err));
  return rgba;
}

}  // namespace rigrip::core::image
