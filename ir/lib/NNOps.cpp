//===- NNOps.cpp - Verifiers of the nn ops --------------------------------===//
//
// The ops of Ops/NN.td that need more than ODS checks: the random draws
// (static shapes; a generator state is a tensor<2xi64>) and conv2d and
// the poolings (their windows' output sizes).
//
//===----------------------------------------------------------------------===//

#include "tfl/IR/Attention.h"
#include "tfl/IR/TflOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"

using namespace mlir;
using namespace mlir::tfl;

/// A random op fills a tensor of static shape (its size is the draw's).
static LogicalResult verifyRandom(Operation *op) {
  auto type = cast<RankedTensorType>(op->getResult(0).getType());
  if (!type.hasStaticShape())
    return op->emitOpError("needs a static shape, got ") << type;
  return success();
}

/// The output size of a window over `in` elements.
static int64_t windowOutput(int64_t in, int64_t size, int64_t stride,
                            int64_t padBefore, int64_t padAfter) {
  return (in + padBefore + padAfter - size) / stride + 1;
}

/// Checks NHWC in/out shapes against a window of `size` (h, w).
static LogicalResult verifyWindow(Operation *op, RankedTensorType in,
                                  RankedTensorType out, ArrayRef<int64_t> size,
                                  int64_t channels, ArrayRef<int64_t> strides,
                                  ArrayRef<int64_t> padding) {
  if (in.getRank() != 4 || out.getRank() != 4)
    return op->emitOpError("takes and gives NHWC tensors (rank 4)");
  // The batch (N) may be dynamic; the other dims are static.
  for (int64_t d = 1; d < 4; ++d)
    if (in.isDynamicDim(d) || out.isDynamicDim(d))
      return op->emitOpError("needs static H, W and C dims");
  if (size.size() != 2 || llvm::any_of(size, [](int64_t s) { return s < 1; }))
    return op->emitOpError("needs a window of 2 positive sizes");
  if (strides.size() != 2 || padding.size() != 4 ||
      llvm::any_of(strides, [](int64_t s) { return s < 1; }) ||
      llvm::any_of(padding, [](int64_t p) { return p < 0; }))
    return op->emitOpError("needs 2 positive strides and 4 paddings");
  SmallVector<int64_t> expected = {in.getDimSize(0), 0, 0, channels};
  for (int d = 0; d < 2; ++d) {
    if (in.getDimSize(1 + d) + padding[2 * d] + padding[2 * d + 1] < size[d])
      return op->emitOpError("window is larger than the padded input");
    expected[1 + d] = windowOutput(in.getDimSize(1 + d), size[d], strides[d],
                                   padding[2 * d], padding[2 * d + 1]);
  }
  if (out.getShape() != ArrayRef<int64_t>(expected))
    return op->emitOpError("result should be ")
           << RankedTensorType::get(expected, out.getElementType());
  return success();
}

LogicalResult Conv2DOp::verify() {
  auto in = cast<RankedTensorType>(getInput().getType());
  auto filter = cast<RankedTensorType>(getFilter().getType());
  if (filter.getRank() != 4 || in.getRank() != 4 ||
      filter.getDimSize(2) != in.getDimSize(3))
    return emitOpError("filter ")
           << filter << " is not HWIO over the input's channels of " << in;
  return verifyWindow(*this, in, cast<RankedTensorType>(getType()),
                      filter.getShape().take_front(2), filter.getDimSize(3),
                      getStrides(), getPadding());
}

LogicalResult MaxPool2DOp::verify() {
  auto in = cast<RankedTensorType>(getInput().getType());
  return verifyWindow(*this, in, cast<RankedTensorType>(getType()), getSize(),
                      in.getRank() == 4 ? in.getDimSize(3) : 0, getStrides(),
                      getPadding());
}

LogicalResult AvgPool2DOp::verify() {
  auto in = cast<RankedTensorType>(getInput().getType());
  return verifyWindow(*this, in, cast<RankedTensorType>(getType()), getSize(),
                      in.getRank() == 4 ? in.getDimSize(3) : 0, getStrides(),
                      getPadding());
}

