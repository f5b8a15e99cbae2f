//===- RuntimeCalls.cpp - Ops on buffers to libtflrt calls ----------------===//
//
// Replaces `linalg.matmul` and `linalg.batch_matmul` on float memrefs with
// row-contiguous layouts by `tflrt_gemm_<dtype>(flags, A, B, C)` (BLAS;
// the CUDA wing calls libtflrt_cuda's tflrt_cuda_gemm_<dtype>, on cuBLAS),
// whose flags carry transposed operands and an overwritten C. 16-bit
// products are the CUDA target's (tfl-widen-half widens them elsewhere).
// Other matmuls (integers, exotic layouts) stay for
// convert-linalg-to-loops. Prints without
// tensors, which bufferization never visits, become their text calls, and
// `tfl.print_template` a call of tflrt_print_template.
//
//===----------------------------------------------------------------------===//

#include "tfl/Codegen/Passes.h"
#include "tfl/Codegen/RuntimeAbi.h"
#include "tfl/IR/TflOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

namespace mlir::tfl {

#define GEN_PASS_DEF_LOWERTORUNTIMECALLS
#include "tfl/Codegen/Passes.h.inc"

namespace {

/// The maps of C (+)= op(A) @ op(B) for each combination of transposes
/// (bit 0: A, bit 1: B), for a matmul (rank 2) or a batch_matmul (3).
SmallVector<AffineMap> productMaps(MLIRContext *ctx, unsigned rank,
                                   int64_t flags) {
  SmallVector<AffineMap> maps =
      rank == 2 ? linalg::MatmulOp::getDefaultIndexingMaps(ctx)
                : linalg::BatchMatmulOp::getDefaultIndexingMaps(ctx);
  for (unsigned i = 0; i < 2; ++i) {
    if (!(flags & (1 << i)))
      continue;
    SmallVector<AffineExpr> results(maps[i].getResults());
    std::swap(results[results.size() - 1], results[results.size() - 2]);
    maps[i] = AffineMap::get(maps[i].getNumDims(), 0, results, ctx);
  }
  return maps;
}

struct LowerToRuntimeCallsPass
    : impl::LowerToRuntimeCallsBase<LowerToRuntimeCallsPass> {
  using LowerToRuntimeCallsBase::LowerToRuntimeCallsBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    // Each product and its transpose flags.
    SmallVector<std::pair<Operation *, int64_t>> matmuls;
    module.walk([&](Operation *op) {
      if (!isa<linalg::MatmulOp, linalg::BatchMatmulOp>(op))
        return;
      auto linalgOp = cast<linalg::LinalgOp>(op);
      if (!linalgOp.hasPureBufferSemantics())
        return;
      for (Value operand : op->getOperands()) {
        auto type = dyn_cast<MemRefType>(operand.getType());
        Type elem = type ? type.getElementType() : Type();
        if (!type || !type.isLastDimUnitStride() ||
            !(elem.isF32() || elem.isF64() || elem.isBF16() || elem.isF16()))
          return;
      }
      // Products with or without transposed operands; no broadcast
      // indexing maps.
      unsigned rank = isa<linalg::MatmulOp>(op) ? 2 : 3;
      SmallVector<AffineMap> maps = linalgOp.getIndexingMapsArray();
      for (int64_t flags = 0; flags < 4; ++flags)
        if (maps == productMaps(&getContext(), rank, flags)) {
          matmuls.push_back({op, flags});
          return;
        }
    });
    OpBuilder builder(&getContext());
    for (auto [op, transposes] : matmuls) {
      builder.setInsertionPoint(op);
      Location loc = op->getLoc();
      SmallVector<Value> args;
      int64_t flags = transposes;
      auto product = cast<linalg::LinalgOp>(op);
      if (linalg::FillOp fill = zeroFillBefore(
              op, product.getDpsInits().front(), product.getDpsInputs())) {
        fill.erase();
        flags |= 4; // TFLRT_GEMM_OVERWRITE
      }
      args.push_back(arith::ConstantIntOp::create(builder, loc, flags, 64));
      for (Value operand : op->getOperands())
        args.push_back(castToUnranked(builder, loc, operand));
      Type elem =
          cast<MemRefType>(op->getOperand(0).getType()).getElementType();
      SmallVector<Type> argTypes;
      for (Value a : args)
        argTypes.push_back(a.getType());
      // tflrt_gemm_* takes 2-D and 3-D (batched) memrefs alike.
      std::string name = "tflrt_gemm_" + runtimeTypeSuffix(elem).str();
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
