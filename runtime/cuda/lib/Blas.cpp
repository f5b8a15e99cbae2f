//===- Blas.cpp - matmul on cuBLAS ----------------------------------------===//
//
// C += A @ B (linalg.matmul's semantics), or C = A @ B for the products whose
// zero fill of C the compiler dropped (the *_overwrite entry points, beta =
// 0), on row-major device matrices with unit inner stride.
// cuBLAS is column-major, so the row-major product C = A B is computed as
// the column-major C^T = B^T A^T, which reads the same memory. Every
// product goes through cuBLAS's gemm entry points, whose kernel choice is
// PyTorch's too: for a 4096x4096 f32 product it runs an xmma kernel in
// 2.65 ms on an H100, where cuBLASLt's heuristics ranked first a CUTLASS
// SIMT kernel of 2.8-3.0 ms. f32 math stays f32 (cuBLAS's default math
// mode does not use TF32) unless the program was built with --allow-tf32.
//
//===----------------------------------------------------------------------===//

#include "Device.h"
#include "tflrt/CudaApi.h"

#include <cublas_v2.h>

#include <string>
#include <utility>

namespace {

using tflrt::cuda::descOf;
using tflrt::cuda::fail;

cublasHandle_t handle() {
  static cublasHandle_t h = nullptr;
  if (!h) {
    cudaStream_t s = tflrt::cuda::rawStream();
    if (cublasCreate(&h) != CUBLAS_STATUS_SUCCESS)
      fail("cannot initialize cuBLAS");
    cublasSetStream(h, s);
    // A workspace of its own, set once: cuBLAS then allocates nothing
    // while a loop step is captured as a CUDA graph (Graphs.cpp). 32 MiB
    // is what cuBLAS recommends for Hopper.
    const size_t workspaceBytes = size_t(32) << 20;
    if (cublasSetWorkspace(h, tflrt::cuda::allocate(workspaceBytes),
                           workspaceBytes) != CUBLAS_STATUS_SUCCESS)
      fail("cannot initialize cuBLAS's workspace");
    cublasSetMathMode(h, tflrt_cuda_tf32_allowed() ? CUBLAS_TF32_TENSOR_OP_MATH
                                                   : CUBLAS_DEFAULT_MATH);
  }
  return h;
}

} // namespace

void tflrt::cuda::startCublas() { handle(); }

namespace {

void checkBlas(cublasStatus_t status, const char *what) {
  if (status != CUBLAS_STATUS_SUCCESS)
    fail(std::string(what) +
         " failed on cuBLAS: " + cublasGetStatusString(status));
}

/// One (batched) product's geometry from the descriptors; `lead` is the
/// number of batch dims (0 or 1).
struct Product {
  int64_t m, n, k, batch = 1;
  int64_t lda, ldb, ldc;
  int64_t strideA = 0, strideB = 0, strideC = 0;
  char *a, *b, *c;
};

Product describe(int64_t lead, void *a, void *b, void *c, size_t elemSize) {
  auto *da = descOf(a), *db = descOf(b), *dc = descOf(c);
  int64_t rank = lead + 2;
  Product p;
  p.m = da->dims[lead];
  p.k = da->dims[lead + 1];
  p.n = db->dims[lead + 1];
  p.lda = da->dims[rank + lead];
  p.ldb = db->dims[rank + lead];
  p.ldc = dc->dims[rank + lead];
  if (lead) {
    p.batch = da->dims[0];
    p.strideA = da->dims[rank];
    p.strideB = db->dims[rank];
    p.strideC = dc->dims[rank];
  }
  p.a = da->aligned + da->offset * elemSize;
  p.b = db->aligned + db->offset * elemSize;
  p.c = dc->aligned + dc->offset * elemSize;
  // cuBLAS wants leading dims of at least the row length, even for one row.
  auto fix = [](int64_t &ld, int64_t cols) {
    if (ld < cols)
      ld = cols > 0 ? cols : 1;
  };
  fix(p.lda, p.k);
  fix(p.ldb, p.n);
  fix(p.ldc, p.n);
  return p;
}

template <typename T, typename Gemm, typename BatchedGemm>
void gemm(int64_t lead, void *a, void *b, void *c, T beta, Gemm fn,
          BatchedGemm batched) {
  Product p = describe(lead, a, b, c, sizeof(T));
  if (p.m == 0 || p.n == 0 || p.batch == 0 || (p.k == 0 && beta != 0))
    return; // C += nothing (an empty C = nothing is zeros: cuBLAS below)
  handle(); // created before any step records (its workspace, its stream)
  std::string key = tflrt::cuda::Key()
                        .add(reinterpret_cast<const void *>(fn))
                        .add(p)
                        .add(beta)
                        .str();
  tflrt::cuda::libraryCall(std::move(key), [p, beta, fn, batched] {
    const T one = 1;
    const T *pa = reinterpret_cast<const T *>(p.a);
    const T *pb = reinterpret_cast<const T *>(p.b);
    T *pc = reinterpret_cast<T *>(p.c);
    if (p.batch == 1)
      checkBlas(fn(handle(), CUBLAS_OP_N, CUBLAS_OP_N, p.n, p.m, p.k, &one, pb,
                   p.ldb, pa, p.lda, &beta, pc, p.ldc),
                "matmul");
    else
      checkBlas(batched(handle(), CUBLAS_OP_N, CUBLAS_OP_N, p.n, p.m, p.k, &one,
                        pb, p.ldb, p.strideB, pa, p.lda, p.strideA, &beta, pc,
                        p.ldc, p.strideC, p.batch),
                "batched matmul");
  });
}

} // namespace

extern "C" {

// C += A B, and C = A B (the products whose zero fill was dropped).
#define TFLRT_CUDA_MATMUL(NAME, T, LEAD, BETA, GEMM, BATCHED)                  \
  void tflrt_cuda_##NAME(int64_t, void *a, int64_t, void *b, int64_t,          \
                         void *c) {                                            \
    gemm<T>(LEAD, a, b, c, T(BETA), GEMM, BATCHED);                            \
  }
#define TFLRT_CUDA_MATMULS(SUFFIX, T, S)                                       \
  TFLRT_CUDA_MATMUL(matmul_##SUFFIX, T, 0, 1, cublas##S##gemm,                 \
                    cublas##S##gemmStridedBatched)                             \
  TFLRT_CUDA_MATMUL(matmul_overwrite_##SUFFIX, T, 0, 0, cublas##S##gemm,       \
                    cublas##S##gemmStridedBatched)                             \
  TFLRT_CUDA_MATMUL(batch_matmul_##SUFFIX, T, 1, 1, cublas##S##gemm,           \
                    cublas##S##gemmStridedBatched)                             \
  TFLRT_CUDA_MATMUL(batch_matmul_overwrite_##SUFFIX, T, 1, 0, cublas##S##gemm, \
                    cublas##S##gemmStridedBatched)
TFLRT_CUDA_MATMULS(f32, float, S)
TFLRT_CUDA_MATMULS(f64, double, D)
#undef TFLRT_CUDA_MATMULS
#undef TFLRT_CUDA_MATMUL

} // extern "C"
