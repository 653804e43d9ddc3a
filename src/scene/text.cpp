#include "scene/text.hpp"

#include <cstdint>
#include <cstring>

namespace rigrip::scene_ops {
namespace {
// Length of the valid UTF-8 sequence starting at s[i], or 0 when it is not one
// (overlong forms, surrogates and code points past U+10FFFF are invalid).
std::size_t sequence_length(std::string_view s, std::size_t i) noexcept {
  auto b = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
  unsigned char c = b(i);
  if (c < 0x80) return 1;
  std::size_t n;
  unsigned lo = 0x80, hi = 0xBF;
  if (c >= 0xC2 && c <= 0xDF) n = 2;
  else if (c >= 0xE0 && c <= 0xEF) {
    n = 3;
    if (c == 0xE0) lo = 0xA0;
    if (c == 0xED) hi = 0x9F;
  } else if (c >= 0xF0 && c <= 0xF4) {
    n = 4;
    if (c == 0xF0) lo = 0x90;
    if (c == 0xF4) hi = 0x8F;
  } else {
    return 0;
  }
  if (i + n > s.size()) return 0;
  if (b(i + 1) < lo || b(i + 1) > hi) return 0;
  for (std::size_t k = 2; k < n; ++k)
    if (b(i + k) < 0x80 || b(i + k) > 0xBF) return 0;
  return n;
}
}  // namespace

bool is_valid_utf8(std::string_view s) noexcept {
  // Plain ASCII eight bytes at a time first (most names and keys are): a word without a high
  // bit is eight one-byte sequences, and the first word with one starts the byte-wise check
  // at a sequence boundary.
  std::size_t i = 0;
  for (; i + 8 <= s.size(); i += 8) {
    std::uint64_t w;
    std::memcpy(&w, s.data() + i, sizeof w);
    if (w & 0x8080808080808080ull) break;
  }
  while (i < s.size()) {
    std::size_t n = sequence_length(s, i);
    if (!n) return false;
    i += n;
  }
  return true;
}

void repair_utf8(std::string& s) {
  if (is_valid_utf8(s)) return;
  std::string out;
  out.reserve(s.size() * 2);
  for (std::size_t i = 0; i < s.size();) {
    std::size_t n = sequence_length(s, i);
    if (n) {
      out.append(s, i, n);
      i += n;
    } else {
      auto c = static_cast<unsigned char>(s[i++]);
      out += static_cast<char>(0xC0 | (c >> 6));
      out += static_cast<char>(0x80 | (c & 0x3F));
    }
  }
  s = std::move(out);
}

void repair_utf8(nlohmann::json& j) {
  if (j.is_string()) {
    auto* p = j.get_ptr<std::string*>();
    repair_utf8(*p);
  } else if (j.is_array()) {
    for (auto& e : j) repair_utf8(e);
  } else if (j.is_object()) {
    bool bad_key = false;
    for (auto it = j.begin(); it != j.end(); ++it) {
      bad_key |= !is_valid_utf8(it.key());
      repair_utf8(it.value());
    }
    if (bad_key) {
      nlohmann::json fixed = nlohmann::json::object();
      for (auto it = j.begin(); it != j.end(); ++it) {
        std::string k = it.key();
        repair_utf8(k);
        fixed[k] = std::move(it.value());
      }
      j = std::move(fixed);
    }
  }
}

void repair_utf8(scene& s) {
  repair_utf8(s.format);
  repair_utf8(s.metadata);
  for (auto& sk : s.skeletons) {
    repair_utf8(sk.name);
    repair_utf8(sk.extras);
    for (auto& b : sk.bones) {
      repair_utf8(b.name);
      repair_utf8(b.extras);
    }
  }
  for (auto& a : s.animations) {
    repair_utf8(a.name);
    repair_utf8(a.extras);
    for (auto& t : a.tracks) repair_utf8(t.bone);  // same mapping as the bone names
  }
  for (auto& m : s.meshes) {
    repair_utf8(m.name);
    repair_utf8(m.extras);
  }
  for (auto& t : s.textures) {
    repair_utf8(t.name);
    repair_utf8(t.extras);
  }
  for (auto& m : s.materials) {
    repair_utf8(m.name);
    repair_utf8(m.extras);
  }
  for (auto& c : s.cameras) {
    repair_utf8(c.name);
    repair_utf8(c.extras);
  }
  for (auto& a : s.camera_animations) {
    repair_utf8(a.name);
    repair_utf8(a.extras);
    for (auto& t : a.tracks) repair_utf8(t.bone);  // same mapping as the camera names
    for (auto& l : a.lens) repair_utf8(l.camera);
  }
}

}  // namespace rigrip::scene_ops
