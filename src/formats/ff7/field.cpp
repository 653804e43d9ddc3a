// Field formats: HRC skeletons and RSD resource lists (text), A animations (binary).
#include <charconv>
#include <cmath>

#include "formats/ff7/ff7.hpp"

namespace rigrip::ff7 {
namespace {
struct line {
  std::string text;
  std::uint64_t offset;
};

std::string trim(std::string_view s) {
  std::size_t a = 0, b = s.size();
  while (a < b && std::isspace(static_cast<unsigned char>(s[a]))) ++a;
  while (b > a && std::isspace(static_cast<unsigned char>(s[b - 1]))) --b;
  return std::string(s.substr(a, b - a));
}

// Non-blank lines with their byte offsets. Text files are small; refuse binary noise.
std::vector<line> text_lines(std::span<const std::uint8_t> data, std::size_t max_bytes) {
  if (data.size() > max_bytes)
    core::fail(code::limit_exceeded, "text file of " + std::to_string(data.size()) + " bytes exceeds the " +
                                         std::to_string(max_bytes) + "-byte limit for this format", 0);
  std::vector<line> out;
  std::size_t start = 0;
  for (std::size_t i = 0; i <= data.size(); ++i) {
    if (i < data.size() && data[i] == 0) core::fail(code::bad_value, "NUL byte in a text file", i);
    if (i == data.size() || data[i] == '\n') {
      std::string_view s(reinterpret_cast<const char*>(data.data()) + start, i - start);
      auto t = trim(s);
      if (!t.empty()) out.push_back({t, start});
      start = i + 1;
    }
  }
  return out;
}

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> out;
  std::size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
    std::size_t j = i;
    while (j < s.size() && !std::isspace(static_cast<unsigned char>(s[j]))) ++j;
    if (j > i) out.push_back(s.substr(i, j - i));
    i = j;
  }
  return out;
}

long parse_int(const std::string& s, const line& l, const char* what) {
  long v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size())
    core::fail(code::bad_value, std::string(what) + ": expected an integer, found '" + s + "'", l.offset);
  return v;
}
}  // namespace

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

a_file parse_a(std::span<const std::uint8_t> data) {
  core::byte_reader r(data);
  a_file a;
  a.version = r.u32();
  if (a.version != 1) core::fail(code::bad_magic, "A version is " + std::to_string(a.version) + ", expected 1", 0);
  std::uint32_t frames = r.u32();
  a.bone_count = r.u32();
  for (auto& o : a.order) o = r.u8();
  for (auto& x : a.runtime) x = r.u32();
  if (a.bone_count > 1000) core::fail(code::bad_count, "A bone count " + std::to_string(a.bone_count) + " exceeds 1000", 8);
  for (int i = 0; i < 3; ++i)
    if (a.order[static_cast<std::size_t>(i)] > 2 ||
        a.order[0] + a.order[1] + a.order[2] != 3 || a.order[0] == a.order[1])
      core::fail(code::bad_value, "rotation order bytes must be a permutation of 0, 1, 2", 12);
  r.checked_count(frames, 24 + 12ull * a.bone_count, "A frames");
  a.frames.resize(frames);
  for (auto& f : a.frames) {
    f.root_rotation = {r.f32(), r.f32(), r.f32()};
    f.root_translation = {r.f32(), r.f32(), r.f32()};
    f.rotations.resize(a.bone_count);
    for (auto& v : f.rotations) v = {r.f32(), r.f32(), r.f32()};
  }
  auto rest = r.bytes(r.remaining());
  a.trailing.assign(rest.begin(), rest.end());
  return a;
}

bytes serialise_a(const a_file& a) {
  core::byte_writer w;
  w.u32(a.version);
  w.u32(static_cast<std::uint32_t>(a.frames.size()));
  w.u32(a.bone_count);
  w.bytes(a.order);
  for (auto x : a.runtime) w.u32(x);
  for (const auto& f : a.frames) {
    for (float v : f.root_rotation) w.f32(v);
    for (float v : f.root_translation) w.f32(v);
    for (const auto& t : f.rotations)
      for (float v : t) w.f32(v);
  }
  w.bytes(a.trailing);
  return w.take();
}

int detect_a(std::span<const std::uint8_t> data) {
  if (data.size() < 36) return score::none;
  try {
    auto a = parse_a(data);
    if (a.frames.empty()) return score::none;
    return a.trailing.empty() ? score::structure + 10 : score::name_only;
  } catch (...) {
    return score::none;
  }
}

}  // namespace rigrip::ff7
