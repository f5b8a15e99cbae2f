//===- KernelsTest.cpp - libtflrt kernels ---------------------------------===//

#include "tflrt/Kernels.h"
#include "tflrt/Parallel.h"

#include "IsaVariants.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

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

/// A [2, 3, 100, 70] walk's element (i, j, k, l) read through `strides`.
int64_t offsetOf(const Shape &strides, int64_t i, int64_t j, int64_t k,
                 int64_t l) {
  return i * strides[0] + j * strides[1] + k * strides[2] + l * strides[3];
}

Tensor iota(DType dtype, const Shape &shape) {
  Tensor t(dtype, shape);
  for (int64_t i = 0; i < t.numElements(); ++i) {
    if (dtype == DType::F32)
      t.data<float>()[i] = static_cast<float>((i * 37) % 1001) * 0.25f;
    else
      t.data<uint8_t>()[i] = static_cast<uint8_t>((i * 7) % 3 == 0);
  }
  return t;
}

// Large enough for the elementwise kernels to split among the cores and
// for their dims to merge: every pair of these shapes that broadcasts to
// [2, 3, 100, 70] against an element-by-element loop.
TEST(KernelsTest, ElementwiseKernelsMatchALoopOnEveryBroadcast) {
  const Shape out{2, 3, 100, 70};
  const std::vector<Shape> shapes = {
      {2, 3, 100, 70}, {70},           {100, 1}, {3, 1, 1},
      {2, 1, 100, 70}, {1, 3, 100, 1}, {},       {2, 3, 1, 70}};
  for (const Shape &sa : shapes) {
    for (const Shape &sb : shapes) {
      if (*broadcastShapes(sa, sb) != out)
        continue;
      Tensor a = iota(DType::F32, sa), b = iota(DType::F32, sb);
      Tensor mask = iota(DType::Bool, sb);
      Tensor c = binary(BinaryKind::Sub, a, b);
      Tensor w = where(mask, b, a);
      ASSERT_EQ(c.shape(), out);
      auto strides = [&](const Shape &s) {
        Shape st(4, 0), contiguous = contiguousStrides(s);
        for (size_t d = 0; d < s.size(); ++d)
          st[4 - s.size() + d] = s[d] == 1 ? 0 : contiguous[d];
        return st;
      };
      Shape ta = strides(sa), tb = strides(sb);
      int64_t n = 0;
      for (int64_t i = 0; i < 2; ++i)
        for (int64_t j = 0; j < 3; ++j)
          for (int64_t k = 0; k < 100; ++k)
            for (int64_t l = 0; l < 70; ++l, ++n) {
              float x = a.data<float>()[offsetOf(ta, i, j, k, l)];
              float y = b.data<float>()[offsetOf(tb, i, j, k, l)];
              uint8_t m = mask.data<uint8_t>()[offsetOf(tb, i, j, k, l)];
              ASSERT_EQ(c.data<float>()[n], x - y);
              ASSERT_EQ(w.data<float>()[n], m ? y : x);
            }
    }
  }
}

TEST(KernelsTest, TransposeAndReduceMatchALoop) {
  Tensor a = iota(DType::F32, {2, 3, 100, 70});
  Tensor t = transpose(a, {0, 2, 3, 1});
  ASSERT_EQ(t.shape(), (Shape{2, 100, 70, 3}));
  Shape st = contiguousStrides(a.shape());
  int64_t n = 0;
  for (int64_t i = 0; i < 2; ++i)
    for (int64_t k = 0; k < 100; ++k)
      for (int64_t l = 0; l < 70; ++l)
        for (int64_t j = 0; j < 3; ++j, ++n)
          ASSERT_EQ(t.data<float>()[n],
                    a.data<float>()[offsetOf(st, i, j, k, l)]);
  // The innermost axes (each output a contiguous run, split among the
  // cores), the outermost ones (a column per output, the columns split),
  // and a middle one; sums in double, in index order.
  for (const std::vector<int64_t> &axes :
       {std::vector<int64_t>{3}, {2, 3}, {1}, {0}, {0, 1}}) {
    Tensor sum = reduce(ReduceKind::Sum, a, axes, false);
    Tensor max = reduce(ReduceKind::Max, a, axes, true);
    std::vector<double> want(sum.numElements(), 0.0);
    std::vector<float> most(sum.numElements(), -INFINITY);
    for (int64_t i = 0; i < 2; ++i)
      for (int64_t j = 0; j < 3; ++j)
        for (int64_t k = 0; k < 100; ++k)
          for (int64_t l = 0; l < 70; ++l) {
            int64_t o =
                axes == std::vector<int64_t>{2, 3} ? i * 3 + j
                : axes == std::vector<int64_t>{3}  ? (i * 3 + j) * 100 + k
                : axes == std::vector<int64_t>{1}  ? (i * 100 + k) * 70 + l
                : axes == std::vector<int64_t>{0}  ? (j * 100 + k) * 70 + l
                                                   : k * 70 + l;
            float x = a.data<float>()[offsetOf(st, i, j, k, l)];
            want[o] += x;
            most[o] = std::max(most[o], x);
          }
    for (int64_t o = 0; o < sum.numElements(); ++o) {
      ASSERT_EQ(sum.data<float>()[o], static_cast<float>(want[o]));
      ASSERT_EQ(max.data<float>()[o], most[o]);
    }
  }
}

