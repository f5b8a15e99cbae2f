//===- RuntimeCalls.cpp - Ops on buffers to libtflrt calls ----------------===//
//
// Replaces `linalg.matmul` and `linalg.batch_matmul` on f32/f64 memrefs with
// row-contiguous layouts by `tflrt_matmul_<dtype>(A, B, C)` (or
// `tflrt_batch_matmul_<dtype>`), which compute C += A @ B with BLAS. Other
// matmuls (integers, exotic layouts) stay for convert-linalg-to-loops.
// Prints without tensors, which bufferization never visits, become their
// text calls, and `tfl.print_template` a call of tflrt_print_template.
//
//===----------------------------------------------------------------------===//

#include "tfl/Codegen/Passes.h"
#include "tfl/Codegen/RuntimeAbi.h"
#include "tfl/IR/TflOps.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

namespace mlir::tfl {

#define GEN_PASS_DEF_LOWERTORUNTIMECALLS
#include "tfl/Codegen/Passes.h.inc"

namespace {

struct LowerToRuntimeCallsPass
    : impl::LowerToRuntimeCallsBase<LowerToRuntimeCallsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<Operation *> matmuls;
    module.walk([&](Operation *op) {
      if (!isa<linalg::MatmulOp, linalg::BatchMatmulOp>(op))
        return;
      auto linalgOp = cast<linalg::LinalgOp>(op);
      if (!linalgOp.hasPureBufferSemantics())
        return;
      for (Value operand : op->getOperands()) {
        auto type = dyn_cast<MemRefType>(operand.getType());
        if (!type || !type.isLastDimUnitStride() ||
            !(type.getElementType().isF32() || type.getElementType().isF64()))
          return;
      }
      // Plain products only: no transposed or broadcast indexing maps.
      SmallVector<AffineMap> defaults =
          isa<linalg::MatmulOp>(op)
              ? linalg::MatmulOp::getDefaultIndexingMaps(&getContext())
              : linalg::BatchMatmulOp::getDefaultIndexingMaps(&getContext());
      if (linalgOp.getIndexingMapsArray() != defaults)
        return;
      matmuls.push_back(op);
    });
    OpBuilder builder(&getContext());
    for (Operation *op : matmuls) {
      builder.setInsertionPoint(op);
      Location loc = op->getLoc();
      SmallVector<Value> args;
      for (Value operand : op->getOperands())
        args.push_back(castToUnranked(builder, loc, operand));
      Type elem =
          cast<MemRefType>(op->getOperand(0).getType()).getElementType();
      SmallVector<Type> argTypes;
      for (Value a : args)
        argTypes.push_back(a.getType());
      std::string name = (isa<linalg::BatchMatmulOp>(op) ? "tflrt_batch_matmul_"
                                                         : "tflrt_matmul_") +
                         runtimeTypeSuffix(elem).str();
      func::FuncOp fn = getOrInsertRuntimeFunction(
          builder, module, name, builder.getFunctionType(argTypes, {}));
      func::CallOp::create(builder, loc, fn, args);
      op->erase();
    }
    module.walk([&](PrintOp op) {
      if (!op.getInputs().empty())
        return;
      builder.setInsertionPoint(op);
      emitPrintCalls(builder, op, {});
      op.erase();
    });
    // Text with string flags' values: libtflrt fills it in.
    module.walk([&](PrintTemplateOp op) {
      builder.setInsertionPoint(op);
      auto ptrType = LLVM::LLVMPointerType::get(builder.getContext());
      func::FuncOp fn =
          getOrInsertRuntimeFunction(builder, module, "tflrt_print_template",
                                     builder.getFunctionType({ptrType}, {}));
      Value text =
          getOrCreateStringPointer(builder, op.getLoc(), module, op.getText());
      func::CallOp::create(builder, op.getLoc(), fn, ValueRange{text});
      op.erase();
    });
  }
};

} // namespace
} // namespace mlir::tfl
