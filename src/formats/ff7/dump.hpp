// The JSON of `rigrip dump --raw` for the ff7 file kinds: the raw structures as stored
// (DA: each chunk's header fields and its decoded s16 frames, which need the paired AA).
#pragma once

#include <nlohmann/json.hpp>

#include "formats/ff7/decode.hpp"

namespace rigrip::ff7 {

// Throws core::failure; finds the AA like the reader does (--skeleton or the naming rule).
[[nodiscard]] nlohmann::json dump_da_json(const read_context& c);
[[nodiscard]] nlohmann::json dump_aa_json(const aa_file& a);

}  // namespace rigrip::ff7
