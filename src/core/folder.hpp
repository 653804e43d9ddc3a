#pragma once
// Folder listing for readers that look beside a file for its companion (a Telltale skeleton, a
// morpheme bundle). POSIX readdir where there is one: std::filesystem::directory_iterator builds
// and splits a full path per entry, which cost more than the rest of such a read.
#include <cstddef>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <system_error>

#if __has_include(<dirent.h>)
#include <dirent.h>
#include <sys/stat.h>
#define RIGRIP_HAS_DIRENT 1
#endif

namespace rigrip::core {

// Calls visit(name, regular) for the entries of `dir` other than "." and "..", at most `limit`
// of them, in the folder's own order. `regular()` says whether the entry is a regular file,
// following links as directory_entry::is_regular_file does; it may stat the entry, so ask it
// last. A folder that cannot be opened has no entries.
template <class Visit>
void for_each_folder_entry(const std::filesystem::path& dir, std::size_t limit, Visit&& visit) {
  std::size_t seen = 0;
#ifdef RIGRIP_HAS_DIRENT
  std::unique_ptr<DIR, int (*)(DIR*)> dh(::opendir(dir.c_str()), ::closedir);
  if (!dh) return;
  while (seen < limit) {
    const dirent* e = ::readdir(dh.get());
    if (!e) break;
    const std::string_view name(e->d_name);
    if (name == "." || name == "..") continue;
    ++seen;
    const unsigned char type = e->d_type;
    visit(name, [&] {
      if (type == DT_REG) return true;
      if (type != DT_LNK && type != DT_UNKNOWN) return false;  // d_type is exact for the rest
      struct stat st {};
      return ::stat((dir / std::string(name)).c_str(), &st) == 0 && S_ISREG(st.st_mode);
    });
  }
#else
  std::error_code ec;
  for (auto it = std::filesystem::directory_iterator(dir, ec);
       !ec && it != std::filesystem::directory_iterator() && seen < limit; it.increment(ec), ++seen) {
    const std::string name = it->path().filename().string();
    visit(std::string_view(name), [&] {
      std::error_code e2;
      return it->is_regular_file(e2);
    });
  }
#endif
}

}  // namespace rigrip::core
