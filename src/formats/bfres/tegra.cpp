// Tegra X1 block-linear layout (tegra.hpp). Our code from the GOB address rules.
#include "formats/bfres/tegra.hpp"

#include <string>

#include "core/failure.hpp"

namespace rigrip::bfres::tegra {
namespace {

std::uint32_t gobs_across(std::uint32_t row_bytes) { return (row_bytes + gob_width - 1) / gob_width; }

void check(std::uint32_t width, std::uint32_t height, std::uint32_t bpe, std::uint32_t block_height) {
  if (block_height == 0 || block_height > 32 || (block_height & (block_height - 1)) != 0)
    core::fail(code::bad_value, "block height " + std::to_string(block_height) + " GOBs is not a power of two in 1..32");
  if (bpe == 0 || bpe > 16) core::fail(code::bad_value, "element size " + std::to_string(bpe) + " bytes is not 1..16");
  if (width == 0 || height == 0 || width > 16384 || height > 16384)
    core::fail(code::bad_value, "surface " + std::to_string(width) + "x" + std::to_string(height) + " outside 1..16384");
}

template <bool to_linear>
std::vector<std::uint8_t> copy(std::span<const std::uint8_t> src, std::uint32_t width, std::uint32_t height,
                               std::uint32_t bpe, std::uint32_t block_height) {
  check(width, height, bpe, block_height);
  const std::uint64_t tiled = surface_size(width, height, bpe, block_height);
  const std::uint64_t linear = std::uint64_t{width} * height * bpe;
  const std::uint64_t need = to_linear ? tiled : linear;
  if (src.size() < need)
    core::fail(code::truncated, "surface needs " + std::to_string(need) + " bytes, only " + std::to_string(src.size()) + " present");
  std::vector<std::uint8_t> out(to_linear ? linear : tiled, 0);
  const std::uint32_t row_bytes = width * bpe;
  for (std::uint32_t y = 0; y < height; ++y)
    for (std::uint32_t x = 0; x < row_bytes; x += 16) {  // GOB rows hold 16-byte runs
      const std::uint64_t t = block_linear_offset(x, y, row_bytes, block_height);
      const std::uint64_t l = std::uint64_t{y} * row_bytes + x;
      const std::uint32_t n = std::min<std::uint32_t>(16, row_bytes - x);
      for (std::uint32_t k = 0; k < n; ++k) {
        if (to_linear) out[l + k] = src[t + k];
        else out[t + k] = src[l + k];
      }
    }
  return out;
}

}  // namespace

std::uint64_t block_linear_offset(std::uint32_t x, std::uint32_t y, std::uint32_t row_bytes, std::uint32_t block_height) {
  const std::uint32_t block_rows = gob_height * block_height;
  const std::uint64_t block = std::uint64_t{y / block_rows} * gobs_across(row_bytes) + x / gob_width;
  return block * gob_size * block_height + std::uint64_t{(y % block_rows) / gob_height} * gob_size + gob_offset(x, y);
}

std::uint64_t surface_size(std::uint32_t width, std::uint32_t height, std::uint32_t bpe, std::uint32_t block_height) {
  const std::uint64_t block_rows = std::uint64_t{gob_height} * block_height;
  const std::uint64_t blocks_down = (height + block_rows - 1) / block_rows;
  return blocks_down * gobs_across(width * bpe) * gob_size * block_height;
}

std::vector<std::uint8_t> deswizzle(std::span<const std::uint8_t> data, std::uint32_t width, std::uint32_t height,
                                    std::uint32_t bpe, std::uint32_t block_height) {
  return copy<true>(data, width, height, bpe, block_height);
}

std::vector<std::uint8_t> swizzle(std::span<const std::uint8_t> linear, std::uint32_t width, std::uint32_t height,
                                  std::uint32_t bpe, std::uint32_t block_height) {
  return copy<false>(linear, width, height, bpe, block_height);
}

}  // namespace rigrip::bfres::tegra
