// Atomic file output (temporary file renamed into place), on its own so that nothing
// else is pulled in with it.
#include <filesystem>
#include <fstream>
#include <random>

#include "rigrip/registry.hpp"

namespace rigrip {

result<void> save_file(const std::string& path, byte_view data) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::path p(path);
  if (p.has_parent_path()) fs::create_directories(p.parent_path(), ec);
  std::random_device rd;
  fs::path tmp = p;
  tmp += ".rigrip-tmp-" + std::to_string(rd());
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) return error{code::io_error, "cannot create output file", path, no_offset, {}};
    out.write(reinterpret_cast<const char*>(data.data()), static_cast<std::streamsize>(data.size()));
    out.close();
    if (!out) {
      fs::remove(tmp, ec);
      return error{code::io_error, "write failed", path, no_offset, {}};
    }
  }
  fs::rename(tmp, p, ec);
  if (ec) {
    fs::remove(tmp, ec);
    return error{code::io_error, "cannot move output into place", path, no_offset, {}};
  }
  return {};
}

}  // namespace rigrip
