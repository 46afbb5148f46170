#include "space/config_space.h"

#include <gtest/gtest.h>

#include <set>
#include <stdexcept>

namespace tt {
namespace {

// 4 * 6 * 3 * 2 = 144 points.
ConfigSpace SmallSpace() {
  ConfigSpace space;
  space.AddKnob(Knob::Split("tile", 8, 2));
  space.AddKnob(Knob::Permutation("order", 3));
  space.AddKnob(Knob::Discrete("unroll", {1, 2, 4}));
  space.AddKnob(Knob::Categorical("vec", {0, 1}));
  return space;
}

TEST(ConfigSpace, FlatIndexRoundTripsOverTheWholeSpace) {
  const ConfigSpace space = SmallSpace();
  ASSERT_EQ(space.Size(), 144u);
  std::set<Config> all;
  for (uint64_t i = 0; i < space.Size(); ++i) {
    const Config config = space.FromIndex(i);
    EXPECT_TRUE(space.IsValid(config));
    EXPECT_EQ(space.ToIndex(config), i);
    all.insert(config);
  }
  EXPECT_EQ(all.size(), 144u);
  EXPECT_EQ(space.FromIndex(1), (Config{0, 0, 0, 1}));  // the last knob varies fastest
}

TEST(ConfigSpace, KeyAndJsonRoundTripForEveryConfig) {
  const ConfigSpace space = SmallSpace();
  std::set<std::string> keys;
  for (uint64_t i = 0; i < space.Size(); ++i) {
    const Config config = space.FromIndex(i);
    const std::string key = space.Key(config);
    keys.insert(key);
    EXPECT_EQ(space.FromKey(key), config) << key;
    EXPECT_EQ(space.FromJson(space.ToJson(config)), config) << space.ToJson(config);
  }
  EXPECT_EQ(keys.size(), 144u);
}

TEST(ConfigSpace, KeyAndJsonTexts) {
  const ConfigSpace space = SmallSpace();
  const Config config = *space.FromKey("tile=[2,4];order=[2,0,1];unroll=4;vec=1");
  EXPECT_EQ(space.Key(config), "tile=[2,4];order=[2,0,1];unroll=4;vec=1");
  EXPECT_EQ(space.ToJson(config), R"([["tile","sp",[2,4]],["order","re",[2,0,1]],["unroll","ot",4],["vec","ot",1]])");
  // Entities may come in any order, as in AutoTVM logs.
  EXPECT_EQ(space.FromJson(R"([["vec","ot",1],["unroll","ot",4],["order","re",[2,0,1]],["tile","sp",[2,4]]])"), config);
  EXPECT_EQ(space.Value(config, "tile"), (KnobValue{2, 4}));
  EXPECT_EQ(space.Scalar(config, "unroll"), 4);
}

TEST(ConfigSpace, PinnedKnobKeepsItsKeyTextAndLeavesTheRestFree) {
  ConfigSpace space = SmallSpace();
  space.Pin("tile", "[2,4]");
  space.Pin("vec", "1");
  EXPECT_EQ(space.Size(), 18u);  // 1 x 6 orders x 3 unrolls x 1
  const Config config = *space.FromKey("tile=[2,4];order=[2,0,1];unroll=4;vec=1");
  EXPECT_EQ(space.Key(config), "tile=[2,4];order=[2,0,1];unroll=4;vec=1");
  EXPECT_EQ(space.FromKey("tile=[4,2];order=[2,0,1];unroll=4;vec=1"), std::nullopt);
  EXPECT_TRUE(space.knob(0).neighbours(0).empty());
  EXPECT_EQ(space.knob(1).size(), 6u);
  EXPECT_THROW(space.Pin("unroll", "3"), std::invalid_argument);
  EXPECT_THROW(space.Pin("unrolled", "4"), std::invalid_argument);
  EXPECT_THROW(space.Pin("order", "[0,0,1]"), std::invalid_argument);
}

TEST(ConfigSpace, AutoTvmInferredFirstFactorIsResolved) {
  const ConfigSpace space = SmallSpace();
  const Config config = *space.FromKey("tile=[2,4];order=[2,0,1];unroll=4;vec=1");
  EXPECT_EQ(space.FromJson(R"([["tile","sp",[-1,4]],["order","re",[2,0,1]],["unroll","ot",4],["vec","ot",1]])"),
            config);
  // -1 stands for the rest of the extent only when the other factors divide it.
  EXPECT_EQ(space.FromJson(R"([["tile","sp",[-1,3]],["order","re",[2,0,1]],["unroll","ot",4],["vec","ot",1]])"),
            std::nullopt);
}

TEST(ConfigSpace, MalformedKeysAreRejected) {
  const ConfigSpace space = SmallSpace();
  for (const char* key : {
           "",
           "tile=[2,4]",                                       // knobs missing
           "tile=[2,4];order=[2,0,1];unroll=4",                // last knob missing
           "tile=[2,4];order=[2,0,1];unroll=4;vec=1;",         // trailing separator
           "tile=[2,4];order=[2,0,1];unroll=4;vec=1;extra=3",  // unknown trailing knob
           "order=[2,0,1];tile=[2,4];unroll=4;vec=1",          // knob order matters in keys
           "tile=[3,4];order=[2,0,1];unroll=4;vec=1",          // not a factorization of 8
           "tile=[2,4];order=[2,0,0];unroll=4;vec=1",          // not a permutation
           "tile=[2,4];order=[2,0,1];unroll=3;vec=1",          // not a value of the knob
           "tile=[2,4];order=[2,0,1];unroll=4.0;vec=1",        // not an integer
           "tile=[2,4];order=[2,0,1];unroll=true;vec=1",
           "tile=[2,4];order=[2,0,1];unroll=;vec=1",
           "tile=[2,4;order=[2,0,1];unroll=4;vec=1",
           "tile=[];order=[2,0,1];unroll=4;vec=1",
           "tile [2,4];order=[2,0,1];unroll=4;vec=1",
       })
    EXPECT_EQ(space.FromKey(key), std::nullopt) << key;
}

TEST(ConfigSpace, MalformedJsonIsRejected) {
  const ConfigSpace space = SmallSpace();
  for (const char* json : {
           "",
           "not json",
           "{}",
           R"([["tile","sp",[2,4]],["order","re",[2,0,1]],["unroll","ot",4]])",
           R"([["tile","sp",[2,4]],["order","re",[2,0,1]],["unroll","ot",4],["tile","sp",[2,4]]])",
           R"([["tile","sp",[2,4]],["order","re",[2,0,1]],["unroll","ot",4],["nope","ot",1]])",
           R"([["tile","sp",[2,4]],["order","re",[2,0,1]],["unroll","ot",4.5],["vec","ot",1]])",
           R"([["tile","sp",[2,4]],["order","re",[2,0,1]],["unroll","ot"],["vec","ot",1]])",
           R"([["tile","sp",[]],["order","re",[2,0,1]],["unroll","ot",4],["vec","ot",1]])",
       })
    EXPECT_EQ(space.FromJson(json), std::nullopt) << json;
}

TEST(ConfigSpace, ConstraintsExplainInvalidConfigs) {
  ConfigSpace space = SmallSpace();
  space.AddConstraint([](const ConfigSpace& s, const Config& c) -> std::optional<std::string> {
    if (s.Value(c, "tile")[1] * s.Scalar(c, "unroll") > 8) return "inner tile times unroll exceeds 8";
    return std::nullopt;
  });
  space.AddConstraint([](const ConfigSpace& s, const Config& c) -> std::optional<std::string> {
    if (s.Scalar(c, "vec") == 1 && s.Value(c, "tile")[1] == 1) return "vectorising a tile of 1";
    return std::nullopt;
  });
  const Config ok = *space.FromKey("tile=[4,2];order=[0,1,2];unroll=4;vec=1");
  EXPECT_EQ(space.WhyInvalid(ok), std::nullopt);
  EXPECT_TRUE(space.IsValid(ok));
  EXPECT_EQ(space.WhyInvalid(*space.FromKey("tile=[1,8];order=[0,1,2];unroll=2;vec=0")),
            "inner tile times unroll exceeds 8");
  EXPECT_EQ(space.WhyInvalid(*space.FromKey("tile=[8,1];order=[0,1,2];unroll=1;vec=1")), "vectorising a tile of 1");
  // The first broken constraint is the one reported.
  EXPECT_EQ(space.WhyInvalid(*space.FromKey("tile=[1,8];order=[0,1,2];unroll=4;vec=1")),
            "inner tile times unroll exceeds 8");
  EXPECT_TRUE(space.WhyInvalid(Config{0, 0, 0}));
  EXPECT_TRUE(space.WhyInvalid(Config{0, 6, 0, 0}));  // value index out of range
  EXPECT_FALSE(space.IsValid(Config{0, 6, 0, 0}));

  size_t valid = 0;
  for (uint64_t i = 0; i < space.Size(); ++i) valid += space.IsValid(space.FromIndex(i));
  // tile[1] in {8,4,2,1}: unroll allowed {1}, {1,2}, all, all; vec=1 forbidden for tile[1]=1.
  EXPECT_EQ(valid, 6u * (2 * (1 + 2 + 3) + 3));
}

TEST(ConfigSpace, KnobsAndRandomPoints) {
  ConfigSpace space = SmallSpace();
  EXPECT_THROW(space.AddKnob(Knob::Discrete("unroll", {1})), std::invalid_argument);
  EXPECT_THROW(space.KnobIndex("nope"), std::out_of_range);
  EXPECT_EQ(space.KnobIndex("vec"), 3u);
  Rng a(7), b(7);
  for (int i = 0; i < 100; ++i) {
    const Config config = space.Random(a);
    EXPECT_EQ(config, space.Random(b));
    EXPECT_TRUE(space.IsValid(config));
  }
}

TEST(ConfigSpace, ValidConfigsAreCountedAndDrawn) {
  ConfigSpace space = SmallSpace();
  EXPECT_EQ(CountValidConfigs(space), 144u);
  space.AddConstraint([](const ConfigSpace& s, const Config& c) -> std::optional<std::string> {
    if (s.Scalar(c, "unroll") != 4 || s.Scalar(c, "vec") != 1) return "not unroll 4 with vec";
    return std::nullopt;
  });
  EXPECT_EQ(CountValidConfigs(space), 24u);      // 4 tiles x 6 orders
  EXPECT_EQ(CountValidConfigs(space, 10), 11u);  // stops once past the bound
  Rng rng(1);
  const auto drawn = DrawValidConfig(space, rng);
  ASSERT_TRUE(drawn);
  EXPECT_TRUE(space.IsValid(*drawn));
  space.AddConstraint([](const ConfigSpace&, const Config&) -> std::optional<std::string> { return "none"; });
  EXPECT_EQ(CountValidConfigs(space), 0u);
  EXPECT_FALSE(DrawValidConfig(space, rng));

  ConfigSpace huge;
  for (int k = 0; k < 25; ++k) huge.AddKnob(Knob::Categorical("bit" + std::to_string(k), {0, 1}));
  EXPECT_FALSE(CountValidConfigs(huge));  // more points than kCountableSpace: not counted
}

TEST(ConfigSpace, EmptySpaceHasOnePoint) {
  const ConfigSpace space;
  EXPECT_EQ(space.Size(), 1u);
  EXPECT_EQ(space.FromKey(""), Config{});
  EXPECT_EQ(space.FromKey("x=1"), std::nullopt);
}

}  // namespace
}  // namespace tt
