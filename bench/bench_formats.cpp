// Per-family benchmarks (issue 16): decode (file bytes -> validated scene), encode (scene ->
// format bytes), the GLB writer and the scene-JSON writer, on the shared samples (one set per
// format, plus its largest file) and on large scenes generated with our own encoders.
//
// Counters (rates use CPU time):
//   pose_B/s   decoded pose bytes per second: bones x 40 bytes x frames at the source rate
//   in_B/s     input bytes per second (the file for decode, the pose bytes for writers)
//   out_B/s    output bytes per second (the file for encode, the glb / JSON text for writers)
//   vs_memcpy  pose_B/s divided by memcpy's rate over the same number of bytes, measured in
//              the same run just before the benchmark (1.0 = as fast as copying the poses)
// Absent samples are skipped with a printed reason (on stderr and as the benchmark's error).
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include <time.h>
#include <unistd.h>

#include "core/math.hpp"
#include "rigrip/gltf.hpp"
#include "rigrip/registry.hpp"
#include "rigrip/scene_text.hpp"

using namespace rigrip;
namespace fs = std::filesystem;

namespace {

// bones x 40 bytes (translation, rotation, scale as floats) x frames at the source rate.
double pose_bytes(const scene& s) {
  double total = 0;
  for (const auto& a : s.animations) {
    if (a.skeleton < 0 || static_cast<std::size_t>(a.skeleton) >= s.skeletons.size()) continue;
    double fps = a.fps.value_or(30.0);
    double frames = std::floor(a.duration * fps + 0.5) + 1;
    total += static_cast<double>(s.skeletons[static_cast<std::size_t>(a.skeleton)].bones.size()) * 40.0 * frames;
  }
  return total;
}

// memcpy's rate (bytes per CPU second) over n bytes, best of a few rounds.
double memcpy_rate(std::size_t n) {
  static std::map<std::size_t, double> cache;
  if (n == 0) return 0;
  if (auto it = cache.find(n); it != cache.end()) return it->second;
  std::vector<unsigned char> a(n, 1), b(n, 0);
  std::size_t reps = std::max<std::size_t>(1, (64u << 20) / n);
  double best = 0;
  for (int round = 0; round < 5; ++round) {
    std::timespec t0{}, t1{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t0);
    for (std::size_t r = 0; r < reps; ++r) {
      a[r % n] = static_cast<unsigned char>(r);
      std::memcpy(b.data(), a.data(), n);
      benchmark::ClobberMemory();
    }
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t1);
    double sec = static_cast<double>(t1.tv_sec - t0.tv_sec) + 1e-9 * static_cast<double>(t1.tv_nsec - t0.tv_nsec);
    if (sec > 0) best = std::max(best, static_cast<double>(n) * static_cast<double>(reps) / sec);
  }
  cache[n] = best;
  return best;
}

void set_counters(benchmark::State& st, double pose, double in, double out) {
  auto it = static_cast<double>(st.iterations());
  using C = benchmark::Counter;
  st.counters["pose_B/s"] = C(pose * it, C::kIsRate, C::kIs1024);
  st.counters["in_B/s"] = C(in * it, C::kIsRate, C::kIs1024);
  st.counters["out_B/s"] = C(out * it, C::kIsRate, C::kIs1024);
  // (pose bytes x iterations / memcpy rate) / CPU seconds = pose rate / memcpy rate.
  double m = memcpy_rate(static_cast<std::size_t>(pose));
  st.counters["vs_memcpy"] = C(m > 0 ? pose * it / m : 0, C::kIsRate);
}

// One input: a file's bytes under its path (siblings such as skeletons load from its folder).
struct input {
  std::string path;
  bytes data;
  const format* fmt = nullptr;
};

struct input_set {
  std::string name;  // "<format id>:<label>"
  std::vector<input> files;
};

std::vector<input_set>& sets() {
  static std::vector<input_set> s;
  return s;
}

std::string samples_dir() {
  if (const char* env = std::getenv("RIGRIP_SAMPLES_DIR")) return env;
  return RIGRIP_SAMPLES_DIR;
}

