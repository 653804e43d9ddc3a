// Encode: scene -> morpheme runtime-5 standalone NSA (x64 or win32).
#pragma once

#include "formats/morpheme/anim_source.hpp"
#include "rigrip/registry.hpp"

namespace rigrip::morpheme {

struct nsa5_encode_options {
  bool x64 = true;
  const nsa5_file* tpl = nullptr;  // requantise on its grid when the clip fits it
  std::uint32_t unknown = 0;       // header word 0x34 / 0x24 when there is no template
};
struct nsa5_encoded {
  nsa5_file file;
  bool on_template_grid = false;
  std::string note;  // why the template's grid was not used
};
[[nodiscard]] nsa5_encoded encode_nsa5(const nsa_input& in, const nsa5_encode_options& o);

// --skeleton X.nmb (the AnimToRig map) orders the channels; --template X.nsa gives the pointer
// size and the grid; otherwise the bundle's pointer size.
[[nodiscard]] bytes pack_nsa5(const scene& s, const pack_context& ctx);

}  // namespace rigrip::morpheme
