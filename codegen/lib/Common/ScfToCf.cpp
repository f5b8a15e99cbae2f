//===- ScfToCf.cpp - scf to a CFG, last op first --------------------------===//
//
// Upstream's SCF-to-CF pass applies its patterns through the dialect
// conversion driver, forwards: lowering an op splits its block after it,
// moving every later op of the block to a new one, one op at a time with
// the driver notified of each. A training step's loop body ends with
// hundreds of conditional deallocations (`scf.if %owned { dealloc }`), so
// the pass was quadratic in the body: 0.9 s of an 8-layer GPT's build,
// three times the 4-layer one's. This pass applies the same patterns last
// op first, nested ops before the op holding them, with a rewriter that
// has no listener: a split then moves only the ops up to the next op
// already lowered, and splices them. Regions of ops still to be lowered
// hold several blocks in between, which upstream's patterns for them
// expect (they take the last block of a region as its exit); those of
// scf.parallel and scf.while do not, so these are lowered first, in
// upstream's order.
//
//===----------------------------------------------------------------------===//

#include "tfl/Codegen/Passes.h"

#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Rewrite/FrozenRewritePatternSet.h"
#include "mlir/Rewrite/PatternApplicator.h"

namespace mlir::tfl {

#define GEN_PASS_DEF_SCFTOCF
#include "tfl/Codegen/Passes.h.inc"

namespace {

struct ScfToCfPass : impl::ScfToCfBase<ScfToCfPass> {
  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    RewritePatternSet patterns(ctx);
    populateSCFToControlFlowConversionPatterns(patterns);
    FrozenRewritePatternSet frozen(std::move(patterns));
    PatternApplicator applicator(frozen);
    applicator.applyDefaultCostModel();
    PatternRewriter rewriter(ctx); // no listener: splits splice
    // Upstream's patterns take every op of these kinds.
    auto lower = [&](Operation *op) {
      rewriter.setInsertionPoint(op);
      if (succeeded(applicator.matchAndRewrite(op, rewriter)))
        return true;
      op->emitOpError("could not be lowered to branches");
      signalPassFailure();
      return false;
    };

    // scf.parallels and scf.whiles first, outermost first, as upstream's
    // pass takes them: their lowerings read only the first block of a
    // body (scf.parallel's to make scf.fors, scf.while's for its yield).
    SmallVector<Operation *> first;
    getOperation()->walk<WalkOrder::PreOrder>([&](Operation *op) {
      if (isa<scf::ParallelOp, scf::WhileOp>(op))
        first.push_back(op);
    });
    for (Operation *op : first)
      if (!lower(op))
        return;

    // Then reverse pre-order: later ops of a block first, nested ops
    // before the op holding them. An op's lowering only moves or erases
    // the ops it holds and the ops after it in its block, all lowered by
    // then.
    SmallVector<Operation *> ops;
    getOperation()->walk<WalkOrder::PreOrder>([&](Operation *op) {
      if (isa<scf::ForOp, scf::IfOp, scf::ExecuteRegionOp>(op))
        ops.push_back(op);
    });
    for (Operation *op : llvm::reverse(ops))
      if (!lower(op))
        return;
  }
};

} // namespace

} // namespace mlir::tfl
