//===- SplitReductions.cpp - Large sums to a scalar on every core ---------===//
//
// A reduction of a large tensor to a scalar (a loss's sum, a norm, the fused
// loop of an elementwise expression ending in `sum`) has no parallel dim,
// so tfl-parallelize-loops leaves it on one thread. On the CPU, before
// bufferization, linalg's split reduction turns one such generic of N
// elements into 64 partial reductions of N / 64 (a parallel dim the
// parallel-loop pass spreads over the cores) and a reduction of the 64
// partials. The sum's order changes, as a vectorized reduction's already
// does.
//
//===----------------------------------------------------------------------===//

#include "tfl/Codegen/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

namespace mlir::tfl {

#define GEN_PASS_DEF_SPLITREDUCTIONS
#include "tfl/Codegen/Passes.h.inc"

namespace {

/// The fewest elements worth splitting: below, one thread's vector loop
/// is done before the others would start.
constexpr int64_t kMinElements = int64_t(1) << 16;

/// The partial reductions, and the largest divisor of N up to that many
/// used where it does not divide.
constexpr int64_t kParts = 64;

/// How to split `op`: a ratio of 0 (not at all) unless it is a generic
/// reducing one static dim of kMinElements or more to a scalar.
linalg::SplitReductionOptions splitOf(linalg::LinalgOp op) {
  linalg::SplitReductionOptions none;
  auto generic = dyn_cast<linalg::GenericOp>(op.getOperation());
  if (!generic || !generic.hasPureTensorSemantics() ||
      generic.getNumLoops() != 1 || generic.getNumReductionLoops() != 1 ||
      generic.getNumDpsInits() != 1)
    return none;
  SmallVector<int64_t> ranges = generic.getStaticLoopRanges();
  int64_t n = ranges[0];
  if (ShapedType::isDynamic(n) || n < kMinElements)
    return none;
  for (int64_t parts = kParts; parts > 1; parts /= 2)
    if (n % parts == 0)
      return {parts, 0, false};
  return none;
}

struct SplitReductionsPass : impl::SplitReductionsBase<SplitReductionsPass> {
  void runOnOperation() override {
    SmallVector<linalg::GenericOp> candidates;
    getOperation().walk([&](linalg::GenericOp op) {
      if (splitOf(op).ratio > 1)
        candidates.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    for (linalg::GenericOp op : candidates) {
      rewriter.setInsertionPoint(op);
      // An op whose combiner has no neutral element stays as it is.
      (void)linalg::splitReduction(rewriter, op, splitOf);
    }
  }
};

} // namespace
} // namespace mlir::tfl
