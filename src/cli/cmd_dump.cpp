// rigrip dump: the scene as JSON, or with --raw the format's own decoded structures, or with
// --network the file's animation network.
// This JSON is a public contract: keep keys and meanings.
#include "cli/archive_input.hpp"
#include "cli/commands.hpp"
#include "cli/common.hpp"
#include "rigrip/gltf.hpp"  // scene_json
#include "rigrip/scene_text.hpp"

namespace rigrip::cli {
namespace {

struct dump_options {
  std::string file;
  std::string output;
  bool raw = false;
  bool network = false;
  bool compact = false;
  common_options common;
};

// The scene is streamed as text (no DOM: the biggest scenes are the slowest to dump); the raw
// structures are a DOM the families build.
result<std::string> dump_text(const bytes& data, const dump_options& o, diagnostics& d,
                              const format* forced) {
  const int indent = o.compact ? -1 : 1;
  if (o.network) {
    auto r = dump_graph(data, o.file, o.common.read(), d, forced);
    if (!r) return r.error();
    return o.compact ? text_of(r.value()) : text_of(r.value(), indent);
  }
  if (o.raw) {
    auto r = dump_raw(data, o.file, o.common.read(), d, forced);
    if (!r) return r.error();
    return o.compact ? text_of(r.value()) : text_of(r.value(), indent);
  }
  auto s = read_scene(data, o.file, o.common.read(), d, forced);
  if (!s) return s.error();
  return scene_json::to_text(s.value(), indent);
}

// An archive entry (ARCHIVE/inner): read with its siblings inside the archive.
result<std::string> dump_entry(const archive_entry_ref& ref, const dump_options& o, diagnostics& d,
                               const format* forced) {
  const int indent = o.compact ? -1 : 1;
  const auto& a = ref.in->a;
  const auto& e = a.entries[ref.entry];
  if (e.problem) return *e.problem;
  if (o.network) {
    auto r = dump_graph(e.data, a.entry_path(ref.entry), o.common.read(), d, forced);
    if (!r) return r.error();
    return text_of(r.value(), indent);
  }
  if (o.raw) {
    auto r = dump_raw(a, ref.entry, o.common.read(), d, forced);
    if (!r) return r.error();
    return text_of(r.value(), indent);
  }
  auto s = read_scene(a, ref.entry, o.common.read(), d, forced);
  if (!s) return s.error();
  return scene_json::to_text(s.value(), indent);
}

int run_dump(const dump_options& o) {
  const auto forced = forced_format(o.common);
  if (!forced) return 2;
  diagnostics d;
  d.file = o.file;
  result<std::string> t = error{};
  if (auto ref = resolve_entry(o.file)) {
    if (!ref->ok()) return fail(ref->error());
    t = dump_entry(ref->value(), o, d, *forced);
  } else {
    auto data = load_input(o.file, 1ull << 31, *forced);
    if (!data) return fail(data.error());
    t = dump_text(data.value(), o, d, *forced);
  }
  if (!t) return fail(t.error());
  std::string text = std::move(t.value());
  text += "\n";
  if (o.output.empty()) {
    std::cout << text;
  } else if (auto w = save_text(o.output, text); !w) {
    return fail(w.error());
  }
  print_warnings(d);
  return 0;
}

}  // namespace

command add_dump_command(CLI::App& app) {
  auto o = std::make_shared<dump_options>();
  auto* c = app.add_subcommand(
      "dump",
      "Print the scene as JSON (native units/axes, seconds), or --raw the format's own structures");
  c->add_option("file", o->file, "Input file, or ARCHIVE/inner/path")->required()->check(existing_path_or_entry());
  auto* raw = c->add_flag("--raw", o->raw, "Print the format's decoded raw structures instead of the scene");
  c->add_flag("--network", o->network,
              "Print the animation network instead (nodes, state machines, transitions, control parameters)")
      ->excludes(raw);
  c->add_flag("--compact", o->compact, "One-line JSON");
  c->add_option("-o,--output", o->output, "Write to a file instead of standard output");
  add_common(c, o->common);
  c->footer(
      "Examples:\n  rigrip dump Animal_Bass.bfres > bass.json\n  rigrip dump --raw X8PC00A.BIN\n  rigrip dump --network Network_RuntimeBasic1.nmb");
  return {c, [o] { return run_dump(*o); }};
}

}  // namespace rigrip::cli
