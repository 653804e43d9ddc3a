// hostile.GltfJson.*: the hand-made inputs of issue 14 (crafted glTF and scene JSON), each a
// regression test expecting one line with a stable code, no crash, no hang, bounded memory.
#include <gtest/gtest.h>

#include <chrono>
#include <cstring>
#include <random>
#include <string>

#include <nlohmann/json.hpp>

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>

#include "alloc_tracker.hpp"
#include "containers/yaz0.hpp"
#include "rigrip/gltf.hpp"
#include "rigrip/registry.hpp"
#include "test_support.hpp"

namespace {
using nlohmann::json;
using namespace rigrip;

std::string example() { return std::string(RIGRIP_SOURCE_DIR) + "/examples/scene/waving_arm.json"; }

scene wave() {
  diagnostics d;
  auto s = read_scene(example(), {}, d);
  EXPECT_TRUE(s.ok());
  return s.value();
}

// A self-contained glTF as JSON plus its binary buffer (what the writer makes of the example).
struct doc {
  json g;
  bytes bin;
};
doc wave_doc() {
  diagnostics d;
  gltf::write_options o;
  o.binary = false;
  auto enc = gltf::write(wave(), o, d, "wave.bin");
  EXPECT_TRUE(enc.ok());
  doc r;
  r.g = json::parse(enc->main.begin(), enc->main.end());
  r.bin = enc->bin;
  r.g["buffers"][0].erase("uri");
  return r;
}
bytes glb(const json& g, const bytes& bin) {
  std::string j = g.dump();
  while (j.size() % 4) j += ' ';
  bytes b = bin;
  while (b.size() % 4) b.push_back(0);
  bytes out;
  auto u32 = [&](std::uint32_t v) {
    for (int i = 0; i < 4; ++i) out.push_back(static_cast<std::uint8_t>(v >> (8 * i)));
  };
  out.insert(out.end(), {'g', 'l', 'T', 'F'});
  u32(2);
  u32(static_cast<std::uint32_t>(12 + 8 + j.size() + 8 + b.size()));
  u32(static_cast<std::uint32_t>(j.size()));
  out.insert(out.end(), {'J', 'S', 'O', 'N'});
  out.insert(out.end(), j.begin(), j.end());
  u32(static_cast<std::uint32_t>(b.size()));
  out.insert(out.end(), {'B', 'I', 'N', 0});
  out.insert(out.end(), b.begin(), b.end());
  return out;
}
bytes text(const std::string& s) { return bytes(s.begin(), s.end()); }
// The .gltf form: the buffer as a data: uri.
bytes gltf_text(json g, const bytes& bin) {
  static const char* t = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string b64;
  for (std::size_t i = 0; i < bin.size(); i += 3) {
    std::uint32_t v = bin[i] << 16 | (i + 1 < bin.size() ? bin[i + 1] << 8 : 0) | (i + 2 < bin.size() ? bin[i + 2] : 0);
    b64 += t[v >> 18 & 63];
    b64 += t[v >> 12 & 63];
    b64 += i + 1 < bin.size() ? t[v >> 6 & 63] : '=';
    b64 += i + 2 < bin.size() ? t[v & 63] : '=';
  }
  if (g.contains("buffers") && g["buffers"].is_array() && !g["buffers"].empty() && g["buffers"][0].is_object())
    g["buffers"][0]["uri"] = "data:application/octet-stream;base64," + b64;
  return text(g.dump());
}

// Reads through the registry (what convert/info/pack do) and returns the error line.
std::string read_error(const bytes& data, const std::string& name, std::int64_t memory_bound = 256 << 20) {
  diagnostics d;
  auto t0 = std::chrono::steady_clock::now();
  hostile::alloc::begin(memory_bound);
  auto r = read_scene(byte_view(data), name, {}, d);
  auto st = hostile::alloc::end();
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 5.0) << name;
  EXPECT_EQ(st.refused_count, 0u) << name << ": an allocation above " << memory_bound << " bytes was asked for";
  if (r.ok()) return "";
  std::string line = r.error().to_string();
  EXPECT_EQ(line.find('\n'), std::string::npos) << line;
  EXPECT_EQ(line.find("json.exception"), std::string::npos) << line;
  EXPECT_EQ(line.find("vector::"), std::string::npos) << line;
  EXPECT_NE(r.error().code, code::internal) << line;
  return line;
}

