// rigrip formats: the registry's formats, what each can do and how it is detected.
#include <fmt/core.h>

#include "cli/commands.hpp"
#include "cli/common.hpp"

namespace rigrip::cli {
namespace {

json formats_json() {
  json out = json::array();
  for (const auto* f : formats()) {
    json exts = json::array();
    for (auto e : f->extensions) exts.push_back(std::string(e));
    out.push_back(json{{"id", std::string(f->id)},
                       {"family", std::string(f->family)},
                       {"description", std::string(f->description)},
                       {"extensions", exts},
                       {"read", f->read != nullptr},
                       {"dump_raw", f->dump_raw != nullptr},
                       {"rewrite", f->rewrite != nullptr},
                       {"write", f->pack != nullptr},
                       {"detection", std::string(f->detection)}});
  }
  return out;
}

void print_formats_table(const json& formats) {
  std::cout << fmt::format("{:<16} {:<10} {:<5} {:<4} {:<7} {:<5} {}\n", "ID", "FAMILY", "READ",
                           "RAW", "REWRITE", "WRITE", "DESCRIPTION");
  for (const auto& f : formats) {
    std::string exts;
    for (const auto& e : f["extensions"]) exts += (exts.empty() ? "" : " ") + e.get<std::string>();
    std::cout << fmt::format(
        "{:<16} {:<10} {:<5} {:<4} {:<7} {:<5} {} [{}]\n", f["id"].get<std::string>(),
        f["family"].get<std::string>(), f["read"].get<bool>() ? "yes" : "-",
        f["dump_raw"].get<bool>() ? "yes" : "-", f["rewrite"].get<bool>() ? "yes" : "-",
        f["write"].get<bool>() ? "yes" : "-", f["description"].get<std::string>(), exts);
    std::cout << fmt::format("{:<16}   detected by {}\n", "", f["detection"].get<std::string>());
  }
}

int run_formats(bool as_json) {
  json out = formats_json();
  if (as_json)
    std::cout << text_of(out, 2) << "\n";
  else
    print_formats_table(out);
  return 0;
}

}  // namespace

command add_formats_command(CLI::App& app) {
  auto as_json = std::make_shared<bool>(false);
  auto* c = app.add_subcommand(
      "formats", "List format families, file kinds, read/write support and detection");
  c->add_flag("--json", *as_json, "Machine-readable output");
  c->footer("Example:\n  rigrip formats --json");
  return {c, [as_json] { return run_formats(*as_json); }};
}

}  // namespace rigrip::cli
