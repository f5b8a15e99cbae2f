//===- ElementwiseRules.cpp - Reverse rules of elementwise ops ------------===//
//
// The pullbacks of the elementwise ops whose rule is more than one expression:
// negation, casts (float to float only) and where. The one-expression rules of
// the math built-ins are declared with their ops in Ops/Elementwise.td. Each
// reads the op's own operands and results and emits tfl ops (see
// TflInterfaces.td).
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

} // namespace mlir::tfl
