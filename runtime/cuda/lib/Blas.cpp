//===- Blas.cpp - matmul on cuBLAS ----------------------------------------===//
//
// C += op(A) @ op(B) (linalg.matmul's semantics), or C = op(A) @ op(B) for
// the products whose zero fill of C the compiler dropped (beta = 0), on
// row-major device matrices with unit inner stride, op(X) being X or, with
// its flag (TFLRT_GEMM_TRANSPOSE_A/B, as libtflrt's tflrt_gemm_X takes
// them), the transpose of the stored matrix: the pullbacks' dA = dC B^T and
// dB = A^T dC read B and A where they are.
// cuBLAS is column-major, so the row-major product C = op(A) op(B) is
// computed as the column-major C^T = op(B)^T op(A)^T, which reads the same
// memory: a row-major matrix is its transpose in column-major order, so a
// stored operand is passed as it is (CUBLAS_OP_N), and a transposed one
// with CUBLAS_OP_T. Every
// product goes through cuBLAS's gemm entry points, whose kernel choice is
// PyTorch's too: for a 4096x4096 f32 product it runs an xmma kernel in
// 2.65 ms on an H100, where cuBLASLt's heuristics ranked first a CUTLASS
// SIMT kernel of 2.8-3.0 ms. f32 math stays f32 (cuBLAS's default math
// mode does not use TF32) unless the program was built with --allow-tf32.
//
//===----------------------------------------------------------------------===//

#include "Device.h"
#include "Libraries.h"
#include "tflrt/CApi.h"
#include "tflrt/CudaApi.h"

#include <cublas_v2.h>

#include <optional>
#include <string>
#include <utility>

