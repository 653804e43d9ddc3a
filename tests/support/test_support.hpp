// Shared helpers for unit tests: sample lookup (skips with a printed reason when a
// shared sample is absent), file I/O, and the Khronos validator.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace rigrip::test {

// Path of ../shared/samples/<relative>, or nullopt when it is missing.
std::optional<std::string> sample(const std::string& relative);
std::vector<std::uint8_t> read_bytes(const std::string& path);
void write_bytes(const std::string& path, const std::vector<std::uint8_t>& data);
std::string out_path(const std::string& name);  // a path in the build's test-output folder
// Runs gltf-validator on a file; returns the number of errors (-1 if node is missing).
int gltf_validator_errors(const std::string& path, std::string* report = nullptr);
// An independent glTF evaluator (tinygltf parse + the glTF 2.0 sampling rules, written
// apart from rigrip's own code): the world matrix (column-major 4x4) of every node that
// has a name, at `time` seconds of animation `animation` (-1: rest pose), relative to
// the skeleton holder node (so in source units, without the root's axis conversion).
// Throws std::runtime_error on a file it cannot parse.
using node_worlds = std::vector<std::pair<std::string, std::array<float, 16>>>;
// The world of the node named `name` in `worlds`, or nullptr.
const std::array<float, 16>* find_world(const node_worlds& worlds, const std::string& name);
class gltf_evaluator {
 public:
  explicit gltf_evaluator(const std::vector<std::uint8_t>& glb);
  ~gltf_evaluator();
  [[nodiscard]] node_worlds worlds(int animation, float time) const;
  [[nodiscard]] std::size_t animation_count() const;

 private:
  struct impl;
  std::unique_ptr<impl> p_;
};
// Runs a shell command, returns its exit code and captures stdout+stderr.
int run(const std::string& command, std::string* output = nullptr);

}  // namespace rigrip::test

// Use inside a TEST: binds `var` to the sample path or skips the test with a reason.
#define RIGRIP_REQUIRE_SAMPLE(var, relative)                                        \
  std::string var;                                                                  \
  do {                                                                              \
    auto rigrip_sample_ = ::rigrip::test::sample(relative);                         \
    if (!rigrip_sample_) GTEST_SKIP() << "shared sample not present: " << relative; \
    var = *rigrip_sample_;                                                          \
  } while (0)
