//===- HalfFloats.cpp - bf16 conversions without bf16 hardware ------------===//
//
// The 16-bit floats are storage types: arith-emulate-unsupported-floats and
// math-extend-to-supported-types compute on them in f32 between
// conversions, and this pass turns the bf16 conversions into integer
// arithmetic (MLIR's own expansion), which any CPU runs and vectorizes.
//
//===----------------------------------------------------------------------===//

#include "tfl/Codegen/Passes.h"

#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::tfl {

#define GEN_PASS_DEF_EXPANDBF16CONVERSIONS
#include "tfl/Codegen/Passes.h.inc"

namespace {

struct ExpandBF16Conversions
    : impl::ExpandBF16ConversionsBase<ExpandBF16Conversions> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    arith::populateExpandBFloat16Patterns(patterns);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
} // namespace mlir::tfl
