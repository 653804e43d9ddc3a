// rigrip rewrite: read through a format's raw layer and write it back, byte for byte.
#include <fmt/core.h>

#include "cli/archive_input.hpp"
#include "cli/commands.hpp"
#include "cli/common.hpp"

namespace rigrip::cli {
namespace {

struct rewrite_options {
  std::string input;
  std::string output;
  bool allow_diff = false;
  common_options common;
};

// Names the first differing byte; returns false when that stops the command.
bool report_difference(const bytes& in, const bytes& out, const rewrite_options& o) {
  std::size_t i = 0;
  while (i < in.size() && i < out.size() && in[i] == out[i]) ++i;
  error e{code::roundtrip_mismatch,
          fmt::format("raw layer output differs from the input (sizes {} vs {})", out.size(),
                      in.size()),
          o.input,
          i,
          {}};
  std::cerr << (o.allow_diff ? "warning: " : "error: ") << e.to_string() << "\n";
  return o.allow_diff;
}

// An archive (compressed or not): its entries back into the same container, then the
// compression again (the original compressed bytes when nothing changed).
int rewrite_archive(const archive_input& in, const rewrite_options& o) {
  diagnostics d;
  d.file = o.input;
  auto r = rewrite(in.archive_bytes(), o.input, o.common.read(), d, nullptr);
  if (!r) return fail(r.error());
  auto w = in.rewrap(std::move(r.value()));
  if (!w) return fail(w.error());
  const auto& a = in.file;
  const auto& b = w.value();
  if (a != b && !report_difference(a, b, o)) return 1;
  if (auto s = save_file(o.output, b); !s) return fail(s.error());
  print_warnings(d);
  std::cout << (a == b ? "identical: " : "written (differs): ") << o.input << " -> " << o.output << " ("
            << b.size() << " bytes, " << in.kind() << " archive, " << in.a.entries.size() << " entries)\n";
  return 0;
}

int run_rewrite(const rewrite_options& o) {
  const auto forced = forced_format(o.common);
  if (!forced) return 2;
  if (!*forced)
    if (auto in = open_archive_input(o.input)) {
      if (!in->ok()) return fail(in->error());
      return rewrite_archive(*in->value(), o);
    }
  auto data = load_input(o.input, 1ull << 31, *forced);
  if (!data) return fail(data.error());
  diagnostics d;
  d.file = o.input;
  auto r = rewrite(data.value(), o.input, o.common.read(), d, *forced);
  if (!r) return fail(r.error());
  const auto& a = data.value();
  const auto& b = r.value();
  if (a != b && !report_difference(a, b, o)) return 1;
  if (auto w = save_file(o.output, b); !w) return fail(w.error());
  print_warnings(d);
  std::cout << (a == b ? "identical: " : "written (differs): ") << o.input << " -> " << o.output
            << " (" << b.size() << " bytes)\n";
  return 0;
}

}  // namespace

command add_rewrite_command(CLI::App& app) {
  auto o = std::make_shared<rewrite_options>();
  auto* c = app.add_subcommand(
      "rewrite", "Read through the format's raw layer and write it back (identical bytes)");
  c->add_option("input", o->input, "Input file")->required()->check(CLI::ExistingFile);
  c->add_option("-o,--output", o->output, "Output file")->required();
  c->add_flag("--allow-diff", o->allow_diff,
              "Write the output even when it differs from the input");
  add_common(c, o->common);
  c->footer(
      "Example:\n"
      "  rigrip rewrite Animal_Bass.sbfres -o copy.sbfres && cmp Animal_Bass.sbfres copy.sbfres");
  return {c, [o] { return run_rewrite(*o); }};
}

}  // namespace rigrip::cli
