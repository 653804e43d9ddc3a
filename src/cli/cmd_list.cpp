// rigrip list: the animation clip names of a file, one per line; for an archive (LGP, SARC,
// Yaz0-compressed SARC) its entries: inner path, size and the kind rigrip detects.
#include <fmt/core.h>

#include "cli/archive_input.hpp"
#include "cli/commands.hpp"
#include "cli/common.hpp"

namespace rigrip::cli {
namespace {

struct list_options {
  std::string file;
  bool as_json = false;
  common_options common;
};

// What rigrip makes of an entry: a format id, "archive (sarc)" for an archive inside the
// archive, "-" for a file no format claims.
std::string kind_of(const container_entry& e) {
  auto f = detect_format(e.data, e.name);
  if (f) return std::string(f.value()->id);
  const container* c = find_container(f.error().format);
  if (c && c->archive) return "archive (" + std::string(c->id) + ")";
  if (f.error().code == code::unknown_format) return "-";
  return "! " + std::string(info(f.error().code).id) + ": " + f.error().message;
}

int list_archive(const archive_input& in, const list_options& o) {
  const auto& a = in.a;
  bool broken = false;
  if (o.as_json) {
    json entries = json::array();
    for (const auto& e : a.entries) {
      json j{{"path", e.name}, {"size", e.data.size()}};
      if (e.problem) {
        j["problem"] = error_json(*e.problem);
        broken = true;
      } else {
        std::string k = kind_of(e);
        j["kind"] = k == "-" ? json(nullptr) : json(k);
      }
      entries.push_back(std::move(j));
    }
    json compression = json::array();
    for (const auto* c : in.compression) compression.push_back(c->id);
    json out{{"file", o.file},
             {"container", a.kind->id},
             {"compression", compression},
             {"entries", entries},
             {"warnings", warnings_json(in.diags)}};
    std::cout << text_of(out, 2) << "\n";
    return broken ? 1 : 0;
  }
  std::size_t width = 4;
  for (const auto& e : a.entries) width = std::max(width, e.name.size());
  std::cout << o.file << ": " << in.kind() << " archive, " << a.entries.size() << " entries\n";
  for (const auto& e : a.entries) {
    std::string k;
    if (e.problem) {
      k = "! " + e.problem->to_string();
      broken = true;
    } else {
      k = kind_of(e);
    }
    std::cout << fmt::format("{:<{}}  {:>10}  {}\n", e.name, width, e.data.size(), k);
  }
  print_warnings(in.diags);
  return broken ? 1 : 0;
}

int run_list(const list_options& o) {
  const auto forced = forced_format(o.common);
  if (!forced) return 2;
  if (!*forced) {
    if (auto in = open_archive_input(o.file)) {
      if (!in->ok()) return fail(in->error());
      return list_archive(*in->value(), o);
    }
  }
  diagnostics d;
  auto s = read_input_scene(o.file, o.common.read(), d, *forced);
  if (!s) return fail(s.error());
  if (o.as_json) {
    json names = json::array();
    for (const auto& a : s->animations) names.push_back(a.name);
    std::cout << text_of(json{{"file", o.file}, {"animations", names}, {"warnings", warnings_json(d)}}, 2) << "\n";
    return 0;
  }
  for (const auto& a : s->animations) std::cout << a.name << "\n";
  print_warnings(d);
  return 0;
}

}  // namespace

command add_list_command(CLI::App& app) {
  auto o = std::make_shared<list_options>();
  auto* c = app.add_subcommand(
      "list", "Print the animation clip names, one per line; for an archive (LGP, SARC) its entries");
  c->add_option("file", o->file, "Input file, archive, or ARCHIVE/inner/path")
      ->required()
      ->check(existing_path_or_entry());
  c->add_flag("--json", o->as_json, "Machine-readable output");
  add_common(c, o->common);
  c->footer(
      "Examples:\n  rigrip list Animal_Dog_Animation.bfres\n  rigrip list battle.lgp\n"
      "  rigrip list --json Pack.sbactorpack");
  return {c, [o] { return run_list(*o); }};
}

}  // namespace rigrip::cli
