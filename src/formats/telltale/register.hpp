// Registry entry points that are neither decode nor encode: detection, `dump --raw`
// and `rewrite` (raw layer round trip).
#pragma once

#include <nlohmann/json.hpp>

#include "rigrip/registry.hpp"

namespace rigrip::telltale {

int detect_anm(byte_view data, std::string_view name);
int detect_skl(byte_view data, std::string_view name);
int detect_d3dmesh(byte_view data, std::string_view name);
int detect_d3dtx(byte_view data, std::string_view name);

result<nlohmann::json> dump_anm(const read_context& ctx);
result<bytes> rewrite_anm(const read_context& ctx);
result<nlohmann::json> dump_skl(const read_context& ctx);
result<bytes> rewrite_skl(const read_context& ctx);
result<nlohmann::json> dump_d3dmesh(const read_context& ctx);
result<bytes> rewrite_d3dmesh(const read_context& ctx);
result<nlohmann::json> dump_d3dtx(const read_context& ctx);
result<bytes> rewrite_d3dtx(const read_context& ctx);

}  // namespace rigrip::telltale