TEST(GltfJson, BaselineGlbReads) {
  auto d = wave_doc();
  EXPECT_EQ(read_error(glb(d.g, d.bin), "wave.glb"), "");
  EXPECT_EQ(read_error(gltf_text(d.g, d.bin), "wave.gltf"), "");
}

// Row 1: a channel targeting node 14 / 2147483647, a bufferView's buffer 2^32.
TEST(GltfJson, ChannelTargetOutOfRange) {
  for (std::int64_t n : {std::int64_t{14}, std::int64_t{2147483647}, std::int64_t{-1}}) {
    auto d = wave_doc();
    d.g["animations"][0]["channels"][0]["target"]["node"] = n;
    auto e = read_error(glb(d.g, d.bin), "target.glb");
    EXPECT_NE(e.find("E_GLTF"), std::string::npos) << e;
    EXPECT_NE(e.find("target.node"), std::string::npos) << e;
  }
}
TEST(GltfJson, BufferIndexHuge) {
  auto d = wave_doc();
  d.g["bufferViews"][0]["buffer"] = 4294967296ull;
  auto e = read_error(glb(d.g, d.bin), "buffer.glb");
  EXPECT_NE(e.find("E_GLTF"), std::string::npos) << e;
  EXPECT_NE(e.find("bufferViews[0].buffer"), std::string::npos) << e;
}
// Every index kind is checked (nodes, accessors, bufferViews, buffers, samplers, skins, joints, images).
TEST(GltfJson, EveryIndexChecked) {
  auto base = wave_doc();
  std::vector<std::pair<json::json_pointer, json>> cases = {
      {json::json_pointer("/nodes/0/children/0"), 999},
      {json::json_pointer("/nodes/0/skin"), 7},
      {json::json_pointer("/nodes/0/mesh"), 7},
      {json::json_pointer("/skins/0/joints/0"), 500},
      {json::json_pointer("/skins/0/skeleton"), 500},
      {json::json_pointer("/skins/0/inverseBindMatrices"), 500},
      {json::json_pointer("/animations/0/channels/0/sampler"), 50},
      {json::json_pointer("/animations/0/samplers/0/input"), 500},
      {json::json_pointer("/animations/0/samplers/0/output"), -3},
      {json::json_pointer("/accessors/0/bufferView"), 99},
      {json::json_pointer("/scenes/0/nodes/0"), 77},
      {json::json_pointer("/scene"), 3},
      {json::json_pointer("/images"), json::array({{{"bufferView", 42}, {"mimeType", "image/png"}}})},
      {json::json_pointer("/textures"), json::array({{{"source", 5}}})},
      {json::json_pointer("/nodes/0/children/0"), 1.5},
      {json::json_pointer("/nodes/0/children/0"), "x"},
  };
  for (const auto& [ptr, v] : cases) {
    auto d = base;
    d.g[ptr] = v;
    auto e = read_error(glb(d.g, d.bin), "index.glb");
    EXPECT_NE(e.find("E_GLTF"), std::string::npos) << ptr.to_string() << ": " << e;
  }
}

// Row 2: a node its own parent, a loop above the joints, two parents.
TEST(GltfJson, NodeGraphCycles) {
  auto base = wave_doc();
  ASSERT_GE(base.g["nodes"].size(), 3u);
  {
    auto d = base;
    d.g["nodes"][1]["children"] = json::array({1});
    auto e = read_error(glb(d.g, d.bin), "self.glb");
    EXPECT_NE(e.find("E_INVALID_SCENE"), std::string::npos) << e;
    EXPECT_NE(e.find("node 1"), std::string::npos) << e;
  }
  {
    // the hand (a leaf joint) adopts the root: a loop through every ancestor of the joints
    auto d = base;
    std::size_t hand = 0;
    for (std::size_t i = 0; i < d.g["nodes"].size(); ++i)
      if (d.g["nodes"][i].value("name", "") == "hand") hand = i;
    ASSERT_GT(hand, 0u);
    d.g["nodes"][hand]["children"] = json::array({0});
    auto e = read_error(glb(d.g, d.bin), "loop.glb");
    EXPECT_NE(e.find("E_INVALID_SCENE"), std::string::npos) << e;
    EXPECT_NE(e.find("cycle"), std::string::npos) << e;
  }
  {
    auto d = base;
    json c = d.g["nodes"][0]["children"];
    ASSERT_TRUE(c.is_array() && !c.empty());
    d.g["nodes"][2]["children"].push_back(c[0]);
    auto e = read_error(glb(d.g, d.bin), "two.glb");
    EXPECT_NE(e.find("E_INVALID_SCENE"), std::string::npos) << e;
    EXPECT_NE(e.find("two parents"), std::string::npos) << e;
  }
}

