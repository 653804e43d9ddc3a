// Structure-aware libFuzzer target for the inputs users write by hand: glTF (.gltf text and
// .glb) and scene JSON. RIGRIP_FUZZ_JSON_KIND=gltf|glb|scene-json picks the input kind
// (scripts/fuzz.sh runs all three as targets json-gltf, json-glb, json-scene). The custom
// mutator parses the JSON and changes its structure the way a hostile user would: an index
// set out of range or pointed elsewhere, a node adopting its ancestor (cycles, two parents),
// a value wrapped in hundreds of levels, a count made huge, a value nulled or retyped. Bytes
// that do not parse fall back to libFuzzer's byte mutations.
//
// Each input is read through the registry (what convert/info/pack do), written back as glTF
// and scene JSON when it reads. A crash, a sanitizer report, an E_INTERNAL error, a message
// of more than one line or an exception escaping the API is a finding.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>

#include "rigrip/gltf.hpp"
#include "rigrip/registry.hpp"

extern "C" size_t LLVMFuzzerMutate(uint8_t* data, size_t size, size_t max_size);

namespace {
using nlohmann::json;

enum class kind { gltf, glb, scene_json };
kind g_kind = kind::gltf;

[[noreturn]] void finding(const std::string& detail) {
  std::fprintf(stderr, "rigrip_fuzz_json: %s\n", detail.c_str());
  std::abort();
}

// GLB <-> (JSON text, BIN chunk).
bool split_glb(const uint8_t* d, size_t n, std::string& j, std::string& bin) {
  if (n < 20 || std::memcmp(d, "glTF", 4) != 0) return false;
  std::uint32_t jl;
  std::memcpy(&jl, d + 12, 4);
  if (jl > n - 20) return false;
  j.assign(reinterpret_cast<const char*>(d + 20), jl);
  size_t next = 20 + ((static_cast<size_t>(jl) + 3) & ~size_t{3});
  if (next + 8 <= n) bin.assign(reinterpret_cast<const char*>(d + next + 8), n - next - 8);
  return true;
}
std::string join_glb(std::string j, std::string bin) {
  while (j.size() % 4) j += ' ';
  while (bin.size() % 4) bin += '\0';
  std::string out = "glTF";
  auto u32 = [&](std::uint32_t v) { out.append(reinterpret_cast<const char*>(&v), 4); };
  u32(2);
  u32(static_cast<std::uint32_t>(28 + j.size() + bin.size()));
  u32(static_cast<std::uint32_t>(j.size()));
  out += "JSON" + j;
  u32(static_cast<std::uint32_t>(bin.size()));
  out += std::string("BIN\0", 4) + bin;
  return out;
}

void mutate_json(json& j, std::mt19937& rng) {
  json flat = j.flatten();
  if (flat.empty()) return;
  std::vector<std::string> keys;
  for (const auto& [k, v] : flat.items()) keys.push_back(k);
  const std::string& key = keys[rng() % keys.size()];
  static const std::int64_t nasty[] = {-1, 0, 1, 2, 7, 13, 99, 255, 65535, 2147483647, 4294967296LL, 100000000, -2147483648LL};
  switch (rng() % 8) {
    case 0: flat[key] = nasty[rng() % std::size(nasty)]; break;                  // index / count out of range
    case 1: flat[key] = flat[keys[rng() % keys.size()]]; break;                  // a value from elsewhere
    case 2: flat[key] = nullptr; break;
    case 3: flat[key] = rng() % 2 ? json("x") : json(1.5); break;                // wrong type
    case 4: {                                                                     // deep nesting
      json v = flat[key];
      const int depth = rng() % 4 == 0 ? 300 : static_cast<int>(rng() % 40);
      for (int i = 0; i < depth; ++i) v = json::array({v});
      flat[key] = v;
      break;
    }
    default: break;
  }
  j = flat.unflatten();
  if (j.is_object() && j.contains("nodes") && j["nodes"].is_array() && !j["nodes"].empty() && rng() % 3 == 0) {
    auto& nodes = j["nodes"];  // a node adopts another: cycles and two parents
    auto& n = nodes[rng() % nodes.size()];
    if (n.is_object()) n["children"].push_back(rng() % nodes.size());
  }
  if (j.is_object() && j.contains("accessors") && j["accessors"].is_array() && !j["accessors"].empty() && rng() % 4 == 0) {
    auto& a = j["accessors"][rng() % j["accessors"].size()];
    if (a.is_object()) {
      if (rng() % 2) a.erase("bufferView");
      a["count"] = nasty[rng() % std::size(nasty)];
    }
  }
}
}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  const char* k = std::getenv("RIGRIP_FUZZ_JSON_KIND");
  std::string s = k ? k : "gltf";
  g_kind = s == "glb" ? kind::glb : s == "scene-json" ? kind::scene_json : kind::gltf;
  return 0;
}

extern "C" size_t LLVMFuzzerCustomMutator(uint8_t* data, size_t size, size_t max_size, unsigned int seed) {
  std::mt19937 rng(seed);
  std::string text, bin;
  const bool glb = split_glb(data, size, text, bin);
  if (!glb) text.assign(reinterpret_cast<const char*>(data), size);
  json j = json::parse(text, nullptr, false);
  if (j.is_discarded() || rng() % 8 == 0) return LLVMFuzzerMutate(data, size, max_size);
  // The mutator is harness code: nlohmann throws on some edits (unflatten of a key whose
  // value became structured, dump of invalid UTF-8); those inputs fall back to byte mutation.
  std::string out;
  try {
    mutate_json(j, rng);
    out = j.dump(-1, ' ', false, json::error_handler_t::replace);
  } catch (const std::exception&) {
    return LLVMFuzzerMutate(data, size, max_size);
  }
  if (glb) out = join_glb(out, bin);
  if (out.size() > max_size) return LLVMFuzzerMutate(data, size, max_size);
  std::memcpy(data, out.data(), out.size());
  return out.size();
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  rigrip::byte_view in(data, size);
  const char* name = g_kind == kind::glb ? "fuzz.glb" : g_kind == kind::gltf ? "fuzz/in.gltf" : "fuzz.json";
  const rigrip::format* f = rigrip::find_format(g_kind == kind::scene_json ? "scene-json" : "gltf");
  rigrip::diagnostics d;
  auto s = rigrip::read_scene(in, name, {}, d, f);
  if (!s) {
    const auto line = s.error().to_string();
    if (s.error().code == rigrip::code::internal) finding("E_INTERNAL: " + line);
    if (line.find('\n') != std::string::npos) finding("a message of more than one line: " + line);
    return 0;
  }
  auto g = rigrip::gltf::write(s.value(), {}, d);
  if (!g && g.error().code == rigrip::code::internal) finding("glTF write: " + g.error().to_string());
  (void)rigrip::scene_json::to_json(s.value()).dump(-1, ' ', false, json::error_handler_t::replace);
  return 0;
}
