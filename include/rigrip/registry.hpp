// The format registry: every family registers detect / read / dump_raw / rewrite /
// pack in one table (src/formats/families.inc). The CLI and the library's
// convenience functions go through it only.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "rigrip/error.hpp"
#include "rigrip/scene.hpp"

namespace rigrip {

using bytes = std::vector<std::uint8_t>;
using byte_view = std::span<const std::uint8_t>;

// Options a reader may honour; a reader ignores what does not apply to it.
struct read_options {
  std::optional<std::string> skeleton_path;  // --skeleton: explicit rig for animation-only files
  std::vector<std::string> animations;       // --anim: animation files (globs) to put on a mesh's rig
  std::optional<double> fps;                 // --fps: frame rate for formats that count frames
  bool upper_case_bones = false;             // --upper-case-bones (morpheme)
  bool force = false;  // --force: bind a --skeleton even when it lacks most animated bones
  std::optional<int> lod;                    // --lod: level of detail of models (0 = finest)
  std::vector<std::string> texture_paths;    // --texture-file: texture files for models
  std::uint64_t max_file_size = 1ull << 31;  // files larger than this are refused
};

// Everything a reader gets. `load` fetches a sibling file (skeleton, textures) by path;
// it fails cleanly when no file system is available (fuzzing, memory input).
struct read_context {
  std::string path;  // the input's path or logical name, for messages and sibling lookup
  byte_view data;    // the payload: already taken out of any compression container
  // Ids of the compression containers the payload came out of, outermost first
  // (e.g. {"yaz0"} for an .sbfres); empty for a plain file.
  std::vector<std::string> containers;
  read_options options;
  diagnostics* diags = nullptr;
  // Sibling files come back out of their compression containers too.
  std::function<result<bytes>(const std::string& path)> load;
  // Existence and folder listing through the same place as `load` (inside the archive when
  // the input is an archive entry); unset: the file system.
  std::function<bool(const std::string& path)> exists;
  std::function<std::vector<std::string>(const std::string& dir)> list;
  [[nodiscard]] bool file_exists(const std::string& p) const;
  // Paths of the files in folder `dir` (not recursive), sorted.
  [[nodiscard]] std::vector<std::string> files_in(const std::string& dir) const;
  void warn(code c, std::string message, std::uint64_t offset = no_offset) const;
};

struct pack_context {
  std::string output_path;
  std::optional<bytes> template_file;   // --template ORIGINAL
  std::string template_path;
  std::optional<bytes> skeleton_file;   // --skeleton (format's own skeleton file)
  std::string skeleton_path;
  std::optional<double> fps;
  diagnostics* diags = nullptr;
  // Files next to the output (the other entries of the archive with `pack --into`), for a
  // writer that finds its skeleton by the naming rule when no --skeleton is given; may be unset.
  std::function<result<bytes>(const std::string& path)> load;
  void warn(code c, std::string message) const;
};

// Detection scores: content beats name. 0 means "not mine".
namespace score {
inline constexpr int none = 0;
inline constexpr int name_only = 10;     // extension or naming rule, no content check possible
inline constexpr int structure = 60;     // no magic, but the structure checks out
inline constexpr int magic = 100;        // signature matched
}  // namespace score

struct format {
  std::string_view id;           // stable id used by --format, e.g. "bfres"
  std::string_view family;       // folder name under src/formats, e.g. "bfres"
  std::string_view description;  // one line for `rigrip formats`
  std::vector<std::string_view> extensions;  // lower case, with dot: ".bfres"
  std::string_view detection;    // how detection works, for `rigrip formats`
  // Returns a score (see rigrip::score). `data` is the whole file; must not throw.
  int (*detect)(byte_view data, std::string_view filename) = nullptr;
  result<scene> (*read)(const read_context&) = nullptr;
  result<nlohmann::json> (*dump_raw)(const read_context&) = nullptr;   // --raw
  result<bytes> (*rewrite)(const read_context&) = nullptr;             // raw layer round trip
  result<bytes> (*pack)(const scene&, const pack_context&) = nullptr;  // scene -> format
  // The pack writer honours bone::segment_scale_compensate; otherwise registry::pack
  // bakes it into plain T*R*S locals first (core/ssc.hpp).
  bool stores_segment_scale_compensate = false;
  // An animation network / state-machine graph as JSON (`rigrip dump --network`, `rigrip graph`):
  // {node_count, nodes [{id, name, type_name, children, inputs}], state_machines [{node, name,
  // states [{node, name}], transitions [{node, name, from_node, to_node, conditions}]}], ...}.
  result<nlohmann::json> (*dump_graph)(const read_context&) = nullptr;
};

// Containers know no family. A compression container (Yaz0, zstd) holds one stream: the
// registry opens it before detection, so every family reads `.sbfres`, `.szs` and the like
// the same way, and writes it back around the rewritten payload. An archive (SARC, LGP)
// holds many named files: the CLI lists and expands it, and each entry is then read as
// a file of its own. src/containers/containers.inc lists them.
struct container_entry {
  std::string name;  // path inside the archive; for a compression stream, the input's name
  bytes data;
  // Why an archive entry could not be taken out (its offset or size runs past the archive);
  // its data is then empty. Only unpack_checked reports such entries (unpack throws).
  std::optional<error> problem;
};

struct container {
  std::string_view id;           // "yaz0"
  std::string_view description;  // one line for `rigrip formats`
  std::vector<std::string_view> extensions;
  std::string_view detection;
  bool archive = false;          // false: exactly one inner stream (compression)
  std::string_view inner_name;   // what error offsets count in, e.g. "the Yaz0-decompressed data"
  int (*detect)(byte_view data, std::string_view filename) = nullptr;  // a rigrip::score
  // The inner files. May throw core::failure; the registry turns that into an error.
  std::vector<container_entry> (*unpack)(byte_view data) = nullptr;
  // The container rebuilt around `entries`; `original` is the container they came from,
  // whose layout (alignment, order, an unchanged compressed stream) is kept where it can be.
  bytes (*repack)(byte_view original, const std::vector<container_entry>& entries) = nullptr;
  nlohmann::json (*dump_raw)(byte_view data) = nullptr;  // the container's own structures
  // Optional (archives): unpack that keeps going past a broken entry (returned with `problem`)
  // and reports disagreements between the archive's own tables as warnings.
  std::vector<container_entry> (*unpack_checked)(byte_view data, diagnostics& diags) = nullptr;
};

[[nodiscard]] const std::vector<const container*>& registered_containers();
[[nodiscard]] const container* find_container(std::string_view id);
// The container whose signature the data carries, or nullptr.
[[nodiscard]] const container* detect_container(byte_view data, std::string_view filename);

// A payload taken out of its compression containers (at most 4 nested).
struct unwrapped {
  bytes data;
  std::vector<const container*> chain;  // outermost first; empty when the input was plain
};
// Opens every compression container around `data`; a plain input comes back with an empty
// chain and no copy of its bytes (data stays empty: use the input).
[[nodiscard]] result<unwrapped> unwrap(byte_view data, const std::string& name);

// An archive opened so that each entry is read as a file of its own. An entry's path is
// "<archive path>/<inner path>"; a reader's sibling look-ups (read_context::load, exists,
// list) resolve such paths inside the archive, so a family's pairing rules (skeleton next to
// the animation, textures next to the model) work there exactly as in a folder.
struct archive {
  const container* kind = nullptr;
  std::string path;
  std::vector<container_entry> entries;
  std::uint64_t max_file_size = 1ull << 31;  // for look-ups that leave the archive

