// Game files store names as bytes; everything leaving a reader must be valid UTF-8.
#include <cstdint>
#include <random>
#include <string>

#include <gtest/gtest.h>

#include "scene/text.hpp"

using namespace rigrip;

TEST(Utf8, ValidTextIsKeptAndInvalidBytesAreReadAsLatin1) {
  std::string good = "Arm_1_L \xC3\xA9\xE2\x82\xAC";  // é €
  std::string g = good;
  scene_ops::repair_utf8(g);
  EXPECT_EQ(g, good);
  std::string bad = std::string("a\xFF") + "b\xE9\xC3";  // lone 0xFF, Latin-1 é, cut sequence
  scene_ops::repair_utf8(bad);
  EXPECT_EQ(bad, "a\xC3\xBF" "b\xC3\xA9\xC3\x83");
  EXPECT_TRUE(scene_ops::is_valid_utf8(bad));
  std::string surrogate = "\xED\xA0\x80";  // UTF-16 surrogates are not UTF-8
  EXPECT_FALSE(scene_ops::is_valid_utf8(surrogate));
}

TEST(Utf8, SceneNamesAndReferencesAreRepairedAlikeSoTheSceneStaysValid) {
  scene s;
  s.skeletons.push_back({"rig\x80", {bone{"root\xFE", -1}}, {}});
  animation a;
  a.name = "clip";
  a.duration = 1;
  a.tracks.push_back(track{"root\xFE", path::translation, interpolation::linear, {0, 1}, {0, 0, 0, 1, 1, 1}});
  s.animations.push_back(a);
  s.metadata["n\x81"] = "v\x82";
  scene_ops::repair_utf8(s);
  EXPECT_EQ(s.animations[0].tracks[0].bone, s.skeletons[0].bones[0].name);
  EXPECT_TRUE(s.validate().ok());
  EXPECT_NO_THROW((void)s.metadata.dump());
  EXPECT_EQ(s.metadata.begin().key(), "n\xC2\x81");
}

namespace {
// An independent validator: decode each sequence to its code point and reject overlong forms,
// surrogates and values past U+10FFFF (RFC 3629).
bool reference_valid_utf8(std::string_view s) {
  std::size_t i = 0;
  while (i < s.size()) {
    const unsigned c = static_cast<unsigned char>(s[i]);
    std::size_t n;
    std::uint32_t cp;
    if (c < 0x80) {
      ++i;
      continue;
    } else if ((c & 0xE0) == 0xC0) {
      n = 2, cp = c & 0x1F;
    } else if ((c & 0xF0) == 0xE0) {
      n = 3, cp = c & 0x0F;
    } else if ((c & 0xF8) == 0xF0) {
      n = 4, cp = c & 0x07;
    } else {
      return false;
    }
    if (i + n > s.size()) return false;
    for (std::size_t k = 1; k < n; ++k) {
      const unsigned b = static_cast<unsigned char>(s[i + k]);
      if ((b & 0xC0) != 0x80) return false;
      cp = cp << 6 | (b & 0x3F);
    }
    const std::uint32_t least[5] = {0, 0, 0x80, 0x800, 0x10000};
    if (cp < least[n] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return false;
    i += n;
  }
  return true;
}
}  // namespace

// The eight-bytes-at-a-time ASCII path: a high byte at every position of strings 0..40 long
// (so in the word loop and in the tail), valid multi-byte sequences across word boundaries,
// and random bytes, against the independent validator; repair always yields valid text.
TEST(Utf8, AsciiWordPathAgreesWithAnIndependentValidator) {
  std::mt19937 rng(2026);
  const std::string pieces[] = {"\xC3\xA9", "\xE2\x82\xAC", "\xF0\x9F\x98\x80", "\xED\x9F\xBF", "\xED\xA0\x80",
                                "\xC0\xAF", "\xF4\x90\x80\x80", "\xE0\x80\xAF", "\x80", "\xFF"};
  std::size_t invalid = 0;
  for (int round = 0; round < 20000; ++round) {
    std::string s;
    const std::size_t len = rng() % 41;
    while (s.size() < len) {
      const unsigned r = rng() % 10;
      if (r < 7) s += static_cast<char>('a' + rng() % 26);
      else if (r < 9) s += pieces[rng() % std::size(pieces)];
      else s += static_cast<char>(rng() % 256);
    }
    const bool ok = reference_valid_utf8(s);
    invalid += !ok;
    ASSERT_EQ(scene_ops::is_valid_utf8(s), ok) << "round " << round;
    std::string fixed = s;
    scene_ops::repair_utf8(fixed);
    ASSERT_TRUE(reference_valid_utf8(fixed));
    if (ok) ASSERT_EQ(fixed, s);
  }
  EXPECT_GT(invalid, 1000u);  // both verdicts well covered
  // One high byte at each position of an otherwise ASCII string, every length.
  for (std::size_t len = 1; len <= 40; ++len)
    for (std::size_t at = 0; at < len; ++at) {
      std::string s(len, 'x');
      s[at] = static_cast<char>(0xE9);
      ASSERT_FALSE(scene_ops::is_valid_utf8(s)) << len << " " << at;
      s.replace(at, 1, "\xC3\xA9");
      ASSERT_TRUE(scene_ops::is_valid_utf8(s)) << len << " " << at;
    }
}
