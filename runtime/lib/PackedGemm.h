//===- PackedGemm.h - TFL's AVX2 GEMM for weights' gradients ----*- C++ -*-===//
//
// oneDNN's AVX2 sgemm (2.6) runs the products whose left operand is
// transposed, c = a^T b with a stored K x M (a weight's gradient x^T dy),
// 1.1-1.6 times slower than this kernel when b is 32-byte aligned, as
// libtflrt's buffers are, and its rows a multiple of 128 floats long (128,
// 256, 384 or 512 features); 16 bytes off alignment, it runs them at full
// speed (its path for aligned operands seems to read b where it lies, down
// columns that fall in a few sets of the L1 cache). These products run a
// packed kernel of TFL's own on AVX2 instead: b and a copied block by block
// into panels the kernel reads in order (BLIS's scheme), a tile of 6 rows
// by 16 columns of c in 12 registers.
//
//===----------------------------------------------------------------------===//

#ifndef TFLRT_PACKEDGEMM_H
#define TFLRT_PACKEDGEMM_H

#include <cstdint>
#include <string>

namespace tflrt {

/// Whether matmulF32 runs c (+)= op(a) op(b) (m x n over k) on
/// packedProduct: on kernelIsa() AVX2, for a transposed a and an
/// untransposed b whose leading dim is a multiple of 128 floats, with at
/// least 32,768 outputs (below that, the packing's copies cost what the
/// kernel saves: 128 x 128 and 64 x 256 outputs ran 0.75-0.98 times
/// oneDNN's speed). A rule of the shape and the ISA only, so that a
/// program rounds the same way in every run.
bool takesPackedProduct(int64_t m, int64_t n, int64_t k, int64_t ldb,
                        bool transA, bool transB);

/// Why takesPackedProduct holds for a product, or why not: the rule's
/// first condition it fails (TFL_REPORT_KERNELS's reason).
std::string packedProductReason(int64_t m, int64_t n, int64_t k, int64_t ldb,
                                bool transA, bool transB);

/// c (+)= op(a) op(b), row-major, any of the four forms, on the AVX2
/// kernel (the CPU must run AVX2), split among the pool's threads by
/// blocks of c. Each output sums its k products in blocks of 256 in order,
/// the same way on any thread count.
void packedProduct(const float *a, const float *b, float *c, int64_t m,
                   int64_t n, int64_t k, int64_t lda, int64_t ldb, int64_t ldc,
                   bool accumulate, bool transA, bool transB);

} // namespace tflrt

#endif // TFLRT_PACKEDGEMM_H
