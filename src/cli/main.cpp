// rigrip command-line tool: formats, info, list, dump, convert, rewrite, pack, report, diagnostics,
// graph.
// Exit codes: 0 success, 1 some inputs failed, 2 usage error.
// Each subcommand lives in its own cmd_<name>.cpp (see commands.hpp); this file only wires them.
#include <CLI/CLI.hpp>
#include <exception>
#include <iostream>
#include <vector>

#include "cli/commands.hpp"
#include "rigrip/registry.hpp"

using namespace rigrip::cli;

int main(int argc, char** argv) {
  rigrip::remove_temporaries_on_signals();  // Ctrl-C / kill leave no temporaries behind
  CLI::App app{
      "rigrip: game skeletal animation (BFRES, Shining Force III, Telltale, FF7, morpheme) "
      "to glTF 2.0 and back"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "rigrip 0.1.0");
  app.footer(
      "Examples:\n"
      "  rigrip formats\n"
      "  rigrip info Animal_Bass.bfres\n"
      "  rigrip convert game_dump/ -o out/ -j 2 --report report.json\n"
      "  rigrip dump --raw X8PC00A.BIN");

  // In the order `rigrip --help` lists them.
  const std::vector<command> commands{
      add_formats_command(app), add_info_command(app),        add_list_command(app),
      add_dump_command(app),    add_convert_command(app),     add_rewrite_command(app),
      add_pack_command(app),    add_report_command(app),      add_diagnostics_command(app),
      add_graph_command(app),
  };

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int r = app.exit(e);
    return r == 0 ? 0 : 2;
  }
  try {
    for (const auto& c : commands)
      if (*c.app) return c.run();
  } catch (const std::exception& e) {
    std::cerr << "error: E_INTERNAL: " << e.what() << "\n";
    return 1;
  }
  return 2;
}
