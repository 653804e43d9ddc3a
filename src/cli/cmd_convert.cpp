// rigrip convert: files or directories (recursive) to glTF 2.0 (.glb, .gltf + .bin) or scene JSON.
#include <stb_image_write.h>

#include <fnmatch.h>

#include <chrono>
#include <optional>
#include <filesystem>

#include "cli/batch.hpp"
#include "cli/commands.hpp"
#include "cli/common.hpp"
#include "cli/preview.hpp"
#include "rigrip/gltf.hpp"
#include "rigrip/scene_text.hpp"

namespace fs = std::filesystem;

namespace rigrip::cli {
namespace {

struct convert_options {
  std::vector<std::string> inputs;
  std::string output;
  std::string out_format = "glb";  // glb | gltf | json
  gltf::write_options gltf;
  bool textures = false;
  bool previews = false;  // --previews: NAME.png beside every glTF written
  batch_options batch;
  common_options common;
  // Parsed into `gltf` before running.
  std::string up = "y";
  double resample = 0;
  bool no_bone_mesh = false;
  std::string ssc = "bake";
  std::string additive = "rest";
  std::string units = "metres";
  double scale = 0;  // 0: the family's documented factor
  bool split_models = false;
  std::vector<std::string> only;  // --only: archive entries by inner path (globs)
};

std::string output_extension(const std::string& f) {
  return f == "json" ? ".json" : "." + f;
}

// -o x.glb (or .gltf, .json) with a single input file names the output and its format;
// otherwise -o is a directory that receives one output per input.
// An archive converts to a folder; "ARCHIVE/inner" is one file.
std::optional<std::vector<job>> plan_convert_jobs(convert_options& o) {
  std::string ext = lower(fs::path(o.output).extension().string());
  bool single_file_out = o.inputs.size() == 1 && !fs::is_directory(o.inputs[0]) &&
                         (ext == ".glb" || ext == ".gltf" || ext == ".json");
  if (single_file_out) {
    if (auto in = open_archive_input(o.inputs[0]); in && in->ok()) {
      std::cerr << "error: E_USAGE: " << o.inputs[0] << " is an archive (" << in->value()->kind() << ", "
                << in->value()->a.entries.size()
                << " entries): -o names a folder that receives one file per entry, or convert "
                   "one entry as ARCHIVE/inner/path\n";
      return std::nullopt;
    }
  }
  if (!single_file_out) return plan_jobs(o.inputs, o.output, output_extension(o.out_format), o.only);
  o.out_format = ext.substr(1);
  job jb{o.inputs[0], o.output, false};
  attach_entry(jb);
  return std::vector<job>{std::move(jb)};
}

std::vector<std::uint8_t> encode_png(const texture& t) {
  std::vector<std::uint8_t> png;
  stbi_write_png_to_func(
      [](void* ctx, void* data, int size) {
        auto* v = static_cast<std::vector<std::uint8_t>*>(ctx);
        v->insert(v->end(), static_cast<std::uint8_t*>(data),
                  static_cast<std::uint8_t*>(data) + size);
      },
      &png, static_cast<int>(t.width), static_cast<int>(t.height), 4, t.rgba.data(),
      static_cast<int>(t.width * 4));
  return png;
}

// Every decoded texture as <stem>_tex<i>_<name>.png beside the output; returns those written.
std::vector<std::string> write_textures(const scene& s, const std::string& output) {
  std::vector<std::string> written;
  fs::path o(output);
  fs::path dir = o.parent_path();
  std::string stem = o.stem().string();
  for (std::size_t i = 0; i < s.textures.size(); ++i) {
    const auto& t = s.textures[i];
    std::string name = t.name.empty() ? std::to_string(i) : t.name;
    for (auto& c : name)
      if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '-') c = '_';
    fs::path p = dir / (stem + "_tex" + std::to_string(i) + "_" + name + ".png");
    if (save_file(p.string(), encode_png(t))) written.push_back(p.string());
    for (std::size_t k = 0; k < t.mips.size(); ++k) {  // smaller levels: <...>_mip<k>.png
      texture lv;
      lv.width = t.mips[k].width;
      lv.height = t.mips[k].height;
      lv.rgba = t.mips[k].rgba;
      fs::path pm = dir / (stem + "_tex" + std::to_string(i) + "_" + name + "_mip" + std::to_string(k + 1) + ".png");
      if (save_file(pm.string(), encode_png(lv))) written.push_back(pm.string());
    }
  }
  return written;
}

// -o with an extension we do not write (x.fbx) must not silently become a directory.
bool output_extension_ok(const std::string& output) {
  std::error_code ec;
  if (fs::is_directory(output, ec)) return true;
  if (!output.empty() && (output.back() == '/' || output.back() == '\\')) return true;
  const std::string ext = lower(fs::path(output).extension().string());
  if (ext.empty() || ext == ".glb" || ext == ".gltf" || ext == ".json") return true;
  std::cerr << "error: E_USAGE: cannot write '" << ext << "' files (" << output
            << "): rigrip writes .glb (binary glTF), .gltf (+ .bin) and .json (scene JSON); "
               "an -o without an extension is a directory\n";
  return false;
}

json& mark_failed(json& rep, json error) {
  rep["status"] = "failed";
  rep["error"] = std::move(error);
  return rep;
}

json& mark_skipped(json& rep, std::string reason) {
  rep["status"] = "skipped";
  rep["reason"] = std::move(reason);
  return rep;
}

// A file found by a directory walk that is not a game file, or the output of an earlier run.
bool is_foreign_file(const bytes& data, const std::string& path) {
  auto f = detect_format(data, path);
  return !f || f.value()->id == "gltf";
}

bool has_content(const scene& s) {
  bool has_bones = false;
  for (const auto& sk : s.skeletons) has_bones |= !sk.bones.empty();
  return has_bones || !s.meshes.empty() || !s.animations.empty() || !s.cameras.empty();
}

// A file can decode fine yet hold nothing glTF can carry (a lip-sync-only .anm): an empty
// .glb helps nobody and some importers refuse it, so say so instead. JSON keeps the metadata.
void refuse_empty_scene(json& rep, const job& jb, const scene& s) {
  std::string why =
      "nothing to convert: no skeleton, animation or mesh (see `rigrip info`; "
      "`--format json` keeps the file's metadata)";
  if (jb.from_directory)
    mark_skipped(rep, why);
  else
    mark_failed(rep, {{"code", "E_UNSUPPORTED_FEATURE"},
                      {"message", why},
                      {"file", jb.input},
                      {"format", s.format}});
}

result<void> write_output(const scene& s, const std::string& path, const convert_options& o,
                          diagnostics& d) {
  if (o.out_format != "json") return gltf::write_file(s, path, o.gltf, d);
  return save_text(path, scene_json::to_text(gltf::prepare(s, o.gltf, d), 1) + "\n");  // streamed
}

// A --clip filter that keeps nothing would write a file without the animation the user
// asked for: an error naming the clips there are.
std::optional<std::string> clip_filter_misses(const scene& s, const std::vector<std::string>& clips) {
  if (clips.empty() || s.animations.empty()) return std::nullopt;
  for (const auto& a : s.animations)
    for (const auto& c : clips)
      if (c == a.name || fnmatch(c.c_str(), a.name.c_str(), 0) == 0) return std::nullopt;
  std::string names;
  for (std::size_t i = 0; i < s.animations.size(); ++i) {
    if (i == 20) {
      names += ", ... (" + std::to_string(s.animations.size() - 20) + " more; `rigrip list` shows all)";
      break;
    }
    names += (i ? ", " : "") + s.animations[i].name;
  }
  std::string pats;
  for (const auto& c : clips) pats += (pats.empty() ? "'" : ", '") + c + "'";
  return "--clip " + pats + " matches none of the " + std::to_string(s.animations.size()) +
         " animations: " + names;
}

// --split-models: one scene per skeleton of a multi-model file (an SF3 X8PCnnX container),
// with that skeleton's meshes and animations, placed at the origin.
std::vector<std::pair<std::string, scene>> split_models(const scene& s, const std::string& output) {
  std::vector<std::pair<std::string, scene>> out;
  const fs::path o(output);
  for (std::size_t si = 0; si < s.skeletons.size(); ++si) {
    scene m;
    m.format = s.format;
    m.metadata = s.metadata;
    m.textures = s.textures;
    m.materials = s.materials;
    m.skeletons.push_back(s.skeletons[si]);
    auto& sk = m.skeletons[0];
    if (sk.extras.is_object()) sk.extras.erase("display_offset");
    for (const auto& me : s.meshes)
      if (me.skeleton == static_cast<int>(si)) {
        m.meshes.push_back(me);
        m.meshes.back().skeleton = 0;
      }
    for (const auto& a : s.animations)
      if (a.skeleton == static_cast<int>(si)) {
        m.animations.push_back(a);
        m.animations.back().skeleton = 0;
      }
    std::string name = sk.name.empty() ? std::to_string(si) : sk.name;
    for (auto& c : name)
      if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '-') c = '_';
    const std::string stem = o.stem().string();
    if (name.rfind(stem, 0) != 0) name = stem + "_" + name;  // X8PC41X_0, not X8PC41X_X8PC41X_0
    out.emplace_back((o.parent_path() / (name + o.extension().string())).string(), std::move(m));
  }
  return out;
}