// Reads every sample once; groups those that decode by format id.
void collect_samples() {
  std::string dir = samples_dir();
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) {
    std::fprintf(stderr, "skipping sample benchmarks: shared samples not present at %s\n", dir.c_str());
    return;
  }
  std::vector<std::string> paths;
  for (auto& e : fs::recursive_directory_iterator(dir, ec))
    if (e.is_regular_file()) {
      auto ext = e.path().extension().string();
      if (ext == ".md" || ext == ".txt") continue;
      paths.push_back(e.path().string());
    }
  std::sort(paths.begin(), paths.end());
  std::map<std::string, std::vector<input>> by_format;
  for (const auto& p : paths) {
    auto data = load_file(p);
    if (!data) continue;
    auto un = unwrap(*data, p);
    if (!un) continue;
    byte_view payload = un->chain.empty() ? byte_view(*data) : byte_view(un->data);
    auto f = detect_format(payload, p);
    if (!f) continue;  // archives and unknown files: not a scene of their own
    diagnostics d;
    auto s = read_scene(*data, p, {}, d);
    if (!s) {
      std::fprintf(stderr, "sample not benchmarked (%s): %s\n", p.c_str(), s.error().to_string().c_str());
      continue;
    }
    by_format[std::string((*f)->id)].push_back(input{p, std::move(*data), *f});
  }
  for (auto& [id, files] : by_format) {
    auto largest = std::max_element(files.begin(), files.end(),
                                    [](const input& a, const input& b) { return a.data.size() < b.data.size(); });
    input big = *largest;
    sets().push_back({id + ":samples(" + std::to_string(files.size()) + ")", std::move(files)});
    sets().push_back({id + ":largest=" + fs::path(big.path).filename().string(), {std::move(big)}});
  }
}

// A skeleton of `bones` bones in a chain of 10-bone limbs and one clip of `frames` frames at
// 30 fps with translation, rotation and scale on every bone.
scene generated(int bones, int frames) {
  scene s;
  skeleton sk;
  sk.name = "bench";
  for (int b = 0; b < bones; ++b) {
    bone bn;
    bn.name = "bone_" + std::to_string(b);
    bn.parent = b == 0 ? -1 : (b % 10 == 1 ? 0 : b - 1);
    bn.translation = {0, 1, 0};
    sk.bones.push_back(std::move(bn));
  }
  s.skeletons.push_back(sk);
  animation an;
  an.name = "clip";
  an.fps = 30;
  an.duration = (frames - 1) / 30.0;
  for (int b = 0; b < bones; ++b) {
    track r, t;
    r.bone = t.bone = sk.bones[static_cast<std::size_t>(b)].name;
    r.path = path::rotation;
    t.path = path::translation;
    r.times.reserve(static_cast<std::size_t>(frames));
    for (int k = 0; k < frames; ++k) {
      float time = static_cast<float>(k / 30.0);
      r.times.push_back(time);
      t.times.push_back(time);
      float ang = 0.5f * std::sin(0.05f * static_cast<float>(k) + 0.3f * static_cast<float>(b));
      quat q = core::axis_angle({0, 0, 1}, ang);
      r.values.insert(r.values.end(), q.begin(), q.end());
      t.values.insert(t.values.end(), {0.01f * ang, 1.0f, 0.0f});
    }
    an.tracks.push_back(std::move(r));
    an.tracks.push_back(std::move(t));
  }
  s.animations.push_back(std::move(an));
  return s;
}

std::string out_dir() {
  static std::string d = [] {
    auto p = fs::temp_directory_path() / ("rigrip-bench-" + std::to_string(::getpid()));
    fs::create_directories(p);
    return p.string();
  }();
  return d;
}

