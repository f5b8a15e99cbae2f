//===- TflToLinalg.cpp - The tfl-to-linalg conversion pass ----------------===//
//
// Applies every op family's patterns; tfl is illegal afterwards (but for
// tfl.print, lowered by bufferization), so an op without a lowering is
// reported at its `.tfl` location.
//
//===----------------------------------------------------------------------===//

#include "tfl/Codegen/Passes.h"
#include "tfl/IR/TflOps.h"

#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Transforms/DialectConversion.h"

namespace mlir::tfl {

#define GEN_PASS_DEF_CONVERTTFLTOLINALG
#include "tfl/Codegen/Passes.h.inc"

namespace {

struct ConvertTflToLinalgPass
    : impl::ConvertTflToLinalgBase<ConvertTflToLinalgPass> {
  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    RewritePatternSet patterns(ctx);
    populateTflElementwiseToLinalgPatterns(patterns);
    populateTflLinearToLinalgPatterns(patterns);
    populateTflReductionToLinalgPatterns(patterns);
    populateTflDataMovementToLinalgPatterns(patterns);

    ConversionTarget target(*ctx);
    target.addIllegalDialect<TflDialect>();
    // Print is lowered during bufferization (PrintBufferization.cpp).
    target.addLegalOp<PrintOp>();
    target.addLegalDialect<
        arith::ArithDialect, bufferization::BufferizationDialect,
        func::FuncDialect, linalg::LinalgDialect, LLVM::LLVMDialect,
        math::MathDialect, memref::MemRefDialect, tensor::TensorDialect>();
    if (failed(applyPartialConversion(getOperation(), target,
                                      std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
} // namespace mlir::tfl
