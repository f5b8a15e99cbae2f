//===- Kernels.h - Tensor kernels of libtflrt -------------------*- C++ -*-===//
//
// The kernels the eager interpreter runs for each op. The heavy ones
// (matmul) are the same functions compiled code reaches through the C ABI in
// CApi.h, so both modes compute with one implementation.
//
//===----------------------------------------------------------------------===//

#ifndef TFLRT_KERNELS_H
#define TFLRT_KERNELS_H

#include "tflrt/Tensor.h"

#include <optional>
#include <string>

namespace tflrt {

/// NumPy's broadcast of two shapes; nullopt when they are incompatible.
std::optional<Shape> broadcastShapes(const Shape &a, const Shape &b);

enum class BinaryKind {
  Add,
  Sub,
  Mul,
  Div,
  FloorDiv,
  Mod,
  Pow,
  Maximum,
  Minimum
};
enum class UnaryKind {
  Neg,
  Exp,
  Log,
  Log1p,
  Expm1,
  Erf,
  Sqrt,
  Rsqrt,
  Tanh,
  Sigmoid,
  Sin,
  Cos,
  Floor,
  Round,
  Abs,
  Sign,
  Square,
  Relu
};
enum class CompareKind { Lt, Le, Gt, Ge, Eq, Ne };

/// Elementwise `a op b` with NumPy broadcasting. Both have the same dtype.
/// FloorDiv and Mod follow Python (the remainder takes the divisor's sign);
/// integer division by zero gives 0, as NumPy's.
Tensor binary(BinaryKind kind, const Tensor &a, const Tensor &b);
Tensor unary(UnaryKind kind, const Tensor &a);
/// Elementwise comparison with broadcasting; a bool tensor (NaN compares
/// false but for Ne).
Tensor compare(CompareKind kind, const Tensor &a, const Tensor &b);
/// Elementwise `not` of a bool tensor.
Tensor logicalNot(const Tensor &a);
/// `cond ? a : b` elementwise, the three broadcast together.
Tensor where(const Tensor &cond, const Tensor &a, const Tensor &b);

/// IEEE 754-2019 maximum and minimum, as arith.maximumf/minimumf and NumPy's
/// maximum/minimum: NaN propagates, and -0.0 < +0.0.
double ieeeMaximum(double x, double y);
double ieeeMinimum(double x, double y);

/// Elementwise conversion to `dtype`, as NumPy's astype (u8 read unsigned,
/// floats truncated toward zero, anything to bool is `x != 0`).
Tensor cast(const Tensor &a, DType dtype);

enum class ReduceKind { Sum, Prod, Max, Min };

/// Reduces `a` over sorted, distinct `axes`, accumulating in row-major
/// order (the order compiled loops use, so float results agree exactly).
Tensor reduce(ReduceKind kind, const Tensor &a,
              const std::vector<int64_t> &axes, bool keepdims);
/// The first index of the maximum (or minimum) along `axis`, or into the
/// flattened tensor when `axis` is negative; a NaN wins, as in NumPy.
Tensor argReduce(bool isMax, const Tensor &a, int64_t axis, bool keepdims);

/// Moves the elements of `shape`, in row-major order, from `src` to
/// `dst`, each read and written through its own element strides from its
/// own offset (`dst`'s places distinct). Elements move as words of their
/// size `elem` (fixed-size copies: loads and stores), runs of both strides
/// 1 as one memcpy, split among the cores when large. Copies, transposes,
/// broadcasts and slices in eager mode, and compiled code's strided copies
/// (memrefCopy).
void moveStrided(const void *src, const Shape &srcStrides, int64_t srcBase,
                 void *dst, const Shape &dstStrides, int64_t dstBase,
                 const Shape &shape, size_t elem);

/// NumPy's broadcast_to.
Tensor broadcastTo(const Tensor &a, const Shape &shape);
/// NumPy's transpose: result dim i is input dim perm[i].
Tensor transpose(const Tensor &a, const std::vector<int64_t> &perm);
/// The strided window `a[starts[d] + i * strides[d], ...]` of `sizes`;
/// throws std::out_of_range when it reads outside `a`.
Tensor slice(const Tensor &a, const std::vector<int64_t> &starts,
             const std::vector<int64_t> &sizes,
             const std::vector<int64_t> &strides);
/// The message for a window that leaves its axis: "index 3 is out of range
/// for an axis of size 3", or the slice's bounds for a window of several.
std::string outOfRangeMessage(int64_t start, int64_t size, int64_t stride,
                              int64_t dim);
/// Zeros of `shape` with `a` written at `out[starts[d] + i * strides[d]]`
/// (positive strides; the window lies inside `shape`): slice's adjoint.
Tensor embedSlice(const Tensor &a, const Shape &shape,
                  const std::vector<int64_t> &starts,
                  const std::vector<int64_t> &strides);
/// A contiguous copy of a (possibly strided) view.
Tensor materialize(const TensorView &v);
/// The autodiff tapes shared by eager kernels and compiled code
/// (Ops/Autodiff.td, "The tapes"): a stack of frames, one per running function
/// that uses tapes, each holding tapes named by number: growable arrays of
/// tensors with a cursor, and an accumulator per entry. The others act on the
/// innermost frame.
void tapeEnter();
void tapeExit();
/// Writes `t` at the tape's cursor and advances it.
void tapePush(int64_t tape, const Tensor &t);
/// The tape's cursor.
int64_t tapeSize(int64_t tape);
/// Writes `t` at `position`, leaving the cursor.
void tapeWrite(int64_t tape, int64_t position, const Tensor &t);
/// The tensor at `position` (of `dtype` and `shape`); zeros where nothing
/// was written.
Tensor tapeRead(int64_t tape, int64_t position, DType dtype,
                const Shape &shape);
/// Moves the cursor back to `position`; with `release`, frees the entries
/// from there on and clears their accumulators.
void tapeRewind(int64_t tape, int64_t position, bool release);
/// Adds `t` into the accumulator at `position`.
void tapeAdd(int64_t tape, int64_t position, const Tensor &t);
/// The accumulator at `position`; zeros where nothing was added.
Tensor tapeAccumulated(int64_t tape, int64_t position, DType dtype,
                       const Shape &shape);

/// True when every element of a float tensor is finite (no NaN, no Inf).
bool allFinite(const Tensor &a);
/// The error of check_numerics(x, message) on a tensor that is not.
std::string checkNumericsMessage(const std::string &message);
/// TensorFlow's gather along `axis`; throws std::out_of_range for an index
/// outside the axis.
Tensor gather(const Tensor &a, const Tensor &indices, int64_t axis);
/// gather's adjoint: zeros of `out`'s shape, with each slice of `dy` added
/// at its index along `axis` (repeated indices accumulate). `out` is a
/// contiguous f32 or f64 view; `indices` are i64.
void scatterAdd(const TensorView &dy, const TensorView &indices,
                const TensorView &out, int64_t axis);
/// NumPy's concatenate along `axis`.
Tensor concat(const std::vector<Tensor> &inputs, int64_t axis);

/// C = op(A) @ op(B) for row-major 2-D operands, or 3-D ones of the same
/// batch (a product per leading index): op(A) is A (MxK), or with `transA`
/// the transpose of A, which is then stored KxM; op(B) likewise (KxN, or
/// NxK with `transB`), so that a transposed operand is read in place, as a
/// GEMM's flag. Float types go to BLAS; integer types use a plain loop.
Tensor matmul(const Tensor &a, const Tensor &b, bool transA = false,
              bool transB = false);

/// How TFL_REPORT_KERNELS names a product: "matmul f32 a^T b, 128x512
/// over 1024" (op(a) is m x k, op(b) k x n).
std::string productName(DType dtype, int64_t m, int64_t n, int64_t k,
                        bool transA, bool transB);

/// C[MxN] (+)= op(A) @ op(B) on raw row-major buffers with leading
/// dimensions (row strides); `accumulate` adds into C instead of
/// overwriting it. op(A) is A[MxK], or with `transA` the transpose of
/// A[KxM]; op(B) likewise B[KxN] or B[NxK]. f32 runs on oneDNN's sgemm
/// (its AVX-512 kernels reach the FMA peak), f64 on BLAS.
void matmulF32(const float *a, const float *b, float *c, int64_t m, int64_t n,
               int64_t k, int64_t lda, int64_t ldb, int64_t ldc,
               bool accumulate, bool transA = false, bool transB = false);
void matmulF64(const double *a, const double *b, double *c, int64_t m,
               int64_t n, int64_t k, int64_t lda, int64_t ldb, int64_t ldc,
               bool accumulate, bool transA = false, bool transB = false);

} // namespace tflrt

#endif // TFLRT_KERNELS_H
