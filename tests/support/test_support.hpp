// Shared helpers for unit tests: sample lookup (skips with a printed reason when a
// shared sample is absent), file I/O, and the Khronos validator.
#pragma once

#include <cstdint>
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