namespace {

using tflrt::cuda::cublas;
using tflrt::cuda::descOf;
using tflrt::cuda::fail;

cublasHandle_t handle() {
  static cublasHandle_t h = nullptr;
  if (!h) {
    cudaStream_t s = tflrt::cuda::rawStream();
    if (cublas().cublasCreate(&h) != CUBLAS_STATUS_SUCCESS)
      fail("cannot initialize cuBLAS");
    cublas().cublasSetStream(h, s);
    // A workspace of its own, set once: cuBLAS then allocates nothing
    // while a loop step is captured as a CUDA graph (Graphs.cpp). 32 MiB
    // is what cuBLAS recommends for Hopper.
    const size_t workspaceBytes = size_t(32) << 20;
    if (cublas().cublasSetWorkspace(h, tflrt::cuda::allocate(workspaceBytes),
                                    workspaceBytes) != CUBLAS_STATUS_SUCCESS)
      fail("cannot initialize cuBLAS's workspace");
    cublas().cublasSetMathMode(h, tflrt_cuda_tf32_allowed()
                                      ? CUBLAS_TF32_TENSOR_OP_MATH
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
         " failed on cuBLAS: " + cublas().cublasGetStatusString(status));
}

/// One (batched) product's geometry from the descriptors and flags; `lead`
/// is the number of batch dims (0 or 1).
struct Product {
  int64_t m, n, k, batch = 1;
  int64_t lda, ldb, ldc;
  int64_t strideA = 0, strideB = 0, strideC = 0;
  int64_t transA, transB; // (64-bit: no padding in Key's bytes)
  char *a, *b, *c;
};

Product describe(int64_t flags, int64_t lead, void *a, void *b, void *c,
                 size_t elemSize) {
  auto *da = descOf(a), *db = descOf(b), *dc = descOf(c);
  int64_t rank = lead + 2;
  Product p;
  p.transA = (flags & TFLRT_GEMM_TRANSPOSE_A) != 0;
  p.transB = (flags & TFLRT_GEMM_TRANSPOSE_B) != 0;
  // C is M x N; A is stored M x K (K x M transposed), B K x N (N x K).
  p.m = dc->dims[lead];
  p.n = dc->dims[lead + 1];
  p.k = da->dims[lead + (p.transA ? 0 : 1)];
  p.lda = da->dims[rank + lead];
  p.ldb = db->dims[rank + lead];
  p.ldc = dc->dims[rank + lead];
  if (lead) {
    p.batch = dc->dims[0];
    p.strideA = da->dims[rank];
    p.strideB = db->dims[rank];
    p.strideC = dc->dims[rank];
  }
  p.a = da->aligned + da->offset * elemSize;
  p.b = db->aligned + db->offset * elemSize;
  p.c = dc->aligned + dc->offset * elemSize;
  // cuBLAS wants leading dims of at least the stored row's length, even
  // for one row.
  auto fix = [](int64_t &ld, int64_t cols) {
    if (ld < cols)
      ld = cols > 0 ? cols : 1;
  };
  fix(p.lda, p.transA ? p.m : p.k);
  fix(p.ldb, p.transB ? p.k : p.n);
  fix(p.ldc, p.n);
  return p;
}

/// The product's geometry, or nothing when it has no work (C += nothing;
/// an empty C = nothing is zeros, which cuBLAS writes).
std::optional<Product> plan(int64_t flags, int64_t rankC, void *a, void *b,
                            void *c, size_t elemSize) {
  bool overwrite = flags & TFLRT_GEMM_OVERWRITE;
  Product p = describe(flags, rankC - 2, a, b, c, elemSize);
  if (p.m == 0 || p.n == 0 || p.batch == 0 || (p.k == 0 && !overwrite))
    return std::nullopt;
  handle(); // created before any step records (its workspace, its stream)
  return p;
}

cublasOperation_t opOf(int64_t transposed) {
  return transposed ? CUBLAS_OP_T : CUBLAS_OP_N;
}

/// f32 and f64: cuBLAS's typed gemm entry points (see the top).
template <typename T, typename Gemm, typename BatchedGemm>
void gemm(int64_t flags, int64_t rankC, void *a, void *b, void *c, Gemm fn,
          BatchedGemm batched) {
  const T beta = (flags & TFLRT_GEMM_OVERWRITE) ? 0 : 1;
  std::optional<Product> planned = plan(flags, rankC, a, b, c, sizeof(T));
  if (!planned)
    return;
  Product p = *planned;
  std::string key = tflrt::cuda::Key()
                        .add(reinterpret_cast<const void *>(fn))
                        .add(p)
                        .add(beta)
                        .str();
  tflrt::cuda::libraryCall(
      "cuBLAS gemm", std::move(key), [p, beta, fn, batched] {
        const T one = 1;
        const T *pa = reinterpret_cast<const T *>(p.a);
        const T *pb = reinterpret_cast<const T *>(p.b);
        T *pc = reinterpret_cast<T *>(p.c);
        if (p.batch == 1)
          checkBlas(fn(handle(), opOf(p.transB), opOf(p.transA), p.n, p.m, p.k,
                       &one, pb, p.ldb, pa, p.lda, &beta, pc, p.ldc),
                    "matmul");
        else
          checkBlas(batched(handle(), opOf(p.transB), opOf(p.transA), p.n, p.m,
                            p.k, &one, pb, p.ldb, p.strideB, pa, p.lda,
                            p.strideA, &beta, pc, p.ldc, p.strideC, p.batch),
                    "batched matmul");
      });
}

/// bf16 and f16: 16-bit operands and result on tensor cores, accumulated
/// in f32 (CUBLAS_COMPUTE_32F, f32 alpha and beta), as PyTorch's autocast
/// products are; the result is rounded once.
void gemm16(int64_t flags, int64_t rankC, void *a, void *b, void *c,
            cudaDataType type) {
  const float beta = (flags & TFLRT_GEMM_OVERWRITE) ? 0.0f : 1.0f;
  std::optional<Product> planned = plan(flags, rankC, a, b, c, 2);
  if (!planned)
    return;
  Product p = *planned;
  static const char tag = 0; // (cublasGemmEx is overloaded in C++)
  std::string key = tflrt::cuda::Key()
                        .add(static_cast<const void *>(&tag))
                        .add(static_cast<int64_t>(type))
                        .add(p)
                        .add(beta)
                        .str();
  tflrt::cuda::libraryCall(
      "cuBLAS gemm (16-bit)", std::move(key), [p, beta, type] {
        const float one = 1.0f;
        if (p.batch == 1)
          checkBlas(cublas().cublasGemmEx(
                        handle(), opOf(p.transB), opOf(p.transA), p.n, p.m, p.k,
                        &one, p.b, type, p.ldb, p.a, type, p.lda, &beta, p.c,
                        type, p.ldc, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
                    "matmul");
        else
          checkBlas(cublas().cublasGemmStridedBatchedEx(
                        handle(), opOf(p.transB), opOf(p.transA), p.n, p.m, p.k,
                        &one, p.b, type, p.ldb, p.strideB, p.a, type, p.lda,
                        p.strideA, &beta, p.c, type, p.ldc, p.strideC, p.batch,
                        CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
                    "batched matmul");
      });
}

} // namespace

extern "C" {

void tflrt_cuda_gemm_f32(int64_t flags, int64_t, void *a, int64_t, void *b,
                         int64_t rankC, void *c) {
  gemm<float>(flags, rankC, a, b, c, cublas().cublasSgemm,
              cublas().cublasSgemmStridedBatched);
}
void tflrt_cuda_gemm_f64(int64_t flags, int64_t, void *a, int64_t, void *b,
                         int64_t rankC, void *c) {
  gemm<double>(flags, rankC, a, b, c, cublas().cublasDgemm,
               cublas().cublasDgemmStridedBatched);
}
void tflrt_cuda_gemm_bf16(int64_t flags, int64_t, void *a, int64_t, void *b,
                          int64_t rankC, void *c) {
  gemm16(flags, rankC, a, b, c, CUDA_R_16BF);
}
void tflrt_cuda_gemm_f16(int64_t flags, int64_t, void *a, int64_t, void *b,
                         int64_t rankC, void *c) {
  gemm16(flags, rankC, a, b, c, CUDA_R_16F);
}

} // extern "C"
