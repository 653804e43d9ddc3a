// rigrip pack: write a game format from a glTF or scene JSON.
#include <filesystem>

#include "cli/archive_input.hpp"
#include "cli/commands.hpp"
#include "cli/common.hpp"

namespace fs = std::filesystem;

namespace rigrip::cli {
namespace {

struct pack_options {
  std::string input;
  std::string output;
  std::string format_id;
  std::string template_path;
  std::string skeleton_path;
  double fps = 0;
  std::string into;   // --into ARCHIVE: write the result as an entry of this archive
  std::string entry;  // --entry NAME: the inner path it replaces or adds
};

// How well the output's file name alone points to a format: no content yet, so the format's
// name rule decides, or failing that its extensions.
int name_score(const format& f, const std::string& name) {
  int sc = 0;
  try {
    sc = f.detect ? f.detect({}, name) : 0;
  } catch (...) {
    sc = 0;
  }
  for (auto e : f.extensions)
    if (sc == 0 && name.size() > e.size() && name.ends_with(e)) sc = score::name_only;
  return sc;
}

// `--format telltale` names a family: pick its writable format that the output's file name
// points to (walk.anm -> telltale-anm, rtda -> ff7-da), as the issues' examples write it.
const format* writable_format_of_family(const std::string& family, const std::string& out,
                                        std::string& why) {
  std::vector<const format*> writable;
  for (const auto* f : formats())
    if (f->family == family && f->pack) writable.push_back(f);
  if (writable.size() == 1) return writable[0];
  const format* best = nullptr;
  int best_score = 0, ties = 0;
  std::string name = lower(fs::path(out).filename().string());
  for (const auto* f : writable) {
    int sc = name_score(*f, name);
    if (sc > best_score)
      best = f, best_score = sc, ties = 0;
    else if (sc == best_score && sc > 0)
      ++ties;
  }
  if (best && !ties) return best;
  for (const auto* f : writable) why += (why.empty() ? "" : ", ") + std::string(f->id);
  return nullptr;
}

// The writable format --format names (an id, or a family the output name settles); nullptr
// after printing why when there is none.
const format* target_format(const pack_options& o) {
  const format* f = find_format(o.format_id);
  if (!f) {
    std::string choices;
    // With --into the entry's name is the file name that says which format.
    f = writable_format_of_family(lower(o.format_id), o.into.empty() ? o.output : o.entry, choices);
    if (!f && !choices.empty()) {
      std::cerr << "error: family '" << o.format_id << "' writes several formats (" << choices
                << "); the output name does not say which: pass one of them to --format\n";
      return nullptr;
    }
  }
  if (!f) {
    std::cerr << "error: unknown format id '" << o.format_id << "' (see `rigrip formats`)\n";
    return nullptr;
  }
  if (!f->pack) {
    std::cerr << "error: format '" << f->id << "' cannot be written (see `rigrip formats`)\n";
    return nullptr;
  }
  return f;
}

// Loads an optional companion file (--template, --skeleton) into the pack context.
result<void> load_companion(const std::string& path, std::optional<bytes>& data,
                            std::string& path_out) {
  if (path.empty()) return {};
  auto t = load_file(path);
  if (!t) return t.error();
  data = std::move(t.value());
  path_out = path;
  return {};
}

// pack --into ARCHIVE --entry NAME: the entry replaced (its old bytes the template unless
// --template says otherwise) or added, every other entry kept byte for byte, the archive
// compressed again as it was.
int pack_into_archive(const pack_options& o, const format& f) {
  auto opened = open_archive_input(o.into);
  if (!opened)
    return fail(error{code::unknown_format,
                      "not an archive: --into takes an LGP, SARC or Yaz0-compressed SARC (see `rigrip formats`)",
                      o.into, no_offset, {}});
  if (!opened->ok()) return fail(opened->error());
  const archive_input& in = *opened->value();
  const bool replacing = in.index_of(o.entry).has_value();
  diagnostics d;
  d.file = o.input;
  auto s = read_scene(o.input, read_options{}, d);
  if (!s) return fail(s.error());
  pack_context ctx;
  ctx.diags = &d;
  if (o.fps > 0) ctx.fps = o.fps;
  if (auto t = load_companion(o.template_path, ctx.template_file, ctx.template_path); !t) return fail(t.error());
  if (auto t = load_companion(o.skeleton_path, ctx.skeleton_file, ctx.skeleton_path); !t) return fail(t.error());
  auto r = pack_into(s.value(), f, ctx, in.a, in.archive_bytes(), o.entry);
  if (!r) return fail(r.error());
  auto w = in.rewrap(std::move(r.value()));
  if (!w) return fail(w.error());
  if (auto saved = save_file(o.output, w.value()); !saved) return fail(saved.error());
  print_warnings(in.diags);
  print_warnings(d);
  std::cout << "packed: " << o.input << " -> " << o.output << " (entry '" << o.entry << "' "
            << (replacing ? "replaced" : "added") << ", " << f.id << "; " << in.kind() << " archive, "
            << w->size() << " bytes)\n";
  return 0;
}

int run_pack(const pack_options& o) {
  if (o.into.empty() != o.entry.empty()) {
    std::cerr << "error: E_USAGE: --into ARCHIVE and --entry NAME go together (the entry to replace or "
                 "add; `rigrip list ARCHIVE` shows the entries)\n";
    return 2;
  }
  const format* f = target_format(o);
  if (!f) return 2;
  if (!o.into.empty()) return pack_into_archive(o, *f);
  diagnostics d;
  d.file = o.input;
  read_options ro;
  auto s = read_scene(o.input, ro, d);
  if (!s) return fail(s.error());
  pack_context ctx;
  ctx.output_path = o.output;
  ctx.diags = &d;
  if (o.fps > 0) ctx.fps = o.fps;
  if (auto t = load_companion(o.template_path, ctx.template_file, ctx.template_path); !t)
    return fail(t.error());
  if (auto t = load_companion(o.skeleton_path, ctx.skeleton_file, ctx.skeleton_path); !t)
    return fail(t.error());
  auto r = pack(s.value(), *f, ctx);
  if (!r) return fail(r.error());
  if (auto w = save_file(o.output, r.value()); !w) return fail(w.error());
  print_warnings(d);
  std::cout << "packed: " << o.input << " -> " << o.output << " (" << r->size() << " bytes, "
            << f->id << ")\n";
  return 0;
}

}  // namespace

command add_pack_command(CLI::App& app) {
  auto o = std::make_shared<pack_options>();
  auto* c = app.add_subcommand("pack", "Write a game format from a glTF or scene JSON");
  c->add_option("input", o->input, "Input .glb/.gltf/.json")->required()->check(CLI::ExistingFile);
  c->add_option("--format", o->format_id,
                "Target format id, or a family name when the output file name says which "
                "(see `rigrip formats`)")
      ->required();
  c->add_option("-o,--output", o->output, "Output file")->required();
  c->add_option("--template", o->template_path, "Original file whose other contents are kept")
      ->check(CLI::ExistingFile);
  c->add_option("--skeleton", o->skeleton_path, "The format's skeleton file")
      ->check(CLI::ExistingFile);
  c->add_option("--fps", o->fps, "Frame rate for formats that count frames")
      ->check(CLI::PositiveNumber);
  c->add_option("--into", o->into,
                "Archive (LGP, SARC, .szs) to write the result into as entry --entry; -o is the new archive")
      ->check(CLI::ExistingFile);
  c->add_option("--entry", o->entry,
                "With --into: the inner path to replace (its old bytes are the template) or add");
  c->footer(
      "Examples:\n  rigrip pack anim.glb --format bfres --template Original.bfres -o New.bfres\n"
      "  rigrip pack walk.glb --format telltale --skeleton x.skl -o walk.anm\n"
      "  rigrip pack edited.glb --format ff7-da --into battle.lgp --entry rtda -o battle-new.lgp");
  return {c, [o] { return run_pack(*o); }};
}

}  // namespace rigrip::cli