// A slice's gradient puts a's elements at the slice's places (starts and
// steps, here along every dim of [2, 3, 100, 70]), zeros elsewhere; and
// exp far below its range is libm's +0.
TEST(KernelsTest, EmbedSliceAndExpMatchALoop) {
  Tensor a = iota(DType::F32, {2, 2, 40, 23});
  const Shape shape{2, 3, 100, 70};
  const std::vector<int64_t> starts{0, 1, 3, 2}, steps{1, 1, 2, 3};
  Tensor e = embedSlice(a, shape, starts, steps);
  std::vector<float> want(numElements(shape), 0.0f);
  Shape st = contiguousStrides(shape);
  int64_t n = 0;
  for (int64_t i = 0; i < 2; ++i)
    for (int64_t j = 0; j < 2; ++j)
      for (int64_t k = 0; k < 40; ++k)
        for (int64_t l = 0; l < 23; ++l, ++n)
          want[offsetOf(st, i + starts[0], j + starts[1],
                        starts[2] + k * steps[2], starts[3] + l * steps[3])] =
              a.data<float>()[n];
  for (int64_t m = 0; m < e.numElements(); ++m)
    ASSERT_EQ(e.data<float>()[m], want[m]);
}

/// Ulps between two floats of one sign (0 if equal, NaNs equal).
int64_t ulpsBetween(float a, float b) {
  if (std::isnan(a) && std::isnan(b))
    return 0;
  if (a == b)
    return 0;
  if (std::isinf(a) || std::isinf(b) || std::signbit(a) != std::signbit(b))
    return INT64_MAX;
  int32_t ia, ib;
  std::memcpy(&ia, &a, 4);
  std::memcpy(&ib, &b, 4);
  return std::abs(int64_t(ia) - int64_t(ib));
}

