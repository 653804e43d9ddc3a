// CRC-64/ECMA-182 symbols and the bone-name database.
//
// The database is our own list of common rig words (body, fingers, face) combined with
// the side suffixes and the character prefixes seen in the sample file names. A symbol
// is a hash, so a name is only shown when hashing one of these spellings reproduces it;
// anything else prints as 16 hex digits. Spelling is canonical (camelCase, _L/_R),
// since the engine hashes the lowercased text.
#include "formats/telltale/symbols.hpp"

#include <algorithm>
#include <array>
#include <iterator>
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

std::uint64_t crc_more(std::uint64_t c, std::string_view s) {  // crc(a + s) from c = crc(a), lowercased
  const auto& t = table();
  for (unsigned char b : s) {
    if (b >= 'A' && b <= 'Z') b = static_cast<unsigned char>(b - 'A' + 'a');
    c = t[((c >> 56) ^ b) & 0xFF] ^ (c << 8);
  }
  return c;
}

// One entry per spelling: its symbol and the parts it is made of. Built once per process;
// the CRC runs on over prefix, word and side instead of per whole name, and the name text
// is only made for a symbol that is looked up.
struct db_entry {
  std::uint64_t sym;
  std::uint8_t prefix, word, side;
};

const std::vector<db_entry>& database() {
  static const auto db = [] {
    std::vector<db_entry> v;
    v.reserve(std::size(prefixes) * std::size(body_words) * std::size(sides));
    for (std::size_t p = 0; p < std::size(prefixes); ++p) {
      const std::uint64_t cp = crc_more(0, prefixes[p]);
      for (std::size_t w = 0; w < std::size(body_words); ++w) {
        const std::uint64_t cw = crc_more(cp, body_words[w]);
        for (std::size_t s = 0; s < std::size(sides); ++s)
          v.push_back({crc_more(cw, sides[s]), static_cast<std::uint8_t>(p), static_cast<std::uint8_t>(w), static_cast<std::uint8_t>(s)});
      }
    }
    // Sorted by symbol; of equal symbols the first spelling made is kept (as a map's
    // emplace would).
    std::stable_sort(v.begin(), v.end(), [](const db_entry& a, const db_entry& b) { return a.sym < b.sym; });
    v.erase(std::unique(v.begin(), v.end(), [](const db_entry& a, const db_entry& b) { return a.sym == b.sym; }), v.end());
    return v;
  }();
  return db;
}

const db_entry* search_entry(std::uint64_t sym) {  // binary search of the sorted database
  const auto& db = database();
  auto it = std::lower_bound(db.begin(), db.end(), sym, [](const db_entry& e, std::uint64_t s) { return e.sym < s; });
  return it != db.end() && it->sym == sym ? &*it : nullptr;
}

// An open-addressing index over the database (a symbol is a CRC, so its low bits spread
// well): a lookup per bone is a probe or two instead of a dozen search steps.
struct db_index {
  std::vector<std::uint32_t> slot;  // database index + 1; 0 = empty
  std::uint64_t mask = 0;
};

const db_index& index() {
  static const auto ix = [] {
    const auto& db = database();
    db_index x;
    std::size_t n = 16;
    while (n < 4 * db.size()) n *= 2;
    x.slot.assign(n, 0);
    x.mask = n - 1;
    for (std::size_t i = 0; i < db.size(); ++i) {
      std::uint64_t h = db[i].sym & x.mask;
      while (x.slot[h]) h = (h + 1) & x.mask;
      x.slot[h] = static_cast<std::uint32_t>(i + 1);
    }
    return x;
  }();
  return ix;
}

const db_entry* find_entry(std::uint64_t sym) {
  const auto& db = database();
  const auto& ix = index();
  for (std::uint64_t h = sym & ix.mask;; h = (h + 1) & ix.mask) {
    const std::uint32_t e = ix.slot[h];
    if (!e) return nullptr;
    if (db[e - 1].sym == sym) return &db[e - 1];
  }
}

std::string name_of(const db_entry& e) {  // one allocation, not one per part
  const std::string_view p = prefixes[e.prefix], w = body_words[e.word], s = sides[e.side];
  std::string out;
  out.reserve(p.size() + w.size() + s.size());
  out.append(p).append(w).append(s);
  return out;
}

}  // namespace

std::uint64_t crc64(std::string_view s) { return crc(s, true); }
std::uint64_t crc64_raw(std::string_view s) { return crc(s, false); }

std::string hex16(std::uint64_t v) {  // "%016llx" without snprintf (twice per bone)
  // Two digits per byte from a table; the digits first, then one string made from them.
  static constexpr auto pairs = [] {
    std::array<char, 512> t{};
    for (int i = 0; i < 256; ++i) {
      t[2 * i] = "0123456789abcdef"[i >> 4];
      t[2 * i + 1] = "0123456789abcdef"[i & 15];
    }
    return t;
  }();
  char buf[16];
  for (int i = 7; i >= 0; --i, v >>= 8) {
    const std::size_t b = 2 * (v & 0xFF);
    buf[2 * i] = pairs[b];
    buf[2 * i + 1] = pairs[b + 1];
  }
  return std::string(buf, 16);
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
  const db_entry* e = find_entry(sym);
  if (!e) return std::nullopt;
  return name_of(*e);
}

std::string symbol_label(std::uint64_t sym) {
  const db_entry* e = find_entry(sym);
  return e ? name_of(*e) : hex16(sym);
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

namespace detail {
std::vector<std::uint64_t> symbol_database_symbols() {
  std::vector<std::uint64_t> out;
  for (const auto& e : database()) out.push_back(e.sym);
  return out;
}
std::optional<std::string> symbol_name_by_search(std::uint64_t sym) {
  const db_entry* e = search_entry(sym);
  if (!e) return std::nullopt;
  return name_of(*e);
}
}  // namespace detail

}  // namespace rigrip::telltale
