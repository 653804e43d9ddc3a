// Registration of the ff7 family's formats: one id per file kind. Detection and the
// registry entries only; the work is in the raw files (with their `--raw` JSON), decode and encode.
#include <filesystem>

#include "formats/ff7/decode.hpp"
#include "formats/ff7/encode.hpp"
#include "rigrip/registry.hpp"

namespace rigrip::ff7 {
namespace {
std::string ext_of(std::string_view name) {
  return to_lower(std::filesystem::path(std::string(name)).extension().string());
}
int suffix(std::string_view name) { return battle_suffix_index(std::string(name)); }
// Magic-archive style numbered extensions: ".p00", ".t00", ".a00".
bool numbered_ext(std::string_view name, char letter) {
  auto e = ext_of(name);
  return e.size() == 4 && e[1] == letter && std::isdigit(static_cast<unsigned char>(e[2])) &&
         std::isdigit(static_cast<unsigned char>(e[3]));
}

// Content first; the naming rule only breaks ties or lets a damaged file reach its reader.
// A loose structural match (trailing bytes) without the name is not enough to claim a file.
int combine(int content, bool name_ok, int weak_without_name) {
  if (name_ok) return content > 0 ? content + 20 : score::name_only;
  return content > score::name_only ? std::min(content, weak_without_name) : score::none;
}

int detect_aa_file(byte_view d, std::string_view name) {
  bool n = suffix(name) == 0 || ext_of(name) == ".d";
  return combine(detect_aa(d), n, 30);  // 52 bytes of small integers alone prove little
}
int detect_da_file(byte_view d, std::string_view name) {
  bool n = suffix(name) == 78 || numbered_ext(name, 'a');
  return combine(detect_da(d), n, score::structure);
}
int detect_p_file(byte_view d, std::string_view name) {
  int s = suffix(name);
  bool n = ext_of(name) == ".p" || (s >= 12 && s < 78) || numbered_ext(name, 'p');
  return combine(detect_p(d), n, score::structure + 20);
}
int detect_tex_file(byte_view d, std::string_view name) {
  int s = suffix(name);
  bool n = ext_of(name) == ".tex" || (s >= 2 && s < 12) || numbered_ext(name, 't');
  return combine(detect_tex(d), n, score::structure + 20);
}
int detect_hrc_file(byte_view d, std::string_view name) {
  static constexpr std::string_view magic = ":HEADER_BLOCK";
  if (d.size() >= magic.size() && std::equal(magic.begin(), magic.end(), d.begin())) return score::magic;
  return ext_of(name) == ".hrc" ? score::name_only : score::none;
}
int detect_rsd_file(byte_view d, std::string_view name) {
  if (d.size() >= 4 && d[0] == '@' && d[1] == 'R' && d[2] == 'S' && d[3] == 'D') return score::magic;
  return ext_of(name) == ".rsd" ? score::name_only : score::none;
}
int detect_a_file(byte_view d, std::string_view name) {
  return combine(detect_a(d), ext_of(name) == ".a", score::structure);
}

result<scene> read_aa(const read_context& c) { return read_battle_from_aa(c); }
result<scene> read_da(const read_context& c) { return read_battle_from_da(c); }
result<scene> read_p(const read_context& c) { return read_p_scene(c); }
result<scene> read_tex(const read_context& c) { return read_tex_scene(c); }
result<scene> read_hrc(const read_context& c) { return read_hrc_scene(c); }
result<scene> read_rsd(const read_context& c) { return read_rsd_scene(c); }
result<scene> read_a(const read_context& c) { return read_a_scene(c); }

result<nlohmann::json> dump_da(const read_context& c) { return da_to_json(c); }
result<nlohmann::json> dump_aa(const read_context& c) { return aa_to_json(parse_aa(c.data)); }

result<bytes> rewrite_da(const read_context& c) { return serialise_da(parse_da(c.data)); }
result<bytes> rewrite_aa(const read_context& c) { return serialise_aa(parse_aa(c.data)); }
result<bytes> rewrite_p(const read_context& c) { return serialise_p(parse_p(c.data)); }
result<bytes> rewrite_tex(const read_context& c) { return serialise_tex(parse_tex(c.data)); }
result<bytes> rewrite_a(const read_context& c) { return serialise_a(parse_a(c.data)); }

result<bytes> pack_da_fmt(const scene& s, const pack_context& c) { return pack_da_entry(s, c); }
result<bytes> pack_p_fmt(const scene& s, const pack_context& c) { return pack_p(s, &c); }
result<bytes> pack_aa_fmt(const scene& s, const pack_context& c) { return pack_aa(s, &c); }
}  // namespace
}  // namespace rigrip::ff7

std::vector<rigrip::format> rigrip_family_ff7() {
  using namespace rigrip;
  using namespace rigrip::ff7;
  return {
      format{"ff7-aa", "ff7", "Final Fantasy VII (PC) battle skeleton AA (xxaa; magic .d): model with bone P parts, TEX, DA animations",
             {".d"}, "content: 13-word header + bone records that fill the file; name xxaa / .d raises it",
             detect_aa_file, read_aa, dump_aa, rewrite_aa, pack_aa_fmt},
      format{"ff7-da", "ff7", "Final Fantasy VII (PC) battle animation pack DA (xxda, .a00); needs the AA (paired or --skeleton)",
             {".a00", ".ff7"}, "content: chunk walk (headers, mini headers, keys 0/2/4) to the end of the file; name xxda",
             detect_da_file, read_da, dump_da, rewrite_da, pack_da_fmt},
      format{"ff7-p", "ff7", "Final Fantasy VII (PC) P model (battle parts xxam.., field .p, magic .p00)",
             {".p"}, "content: version 1 header whose counts add up to the file size; name .p / xxam..xxcz",
             detect_p_file, read_p, nullptr, rewrite_p, pack_p_fmt},
      format{"ff7-tex", "ff7", "Final Fantasy VII (PC) TEX texture (paletted or direct colour)",
             {".tex"}, "content: version 1, 0xEC-byte header, palette + pixels fill the file; name .tex / xxac..xxal",
             detect_tex_file, read_tex, nullptr, rewrite_tex, nullptr},
      format{"ff7-hrc", "ff7", "Final Fantasy VII (PC) field skeleton HRC (text) with RSD/P/TEX parts",
             {".hrc"}, "content: ':HEADER_BLOCK'", detect_hrc_file, read_hrc, nullptr, nullptr, nullptr},
      format{"ff7-rsd", "ff7", "Final Fantasy VII (PC) field resource RSD (text): one P part with its textures",
             {".rsd"}, "content: '@RSD'", detect_rsd_file, read_rsd, nullptr, nullptr, nullptr},
      format{"ff7-a", "ff7", "Final Fantasy VII (PC) field animation A (needs the HRC: next to it or --skeleton)",
             {".a"}, "content: version 1, frame size from the bone count fills the file; name .a",
             detect_a_file, read_a, nullptr, rewrite_a, nullptr},
  };
}