// Row 3: nesting 100,000 levels in glTF extras and in scene JSON.
TEST(GltfJson, DeepNesting) {
  std::string deep(100000, '[');
  deep += std::string(100000, ']');
  auto d = wave_doc();
  std::string g = d.g.dump();
  g.insert(g.size() - 1, ",\"extras\":" + deep);
  auto e = read_error(glb(json::parse("{}"), {}), "x.glb");  // not a glTF at all: a clean error
  EXPECT_NE(e.find("E_GLTF"), std::string::npos) << e;
  std::string with_buf = g;
  e = read_error(text(with_buf), "deep.gltf");
  EXPECT_NE(e.find("E_LIMIT"), std::string::npos) << e;
  std::string sj = "{\"skeletons\":[{\"bones\":[],\"extras\":" + deep + "}]}";
  e = read_error(text(sj), "deep.json");
  EXPECT_NE(e.find("E_LIMIT"), std::string::npos) << e;
  EXPECT_NE(e.find("nested deeper than 256"), std::string::npos) << e;
  // 256 levels are fine
  std::string ok = "{\"skeletons\":[{\"bones\":[],\"extras\":" + std::string(250, '[') + std::string(250, ']') + "}]}";
  EXPECT_EQ(read_error(text(ok), "ok.json"), "");
}

// Row 4: 17 KB glTF, an accessor without bufferView of count 100,000,000 VEC4: refused before
// allocating (memory below 64 MiB, well under a second).
TEST(GltfJson, BufferlessAccessorCount) {
  auto d = wave_doc();
  d.g["accessors"][0].erase("bufferView");
  d.g["accessors"][0]["count"] = 100000000;
  d.g["accessors"][0]["type"] = "VEC4";
  d.g["accessors"][0]["componentType"] = 5126;
  auto e = read_error(glb(d.g, d.bin), "count.glb", 64 << 20);
  EXPECT_NE(e.find("E_LIMIT"), std::string::npos) << e;
  // and a count too large for its bufferView
  d = wave_doc();
  d.g["accessors"][0]["count"] = 100000000;
  e = read_error(glb(d.g, d.bin), "count2.glb", 64 << 20);
  EXPECT_NE(e.find("E_BAD_COUNT"), std::string::npos) << e;
}

// Row 5: bufferView 99 of 13: our words, not the library's.
TEST(GltfJson, BufferViewIndexMessage) {
  auto d = wave_doc();
  d.g["accessors"][0]["bufferView"] = 99;
  auto e = read_error(glb(d.g, d.bin), "view.glb");
  EXPECT_NE(e.find("E_GLTF"), std::string::npos) << e;
  EXPECT_NE(e.find("accessors[0].bufferView: bufferView 99 out of range"), std::string::npos) << e;
  EXPECT_EQ(e.find("_M_range_check"), std::string::npos) << e;
}