// --previews: NAME.png beside the glTF `output`, of the first clip the --clip filter keeps.
// A picture that cannot be drawn is reported, not a failed conversion.
void add_preview(json& rep, const scene& s, const std::string& output, const convert_options& o) {
  if (!o.previews || o.out_format == "json") return;
  preview_request r;
  for (const auto& a : s.animations) {
    if (o.gltf.clips.empty()) break;
    for (const auto& c : o.gltf.clips)
      if (c == a.name || fnmatch(c.c_str(), a.name.c_str(), 0) == 0) r.clip = a.name;
    if (!r.clip.empty()) break;
  }
  const std::string png = (fs::path(output).parent_path() / (fs::path(output).stem().string() + ".png")).string();
  auto w = write_preview(s, png, r);
  if (w) {
    rep["previews"].push_back(png);
  } else {
    auto e = w.error();
    if (e.file.empty()) e.file = output;
    rep["preview_errors"].push_back(error_json(e));
  }
}

json write_split(json& rep, const scene& s, const job& jb, const convert_options& o, diagnostics& d,
                 std::chrono::steady_clock::time_point t0) {
  json outputs = json::array();
  for (const auto& [path, m] : split_models(s, jb.output)) {
    if (auto w = write_output(m, path, o, d); !w) {
      for (const auto& p : outputs) {  // no partial output: all models or none
        std::error_code ec;
        fs::remove(p.get<std::string>(), ec);
      }
      mark_failed(rep, error_json(w.error()));
      rep["warnings"] = warnings_json(d);
      return rep;
    }
    outputs.push_back(path);
    add_preview(rep, m, path, o);
  }
  rep["status"] = "ok";
  rep["output"] = outputs.empty() ? json(jb.output) : outputs[0];
  rep["outputs"] = outputs;
  rep["skeletons"] = s.skeletons.size();
  rep["animations"] = s.animations.size();
  rep["warnings"] = warnings_json(d);
  rep["seconds"] = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return rep;
}

