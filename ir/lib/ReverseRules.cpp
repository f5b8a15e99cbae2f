//===- ReverseRules.cpp - Reverse rules of structural tfl ops -------------===//
//
// The pullbacks of the ops whose rule is more than one expression: data
// movement (reshape, transpose, broadcast, concat), reductions, matmul,
// choice, casts, and the identities (stop_gradient, check_numerics). The
// elementwise math rules are declared in Ops/Elementwise.td. Each reads the
// op's own operands and results and emits tfl ops (see TflInterfaces.td).
//
//===----------------------------------------------------------------------===//

#include "tfl/IR/ReverseBuilder.h"
#include "tfl/IR/TflOps.h"

namespace mlir::tfl {

static bool isFloatTensor(Value v) {
  return isa<FloatType>(cast<RankedTensorType>(v.getType()).getElementType());
}

LogicalResult NegOp::reverse(OpBuilder &b, ValueRange dResults,
                             SmallVectorImpl<Value> &dOperands) {
  dOperands.push_back(ReverseBuilder(b, getLoc()).neg(dResults[0]));
  return success();
}

LogicalResult CastOp::reverse(OpBuilder &b, ValueRange dResults,
                              SmallVectorImpl<Value> &dOperands) {
  // Only float-to-float casts carry a gradient.
  if (!isFloatTensor(getInput()) || !isFloatTensor(getResult())) {
    dOperands.push_back(nullptr);
    return success();
  }
  dOperands.push_back(
      ReverseBuilder(b, getLoc()).castLike(dResults[0], getInput()));
  return success();
}

LogicalResult WhereOp::reverse(OpBuilder &b, ValueRange dResults,
                               SmallVectorImpl<Value> &dOperands) {
  // The branch not taken gets a zero (never 0 * inf: the cotangent is
  // selected, not multiplied by a mask).
  ReverseBuilder r(b, getLoc());
  Value dy = dResults[0], zero = r.scalar(dy, 0.0);
  dOperands.push_back(nullptr);
  dOperands.push_back(r.sumTo(r.select(getCond(), dy, zero), getLhs()));
  dOperands.push_back(r.sumTo(r.select(getCond(), zero, dy), getRhs()));
  return success();
}

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

LogicalResult Conv2DOp::reverse(OpBuilder &b, ValueRange dResults,
                                SmallVectorImpl<Value> &dOperands) {
  Value dy = dResults[0];
  dOperands.push_back(Conv2DBackwardInputOp::create(
      b, getLoc(), getInput().getType(), dy, getFilter(), getStridesAttr(),
      getPaddingAttr()));
  dOperands.push_back(Conv2DBackwardFilterOp::create(
      b, getLoc(), getFilter().getType(), getInput(), dy, getStridesAttr(),
      getPaddingAttr()));
  return success();
}

LogicalResult MaxPool2DOp::reverse(OpBuilder &b, ValueRange dResults,
                                   SmallVectorImpl<Value> &dOperands) {
  dOperands.push_back(MaxPool2DBackwardOp::create(
      b, getLoc(), getInput().getType(), getInput(), dResults[0], getSizeAttr(),
      getStridesAttr(), getPaddingAttr()));
  return success();
}

LogicalResult AvgPool2DOp::reverse(OpBuilder &b, ValueRange dResults,
                                   SmallVectorImpl<Value> &dOperands) {
  dOperands.push_back(AvgPool2DBackwardOp::create(
      b, getLoc(), getInput().getType(), getInput(), dResults[0], getSizeAttr(),
      getStridesAttr(), getPaddingAttr()));
  return success();
}

// The adjoint ops are linear in the cotangent they carry, so their rules
// are adjoints again; conv2d's two are bilinear (with the filter, with the
// input), and pooling's do not depend on the input almost everywhere.

LogicalResult
Conv2DBackwardInputOp::reverse(OpBuilder &b, ValueRange dResults,
                               SmallVectorImpl<Value> &dOperands) {
  // dx = J(w)^T dy, J(w) the conv over the input: <g, dx> = <conv(g, w), dy>.
  Value g = dResults[0];
  dOperands.push_back(Conv2DOp::create(b, getLoc(), getDy().getType(), g,
                                       getFilter(), getStridesAttr(),
                                       getPaddingAttr()));
  dOperands.push_back(Conv2DBackwardFilterOp::create(
      b, getLoc(), getFilter().getType(), g, getDy(), getStridesAttr(),
      getPaddingAttr()));
  return success();
}

LogicalResult
Conv2DBackwardFilterOp::reverse(OpBuilder &b, ValueRange dResults,
                                SmallVectorImpl<Value> &dOperands) {
  // <g, dw> = <conv(x, g), dy>.
  Value g = dResults[0];
  dOperands.push_back(
      Conv2DBackwardInputOp::create(b, getLoc(), getInput().getType(), getDy(),
                                    g, getStridesAttr(), getPaddingAttr()));
  dOperands.push_back(Conv2DOp::create(b, getLoc(), getDy().getType(),
                                       getInput(), g, getStridesAttr(),
                                       getPaddingAttr()));
  return success();
}

LogicalResult MaxPool2DBackwardOp::reverse(OpBuilder &b, ValueRange dResults,
                                           SmallVectorImpl<Value> &dOperands) {
  // Routing dy to the maxima is linear in dy; its adjoint reads the
  // cotangent at the maxima. Which element is the maximum is piecewise
  // constant in x: no cotangent for it.
  dOperands.push_back(nullptr);
  dOperands.push_back(MaxPool2DGatherOp::create(
      b, getLoc(), getDy().getType(), getInput(), dResults[0], getSizeAttr(),
      getStridesAttr(), getPaddingAttr()));
  return success();
}

LogicalResult AvgPool2DBackwardOp::reverse(OpBuilder &b, ValueRange dResults,
                                           SmallVectorImpl<Value> &dOperands) {
  // Spreading dy evenly over each window's unpadded elements is the
  // adjoint of averaging them.
  dOperands.push_back(nullptr);
  dOperands.push_back(AvgPool2DOp::create(b, getLoc(), getDy().getType(),
                                          dResults[0], getSizeAttr(),
                                          getStridesAttr(), getPaddingAttr()));
  return success();
}

LogicalResult MaxPool2DGatherOp::reverse(OpBuilder &b, ValueRange dResults,
                                         SmallVectorImpl<Value> &dOperands) {
  dOperands.push_back(nullptr);
  dOperands.push_back(MaxPool2DBackwardOp::create(
      b, getLoc(), getTangent().getType(), getInput(), dResults[0],
      getSizeAttr(), getStridesAttr(), getPaddingAttr()));
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

LogicalResult CheckNumericsOp::reverse(OpBuilder &, ValueRange dResults,
                                       SmallVectorImpl<Value> &dOperands) {
  dOperands.push_back(dResults[0]);
  return success();
}

LogicalResult StopGradientOp::reverse(OpBuilder &, ValueRange,
                                      SmallVectorImpl<Value> &dOperands) {
  dOperands.push_back(nullptr);
  return success();
}

LogicalResult ToDeviceOp::reverse(OpBuilder &, ValueRange dResults,
                                  SmallVectorImpl<Value> &dOperands) {
  dOperands.push_back(dResults[0]);
  return success();
}

} // namespace mlir::tfl
