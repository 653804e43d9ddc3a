// Benchmarks: glTF writing of a large synthetic scene, scene validation, and reading
// every shared sample through the registry (skipped when the samples are absent).
#include <benchmark/benchmark.h>

#include <cmath>
#include <filesystem>

#include "core/math.hpp"
#include "rigrip/gltf.hpp"
#include "rigrip/registry.hpp"

using namespace rigrip;

namespace {
scene synthetic(int bones, int anims, int keys) {
  scene s;
  s.format = "bench";
  skeleton sk;
  sk.name = "bench";
  for (int b = 0; b < bones; ++b) sk.bones.push_back(bone{"b" + std::to_string(b), b - 1, {0, 1, 0}});
  s.skeletons.push_back(sk);
  for (int a = 0; a < anims; ++a) {
    animation an;
    an.name = "clip" + std::to_string(a);
    an.duration = (keys - 1) / 30.0;
    an.fps = 30;
    for (int b = 0; b < bones; ++b) {
      track t;
      t.bone = sk.bones[static_cast<std::size_t>(b)].name;
      for (int k = 0; k < keys; ++k) {
        t.times.push_back(static_cast<float>(k / 30.0));
        quat q = core::axis_angle({0, 0, 1}, 0.01f * static_cast<float>(k + b));
        t.values.insert(t.values.end(), q.begin(), q.end());
      }
      an.tracks.push_back(std::move(t));
    }
    s.animations.push_back(std::move(an));
  }
  return s;
}
}  // namespace

static void BM_GltfWrite(benchmark::State& st) {
  scene s = synthetic(64, 8, static_cast<int>(st.range(0)));
  std::size_t bytes_out = 0;
  for (auto _ : st) {
    diagnostics d;
    auto r = gltf::write(s, {}, d);
    bytes_out = r ? r->main.size() : 0;
    benchmark::DoNotOptimize(bytes_out);
  }
  st.counters["glb_bytes"] = static_cast<double>(bytes_out);
  st.counters["keys/s"] = benchmark::Counter(64.0 * 8 * static_cast<double>(st.range(0)) * st.iterations(), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_GltfWrite)->Arg(30)->Arg(300)->Unit(benchmark::kMillisecond);

static void BM_Validate(benchmark::State& st) {
  scene s = synthetic(64, 8, 300);
  for (auto _ : st) benchmark::DoNotOptimize(s.validate().ok());
}
BENCHMARK(BM_Validate)->Unit(benchmark::kMillisecond);

// Reads every shared sample the registry recognises: the "whole game" throughput.
static void BM_ReadSamples(benchmark::State& st) {
  namespace fs = std::filesystem;
  std::vector<std::pair<std::string, bytes>> files;
  std::error_code ec;
  if (fs::is_directory(RIGRIP_SAMPLES_DIR, ec))
    for (const auto& e : fs::recursive_directory_iterator(RIGRIP_SAMPLES_DIR, ec))
      if (e.is_regular_file()) {
        auto b = load_file(e.path().string());
        if (b) files.emplace_back(e.path().string(), std::move(b.value()));
      }
  if (files.empty()) {
    st.SkipWithError("shared samples not present");
    return;
  }
  std::size_t total = 0;
  for (const auto& f : files) total += f.second.size();
  for (auto _ : st) {
    for (const auto& [name, data] : files) {
      diagnostics d;
      auto s = read_scene(data, name, {}, d);
      benchmark::DoNotOptimize(s.ok());
    }
  }
  st.SetBytesProcessed(static_cast<std::int64_t>(total) * st.iterations());
}
BENCHMARK(BM_ReadSamples)->Unit(benchmark::kMillisecond);
