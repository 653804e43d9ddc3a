// Pieces every rigrip subcommand shares: input options, printing of errors and warnings,
// JSON of errors/warnings, and safe text output.
#pragma once

#include <CLI/CLI.hpp>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "rigrip/registry.hpp"

namespace rigrip::cli {

using nlohmann::json;

// Options of every command that reads game files.
struct common_options {
  std::string skeleton;
  std::vector<std::string> anims;  // --anim: animations to put on a mesh's skeleton
  double fps = 0;
  std::string input_format;
  bool upper_case_bones = false;
  bool force = false;
  int lod = -1;                            // -1: the reader's default (LOD 0)
  std::vector<std::string> texture_files;  // texture files for models whose textures live apart

  [[nodiscard]] read_options read() const;
};

void add_common(CLI::App* c, common_options& o);

// The format forced by --input-format (nullptr when none); no value, after printing why, when
// the id is unknown (a usage error, exit code 2).
[[nodiscard]] std::optional<const format*> forced_format(const common_options& o);

void print_warnings(const diagnostics& d, std::ostream& os = std::cerr);

void print_error(const error& e);
// Prints the error and returns exit code 1, for `return fail(r.error());`.
int fail(const error& e);

[[nodiscard]] json error_json(const error& e);
[[nodiscard]] json warnings_json(const diagnostics& d);

// Paths and messages can carry bytes that are not UTF-8; printing must never throw on them.
[[nodiscard]] std::string text_of(const json& j, int indent = -1);

[[nodiscard]] result<void> save_text(const std::string& path, const std::string& text);

[[nodiscard]] std::string lower(std::string s);

// `rigrip info`'s summary of a scene (cmd_info.cpp; `view` shows it too): format, skeletons,
// animations, meshes, textures, materials, metadata.
[[nodiscard]] json scene_summary(const scene& s);
// The glTF reader keeps what write-back needs; this counts a .glb/.gltf's meshes, textures, materials.
void count_gltf_content(const std::string& path, json& j);
// Per clip, the worst world error of the default segment-scale-compensation bake.
void add_ssc_bake_errors(const scene& s, json& j);

}  // namespace rigrip::cli
