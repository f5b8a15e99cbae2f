//===- FlagsTest.cpp - String flags and the paths made from them ----------===//

#include "tflrt/Flags.h"

#include <gtest/gtest.h>

using namespace tflrt;

namespace {

TEST(FlagsTest, PathsTakeStringFlagsValues) {
  resetFlags();
  declareFlag("data_dir", kStringFlag, "/data/", "the dataset");
  declareFlag("tag", kStringFlag, "run", "");
  EXPECT_EQ(expandPath("{data_dir}train.gz"), "/data/train.gz");
  EXPECT_EQ(expandPath("{data_dir}{tag}-{{1}}.npy"), "/data/run-{1}.npy");
  EXPECT_EQ(expandPath("plain.npy"), "plain.npy");
  ASSERT_EQ(parseFlags("prog", {"--data_dir=/mnt/x/", "--tag={a}"}), 0);
  EXPECT_EQ(flagString("data_dir"), "/mnt/x/");
  // A value's braces are text, not fields.
  EXPECT_EQ(expandPath("{data_dir}{tag}.npy"), "/mnt/x/{a}.npy");
  resetFlags();
}

TEST(FlagsTest, StringFlagsTakeAnyTextAndAreNotNumbers) {
  resetFlags();
  declareFlag("name", kStringFlag, "", "");
  declareFlag("n", static_cast<int>(DType::I64), "3", "");
  ASSERT_EQ(parseFlags("prog", {"--name="}), 0);
  EXPECT_EQ(flagString("name"), "");
  EXPECT_THROW(flagValue("name"), std::runtime_error);
  EXPECT_THROW(flagString("n"), std::runtime_error);
  EXPECT_EQ(flagValue("n").data<int64_t>()[0], 3);
  resetFlags();
}

} // namespace