json convert_one(const job& jb, const convert_options& o, const format* forced) {
  auto t0 = std::chrono::steady_clock::now();
  json rep{{"input", jb.input}, {"output", jb.output}};
  diagnostics d;
  d.file = jb.input;
  if (jb.failure) return mark_failed(rep, error_json(*jb.failure));
  result<scene> s = error{};
  std::shared_ptr<const archive_input> archive = jb.archive;
  if (!archive && !jb.archive_path.empty()) {  // found by a directory walk: opened now
    auto a = archive_for_job(jb);
    if (!a) return mark_failed(rep, error_json(a.error()));
    archive = a.value();
  }
  if (archive) {  // an archive entry: its siblings are found inside the archive
    const auto& e = archive->a.entries[jb.entry];
    if (e.problem) return mark_failed(rep, error_json(*e.problem));
    if (!forced && jb.from_directory) {
      auto f = detect_format(e.data, e.name);
      const container* c = f ? nullptr : find_container(f.error().format);
      if (c && c->archive) return mark_skipped(rep, "an archive inside the archive (convert it on its own)");
      if (!f || f.value()->id == "gltf") return mark_skipped(rep, "not a recognised game file");
    }
    s = read_scene(archive->a, jb.entry, o.common.read(), d, forced);
  } else {
    // Judged by its first bytes before it is read whole: a big file no format claims costs
    // one small read (and, found in a folder, is skipped like any other unrecognised file).
    auto data = load_input(jb.input, 1ull << 31, forced);
    if (!data && data.error().code == code::unknown_format && jb.from_directory)
      return mark_skipped(rep, "not a recognised game file");
    if (!data) return mark_failed(rep, error_json(data.error()));
    if (!forced && jb.from_directory && is_foreign_file(data.value(), jb.input))
      return mark_skipped(rep, "not a recognised game file");
    s = read_scene(data.value(), jb.input, o.common.read(), d, forced);
  }
  if (!s) {
    mark_failed(rep, error_json(s.error()));
    rep["warnings"] = warnings_json(d);
    return rep;
  }
  rep["format"] = s->format;
  if (auto miss = clip_filter_misses(s.value(), o.gltf.clips)) {
    mark_failed(rep, {{"code", "E_USAGE"}, {"message", *miss}, {"file", jb.input}, {"format", s->format}});
    rep["warnings"] = warnings_json(d);
    return rep;
  }
  if (o.out_format != "json" && !has_content(s.value()) && o.textures && !s->textures.empty()) {
    // A texture file (.bntx, X.Tex1.sbfres) with --textures: its PNGs, no empty glTF.
    std::error_code ec;
    if (const auto dir = fs::path(jb.output).parent_path(); !dir.empty()) fs::create_directories(dir, ec);
    rep["status"] = "ok";
    rep["textures"] = write_textures(s.value(), jb.output);
    rep["note"] = "textures only: PNGs written, no glTF";
    rep["warnings"] = warnings_json(d);
    return rep;
  }
  if (o.out_format != "json" && !has_content(s.value())) {
    refuse_empty_scene(rep, jb, s.value());
    rep["warnings"] = warnings_json(d);
    return rep;
  }
  if (o.split_models && s->skeletons.size() > 1) return write_split(rep, s.value(), jb, o, d, t0);
  if (auto w = write_output(s.value(), jb.output, o, d); !w) {
    mark_failed(rep, error_json(w.error()));
  } else {
    rep["status"] = "ok";
    if (o.textures) rep["textures"] = write_textures(s.value(), jb.output);
    add_preview(rep, s.value(), jb.output, o);
    rep["skeletons"] = s->skeletons.size();
    rep["animations"] = s->animations.size();
  }
  rep["warnings"] = warnings_json(d);
  rep["seconds"] = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return rep;
}

