//===- Attention.h - Fused scaled dot-product attention ---------*- C++ -*-===//
//
// softmax(scale * q k^T, masked causally when asked) v, and its adjoint, in
// one pass over blocks of query rows that keeps no [T, S] matrix in memory
// (the FlashAttention idea, on a CPU's caches): q [..., T, E], k [..., S,
// E], v [..., S, F], all f32, any strides, the same leading dims. `causal`
// keeps key j for query i when j <= i (PyTorch's is_causal, aligned at the
// top left). Eager and compiled code call these (tfl.attention and
// tfl.attention_backward).
//
//===----------------------------------------------------------------------===//

#ifndef TFLRT_ATTENTION_H
#define TFLRT_ATTENTION_H

#include "tflrt/Tensor.h"

namespace tflrt {

struct AttentionShape {
  bool causal;
  double scale;
};

/// out [..., T, F] = softmax(scale q k^T) v.
void attention(const TensorView &q, const TensorView &k, const TensorView &v,
               const TensorView &out, AttentionShape shape);

/// The cotangents of q, k and v from the forward's operands, its result
/// `out` and the result's cotangent `dy`: the softmax is recomputed block
/// by block, as the forward made it.
void attentionBackward(const TensorView &q, const TensorView &k,
                       const TensorView &v, const TensorView &out,
                       const TensorView &dy, const TensorView &dq,
                       const TensorView &dk, const TensorView &dv,
                       AttentionShape shape);

} // namespace tflrt

#endif // TFLRT_ATTENTION_H
