// HRC field skeletons (text): bone name, parent, length and resource list per bone.
#include "formats/ff7/hrc.hpp"

#include "formats/ff7/field_text.hpp"

namespace rigrip::ff7 {

hrc_file parse_hrc(std::span<const std::uint8_t> data) {
  auto lines = text_lines(data, 1 << 20);
  hrc_file h;
  std::size_t i = 0;
  long bones = -1;
  bool header = false;
  while (i < lines.size() && lines[i].text[0] == ':') {
    auto tok = split(lines[i].text);
    if (tok[0] == ":HEADER_BLOCK") header = true;
    if (tok[0] == ":SKELETON" && tok.size() > 1) h.name = tok[1];
    if (tok[0] == ":BONES") {
      if (tok.size() < 2) core::fail(code::bad_value, ":BONES without a count", lines[i].offset);
      bones = parse_int(tok[1], lines[i], ":BONES");
    }
    ++i;
  }
  if (!header) core::fail(code::bad_magic, "HRC must start with ':HEADER_BLOCK'", 0);
  if (bones < 0) core::fail(code::bad_value, "HRC has no ':BONES n' line", 0);
  // Four lines per bone: name, parent, length, resource list.
  if (static_cast<std::size_t>(bones) > (lines.size() - i) / 4)
    core::fail(code::bad_count, "HRC declares " + std::to_string(bones) + " bones but has lines for " +
                                    std::to_string((lines.size() - i) / 4),
               lines.empty() ? 0 : lines[std::min(i, lines.size() - 1)].offset);
  for (long b = 0; b < bones; ++b, i += 4) {
    hrc_bone bone;
    bone.name = lines[i].text;
    bone.parent = lines[i + 1].text;
    const auto& ll = lines[i + 2];
    char* end = nullptr;
    bone.length = std::strtof(ll.text.c_str(), &end);
    if (end != ll.text.c_str() + ll.text.size() || !std::isfinite(bone.length))
      core::fail(code::bad_value, "bone '" + bone.name + "' length '" + ll.text + "' is not a number", ll.offset);
    auto tok = split(lines[i + 3].text);
    long n = parse_int(tok[0], lines[i + 3], "resource count");
    if (n < 0 || static_cast<std::size_t>(n) != tok.size() - 1)
      core::fail(code::bad_count, "bone '" + bone.name + "' lists " + std::to_string(tok.size() - 1) +
                                      " resources but its count says " + std::to_string(n),
                 lines[i + 3].offset);
    bone.resources.assign(tok.begin() + 1, tok.end());
    h.bones.push_back(std::move(bone));
  }
  return h;
}

}  // namespace rigrip::ff7
