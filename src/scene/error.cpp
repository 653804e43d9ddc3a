#include <cstdio>

#include "rigrip/error.hpp"

namespace rigrip {

const std::vector<diagnostic_info>& all_diagnostics() {
  static const std::vector<diagnostic_info> table = {
#define RIGRIP_X(name, str, sev, meaning) {code::name, str, sev, meaning},
      RIGRIP_DIAGNOSTICS(RIGRIP_X)
#undef RIGRIP_X
  };
  return table;
}

const diagnostic_info& info(code c) noexcept {
  const auto& t = all_diagnostics();
  auto i = static_cast<std::size_t>(c);
  return i < t.size() ? t[i] : t.back();
}

namespace {
std::string where(const std::string& file, std::uint64_t offset, const std::string& within) {
  std::string s = file.empty() ? std::string("<input>") : file;
  if (offset != no_offset) {
    char buf[40];
    std::snprintf(buf, sizeof buf, " @ 0x%llX", static_cast<unsigned long long>(offset));
    s += buf;
    if (!within.empty()) s += " in " + within;
  }
  return s;
}
}  // namespace

std::string error::to_string() const {
  std::string s = where(file, offset, within) + ": " + std::string(info(code).id);
  if (!format.empty()) s += " [" + format + "]";
  return s + ": " + message;
}

std::string warning::to_string() const {
  return where(file, offset, within) + ": " + std::string(info(code).id) + ": " + message;
}

}  // namespace rigrip
