// Formats the core itself reads: the scene JSON and glTF (input for `rigrip pack`).
#include <cstring>

#include "rigrip/gltf.hpp"
#include "rigrip/registry.hpp"
#include "scene/json_limits.hpp"

namespace rigrip {
namespace {
bool ends_with(std::string_view s, std::string_view e) {
  return s.size() >= e.size() && s.substr(s.size() - e.size()) == e;
}

// Top-level keys only glTF has (the scene JSON has "animations" too, so that one decides
// nothing, nor do "meshes", "materials" and "textures", which both have). nlohmann writes keys sorted, so a glTF rigrip wrote starts with "accessors" or
// "asset" however long its arrays are; other writers put "asset" first.
bool has_gltf_key(const std::vector<std::string>& keys) {
  for (const auto& k : keys)
    if (k == "asset" || k == "accessors" || k == "bufferViews" || k == "buffers" || k == "nodes" || k == "scenes" ||
        k == "scene" || k == "skins" || k == "extensionsUsed" || k == "extensionsRequired")
      return true;
  return false;
}

int detect_json(byte_view d, std::string_view name) {
  const auto keys = json_limits::top_level_keys(d.first(std::min<std::size_t>(d.size(), 64 * 1024)));
  if (keys.empty() || has_gltf_key(keys) || ends_with(name, ".gltf")) return score::none;
  for (const auto& k : keys)
    if (k == "skeletons" || k == "animations") return score::structure;
  // any JSON could be named .json: only the content decides
  return score::none;
}

result<scene> read_json(const read_context& ctx) {
  if (auto deep = json_limits::too_deep(ctx.data))
    return make_error(code::limit_exceeded,
                      "scene JSON nested deeper than " + std::to_string(json_limits::max_depth) + " levels", *deep);
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(ctx.data.begin(), ctx.data.end());
  } catch (const nlohmann::json::parse_error& e) {
    // e.byte is 1-based: the offset of the character the parser could not accept.
    return make_error(code::bad_value, "expected valid JSON", e.byte > 0 ? e.byte - 1 : 0);
  } catch (const nlohmann::json::exception&) {  // e.g. a number too large for a double
    return make_error(code::bad_value, "expected valid JSON (a number out of range)");
  } catch (const std::bad_alloc&) {
    return make_error(code::limit_exceeded, "scene JSON needs more memory than is available");
  }
  return scene_json::from_json(j);
}

int detect_gltf(byte_view d, std::string_view name) {
  if (d.size() >= 12 && std::memcmp(d.data(), "glTF", 4) == 0) return score::magic;
  const auto keys = json_limits::top_level_keys(d.first(std::min<std::size_t>(d.size(), 64 * 1024)));
  if (has_gltf_key(keys)) return score::structure;
  if (!keys.empty() && ends_with(name, ".gltf")) return score::structure;
  return ends_with(name, ".gltf") || ends_with(name, ".glb") ? score::name_only : score::none;
}

result<scene> read_gltf(const read_context& ctx) {
  std::string dir;
  auto slash = ctx.path.find_last_of('/');
  if (slash != std::string::npos) dir = ctx.path.substr(0, slash + 1);
  auto load = [&](const std::string& p) -> result<bytes> {
    if (!ctx.load) return make_error(code::io_error, "no file access");
    if (p.find("..") != std::string::npos || (!p.empty() && p[0] == '/'))
      return make_error(code::io_error, "refusing a buffer path outside the glTF's folder: " + p);
    return ctx.load(p.rfind(dir, 0) == 0 ? p : dir + p);
  };
  return gltf::read(ctx.data, ctx.path, *ctx.diags, load);
}
}  // namespace

std::vector<format> core_formats() {
  return {
      format{"scene-json", "core", "rigrip scene JSON (the output of `rigrip dump`)", {".json"},
             "content: a JSON object with \"skeletons\"/\"animations\"; name: .json",
             detect_json, read_json, nullptr, nullptr, nullptr,
             /*stores_segment_scale_compensate=*/true},  // the JSON keeps the flag
      format{"gltf", "core", "glTF 2.0 (.glb / .gltf), input for write-back", {".glb", ".gltf"},
             "content: 'glTF' magic or a JSON object with \"asset\"; name: .glb/.gltf",
             detect_gltf, read_gltf, nullptr, nullptr, nullptr,
             /*stores_segment_scale_compensate=*/true},  // helper nodes model it
  };
}

}  // namespace rigrip