// Row 6: scene JSON with null / wrong types: E_BAD_VALUE naming the key, never E_INTERNAL;
// 2,000 structured mutants (null, string, object, array, huge number in every value slot).
TEST(GltfJson, SceneJsonWrongTypes) {
  json base = json::parse(test::read_bytes(example()));
  {
    json j = base;
    j["skeletons"][0]["bones"][0]["name"] = nullptr;
    auto e = read_error(text(j.dump()), "null.json");
    EXPECT_NE(e.find("E_BAD_VALUE"), std::string::npos) << e;
    EXPECT_NE(e.find("skeletons[0].bones[0].name"), std::string::npos) << e;
  }
  {
    json j = base;
    j["animations"][0]["tracks"][0] = "a string where an object belongs";
    auto e = read_error(text(j.dump()), "str.json");
    EXPECT_NE(e.find("E_BAD_VALUE"), std::string::npos) << e;
    EXPECT_NE(e.find("animations[0].tracks[0]"), std::string::npos) << e;
  }
  // every value slot, each replaced by each hostile value
  std::vector<json::json_pointer> slots;
  json flat = base.flatten();
  for (const auto& [k, v] : flat.items()) slots.emplace_back(k);
  for (const auto& [k, v] : flat.items()) {
    auto p = json::json_pointer(k);
    while (!p.empty()) {
      p = p.parent_pointer();
      if (!p.empty()) slots.push_back(p);
    }
  }
  const json hostile[] = {nullptr, "s", json::object(), json::array(), 1e300, -1, 4294967296ull, true};
  std::mt19937 rng(14);
  int n = 0;
  for (int i = 0; i < 2000; ++i) {
    json j = base;
    const auto& ptr = slots[rng() % slots.size()];
    j[ptr] = hostile[rng() % std::size(hostile)];
    read_error(text(j.dump()), "mutant.json");
    ++n;
  }
  EXPECT_EQ(n, 2000);
}

// Row 7: a .gltf rigrip wrote (long accessor and animation arrays before "asset") is glTF.
TEST(GltfJson, OwnGltfDetectedAsGltf) {
  scene s = wave();
  // many tracks: the accessors/animations arrays run far past the first kilobytes
  const auto a = s.animations[0];
  for (int k = 0; k < 60; ++k) {
    s.animations.push_back(a);
    s.animations.back().name += "_" + std::to_string(k);
  }
  diagnostics d;
  gltf::write_options o;
  o.binary = false;
  auto enc = gltf::write(s, o, d, "big.bin");
  ASSERT_TRUE(enc.ok()) << enc.error().to_string();
  std::string head(enc->main.begin(), enc->main.begin() + std::min<std::size_t>(enc->main.size(), 8192));
  EXPECT_EQ(head.find("\"asset\""), std::string::npos) << "the test needs asset beyond the first 8 KB";
  for (const char* name : {"x.gltf", "x.json", "x"}) {
    auto f = detect_format(enc->main, name);
    ASSERT_TRUE(f.ok()) << name;
    EXPECT_EQ(f.value()->id, "gltf") << name;
  }
  // and the scene JSON of the same scene stays scene JSON
  std::string sj = scene_json::to_json(s).dump();
  auto f = detect_format(text(sj), "x.json");
  ASSERT_TRUE(f.ok());
  EXPECT_EQ(f.value()->id, "scene-json");
  // a scene JSON with meshes, materials and textures (keys glTF has too) stays scene JSON
  const auto tt = test::read_bytes(std::string(RIGRIP_SOURCE_DIR) + "/examples/telltale/sk99_demo_source.json");
  auto g = detect_format(tt, "sk99_demo_source.json");
  ASSERT_TRUE(g.ok());
  EXPECT_EQ(g.value()->id, "scene-json");
}

// Row 8: uris outside the glTF's folder are refused before any file is opened.
TEST(GltfJson, UriOutsideFolder) {
  auto d = wave_doc();
  for (const char* uri : {"/etc/shadow", "../secret.bin", "a/../../b.bin", "%2e%2e/x.bin", "file:///etc/passwd",
                          "C:\\x.bin", "..\\x.bin"}) {
    json g = d.g;
    g["buffers"][0]["uri"] = uri;
    int loads = 0;
    diagnostics diags;
    std::string data = g.dump();
    auto r = gltf::read(text(data), "dir/in.gltf", diags, [&](const std::string&) -> result<bytes> {
      ++loads;
      return bytes{};
    });
    ASSERT_FALSE(r.ok()) << uri;
    EXPECT_EQ(loads, 0) << uri;
    std::string e = r.error().to_string();
    EXPECT_EQ(e.find('\n'), std::string::npos) << e;
    EXPECT_NE(e.find("inside the glTF's folder"), std::string::npos) << e;
    EXPECT_NE(e.find("E_GLTF"), std::string::npos) << e;
  }
  // through the registry as well (read_scene with a path on disk)
  json g = d.g;
  g["buffers"][0]["uri"] = "/etc/shadow";
  std::string p = test::out_path("hostile/uri/abs.gltf");
  test::write_bytes(p, text(g.dump()));
  diagnostics diags;
  auto r = read_scene(p, {}, diags);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().to_string().find('\n'), std::string::npos) << r.error().to_string();
}

