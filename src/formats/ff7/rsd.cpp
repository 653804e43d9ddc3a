// RSD field resources (text): the P part and its textures.
#include "formats/ff7/rsd.hpp"

#include "formats/ff7/field_text.hpp"

namespace rigrip::ff7 {

rsd_file parse_rsd(std::span<const std::uint8_t> data) {
  auto lines = text_lines(data, 1 << 16);
  if (lines.empty() || lines[0].text.rfind("@RSD", 0) != 0)
    core::fail(code::bad_magic, "RSD must start with '@RSD'", 0);
  rsd_file r;
  long ntex = -1;
  for (const auto& l : lines) {
    if (l.text[0] == '#' || l.text[0] == '@') continue;
    auto eq = l.text.find('=');
    if (eq == std::string::npos) continue;
    auto key = trim(l.text.substr(0, eq)), value = trim(l.text.substr(eq + 1));
    if (key == "PLY") r.ply = value;
    if (key == "NTEX") {
      ntex = parse_int(value, l, "NTEX");
      if (ntex < 0 || ntex > 256) core::fail(code::bad_count, "NTEX " + value + " outside 0..256", l.offset);
    }
    if (key.rfind("TEX[", 0) == 0) r.textures.push_back(value);
  }
  return r;
}

}  // namespace rigrip::ff7
