// rigrip list: the animation clip names of a file, one per line.
#include "cli/commands.hpp"
#include "cli/common.hpp"

namespace rigrip::cli {
namespace {

struct list_options {
  std::string file;
  common_options common;
};

int run_list(const list_options& o) {
  const auto forced = forced_format(o.common);
  if (!forced) return 2;
  diagnostics d;
  auto s = read_scene(o.file, o.common.read(), d, *forced);
  if (!s) return fail(s.error());
  for (const auto& a : s->animations) std::cout << a.name << "\n";
  print_warnings(d);
  return 0;
}

}  // namespace

command add_list_command(CLI::App& app) {
  auto o = std::make_shared<list_options>();
  auto* c = app.add_subcommand("list", "Print the animation clip names, one per line");
  c->add_option("file", o->file, "Input file")->required()->check(CLI::ExistingFile);
  add_common(c, o->common);
  c->footer("Example:\n  rigrip list Animal_Dog_Animation.bfres");
  return {c, [o] { return run_list(*o); }};
}

}  // namespace rigrip::cli