// The generated scene written with our own encoders for every format that can pack it
// without a template; files go to a temporary folder so a reader finds its sibling skeleton.
void collect_generated(int bones, int frames) {
  scene s = generated(bones, frames);
  std::string tag = std::to_string(bones) + "x" + std::to_string(frames);
  auto add = [&](const format& f, const std::string& name, const pack_context& ctx) {
    auto packed = pack(s, f, ctx);
    if (!packed) {
      std::fprintf(stderr, "no generated %s input (%s): %s\n", std::string(f.id).c_str(), tag.c_str(),
                   packed.error().message.c_str());
      return;
    }
    std::string p = out_dir() + "/" + name;
    if (!save_file(p, *packed)) return;
    diagnostics d;
    auto back = read_scene(*packed, p, {}, d);
    if (!back) {
      std::fprintf(stderr, "generated %s input does not read back: %s\n", std::string(f.id).c_str(),
                   back.error().to_string().c_str());
      return;
    }
    sets().push_back({std::string(f.id) + ":generated(" + tag + ")", {input{p, std::move(*packed), &f}}});
  };
  // Formats with a skeleton file of their own: write it first, then the animation paired by name.
  std::map<std::string, std::string> skeleton_of = {{"telltale-anm", "telltale-skl"}, {"ff7-da", "ff7-aa"}};
  std::map<std::string, std::pair<std::string, std::string>> names = {
      // Telltale pairs sk<NN>_<name>.skl with sk<NN>_<name>_<clip>.anm (the naming rule).
      {"telltale-anm", {"sk99_bench" + tag + ".skl", "sk99_bench" + tag + "_clip.anm"}},
      {"ff7-da", {"bzaa", "bzda"}},  // FF7 pairs xxda with xxaa (4-letter names)
  };
  // FF7 battle rigs are 'root' and 'bone_<i>' (the names rigrip writes for them): the same
  // clip with its bones renamed, its AA skeleton written first, then the DA pack.
  // A DA animation is one bitstream of at most 65535 bytes, so the clip is a pack of 10 clips
  // of 50 bones x 200 frames (battle models have 10-60 bones; a real pack holds dozens of clips).
  auto add_ff7_da = [&](const format& f, const std::string& file, pack_context ctx) {
    scene ff7 = generated(std::min(bones, 50), std::min(frames, 200));
    for (int k = 1; k < 10; ++k) {
      animation copy = ff7.animations[0];
      copy.name = "clip" + std::to_string(k);
      ff7.animations.push_back(std::move(copy));
    }
    std::map<std::string, std::string> rename;
    for (std::size_t b = 0; b < ff7.skeletons[0].bones.size(); ++b) {
      auto& bn = ff7.skeletons[0].bones[b];
      std::string to = b == 0 ? std::string("root") : "bone_" + std::to_string(b - 1);
      rename[bn.name] = to;
      bn.name = to;
    }
    for (auto& a : ff7.animations)
      for (auto& t : a.tracks) t.bone = rename[t.bone];
    const format* aa = find_format("ff7-aa");
    if (!aa) return;
    pack_context sctx;
    sctx.output_path = out_dir() + "/" + names["ff7-da"].first;
    auto skl = pack(ff7, *aa, sctx);
    if (!skl || !save_file(sctx.output_path, *skl)) {
      std::fprintf(stderr, "no generated ff7-da skeleton: %s\n", skl ? "save failed" : skl.error().message.c_str());
      return;
    }
    ctx.skeleton_file = *skl;
    ctx.skeleton_path = sctx.output_path;
    std::string own_tag = "10x" + std::to_string(std::min(bones, 50)) + "x" + std::to_string(std::min(frames, 200));
    std::swap(s, ff7), std::swap(tag, own_tag);
    add(f, file, ctx);
    std::swap(s, ff7), std::swap(tag, own_tag);
  };
  for (const format* f : formats()) {
    if (!f->pack || !f->read) continue;
    std::string id(f->id);
    if (id == "telltale-skl" || id == "ff7-aa" || id.find("mesh") != std::string::npos ||
        id.find("d3dtx") != std::string::npos || id == "ff7-p")
      continue;  // skeletons, meshes and textures: no animation to benchmark
    pack_context ctx;
    std::string file = "bench_" + tag + (f->extensions.empty() ? std::string(".bin") : std::string(f->extensions[0]));
    if (id == "ff7-da") {
      ctx.output_path = out_dir() + "/" + names[id].second;
      add_ff7_da(*f, names[id].second, ctx);
      continue;
    }
    if (auto sk = skeleton_of.find(id); sk != skeleton_of.end()) {
      const format* sf = find_format(sk->second);
      if (!sf) continue;
      pack_context sctx;
      sctx.output_path = out_dir() + "/" + names[id].first;
      auto skl = pack(s, *sf, sctx);
      if (!skl || !save_file(sctx.output_path, *skl)) {
        std::fprintf(stderr, "no generated %s skeleton: %s\n", id.c_str(), skl ? "save failed" : skl.error().message.c_str());
        continue;
      }
      ctx.skeleton_file = *skl;
      ctx.skeleton_path = sctx.output_path;
      file = names[id].second;
    }
    ctx.output_path = out_dir() + "/" + file;
    add(*f, file, ctx);
  }
}

