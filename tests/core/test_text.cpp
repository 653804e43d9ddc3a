// Game files store names as bytes; everything leaving a reader must be valid UTF-8.
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
