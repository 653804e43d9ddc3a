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

// ---- Independent glTF evaluation (see test_support.hpp).
#include <tiny_gltf.h>

#include <cmath>
#include <cstring>
#include <stdexcept>

namespace rigrip::test {
namespace {
using m4 = std::array<double, 16>;

m4 mat_mul(const m4& a, const m4& b) {
  m4 o{};
  for (int c = 0; c < 4; ++c)
    for (int r = 0; r < 4; ++r) {
      double v = 0;
      for (int k = 0; k < 4; ++k) v += a[std::size_t(k * 4 + r)] * b[std::size_t(c * 4 + k)];
      o[std::size_t(c * 4 + r)] = v;
    }
  return o;
}

m4 trs_matrix(const std::array<double, 3>& t, std::array<double, 4> q, const std::array<double, 3>& s) {
  double n = std::sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
  for (auto& c : q) c /= n;
  const double x = q[0], y = q[1], z = q[2], w = q[3];
  m4 m{1 - 2 * (y * y + z * z), 2 * (x * y + z * w), 2 * (x * z - y * w), 0,
       2 * (x * y - z * w), 1 - 2 * (x * x + z * z), 2 * (y * z + x * w), 0,
       2 * (x * z + y * w), 2 * (y * z - x * w), 1 - 2 * (x * x + y * y), 0,
       t[0], t[1], t[2], 1};
  for (int c = 0; c < 3; ++c)
    for (int r = 0; r < 3; ++r) m[std::size_t(c * 4 + r)] *= s[std::size_t(c)];
  return m;
}

std::vector<float> accessor_floats(const tinygltf::Model& m, int index) {
  const auto& a = m.accessors.at(std::size_t(index));
  if (a.componentType != TINYGLTF_COMPONENT_TYPE_FLOAT) throw std::runtime_error("non-float animation accessor");
  const auto& bv = m.bufferViews.at(std::size_t(a.bufferView));
  const auto& buf = m.buffers.at(std::size_t(bv.buffer));
  const std::size_t n = a.count * std::size_t(tinygltf::GetNumComponentsInType(std::uint32_t(a.type)));
  std::vector<float> out(n);
  if (bv.byteOffset + a.byteOffset + n * 4 > buf.data.size()) throw std::runtime_error("accessor out of range");
  std::memcpy(out.data(), buf.data.data() + bv.byteOffset + a.byteOffset, n * 4);
  return out;
}

// glTF 2.0 Appendix C: STEP, LINEAR (slerp for rotations), CUBICSPLINE (Hermite).
std::vector<double> sample_channel(const std::vector<float>& in, const std::vector<float>& out, std::size_t nc,
                                   const std::string& interp, bool rotation, double t) {
  const bool cubic = interp == "CUBICSPLINE";
  const std::size_t stride = cubic ? 3 * nc : nc;
  auto value = [&](std::size_t k) {
    std::vector<double> v(nc);
    for (std::size_t c = 0; c < nc; ++c) v[c] = out[k * stride + (cubic ? nc : 0) + c];
    return v;
  };
  if (t <= in.front()) return value(0);
  if (t >= in.back()) return value(in.size() - 1);
  std::size_t k = 0;
  while (!(t >= in[k] && t < in[k + 1])) ++k;
  const double td = double(in[k + 1]) - in[k], u = (t - in[k]) / td;
  auto a = value(k), b = value(k + 1);
  std::vector<double> r(nc);
  if (interp == "STEP") return a;
  if (cubic) {
    const double u2 = u * u, u3 = u2 * u;
    for (std::size_t c = 0; c < nc; ++c) {
      const double bk = out[k * stride + 2 * nc + c] * td;      // out-tangent of k
      const double ak = out[(k + 1) * stride + c] * td;         // in-tangent of k+1
      r[c] = (2 * u3 - 3 * u2 + 1) * a[c] + (u3 - 2 * u2 + u) * bk + (-2 * u3 + 3 * u2) * b[c] + (u3 - u2) * ak;
    }
    return r;
  }
  if (rotation) {
    double d = a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3];
    if (d < 0) {
      d = -d;
      for (auto& x : b) x = -x;
    }
    if (d > 0.9999995) {
      for (std::size_t c = 0; c < 4; ++c) r[c] = a[c] + u * (b[c] - a[c]);
    } else {
      const double th = std::acos(d), s = std::sin(th);
      for (std::size_t c = 0; c < 4; ++c) r[c] = (std::sin((1 - u) * th) * a[c] + std::sin(u * th) * b[c]) / s;
    }
    return r;
  }
  for (std::size_t c = 0; c < nc; ++c) r[c] = a[c] + u * (b[c] - a[c]);
  return r;
}
}  // namespace

