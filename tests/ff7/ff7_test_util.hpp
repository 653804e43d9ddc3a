// Reading through the family's own format table (the family test binary does not link the
// registry): detection, guarded read and validate(), as the registry does.
#pragma once

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "core/failure.hpp"
#include "rigrip/registry.hpp"

std::vector<rigrip::format> rigrip_family_ff7();

namespace ff7test {
using namespace rigrip;

inline const std::vector<format>& table() {
  static const auto t = rigrip_family_ff7();
  return t;
}
inline const format* by_id(std::string_view id) {
  for (const auto& f : table())
    if (f.id == id) return &f;
  return nullptr;
}
inline std::string lower_name(const std::string& path) {
  auto n = std::filesystem::path(path).filename().string();
  for (auto& c : n) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return n;
}
inline const format* detect(byte_view data, const std::string& path) {
  const format* best = nullptr;
  int bs = 0;
  for (const auto& f : table()) {
    int s = f.detect(data, lower_name(path));
    if (s > bs) {
      bs = s;
      best = &f;
    }
  }
  return best;
}
inline result<bytes> load(const std::string& p) {
  std::ifstream in(p, std::ios::binary);
  if (!in) return make_error(code::io_error, "cannot open " + p);
  return bytes(std::istreambuf_iterator<char>(in), {});
}
inline read_context context(const std::string& path, byte_view data, const read_options& o, diagnostics* d) {
  read_context c;
  c.path = path;
  c.data = data;
  c.options = o;
  c.diags = d;
  c.load = load;
  return c;
}
template <class T, class Fn>
result<T> flatten(const std::string& path, const format* f, Fn&& fn) {
  auto r = core::guarded(path, f->id, fn);
  if (!r) return r.error();
  if (!r.value()) {
    auto e = r.value().error();
    if (e.format.empty()) e.format = std::string(f->id);
    return e;
  }
  return std::move(r.value().value());
}
// Reads bytes under a name (the name drives sibling lookup).
inline result<scene> read(byte_view data, const std::string& path, const read_options& o = {},
                          diagnostics* d = nullptr, const format* forced = nullptr) {
  const format* f = forced ? forced : detect(data, path);
  if (!f) return make_error(code::unknown_format, "no ff7 format recognises " + path);
  diagnostics local;
  auto ctx = context(path, data, o, d ? d : &local);
  auto s = flatten<scene>(path, f, [&] { return f->read(ctx); });
  if (!s) return s;
  auto v = s->validate();
  if (!v) return v.error();
  return s;
}
inline result<scene> read_file(const std::string& path, const read_options& o = {}, diagnostics* d = nullptr) {
  auto b = load(path);
  if (!b) return b.error();
  return read(b.value(), path, o, d);
}
inline result<nlohmann::json> dump(byte_view data, const std::string& path, const read_options& o = {}) {
  const format* f = detect(data, path);
  if (!f || !f->dump_raw) return make_error(code::unknown_format, "no raw dump");
  diagnostics d;
  auto ctx = context(path, data, o, &d);
  return flatten<nlohmann::json>(path, f, [&] { return f->dump_raw(ctx); });
}
}  // namespace ff7test
