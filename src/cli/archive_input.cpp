#include "cli/archive_input.hpp"

#include <cstring>
#include <filesystem>
#include <fstream>

#include "cli/common.hpp"

namespace fs = std::filesystem;

namespace rigrip::cli {
namespace {

bytes read_head(const std::string& path, std::size_t n) {
  bytes b(n);
  std::ifstream f(path, std::ios::binary);
  f.read(reinterpret_cast<char*>(b.data()), static_cast<std::streamsize>(n));
  b.resize(f ? n : static_cast<std::size_t>(std::max<std::streamsize>(0, f.gcount())));
  return b;
}

// A Yaz0 stream whose first four bytes are literals (the flag byte's top bits set) shows
// its payload's magic in the clear: no need to decompress an .sbfres to learn it is no SARC.
bool yaz0_may_hold_archive(byte_view head) {
  if (head.size() < 21) return true;
  if ((head[16] & 0xF0) != 0xF0) return true;
  return std::memcmp(head.data() + 17, "SARC", 4) == 0;
}

}  // namespace

std::string archive_input::kind() const {
  std::string k(a.kind ? a.kind->id : "?");
  for (auto it = compression.rbegin(); it != compression.rend(); ++it) k += " in " + std::string((*it)->id);
  return k;
}

std::optional<std::size_t> archive_input::index_of(const std::string& inner) const {
  const container_entry* e = a.find(inner);
  if (!e) return std::nullopt;
  return static_cast<std::size_t>(e - a.entries.data());
}

result<bytes> archive_input::rewrap(bytes new_archive) const {
  if (compression.empty()) return new_archive;
  if (new_archive == payload) return file;  // unchanged: the original compressed bytes
  if (compression.size() > 1)
    return error{code::write_unsupported, "cannot re-compress an archive inside nested compression streams",
                 a.path, no_offset, {}};
  const container* c = compression[0];
  try {
    return c->repack(file, {container_entry{a.path, std::move(new_archive), std::nullopt}});
  } catch (const std::exception& e) {
    return error{code::internal, std::string("re-compressing the archive: ") + e.what(), a.path, no_offset,
                 std::string(c->id)};
  }
}

std::optional<result<std::shared_ptr<const archive_input>>> open_archive_input(const std::string& path) {
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) return std::nullopt;
  const bytes head = read_head(path, 64);
  const container* c = detect_container(head, path);
  if (!c) return std::nullopt;
  if (!c->archive && c->id == "yaz0" && !yaz0_may_hold_archive(head)) return std::nullopt;
  auto file = load_input(path);  // (finds the zstd dictionaries a .zs stream needs)
  if (!file) return result<std::shared_ptr<const archive_input>>(file.error());
  auto in = std::make_shared<archive_input>();
  in->file = std::move(file.value());
  if (!c->archive) {
    auto u = unwrap(in->file, path);
    if (!u) return result<std::shared_ptr<const archive_input>>(u.error());
    if (u.value().chain.empty() || !detect_archive(u.value().data, path)) return std::nullopt;
    in->payload = std::move(u.value().data);
    in->compression = u.value().chain;
  }
  in->diags.file = path;
  auto a = open_archive(in->archive_bytes(), path, in->diags);
  if (!a) return result<std::shared_ptr<const archive_input>>(a.error());
  in->a = std::move(a.value());
  return result<std::shared_ptr<const archive_input>>(std::shared_ptr<const archive_input>(std::move(in)));
}

std::optional<archive_path> split_archive_path(const std::string& path) {
  std::error_code ec;
  if (path.empty() || fs::exists(path, ec)) return std::nullopt;
  fs::path p(path);
  while (p.has_parent_path() && p.parent_path() != p) {
    p = p.parent_path();
    if (fs::is_directory(p, ec)) return std::nullopt;
    if (fs::is_regular_file(p, ec)) {
      std::string a = p.string();
      std::string inner = path.substr(a.size());
      while (!inner.empty() && inner.front() == '/') inner.erase(0, 1);
      if (inner.empty()) return std::nullopt;
      return archive_path{a, inner};
    }
  }
  return std::nullopt;
}

std::optional<result<archive_entry_ref>> resolve_entry(const std::string& path) {
  auto sp = split_archive_path(path);
  if (!sp) return std::nullopt;
  auto in = open_archive_input(sp->archive);
  if (!in) return std::nullopt;  // the leading file is no archive: the path just does not exist
  if (!in->ok()) return result<archive_entry_ref>(in->error());
  auto idx = in->value()->index_of(sp->inner);
  if (!idx)
    return result<archive_entry_ref>(error{code::io_error,
                                           "no entry '" + sp->inner + "' in the " + in->value()->kind() +
                                               " archive (`rigrip list " + sp->archive + "` shows its entries)",
                                           sp->archive, no_offset, {}});
  return result<archive_entry_ref>(archive_entry_ref{in->value(), *idx});
}

result<scene> read_input_scene(const std::string& path, const read_options& options, diagnostics& diags,
                               const format* forced) {
  auto ref = resolve_entry(path);
  if (!ref) return read_scene(path, options, diags, forced);
  if (!ref->ok()) return ref->error();
  const auto& r = ref->value();
  return read_scene(r.in->a, r.entry, options, diags, forced);
}

CLI::Validator existing_path_or_entry() {
  return CLI::Validator(
      [](std::string& s) -> std::string {
        std::error_code ec;
        if (fs::exists(s, ec) || split_archive_path(s)) return {};
        return "Path does not exist: " + s;
      },
      "PATH");
}

}  // namespace rigrip::cli
