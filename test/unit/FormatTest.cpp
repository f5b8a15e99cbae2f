//===- FormatTest.cpp - NumPy-style printing of libtflrt ------------------===//
//
// Expected strings are NumPy 1.24's `str()` of the same arrays (checked with
// /usr/bin/python3 and python3-numpy); test/e2e compares more at random.
//
//===----------------------------------------------------------------------===//

#include "tflrt/Format.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

using namespace tflrt;

namespace {

Tensor makeF32(Shape shape, std::vector<float> values) {
  Tensor t(DType::F32, std::move(shape));
  std::copy(values.begin(), values.end(), t.data<float>());
  return t;
}

std::string fmt(const Tensor &t) { return formatTensor(t.view()); }

TEST(FormatTest, ScalarsAreShownAsPythonShowsThem) {
  EXPECT_EQ(fmt(makeF32({}, {4.0f})), "4.0");
  EXPECT_EQ(fmt(makeF32({}, {0.1f})), "0.1");
  EXPECT_EQ(fmt(makeF32({}, {1e20f})), "1e+20");
  EXPECT_EQ(fmt(makeF32({}, {123456789.0f})), "123456790.0");
  EXPECT_EQ(fmt(makeF32({}, {1e-5f})), "1e-05");
  EXPECT_EQ(fmt(makeF32({}, {1.0f / 3})), "0.33333334");
  EXPECT_EQ(fmt(makeF32({}, {-0.0f})), "-0.0");
  EXPECT_EQ(fmt(makeF32({}, {std::numeric_limits<float>::quiet_NaN()})), "nan");
  EXPECT_EQ(formatFloatScalar(1.0 / 3, DType::F64), "0.3333333333333333");
}

// 16-bit floats show the fewest digits that read back as the same value,
// as NumPy prints float16 (np.float16(1/3) is 0.3333).
TEST(FormatTest, HalfFloatsShowTheirOwnShortestDigits) {
  auto half = [](DType dtype, float x) {
    Tensor t(dtype, {});
    t.data<uint16_t>()[0] = floatToHalf(dtype, x);
    return fmt(t);
  };
  EXPECT_EQ(half(DType::F16, 1.0f / 3), "0.3333");
  EXPECT_EQ(half(DType::F16, 0.1f), "0.1");
  EXPECT_EQ(half(DType::BF16, 0.1f), "0.1");
  EXPECT_EQ(half(DType::BF16, 1.0f / 3), "0.334");
  EXPECT_EQ(half(DType::BF16, 100.5f), "100.5");
  EXPECT_EQ(half(DType::BF16, 3e38f), "3e+38");
  EXPECT_EQ(half(DType::BF16, 3.015625f), "3.02");
}

// Bit patterns from PyTorch's bfloat16 and NumPy's float16 conversions.
TEST(FormatTest, HalfConversionsRoundToNearestEven) {
  EXPECT_EQ(floatToBf16(1.0f / 3), 0x3eab);
  EXPECT_EQ(floatToBf16(0.1f), 0x3dcd);
  EXPECT_EQ(floatToBf16(3e38f), 0x7f62);
  EXPECT_EQ(floatToBf16(1e-40f), 0x0001);
  EXPECT_TRUE(std::isnan(
      bf16ToFloat(floatToBf16(std::numeric_limits<float>::quiet_NaN()))));
  EXPECT_EQ(bf16ToFloat(0x3dcd), 0.10009765625f);
  EXPECT_EQ(floatToF16(1.0f / 3), 0x3555);
  EXPECT_EQ(floatToF16(0.1f), 0x2e66);
  EXPECT_EQ(floatToF16(65519.0f), 0x7bff);
  EXPECT_EQ(floatToF16(65520.0f), 0x7c00);              // overflows to infinity
  EXPECT_EQ(floatToF16(std::ldexp(1.0f, -25)), 0x0000); // tie to even: 0
  EXPECT_EQ(floatToF16(3 * std::ldexp(1.0f, -26)), 0x0001);
  EXPECT_EQ(floatToF16(1.5f * std::ldexp(1.0f, -24)), 0x0002); // tie: even
  EXPECT_EQ(f16ToFloat(0x0001), std::ldexp(1.0f, -24));
  EXPECT_EQ(f16ToFloat(0x3555), 0.333251953125f);
  EXPECT_EQ(f16ToFloat(0xfbff), -65504.0f);
  for (uint32_t bits = 0; bits < 0x10000; ++bits) { // every f16 round-trips
    float x = f16ToFloat(static_cast<uint16_t>(bits));
    if (!std::isnan(x)) {
      EXPECT_EQ(floatToF16(x), bits) << bits;
    }
  }
}

TEST(FormatTest, FloatArraysPadToACommonWidth) {
  EXPECT_EQ(fmt(makeF32({2, 2}, {2, 6, 12, 20})), "[[ 2.  6.]\n [12. 20.]]");
  EXPECT_EQ(fmt(makeF32({2}, {1.5f, 2.25f})), "[1.5  2.25]");
  EXPECT_EQ(fmt(makeF32({2}, {-1.5f, 2})), "[-1.5  2. ]");
  EXPECT_EQ(fmt(makeF32({1, 1}, {4})), "[[4.]]");
}

TEST(FormatTest, ScientificNotationWhenTheRangeIsWide) {
  EXPECT_EQ(fmt(makeF32({2}, {1e20f, 2e20f})), "[1.e+20 2.e+20]");
  EXPECT_EQ(fmt(makeF32({2}, {1e-5f, 1})), "[1.e-05 1.e+00]");
  EXPECT_EQ(fmt(makeF32({2}, {123456789.0f, 1})),
            "[1.2345679e+08 1.0000000e+00]");
}

TEST(FormatTest, ScientificPaddingUsesTheExactDigits) {
  // numpy: print(np.array([-876998976, -6.3219372e+07], np.float32)):
  // 876998976's shortest digits are 8.76999, padded to 7 with its own
  // digits (98), not zeros.
  EXPECT_EQ(fmt(makeF32({2}, {-876998976.0f, -6.3219372e+07f})),
            "[-8.7699898e+08 -6.3219372e+07]");
}

TEST(FormatTest, NonFiniteValues) {
  float inf = std::numeric_limits<float>::infinity();
  EXPECT_EQ(fmt(makeF32({3}, {1, std::nanf(""), -inf})), "[  1.  nan -inf]");
}

TEST(FormatTest, LongRowsWrapAt75Columns) {
  std::vector<float> v;
  for (int i = 0; i < 30; ++i)
    v.push_back(static_cast<float>(i) * 1.1f);
  // numpy: print(np.arange(30, dtype=np.float32) * 1.1)
  EXPECT_EQ(
      fmt(makeF32({30}, v)),
      "[ 0.         1.1        2.2        3.3000002  4.4        5.5\n"
      "  6.6000004  7.7000003  8.8        9.900001  11.        12.1\n"
      " 13.200001  14.3       15.400001  16.5       17.6       18.7\n"
      " 19.800001  20.9       22.        23.1       24.2       25.300001\n"
      " 26.400002  27.5       28.6       29.7       30.800001  31.900002 "
      "]");
}

TEST(FormatTest, LargeArraysAreSummarized) {
  std::vector<float> v(2000);
  for (int i = 0; i < 2000; ++i)
    v[i] = static_cast<float>(i);
  EXPECT_EQ(fmt(makeF32({2, 1000}, v)),
            "[[0.000e+00 1.000e+00 2.000e+00 ... 9.970e+02 9.980e+02 "
            "9.990e+02]\n [1.000e+03 1.001e+03 1.002e+03 ... 1.997e+03 "
            "1.998e+03 1.999e+03]]");
}

TEST(FormatTest, IntegersAndBooleans) {
  Tensor i(DType::I64, {2, 2});
  int64_t iv[] = {1, -20, 3, 4};
  std::copy(iv, iv + 4, i.data<int64_t>());
  EXPECT_EQ(fmt(i), "[[  1 -20]\n [  3   4]]");
  Tensor b(DType::Bool, {2});
  b.data<uint8_t>()[0] = 1;
  EXPECT_EQ(fmt(b), "[ True False]");
  Tensor s(DType::Bool, {});
  s.data<uint8_t>()[0] = 1;
  EXPECT_EQ(fmt(s), "True");
}

TEST(FormatTest, EmptyArrays) {
  EXPECT_EQ(fmt(Tensor(DType::F32, {0, 3})), "[]");
}

} // namespace
