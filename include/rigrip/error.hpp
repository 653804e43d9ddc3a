// Errors and warnings as values. Every failure carries a stable code, a message,
// the file it came from and the byte offset where the reader gave up.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace rigrip {

// The one catalogue of diagnostic codes. docs/diagnostics.md is generated from this
// table by `rigrip diagnostics --markdown`, so the documentation cannot drift.
// X(enum name, stable code, severity, meaning)
#define RIGRIP_DIAGNOSTICS(X)                                                                      \
  X(io_error, "E_IO", "error", "The file could not be opened, read or written.")                  \
  X(usage, "E_USAGE", "error", "The command line or an option value is wrong.")                   \
  X(unknown_format, "E_UNKNOWN_FORMAT", "error",                                                   \
    "No registered format recognises the content or the file name.")                             \
  X(bad_magic, "E_BAD_MAGIC", "error", "A signature or magic number is not what the format needs.") \
  X(truncated, "E_TRUNCATED", "error", "The data ends before a structure it declares.")          \
  X(bad_offset, "E_BAD_OFFSET", "error", "An offset or pointer points outside the data or backwards.") \
  X(bad_count, "E_BAD_COUNT", "error",                                                            \
    "A count or size field is larger than the bytes available or a hard limit allows.")         \
  X(bad_value, "E_BAD_VALUE", "error", "A field holds a value the format does not allow.")       \
  X(unsupported_version, "E_UNSUPPORTED_VERSION", "error",                                        \
    "The file is a version or variant of the format that is recognised but not supported.")      \
  X(unsupported_feature, "E_UNSUPPORTED_FEATURE", "error",                                        \
    "The file uses a feature this reader or writer does not implement.")                         \
  X(limit_exceeded, "E_LIMIT", "error",                                                           \
    "A resource limit (memory, nesting depth, loop count) would be exceeded.")                   \
  X(missing_skeleton, "E_MISSING_SKELETON", "error",                                              \
    "An animation needs a skeleton that was not found; pass --skeleton.")                         \
  X(invalid_scene, "E_INVALID_SCENE", "error", "The scene model breaks an invariant (validate()).") \
  X(gltf_error, "E_GLTF", "error", "A glTF file could not be read or written.")                  \
  X(write_unsupported, "E_WRITE_UNSUPPORTED", "error", "The format cannot be written.")          \
  X(roundtrip_mismatch, "E_ROUNDTRIP", "error",                                                   \
    "Writing the raw layer back did not reproduce the input bytes.")                             \
  X(internal, "E_INTERNAL", "error", "A bug in rigrip: please report it with the input file.")   \
  X(w_duplicate_key_time, "W_DUPLICATE_KEY_TIME", "warning",                                      \
    "Keys with equal times were removed; the first of each run is kept.")                        \
  X(w_missing_bone, "W_MISSING_BONE", "warning",                                                  \
    "An animation track names a bone that the skeleton does not have; the track is skipped.")    \
  X(w_fallback, "W_FALLBACK", "warning",                                                          \
    "A documented fallback rule was used because the preferred information was absent.")         \
  X(w_opaque_data, "W_OPAQUE_DATA", "warning",                                                    \
    "A block of unknown meaning was kept as opaque bytes; it is written back unchanged.")        \
  X(w_suspicious_value, "W_SUSPICIOUS_VALUE", "warning",                                          \
    "A value looks wrong (garbage range, sign flip, non-unit quaternion) and was repaired.")     \
  X(w_name_mismatch, "W_NAME_MISMATCH", "warning",                                                \
    "Names that should agree (file name vs stored name, skeleton vs animation) differ.")        \
  X(w_pairing, "W_PAIRING", "warning",                                                            \
    "The automatic skeleton pairing found nothing or several candidates.")                       \
  X(w_lossy, "W_LOSSY", "warning", "The conversion loses information (stated in the message).")  \
  X(w_trailing_data, "W_TRAILING_DATA", "warning", "Bytes after the last structure were ignored.") \
  X(w_unsupported_part, "W_UNSUPPORTED_PART", "warning",                                          \
    "A part of the file was skipped because it is not supported; the rest converted.")         \
  X(w_missing_texture, "W_MISSING_TEXTURE", "warning",                                            \
    "A texture a material names was not found in the file or its texture files; the mesh still converts.")

enum class code : std::uint16_t {
#define RIGRIP_X(name, str, sev, meaning) name,
  RIGRIP_DIAGNOSTICS(RIGRIP_X)
#undef RIGRIP_X
};

struct diagnostic_info {
  code value;
  std::string_view id;        // stable, e.g. "E_TRUNCATED"
  std::string_view severity;  // "error" or "warning"
  std::string_view meaning;
};

[[nodiscard]] const diagnostic_info& info(code c) noexcept;
[[nodiscard]] const std::vector<diagnostic_info>& all_diagnostics();

inline constexpr std::uint64_t no_offset = ~std::uint64_t{0};

struct error {
  rigrip::code code = rigrip::code::internal;
  std::string message;
  std::string file;                    // path or logical name of the input
  std::uint64_t offset = no_offset;    // byte offset in that file, when known
  std::string format;                  // format id, when known
  // What `offset` counts in when it is not the file itself, e.g. "the Yaz0-decompressed
  // data" for a file inside a container; empty for the file's own bytes.
  std::string within;

  // "file @ 0x1A2: E_TRUNCATED [format]: message" ("@ 0x1A2 in the Yaz0-decompressed data")
  [[nodiscard]] std::string to_string() const;
};

struct warning {
  rigrip::code code = rigrip::code::w_fallback;
  std::string message;
  std::string file;
  std::uint64_t offset = no_offset;
  std::string within;  // as error::within
  [[nodiscard]] std::string to_string() const;
};

// Collected warnings; readers append, the CLI prints them.
struct diagnostics {
  std::vector<warning> warnings;
  std::string file;  // default file name stamped on warnings
  void warn(rigrip::code c, std::string message, std::uint64_t offset = no_offset) {
    warnings.push_back(warning{c, std::move(message), file, offset});
  }
};

// A small expected<T, error>: the public API never throws.
template <class T>
class [[nodiscard]] result {
 public:
  result(T value) : v_(std::move(value)) {}  // NOLINT(google-explicit-constructor)
  result(rigrip::error e) : v_(std::move(e)) {}      // NOLINT(google-explicit-constructor)
  [[nodiscard]] bool ok() const noexcept { return v_.index() == 0; }
  explicit operator bool() const noexcept { return ok(); }
  [[nodiscard]] T& value() & { return std::get<0>(v_); }
  [[nodiscard]] const T& value() const& { return std::get<0>(v_); }
  [[nodiscard]] T&& value() && { return std::get<0>(std::move(v_)); }
  [[nodiscard]] const rigrip::error& error() const { return std::get<1>(v_); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }

 private:
  std::variant<T, rigrip::error> v_;
};

template <>
class [[nodiscard]] result<void> {
 public:
  result() = default;
  result(rigrip::error e) : e_(std::move(e)) {}  // NOLINT(google-explicit-constructor)
  [[nodiscard]] bool ok() const noexcept { return !e_.has_value(); }
  explicit operator bool() const noexcept { return ok(); }
  [[nodiscard]] const rigrip::error& error() const { return *e_; }

 private:
  std::optional<rigrip::error> e_;
};

[[nodiscard]] inline error make_error(code c, std::string message,
                                      std::uint64_t offset = no_offset, std::string file = {}) {
  return error{c, std::move(message), std::move(file), offset, {}};
}

}  // namespace rigrip
