// File loading and the reader/packer contexts' helpers. These live in the core (not the
// registry) so that a family library and its tests link against rigrip_core alone.
#include <algorithm>
#include <filesystem>
#include <fstream>

#include "rigrip/registry.hpp"

namespace rigrip {

bool read_context::file_exists(const std::string& p) const {
  if (p.empty()) return false;
  if (exists) return exists(p);
  std::error_code ec;
  return std::filesystem::is_regular_file(p, ec);
}
std::vector<std::string> read_context::files_in(const std::string& dir) const {
  if (list) return list(dir);
  std::vector<std::string> out;
  std::error_code ec;
  for (std::filesystem::directory_iterator it(dir.empty() ? "." : dir, ec), end; !ec && it != end; it.increment(ec))
    if (it->is_regular_file(ec)) out.push_back(it->path().string());
  std::sort(out.begin(), out.end());
  return out;
}
void read_context::warn(code c, std::string message, std::uint64_t offset) const {
  if (diags) diags->warnings.push_back(warning{c, std::move(message), path, offset});
}
void pack_context::warn(code c, std::string message) const {
  if (diags) diags->warnings.push_back(warning{c, std::move(message), output_path, no_offset});
}

result<bytes> load_file(const std::string& path, std::uint64_t max_size) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec))
    return error{code::io_error, "not a readable file", path, no_offset, {}};
  auto size = std::filesystem::file_size(path, ec);
  if (ec) return error{code::io_error, ec.message(), path, no_offset, {}};
  if (size > max_size)
    return error{code::limit_exceeded, "file larger than the limit of " +
                                           std::to_string(max_size) + " bytes", path, no_offset, {}};
  std::ifstream in(path, std::ios::binary);
  if (!in) return error{code::io_error, "cannot open", path, no_offset, {}};
  bytes b(static_cast<std::size_t>(size));
  if (size && !in.read(reinterpret_cast<char*>(b.data()), static_cast<std::streamsize>(size)))
    return error{code::io_error, "read failed", path, no_offset, {}};
  return b;
}

}  // namespace rigrip
