// AA battle skeletons (13-word header + 12-byte bone records), the game's Euler
// convention, and the battle.lgp naming rule.
#include <cmath>
#include <filesystem>

#include "core/math.hpp"
#include "formats/ff7/ff7.hpp"

namespace rigrip::ff7 {

aa_file parse_aa(std::span<const std::uint8_t> data) {
  core::byte_reader r(data);
  aa_file a;
  for (auto& h : a.header) h = r.i32();
  std::int32_t n = a.bone_count();
  if (n < 0) core::fail(code::bad_count, "bone count " + std::to_string(n) + " is negative", 12);
  r.checked_count(static_cast<std::uint64_t>(n), 12, "AA bone records");
  a.bones.resize(static_cast<std::size_t>(n));
  for (std::size_t i = 0; i < a.bones.size(); ++i) {
    auto at = r.abs();
    auto& b = a.bones[i];
    b.parent = r.i32();
    b.length = r.f32();
    b.has_model = r.i32();
    // Parents precede children (the game walks a joint stack in file order).
    if (b.parent < -1 || b.parent >= static_cast<std::int32_t>(i))
      core::fail(code::bad_value, "bone " + std::to_string(i) + " has parent " + std::to_string(b.parent) +
                                      "; expected -1 or an earlier bone", at);
    if (!std::isfinite(b.length))
      core::fail(code::bad_value, "bone " + std::to_string(i) + " length is not a finite number", at + 4);
  }
  auto rest = r.bytes(r.remaining());
  a.trailing.assign(rest.begin(), rest.end());
  return a;
}

bytes serialise_aa(const aa_file& a) {
  core::byte_writer w;
  for (auto h : a.header) w.i32(h);
  for (const auto& b : a.bones) {
    w.i32(b.parent);
    w.f32(b.length);
    w.i32(b.has_model);
  }
  w.bytes(a.trailing);
  return w.take();
}

int detect_aa(std::span<const std::uint8_t> data) {
  try {
    if (data.size() < 52) return score::none;
    auto a = parse_aa(data);
    const auto& h = a.header;
    // Plausible counts: bones, textures (<= 10 suffixes), animations, weapons.
    if (h[3] > 200 || h[5] < 0 || h[5] > 200 || h[6] < 0 || h[6] > 10 || h[7] < 0 || h[7] > 1000 ||
        h[9] < 0 || h[9] > 16 || h[10] < 0 || h[10] > 1000)
      return score::none;
    for (const auto& b : a.bones)
      if (b.has_model != 0 && b.has_model != 1) return score::none;
    if (!a.trailing.empty()) return score::name_only;  // AA files end with the bone table
    return score::structure;
  } catch (...) {
    return score::none;
  }
}

quat euler_yxz_degrees(float x, float y, float z) {
  const float k = core::pi / 180.0f;
  auto qx = core::axis_angle({1, 0, 0}, x * k);
  auto qy = core::axis_angle({0, 1, 0}, y * k);
  auto qz = core::axis_angle({0, 0, 1}, z * k);
  return core::normalize(core::multiply(core::multiply(qy, qx), qz));
}

quat raw_rotation(const triple& r) {
  auto deg = [](std::int16_t v) { return static_cast<float>(((v % 4096) + 4096) % 4096) * 360.0f / 4096.0f; };
  return euler_yxz_degrees(deg(r[0]), deg(r[1]), deg(r[2]));
}

vec3 quat_to_euler_yxz_degrees(const quat& qin) {
  auto q = core::normalize(qin);
  const double x = q[0], y = q[1], z = q[2], w = q[3];
  // Rotation matrix elements (row, column) of R = Ry * Rx * Rz.
  double m02 = 2 * (x * z + w * y), m12 = 2 * (y * z - w * x), m22 = 1 - 2 * (x * x + y * y);
  double m10 = 2 * (x * y + w * z), m11 = 1 - 2 * (x * x + z * z);
  double m00 = 1 - 2 * (y * y + z * z), m20 = 2 * (x * z - w * y);
  double s = std::clamp(-m12, -1.0, 1.0);
  double a = std::asin(s), b, c;
  if (std::abs(s) < 0.9999999) {
    b = std::atan2(m02, m22);
    c = std::atan2(m10, m11);
  } else {  // gimbal lock: put the whole turn into Y
    b = std::atan2(-m20, m00);
    c = 0;
  }
  const double d = 180.0 / 3.14159265358979323846;
  return {static_cast<float>(a * d), static_cast<float>(b * d), static_cast<float>(c * d)};
}

std::string to_lower(std::string s) {
  for (auto& ch : s) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return s;
}

int battle_suffix_index(const std::string& path) {
  auto name = std::filesystem::path(path).filename().string();
  if (name.size() != 4) return -1;
  auto c1 = static_cast<char>(std::tolower(static_cast<unsigned char>(name[2])));
  auto c2 = static_cast<char>(std::tolower(static_cast<unsigned char>(name[3])));
  if (c1 < 'a' || c1 > 'z' || c2 < 'a' || c2 > 'z') return -1;
  for (int i = 0; i < 2; ++i)
    if (!std::isalnum(static_cast<unsigned char>(name[static_cast<std::size_t>(i)]))) return -1;
  return (c1 - 'a') * 26 + (c2 - 'a');
}

std::string battle_sibling(const std::string& path, int suffix_index) {
  std::filesystem::path p(path);
  auto name = p.filename().string();
  if (name.size() != 4 || suffix_index < 0 || suffix_index >= 26 * 26) return {};
  bool upper = std::isupper(static_cast<unsigned char>(name[2])) != 0;
  char c1 = static_cast<char>('a' + suffix_index / 26), c2 = static_cast<char>('a' + suffix_index % 26);
  if (upper) {
    c1 = static_cast<char>(std::toupper(c1));
    c2 = static_cast<char>(std::toupper(c2));
  }
  name[2] = c1;
  name[3] = c2;
  return (p.parent_path() / name).string();
}

}  // namespace rigrip::ff7
