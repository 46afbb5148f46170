#include "tuners/tuner_factory.h"

#include <gtest/gtest.h>

#include "core/errors.h"
#include "tuners/synthetic_tuning.h"

namespace tt {
namespace {

TEST(TunerFactory, KnowsEveryTuner) {
  EXPECT_EQ(TunerNames(), (std::vector<std::string>{"random", "grid", "opevo", "ga", "xgb", "gbfs", "gga", "xgb-tl"}));
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

TEST(TunerFactory, TunersWithoutOptionsRejectAny) {
  const ConfigSpace space = testing::SmallConstrainedSpace();
  EXPECT_THROW(MakeTuner("random", space, 1, {{"q", "0.5"}}), UserError);
  EXPECT_THROW(MakeTuner("grid", space, 1, {{"order", "reverse"}}), UserError);
}

TEST(TunerOptionReader, ParsesWholeNumbersOnly) {
  const TunerOptionMap options{{"n", "12"}, {"x", "0.25"}, {"bad_n", "12abc"}, {"bad_x", "nan"}};
  TunerOptionReader reader("test", options);
  EXPECT_EQ(reader.Count("n", 1), 12u);
  EXPECT_EQ(reader.Count("absent", 7), 7u);
  EXPECT_DOUBLE_EQ(reader.Real("x", 0), 0.25);
  EXPECT_THROW(reader.Count("bad_n", 1), UserError);
  EXPECT_THROW(reader.Real("bad_x", 1), UserError);
  EXPECT_NO_THROW(reader.RejectUnknown());
  TunerOptionReader partial("test", options);
  partial.Count("n", 1);
  EXPECT_THROW(partial.RejectUnknown(), UserError);
}

}  // namespace
}  // namespace tt