  [[nodiscard]] std::string entry_path(std::size_t i) const;
  // The entry an inner path names (exactly, else ignoring case), or nullptr.
  [[nodiscard]] const container_entry* find(std::string_view inner) const;
  // The inner path of `p` when it lies inside this archive ("battle.lgp/rtaa" -> "rtaa").
  [[nodiscard]] std::optional<std::string> inner_path(const std::string& p) const;
  // Sibling access: inside the archive for its paths (entries come out of compression
  // containers like files do), the file system for any other path.
  [[nodiscard]] result<bytes> load(const std::string& p) const;
  [[nodiscard]] bool exists(const std::string& p) const;
  [[nodiscard]] std::vector<std::string> list(const std::string& dir) const;
};

// Opens an archive container (an error when the data is not one). Broken entries stay in
// the list with `problem` set; the container's warnings go to `diags`.
[[nodiscard]] result<archive> open_archive(byte_view data, const std::string& path, diagnostics& diags);
// The archive container the data is, or nullptr (compression containers are not archives).
[[nodiscard]] const container* detect_archive(byte_view data, std::string_view filename);

[[nodiscard]] const std::vector<const format*>& formats();
[[nodiscard]] const format* find_format(std::string_view id);
// Best format for the content (then the name). Error E_UNKNOWN_FORMAT when none.
[[nodiscard]] result<const format*> detect_format(byte_view data, std::string_view filename);

[[nodiscard]] result<bytes> load_file(const std::string& path,
                                      std::uint64_t max_size = 1ull << 31);
// An input file, read whole only when a container or a format claims its first 64 KiB (and
// its name): an unrecognised file of any size costs one small read (E_UNKNOWN_FORMAT).
[[nodiscard]] result<bytes> load_input(const std::string& path, std::uint64_t max_size = 1ull << 31,
                                       const format* forced = nullptr);
// Zstandard dictionaries for `.zs` streams made with one: a dictionary file (magic 37 A4 30 EC)
// or an archive of them, plain or compressed (Tears of the Kingdom: romfs/Pack/ZsDic.pack.zs).
// Returns the dictionary IDs added. load_input also finds ZsDic.pack.zs by itself, in the
// input's folder or above it (or their Pack/ subfolders), when a stream needs one.
[[nodiscard]] result<std::vector<std::uint32_t>> add_zstd_dictionaries(const std::string& path);
// Writes atomically: a short temporary (".rr-<pid>-XXXXXX.tmp") in the output's folder,
// renamed into place, so a failure leaves nothing. "-" is standard output; a device, FIFO
// or /dev/stdout is written through, a symlink's target replaced (the link kept). The first
// write into a folder removes temporaries that killed runs left there.
[[nodiscard]] result<void> save_file(const std::string& path, byte_view data);
// save_file of the parts one after another, without joining them first (a large buffer is
// written from where it is).
[[nodiscard]] result<void> save_file_parts(const std::string& path, std::span<const byte_view> parts);
// Removes our temporaries of processes that no longer run from `folder`; returns how many.
std::size_t remove_stale_temporaries(const std::string& folder);
// Installs SIGINT/SIGTERM/SIGHUP/SIGQUIT handlers that unlink the temporaries in flight
// and then die of the signal as before (for command-line tools; idempotent).
void remove_temporaries_on_signals();

// Reading through the registry. Readers' internal failures (including exceptions
// and allocation failures) come back as errors with the file name filled in; the
// scene is validate()d before it is returned.
[[nodiscard]] result<scene> read_scene(const std::string& path, const read_options& options,
                                       diagnostics& diags, const format* forced = nullptr);
[[nodiscard]] result<scene> read_scene(byte_view data, const std::string& name,
                                       const read_options& options, diagnostics& diags,
                                       const format* forced = nullptr);
[[nodiscard]] result<nlohmann::json> dump_raw(byte_view data, const std::string& name,
                                              const read_options& options, diagnostics& diags,
                                              const format* forced = nullptr);
// The format's animation network (format::dump_graph); E_UNSUPPORTED_FEATURE when it has none.
[[nodiscard]] result<nlohmann::json> dump_graph(byte_view data, const std::string& name,
                                                const read_options& options, diagnostics& diags,
                                                const format* forced = nullptr);
[[nodiscard]] result<bytes> rewrite(byte_view data, const std::string& name,
                                    const read_options& options, diagnostics& diags,
                                    const format* forced = nullptr);
[[nodiscard]] result<bytes> pack(const scene& s, const format& f, const pack_context& ctx);

// Archive entries through the same entry points (see `archive`).
[[nodiscard]] result<scene> read_scene(const archive& a, std::size_t entry, const read_options& options,
                                       diagnostics& diags, const format* forced = nullptr);
[[nodiscard]] result<nlohmann::json> dump_raw(const archive& a, std::size_t entry, const read_options& options,
                                              diagnostics& diags, const format* forced = nullptr);
// The archive with `changed` entries replaced (same inner path, case ignored) or added; the
// container rebuilds its tables and keeps every other entry byte for byte.
[[nodiscard]] result<bytes> replace_entries(const archive& a, byte_view original,
                                            std::vector<container_entry> changed);
// `pack` as entry `entry` of the archive, returning the new archive: the existing entry is
// the template when ctx has none, and ctx.load finds siblings inside the archive.
[[nodiscard]] result<bytes> pack_into(const scene& s, const format& f, pack_context ctx, const archive& a,
                                      byte_view original, const std::string& entry);

}  // namespace rigrip
