//===- PrintBufferization.cpp - tfl.print on buffers ----------------------===//
//
// tfl.print stays a tfl op through tfl-to-linalg and is lowered while
// One-Shot Bufferize runs, through this BufferizableOpInterface model: the
// analysis then knows print reads its tensors, so their buffers stay alive
// and unwritten until it runs. (Lowering print to memref casts before
// bufferization hides those reads, and a buffer reused in place afterwards
// prints the wrong values.)
//
// The calls: `tflrt_print_text` for each non-empty piece of literal text and
// `tflrt_print_<dtype>` for each tensor, passed as an unranked memref.
//
//===----------------------------------------------------------------------===//

#include "tfl/Codegen/Registration.h"
#include "tfl/Codegen/RuntimeAbi.h"
#include "tfl/Codegen/RuntimeCallModel.h"
#include "tfl/IR/TflDialect.h"
#include "tfl/IR/TflOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/BufferizableOpInterface.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/DialectRegistry.h"

namespace mlir::tfl {

void emitPrintCalls(OpBuilder &builder, PrintOp op, ValueRange buffers) {
  Location loc = op.getLoc();
  auto module = op->getParentOfType<ModuleOp>();
  auto ptrType = LLVM::LLVMPointerType::get(builder.getContext());
  SmallVector<std::string> pieces = op.getTextPieces();
  SmallVector<std::string> specs = op.getSpecs();
  for (size_t i = 0; i < pieces.size(); ++i) {
    if (!pieces[i].empty()) {
      func::FuncOp fn =
          getOrInsertRuntimeFunction(builder, module, "tflrt_print_text",
                                     builder.getFunctionType({ptrType}, {}));
      Value text = getOrCreateStringPointer(builder, loc, module, pieces[i]);
      func::CallOp::create(builder, loc, fn, ValueRange{text});
    }
    if (i >= buffers.size())
      continue;
    Value unranked = castToUnranked(builder, loc, buffers[i]);
    Value spec = getOrCreateStringPointer(builder, loc, module, specs[i]);
    Type elem = cast<MemRefType>(buffers[i].getType()).getElementType();
    func::FuncOp fn = getOrInsertRuntimeFunction(
        builder, module, ("tflrt_print_" + runtimeTypeSuffix(elem)).str(),
        builder.getFunctionType({unranked.getType(), ptrType}, {}));
    func::CallOp::create(builder, loc, fn, ValueRange{unranked, spec});
  }
}

namespace {

struct PrintOpBufferization : RuntimeCallModel<PrintOpBufferization, PrintOp> {
  LogicalResult bufferize(Operation *op, RewriterBase &rewriter,
                          const bufferization::BufferizationOptions &options,
                          bufferization::BufferizationState &state) const {
    auto print = cast<PrintOp>(op);
    FailureOr<SmallVector<Value>> buffers =
        getBuffers(rewriter, print.getInputs(), options, state);
    if (failed(buffers))
      return failure();
    rewriter.setInsertionPoint(op);
    emitPrintCalls(rewriter, print, *buffers);
    rewriter.eraseOp(op);
    return success();
  }
};

} // namespace

void registerBufferizationModels(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *ctx, TflDialect *) {
    PrintOp::attachInterface<PrintOpBufferization>(*ctx);
    attachRandomBufferizationModels(ctx);
    attachDataBufferizationModels(ctx);
    attachConvBufferizationModels(ctx);
    attachCollectiveBufferizationModels(ctx);
    attachBarrierBufferizationModel(ctx);
    ctx->getOrLoadDialect<arith::ArithDialect>();
    // The lowering creates ops of these; load them with tfl, since
    // one-shot-bufferize does not declare them.
    ctx->getOrLoadDialect<func::FuncDialect>();
    ctx->getOrLoadDialect<LLVM::LLVMDialect>();
    ctx->getOrLoadDialect<memref::MemRefDialect>();
  });
}

} // namespace mlir::tfl
