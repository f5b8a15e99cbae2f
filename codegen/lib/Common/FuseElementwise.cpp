//===- FuseElementwise.cpp - Elementwise fusion that keeps products -------===//
//
// linalg's elementwise fusion (the patterns of upstream's
// linalg-fuse-elementwise-ops, with its one-use rule), except that a
// reshape is never folded into or out of a product (`linalg.matmul`,
// `linalg.batch_matmul`). Upstream's folding by expansion turns a
// batch_matmul next to a collapse_shape (the batch dims of a rank-4
// product, the heads of attention, folded into one) into a rank-5
// `linalg.generic` contraction, which no library call takes: on the GPU it
// ran as one block per output element, on the CPU as scalar loops. Kept
// named, such a product reads the collapsed view in place and reaches
// BLAS or cuBLAS (strided-batched); the reshapes stay views. Nor is
// anything fused into a transpose that a product reads (a copy through a
// permutation, as a product's pullback makes for A^T dC): tfl-matmul-
// operands folds such a copy into the product's transpose flag, where a
// fused one would compute its producer in the transposed order, reading
// it with gathers (a checkpoint's recomputed GELU, read only by its
// weight gradient's product, did).
//
//===----------------------------------------------------------------------===//

#include "tfl/Codegen/LinalgCopies.h"
#include "tfl/Codegen/Passes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tensor/Transforms/Transforms.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::tfl {

#define GEN_PASS_DEF_FUSEELEMENTWISE
#include "tfl/Codegen/Passes.h.inc"

namespace {

bool isProduct(Operation *op) {
  return isa_and_nonnull<linalg::MatmulOp, linalg::BatchMatmulOp>(op);
}

/// A transpose: a linalg.generic that copies its one input through a
/// permutation of its dims other than the identity.
bool isTransposeCopy(Operation *op) {
  std::optional<AffineMap> map = copyMap(op);
  return map && map->isPermutation() && !map->isIdentity();
}

/// Whether a product reads `value`, directly or through reshapes.
bool feedsProduct(Value value) {
  for (Operation *user : value.getUsers()) {
    if (isProduct(user))
      return true;
    if (isa<tensor::CollapseShapeOp, tensor::ExpandShapeOp>(user) &&
        feedsProduct(user->getResult(0)))
      return true;
  }
  return false;
}

struct FuseElementwisePass : impl::FuseElementwiseBase<FuseElementwisePass> {
  void runOnOperation() override {
    MLIRContext *context = &getContext();
    RewritePatternSet patterns(context);
    // The fused operand's producer has no other use (upstream's rule),
    // neither side of a reshape folding is a product, and the consumer is
    // not a transpose a product reads.
    linalg::ControlFusionFn control = [](OpOperand *fused) {
      Operation *producer = fused->get().getDefiningOp();
      Operation *consumer = fused->getOwner();
      if (isProduct(producer) || isProduct(consumer))
        return false;
      if (isTransposeCopy(consumer) && feedsProduct(consumer->getResult(0)))
        return false;
      return producer && producer->hasOneUse();
    };
    linalg::populateElementwiseOpsFusionPatterns(patterns, control);
    linalg::populateFoldReshapeOpsByExpansionPatterns(patterns, control);
    tensor::populateBubbleUpExpandShapePatterns(patterns);
    affine::AffineApplyOp::getCanonicalizationPatterns(patterns, context);
    linalg::GenericOp::getCanonicalizationPatterns(patterns, context);
    tensor::ExpandShapeOp::getCanonicalizationPatterns(patterns, context);
    tensor::CollapseShapeOp::getCanonicalizationPatterns(patterns, context);
    context->getLoadedDialect<linalg::LinalgDialect>()
        ->getCanonicalizationPatterns(patterns);
    linalg::populateConstantFoldLinalgOperations(patterns, control);
    (void)applyPatternsGreedily(getOperation(), std::move(patterns),
                                GreedyRewriteConfig().setUseTopDownTraversal());
  }
};

} // namespace
} // namespace mlir::tfl
