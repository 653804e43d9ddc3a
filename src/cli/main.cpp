// rigrip command-line tool: formats, info, list, dump, convert, rewrite, pack, report, diagnostics,
// graph.
// Exit codes: 0 success, 1 some inputs failed, 2 usage error.
// Each subcommand lives in its own cmd_<name>.cpp (see commands.hpp); this file only wires them.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdint>
#include <exception>
#include <string>
#include <iostream>
#include <vector>

#include "cli/commands.hpp"
#include "rigrip/registry.hpp"

using namespace rigrip::cli;

namespace {
// CLI11 says only "A subcommand is required" for `rigrip conver`: name the nearest command.
std::size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diag = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}

bool is_command(const std::string& name, CLI::App& app) {
  for (const auto* sc : app.get_subcommands([](CLI::App*) { return true; }))
    if (sc->get_name() == name) return true;
  return false;
}

std::string unknown_command_message(const std::string& typed, CLI::App& app) {
  std::string best, all;
  std::size_t best_d = SIZE_MAX;
  for (const auto* sc : app.get_subcommands([](CLI::App*) { return true; })) {
    const std::string& n = sc->get_name();
    all += (all.empty() ? "" : ", ") + n;
    const std::size_t d = edit_distance(typed, n);
    if (d < best_d) best_d = d, best = n;
  }
  std::string msg = "error: E_USAGE: unknown command '" + typed + "'";
  if (best_d <= std::max<std::size_t>(2, typed.size() / 3)) msg += "; did you mean '" + best + "'?";
  return msg + " (commands: " + all + "; `rigrip --help` describes them)";
}
}  // namespace

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
      add_graph_command(app),   add_view_command(app),        add_preview_command(app),
  };

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (argc > 1 && argv[1][0] != '-' && !is_command(argv[1], app)) {
      std::cerr << unknown_command_message(argv[1], app) << "\n";
      return 2;
    }
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
