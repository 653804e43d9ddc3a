// rigrip preview: a picture of a file without a GPU or a browser, drawn by the library's
// software rasteriser (src/render): a PNG of one frame or a contact sheet of several, or an
// animated GIF of a clip.
#include <algorithm>
#include <fnmatch.h>

#include <chrono>
#include <cmath>
#include <filesystem>

#include "cli/archive_input.hpp"
#include "cli/commands.hpp"
#include "cli/common.hpp"
#include "cli/preview.hpp"
#include "render/encode.hpp"
#include "render/preview.hpp"

namespace fs = std::filesystem;

namespace rigrip::cli {

namespace {
// A file of textures only: a sheet of them (PNG) or one per frame (GIF), up to 64.
result<preview_written> write_texture_preview(const scene& s, const std::string& path, const preview_request& r,
                                              bool gif) {
  std::vector<render::canvas> pics;
  const std::size_t n = std::min<std::size_t>(s.textures.size(), 64);
  const int cols = static_cast<int>(std::ceil(std::sqrt(double(n))));
  // The sheet fills the requested size: cols across, as many rows as the textures need.
  const int rows = static_cast<int>((n + static_cast<std::size_t>(cols) - 1) / static_cast<std::size_t>(cols));
  const int cw = gif ? r.width : std::max(1, r.width / cols), ch = gif ? r.height : std::max(1, r.height / rows);
  for (std::size_t i = 0; i < n; ++i) pics.push_back(render::draw_texture(s.textures[i], cw, ch));
  preview_written w;
  w.frames = static_cast<int>(n);
  result<bytes> data = error{};
  if (gif) {
    data = render::encode_gif(pics, 100);
    w.width = pics[0].width, w.height = pics[0].height;
  } else {
    const render::canvas sheet = n > 1 ? render::contact_sheet(pics, cols) : std::move(pics[0]);
    data = render::encode_png(sheet);
    w.width = sheet.width, w.height = sheet.height;
  }
  if (!data) return data.error();
  if (auto saved = save_file(path, data.value()); !saved) return saved.error();
  return w;
}
}  // namespace

namespace {
// A scene of cameras only: each camera drawn as bones from its position along its view
// direction (local -Z) and its up (+Y), each camera clip as a clip moving those bones, so the preview shows
// where the cameras go and look.
scene cameras_as_bones(const scene& s) {
  scene out;
  out.format = s.format;
  out.metadata = s.metadata;
  float lo[3] = {0, 0, 0}, hi[3] = {0, 0, 0};
  for (std::size_t i = 0; i < s.cameras.size(); ++i)
    for (int k = 0; k < 3; ++k) {
      const float v = s.cameras[i].translation[static_cast<std::size_t>(k)];
      lo[k] = i ? std::min(lo[k], v) : v, hi[k] = i ? std::max(hi[k], v) : v;
    }
  for (const auto& a : s.camera_animations)
    for (const auto& t : a.tracks)
      if (t.path == path::translation)
        for (std::size_t i = 0; i < t.values.size(); ++i) {
          lo[i % 3] = std::min(lo[i % 3], t.values[i]);
          hi[i % 3] = std::max(hi[i % 3], t.values[i]);
        }
  const float reach = std::max({1.0f, 0.5f * (hi[0] - lo[0]), 0.5f * (hi[1] - lo[1]), 0.5f * (hi[2] - lo[2])});
  skeleton sk;
  sk.name = "cameras";
  for (const auto& c : s.cameras) {
    bone b;
    b.name = c.name;
    b.translation = c.translation;
    b.rotation = c.rotation;
    sk.bones.push_back(b);
    bone view;
    view.name = c.name + " view";
    view.parent = static_cast<int>(sk.bones.size() - 1);
    view.translation = {0, 0, -reach};
    sk.bones.push_back(view);
    bone up;  // and its up (local +Y): seen from any side, and shows the roll
    up.name = c.name + " up";
    up.parent = view.parent;
    up.translation = {0, 0.5f * reach, 0};
    sk.bones.push_back(up);
  }
  out.skeletons.push_back(std::move(sk));
  for (const auto& ca : s.camera_animations) {
    animation a;
    a.name = ca.name;
    a.duration = ca.duration;
    a.fps = ca.fps;
    a.tracks = ca.tracks;
    out.animations.push_back(std::move(a));
  }
  return out;
}
}  // namespace

result<preview_written> write_preview(const scene& s, const std::string& path, const preview_request& r) {
  bool drawable = !s.meshes.empty();
  for (const auto& sk : s.skeletons) drawable = drawable || !sk.bones.empty();
  if (!drawable && !s.cameras.empty()) return write_preview(cameras_as_bones(s), path, r);
  const std::string ext = lower(fs::path(path).extension().string());
  if (ext != ".png" && ext != ".gif")
    return make_error(code::usage, "cannot write '" + ext + "' pictures (" + path + "): preview writes .png or .gif");
  if (auto v = s.validate(); !v) return v.error();
  render::preview_options po;
  po.width = r.width, po.height = r.height, po.bones = r.bones, po.grid = r.grid;
  if (!s.animations.empty()) {
    po.animation = r.clip.empty() ? 0 : -1;
    for (std::size_t i = 0; i < s.animations.size() && po.animation < 0; ++i)
      if (s.animations[i].name == r.clip || fnmatch(r.clip.c_str(), s.animations[i].name.c_str(), 0) == 0)
        po.animation = static_cast<int>(i);
  }
  if (!r.clip.empty() && po.animation < 0) {
    std::string names;
    for (std::size_t i = 0; i < s.animations.size() && i < 20; ++i) names += (i ? ", " : "") + s.animations[i].name;
    if (s.animations.size() > 20) names += ", ... (`rigrip list` shows all)";
    return make_error(code::usage, "--clip '" + r.clip + "' matches none of the " + std::to_string(s.animations.size()) +
                                       " animations" + (names.empty() ? std::string() : ": " + names));
  }
  const render::previewer pv(s, po);
  if (pv.empty() && !s.textures.empty()) return write_texture_preview(s, path, r, ext == ".gif");
  if (pv.empty())
    return make_error(code::unsupported_feature, "nothing to draw: no bone and no triangle (see `rigrip info`)");
  const double dur = pv.duration();
  const bool gif = ext == ".gif";
  int frames = r.frames;
  if (frames <= 0) {
    frames = 1;
    if (gif && dur > 0) {
      const double fps = pv.fps() && *pv.fps() > 0 ? *pv.fps() : 30.0;
      frames = static_cast<int>(std::clamp(std::floor(dur * fps + 1e-6) + 1, 2.0, 24.0));
    }
  }
  if (r.time && (gif || frames > 1))
    return make_error(code::usage, "--time picks one frame: use it with a .png and --frames 1");
  // Frames span the whole clip, first and last key included.
  std::vector<render::canvas> pics;
  const auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < frames; ++i) {
    const double t = r.time ? *r.time : frames > 1 ? dur * i / (frames - 1) : 0.0;
    pics.push_back(pv.render(t));
  }
  preview_written w;
  w.ms_per_frame = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count() / frames;
  w.frames = frames;
  w.clip = po.animation >= 0 ? s.animations[static_cast<std::size_t>(po.animation)].name : "";
  result<bytes> data = error{};
  if (gif) {
    const int delay = frames > 1 ? static_cast<int>(std::lround(dur / (frames - 1) * 100)) : 100;
    data = render::encode_gif(pics, delay);
    w.width = pics[0].width, w.height = pics[0].height;
  } else {
    const render::canvas sheet =
        frames > 1 ? render::contact_sheet(pics, static_cast<int>(std::ceil(std::sqrt(frames)))) : std::move(pics[0]);
    data = render::encode_png(sheet);
    w.width = sheet.width, w.height = sheet.height;
  }
  if (!data) return data.error();
  if (auto saved = save_file(path, data.value()); !saved) return saved.error();
  return w;
}

