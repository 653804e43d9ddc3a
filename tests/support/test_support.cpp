#include "test_support.hpp"

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>

namespace rigrip::test {

std::optional<std::string> sample(const std::string& relative) {
  std::string p = std::string(RIGRIP_SAMPLES_DIR) + "/" + relative;
  if (!std::filesystem::exists(p)) return std::nullopt;
  return p;
}

std::vector<std::uint8_t> read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::vector<std::uint8_t>(std::istreambuf_iterator<char>(in), {});
}

void write_bytes(const std::string& path, const std::vector<std::uint8_t>& data) {
  std::filesystem::create_directories(std::filesystem::path(path).parent_path());
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char*>(data.data()), static_cast<std::streamsize>(data.size()));
}

std::string out_path(const std::string& name) {
  std::string p = std::string(RIGRIP_TEST_OUT) + "/" + name;
  std::filesystem::create_directories(std::filesystem::path(p).parent_path());
  return p;
}

int run(const std::string& command, std::string* output) {
  std::string cmd = command + " 2>&1";
  FILE* pipe = popen(cmd.c_str(), "r");
  if (!pipe) return -1;
  std::array<char, 4096> buf;
  std::string out;
  while (std::fgets(buf.data(), static_cast<int>(buf.size()), pipe)) out += buf.data();
  int status = pclose(pipe);
  if (output) *output = out;
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

int gltf_validator_errors(const std::string& path, std::string* report) {
  std::string out;
  int rc = run("node '" + std::string(RIGRIP_VALIDATOR) + "' '" + path + "'", &out);
  if (report) *report = out;
  if (rc != 0 && rc != 1) return -1;
  // "<file>: N errors, ..."
  auto pos = out.find(": ");
  while (pos != std::string::npos) {
    auto e = out.find(" errors", pos);
    if (e == std::string::npos) break;
    return std::stoi(out.substr(pos + 2, e - pos - 2));
  }
  return rc == 0 ? 0 : 1;
}

}  // namespace rigrip::test