LogicalResult RandomUniformOp::verify() { return verifyRandom(*this); }
LogicalResult RandomNormalOp::verify() { return verifyRandom(*this); }
LogicalResult ShuffleIndicesOp::verify() { return verifyRandom(*this); }

/// A random generator state is a tensor<2xi64>: key, draw count.
static LogicalResult verifyRandomState(Operation *op, Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor || tensor.getShape() != ArrayRef<int64_t>{2})
    return op->emitOpError("needs a tensor<2xi64> state, got ") << type;
  return success();
}

LogicalResult RandomStateOp::verify() {
  return verifyRandomState(*this, getType());
}

LogicalResult SetRandomStateOp::verify() {
  return verifyRandomState(*this, getState().getType());
}

/// `shape` in the heads-first layout the checks read: with `seqMajor`,
/// [..., T, H, E] -> [..., H, T, E].
static SmallVector<int64_t> headsFirst(ArrayRef<int64_t> shape, bool seqMajor) {
  return seqMajor ? seqHeadsSwapped(shape) : SmallVector<int64_t>(shape);
}

/// Checks q, k, v and an attention's result `out` for tfl.attention and
/// its adjoint.
static LogicalResult verifyAttention(Operation *op, Value qv, Value kv,
                                     Value vv, Type outType, bool seqMajor) {
  auto q = cast<RankedTensorType>(qv.getType());
  auto k = cast<RankedTensorType>(kv.getType());
  auto v = cast<RankedTensorType>(vv.getType());
  auto out = cast<RankedTensorType>(outType);
  int64_t rank = q.getRank();
  if (rank < 2 || k.getRank() != rank || v.getRank() != rank ||
      out.getRank() != rank)
    return op->emitOpError("takes q, k and v of one rank, at least 2");
  if (seqMajor && rank < 3)
    return op->emitOpError("with seq_major takes q, k and v of rank 3 or "
                           "more ([..., T, H, E])");
  if (k.getElementType() != q.getElementType() ||
      v.getElementType() != q.getElementType() ||
      out.getElementType() != q.getElementType())
    return op->emitOpError("takes and gives one element type");
  // [..., T, E], [..., S, E], [..., S, F] -> [..., T, F], in the
  // heads-first layout.
  SmallVector<int64_t> qs = headsFirst(q.getShape(), seqMajor),
                       ks = headsFirst(k.getShape(), seqMajor),
                       vs = headsFirst(v.getShape(), seqMajor),
                       os = headsFirst(out.getShape(), seqMajor);
  SmallVector<int64_t> expected(ArrayRef<int64_t>(qs).drop_back());
  expected.push_back(vs.back());
  auto lead = [](ArrayRef<int64_t> s) { return s.drop_back(2); };
  bool ok = lead(ks) == lead(qs) && lead(vs) == lead(qs) &&
            ks.back() == qs.back() && vs[rank - 2] == ks[rank - 2] &&
            os == expected;
  if (!ok) {
    if (seqMajor)
      return op->emitOpError("with seq_major needs q [..., T, H, E], k [..., "
                             "S, H, E], v [..., S, H, F] and a result [..., "
                             "T, H, F], got ")
             << q << ", " << k << ", " << v << " -> " << out;
    return op->emitOpError("needs q [..., T, E], k [..., S, E], v [..., S, F] "
                           "and a result [..., T, F], got ")
           << q << ", " << k << ", " << v << " -> " << out;
  }
  return success();
}

LogicalResult AttentionOp::verify() {
  return verifyAttention(*this, getQ(), getK(), getV(), getType(),
                         getSeqMajor());
}

LogicalResult AttentionBackwardOp::verify() {
  if (failed(verifyAttention(*this, getQ(), getK(), getV(), getOut().getType(),
                             getSeqMajor())))
    return failure();
  if (getDy().getType() != getOut().getType())
    return emitOpError("needs dy of the result's type, got ")
           << getDy().getType() << " and " << getOut().getType();
  if (getDq().getType() != getQ().getType() ||
      getDk().getType() != getK().getType() ||
      getDv().getType() != getV().getType())
    return emitOpError("gives dq, dk and dv of q's, k's and v's types");
  return success();
}
