//===- KernelsTest.cpp - libtflrt kernels ---------------------------------===//

#include "tflrt/Kernels.h"

#include <gtest/gtest.h>

using namespace tflrt;

namespace {

TEST(KernelsTest, BroadcastShapesFollowNumPy) {
  EXPECT_EQ(*broadcastShapes({3, 1}, {4}), (Shape{3, 4}));
  EXPECT_EQ(*broadcastShapes({}, {2, 2}), (Shape{2, 2}));
  EXPECT_EQ(*broadcastShapes({0, 1}, {1, 5}), (Shape{0, 5}));
  EXPECT_FALSE(broadcastShapes({2, 3}, {4}).has_value());
}

TEST(KernelsTest, BinaryBroadcastsBothOperands) {
  Tensor a(DType::F32, {3, 1}), b(DType::F32, {4});
  for (int i = 0; i < 3; ++i)
    a.data<float>()[i] = static_cast<float>(10 * i);
  for (int j = 0; j < 4; ++j)
    b.data<float>()[j] = static_cast<float>(j);
  Tensor c = binary(BinaryKind::Sub, a, b);
  ASSERT_EQ(c.shape(), (Shape{3, 4}));
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 4; ++j)
      EXPECT_EQ(c.data<float>()[i * 4 + j], 10.0f * i - j);
}

TEST(KernelsTest, MatmulMatchesALoop) {
  Tensor a(DType::F32, {2, 3}), b(DType::F32, {3, 2});
  for (int i = 0; i < 6; ++i) {
    a.data<float>()[i] = static_cast<float>(i + 1);
    b.data<float>()[i] = static_cast<float>(6 - i);
  }
  Tensor c = matmul(a, b);
  // [[1 2 3] [4 5 6]] @ [[6 5] [4 3] [2 1]] = [[20 14] [56 41]]
  EXPECT_EQ(c.data<float>()[0], 20);
  EXPECT_EQ(c.data<float>()[1], 14);
  EXPECT_EQ(c.data<float>()[2], 56);
  EXPECT_EQ(c.data<float>()[3], 41);
  Tensor ai = cast(a, DType::I64), bi = cast(b, DType::I64);
  Tensor ci = matmul(ai, bi);
  EXPECT_EQ(ci.data<int64_t>()[3], 41);
}

TEST(KernelsTest, CastFollowsAstype) {
  Tensor a(DType::F32, {3});
  a.data<float>()[0] = -1.7f;
  a.data<float>()[1] = 0.0f;
  a.data<float>()[2] = 2.5f;
  Tensor i = cast(a, DType::I64);
  EXPECT_EQ(i.data<int64_t>()[0], -1);
  EXPECT_EQ(i.data<int64_t>()[2], 2);
  Tensor b = cast(a, DType::Bool);
  EXPECT_EQ(b.data<uint8_t>()[0], 1);
  EXPECT_EQ(b.data<uint8_t>()[1], 0);
}

Tensor scalar(float v) {
  Tensor t(DType::F32, {});
  t.data<float>()[0] = v;
  return t;
}

float value(const Tensor &t) { return t.data<float>()[0]; }

TEST(KernelsTest, TapesKeepEntriesUntilReleased) {
  tapeEnter();
  tapePush(0, scalar(1));
  tapePush(0, scalar(2));
  EXPECT_EQ(tapeSize(0), 2);
  // A rewind moves the cursor only: the entries stay readable, and a push
  // writes at the cursor again.
  tapeRewind(0, 1, /*release=*/false);
  EXPECT_EQ(value(tapeRead(0, 1, DType::F32, {})), 2);
  tapePush(0, scalar(5));
  EXPECT_EQ(value(tapeRead(0, 1, DType::F32, {})), 5);
  // A callee's frame does not see the caller's tapes.
  tapeEnter();
  EXPECT_EQ(tapeSize(0), 0);
  tapePush(0, scalar(9));
  tapeExit();
  EXPECT_EQ(value(tapeRead(0, 0, DType::F32, {})), 1);
  // Accumulators add up and are read without being cleared; a position
  // nothing was added at reads as zeros, as does one a release freed.
  tapeAdd(1, 0, scalar(0.5));
  tapeAdd(1, 0, scalar(0.25));
  EXPECT_EQ(value(tapeAccumulated(1, 0, DType::F32, {})), 0.75);
  EXPECT_EQ(value(tapeAccumulated(1, 0, DType::F32, {})), 0.75);
  EXPECT_EQ(value(tapeAccumulated(1, 3, DType::F32, {})), 0);
  tapeRewind(1, 0, /*release=*/true);
  EXPECT_EQ(value(tapeAccumulated(1, 0, DType::F32, {})), 0);
  tapeRewind(0, 1, /*release=*/true);
  EXPECT_EQ(value(tapeRead(0, 1, DType::F32, {})), 0);
  EXPECT_THROW(tapeRead(0, 0, DType::F64, {}), std::runtime_error);
  tapeExit();
  EXPECT_THROW(tapeSize(0), std::runtime_error);
}

} // namespace
