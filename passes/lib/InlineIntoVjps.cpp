//===- InlineIntoVjps.cpp - Calls inside vjps inlined ---------------------===//
//
// tfl-inline-into-vjps: MLIR's SCC inliner, asked to inline only the calls
// made inside the functions tfl-autodiff built (Passes.td says why).
//
//===----------------------------------------------------------------------===//

#include "tfl/Passes/Passes.h"

#include "mlir/Analysis/CallGraph.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Transforms/Inliner.h"

namespace mlir::tfl {

#define GEN_PASS_DEF_TFLINLINEINTOVJPS
#include "tfl/Passes/Passes.h.inc"

namespace {

struct InlineIntoVjps : impl::TflInlineIntoVjpsBase<InlineIntoVjps> {
  static LogicalResult runPipelineHelper(Pass &pass, OpPassManager &pipeline,
                                         Operation *op) {
    return static_cast<InlineIntoVjps &>(pass).runPipeline(pipeline, op);
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    bool any = false;
    module.walk([&](func::FuncOp f) { any |= f->hasAttr("tfl.vjp"); });
    if (!any)
      return markAllAnalysesPreserved();
    CallGraph &cg = getAnalysis<CallGraph>();
    // No clean-up pipeline between inlinings (the simplify stage's
    // canonicalizer and CSE run after); a few rounds within a recursive
    // SCC, as MLIR's inliner pass.
    InlinerConfig config(nullptr, /*maxInliningIterations=*/4);
    auto intoVjp = [](const Inliner::ResolvedCall &call) {
      Operation *caller = call.call->getParentOfType<func::FuncOp>();
      return caller && caller->hasAttr("tfl.vjp");
    };
    Inliner inliner(module, cg, *this, getAnalysisManager(), runPipelineHelper,
                    config, intoVjp);
    if (failed(inliner.doInlining()))
      signalPassFailure();
  }
};

} // namespace
} // namespace mlir::tfl