void bm_decode(benchmark::State& st, const input_set* set) {
  double in = 0, pose = 0;
  for (const auto& f : set->files) {
    in += static_cast<double>(f.data.size());
    diagnostics d;
    auto s = read_scene(f.data, f.path, {}, d);
    if (s) pose += pose_bytes(*s);
  }
  for (auto _ : st) {
    for (const auto& f : set->files) {
      diagnostics d;
      auto s = read_scene(f.data, f.path, {}, d);
      if (!s) {
        st.SkipWithError(s.error().to_string().c_str());
        return;
      }
      benchmark::DoNotOptimize(s->animations.data());
    }
  }
  set_counters(st, pose, in, pose);
}

// Scenes decoded once, outside the timed loop, for the encoders and writers.
std::vector<scene> decoded(const input_set* set) {
  std::vector<scene> out;
  for (const auto& f : set->files) {
    diagnostics d;
    auto s = read_scene(f.data, f.path, {}, d);
    if (s) out.push_back(std::move(*s));
  }
  return out;
}

void bm_encode(benchmark::State& st, const input_set* set) {
  auto scenes = decoded(set);
  double pose = 0, out = 0;
  std::vector<pack_context> ctxs;
  for (std::size_t i = 0; i < scenes.size(); ++i) {
    const auto& f = set->files[i];
    pack_context ctx;
    ctx.output_path = f.path;
    ctx.template_file = f.data;  // formats that write into a template (bfres) get the original
    ctx.template_path = f.path;
    if (auto it = scenes[i].metadata.find("skeleton"); it != scenes[i].metadata.end() && it->is_string()) {
      if (auto sk = load_file(it->get<std::string>())) {
        ctx.skeleton_file = std::move(*sk);
        ctx.skeleton_path = it->get<std::string>();
      }
    }
    auto r = pack(scenes[i], *f.fmt, ctx);
    if (!r) {
      std::string why = "encode not benchmarked: " + r.error().to_string();
      std::fprintf(stderr, "%s\n", why.c_str());
      st.SkipWithError(why.c_str());
      return;
    }
    out += static_cast<double>(r->size());
    pose += pose_bytes(scenes[i]);
    ctxs.push_back(std::move(ctx));
  }
  for (auto _ : st)
    for (std::size_t i = 0; i < scenes.size(); ++i) {
      auto r = pack(scenes[i], *set->files[i].fmt, ctxs[i]);
      benchmark::DoNotOptimize(r->data());
    }
  set_counters(st, pose, pose, out);
}

void bm_glb(benchmark::State& st, const input_set* set) {
  auto scenes = decoded(set);
  double pose = 0, out = 0;
  for (const auto& s : scenes) {
    diagnostics d;
    auto r = gltf::write(s, {}, d);
    if (!r) {
      st.SkipWithError(r.error().to_string().c_str());
      return;
    }
    out += static_cast<double>(r->main.size());
    pose += pose_bytes(s);
  }
  for (auto _ : st)
    for (const auto& s : scenes) {
      diagnostics d;
      auto r = gltf::write(s, {}, d);
      benchmark::DoNotOptimize(r->main.data());
    }
  set_counters(st, pose, pose, out);
}

void bm_json(benchmark::State& st, const input_set* set) {
  auto scenes = decoded(set);
  double pose = 0, out = 0;
  for (const auto& s : scenes) {
    out += static_cast<double>(scene_json::to_text(s).size());
    pose += pose_bytes(s);
  }
  for (auto _ : st)
    for (const auto& s : scenes) {
      auto t = scene_json::to_text(s);
      benchmark::DoNotOptimize(t.data());
    }
  set_counters(st, pose, pose, out);
}

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  int bones = 500, frames = 2000;
  if (std::getenv("RIGRIP_BENCH_SMALL")) {  // CI smoke run: tiny generated inputs, no samples
    bones = 20;
    frames = 30;
  } else {
    collect_samples();
  }
  if (!std::getenv("RIGRIP_BENCH_NO_GENERATED")) collect_generated(bones, frames);  // (profiling one set)
  for (const auto& s : sets()) {
    benchmark::RegisterBenchmark(("decode/" + s.name).c_str(), bm_decode, &s)->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark(("encode/" + s.name).c_str(), bm_encode, &s)->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark(("glb/" + s.name).c_str(), bm_glb, &s)->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark(("json/" + s.name).c_str(), bm_json, &s)->Unit(benchmark::kMillisecond);
  }
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  std::error_code ec;
  fs::remove_all(out_dir(), ec);
  return 0;
}
