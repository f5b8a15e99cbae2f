//===- Attention.h - tfl.attention as products and a softmax ----*- C++ -*-===//
//
// What tfl.attention and tfl.attention_backward compute, written out in
// other tfl ops (products, a masked softmax, reductions): the frontend's
// code for an attention the fused op does not take (a mask, f64), and
// the decomposition where the runtime call is not at hand (the GPU) or a
// transform needs the op's parts (forward mode, a derivative of the
// backward op).
//
//===----------------------------------------------------------------------===//

#ifndef TFL_IR_ATTENTION_H
#define TFL_IR_ATTENTION_H

#include "mlir/IR/Builders.h"

namespace mlir::tfl {

/// softmax(scale q k^T, masked) v for q [..., T, E], k [..., S, E], v [...,
/// S, F]: `causal` keeps key j for query i when j <= i; `mask` (or null),
/// broadcasting to [..., T, S], keeps where true (i1) or is added (float).
Value buildAttention(OpBuilder &b, Location loc, Value q, Value k, Value v,
                     Value mask, bool causal, double scale);

/// The cotangents of q, k and v (appended to `grads`) of an unmasked
/// attention from its operands, result `out` and result cotangent `dy`.
void buildAttentionBackward(OpBuilder &b, Location loc, Value q, Value k,
                            Value v, Value out, Value dy, bool causal,
                            double scale, SmallVectorImpl<Value> &grads);

/// The permutation between tfl.attention's `seq_major` layout ([..., T, H,
/// E]) and the heads-first one ([..., H, T, E]) of `rank` dims: the
/// identity with dims r-3 and r-2 swapped, its own inverse.
SmallVector<int64_t> seqHeadsSwap(int64_t rank);

/// `dims` (a shape, or strides) permuted by seqHeadsSwap: dims r-3 and r-2
/// swapped, when there are 3 or more.
SmallVector<int64_t> seqHeadsSwapped(ArrayRef<int64_t> dims);

/// Rewrites each tfl.attention_backward under `root`, and with
/// `forwardToo` each tfl.attention, into the ops above.
void decomposeAttention(Operation *root, bool forwardToo);

/// Rewrites one tfl.attention or tfl.attention_backward into the ops above.
void decomposeAttentionOp(Operation *op);

/// The widest head (E or F features) the GPU's fused attention kernels
/// take (kMaxHead in libtflrt_cuda's AttentionKernels.cuh).
constexpr int64_t kGpuAttentionMaxHead = 128;

} // namespace mlir::tfl

#endif // TFL_IR_ATTENTION_H