/// exp, erf and sigmoid of f32 (VectorMath's kernels) against libm in
/// double, rounded once, in each ISA's build this CPU runs: every 211th float
/// of each sign up to 105 (beyond, exp is 0 or inf and erf is 1 in f32), about
/// 1e7 values, and the specials, in a tensor whose size is not a whole number
/// of vectors.
TEST(KernelsTest, VectorMathIsWithinAnUlpOfLibm) {
  std::vector<float> xs = {
      0.0f,    -0.0f,  INFINITY,  -INFINITY, NAN,        -NAN,     1e-45f,
      -1e-45f, 1e-38f, 88.72283f, 88.7229f,  -87.33654f, -103.97f, -103.98f,
      -104.5f, -1e30f, 3.9192f,   -3.9192f,  1.0f,       -1.0f,    0.999999f,
      4.0f,    4.1f,   1e30f,     -1e30f,    3e38f};
  for (uint32_t bits = 0; bits < 0x42d20000u; bits += 211)
    for (uint32_t sign : {0u, 0x80000000u}) {
      uint32_t b = bits | sign;
      float x;
      std::memcpy(&x, &b, 4);
      xs.push_back(x);
    }
  while (xs.size() % 8 != 5) // a tail
    xs.push_back(0.5f * static_cast<float>(xs.size() % 8));
  Tensor x(DType::F32, {static_cast<int64_t>(xs.size())});
  std::copy(xs.begin(), xs.end(), x.data<float>());
  struct Case {
    UnaryKind kind;
    double (*ref)(double);
  };
  const Case cases[] = {
      {UnaryKind::Exp, [](double v) { return std::exp(v); }},
      {UnaryKind::Erf, [](double v) { return std::erf(v); }},
      {UnaryKind::Sigmoid,
       [](double v) {
         // The compiled formula in f32, with e^-x rounded once.
         float e = static_cast<float>(std::exp(-v));
         return double(1.0f / (1.0f + e));
       }},
  };
  forEachIsa([&] {
    for (const Case &c : cases) {
      Tensor y = unary(c.kind, x);
      for (size_t i = 0; i < xs.size(); ++i) {
        float want = static_cast<float>(c.ref(xs[i]));
        int64_t u = ulpsBetween(y.data<float>()[i], want);
        ASSERT_LE(u, 1) << "kind " << static_cast<int>(c.kind) << " of "
                        << xs[i] << ": " << y.data<float>()[i] << ", want "
                        << want;
        if (xs[i] == 0.0f && c.kind == UnaryKind::Erf) {
          EXPECT_EQ(std::signbit(y.data<float>()[i]), std::signbit(xs[i]));
        }
      }
    }
  });
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

TEST(KernelsTest, BatchedMatmulMatchesALoopPerProduct) {
  // Batches that share out evenly among the threads (each product on one)
  // and one that does not (one product at a time), above and below the
  // size that goes to the library, in f32 and as integers; with errors
  // from a product rethrown on the caller's thread.
  for (int64_t batch : {1, 3, 4, 16})
    for (int64_t size : {3, 40}) {
      int64_t m = size, k = size + 1, n = size + 2;
      Tensor a(DType::F32, {batch, m, k}), b(DType::F32, {batch, k, n});
      for (int64_t i = 0; i < a.numElements(); ++i)
        a.data<float>()[i] = static_cast<float>((i * 7) % 11) - 5;
      for (int64_t i = 0; i < b.numElements(); ++i)
        b.data<float>()[i] = static_cast<float>((i * 5) % 13) - 6;
      for (DType dtype : {DType::F32, DType::I64}) {
        Tensor c = cast(matmul(cast(a, dtype), cast(b, dtype)), DType::F32);
        ASSERT_EQ(c.shape(), (Shape{batch, m, n}));
        for (int64_t p = 0; p < batch; ++p)
          for (int64_t i = 0; i < m; ++i)
            for (int64_t j = 0; j < n; ++j) {
              float sum = 0; // small integers: exact in any order
              for (int64_t l = 0; l < k; ++l)
                sum += a.data<float>()[(p * m + i) * k + l] *
                       b.data<float>()[(p * k + l) * n + j];
              ASSERT_EQ(c.data<float>()[(p * m + i) * n + j], sum)
                  << "batch " << batch << ", product " << p;
            }
      }
    }
  EXPECT_THROW(forEachProduct(
                   8,
                   [](int64_t i) {
                     if (i == 5)
                       throw std::runtime_error("product 5");
                   },
                   nullptr),
               std::runtime_error);
}

TEST(KernelsTest, MatmulReadsTransposedOperandsInPlace) {
  // op(A) @ op(B) with each operand stored as its transpose or not, 2-D
  // and batched, f32, f64 and integers, above and below the size that
  // goes to the library, against the product of materialized transposes.
  for (int64_t batch : {0, 3})
    for (int64_t size : {3, 40}) {
      int64_t m = size, k = size + 1, n = size + 2;
      auto operand = [&](int64_t rows, int64_t cols, int64_t seed) {
        Shape shape = batch ? Shape{batch, rows, cols} : Shape{rows, cols};
        Tensor t(DType::F32, shape);
        for (int64_t i = 0; i < t.numElements(); ++i)
          t.data<float>()[i] = static_cast<float>((i * seed) % 11) - 5;
        return t;
      };
      std::vector<int64_t> swap =
          batch ? std::vector<int64_t>{0, 2, 1} : std::vector<int64_t>{1, 0};
      for (bool transA : {false, true})
        for (bool transB : {false, true}) {
          Tensor a = transA ? operand(k, m, 7) : operand(m, k, 7);
          Tensor b = transB ? operand(n, k, 5) : operand(k, n, 5);
          for (DType dtype : {DType::F32, DType::F64, DType::I64}) {
            Tensor ta = cast(a, dtype), tb = cast(b, dtype);
            Tensor want = cast(matmul(transA ? transpose(ta, swap) : ta,
                                      transB ? transpose(tb, swap) : tb),
                               DType::F32);
            Tensor got = cast(matmul(ta, tb, transA, transB), DType::F32);
            ASSERT_EQ(got.shape(), want.shape());
            for (int64_t i = 0; i < got.numElements(); ++i)
              ASSERT_EQ(got.data<float>()[i], want.data<float>()[i])
                  << "transA " << transA << ", transB " << transB << ", size "
                  << size << ", batch " << batch;
          }
        }
    }
  // The inner dims of op(A) and op(B) must agree.
  Tensor a(DType::F32, {2, 3}), b(DType::F32, {2, 3});
  EXPECT_THROW(matmul(a, b), std::runtime_error);
  EXPECT_NO_THROW(matmul(a, b, true, false));
  EXPECT_NO_THROW(matmul(a, b, false, true));
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
