// The format table and the guarded entry points around every reader.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>

#include "containers/zstd.hpp"
#include "core/failure.hpp"
#include "scene/ssc.hpp"
#include "scene/text.hpp"
#include "rigrip/gltf.hpp"
#include "rigrip/registry.hpp"

#define RIGRIP_FAMILY(name) std::vector<rigrip::format> rigrip_family_##name();
#include "formats/families.inc"
#undef RIGRIP_FAMILY
#define RIGRIP_CONTAINER(name) rigrip::container rigrip_container_##name();
#include "containers/containers.inc"
#undef RIGRIP_CONTAINER

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
  std::vector<container> container_storage;
  std::vector<const container*> container_list;
  table() {
#define RIGRIP_CONTAINER(name) container_storage.push_back(rigrip_container_##name());
#include "containers/containers.inc"
#undef RIGRIP_CONTAINER
    for (const auto& c : container_storage) container_list.push_back(&c);
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
const std::vector<const container*>& registered_containers() { return the_table().container_list; }

const container* find_container(std::string_view id) {
  auto want = lower(id);
  for (const auto* c : registered_containers())
    if (c->id == want) return c;
  return nullptr;
}

const container* detect_container(byte_view data, std::string_view filename) {
  std::string name = lower(std::filesystem::path(std::string(filename)).filename().string());
  for (const auto* c : registered_containers()) {
    int s = 0;
    try {
      s = c->detect ? c->detect(data, name) : 0;
    } catch (...) {
      s = 0;
    }
    if (s >= score::magic) return c;  // containers are recognised by their signature only
  }
  return nullptr;
}

const container* detect_archive(byte_view data, std::string_view filename) {
  const container* c = detect_container(data, filename);
  return c && c->archive ? c : nullptr;
}

namespace {
constexpr int max_nesting = 4;

// The bytes inside one compression container, as a result (unpack may throw).
result<bytes> open_stream(const container& c, byte_view data, const std::string& name) {
  auto r = core::guarded(name, c.id, [&] { return c.unpack(data); });
  if (!r) return r.error();
  if (r.value().size() != 1)
    return error{code::bad_count, std::string(c.id) + " stream did not hold exactly one file", name, no_offset,
                 std::string(c.id)};
  return std::move(r.value()[0].data);
}
}  // namespace

result<unwrapped> unwrap(byte_view data, const std::string& name) {
  unwrapped u;
  for (int depth = 0; depth <= max_nesting; ++depth) {
    byte_view cur = u.chain.empty() ? data : byte_view(u.data);
    const container* c = detect_container(cur, name);
    if (!c || c->archive) return u;
    if (depth == max_nesting)
      return error{code::limit_exceeded, "more than " + std::to_string(max_nesting) + " nested compression containers",
                   name, 0, std::string(c->id)};
    auto inner = open_stream(*c, cur, name);
    if (!inner) {
      error e = inner.error();
      if (!u.chain.empty() && e.offset != no_offset) e.within = std::string(u.chain.back()->inner_name);
      return e;
    }
    u.data = std::move(inner.value());
    u.chain.push_back(c);
  }
  return u;
}

const format* find_format(std::string_view id) {
  auto want = lower(id);
  for (const auto* f : formats())
    if (f->id == want) return f;
  for (const auto* f : formats())  // extensions are aliases of their format id
    for (auto e : f->extensions)
      if (e == want || (e.size() > 1 && e.substr(1) == want)) return f;
  return nullptr;
}

namespace {
result<const format*> detect_payload(byte_view data, std::string_view filename);
}

result<const format*> detect_format(byte_view data, std::string_view filename) {
  if (const container* c = detect_container(data, filename)) {
    if (c->archive)
      return error{code::unknown_format,
                   "this is a " + std::string(c->id) + " archive: `rigrip list` shows its files and `rigrip convert` converts them",
                   std::string(filename), 0, std::string(c->id)};
    auto u = unwrap(data, std::string(filename));
    if (!u) return u.error();
    // An archive inside a compression stream (Yaz0 around SARC: .sbactorpack, .szs).
    if (const container* inner = detect_container(u.value().data, filename); inner && inner->archive)
      return error{code::unknown_format,
                   "this is a " + std::string(inner->id) + " archive inside " + std::string(c->id) +
                       ": `rigrip list` shows its files and `rigrip convert` converts them",
                   std::string(filename), 0, std::string(inner->id)};
    return detect_payload(u.value().data, filename);
  }
  return detect_payload(data, filename);
}

namespace {
result<const format*> detect_payload(byte_view data, std::string_view filename) {
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
}  // namespace

namespace {
// An input opened for a reader: its payload out of any compression containers, and the
// format that reads it.
struct opened {
  unwrapped u;
  byte_view payload;
  const format* fmt = nullptr;
  std::string within;  // what offsets in the payload count in ("" for the file itself)
  std::vector<std::string> chain_ids() const {
    std::vector<std::string> ids;
    for (const auto* c : u.chain) ids.emplace_back(c->id);
    return ids;
  }
};

result<bytes> load_unwrapped(const std::string& path, std::uint64_t max) {
  auto b = load_file(path, max);
  if (!b) return b;
  auto u = unwrap(b.value(), path);
  if (!u) return u.error();
  if (u.value().chain.empty()) return b;
  return std::move(u.value().data);
}

read_context make_context(const opened& in, const std::string& name, const read_options& options,
                          diagnostics& diags, const archive* from = nullptr) {
  read_context ctx;
  ctx.path = name;
  ctx.data = in.payload;
  ctx.containers = in.chain_ids();
  ctx.options = options;
  ctx.diags = &diags;
  if (diags.file.empty()) diags.file = name;
  auto max = options.max_file_size;
  ctx.load = [max](const std::string& p) { return load_unwrapped(p, max); };
  if (from) {  // siblings inside the archive
    ctx.load = [from](const std::string& p) { return from->load(p); };
    ctx.exists = [from](const std::string& p) { return from->exists(p); };
    ctx.list = [from](const std::string& d) { return from->list(d); };
  }
  return ctx;
}

error stamp(error e, const std::string& name, const format* f, const std::string& within = {}) {
  if (e.file.empty()) e.file = name;
  if (e.format.empty() && f) e.format = std::string(f->id);
  if (e.within.empty() && e.offset != no_offset) e.within = within;
  return e;
}

result<opened> open_input(byte_view data, const std::string& name, const format* forced) {
  opened in;
  if (const container* c = detect_container(data, name); c && c->archive && !forced)
    return detect_format(data, name).error();  // the archive message
  auto u = unwrap(data, name);
  if (!u) return u.error();
  in.u = std::move(u.value());
  in.payload = in.u.chain.empty() ? data : byte_view(in.u.data);
  if (const container* c = detect_container(in.payload, name); c && c->archive && !forced)
    return detect_format(data, name).error();  // the archive message (inside a compression stream)
  if (!in.u.chain.empty()) in.within = std::string(in.u.chain.back()->inner_name);
  if (forced) {
    in.fmt = forced;
  } else {
    auto f = detect_payload(in.payload, name);
    if (!f) return stamp(f.error(), name, nullptr, in.within);
    in.fmt = f.value();
  }
  return in;
}

// Warnings a reader gave about a payload count their offsets in it, as errors do.
void mark_warnings(diagnostics& diags, std::size_t first, const std::string& within) {
  if (within.empty()) return;
  for (std::size_t i = first; i < diags.warnings.size(); ++i)
    if (diags.warnings[i].offset != no_offset && diags.warnings[i].within.empty()) diags.warnings[i].within = within;
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

// Wraps a rewritten payload back into the containers it came out of, innermost first.
// A payload that comes back unchanged keeps the original bytes (our Yaz0 encoder is valid
// but not Nintendo's byte for byte).
result<bytes> rewrap(bytes payload, const opened& in, byte_view original, const std::string& name) {
  if (in.u.chain.empty()) return payload;
  if (std::equal(payload.begin(), payload.end(), in.payload.begin(), in.payload.end()))
    return bytes(original.begin(), original.end());
  // Each layer's own bytes, outermost first, to give each repack its original.
  std::vector<bytes> layers{bytes(original.begin(), original.end())};
  for (std::size_t i = 0; i + 1 < in.u.chain.size(); ++i) {
    auto inner = open_stream(*in.u.chain[i], layers.back(), name);
    if (!inner) return inner.error();
    layers.push_back(std::move(inner.value()));
  }
  for (std::size_t i = in.u.chain.size(); i-- > 0;) {
    const container* c = in.u.chain[i];
    auto r = core::guarded(name, c->id, [&] { return c->repack(layers[i], {{name, std::move(payload)}}); });
    if (!r) return r.error();
    payload = std::move(r.value());
  }
  return payload;
}
}  // namespace

namespace {
result<scene> read_scene_in(byte_view data, const std::string& name, const read_options& options,
                            diagnostics& diags, const format* forced, const archive* from) {
  auto o = open_input(data, name, forced);
  if (!o) return o.error();
  const opened& in = o.value();
  const format* fmt = in.fmt;
  if (!fmt->read)
    return stamp(make_error(code::unsupported_feature, "this format has no scene reader"), name, fmt);
  auto ctx = make_context(in, name, options, diags, from);
  const std::size_t first_warning = diags.warnings.size();
  auto r = core::guarded(name, fmt->id, [&] { return fmt->read(ctx); });
  mark_warnings(diags, first_warning, in.within);
  if (!r) return stamp(r.error(), name, fmt, in.within);
  result<scene> inner = std::move(r.value());
  if (!inner) return stamp(inner.error(), name, fmt, in.within);
  if (inner->format.empty()) inner->format = std::string(fmt->id);
  scene_ops::repair_utf8(inner.value());  // names from game files are bytes; JSON/glTF need UTF-8
  auto v = inner->validate();
  if (!v) return stamp(v.error(), name, fmt);
  return inner;
}
}  // namespace

result<scene> read_scene(byte_view data, const std::string& name, const read_options& options,
                         diagnostics& diags, const format* forced) {
  return read_scene_in(data, name, options, diags, forced, nullptr);
}

namespace {
result<bytes> load_input_bytes(const std::string& path, std::uint64_t max_size, const format* forced);

// A .zs made with a dictionary that is not loaded yet: Tears of the Kingdom keeps its
// dictionaries in romfs/Pack/ZsDic.pack.zs, so look for that file in the input's folder and
// above it (also in a Pack/ subfolder) before the stream is opened.
void find_zstd_dictionaries(const std::string& path, byte_view data) {
  const std::uint32_t id = containers::zstd_dictionary_id(data);
  if (!id || containers::zstd_has_dictionary(id)) return;  // once per batch, not per file
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::path dir = fs::absolute(fs::path(path), ec).parent_path();
  for (int up = 0; up < 8 && !dir.empty(); ++up, dir = dir.parent_path()) {
    for (const fs::path& c : {dir / "ZsDic.pack.zs", dir / "Pack" / "ZsDic.pack.zs"}) {
      if (!fs::is_regular_file(c, ec)) continue;
      auto ids = add_zstd_dictionaries(c.string());
      if (ids && std::find(ids.value().begin(), ids.value().end(), id) != ids.value().end()) return;
    }
    if (dir == dir.parent_path()) break;
  }
}
}  // namespace

result<std::vector<std::uint32_t>> add_zstd_dictionaries(const std::string& path) {
  auto b = load_file(path, 1ull << 30);
  if (!b) return b.error();
  return core::guarded(path, "zstd", [&] { return containers::add_zstd_dictionaries(b.value()); });
}

result<bytes> load_input(const std::string& path, std::uint64_t max_size, const format* forced) {
  auto r = load_input_bytes(path, max_size, forced);
  if (r && containers::is_zstd(r.value())) find_zstd_dictionaries(path, r.value());
  return r;
}

namespace {
result<bytes> load_input_bytes(const std::string& path, std::uint64_t max_size, const format* forced) {
  constexpr std::size_t prefix_size = 64 * 1024;
  std::error_code ec;
  const auto size = std::filesystem::is_regular_file(path, ec) ? std::filesystem::file_size(path, ec) : 0;
  if (forced || ec || size <= prefix_size || size > max_size) return load_file(path, max_size);
  bytes head(prefix_size);
  {
    std::ifstream in(path, std::ios::binary);
    if (!in || !in.read(reinterpret_cast<char*>(head.data()), static_cast<std::streamsize>(head.size())))
      return load_file(path, max_size);  // says why
  }
  const std::string name = lower(std::filesystem::path(path).filename().string());
  if (detect_container(head, path)) return load_file(path, max_size);
  for (const auto* f : formats()) {
    if (!f->detect) continue;
    int s = 0;
    try {
      s = f->detect(head, name);
    } catch (...) {
      s = 0;
    }
    if (s > 0) return load_file(path, max_size);
  }
  return error{code::unknown_format,
               "no format recognises this file (" + std::to_string(size) + " bytes, judged by its first " +
                   std::to_string(prefix_size / 1024) + " KiB and its name); see `rigrip formats`",
               path, 0, {}};
}
}  // namespace

result<scene> read_scene(const std::string& path, const read_options& options, diagnostics& diags,
                         const format* forced) {
  auto b = load_input(path, options.max_file_size, forced);
  if (!b) return b.error();
  return read_scene(b.value(), path, options, diags, forced);
}

namespace {
// An archive's own structures (its table of contents ...), for `dump --raw ARCHIVE`.
result<nlohmann::json> dump_archive(const container& c, byte_view data, const std::string& name) {
  if (!c.dump_raw)
    return error{code::unsupported_feature, std::string(c.id) + " archives have no raw dump", name, no_offset,
                 std::string(c.id)};
  auto r = core::guarded(name, c.id, [&] { return c.dump_raw(data); });
  if (!r) return r.error();
  scene_ops::repair_utf8(r.value());
  return std::move(r.value());
}

result<nlohmann::json> dump_raw_in(byte_view data, const std::string& name, const read_options& options,
                                   diagnostics& diags, const format* forced, const archive* from) {
  if (!forced)
    if (const container* c = detect_archive(data, name)) return dump_archive(*c, data, name);
  auto o = open_input(data, name, forced);
  if (!o) return o.error();
  const opened& in = o.value();
  const format* fmt = in.fmt;
  if (!fmt->dump_raw)
    return stamp(make_error(code::unsupported_feature, "this format has no raw dump"), name, fmt);
  auto ctx = make_context(in, name, options, diags, from);
  const std::size_t first_warning = diags.warnings.size();
  auto r = core::guarded(name, fmt->id, [&] { return fmt->dump_raw(ctx); });
  mark_warnings(diags, first_warning, in.within);
  if (!r) return stamp(r.error(), name, fmt, in.within);
  if (!r.value()) return stamp(r.value().error(), name, fmt, in.within);
  nlohmann::json& j = r.value().value();
  if (j.is_object())  // say which containers the payload came out of (a family may already)
    for (const auto* c : in.u.chain)
      if (!j.contains(c->id)) j[std::string(c->id)] = true;
  scene_ops::repair_utf8(j);
  return std::move(j);
}
}  // namespace

result<nlohmann::json> dump_raw(byte_view data, const std::string& name, const read_options& options,
                                diagnostics& diags, const format* forced) {
  return dump_raw_in(data, name, options, diags, forced, nullptr);
}

result<nlohmann::json> dump_graph(byte_view data, const std::string& name, const read_options& options,
                                  diagnostics& diags, const format* forced) {
  auto o = open_input(data, name, forced);
  if (!o) return o.error();
  const opened& in = o.value();
  const format* fmt = in.fmt;
  if (!fmt->dump_graph)
    return stamp(make_error(code::unsupported_feature, "this format holds no animation network"), name, fmt);
  auto ctx = make_context(in, name, options, diags);
  const std::size_t first_warning = diags.warnings.size();
  auto r = core::guarded(name, fmt->id, [&] { return fmt->dump_graph(ctx); });
  mark_warnings(diags, first_warning, in.within);
  if (!r) return stamp(r.error(), name, fmt, in.within);
  if (!r.value()) return stamp(r.value().error(), name, fmt, in.within);
  scene_ops::repair_utf8(r.value().value());
  return std::move(r.value().value());
}

result<bytes> rewrite(byte_view data, const std::string& name, const read_options& options,
                      diagnostics& diags, const format* forced) {
  if (const container* c = forced ? nullptr : detect_archive(data, name)) {
    // The archive's own raw layer: its entries back into the same container.
    if (diags.file.empty()) diags.file = name;
    return core::guarded(name, c->id, [&] {
      auto entries = c->unpack_checked ? c->unpack_checked(data, diags) : c->unpack(data);
      return c->repack(data, entries);
    });
  }
  auto o = open_input(data, name, forced);
  if (!o) return o.error();
  const opened& in = o.value();
  const format* fmt = in.fmt;
  if (!fmt->rewrite)
    return stamp(make_error(code::unsupported_feature, "this format has no raw writer"), name, fmt);
  auto ctx = make_context(in, name, options, diags);
  const std::size_t first_warning = diags.warnings.size();
  auto r = core::guarded(name, fmt->id, [&] { return fmt->rewrite(ctx); });
  mark_warnings(diags, first_warning, in.within);
  if (!r) return stamp(r.error(), name, fmt, in.within);
  if (!r.value()) return stamp(r.value().error(), name, fmt, in.within);
  return rewrap(std::move(r.value().value()), in, data, name);
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
  if (ctx.template_file) {
    // A compressed template (an .sbfres) is packed as its payload and the result
    // compressed the same way.
    auto o = open_input(*ctx.template_file, ctx.template_path, &f);
    if (!o) return o.error();
    if (!o.value().u.chain.empty()) {
      pack_context inner = ctx;
      inner.template_file = o.value().u.data;
      auto r = core::guarded(ctx.output_path, f.id, [&] { return f.pack(s, inner); });
      if (!r) return r.error();
      if (!r.value()) return stamp(r.value().error(), ctx.output_path, &f);
      return rewrap(std::move(r.value().value()), o.value(), *ctx.template_file, ctx.output_path);
    }
  }
  auto r = core::guarded(ctx.output_path, f.id, [&] { return f.pack(s, ctx); });
  if (!r) return r.error();
  if (!r.value()) return stamp(r.value().error(), ctx.output_path, &f);
  return std::move(r.value().value());
}

// ---- archives ------------------------------------------------------------------------

namespace {
std::string normal_path(const std::string& p) {
  return std::filesystem::path(p).lexically_normal().generic_string();
}
std::string parent_of(const std::string& inner) {
  auto cut = inner.rfind('/');
  return cut == std::string::npos ? std::string() : inner.substr(0, cut);
}
}  // namespace

std::string archive::entry_path(std::size_t i) const { return path + "/" + entries.at(i).name; }

const container_entry* archive::find(std::string_view inner) const {
  for (const auto& e : entries)
    if (e.name == inner) return &e;
  const std::string want = lower(inner);
  for (const auto& e : entries)
    if (lower(e.name) == want) return &e;
  return nullptr;
}

std::optional<std::string> archive::inner_path(const std::string& p) const {
  const std::string base = normal_path(path), q = normal_path(p);
  if (q.size() > base.size() + 1 && q.compare(0, base.size(), base) == 0 && q[base.size()] == '/')
    return q.substr(base.size() + 1);
  return std::nullopt;
}

result<bytes> archive::load(const std::string& p) const {
  auto inner = inner_path(p);
  if (!inner) return load_unwrapped(p, max_file_size);
  const container_entry* e = find(*inner);
  if (!e) return error{code::io_error, "no entry '" + *inner + "' in the archive", path, no_offset, {}};
  if (e->problem) {
    error err = *e->problem;
    err.file = path;
    return err;
  }
  auto u = unwrap(e->data, p);
  if (!u) return u.error();
  if (u.value().chain.empty()) return e->data;
  return std::move(u.value().data);
}

bool archive::exists(const std::string& p) const {
  auto inner = inner_path(p);
  if (!inner) {
    std::error_code ec;
    return std::filesystem::is_regular_file(p, ec);
  }
  const container_entry* e = find(*inner);
  return e && !e->problem;
}

std::vector<std::string> archive::list(const std::string& dir) const {
  std::optional<std::string> sub;
  if (normal_path(dir) == normal_path(path)) sub = std::string();
  else sub = inner_path(dir);
  std::vector<std::string> out;
  if (!sub) {  // a folder outside the archive
    std::error_code ec;
    for (std::filesystem::directory_iterator it(dir.empty() ? "." : dir, ec), end; !ec && it != end; it.increment(ec))
      if (it->is_regular_file(ec)) out.push_back(it->path().string());
    std::sort(out.begin(), out.end());
    return out;
  }
  for (std::size_t i = 0; i < entries.size(); ++i)
    if (!entries[i].problem && lower(parent_of(entries[i].name)) == lower(*sub)) out.push_back(entry_path(i));
  return out;
}

result<archive> open_archive(byte_view data, const std::string& path, diagnostics& diags) {
  const container* c = detect_archive(data, path);
  if (!c)
    return error{code::unknown_format, "not an archive (see `rigrip formats`)", path, 0, {}};
  if (diags.file.empty()) diags.file = path;
  auto r = core::guarded(path, c->id, [&] { return c->unpack_checked ? c->unpack_checked(data, diags) : c->unpack(data); });
  if (!r) return r.error();
  archive a;
  a.kind = c;
  a.path = path;
  a.entries = std::move(r.value());
  for (auto& e : a.entries)
    if (e.problem) {
      if (e.problem->file.empty()) e.problem->file = path;
      if (e.problem->format.empty()) e.problem->format = std::string(c->id);
    }
  return a;
}

namespace {
result<const container_entry*> entry_at(const archive& a, std::size_t i) {
  if (i >= a.entries.size())
    return error{code::usage, "entry " + std::to_string(i) + " of " + std::to_string(a.entries.size()), a.path,
                 no_offset, {}};
  const auto& e = a.entries[i];
  if (e.problem) return *e.problem;
  return &e;
}
}  // namespace

result<scene> read_scene(const archive& a, std::size_t i, const read_options& options, diagnostics& diags,
                         const format* forced) {
  auto e = entry_at(a, i);
  if (!e) return e.error();
  return read_scene_in(e.value()->data, a.entry_path(i), options, diags, forced, &a);
}

result<nlohmann::json> dump_raw(const archive& a, std::size_t i, const read_options& options, diagnostics& diags,
                                const format* forced) {
  auto e = entry_at(a, i);
  if (!e) return e.error();
  return dump_raw_in(e.value()->data, a.entry_path(i), options, diags, forced, &a);
}

result<bytes> replace_entries(const archive& a, byte_view original, std::vector<container_entry> changed) {
  if (!a.kind || !a.kind->repack)
    return error{code::write_unsupported, "this archive cannot be written", a.path, no_offset, {}};
  std::vector<container_entry> entries = a.entries;
  for (const auto& e : entries)
    if (e.problem) {
      error err = *e.problem;
      err.message = "cannot rebuild the archive around a broken entry: " + err.message;
      return err;
    }
  for (auto& c : changed) {
    const container_entry* same = a.find(c.name);
    if (same) {
      auto& slot = entries[static_cast<std::size_t>(same - a.entries.data())];
      slot.data = std::move(c.data);
    } else {
      entries.push_back(container_entry{c.name, std::move(c.data), std::nullopt});
    }
  }
  return core::guarded(a.path, a.kind->id, [&] { return a.kind->repack(original, entries); });
}

result<bytes> pack_into(const scene& s, const format& f, pack_context ctx, const archive& a, byte_view original,
                        const std::string& entry) {
  const container_entry* existing = a.find(entry);
  if (existing && existing->problem) return *existing->problem;
  const std::string name = existing ? existing->name : entry;
  ctx.output_path = a.path + "/" + name;
  if (!ctx.template_file && existing) {
    ctx.template_file = existing->data;
    ctx.template_path = ctx.output_path;
  }
  if (!ctx.load) ctx.load = [&a](const std::string& p) { return a.load(p); };
  auto r = pack(s, f, ctx);
  if (!r) return r.error();
  return replace_entries(a, original, {container_entry{name, std::move(r.value()), std::nullopt}});
}

}  // namespace rigrip