int run_convert(convert_options o) {
  const auto forced = forced_format(o.common);
  if (!forced) return 2;
  if (o.out_format != "glb" && o.out_format != "gltf" && o.out_format != "json") {
    std::cerr << "error: --format must be glb, gltf or json\n";
    return 2;
  }
  if (!output_extension_ok(o.output)) return 2;
  o.gltf.source_up = o.up == "z" ? gltf::up_axis::z : gltf::up_axis::y;
  if (o.resample > 0) o.gltf.resample_fps = o.resample;
  o.gltf.bone_display_mesh = !o.no_bone_mesh;
  o.gltf.ssc = o.ssc == "helpers" ? gltf::ssc_mode::helpers : gltf::ssc_mode::bake;
  o.gltf.additive_raw = o.additive == "raw";
  o.gltf.native_units = o.units == "native" || o.scale > 0;
  if (o.scale > 0) o.gltf.scale = static_cast<float>(o.scale);
  auto planned = plan_convert_jobs(o);
  if (!planned) return 2;
  std::vector<job> jobs = std::move(*planned);
  if (!o.batch.shard.empty() && !apply_shard(jobs, o.batch.shard)) return 2;
  o.gltf.binary = o.out_format != "gltf";
  return run_batch(jobs, o.batch, [&](const job& jb) { return convert_one(jb, o, *forced); });
}

