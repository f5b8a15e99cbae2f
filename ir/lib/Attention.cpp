//===- Attention.cpp - tfl.attention as products and a softmax ------------===//
//
// The leading dims are flattened into one batch dim for the products
// (tfl.matmul takes rank 2 or 3) and kept for the masks, which broadcast
// against [..., T, S]. Masked scores are -inf, so a row's softmax gives
// them 0 as the fused kernel does. A seq_major op ([..., T, H, E]) is the
// heads-first one between transposes.
//
//===----------------------------------------------------------------------===//

#include "tfl/IR/Attention.h"
#include "tfl/IR/ReverseBuilder.h"
#include "tfl/IR/TflOps.h"

#include <limits>

namespace mlir::tfl {

namespace {

ArrayRef<int64_t> shapeOf(Value v) {
  return cast<RankedTensorType>(v.getType()).getShape();
}

/// `x` [..., R, C] as [B, R, C], B the leading dims' product (dynamic if
/// one is).
Value asBatch(ReverseBuilder &r, Value x) {
  ArrayRef<int64_t> s = shapeOf(x);
  int64_t batch = 1;
  for (int64_t d : s.drop_back(2))
    batch = ShapedType::isDynamic(d) || ShapedType::isDynamic(batch)
                ? ShapedType::kDynamic
                : batch * d;
  return r.reshape(x, {batch, s[s.size() - 2], s.back()});
}

/// `x` [B, R, C] as [lead..., R, C], `lead` the leading dims of `like`.
Value unbatch(ReverseBuilder &r, Value x, Value like) {
  SmallVector<int64_t> s(shapeOf(like).drop_back(2));
  llvm::append_range(s, shapeOf(x).take_back(2));
  return r.reshape(x, s);
}

Value swapLast(ReverseBuilder &r, Value x) { return r.transpose(x, {0, 2, 1}); }

/// The softmax over the last dim of `x`.
Value softmaxLast(ReverseBuilder &r, Value x) {
  OpBuilder &b = r.builder();
  auto type = cast<RankedTensorType>(x.getType());
  int64_t last = type.getRank() - 1;
  SmallVector<int64_t> kept(type.getShape());
  kept[last] = 1;
  auto axes = b.getDenseI64ArrayAttr({last});
  Value top = ReduceMaxOp::create(b, r.location(), type.clone(kept), x, axes,
                                  b.getBoolAttr(true));
  Value e = r.exp(r.sub(x, top));
  Value sum = ReduceSumOp::create(b, r.location(), type.clone(kept), e, axes,
                                  b.getBoolAttr(true));
  return r.div(e, sum);
}

/// softmax(scale q k^T, masked) as [B, T, S], with q, k, v as [B, ., .].
Value probabilities(ReverseBuilder &r, Value q, Value k, Value mask,
                    bool causal, double scale) {
  OpBuilder &b = r.builder();
  Value q3 = asBatch(r, q), k3 = asBatch(r, k);
  Value scores = r.mul(r.matmul(q3, swapLast(r, k3)), r.scalar(q, scale));
  // Masks broadcast against [..., T, S].
  SmallVector<int64_t> full(shapeOf(q).drop_back());
  full.push_back(shapeOf(k)[shapeOf(k).size() - 2]);
  scores = r.reshape(scores, full);
  Value minusInf = r.scalar(q, -std::numeric_limits<double>::infinity());
  if (causal) {
    int64_t t = full[full.size() - 2], s = full.back();
    SmallVector<bool> keep;
    for (int64_t i = 0; i < t; ++i)
      for (int64_t j = 0; j < s; ++j)
        keep.push_back(j <= i);
    auto type = RankedTensorType::get({t, s}, b.getI1Type());
    Value tril =
        ConstantOp::create(b, r.location(), DenseElementsAttr::get(type, keep));
    scores = r.select(tril, scores, minusInf);
  }
  if (mask) {
    if (cast<RankedTensorType>(mask.getType()).getElementType().isInteger(1))
      scores = r.select(mask, scores, minusInf);
    else
      scores = r.add(scores, r.castLike(mask, scores));
    // (A mask with more dims than the scores broadcasts them: the frontend
    // checked it does not.)
  }
  return asBatch(r, softmaxLast(r, scores));
}

} // namespace

Value buildAttention(OpBuilder &b, Location loc, Value q, Value k, Value v,
                     Value mask, bool causal, double scale) {
  ReverseBuilder r(b, loc);
  Value p = probabilities(r, q, k, mask, causal, scale);
  return unbatch(r, r.matmul(p, asBatch(r, v)), q);
}

void buildAttentionBackward(OpBuilder &b, Location loc, Value q, Value k,
                            Value v, Value out, Value dy, bool causal,
                            double scale, SmallVectorImpl<Value> &grads) {
  ReverseBuilder r(b, loc);
  Value p = probabilities(r, q, k, Value(), causal, scale);
  Value q3 = asBatch(r, q), k3 = asBatch(r, k), v3 = asBatch(r, v);
  Value dy3 = asBatch(r, dy), out3 = asBatch(r, out);
  // dp = dy v^T; ds = p (dp - rowsum(dy out)); dq = scale ds k,
  // dk = scale ds^T q, dv = p^T dy.
  Value dp = r.matmul(dy3, swapLast(r, v3));
  auto rowType = cast<RankedTensorType>(dy3.getType());
  SmallVector<int64_t> kept(rowType.getShape());
  kept.back() = 1;
  Value rowDot =
      ReduceSumOp::create(b, loc, rowType.clone(kept), r.mul(dy3, out3),
                          b.getDenseI64ArrayAttr({2}), b.getBoolAttr(true));
  Value ds = r.mul(p, r.sub(dp, rowDot));
  Value s = r.scalar(q, scale);
  grads.push_back(unbatch(r, r.mul(r.matmul(ds, k3), s), q));
  grads.push_back(unbatch(r, r.mul(r.matmul(swapLast(r, ds), q3), s), k));
  grads.push_back(unbatch(r, r.matmul(swapLast(r, p), dy3), v));
}

SmallVector<int64_t> seqHeadsSwap(int64_t rank) {
  SmallVector<int64_t> perm;
  for (int64_t d = 0; d < rank; ++d)
    perm.push_back(d);
  std::swap(perm[rank - 3], perm[rank - 2]);
  return perm;
}

SmallVector<int64_t> seqHeadsSwapped(ArrayRef<int64_t> dims) {
  SmallVector<int64_t> out(dims);
  if (out.size() >= 3)
    std::swap(out[out.size() - 3], out[out.size() - 2]);
  return out;
}

namespace {

/// `values` each transposed by seqHeadsSwap (seq_major's layout <-> the
/// heads-first one the decomposition takes) when `seqMajor`, else as they
/// are.
SmallVector<Value> swappedIf(OpBuilder &b, Location loc, ValueRange values,
                             bool seqMajor) {
  ReverseBuilder r(b, loc);
  SmallVector<Value> out;
  for (Value v : values)
    out.push_back(seqMajor ? r.transpose(v, seqHeadsSwap(shapeOf(v).size()))
                           : v);
  return out;
}

} // namespace

void decomposeAttentionOp(Operation *op) {
  OpBuilder b(op);
  Location loc = op->getLoc();
  // A seq_major op is the heads-first one between swaps.
  bool seqMajor = op->hasAttr("seq_major");
  SmallVector<Value> in = swappedIf(b, loc, op->getOperands(), seqMajor);
  SmallVector<Value> results;
  if (auto fwd = dyn_cast<AttentionOp>(op)) {
    results.push_back(buildAttention(b, loc, in[0], in[1], in[2], Value(),
                                     fwd.getCausal(),
                                     fwd.getScale().convertToDouble()));
  } else {
    auto bwd = cast<AttentionBackwardOp>(op);
    buildAttentionBackward(b, loc, in[0], in[1], in[2], in[3], in[4],
                           bwd.getCausal(), bwd.getScale().convertToDouble(),
                           results);
  }
  op->replaceAllUsesWith(swappedIf(b, loc, results, seqMajor));
  op->erase();
}

void decomposeAttention(Operation *root, bool forwardToo) {
  SmallVector<Operation *> ops;
  root->walk([&](Operation *op) {
    if (isa<AttentionBackwardOp>(op) || (forwardToo && isa<AttentionOp>(op)))
      ops.push_back(op);
  });
  for (Operation *op : ops)
    decomposeAttentionOp(op);
}

} // namespace mlir::tfl
