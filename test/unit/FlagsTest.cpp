//===- FlagsTest.cpp - String flags and the paths made from them ----------===//

#include "tflrt/Flags.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <vector>

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

TEST(FlagsTest, EncodedTextIsCutOrZeroPadded) {
  // A strided view too: every other byte, the ones between untouched.
  std::vector<uint8_t> bytes(8, 0xff);
  for (int64_t size : {0, 2, 4}) {
    std::fill(bytes.begin(), bytes.end(), 0xff);
    encodeText("h\xc3\xa9", {DType::U8, {size}, {2}, bytes.data()});
    const uint8_t want[] = {'h', 0xc3, 0xa9, 0};
    for (int64_t i = 0; i < 4; ++i) {
      EXPECT_EQ(bytes[2 * i], i < size ? want[i] : 0xff) << size << " " << i;
      EXPECT_EQ(bytes[2 * i + 1], 0xff);
    }
  }
  EXPECT_THROW(encodeText("a", {DType::I32, {1}, {1}, bytes.data()}),
               std::invalid_argument);
}

} // namespace
