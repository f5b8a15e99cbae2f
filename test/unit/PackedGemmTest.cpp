//===- PackedGemmTest.cpp - TFL's own AVX2 GEMM ---------------------------===//

#include "PackedGemm.h"

#include "tflrt/Kernels.h"

#include "IsaVariants.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

extern "C" void omp_set_num_threads(int);
extern "C" int omp_get_max_threads(void);

using namespace tflrt;

namespace {

/// Numbers in [-1, 1) from a fixed sequence.
std::vector<float> numbers(int64_t count, uint32_t seed) {
  std::vector<float> v(count);
  for (float &x : v) {
    seed = seed * 1664525u + 1013904223u;
    x = static_cast<float>(seed >> 8) / float(1 << 23) - 1.0f;
  }
  return v;
}

/// One product's operands, stored with leading dims `pad` floats longer
/// than their rows, and c's starting values.
struct Problem {
  int64_t m, n, k, lda, ldb, ldc;
  bool transA, transB;
  std::vector<float> a, b, c0;
  Problem(int64_t m, int64_t n, int64_t k, bool transA, bool transB,
          int64_t pad)
      : m(m), n(n), k(k), transA(transA), transB(transB) {
    lda = (transA ? m : k) + pad;
    ldb = (transB ? k : n) + pad;
    ldc = n + pad;
    a = numbers((transA ? k : m) * lda, 1);
    b = numbers((transB ? n : k) * ldb, 2);
    c0 = numbers(m * ldc, 3);
  }
  float opA(int64_t i, int64_t p) const {
    return transA ? a[p * lda + i] : a[i * lda + p];
  }
  float opB(int64_t p, int64_t j) const {
    return transB ? b[j * ldb + p] : b[p * ldb + j];
  }
  std::vector<float> packed(bool accumulate) const {
    std::vector<float> c = c0;
    packedProduct(a.data(), b.data(), c.data(), m, n, k, lda, ldb, ldc,
                  accumulate, transA, transB);
    return c;
  }
};

TEST(PackedGemmTest, MatchesTheDefinitionInEveryForm) {
  if (cpuIsa() < Isa::Avx2)
    GTEST_SKIP() << "the kernel is AVX2's";
  // Whole tiles and blocks, edges of every size (rows past a multiple of
  // 6, columns past 16, a sum past a block of 256), a c narrower than a
  // tile, several blocks of rows and columns, padded leading dims; c
  // overwritten and added to.
  struct Size {
    int64_t m, n, k;
  };
  for (Size s :
       {Size{1, 1, 1}, Size{6, 16, 256}, Size{5, 17, 3}, Size{7, 33, 257},
        Size{130, 70, 600}, Size{13, 300, 1030}, Size{200, 2100, 40}})
    for (bool transA : {false, true})
      for (bool transB : {false, true})
        for (int64_t pad : {0, 3})
          for (bool accumulate : {false, true}) {
            Problem p(s.m, s.n, s.k, transA, transB, pad);
            std::vector<float> c = p.packed(accumulate);
            for (int64_t i = 0; i < s.m; ++i)
              for (int64_t j = 0; j < p.ldc; ++j) {
                float got = c[i * p.ldc + j];
                if (j >= s.n) { // past c's row: untouched
                  ASSERT_EQ(got, p.c0[i * p.ldc + j]);
                  continue;
                }
                double want = accumulate ? p.c0[i * p.ldc + j] : 0.0, size = 0;
                for (int64_t l = 0; l < s.k; ++l) {
                  double term = double(p.opA(i, l)) * p.opB(l, j);
                  want += term;
                  size += std::fabs(term);
                }
                ASSERT_NEAR(got, want, 1e-6 * (size + 1))
                    << s.m << "x" << s.n << "x" << s.k << " transA " << transA
                    << " transB " << transB << " pad " << pad << " accumulate "
                    << accumulate << " at (" << i << ", " << j << ")";
              }
          }
}

TEST(PackedGemmTest, RoundsTheSameOnAnyThreadCount) {
  if (cpuIsa() < Isa::Avx2)
    GTEST_SKIP() << "the kernel is AVX2's";
  // c cut by rows (taller than wide) and by columns (wider).
  int saved = omp_get_max_threads();
  for (bool tall : {true, false}) {
    Problem p(tall ? 301 : 40, tall ? 40 : 301, 700, true, false, 0);
    omp_set_num_threads(1);
    std::vector<float> one = p.packed(false);
    for (int threads : {2, 3, 5}) {
      omp_set_num_threads(threads);
      EXPECT_EQ(p.packed(false), one) << threads << " threads";
    }
  }
  omp_set_num_threads(saved);
}

TEST(PackedGemmTest, MatmulRunsItForTransposedLeftOperandsOnAvx2) {
  // The rule: AVX2, a transposed, b untransposed with rows a multiple of
  // 128 floats, 32,768 outputs or more.
  Isa saved = kernelIsa();
  if (cpuIsa() >= Isa::Avx2) {
    setKernelIsa(Isa::Avx2);
    EXPECT_TRUE(takesPackedProduct(128, 256, 1024, 256, true, false));
    EXPECT_TRUE(takesPackedProduct(512, 128, 64, 384, true, false));
    EXPECT_FALSE(takesPackedProduct(128, 128, 1024, 128, true, false));
    EXPECT_FALSE(takesPackedProduct(128, 1000, 1024, 1000, true, false));
    EXPECT_FALSE(takesPackedProduct(512, 512, 512, 512, false, false));
    EXPECT_FALSE(takesPackedProduct(512, 512, 512, 512, true, true));
    // matmulF32 gives the kernel's numbers bit for bit, where oneDNN's
    // sums round otherwise.
    Problem p(128, 256, 1000, true, false, 0);
    std::vector<float> c = p.c0;
    matmulF32(p.a.data(), p.b.data(), c.data(), p.m, p.n, p.k, p.lda, p.ldb,
              p.ldc, true, true, false);
    EXPECT_EQ(c, p.packed(true));
  }
  for (Isa isa : {Isa::Baseline, Isa::Avx512})
    if (isa <= cpuIsa()) {
      setKernelIsa(isa);
      EXPECT_FALSE(takesPackedProduct(128, 256, 1024, 256, true, false));
    }
  setKernelIsa(saved);
}

TEST(PackedGemmTest, TheReasonNamesTheRulesFirstUnmetCondition) {
  // TFL_REPORT_KERNELS's reason: why the rule holds, or the first of its
  // conditions a product fails (the form before the ISA: a product of
  // another form is not the packed kernel's on any ISA).
  forEachIsa([] {
    auto reason = [](int64_t m, int64_t n, int64_t ldb, bool transA,
                     bool transB) {
      return packedProductReason(m, n, 1024, ldb, transA, transB);
    };
    EXPECT_EQ(reason(512, 512, 512, false, false),
              "not a^T b: oneDNN's sgemm runs that form at full speed");
    EXPECT_EQ(reason(512, 512, 512, true, true),
              "not a^T b: oneDNN's sgemm runs that form at full speed");
    std::string taken = reason(128, 256, 256, true, false);
    EXPECT_EQ(takesPackedProduct(128, 256, 1024, 256, true, false),
              taken.rfind("AVX2, a^T b", 0) == 0)
        << taken;
    if (kernelIsa() == Isa::Avx2) {
      EXPECT_EQ(taken, "AVX2, a^T b with b's rows 256 floats apart, a "
                       "multiple of 128, and 32768 outputs: oneDNN's sgemm "
                       "is slow there");
      EXPECT_EQ(reason(128, 1000, 1000, true, false),
                "b's rows 1000 floats apart, not a multiple of 128: "
                "oneDNN's sgemm runs it at full speed");
      EXPECT_EQ(reason(128, 128, 128, true, false),
                "16384 outputs, fewer than 32768: packing would cost what "
                "TFL's kernel saves");
    } else {
      EXPECT_EQ(taken, kernelIsa() == Isa::Avx512
                           ? "AVX-512: oneDNN's sgemm runs a^T b at full "
                             "speed there"
                           : "kernels for the baseline ISA: TFL's packed "
                             "kernel needs AVX2");
    }
  });
}

} // namespace
