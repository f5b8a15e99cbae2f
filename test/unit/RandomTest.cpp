//===- RandomTest.cpp - libtflrt's random generator -----------------------===//

#include "tflrt/Random.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <vector>

using namespace tflrt;

namespace {

// Random123's known answers for philox4x32_10. Our counter is (block low,
// block high, draw low, draw high) and our key (seed low, seed high).
TEST(RandomTest, PhiloxMatchesKnownAnswers) {
  EXPECT_EQ(philox(0, 0, 0), (std::array<uint32_t, 4>{0x6627e8d5, 0xe169c58d,
                                                      0xbc57ac4c, 0x9b00dbd8}));
  EXPECT_EQ(philox(~0ull, ~0ull, ~0ull),
            (std::array<uint32_t, 4>{0x408f276d, 0x41c83b0e, 0xa20bc7c6,
                                     0x6d5451fd}));
  EXPECT_EQ(philox(0x299f31d0a4093822ull, 0x0370734413198a2eull,
                   0x85a308d3243f6a88ull),
            (std::array<uint32_t, 4>{0xd16cfe09, 0x94fdcceb, 0x5001e420,
                                     0x24126ea1}));
}

TEST(RandomTest, SeedReplaysAndDrawsDiffer) {
  std::vector<float> a(10), b(10), c(10);
  seedRandom(5);
  randomNormal(a.data(), 10);
  randomNormal(b.data(), 10);
  seedRandom(5);
  randomNormal(c.data(), 10);
  EXPECT_EQ(a, c);
  EXPECT_NE(a, b);
}

TEST(RandomTest, ElementsDoNotDependOnTheDrawSize) {
  // Element i comes from its own counter block: a longer draw extends a
  // shorter one.
  std::vector<double> shortDraw(3), longDraw(8);
  seedRandom(9);
  randomUniform(shortDraw.data(), 3);
  seedRandom(9);
  randomUniform(longDraw.data(), 8);
  EXPECT_TRUE(std::equal(shortDraw.begin(), shortDraw.end(), longDraw.begin()));
}

TEST(RandomTest, ShuffleIsAPermutation) {
  std::vector<int64_t> p(257);
  seedRandom(1);
  shuffleIndices(p.data(), 257);
  std::vector<int64_t> sorted = p;
  std::sort(sorted.begin(), sorted.end());
  for (int64_t i = 0; i < 257; ++i)
    EXPECT_EQ(sorted[i], i);
  EXPECT_FALSE(std::is_sorted(p.begin(), p.end()));
}

// Setting a state read before makes the same draws again, and setting the
// later state back continues as if nothing was replayed.
TEST(RandomTest, SetStateReplaysDraws) {
  seedRandom(11);
  std::vector<float> first(5), replay(5), after(3), expected(3);
  std::array<uint64_t, 2> before = randomState();
  randomUniform(first.data(), 5);
  std::array<uint64_t, 2> now = randomState();
  EXPECT_EQ(now[1], before[1] + 1);
  setRandomState(before[0], before[1]);
  randomUniform(replay.data(), 5);
  EXPECT_EQ(first, replay);
  setRandomState(now[0], now[1]);
  randomUniform(after.data(), 3);
  seedRandom(11);
  randomUniform(replay.data(), 5);
  randomUniform(expected.data(), 3);
  EXPECT_EQ(after, expected);
}

} // namespace
