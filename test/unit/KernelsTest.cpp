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

} // namespace
