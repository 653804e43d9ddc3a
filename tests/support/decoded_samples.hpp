// Every shared sample (up to 8 MiB) that read_scene decodes, for tests that compare two
// writers on real files. Header-only: it needs the registry (`rigrip`), which only the core
// tests link.
#pragma once

#include <filesystem>
#include <string>

#include "rigrip/registry.hpp"
#include "test_support.hpp"

namespace rigrip::test {
// Calls f(path, scene) for each one; returns how many, or -1 when the samples are absent.
template <class F>
int for_each_decoded_sample(F&& f) {
  auto root = sample("");
  if (!root) return -1;
  int n = 0;
  for (const auto& e : std::filesystem::recursive_directory_iterator(*root)) {
    if (!e.is_regular_file() || e.file_size() > (8u << 20)) continue;
    diagnostics d;
    auto s = read_scene(e.path().string(), read_options{}, d);
    if (!s) continue;
    SCOPED_TRACE(e.path().string());
    f(e.path().string(), s.value());
    ++n;
  }
  return n;
}
}  // namespace rigrip::test
