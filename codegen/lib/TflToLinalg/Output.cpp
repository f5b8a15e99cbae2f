//===- Output.cpp - tfl.print to libtflrt calls ---------------------------===//
//
// tfl.print becomes, in order, `tflrt_print_text` for each non-empty piece of
// literal text and `tflrt_print_<dtype>` for each tensor, the tensor passed
// as an unranked memref (bufferization.to_buffer + memref.cast).
//
//===----------------------------------------------------------------------===//

#include "tfl/Codegen/Passes.h"
#include "tfl/Codegen/RuntimeAbi.h"
#include "tfl/IR/TflOps.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Transforms/DialectConversion.h"

namespace mlir::tfl {
namespace {

struct PrintToRuntime : OpConversionPattern<PrintOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(PrintOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto module = op->getParentOfType<ModuleOp>();
    auto ptrType = LLVM::LLVMPointerType::get(rewriter.getContext());
    SmallVector<std::string> pieces = op.getTextPieces();
    for (size_t i = 0; i < pieces.size(); ++i) {
      if (!pieces[i].empty()) {
        func::FuncOp fn = getOrInsertRuntimeFunction(
            rewriter, module, "tflrt_print_text",
            rewriter.getFunctionType({ptrType}, {}));
        Value text = getOrCreateStringPointer(rewriter, loc, module, pieces[i]);
        func::CallOp::create(rewriter, loc, fn, ValueRange{text});
      }
      if (i >= adaptor.getInputs().size())
        continue;
      Value tensor = adaptor.getInputs()[i];
      auto type = cast<RankedTensorType>(tensor.getType());
      auto memrefType = MemRefType::get(type.getShape(), type.getElementType());
      Value buffer = bufferization::ToBufferOp::create(
          rewriter, loc, memrefType, tensor, /*readOnly=*/true);
      Value unranked = castToUnranked(rewriter, loc, buffer);
      func::FuncOp fn = getOrInsertRuntimeFunction(
          rewriter, module,
          ("tflrt_print_" + runtimeTypeSuffix(type.getElementType())).str(),
          rewriter.getFunctionType({unranked.getType()}, {}));
      func::CallOp::create(rewriter, loc, fn, ValueRange{unranked});
    }
    rewriter.eraseOp(op);
    return success();
  }
};

} // namespace

void populateTflOutputToRuntimePatterns(RewritePatternSet &patterns) {
  patterns.add<PrintToRuntime>(patterns.getContext());
}

} // namespace mlir::tfl
