#include <gtest/gtest.h>

#include "rigrip/extras.hpp"

using rigrip::extra;
using nlohmann::json;

// Found by tools/json_campaign.mjs: `pack` of a scene JSON whose animation extras held
// "loop": [] threw nlohmann's type_error out of the BFRES encoder (E_INTERNAL).
TEST(Extras, WrongTypeOrRangeGivesTheFallback) {
  const json e = {{"loop", json::array()}, {"flag", true}, {"n", 7}, {"big", 1e300}, {"neg", -3},
                  {"huge", 4294967296LL}, {"s", "repeat"}, {"f", 2.5}, {"null", nullptr}};
  EXPECT_FALSE(extra(e, "loop", false));
  EXPECT_TRUE(extra(e, "flag", false));
  EXPECT_EQ(extra(e, "n", 0), 7);
  EXPECT_EQ(extra(e, "big", 5), 5);               // a float is not an integer, and 1e300 fits none
  EXPECT_EQ(extra(e, "huge", 5), 5);              // does not fit an int
  EXPECT_EQ(extra(e, "neg", 9u), 9u);             // negative into unsigned
  EXPECT_EQ(extra(e, "neg", 0), -3);
  EXPECT_FLOAT_EQ(extra(e, "f", 0.0f), 2.5f);
  EXPECT_FLOAT_EQ(extra(e, "big", 1.0f), 1.0f);   // beyond float range
  EXPECT_DOUBLE_EQ(extra(e, "big", 1.0), 1e300);
  EXPECT_EQ(extra(e, "s", std::string("x")), "repeat");
  EXPECT_EQ(extra(e, "n", std::string("x")), "x");
  EXPECT_EQ(extra(e, "null", 4), 4);
  EXPECT_EQ(extra(e, "missing", 4), 4);
  EXPECT_EQ(extra(json(3), "n", 4), 4);           // extras that are not an object
  EXPECT_EQ(extra(json(), "n", 4), 4);
}
