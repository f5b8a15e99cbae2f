//===- KernelsMatmul.cpp - Products on oneDNN's and OpenBLAS's GEMMs ------===//
//
// f32 on oneDNN's sgemm (on AVX2, a weight's gradient on TFL's own packed
// kernel: PackedGemm.h), f64 on OpenBLAS's dgemm, small products (2^15
// multiply-adds or fewer) as plain loops, integers as loops. Under
// TFL_REPORT_KERNELS=1 each float product's kernel is reported with the
// rule's reason, once per form and shape.
//
//===----------------------------------------------------------------------===//

#include "tflrt/Kernels.h"
#include "tflrt/Parallel.h"

#include "KernelChoice.h"
#include "KernelLoops.h"
#include "PackedGemm.h"

#include <cblas.h>
#include <oneapi/dnnl/dnnl.h>

#include <algorithm>
#include <cstring>
#include <initializer_list>
#include <string>

namespace tflrt {

namespace {

/// The leading dimensions BLAS asks for: at least a row's length. A matrix
/// of one row may carry any stride for it (a unit dim's stride is free).
void blasLeadingDims(int64_t m, int64_t n, int64_t k, bool transA, bool transB,
                     int64_t &lda, int64_t &ldb, int64_t &ldc) {
  auto fix = [](int64_t &ld, int64_t rows, int64_t cols) {
    if (rows <= 1)
      ld = std::max<int64_t>({ld, cols, 1});
  };
  transA ? fix(lda, k, m) : fix(lda, m, k);
  transB ? fix(ldb, n, k) : fix(ldb, k, n);
  fix(ldc, m, n);
}

/// C = 0 for a product over K = 0 that overwrites C.
template <typename T>
void zeroRows(T *c, int64_t m, int64_t n, int64_t ldc, bool accumulate) {
  if (!accumulate)
    for (int64_t i = 0; i < m; ++i)
      std::memset(c + i * ldc, 0, n * sizeof(T));
}

} // namespace

/// Products of at most this many multiply-adds run as plain loops: a BLAS
/// call's fixed cost outweighs them (the seed CNN's dense layer, 32 x 16
/// by 16 x 10, and its gradients), and oneDNN's sgemm compiles its
/// kernels on its first call (28 of the 31 ms of the seed CNN's first
/// training step).
constexpr int64_t kSmallProduct = int64_t{1} << 15;

/// C (+)= op(A) op(B), row-major, as plain loops (GCC vectorizes the
/// inner one); the sums over K in order, one row of C at a time.
template <typename T>
void smallProduct(const T *a, const T *b, T *c, int64_t m, int64_t n, int64_t k,
                  int64_t lda, int64_t ldb, int64_t ldc, bool accumulate,
                  bool transA, bool transB) {
  for (int64_t i = 0; i < m; ++i) {
    T *row = c + i * ldc;
    if (!accumulate)
      std::fill(row, row + n, T(0));
    for (int64_t p = 0; p < k; ++p) {
      T aip = transA ? a[p * lda + i] : a[i * lda + p];
      if (transB)
        for (int64_t j = 0; j < n; ++j)
          row[j] += aip * b[j * ldb + p];
      else
        for (int64_t j = 0; j < n; ++j)
          row[j] += aip * b[p * ldb + j];
    }
  }
}

std::string productName(DType dtype, int64_t m, int64_t n, int64_t k,
                        bool transA, bool transB) {
  return std::string("matmul ") + dtypeName(dtype) + (transA ? " a^T" : " a") +
         (transB ? " b^T" : " b") + ", " + std::to_string(m) + "x" +
         std::to_string(n) + " over " + std::to_string(k);
}

namespace {

/// Under TFL_REPORT_KERNELS=1: the kernel a product of `dtype` runs
/// ("loops", "packed", "onednn", "openblas") and why, once per form and
/// shape.
void reportProduct(DType dtype, int64_t m, int64_t n, int64_t k, bool transA,
                   bool transB, const char *kernel, const std::string &why) {
  reportKernelChoice(productName(dtype, m, n, k, transA, transB), kernel, why);
}

/// c = a b (or c += a b), as the library's GEMM takes it, with the cases
/// both dtypes share: empty products, leading dims, small products as
/// loops; `gemm(lda, ldb, ldc)` calls the library with the leading dims.
template <typename T, typename Gemm>
void product(DType dtype, const T *a, const T *b, T *c, int64_t m, int64_t n,
             int64_t k, int64_t lda, int64_t ldb, int64_t ldc, bool accumulate,
             bool transA, bool transB, Gemm gemm) {
  if (m == 0 || n == 0)
    return;
  if (k == 0)
    return zeroRows(c, m, n, ldc, accumulate);
  blasLeadingDims(m, n, k, transA, transB, lda, ldb, ldc);
  if (m * n * k <= kSmallProduct) {
    if (reportingKernels())
      reportProduct(dtype, m, n, k, transA, transB, "loops",
                    std::to_string(m * n * k) + " multiply-adds, at most " +
                        std::to_string(kSmallProduct) +
                        ": a library call costs more");
    return smallProduct(a, b, c, m, n, k, lda, ldb, ldc, accumulate, transA,
                        transB);
  }
  gemm(lda, ldb, ldc);
}

} // namespace

void matmulF32(const float *a, const float *b, float *c, int64_t m, int64_t n,
               int64_t k, int64_t lda, int64_t ldb, int64_t ldc,
               bool accumulate, bool transA, bool transB) {
  product(DType::F32, a, b, c, m, n, k, lda, ldb, ldc, accumulate, transA,
          transB, [&](int64_t la, int64_t lb, int64_t lc) {
            bool packed = takesPackedProduct(m, n, k, lb, transA, transB);
            if (reportingKernels())
              reportProduct(DType::F32, m, n, k, transA, transB,
                            packed ? "packed" : "onednn",
                            packedProductReason(m, n, k, lb, transA, transB));
            if (packed)
              return packedProduct(a, b, c, m, n, k, la, lb, lc, accumulate,
                                   transA, transB);
            dnnl_status_t status =
                dnnl_sgemm(transA ? 'T' : 'N', transB ? 'T' : 'N', m, n, k,
                           1.0f, a, la, b, lb, accumulate ? 1.0f : 0.0f, c, lc);
            if (status != dnnl_success)
              throw std::runtime_error(
                  "matmul: oneDNN's sgemm refused a product of " +
                  std::to_string(m) + "x" + std::to_string(k) + " by " +
                  std::to_string(k) + "x" + std::to_string(n));
          });
}

void matmulF64(const double *a, const double *b, double *c, int64_t m,
               int64_t n, int64_t k, int64_t lda, int64_t ldb, int64_t ldc,
               bool accumulate, bool transA, bool transB) {
  product(DType::F64, a, b, c, m, n, k, lda, ldb, ldc, accumulate, transA,
          transB, [&](int64_t la, int64_t lb, int64_t lc) {
            if (reportingKernels())
              reportProduct(DType::F64, m, n, k, transA, transB, "openblas",
                            "f64 products run OpenBLAS's dgemm");
            cblas_dgemm(CblasRowMajor, transA ? CblasTrans : CblasNoTrans,
                        transB ? CblasTrans : CblasNoTrans, m, n, k, 1.0, a, la,
                        b, lb, accumulate ? 1.0 : 0.0, c, lc);
          });
}

namespace {

/// c = op(a) op(b) for row-major, contiguous operands of `dtype`: op(a) is
/// a (M x K), or with `transA` the transpose of a (K x M); op(b) likewise
/// (K x N, or N x K with `transB`). c (M x N) is overwritten; integers
/// sum into it, so it must be zero-filled for them.
void productInto(DType dtype, const void *a, const void *b, void *c, int64_t m,
                 int64_t n, int64_t k, bool transA, bool transB) {
  int64_t lda = transA ? m : k, ldb = transB ? k : n;
  switch (dtype) {
  case DType::F32:
    return matmulF32(static_cast<const float *>(a),
                     static_cast<const float *>(b), static_cast<float *>(c), m,
                     n, k, lda, ldb, n, false, transA, transB);
  case DType::F64:
    return matmulF64(static_cast<const double *>(a),
                     static_cast<const double *>(b), static_cast<double *>(c),
                     m, n, k, lda, ldb, n, false, transA, transB);
  default:
    break;
  }
  dispatchNumeric(dtype, [&](auto tag) {
    using T = decltype(tag);
    const T *pa = static_cast<const T *>(a), *pb = static_cast<const T *>(b);
    T *pc = static_cast<T *>(c);
    for (int64_t i = 0; i < m; ++i)
      for (int64_t p = 0; p < k; ++p) {
        T x = transA ? pa[p * lda + i] : pa[i * lda + p];
        for (int64_t j = 0; j < n; ++j)
          pc[i * n + j] = T(pc[i * n + j] +
                            x * (transB ? pb[j * ldb + p] : pb[p * ldb + j]));
      }
  });
}

} // namespace

Tensor matmul(const Tensor &a, const Tensor &b, bool transA, bool transB) {
  bool batched = a.rank() == 3 && b.rank() == 3 && a.shape()[0] == b.shape()[0];
  size_t r = batched ? 1 : 0;
  // op(a) is M x K and op(b) K x N (transposed operands are stored as
  // their transposes).
  auto rows = [&](const Tensor &t, bool trans) {
    return t.shape()[trans ? r + 1 : r];
  };
  auto cols = [&](const Tensor &t, bool trans) {
    return t.shape()[trans ? r : r + 1];
  };
  if ((!batched && (a.rank() != 2 || b.rank() != 2)) ||
      cols(a, transA) != rows(b, transB))
    throw std::runtime_error("matmul of shapes " + shapeToString(a.shape()) +
                             (transA ? " (transposed)" : "") + " and " +
                             shapeToString(b.shape()) +
                             (transB ? " (transposed)" : ""));
  int64_t batch = batched ? a.shape()[0] : 1;
  int64_t m = rows(a, transA), k = cols(a, transA), n = cols(b, transB);
  Shape shape = batched ? Shape{batch, m, n} : Shape{m, n};
  // Floats overwrite c (no zero fill); integers sum into it.
  bool floats = a.dtype() == DType::F32 || a.dtype() == DType::F64;
  Tensor c = floats ? Tensor::uninitialized(a.dtype(), shape)
                    : Tensor(a.dtype(), shape);
  size_t elem = dtypeSize(a.dtype());
  auto *pa = static_cast<const char *>(a.data());
  auto *pb = static_cast<const char *>(b.data());
  auto *pc = static_cast<char *>(c.data());
  // A batch: one product per leading index, each on one thread when the
  // batch shares out evenly among them.
  forEachProduct(
      batch,
      [&](int64_t i) {
        productInto(a.dtype(), pa + i * m * k * elem, pb + i * k * n * elem,
                    pc + i * m * n * elem, m, n, k, transA, transB);
      },
      [&] { return productName(a.dtype(), m, n, k, transA, transB); });
  return c;
}

} // namespace tflrt
