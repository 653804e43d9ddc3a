// The battle.lgp naming rule: two letters of model name + two letters of file role.
#include "formats/ff7/naming.hpp"

#include <cctype>
#include <filesystem>

namespace rigrip::ff7 {

std::string to_lower(std::string s) {
  for (auto& ch : s) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return s;
}

int battle_suffix_index(const std::string& path) {
  auto name = std::filesystem::path(path).filename().string();
  if (name.size() != 4) return -1;
  auto c1 = static_cast<char>(std::tolower(static_cast<unsigned char>(name[2])));
  auto c2 = static_cast<char>(std::tolower(static_cast<unsigned char>(name[3])));
  if (c1 < 'a' || c1 > 'z' || c2 < 'a' || c2 > 'z') return -1;
  for (int i = 0; i < 2; ++i)
    if (!std::isalnum(static_cast<unsigned char>(name[static_cast<std::size_t>(i)]))) return -1;
  return (c1 - 'a') * 26 + (c2 - 'a');
}

std::string battle_sibling(const std::string& path, int suffix_index) {
  std::filesystem::path p(path);
  auto name = p.filename().string();
  if (name.size() != 4 || suffix_index < 0 || suffix_index >= 26 * 26) return {};
  bool upper = std::isupper(static_cast<unsigned char>(name[2])) != 0;
  char c1 = static_cast<char>('a' + suffix_index / 26), c2 = static_cast<char>('a' + suffix_index % 26);
  if (upper) {
    c1 = static_cast<char>(std::toupper(c1));
    c2 = static_cast<char>(std::toupper(c2));
  }
  name[2] = c1;
  name[3] = c2;
  return (p.parent_path() / name).string();
}

std::string da_skeleton_path(const std::string& da_path) {
  if (battle_suffix_index(da_path) >= 0) return battle_sibling(da_path, 0);
  auto ext = std::filesystem::path(da_path).extension().string();
  if (ext.size() == 4 && (ext[1] == 'a' || ext[1] == 'A'))
    return std::filesystem::path(da_path).replace_extension(ext[1] == 'A' ? ".D" : ".d").string();
  return {};
}

}  // namespace rigrip::ff7
