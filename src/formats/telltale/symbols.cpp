// CRC-64/ECMA-182 symbols and the bone-name database.
//
// The database is our own list of common rig words (body, fingers, face) combined with
// the side suffixes and the character prefixes seen in the sample file names. A symbol
// is a hash, so a name is only shown when hashing one of these spellings reproduces it;
// anything else prints as 16 hex digits. Spelling is canonical (camelCase, _L/_R),
// since the engine hashes the lowercased text.
#include "formats/telltale/symbols.hpp"

#include <array>
#include <unordered_map>
#include <vector>

namespace rigrip::telltale {
namespace {

constexpr std::uint64_t poly = 0x42F0E1EBA9EA3693ull;

const std::array<std::uint64_t, 256>& table() {
  static const auto t = [] {
    std::array<std::uint64_t, 256> r{};
    for (std::uint64_t i = 0; i < 256; ++i) {
      std::uint64_t c = i << 56;
      for (int k = 0; k < 8; ++k) c = (c & (1ull << 63)) ? (c << 1) ^ poly : c << 1;
      r[i] = c;
    }
    return r;
  }();
  return t;
}

std::uint64_t crc(std::string_view s, bool lower) {
  const auto& t = table();
  std::uint64_t c = 0;
  for (unsigned char b : s) {
    if (lower && b >= 'A' && b <= 'Z') b = static_cast<unsigned char>(b - 'A' + 'a');
    c = t[((c >> 56) ^ b) & 0xFF] ^ (c << 8);
  }
  return c;
}

// Body and rig words (written for this project; the engine's own spelling style).
constexpr const char* body_words[] = {
    "root", "pelvis", "hips", "spine", "spine1", "spine2", "spine3", "spine4", "spine5", "chest",
    "neck", "neck1", "neck2", "head", "headEnd", "jaw", "tongue", "tongue1", "tongue2", "collar",
    "clavicle", "shoulder", "arm", "elbow", "forearm", "wrist", "hand", "palm", "thigh", "leg",
    "knee", "ankle", "foot", "heel", "ball", "toe", "toes", "armTwist", "armTwist1", "armTwist2",
    "armTwist3", "elbowTwist", "wristTwist", "forearmTwist", "legTwist", "legTwist1", "legTwist2",
    "kneeTwist", "thighTwist", "thumb1", "thumb2", "thumb3", "thumb4", "index1", "index2", "index3",
    "index4", "middle1", "middle2", "middle3", "middle4", "ring1", "ring2", "ring3", "ring4",
    "pinky1", "pinky2", "pinky3", "pinky4", "eye", "eyeLidUpper", "eyeLidLower", "eyePivot",
    "eyePupil", "brow", "browInner", "browOuter", "browCenter", "cheek", "cheekUpper", "cheekOuter",
    "cheekLower", "mouthCorner", "mouthUpper", "mouthLower", "mouthUpperCenter", "mouthLowerCenter",
    "mouthUpperInner", "mouthUpperOuter", "mouthLowerInner", "mouthLowerOuter", "nose", "adamsApple",
    "chin", "ear", "hair", "hairFront", "hairBack", "ponytail", "ponytail1", "ponytail2", "ponytail3",
    "hat", "hood", "backpack", "prop", "weapon", "knife", "mover", "absoluteNode", "relativeNode",
    "SkeletonPose", "Animation", "Skeleton"};
constexpr const char* sides[] = {"", "_L", "_R"};
// Character prefixes of face rigs, from the sample names (skNN_<character>...).
constexpr const char* prefixes[] = {"", "guybrush_", "clementine_", "clementine400_", "peterQuill_",
                                    "zombie400_", "zombie_", "crawford_", "louis_"};

const std::unordered_map<std::uint64_t, std::string>& database() {
  static const auto db = [] {
    std::unordered_map<std::uint64_t, std::string> m;
    for (const char* p : prefixes)
      for (const char* w : body_words)
        for (const char* s : sides) {
          std::string n = std::string(p) + w + s;
          m.emplace(crc(n, true), n);
        }
    return m;
  }();
  return db;
}

}  // namespace

std::uint64_t crc64(std::string_view s) { return crc(s, true); }
std::uint64_t crc64_raw(std::string_view s) { return crc(s, false); }

std::string hex16(std::uint64_t v) {  // "%016llx" without snprintf (once per bone and file)
  std::string out(16, '0');
  for (int i = 15; i >= 0; --i, v >>= 4) out[static_cast<std::size_t>(i)] = "0123456789abcdef"[v & 15];
  return out;
}

std::optional<std::uint64_t> parse_hex16(std::string_view s) {
  if (s.size() != 16) return std::nullopt;
  std::uint64_t v = 0;
  for (char c : s) {
    int d = (c >= '0' && c <= '9') ? c - '0' : (c >= 'a' && c <= 'f') ? c - 'a' + 10 : (c >= 'A' && c <= 'F') ? c - 'A' + 10 : -1;
    if (d < 0) return std::nullopt;
    v = (v << 4) | static_cast<std::uint64_t>(d);
  }
  return v;
}

std::optional<std::string> symbol_name(std::uint64_t sym) {
  const auto& db = database();
  auto it = db.find(sym);
  if (it == db.end()) return std::nullopt;
  return it->second;
}

std::string symbol_label(std::uint64_t sym) {
  const auto& db = database();
  const auto it = db.find(sym);
  return it != db.end() ? it->second : hex16(sym);
}

std::string value_label(std::uint64_t sym) {
  if (sym == sym_skeleton_pose) return "SkeletonPose";
  if (sym == sym_root) return "root";
  if (sym == sym_absolute_node) return "absoluteNode";
  return symbol_label(sym);
}

std::uint64_t symbol_of_label(std::string_view label) {
  if (auto h = parse_hex16(label)) return *h;
  return crc64(label);
}

std::size_t symbol_database_size() { return database().size(); }

}  // namespace rigrip::telltale
