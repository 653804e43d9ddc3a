#include "render/encode.hpp"

#include <gif_lib.h>
#include <stb_image_write.h>

#include <algorithm>
#include <cstring>
#include <string>

namespace rigrip::render {

result<std::vector<std::uint8_t>> encode_png(const canvas& c) {
  if (c.width <= 0 || c.height <= 0 || c.rgba.size() != static_cast<std::size_t>(c.width) * static_cast<std::size_t>(c.height) * 4)
    return make_error(code::internal, "an empty picture cannot be written as PNG");
  std::vector<std::uint8_t> png;
  const int ok = stbi_write_png_to_func(
      [](void* ctx, void* data, int size) {
        auto* v = static_cast<std::vector<std::uint8_t>*>(ctx);
        if (size > 0) v->insert(v->end(), static_cast<std::uint8_t*>(data), static_cast<std::uint8_t*>(data) + size);
      },
      &png, c.width, c.height, 4, c.rgba.data(), c.width * 4);
  if (!ok || png.empty()) return make_error(code::internal, "the PNG encoder failed");
  return png;
}

namespace {
int to_memory(GifFileType* gif, const GifByteType* data, int size) {
  auto* out = static_cast<std::vector<std::uint8_t>*>(gif->UserData);
  if (size > 0) out->insert(out->end(), data, data + size);
  return size;
}
error gif_error(int code_value, const char* what) {
  const char* msg = GifErrorString(code_value);
  return make_error(code::internal, std::string("GIF encoder: ") + what + ": " + (msg ? msg : "unknown error"));
}
}  // namespace

result<std::vector<std::uint8_t>> encode_gif(const std::vector<canvas>& frames, int delay_cs) {
  if (frames.empty() || frames[0].width <= 0 || frames[0].height <= 0)
    return make_error(code::internal, "a GIF needs at least one frame");
  const int w = frames[0].width, h = frames[0].height;
  if (w > 65535 || h > 65535) return make_error(code::usage, "a GIF is at most 65535 pixels wide and high");
  for (const auto& f : frames)
    if (f.width != w || f.height != h) return make_error(code::internal, "GIF frames differ in size");
  // One palette for every frame: the frames stacked into one tall picture and quantised together,
  // so colours do not flicker from frame to frame.
  const std::size_t per = static_cast<std::size_t>(w) * static_cast<std::size_t>(h);
  const std::size_t total = per * frames.size();
  if (total / frames.size() != per || total > (std::size_t{1} << 28))
    return make_error(code::limit_exceeded, "the GIF would be larger than 2^28 pixels");
  std::vector<GifByteType> r(total), g(total), b(total), index(total);
  for (std::size_t f = 0; f < frames.size(); ++f)
    for (std::size_t i = 0; i < per; ++i) {
      r[f * per + i] = frames[f].rgba[i * 4];
      g[f * per + i] = frames[f].rgba[i * 4 + 1];
      b[f * per + i] = frames[f].rgba[i * 4 + 2];
    }
  int colours = 256;
  std::vector<GifColorType> palette(256);
  if (GifQuantizeBuffer(static_cast<unsigned>(w), static_cast<unsigned>(h * static_cast<int>(frames.size())), &colours,
                        r.data(), g.data(), b.data(), index.data(), palette.data()) != GIF_OK)
    return make_error(code::internal, "GIF encoder: the colour quantiser failed");
  ColorMapObject* map = GifMakeMapObject(256, palette.data());
  if (!map) return make_error(code::internal, "GIF encoder: out of memory");

  std::vector<std::uint8_t> out;
  int err = 0;
  GifFileType* gif = EGifOpen(&out, to_memory, &err);
  if (!gif) {
    GifFreeMapObject(map);
    return gif_error(err, "open");
  }
  auto fail = [&](const char* what) {
    const int e = gif->Error;
    int close_err = 0;
    EGifCloseFile(gif, &close_err);
    GifFreeMapObject(map);
    return gif_error(e, what);
  };
  EGifSetGifVersion(gif, true);
  if (EGifPutScreenDesc(gif, w, h, 8, 0, map) != GIF_OK) return fail("screen");
  // NETSCAPE2.0: loop forever.
  static const GifByteType netscape[] = {'N', 'E', 'T', 'S', 'C', 'A', 'P', 'E', '2', '.', '0'};
  static const GifByteType loop[] = {1, 0, 0};
  if (EGifPutExtensionLeader(gif, APPLICATION_EXT_FUNC_CODE) != GIF_OK ||
      EGifPutExtensionBlock(gif, sizeof netscape, netscape) != GIF_OK ||
      EGifPutExtensionBlock(gif, sizeof loop, loop) != GIF_OK || EGifPutExtensionTrailer(gif) != GIF_OK)
    return fail("loop extension");
  for (std::size_t f = 0; f < frames.size(); ++f) {
    GraphicsControlBlock gcb{};
    gcb.DisposalMode = DISPOSE_DO_NOT;
    gcb.DelayTime = std::clamp(delay_cs, 2, 65535);
    gcb.TransparentColor = NO_TRANSPARENT_COLOR;
    GifByteType ext[4];
    const std::size_t n = EGifGCBToExtension(&gcb, ext);
    if (EGifPutExtension(gif, GRAPHICS_EXT_FUNC_CODE, static_cast<int>(n), ext) != GIF_OK) return fail("frame delay");
    if (EGifPutImageDesc(gif, 0, 0, w, h, false, nullptr) != GIF_OK) return fail("frame");
    for (int y = 0; y < h; ++y)
      if (EGifPutLine(gif, &index[f * per + static_cast<std::size_t>(y) * static_cast<std::size_t>(w)], w) != GIF_OK)
        return fail("pixels");
  }
  if (EGifCloseFile(gif, &err) != GIF_OK) {
    GifFreeMapObject(map);
    return gif_error(err, "close");
  }
  GifFreeMapObject(map);
  return out;
}

canvas contact_sheet(const std::vector<canvas>& frames, int columns) {
  if (frames.empty()) return {};
  const int w = frames[0].width, h = frames[0].height;
  columns = std::clamp(columns, 1, static_cast<int>(frames.size()));
  const int rows = (static_cast<int>(frames.size()) + columns - 1) / columns;
  canvas sheet(w * columns, h * rows, {46, 50, 58, 255});
  for (std::size_t f = 0; f < frames.size(); ++f) {
    if (frames[f].width != w || frames[f].height != h) continue;
    const int ox = static_cast<int>(f) % columns * w, oy = static_cast<int>(f) / columns * h;
    for (int y = 0; y < h; ++y)
      std::memcpy(&sheet.rgba[(static_cast<std::size_t>(oy + y) * static_cast<std::size_t>(sheet.width) + static_cast<std::size_t>(ox)) * 4],
                  &frames[f].rgba[static_cast<std::size_t>(y) * static_cast<std::size_t>(w) * 4], static_cast<std::size_t>(w) * 4);
  }
  return sheet;
}

}  // namespace rigrip::render
