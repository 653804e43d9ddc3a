// `rigrip report merge A.json B.json -o all.json`: the reports of `convert --shard I/N`
// runs become the report one unsharded run would have written (inputs sorted by path,
// the summary counted again from each input's status).
#include "cli/commands.hpp"

#include <algorithm>
#include <iostream>
#include <map>

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include "cli/common.hpp"
#include "rigrip/registry.hpp"

namespace rigrip::cli {
namespace {

using nlohmann::json;

// Returns the process exit code: 0 merged, 1 an input is unreadable, not a report, or
// names an input that another report also names (overlapping shards).
int merge_reports(const std::vector<std::string>& reports, const std::string& output) {
  std::vector<json> inputs;
  std::map<std::string, std::string> seen;  // input path -> report that listed it
  for (const auto& path : reports) {
    auto data = load_file(path);
    if (!data) {
      std::cerr << "error: " << data.error().to_string() << "\n";
      return 1;
    }
    json r = json::parse(data.value().begin(), data.value().end(), nullptr, false);
    if (r.is_discarded() || !r.is_object() || !r.contains("inputs") || !r["inputs"].is_array()) {
      std::cerr << "error: " << path << ": not a rigrip convert report (no \"inputs\" array)\n";
      return 1;
    }
    for (auto& in : r["inputs"]) {
      if (!in.is_object() || !in.contains("input") || !in["input"].is_string()) {
        std::cerr << "error: " << path << ": an entry of \"inputs\" has no \"input\" path\n";
        return 1;
      }
      const std::string name = in["input"].get<std::string>();
      auto [it, fresh] = seen.emplace(name, path);
      if (!fresh) {
        std::cerr << "error: " << name << " is in both " << it->second << " and " << path
                  << " (shards overlap)\n";
        return 1;
      }
      inputs.push_back(std::move(in));
    }
  }
  std::stable_sort(inputs.begin(), inputs.end(), [](const json& a, const json& b) {
    return a["input"].get_ref<const std::string&>() < b["input"].get_ref<const std::string&>();
  });
  std::size_t ok = 0, failed = 0, skipped = 0;
  json failed_list = json::array();
  for (const auto& r : inputs) {
    const std::string s = r.value("status", std::string());
    if (s == "ok") ++ok;
    else if (s == "failed") ++failed, failed_list.push_back(r["input"]);
    else ++skipped;
  }
  json merged{{"summary", {{"converted", ok}, {"failed", failed}, {"skipped", skipped}, {"failed_inputs", failed_list}}},
              {"inputs", std::move(inputs)},
              {"merged_from", reports}};
  std::string text = merged.dump(1, ' ', false, json::error_handler_t::replace) + "\n";
  auto w = save_text(output, text);
  if (!w) {
    std::cerr << "error: " << w.error().to_string() << "\n";
    return 1;
  }
  std::cout << fmt::format("merged {} reports: converted {}, failed {}, skipped {}\n", reports.size(), ok, failed,
                           skipped);
  return 0;
}

}  // namespace

command add_report_command(CLI::App& app) {
  struct merge_options {
    std::vector<std::string> reports;
    std::string output;
  };
  auto o = std::make_shared<merge_options>();
  auto* c = app.add_subcommand("report", "Work with convert --report files");
  c->require_subcommand(1);
  auto* m = c->add_subcommand("merge", "Merge the reports of convert --shard runs into one");
  m->add_option("reports", o->reports, "Report files")->required()->check(CLI::ExistingFile);
  m->add_option("-o,--output", o->output, "Merged report")->required();
  m->footer("Example:\n  rigrip report merge shard-0.json shard-1.json -o all.json");
  return {c, [o] { return merge_reports(o->reports, o->output); }};
}

}  // namespace rigrip::cli