namespace {

struct preview_options {
  std::string input;
  std::string output;
  std::string size = "256x256";
  std::optional<double> time;
  preview_request req;
  bool no_bones = false;
  bool no_grid = false;
  common_options common;
};

int run_preview(preview_options o) {
  const auto forced = forced_format(o.common);
  if (!forced) return 2;
  int w = 0, h = 0;
  char tail = 0;
  if (std::sscanf(o.size.c_str(), "%dx%d%c", &w, &h, &tail) != 2 || w < 1 || h < 1 || w > 4096 || h > 4096) {
    std::cerr << "error: E_USAGE: --size must be WIDTHxHEIGHT, each 1 to 4096 (e.g. 256x256), not '" << o.size << "'\n";
    return 2;
  }
  o.req.width = w, o.req.height = h;
  o.req.time = o.time;
  o.req.bones = !o.no_bones;
  o.req.grid = !o.no_grid;
  const std::string ext = lower(fs::path(o.output).extension().string());
  if (ext != ".png" && ext != ".gif") {
    std::cerr << "error: E_USAGE: -o must name a .png or .gif file, not '" << o.output << "'\n";
    return 2;
  }
  diagnostics d;
  d.file = o.input;
  auto s = read_input_scene(o.input, o.common.read(), d, *forced);
  if (!s) return fail(s.error());
  print_warnings(d);
  auto wr = write_preview(s.value(), o.output, o.req);
  if (!wr) {
    auto e = wr.error();
    if (e.file.empty()) e.file = o.input;
    if (e.format.empty()) e.format = s->format;
    if (e.code == code::usage) {
      std::cerr << "error: E_USAGE: " << e.message << "\n";
      return 2;
    }
    return fail(e);
  }
  std::printf("preview: wrote %s (%dx%d, %d frame%s%s%s, %.2f ms per frame)\n", o.output.c_str(), wr->width,
              wr->height, wr->frames, wr->frames == 1 ? "" : "s", wr->clip.empty() ? ", rest pose" : ", clip '",
              wr->clip.empty() ? "" : (wr->clip + "'").c_str(), wr->ms_per_frame);
  return 0;
}

}  // namespace