// A structured campaign over the glTF: indices, cycles, depth, counts (small in CI;
// RIGRIP_HOSTILE_GLTF_MUTANTS=N runs N).
TEST(GltfJson, StructuredMutants) {
  auto base = wave_doc();
  int total = 500;
  if (const char* e = std::getenv("RIGRIP_HOSTILE_GLTF_MUTANTS")) total = std::max(1, std::atoi(e));
  json flat = base.g.flatten();
  std::vector<std::string> ints;
  for (const auto& [k, v] : flat.items())
    if (v.is_number_integer()) ints.push_back(k);
  ASSERT_FALSE(ints.empty());
  std::mt19937 rng(1414);
  const std::int64_t nasty[] = {-1, 0, 1, 2, 13, 99, 255, 65535, 2147483647, 4294967296LL, 100000000, -2147483648LL};
  int ok = 0, failed = 0;
  for (int i = 0; i < total; ++i) {
    json f = flat;
    const int edits = 1 + static_cast<int>(rng() % 3);
    for (int k = 0; k < edits; ++k) {
      const auto& key = ints[rng() % ints.size()];
      switch (rng() % 4) {
        case 0: f[key] = nasty[rng() % std::size(nasty)]; break;
        case 1: f[key] = f[key].is_number_integer() ? json(f[key].get<std::int64_t>() + 1) : json(1); break;
        case 2: f[key] = nullptr; break;
        default: f[key] = f[ints[rng() % ints.size()]]; break;  // an index from elsewhere
      }
    }
    json g = f.unflatten();
    if (rng() % 8 == 0 && g["nodes"].size() > 1) g["nodes"][rng() % g["nodes"].size()]["children"].push_back(rng() % g["nodes"].size());
    const bool binary = rng() % 2;
    auto data = binary ? glb(g, base.bin) : gltf_text(g, base.bin);
    auto e = read_error(data, binary ? "m.glb" : "m.gltf");
    (e.empty() ? ok : failed)++;
  }
  std::printf("glTF structured mutants: %d (%d read, %d clean errors)\n", total, ok, failed);
}

// Row 9: an offset inside decompressed data says so.
TEST(Issue14, Yaz0OffsetSaysWithin) {
  const std::string bad = R"({"skeletons": [{"name": "x", "bones": [{"name": "a", "parent": -1} ]]]  )";
  auto z = containers::yaz0_compress(text(bad));
  diagnostics d;
  auto r = read_scene(byte_view(z), "inner.szs", {}, d);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().within, "the Yaz0-decompressed data") << r.error().to_string();
  EXPECT_NE(r.error().to_string().find(" in the Yaz0-decompressed data: E_BAD_VALUE"), std::string::npos)
      << r.error().to_string();
  EXPECT_NE(r.error().offset, no_offset);
}

// Row 15: a 2 GB file that is no game file is judged by its first bytes: no whole read.
TEST(Issue14, HugeUnknownFileNotReadWhole) {
  const std::string p = test::out_path("hostile/huge/not_a_game_file.bin");
  std::filesystem::create_directories(std::filesystem::path(p).parent_path());
  {
    int fd = ::open(p.c_str(), O_CREAT | O_TRUNC | O_WRONLY, 0644);
    ASSERT_GE(fd, 0);
    ASSERT_EQ(::ftruncate(fd, 2000000000), 0);  // sparse: costs no disk
    ::close(fd);
  }
  diagnostics d;
  auto t0 = std::chrono::steady_clock::now();
  hostile::alloc::begin(8 << 20);
  auto r = read_scene(p, {}, d);
  auto st = hostile::alloc::end();
  std::filesystem::remove(p);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, code::unknown_format) << r.error().to_string();
  EXPECT_EQ(st.refused_count, 0u);
  EXPECT_LT(st.peak_bytes, 1 << 20);
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 1.0);
  // and a big file a format does claim is still read whole
  const std::string q = test::out_path("hostile/huge/big.json");
  scene s = wave();
  for (int k = 0; k < 300; ++k) s.animations.push_back(s.animations[0]);
  std::string j = scene_json::to_json(s).dump();
  ASSERT_GT(j.size(), 64u * 1024);
  test::write_bytes(q, text(j));
  auto ok = read_scene(q, {}, d);
  EXPECT_TRUE(ok.ok()) << ok.error().to_string();
}

