// Every subcommand lives in its own cmd_<name>.cpp and registers itself through one function
// of this shape. Adding a command: write cmd_<name>.cpp, declare it here, list it in main.cpp.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>

namespace rigrip::cli {

// A registered subcommand: its CLI11 node, and what runs when the user chose it (returns the
// process exit code: 0 success, 1 some inputs failed, 2 usage error). The runner owns the
// command's parsed options.
struct command {
  CLI::App* app = nullptr;
  std::function<int()> run;
};

command add_formats_command(CLI::App& app);
command add_info_command(CLI::App& app);
command add_list_command(CLI::App& app);
command add_dump_command(CLI::App& app);
command add_convert_command(CLI::App& app);
command add_rewrite_command(CLI::App& app);
command add_pack_command(CLI::App& app);
command add_report_command(CLI::App& app);
command add_diagnostics_command(CLI::App& app);
command add_graph_command(CLI::App& app);
command add_view_command(CLI::App& app);
command add_preview_command(CLI::App& app);

}  // namespace rigrip::cli