command add_preview_command(CLI::App& app) {
  auto o = std::make_shared<preview_options>();
  auto* c = app.add_subcommand("preview", "Draw a file to a PNG or animated GIF (software rendering, no GPU)");
  c->add_option("input", o->input, "Input file (any rigrip reads), or ARCHIVE/inner/path")
      ->required()
      ->check(existing_path_or_entry());
  c->add_option("-o,--output", o->output, "Output picture: .png (one frame, or a contact sheet with --frames) or .gif")
      ->required();
  c->add_option("--clip", o->req.clip, "Animation to show, by name or glob (default: the first)");
  c->add_option("--frames", o->req.frames,
                "Frames over the whole clip: a PNG contact sheet, or the GIF's frames "
                "(default: 1 for PNG; the clip's frame count up to 24 for GIF)")
      ->check(CLI::Range(1, 1000));
  c->add_option("--size", o->size, "Size of one frame, WIDTHxHEIGHT (default 256x256)");
  c->add_option("--time", o->time, "Seconds into the clip of a one-frame PNG (default 0)")->check(CLI::NonNegativeNumber);
  c->add_flag("--no-bones", o->no_bones, "Do not draw the skeleton over the meshes");
  c->add_flag("--no-grid", o->no_grid, "Do not draw the ground grid");
  add_common(c, o->common);
  c->footer(
      "Examples:\n  rigrip preview X8PC00A.BIN -o x8pc00a.png\n"
      "  rigrip preview Animal_Bass_Animation.bfres --clip Move -o move.gif --frames 24 --size 320x240\n"
      "  rigrip preview walk.anm --skeleton sk62_clementine.skl -o walk.png --frames 9");
  return {c, [o] { return run_preview(*o); }};
}

}  // namespace rigrip::cli
