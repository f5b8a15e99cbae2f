//===- RuntimeCalls.cpp - Ops on buffers to libtflrt calls ----------------===//
//
// Replaces `linalg.matmul` on f32/f64 memrefs with row-contiguous layouts by
// `tflrt_matmul_<dtype>(A, B, C)`, which computes C += A @ B with BLAS. Other
// matmuls (integers, exotic layouts) stay for convert-linalg-to-loops.
// Prints without tensors, which bufferization never visits, become their
// text calls.
//
//===----------------------------------------------------------------------===//

#include "tfl/Codegen/Passes.h"
#include "tfl/Codegen/RuntimeAbi.h"
#include "tfl/IR/TflOps.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

namespace mlir::tfl {

#define GEN_PASS_DEF_LOWERTORUNTIMECALLS
#include "tfl/Codegen/Passes.h.inc"

namespace {

/// True when the innermost dim of `type` is contiguous, as BLAS needs.
bool hasUnitInnerStride(MemRefType type) {
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(type.getStridesAndOffset(strides, offset)))
    return false;
  return !strides.empty() && strides.back() == 1;
}

struct LowerToRuntimeCallsPass
    : impl::LowerToRuntimeCallsBase<LowerToRuntimeCallsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<linalg::MatmulOp> matmuls;
    module.walk([&](linalg::MatmulOp op) {
      if (!op.hasPureBufferSemantics())
        return;
      for (Value operand : op->getOperands()) {
        auto type = dyn_cast<MemRefType>(operand.getType());
        if (!type || !hasUnitInnerStride(type) ||
            !(type.getElementType().isF32() || type.getElementType().isF64()))
          return;
      }
      // Plain matmuls only: no transposed or broadcast indexing maps.
      if (!op.getIndexingMapsArray().empty() &&
          op.getIndexingMapsArray() != op.getDefaultIndexingMaps(&getContext()))
        return;
      matmuls.push_back(op);
    });
    OpBuilder builder(&getContext());
    for (linalg::MatmulOp op : matmuls) {
      builder.setInsertionPoint(op);
      Location loc = op.getLoc();
      SmallVector<Value> args;
      for (Value operand : op->getOperands())
        args.push_back(castToUnranked(builder, loc, operand));
      Type elem =
          cast<MemRefType>(op->getOperand(0).getType()).getElementType();
      SmallVector<Type> argTypes;
      for (Value a : args)
        argTypes.push_back(a.getType());
      func::FuncOp fn = getOrInsertRuntimeFunction(
          builder, module, ("tflrt_matmul_" + runtimeTypeSuffix(elem)).str(),
          builder.getFunctionType(argTypes, {}));
      func::CallOp::create(builder, loc, fn, args);
      op.erase();
    }
    module.walk([&](PrintOp op) {
      if (!op.getInputs().empty())
        return;
      builder.setInsertionPoint(op);
      emitPrintCalls(builder, op, {});
      op.erase();
    });
  }
};

} // namespace
} // namespace mlir::tfl