const std::array<float, 16>* find_world(const node_worlds& worlds, const std::string& name) {
  for (const auto& [n, m] : worlds)
    if (n == name) return &m;
  return nullptr;
}

struct gltf_evaluator::impl {
  tinygltf::Model m;
  struct channel {
    std::vector<float> in, out;
    std::string interp, path;
    std::size_t node;
  };
  std::vector<std::vector<channel>> anims;
  std::vector<int> parent;
};

gltf_evaluator::gltf_evaluator(const std::vector<std::uint8_t>& glb) : p_(std::make_unique<impl>()) {
  tinygltf::TinyGLTF loader;
  std::string err, warn;
  auto& m = p_->m;
  if (!loader.LoadBinaryFromMemory(&m, &err, &warn, glb.data(), static_cast<unsigned int>(glb.size())))
    throw std::runtime_error("tinygltf: " + err);
  for (const auto& a : m.animations) {
    std::vector<impl::channel> chs;
    for (const auto& ch : a.channels) {
      const auto& smp = a.samplers.at(std::size_t(ch.sampler));
      chs.push_back({accessor_floats(m, smp.input), accessor_floats(m, smp.output), smp.interpolation, ch.target_path,
                     std::size_t(ch.target_node)});
    }
    p_->anims.push_back(std::move(chs));
  }
  p_->parent.assign(m.nodes.size(), -1);
  for (std::size_t i = 0; i < m.nodes.size(); ++i)
    for (int c : m.nodes[i].children) p_->parent[std::size_t(c)] = int(i);
}

gltf_evaluator::~gltf_evaluator() = default;

std::size_t gltf_evaluator::animation_count() const { return p_->anims.size(); }

node_worlds gltf_evaluator::worlds(int animation, float time) const {
  const auto& m = p_->m;
  const std::size_t nn = m.nodes.size();
  std::vector<std::array<double, 3>> t(nn), s(nn);
  std::vector<std::array<double, 4>> q(nn);
  for (std::size_t i = 0; i < nn; ++i) {
    const auto& n = m.nodes[i];
    if (!n.matrix.empty()) throw std::runtime_error("matrix nodes are not expected");
    t[i] = n.translation.size() == 3 ? std::array<double, 3>{n.translation[0], n.translation[1], n.translation[2]}
                                     : std::array<double, 3>{0, 0, 0};
    s[i] = n.scale.size() == 3 ? std::array<double, 3>{n.scale[0], n.scale[1], n.scale[2]} : std::array<double, 3>{1, 1, 1};
    q[i] = n.rotation.size() == 4 ? std::array<double, 4>{n.rotation[0], n.rotation[1], n.rotation[2], n.rotation[3]}
                                  : std::array<double, 4>{0, 0, 0, 1};
  }
  if (animation >= 0) {
    for (const auto& ch : p_->anims.at(std::size_t(animation))) {
      const bool rot = ch.path == "rotation";
      auto v = sample_channel(ch.in, ch.out, rot ? 4 : 3, ch.interp, rot, time);
      if (ch.path == "translation") t[ch.node] = {v[0], v[1], v[2]};
      else if (ch.path == "scale") s[ch.node] = {v[0], v[1], v[2]};
      else if (rot) q[ch.node] = {v[0], v[1], v[2], v[3]};
    }
  }
  auto is_holder = [&](std::size_t i) {
    return m.nodes[i].extras.IsObject() && (m.nodes[i].extras.Has("rigrip_skeleton") || m.nodes[i].extras.Has("rigrip_root"));
  };
  node_worlds out;
  for (std::size_t i = 0; i < nn; ++i) {
    if (is_holder(i) || m.nodes[i].name.empty()) continue;
    m4 w = trs_matrix(t[i], q[i], s[i]);
    for (int p = p_->parent[i]; p >= 0 && !is_holder(std::size_t(p)); p = p_->parent[std::size_t(p)])
      w = mat_mul(trs_matrix(t[std::size_t(p)], q[std::size_t(p)], s[std::size_t(p)]), w);
    std::array<float, 16> f;
    for (std::size_t k = 0; k < 16; ++k) f[k] = float(w[k]);
    out.emplace_back(m.nodes[i].name, f);
  }
  return out;
}

}  // namespace rigrip::test
