// The format table and the guarded entry points around every reader.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>

#include "core/failure.hpp"
#include "scene/ssc.hpp"
#include "scene/text.hpp"
#include "rigrip/gltf.hpp"
#include "rigrip/registry.hpp"

#define RIGRIP_FAMILY(name) std::vector<rigrip::format> rigrip_family_##name();
#include "formats/families.inc"
#undef RIGRIP_FAMILY

namespace rigrip {
std::vector<format> core_formats();  // scene JSON and glTF input (src/gltf)

namespace {
std::string lower(std::string_view s) {
  std::string r(s);
  std::transform(r.begin(), r.end(), r.begin(), [](unsigned char c) { return std::tolower(c); });
  return r;
}

struct table {
  std::vector<format> storage;
  std::vector<const format*> list;
  table() {
    auto add = [&](std::vector<format> v) {
      for (auto& f : v) storage.push_back(std::move(f));
    };
#define RIGRIP_FAMILY(name) add(rigrip_family_##name());
#include "formats/families.inc"
#undef RIGRIP_FAMILY
    add(core_formats());
    for (const auto& f : storage) list.push_back(&f);
  }
};
const table& the_table() {
  static const table t;
  return t;
}
}  // namespace

const std::vector<const format*>& formats() { return the_table().list; }

const format* find_format(std::string_view id) {
  auto want = lower(id);
  for (const auto* f : formats())
    if (f->id == want) return f;
  for (const auto* f : formats())  // extensions are aliases of their format id
    for (auto e : f->extensions)
      if (e == want || (e.size() > 1 && e.substr(1) == want)) return f;
  return nullptr;
}

result<const format*> detect_format(byte_view data, std::string_view filename) {
  const format* best = nullptr;
  int best_score = 0;
  std::string name = lower(std::filesystem::path(std::string(filename)).filename().string());
  for (const auto* f : formats()) {
    if (!f->detect) continue;
    int s = 0;
    try {
      s = f->detect(data, name);
    } catch (...) {
      s = 0;  // a detector must not throw; treat it as "not mine"
    }
    if (s > best_score) best_score = s, best = f;
  }
  if (!best)
    return error{code::unknown_format,
                 "no format recognises this file (" + std::to_string(data.size()) +
                     " bytes); see `rigrip formats`",
                 std::string(filename), 0, {}};
  return best;
}

namespace {
read_context make_context(byte_view data, const std::string& name, const read_options& options,
                          diagnostics& diags) {
  read_context ctx;
  ctx.path = name;
  ctx.data = data;
  ctx.options = options;
  ctx.diags = &diags;
  if (diags.file.empty()) diags.file = name;
  auto max = options.max_file_size;
  ctx.load = [max](const std::string& p) { return load_file(p, max); };
  return ctx;
}

result<const format*> choose(byte_view data, const std::string& name, const format* forced) {
  if (forced) return forced;
  return detect_format(data, name);
}

error stamp(error e, const std::string& name, const format* f) {
  if (e.file.empty()) e.file = name;
  if (e.format.empty() && f) e.format = std::string(f->id);
  return e;
}

bool has_compensation(const scene& s) {
  for (std::size_t i = 0; i < s.skeletons.size(); ++i) {
    const auto& bones = s.skeletons[i].bones;
    if (std::none_of(bones.begin(), bones.end(), [](const bone& b) { return b.segment_scale_compensate; }))
      continue;  // skip the scan of the animations
    auto c = scene_ops::compensating_bones(s, i);
    if (std::find(c.begin(), c.end(), true) != c.end()) return true;
  }
  return false;
}
}  // namespace

result<scene> read_scene(byte_view data, const std::string& name, const read_options& options,
                         diagnostics& diags, const format* forced) {
  auto f = choose(data, name, forced);
  if (!f) return f.error();
  const format* fmt = f.value();
  if (!fmt->read)
    return stamp(make_error(code::unsupported_feature, "this format has no scene reader"), name, fmt);
  auto ctx = make_context(data, name, options, diags);
  auto r = core::guarded(name, fmt->id, [&] { return fmt->read(ctx); });
  if (!r) return stamp(r.error(), name, fmt);
  result<scene> inner = std::move(r.value());
  if (!inner) return stamp(inner.error(), name, fmt);
  if (inner->format.empty()) inner->format = std::string(fmt->id);
  scene_ops::repair_utf8(inner.value());  // names from game files are bytes; JSON/glTF need UTF-8
  auto v = inner->validate();
  if (!v) return stamp(v.error(), name, fmt);
  return inner;
}

result<scene> read_scene(const std::string& path, const read_options& options, diagnostics& diags,
                         const format* forced) {
  auto b = load_file(path, options.max_file_size);
  if (!b) return b.error();
  return read_scene(b.value(), path, options, diags, forced);
}

result<nlohmann::json> dump_raw(byte_view data, const std::string& name,
                                const read_options& options, diagnostics& diags,
                                const format* forced) {
  auto f = choose(data, name, forced);
  if (!f) return f.error();
  const format* fmt = f.value();
  if (!fmt->dump_raw)
    return stamp(make_error(code::unsupported_feature, "this format has no raw dump"), name, fmt);
  auto ctx = make_context(data, name, options, diags);
  auto r = core::guarded(name, fmt->id, [&] { return fmt->dump_raw(ctx); });
  if (!r) return stamp(r.error(), name, fmt);
  if (!r.value()) return stamp(r.value().error(), name, fmt);
  scene_ops::repair_utf8(r.value().value());
  return std::move(r.value().value());
}

result<bytes> rewrite(byte_view data, const std::string& name, const read_options& options,
                      diagnostics& diags, const format* forced) {
  auto f = choose(data, name, forced);
  if (!f) return f.error();
  const format* fmt = f.value();
  if (!fmt->rewrite)
    return stamp(make_error(code::unsupported_feature, "this format has no raw writer"), name, fmt);
  auto ctx = make_context(data, name, options, diags);
  auto r = core::guarded(name, fmt->id, [&] { return fmt->rewrite(ctx); });
  if (!r) return stamp(r.error(), name, fmt);
  if (!r.value()) return stamp(r.value().error(), name, fmt);
  return std::move(r.value().value());
}

result<bytes> pack(const scene& s, const format& f, const pack_context& ctx) {
  if (!f.pack)
    return stamp(make_error(code::write_unsupported, "format '" + std::string(f.id) +
                                                         "' cannot be written"), ctx.output_path, &f);
  auto v = s.validate();
  if (!v) return stamp(v.error(), ctx.output_path, &f);
  if (!f.stores_segment_scale_compensate && has_compensation(s)) {
    // The writer would drop the flag and change the pose: pack a baked copy instead.
    auto baked = core::guarded(ctx.output_path, f.id, [&] {
      scene copy = s;
      diagnostics ignored;
      (void)scene_ops::bake_segment_scale_compensate(copy, ctx.diags ? *ctx.diags : ignored);
      return copy;
    });
    if (!baked) return baked.error();
    return pack(baked.value(), f, ctx);  // flags cleared: no second bake
  }
  auto r = core::guarded(ctx.output_path, f.id, [&] { return f.pack(s, ctx); });
  if (!r) return r.error();
  if (!r.value()) return stamp(r.value().error(), ctx.output_path, &f);
  return std::move(r.value().value());
}

}  // namespace rigrip
