#include "tuners/tuner_factory.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "core/errors.h"
#include "tuners/synthetic_tuning.h"

namespace tt {
namespace {

TEST(TunerFactory, KnowsEveryTuner) {
  EXPECT_EQ(TunerNames(),
            (std::vector<std::string>{"random", "grid", "opevo", "ga", "xgb", "gbfs", "gga", "xgb-tl", "bo"}));
  const ConfigSpace space = testing::SmallConstrainedSpace();
  for (const auto& name : TunerNames()) EXPECT_NE(MakeTuner(name, space, 1, {}), nullptr) << name;
}

TEST(TunerFactory, UnknownNameListsTheKnownOnes) {
  const ConfigSpace space = testing::SmallConstrainedSpace();
  try {
    MakeTuner("annealing", space, 1, {});
    ADD_FAILURE() << "no exception";
  } catch (const UserError& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("annealing"), std::string::npos) << message;
    for (const auto& name : TunerNames()) EXPECT_NE(message.find(name), std::string::npos) << message;
  }
}

// `compare --tuners` takes each tuner with its options in one word.
TEST(TunerFactory, ParsesATunerWithItsOptions) {
  const TunerSpec plain = ParseTunerSpec("bo");
  EXPECT_EQ(plain.name, "bo");
  EXPECT_TRUE(plain.options.empty());
  const TunerSpec spec = ParseTunerSpec("bo:init=10:xi=0.1");
  EXPECT_EQ(spec.name, "bo");
  EXPECT_EQ(spec.label, "bo:init=10:xi=0.1");
  EXPECT_EQ(spec.options, (TunerOptionMap{{"init", "10"}, {"xi", "0.1"}}));
  EXPECT_THROW(ParseTunerSpec("bo:init"), UserError);
  EXPECT_THROW(ParseTunerSpec("bo:=3"), UserError);
}

TEST(TunerFactory, TunersWithoutOptionsRejectAny) {
  const ConfigSpace space = testing::SmallConstrainedSpace();
  EXPECT_THROW(MakeTuner("random", space, 1, {{"q", "0.5"}}), UserError);
  EXPECT_THROW(MakeTuner("grid", space, 1, {{"order", "reverse"}}), UserError);
}

struct SampleOptions {
  size_t count = 4;
  double rate = 0.5;
  bool on = false;
  std::string mode = "a";
};

const OptionTable<SampleOptions>& SampleTable() {
  static const OptionTable<SampleOptions> table{
      {"count", &SampleOptions::count, "how many", kAtLeastOne},
      {"rate", &SampleOptions::rate, "how often", OptionRange{0, 1, true, false}},
      {"on", &SampleOptions::on, "whether"},
      {"mode", &SampleOptions::mode, "which", {}, {"a", "b"}},
  };
  return table;
}

TEST(OptionTable, ParsesEachKindAndKeepsDefaultsOfAbsentKeys) {
  const auto parsed = ParseOptionTable("test", SampleTable(), {{"count", "12"}, {"on", "1"}, {"mode", "b"}});
  EXPECT_EQ(parsed.count, 12u);
  EXPECT_DOUBLE_EQ(parsed.rate, 0.5);
  EXPECT_TRUE(parsed.on);
  EXPECT_EQ(parsed.mode, "b");
}

TEST(OptionTable, RefusesBadTextOutOfRangeAndUnknownKeysNamingThem) {
  const auto message = [](const TunerOptionMap& given) {
    try {
      ParseOptionTable("test", SampleTable(), given);
    } catch (const UserError& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_NE(message({{"count", "12abc"}}).find("count='12abc'"), std::string::npos);
  EXPECT_NE(message({{"rate", "nan"}}).find("not a number"), std::string::npos);
  EXPECT_NE(message({{"count", "0"}}).find("test option count must be at least 1, got 0"), std::string::npos);
  EXPECT_NE(message({{"rate", "0"}}).find("must be in (0, 1], got 0"), std::string::npos);
  EXPECT_EQ(message({{"rate", "1"}}), "accepted");
  EXPECT_NE(message({{"on", "2"}}).find("not 0 or 1"), std::string::npos);
  EXPECT_NE(message({{"mode", "c"}}).find("not a or b"), std::string::npos);
  const std::string unknown = message({{"cuont", "3"}});
  EXPECT_NE(unknown.find("unknown tuner option 'cuont'"), std::string::npos) << unknown;
  EXPECT_NE(unknown.find("count"), std::string::npos) << unknown;  // the known keys are listed
}

TEST(OptionTable, DocumentsValuesAndDefaults) {
  const auto docs = DocumentOptionTable(SampleTable());
  ASSERT_EQ(docs.size(), 4u);
  EXPECT_EQ(docs[0].values, "integer, at least 1");
  EXPECT_EQ(docs[0].default_value, "4");
  EXPECT_EQ(docs[1].values, "number, in (0, 1]");
  EXPECT_EQ(docs[1].default_value, "0.5");
  EXPECT_EQ(docs[2].values, "0 or 1");
  EXPECT_EQ(docs[3].values, "a or b");
  EXPECT_EQ(docs[3].default_value, "a");
}

// Every documented option of every tuner is accepted by MakeTuner at its documented default,
// and every option MakeTuner accepts is documented (an undocumented key would be unknown).
TEST(TunerFactory, EveryTunerAcceptsExactlyItsDocumentedOptions) {
  const ConfigSpace space = testing::SmallConstrainedSpace();
  const auto docs = TunerDocs();
  ASSERT_EQ(docs.size(), TunerNames().size());
  for (const TunerDoc& tuner : docs) {
    TunerOptionMap defaults;
    for (const OptionDoc& o : tuner.options) defaults[o.key] = o.default_value;
    EXPECT_NO_THROW(MakeTuner(tuner.name, space, 1, defaults)) << tuner.name;
    EXPECT_THROW(MakeTuner(tuner.name, space, 1, {{"no_such_option", "1"}}), UserError) << tuner.name;
  }
  const auto xgb_tl = std::find_if(docs.begin(), docs.end(), [](const TunerDoc& d) { return d.name == "xgb-tl"; });
  ASSERT_NE(xgb_tl, docs.end());
  EXPECT_TRUE(std::any_of(xgb_tl->options.begin(), xgb_tl->options.end(),
                          [](const OptionDoc& o) { return o.key == "transfer_keep"; }));
}

}  // namespace
}  // namespace tt
