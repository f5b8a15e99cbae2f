//===- NNRules.cpp - Reverse rules of convolutions and pooling ------------===//
//
// The pullbacks of convolutions and pooling, and of their gradients, so that a
// gradient of a gradient works (Ops/NN.td). Each reads the op's own operands
// and results and emits tfl ops (see TflInterfaces.td).
//
//===----------------------------------------------------------------------===//

#include "tfl/IR/ReverseBuilder.h"
#include "tfl/IR/TflOps.h"

namespace mlir::tfl {

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

LogicalResult AttentionOp::reverse(OpBuilder &b, ValueRange dResults,
                                   SmallVectorImpl<Value> &dOperands) {
  auto backward = AttentionBackwardOp::create(
      b, getLoc(),
      TypeRange{getQ().getType(), getK().getType(), getV().getType()}, getQ(),
      getK(), getV(), getResult(), dResults[0], getCausalAttr(), getScaleAttr(),
      getSeqMajorAttr());
  llvm::append_range(dOperands, backward.getResults());
  return success();
}

/// A pooling op's pullback: its backward op, over the same windows.
template <typename BackwardOp, typename PoolOp>
static LogicalResult poolReverse(PoolOp op, OpBuilder &b, ValueRange dResults,
                                 SmallVectorImpl<Value> &dOperands) {
  dOperands.push_back(BackwardOp::create(
      b, op.getLoc(), op.getInput().getType(), op.getInput(), dResults[0],
      op.getSizeAttr(), op.getStridesAttr(), op.getPaddingAttr()));
  return success();
}

LogicalResult MaxPool2DOp::reverse(OpBuilder &b, ValueRange dResults,
                                   SmallVectorImpl<Value> &dOperands) {
  return poolReverse<MaxPool2DBackwardOp>(*this, b, dResults, dOperands);
}

LogicalResult AvgPool2DOp::reverse(OpBuilder &b, ValueRange dResults,
                                   SmallVectorImpl<Value> &dOperands) {
  return poolReverse<AvgPool2DBackwardOp>(*this, b, dResults, dOperands);
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

} // namespace mlir::tfl