// Rows 11-13: temporaries are short, removed, and outputs that are not regular files are
// written through.
TEST(Issue14, SaveFileTemporariesAndSpecialOutputs) {
  namespace fs = std::filesystem;
  const fs::path dir = test::out_path("hostile/save");
  fs::remove_all(dir);
  fs::create_directories(dir);
  // a 250-byte name (legal: the limit is 255) gets written
  const fs::path longname = dir / (std::string(246, 'n') + ".glb");
  ASSERT_TRUE(save_file(longname.string(), text("abc")).ok());
  EXPECT_TRUE(fs::exists(longname));
  // a device node stays a device (our own node, never the machine's /dev/null: a regression
  // would replace it); needs root to make one
  struct stat st {};
  const fs::path dev = dir / "devnull";
  if (::mknod(dev.c_str(), S_IFCHR | 0666, makedev(1, 3)) == 0) {
    ASSERT_TRUE(save_file(dev.string(), text("abc")).ok());
    ASSERT_EQ(::lstat(dev.c_str(), &st), 0);
    EXPECT_TRUE(S_ISCHR(st.st_mode));
  } else {
    std::printf("(not root: device node case skipped)\n");
  }
  // a symlink stays a symlink; its target gets the bytes
  const fs::path target = dir / "target.bin", link = dir / "link.glb";
  test::write_bytes(target.string(), text("old"));
  fs::create_symlink(target.filename(), link);
  ASSERT_TRUE(save_file(link.string(), text("new bytes")).ok());
  EXPECT_TRUE(fs::is_symlink(link));
  EXPECT_EQ(test::read_bytes(target.string()), text("new bytes"));
  // a FIFO is written through, not replaced
  const fs::path fifo = dir / "pipe.glb";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  pid_t child = ::fork();
  if (child == 0) {
    int fd = ::open(fifo.c_str(), O_RDONLY);
    char buf[64];
    ssize_t n = ::read(fd, buf, sizeof buf);
    _exit(n == 5 ? 0 : 1);
  }
  ASSERT_TRUE(save_file(fifo.string(), text("fifo!")).ok());
  int status = 0;
  ::waitpid(child, &status, 0);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  ASSERT_EQ(::lstat(fifo.c_str(), &st), 0);
  EXPECT_TRUE(S_ISFIFO(st.st_mode));
  // a temporary of a killed run (a pid that is gone) is removed by the next write there;
  // one of a live process is not
  pid_t gone = ::fork();
  if (gone == 0) _exit(0);
  ::waitpid(gone, &status, 0);
  const fs::path stale = dir / (".rr-" + std::to_string(gone) + "-AbC123.tmp");
  const fs::path live = dir / (".rr-1-AbC123.tmp");
  test::write_bytes(stale.string(), text("stale"));
  test::write_bytes(live.string(), text("live"));
  EXPECT_EQ(remove_stale_temporaries(dir.string()), 1u);
  EXPECT_FALSE(fs::exists(stale));
  EXPECT_TRUE(fs::exists(live));
  fs::remove(live);
  // nothing else of ours is left in the folder
  for (const auto& e : fs::directory_iterator(dir))
    EXPECT_EQ(e.path().filename().string().rfind(".rr-", 0), std::string::npos) << e.path();
  // a failed write (the folder is a file) leaves nothing and says why in one line
  test::write_bytes((dir / "afile").string(), text("x"));
  auto bad = save_file((dir / "afile" / "out.glb").string(), text("x"));
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().code, code::io_error);
  EXPECT_EQ(bad.error().to_string().find('\n'), std::string::npos);
}

}  // namespace
