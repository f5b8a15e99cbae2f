//===- ArraysRules.cpp - Reverse rules of reductions, data movement -------===//
//
// The pullbacks of reductions (sum, product, max, min), data movement
// (broadcast, reshape, transpose, concat, slices, gather, scatter_add) and
// matmul (Ops/Arrays.td). Each reads the op's own operands and results and
// emits tfl ops (see TflInterfaces.td).
//
//===----------------------------------------------------------------------===//

#include "tfl/IR/ReverseBuilder.h"
#include "tfl/IR/TflOps.h"

namespace mlir::tfl {

LogicalResult BroadcastToOp::reverse(OpBuilder &b, ValueRange dResults,
                                     SmallVectorImpl<Value> &dOperands) {
  dOperands.push_back(
      ReverseBuilder(b, getLoc()).sumTo(dResults[0], getInput()));
  return success();
}

LogicalResult ReshapeOp::reverse(OpBuilder &b, ValueRange dResults,
                                 SmallVectorImpl<Value> &dOperands) {
  dOperands.push_back(
      ReverseBuilder(b, getLoc())
          .reshape(dResults[0], getInput().getType().getShape()));
  return success();
}

LogicalResult TransposeOp::reverse(OpBuilder &b, ValueRange dResults,
                                   SmallVectorImpl<Value> &dOperands) {
  ArrayRef<int64_t> perm = getPerm();
  SmallVector<int64_t> inverse(perm.size());
  for (size_t i = 0; i < perm.size(); ++i)
    inverse[perm[i]] = static_cast<int64_t>(i);
  dOperands.push_back(
      ReverseBuilder(b, getLoc()).transpose(dResults[0], inverse));
  return success();
}

LogicalResult ConcatOp::reverse(OpBuilder &b, ValueRange dResults,
                                SmallVectorImpl<Value> &dOperands) {
  // Each input's cotangent is its window of the result's.
  auto out = cast<RankedTensorType>(getType());
  int64_t offset = 0;
  for (Value input : getInputs()) {
    auto in = cast<RankedTensorType>(input.getType());
    SmallVector<int64_t> starts(out.getRank(), 0), strides(out.getRank(), 1);
    starts[getAxis()] = offset;
    offset += in.getDimSize(getAxis());
    dOperands.push_back(SliceOp::create(
        b, getLoc(), in.clone(out.getElementType()), dResults[0], ValueRange{},
        b.getDenseI64ArrayAttr(starts), b.getDenseI64ArrayAttr(strides)));
  }
  return success();
}

LogicalResult MatmulOp::reverse(OpBuilder &b, ValueRange dResults,
                                SmallVectorImpl<Value> &dOperands) {
  // dA = dC @ B^T, dB = A^T @ dC (per batch for 3-D operands).
  ReverseBuilder r(b, getLoc());
  int64_t rank = getLhs().getType().getRank();
  SmallVector<int64_t> swap =
      rank == 3 ? SmallVector<int64_t>{0, 2, 1} : SmallVector<int64_t>{1, 0};
  Value dc = dResults[0];
  dOperands.push_back(r.matmul(dc, r.transpose(getRhs(), swap)));
  dOperands.push_back(r.matmul(r.transpose(getLhs(), swap), dc));
  return success();
}

/// The axes a reduction removed from its result's shape (as unreduce takes
/// them): all of them, as keepdims=True results have size 1 there.
static Value reducedCotangent(ReverseBuilder &r, Value dy, Value input,
                              ArrayRef<int64_t> axes) {
  return r.unreduce(dy, input, axes);
}

LogicalResult ReduceSumOp::reverse(OpBuilder &b, ValueRange dResults,
                                   SmallVectorImpl<Value> &dOperands) {
  ReverseBuilder r(b, getLoc());
  dOperands.push_back(reducedCotangent(r, dResults[0], getInput(), getAxes()));
  return success();
}

/// max/min: the cotangent goes to the elements equal to the result, split
/// evenly among ties.
static LogicalResult extremumReverse(Operation *op, OpBuilder &b, Value input,
                                     Value result, ArrayRef<int64_t> axes,
                                     Value dy,
                                     SmallVectorImpl<Value> &dOperands) {
  ReverseBuilder r(b, op->getLoc());
  Value spread = r.unreduce(result, input, axes);
  Value hit =
      r.select(r.eq(input, spread), r.scalar(input, 1.0), r.scalar(input, 0.0));
  auto in = cast<RankedTensorType>(input.getType());
  Value count = ReduceSumOp::create(
      b, op->getLoc(),
      in.clone(reducedShape(in.getShape(), axes, /*keepdims=*/false)), hit,
      b.getDenseI64ArrayAttr(axes), b.getBoolAttr(false));
  Value share = r.div(
      r.reshape(dy, cast<RankedTensorType>(count.getType()).getShape()), count);
  dOperands.push_back(r.mul(hit, r.unreduce(share, input, axes)));
  return success();
}

LogicalResult ReduceProdOp::reverse(OpBuilder &b, ValueRange dResults,
                                    SmallVectorImpl<Value> &dOperands) {
  // d/dx_i is the product of the others, exact with zeros: with none in
  // the slice it is y / x_i; with one, the product of the nonzero elements
  // at the zero and 0 elsewhere; with more, 0.
  ReverseBuilder r(b, getLoc());
  Value x = getInput();
  auto in = cast<RankedTensorType>(x.getType());
  ArrayRef<int64_t> axes = getAxes();
  auto kept = in.clone(reducedShape(in.getShape(), axes, /*keepdims=*/true));
  Value zero = r.scalar(x, 0.0), one = r.scalar(x, 1.0);
  Value isZero = r.eq(x, zero);
  Value zeros =
      ReduceSumOp::create(b, getLoc(), kept, r.select(isZero, one, zero),
                          b.getDenseI64ArrayAttr(axes), b.getBoolAttr(true));
  Value nonzero = r.select(isZero, one, x);
  Value others =
      ReduceProdOp::create(b, getLoc(), kept, nonzero,
                           b.getDenseI64ArrayAttr(axes), b.getBoolAttr(true));
  Value noZero = r.div(others, nonzero);
  Value oneZero = r.select(isZero, others, zero);
  Value partial = r.select(r.eq(zeros, zero), noZero,
                           r.select(r.eq(zeros, one), oneZero, zero));
  Value dy = r.unreduce(dResults[0], x, axes);
  dOperands.push_back(r.mul(dy, r.reshape(partial, in.getShape())));
  return success();
}

LogicalResult ReduceMaxOp::reverse(OpBuilder &b, ValueRange dResults,
                                   SmallVectorImpl<Value> &dOperands) {
  return extremumReverse(*this, b, getInput(), getResult(), getAxes(),
                         dResults[0], dOperands);
}

LogicalResult ReduceMinOp::reverse(OpBuilder &b, ValueRange dResults,
                                   SmallVectorImpl<Value> &dOperands) {
  return extremumReverse(*this, b, getInput(), getResult(), getAxes(),
                         dResults[0], dOperands);
}

LogicalResult SliceOp::reverse(OpBuilder &b, ValueRange dResults,
                               SmallVectorImpl<Value> &dOperands) {
  // Embed the cotangent into zeros at the window. A negative stride walks
  // the window backwards: embed the reversed cotangent from its other end.
  ReverseBuilder r(b, getLoc());
  Value dy = dResults[0];
  auto out = cast<RankedTensorType>(getType());
  SmallVector<int64_t> starts(getStaticStarts()), strides(getStrides());
  SmallVector<Value> dynamic(getStarts());
  SmallVector<int64_t> flipStarts(out.getRank(), 0), flipStrides;
  bool flip = false;
  size_t next = 0;
  for (int64_t d = 0; d < out.getRank(); ++d) {
    bool isDynamic = ShapedType::isDynamic(starts[d]);
    flipStrides.push_back(strides[d] < 0 ? -1 : 1);
    if (strides[d] > 0) {
      next += isDynamic;
      continue;
    }
    flip = true;
    int64_t span = strides[d] * (out.getDimSize(d) - 1);
    flipStarts[d] = out.getDimSize(d) - 1;
    strides[d] = -strides[d];
    if (!isDynamic) {
      starts[d] += span;
      continue;
    }
    Value offset = ConstantOp::create(
        b, getLoc(),
        DenseElementsAttr::get(RankedTensorType::get({}, b.getI64Type()),
                               b.getI64IntegerAttr(span)));
    dynamic[next] = AddOp::create(b, getLoc(), dynamic[next].getType(),
                                  dynamic[next], offset);
    ++next;
  }
  if (flip)
    dy = SliceOp::create(b, getLoc(), out, dy, ValueRange{},
                         b.getDenseI64ArrayAttr(flipStarts),
                         b.getDenseI64ArrayAttr(flipStrides));
  dOperands.push_back(EmbedSliceOp::create(
      b, getLoc(), getInput().getType(), dy, dynamic,
      b.getDenseI64ArrayAttr(starts), b.getDenseI64ArrayAttr(strides)));
  for (size_t i = 0; i < getStarts().size(); ++i)
    dOperands.push_back(nullptr);
  return success();
}

LogicalResult EmbedSliceOp::reverse(OpBuilder &b, ValueRange dResults,
                                    SmallVectorImpl<Value> &dOperands) {
  // The input's cotangent is the window of the result's.
  dOperands.push_back(SliceOp::create(b, getLoc(), getInput().getType(),
                                      dResults[0], getStarts(),
                                      getStaticStartsAttr(), getStridesAttr()));
  for (size_t i = 0; i < getStarts().size(); ++i)
    dOperands.push_back(nullptr);
  return success();
}

LogicalResult GatherOp::reverse(OpBuilder &b, ValueRange dResults,
                                SmallVectorImpl<Value> &dOperands) {
  Value indices = getIndices();
  auto idxType = cast<RankedTensorType>(indices.getType());
  if (!idxType.getElementType().isInteger(64))
    indices =
        CastOp::create(b, getLoc(), idxType.clone(b.getI64Type()), indices);
  dOperands.push_back(ScatterAddOp::create(
      b, getLoc(), getInput().getType(), dResults[0], indices, getAxisAttr()));
  dOperands.push_back(nullptr);
  return success();
}

LogicalResult ScatterAddOp::reverse(OpBuilder &b, ValueRange dResults,
                                    SmallVectorImpl<Value> &dOperands) {
  dOperands.push_back(GatherOp::create(b, getLoc(), getDy().getType(),
                                       dResults[0], getIndices(),
                                       getAxisAttr()));
  dOperands.push_back(nullptr);
  return success();
}

} // namespace mlir::tfl
