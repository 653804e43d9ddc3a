#include "cli/common.hpp"

#include <algorithm>
#include <cctype>

namespace rigrip::cli {

read_options common_options::read() const {
  read_options o;
  if (!skeleton.empty()) o.skeleton_path = skeleton;
  if (lod >= 0) o.lod = lod;
  o.texture_paths = texture_files;
  o.animations = anims;
  if (fps > 0) o.fps = fps;
  o.upper_case_bones = upper_case_bones;
  o.force = force;
  return o;
}

void add_common(CLI::App* c, common_options& o) {
  c->add_option("--skeleton", o.skeleton, "Skeleton/rig file for animation-only inputs")
      ->check(CLI::ExistingFile);
  c->add_option("--anim", o.anims,
                "Animations (file or glob; repeatable) to put on a mesh's skeleton (Telltale .d3dmesh + .skl)");
  c->add_option("--fps", o.fps, "Frame rate for formats that count frames (e.g. BFRES, default 30)")
      ->check(CLI::PositiveNumber);
  c->add_option("--input-format", o.input_format,
                "Force the input format id (see `rigrip formats`)");
  c->add_flag("--upper-case-bones", o.upper_case_bones,
              "Upper-case bone names (morpheme / Forgelight)");
  c->add_flag("--force", o.force,
              "Go on when --skeleton binds less than half of the animated bones");
  c->add_option("--lod", o.lod, "Level of detail of models that have several (0 = finest, the default)")
      ->check(CLI::NonNegativeNumber);
  c->add_option_function<std::vector<std::string>>(
       "--zstd-dict",
       [](const std::vector<std::string>& paths) {
         for (const auto& p : paths)
           if (auto r = add_zstd_dictionaries(p); !r) throw CLI::ValidationError("--zstd-dict", r.error().to_string());
       },
       "Zstandard dictionaries for .zs files (a dictionary, or a pack of them such as Tears of the Kingdom's "
       "Pack/ZsDic.pack.zs, which is also found by itself beside or above the input); repeatable")
      ->check(CLI::ExistingFile);
  c->add_option("--texture-file", o.texture_files,
                "Texture file for models whose textures live apart (BFRES: X.Tex1.sbfres is found "
                "by name); repeatable")
      ->check(CLI::ExistingFile);
}

std::optional<const format*> forced_format(const common_options& o) {
  if (o.input_format.empty()) return static_cast<const format*>(nullptr);
  const format* f = find_format(o.input_format);
  if (!f) {
    std::cerr << "error: unknown format id '" << o.input_format << "' (see `rigrip formats`)\n";
    return std::nullopt;
  }
  return f;
}

void print_warnings(const diagnostics& d, std::ostream& os) {
  for (const auto& w : d.warnings) os << "warning: " << w.to_string() << "\n";
}

void print_error(const error& e) {
  std::cerr << "error: " << e.to_string() << "\n";
}

int fail(const error& e) {
  print_error(e);
  return 1;
}

json error_json(const error& e) {
  json j{{"code", std::string(info(e.code).id)}, {"message", e.message}, {"file", e.file}};
  if (e.offset != no_offset) j["offset"] = e.offset;
  if (!e.format.empty()) j["format"] = e.format;
  return j;
}

json warnings_json(const diagnostics& d) {
  json a = json::array();
  for (const auto& w : d.warnings) {
    json j{{"code", std::string(info(w.code).id)}, {"message", w.message}};
    if (w.offset != no_offset) j["offset"] = w.offset;
    a.push_back(j);
  }
  return a;
}

std::string text_of(const json& j, int indent) {
  return j.dump(indent, ' ', false, json::error_handler_t::replace);
}

result<void> save_text(const std::string& path, const std::string& text) {
  // Viewed in place: a copy of a 32 MB dump into bytes first only touched another 32 MB.
  return save_file(path, byte_view(reinterpret_cast<const std::uint8_t*>(text.data()), text.size()));
}

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

}  // namespace rigrip::cli
