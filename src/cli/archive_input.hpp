// Archives (LGP, SARC, Yaz0-compressed SARC) as command-line inputs: opened whole, listed,
// expanded into one job per entry, an entry named as "ARCHIVE/inner/path", and written back
// (re-compressed the way the input was).
#pragma once

#include <memory>
#include <optional>
#include <string>

#include <CLI/CLI.hpp>

#include "rigrip/registry.hpp"

namespace rigrip::cli {

struct archive_input {
  bytes file;      // the file as stored (possibly compressed)
  bytes payload;   // the archive itself (empty when the file is not compressed: use `file`)
  std::vector<const container*> compression;  // outermost first; empty for a plain archive
  archive a;
  diagnostics diags;  // the archive's own warnings (duplicate names, disagreeing tables)

  [[nodiscard]] byte_view archive_bytes() const { return compression.empty() ? byte_view(file) : byte_view(payload); }
  // "lgp", "sarc in yaz0".
  [[nodiscard]] std::string kind() const;
  // The index of the entry an inner path names (exactly, else ignoring case).
  [[nodiscard]] std::optional<std::size_t> index_of(const std::string& inner) const;
  // The new archive bytes wrapped in the input's compression again.
  [[nodiscard]] result<bytes> rewrap(bytes new_archive) const;
};

// The file opened as an archive; nullopt (no error) when it is not one — a plain game file,
// a missing file — so callers fall back to their usual path.
[[nodiscard]] std::optional<result<std::shared_ptr<const archive_input>>> open_archive_input(const std::string& path);

// "battle.lgp/rtda" -> {"battle.lgp", "rtda"} when a leading part of the path is an existing
// regular file (the archive) and the rest is not empty; nullopt otherwise.
struct archive_path {
  std::string archive, inner;
};
[[nodiscard]] std::optional<archive_path> split_archive_path(const std::string& path);

// The archive and entry index an "ARCHIVE/inner" path names; nullopt when the path is no such
// path (an ordinary file); an error when the archive does not open or has no such entry.
struct archive_entry_ref {
  std::shared_ptr<const archive_input> in;
  std::size_t entry = 0;
};
[[nodiscard]] std::optional<result<archive_entry_ref>> resolve_entry(const std::string& path);

// read_scene for a file or an "ARCHIVE/inner" entry (its siblings found inside the archive).
[[nodiscard]] result<scene> read_input_scene(const std::string& path, const read_options& options,
                                             diagnostics& diags, const format* forced);

// A CLI11 check for inputs: an existing file or folder, or ARCHIVE/inner.
[[nodiscard]] CLI::Validator existing_path_or_entry();

}  // namespace rigrip::cli
