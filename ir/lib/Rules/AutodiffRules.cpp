//===- AutodiffRules.cpp - Reverse rules of the identities ----------------===//
//
// The pullbacks of the ops that pass values through: stop_gradient (none),
// check_numerics and to_device (the cotangent, checked or copied back),
// optimization_barrier (each result's cotangent, to its operand). Each
// reads the op's own operands and results and emits tfl ops (see
// TflInterfaces.td).
//
//===----------------------------------------------------------------------===//

#include "tfl/IR/ReverseBuilder.h"
#include "tfl/IR/TflOps.h"

namespace mlir::tfl {

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

LogicalResult
OptimizationBarrierOp::reverse(OpBuilder &, ValueRange dResults,
                               SmallVectorImpl<Value> &dOperands) {
  llvm::append_range(dOperands, dResults);
  return success();
}

} // namespace mlir::tfl