void add_convert_options(CLI::App* c, convert_options& o) {
  c->add_option("inputs", o.inputs,
                "Input files, directories (archives found inside are opened too) or archives (LGP, SARC: every entry), or ARCHIVE/inner/path")
      ->required()
      ->check(existing_path_or_entry());
  c->add_option("--only", o.only,
                "Only archive entries whose inner path matches this glob (repeatable), e.g. --only 'rt*'");
  c->add_option("-o,--output", o.output, "Output file (.glb/.gltf/.json) or directory")->required();
  c->add_option("--format", o.out_format,
                "Output format: glb (default), gltf (+ .bin), json (scene JSON)")
      ->check(CLI::IsMember({"glb", "gltf", "json"}));
  c->add_option("-j,--jobs", o.batch.threads, "Worker threads (default: the number of CPU cores)")
      ->check(CLI::Range(1u, 256u));
  c->add_flag("--skip-existing", o.batch.skip_existing,
              "Do not convert inputs whose output already exists");
  c->add_option("--report", o.batch.report, "Write a JSON report of every input");
  c->add_option("--shard", o.batch.shard,
                "I/N: convert only the I-th (0-based) of N deterministic shares of the sorted inputs");
  c->add_option("--scale", o.scale,
                "Metres per source unit, replacing the family's documented factor "
                "(docs/gltf-output.md); goes into the data, never a scaled node")
      ->check(CLI::PositiveNumber);
  c->add_option("--units", o.units, "metres (default: real-world size) or native (the source's units)")
      ->check(CLI::IsMember({"metres", "meters", "native"}));
  c->add_option("--up", o.up, "Up axis of the source data, y or z (converted at the root)")
      ->check(CLI::IsMember({"y", "z"}));
  c->add_option("--resample", o.resample, "Bake every track to LINEAR keys at this rate")
      ->check(CLI::PositiveNumber);
  c->add_option("--clip", o.gltf.clips, "Only animations with this name or glob (repeatable)");
  c->add_flag("--in-place", o.gltf.in_place, "Drop root motion");
  c->add_flag("--split-models", o.split_models,
              "One output per model of a multi-model file (SF3 X8PCnnX): <stem>_<model>.glb");
  c->add_option("--ssc", o.ssc,
                "Segment scale compensation: bake (default; exactly the source's bones, exact "
                "under uniform parent scale) or helpers (exact, an extra <bone>_ssc node each)")
      ->check(CLI::IsMember({"bake", "helpers"}));
  c->add_option("--additive", o.additive,
                "Additive clips: rest (default; applied onto the skeleton's rest pose) or raw "
                "(the deltas as stored)")
      ->check(CLI::IsMember({"rest", "raw"}));
  c->add_flag("--textures", o.textures,
              "Also write every decoded texture as PNG next to the output");
  c->add_flag("--previews", o.previews,
              "Also draw NAME.png (256x256, software rendering) beside every glTF written; "
              "`rigrip preview` makes GIFs and contact sheets");
  c->add_flag("--no-bone-mesh", o.no_bone_mesh,
              "Do not add a bone-display mesh to skeleton-only files");
  add_common(c, o.common);
}

}  // namespace

command add_convert_command(CLI::App& app) {
  auto o = std::make_shared<convert_options>();
  auto* c = app.add_subcommand("convert", "Convert files or directories (recursive) to glTF 2.0");
  add_convert_options(c, *o);
  c->footer(
      "Examples:\n  rigrip convert Animal_Bass_Animation.bfres -o bass.glb\n"
      "  rigrip convert dumps/ -o out/ -j 2 --skip-existing --report report.json\n"
      "  rigrip convert walk.anm --skeleton sk62_clementine.skl -o walk.gltf --in-place\n"
      "  rigrip convert X8PC00A.BIN -o out/ --textures\n"
      "  rigrip convert battle.lgp -o out/ --only 'rt*'\n"
      "  rigrip convert battle.lgp/rtaa -o rtaa.glb");
  return {c, [o] { return run_convert(*o); }};
}

}  // namespace rigrip::cli
