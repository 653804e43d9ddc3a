// The JSON of `rigrip dump --raw` for the sf3 file kinds: the raw structures as stored.
#pragma once

#include <nlohmann/json.hpp>

#include "formats/sf3/x8an.hpp"
#include "formats/sf3/x8pc.hpp"

namespace rigrip::sf3 {

[[nodiscard]] nlohmann::json dump_x8pc_json(const x8pc_file& f);
[[nodiscard]] nlohmann::json dump_x8an_json(const x8an_file& f);

}  // namespace rigrip::sf3
