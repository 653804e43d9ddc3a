// Registration of the sf3 family: Shining Force III (Saturn) battle meshes.
//   sf3-x8pc  X8PC*.BIN models (and X8PCnnX.BIN multi-model containers)
//   sf3-x8an  X8AN*.BIN external attack animations (paired with their X8PC model)
#include <algorithm>
#include <cctype>
#include <filesystem>

#include "core/failure.hpp"
#include "core/math.hpp"
#include "scene/pose.hpp"
#include "formats/sf3/decode.hpp"
#include "formats/sf3/encode.hpp"
#include "formats/sf3/raw.hpp"
#include "rigrip/registry.hpp"

namespace rigrip::sf3 {
namespace {

using nlohmann::json;

std::string base_name(std::string_view path) {
  auto slash = path.find_last_of("/\\");
  return std::string(slash == std::string_view::npos ? path : path.substr(slash + 1));
}
std::string dir_of(std::string_view path) {
  auto slash = path.find_last_of("/\\");
  return slash == std::string_view::npos ? std::string() : std::string(path.substr(0, slash + 1));
}
std::string stem(std::string_view path) {
  std::string b = base_name(path);
  auto dot = b.find_last_of('.');
  return dot == std::string::npos ? b : b.substr(0, dot);
}
std::string lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}
bool name_is(std::string_view filename, std::string_view prefix) {
  std::string b = lower(base_name(filename));
  return b.starts_with(prefix) && b.ends_with(".bin");
}

double fps_of(const read_context& ctx) {
  double f = ctx.options.fps.value_or(30.0);  // battle scenes: 30 fps assumed (unconfirmed)
  return f > 0 && f < 1000 ? f : 30.0;
}

// Loads a sibling trying the name as written, upper case and lower case.
std::optional<bytes> load_sibling(const read_context& ctx, const std::string& dir, const std::string& name,
                                  std::string* found) {
  if (!ctx.load) return std::nullopt;
  std::string up = name, lo = lower(name);
  std::transform(up.begin(), up.end(), up.begin(), [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  for (const auto& n : {name, up, lo}) {
    std::string p = dir + n;
    std::error_code ec;
    if (!std::filesystem::is_regular_file(p, ec)) continue;
    auto r = ctx.load(p);
    if (r) {
      if (found) *found = p;
      return std::move(r.value());
    }
  }
  return std::nullopt;
}

json keys_json(const key_table& t) {
  json out = json::array();
  for (std::size_t b = 0; b < t.bones.size(); ++b) {
    const auto& k = t.bones[b];
    json tr = json::array(), ro = json::array(), sc = json::array();
    for (std::size_t i = 0; i < k.t_frames.size(); ++i)
      tr.push_back({k.t_frames[i], k.t[0][i] / 65536.0, k.t[1][i] / 65536.0, k.t[2][i] / 65536.0});
    for (std::size_t i = 0; i < k.r_frames.size(); ++i)
      ro.push_back({k.r_frames[i], k.r[0][i] / 16384.0, k.r[1][i] / 16384.0, k.r[2][i] / 16384.0, k.r[3][i] / 16384.0});
    for (std::size_t i = 0; i < k.s_frames.size(); ++i)
      sc.push_back({k.s_frames[i], k.s[0][i] / 65536.0, k.s[1][i] / 65536.0, k.s[2][i] / 65536.0});
    out.push_back({{"bone", b}, {"translation", tr}, {"rotation", ro}, {"scale", sc}});
  }
  return out;
}

// Container models share one origin; the glTF writer places each skeleton's holder node at
// extras.display_offset, so they stand side by side along X (bones keep their identity rest).
void line_up(scene& s) {
  std::vector<std::array<float, 2>> span(s.skeletons.size(), {1e30f, -1e30f});
  std::vector<std::vector<core::mat4>> world;
  for (const auto& sk : s.skeletons) world.push_back(scene_ops::world_matrices(sk));
  for (const auto& m : s.meshes) {
    if (m.skeleton < 0) continue;
    const auto& w = world[static_cast<std::size_t>(m.skeleton)][static_cast<std::size_t>(m.bone)];
    auto& sp = span[static_cast<std::size_t>(m.skeleton)];
    for (const auto& p : m.positions) {
      float x = w[0] * p[0] + w[4] * p[1] + w[8] * p[2] + w[12];
      sp[0] = std::min(sp[0], x);
      sp[1] = std::max(sp[1], x);
    }
  }
  float cursor = 0;
  for (std::size_t i = 0; i < s.skeletons.size(); ++i) {
    auto sp = span[i];
    if (sp[0] > sp[1]) sp = {0, 0};
    float dx = i == 0 ? 0 : cursor - sp[0];
    if (i == 0) cursor = sp[1];
    else cursor = sp[1] + dx;
    cursor += 4;  // a small gap (source units)
    s.skeletons[i].extras["display_offset"] = {dx, 0.0, 0.0};
  }
}

// ---------------------------------------------------------------- x8pc
int detect_x8pc(byte_view d, std::string_view name) {
  bool named = name_is(name, "x8pc");
  if (looks_like_chunk_table(d, 0)) return score::structure + (named ? 5 : 0);
  return named ? score::name_only : score::none;
}

result<scene> read_x8pc(const read_context& ctx) {
  return core::guarded(ctx.path, "sf3-x8pc", [&]() -> scene {
    x8pc_file f = parse_x8pc(ctx.data);
    scene s;
    s.format = "sf3-x8pc";
    const std::string st = stem(ctx.path.empty() ? std::string("model") : ctx.path);
    const double fps = fps_of(ctx);
    // Scenario 1 keeps some clips in X8ANnn.BIN; model X8PCnnL is group L ('a' = 0).
    x8an_file an;
    sibling_animations sib;
    bool wants_an = false;
    for (const auto& m : f.models)
      if (m.entries.size() == 4)
        for (const auto& d : m.anim.defs) wants_an |= d.external();
    std::string ust = st;
    for (auto& c : ust) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    if (wants_an && f.models.size() == 1 && ust.size() == 7 && ust.starts_with("X8PC") && std::isalpha(static_cast<unsigned char>(ust[6]))) {
      std::string found;
      auto b = load_sibling(ctx, dir_of(ctx.path), "X8AN" + ust.substr(4, 2) + ".BIN", &found);
      if (b) {
        auto parsed = core::guarded(found, "sf3-x8an", [&]() -> x8an_file { return parse_x8an(*b); });
        if (parsed) {
          an = std::move(parsed.value());
          sib.file = &an;
          sib.group = ust[6] - 'A';
          sib.name = base_name(found);
        } else {
          ctx.warn(code::w_pairing, "sibling " + found + " could not be read: " + parsed.error().message);
        }
      }
    }
    for (std::size_t i = 0; i < f.models.size(); ++i) {
      const auto& m = f.models[i];
      std::string name = f.models.size() == 1 ? st : st + "_" + std::to_string(i);
      for (std::size_t c = 4; c < m.entries.size(); ++c)
        ctx.warn(code::w_opaque_data, name + ": chunk " + std::to_string(c) + " (attack animation, " +
                                          std::to_string(m.entries[c].data_size) +
                                          " bytes, compression not public) kept as opaque bytes",
                 m.base + m.entries[c].offset);
      add_model(s, m, name, fps, ctx, sib, true);
    }
    if (s.skeletons.size() > 1) line_up(s);
    s.metadata["sf3"] = {{"models", f.models.size()}, {"slot_size", f.stride}, {"fps_assumed", fps}};
    set_root_transform(s);
    return s;
  });
}

result<json> dump_x8pc(const read_context& ctx) {
  return core::guarded(ctx.path, "sf3-x8pc", [&]() -> json {
    x8pc_file f = parse_x8pc(ctx.data);
    json models = json::array();
    for (const auto& m : f.models) {
      model_geometry g = parse_geometry(m);
      json chunks = json::array();
      for (const auto& e : m.entries)
        chunks.push_back({{"offset", e.offset}, {"data_size", e.data_size}, {"chunk_size", e.chunk_size}});
      json defs = json::array();
      for (const auto& d : m.anim.defs) {
        json ev = json::array();
        for (const auto& e : d.events) ev.push_back({e.frame, e.code});
        defs.push_back({{"start", d.first_frame()}, {"external", d.external()}, {"count", d.count}, {"id", d.id},
                        {"distance", d.distance}, {"events", ev}});
      }
      json tags = json::array();
      for (const auto& t : g.skel.tags) tags.push_back({{"code", t.code}, {"bone", t.parent}, {"position", t.position}});
      models.push_back({{"bones", g.skel.parent.size()},
                        {"meshes", g.body.size() + (g.weapon ? 1 : 0)},
                        {"textures", m.textures.size()},
                        {"keyframes", keys_json(m.anim.keys)},
                        {"offset", m.base},
                        {"body_meshes", g.body.size()},
                        {"weapon", g.weapon.has_value()},
                        {"vram_size", m.vram_size},
                        {"chunks", chunks},
                        {"animations", defs},
                        {"tags", tags},
                        {"mesh_bones", g.skel.mesh_bone},
                        {"bone_parents", g.skel.parent}});
    }
    return json{{"format", "sf3-x8pc"}, {"models", models}};
  });
}

result<bytes> rewrite_x8pc(const read_context& ctx) {
  return core::guarded(ctx.path, "sf3-x8pc", [&]() -> bytes { return write_x8pc(parse_x8pc(ctx.data)); });
}

result<bytes> pack_x8pc_entry(const scene& s, const pack_context& ctx) {
  return core::guarded(ctx.output_path, "sf3-x8pc", [&]() -> bytes { return pack_x8pc(s, ctx); });
}

// ---------------------------------------------------------------- x8an
int detect_x8an(byte_view d, std::string_view name) {
  bool named = name_is(name, "x8an");
  if (looks_like_x8an(d)) return score::structure + (named ? 5 : 0);
  return named ? score::name_only : score::none;
}

result<scene> read_x8an(const read_context& ctx) {
  return core::guarded(ctx.path, "sf3-x8an", [&]() -> scene {
    x8an_file an = parse_x8an(ctx.data);
    const std::string st = stem(ctx.path.empty() ? std::string("x8an") : ctx.path);
    std::string ust = st;
    for (auto& c : ust) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    std::optional<bytes> model;
    std::string model_path;
    if (ctx.options.skeleton_path) {
      if (!ctx.load) core::fail(code::missing_skeleton, "--skeleton given but no file system is available");
      auto r = ctx.load(*ctx.options.skeleton_path);
      if (!r) core::fail(code::missing_skeleton, "--skeleton " + *ctx.options.skeleton_path + ": " + r.error().message);
      model = std::move(r.value());
      model_path = *ctx.options.skeleton_path;
    } else if (ust.size() >= 6 && ust.starts_with("X8AN")) {
      model = load_sibling(ctx, dir_of(ctx.path), "X8PC" + ust.substr(4, 2) + "A.BIN", &model_path);
    }
    if (!model)
      core::fail(code::missing_skeleton, "x8an animations need their model: " +
                                              (ust.size() >= 6 ? "X8PC" + ust.substr(4, 2) + "A.BIN" : std::string("X8PCnnA.BIN")) +
                                              " was not found next to the file; pass --skeleton X8PCnnL.BIN");
    x8pc_file pc = parse_x8pc(*model);
    std::string mst = stem(model_path);
    for (auto& c : mst) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    int group = 0;
    if (mst.size() == 7 && std::isalpha(static_cast<unsigned char>(mst[6]))) group = mst[6] - 'A';
    else ctx.warn(code::w_fallback, "model name " + mst + " has no variant letter; x8an group 0 used");
    scene s;
    s.format = "sf3-x8an";
    const double fps = fps_of(ctx);
    add_model(s, pc.models[0], stem(model_path), fps, ctx, {}, false);
    add_x8an_animations(s, 0, an, group, fps, ctx, st + "_");
    auto groups = x8an_groups(an);
    s.metadata["sf3"] = {{"segments", an.segments.size()}, {"groups", groups.empty() ? 0 : groups.back() + 1},
                         {"group", group}, {"model", base_name(model_path)}, {"fps_assumed", fps}};
    set_root_transform(s);
    return s;
  });
}

result<json> dump_x8an(const read_context& ctx) {
  return core::guarded(ctx.path, "sf3-x8an", [&]() -> json {
    x8an_file an = parse_x8an(ctx.data);
    auto groups = x8an_groups(an);
    json segs = json::array();
    for (std::size_t i = 0; i < an.segments.size(); ++i) {
      const auto& sg = an.segments[i];
      auto fr = frame_range(sg.keys);
      segs.push_back({{"offset", sg.offset}, {"group", groups[i]}, {"bones", sg.keys.bones.size()},
                      {"first_frame", fr.first}, {"last_frame", fr.second}, {"keyframes", keys_json(sg.keys)}});
    }
    return json{{"format", "sf3-x8an"}, {"segments", segs}};
  });
}

result<bytes> rewrite_x8an(const read_context& ctx) {
  return core::guarded(ctx.path, "sf3-x8an", [&]() -> bytes { return write_x8an(parse_x8an(ctx.data)); });
}

}  // namespace
}  // namespace rigrip::sf3

std::vector<rigrip::format> rigrip_family_sf3() {
  using namespace rigrip;
  return {
      format{"sf3-x8pc", "sf3",
             "Shining Force III (Saturn) battle model X8PC*.BIN: mesh, textures, skeleton, keyframes; X8PCnnX containers",
             {".bin"},
             "content: 0x800-aligned chunk table at 0 (first chunk at 0x800, sizes rounded to 0x800, 0xFF padding); "
             "name X8PC*.BIN second",
             sf3::detect_x8pc, sf3::read_x8pc, sf3::dump_x8pc, sf3::rewrite_x8pc, sf3::pack_x8pc_entry},
      format{"sf3-x8an", "sf3", "Shining Force III (Saturn) battle animations X8AN*.BIN (paired with X8PCnnA.BIN)",
             {".bin"},
             "content: u32 keyframe-table offset at 0 whose first record's arrays start at 4 in order; name X8AN*.BIN second",
             sf3::detect_x8an, sf3::read_x8an, sf3::dump_x8an, sf3::rewrite_x8an, nullptr},
  };
}
