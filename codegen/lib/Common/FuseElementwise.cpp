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
// Before fusing, a cheap elementwise producer whose consumers are all
// elementwise gets a copy per consumer (`copyCheapProducers`), so that it
// fuses into each and is never written out: a gradient's forward values
// that its backward pass reads too (GELU's x / sqrt(2) and 1 + erf of it)
// are computed again from x where they are read, as XLA duplicates such
// producers. On W8 (a GPT's training step) that left out four of the
// GELU's five [1024, 512] intermediates per layer.
//
// A producer that a loop carries or a function returns, and that one
// elementwise consumer reads on the way (Adam's new moments, which the
// parameters' update reads), fuses into the consumer on the CPU as one
// generic that also yields the producer's results (FuseKeepingResult):
// the producer's operands are read once and its result is not read back.
// Adam's update of a parameter became one pass over the parameter, its
// gradient and its two moments, where three passes read seven arrays.
// (The CUDA target keeps the one-use rule: its kernels have not run
// generics of several results.) And no producer fuses into a loop it is
// outside of (upstream's rule took one before a training loop into the
// loop's body, to be computed again in each iteration).
//
//===----------------------------------------------------------------------===//

#include "tfl/Codegen/LinalgCopies.h"
#include "tfl/Codegen/Passes.h"
#include "tfl/IR/TflOps.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tensor/Transforms/Transforms.h"
#include "mlir/Interfaces/LoopLikeInterface.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::tfl {

#define GEN_PASS_DEF_FUSEELEMENTWISE
#include "tfl/Codegen/Passes.h.inc"

namespace {

/// Whether `consumer` runs in a loop that `producer` is outside of: fused
/// into it, the producer would be computed again in each iteration, where
/// written out once it is read in each (upstream's fusion moves a
/// producer before a training loop into the loop's body).
bool inLoopWithout(Operation *consumer, Operation *producer) {
  for (Operation *parent = consumer->getParentOp(); parent;
       parent = parent->getParentOp()) {
    if (parent->isAncestor(producer))
      return false;
    if (isa<LoopLikeOpInterface>(parent))
      return true;
  }
  return false;
}

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

/// What recomputing one element of `op`'s body costs, in arithmetic ops
/// (a transcendental function counts as kTranscendental, a division as
/// kDivision); -1 when it cannot be recomputed (it reads its indices).
constexpr int64_t kTranscendental = 8, kDivision = 4;
int64_t bodyCost(linalg::GenericOp op) {
  int64_t cost = 0;
  for (Operation &o : op.getBody()->without_terminator()) {
    if (isa<linalg::IndexOp>(o))
      return -1;
    if (isa_and_nonnull<math::MathDialect>(o.getDialect()))
      cost += kTranscendental;
    else if (isa<arith::DivFOp, arith::RemFOp>(o))
      cost += kDivision;
    else
      ++cost;
  }
  return cost;
}

/// The most a producer's body may cost to be computed again in each of its
/// consumers: GELU's 1 + erf(x / sqrt(2)) is within it.
constexpr int64_t kRecomputeCost = 12;

/// Whether `op` is an elementwise generic worth computing again in each
/// consumer rather than writing out once and reading back: every dim
/// parallel, one operand read element for element (the others smaller,
/// broadcast), its result written in order, a cheap body.
bool isRecomputable(linalg::GenericOp op) {
  if (!op.hasPureTensorSemantics() || op.getNumDpsInits() != 1 ||
      op.getNumParallelLoops() != op.getNumLoops())
    return false;
  OpOperand *init = op.getDpsInitOperand(0);
  if (op.payloadUsesValueFromOperand(init) ||
      !op.getMatchingIndexingMap(init).isIdentity())
    return false;
  int64_t whole = llvm::count_if(op.getDpsInputOperands(), [&](OpOperand *in) {
    return op.getMatchingIndexingMap(in).isIdentity();
  });
  int64_t cost = bodyCost(op);
  return whole == 1 && cost >= 0 && cost <= kRecomputeCost;
}

/// Before fusion: a cheap elementwise producer with several consumers, all
/// elementwise generics in its block reading it element for element (a
/// gradient's forward ops, which its backward ones read too: GELU's
/// x / sqrt(2) and 1 + erf of it), gets a copy per consumer, so that each
/// fuses into its consumer (upstream's one-use rule) and none is written
/// out: each consumer reads the producer's operand instead, and computes
/// it again. XLA's fusion duplicates such producers likewise.
void copyCheapProducers(Operation *root) {
  SmallVector<linalg::GenericOp> producers;
  root->walk([&](linalg::GenericOp op) {
    if (isRecomputable(op))
      producers.push_back(op);
  });
  // Consumers first: a copy reads its producer's own producer, which then
  // has one more consumer to be copied for.
  for (linalg::GenericOp op : llvm::reverse(producers)) {
    Value result = op->getResult(0);
    SmallVector<OpOperand *> uses;
    for (OpOperand &use : result.getUses())
      uses.push_back(&use);
    bool allElementwise = llvm::all_of(uses, [&](OpOperand *use) {
      auto consumer = dyn_cast<linalg::GenericOp>(use->getOwner());
      return consumer && consumer->getBlock() == op->getBlock() &&
             consumer.getMatchingIndexingMap(use).isPermutation();
    });
    if (uses.size() < 2 || !allElementwise)
      continue;
    OpBuilder b(op);
    b.setInsertionPointAfter(op);
    for (OpOperand *use : ArrayRef(uses).drop_front())
      use->set(b.clone(*op)->getResult(0));
  }
}

/// Whether `op` is an elementwise generic on tensors: every dim parallel,
/// at least one.
bool isElementwiseOnTensors(Operation *op) {
  auto generic = dyn_cast_or_null<linalg::GenericOp>(op);
  return generic && generic.hasPureTensorSemantics() &&
         generic.getNumLoops() > 0 &&
         generic.getNumParallelLoops() == generic.getNumLoops();
}

/// A producer that its block also yields or returns, fused into its
/// consumer as one generic that also yields the producer's results, which
/// the terminator then reads (upstream's fusion of such a producer
/// computes it in the consumer again and keeps it for the other use).
/// Both elementwise over the same dims, the consumer reading the producer
/// element for element in its own order (a transposing consumer would
/// compute the producer in its order), on the CPU, in one block (a
/// producer before a loop is not computed again in each iteration).
struct FuseKeepingResult : OpRewritePattern<linalg::GenericOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(linalg::GenericOp consumer,
                                PatternRewriter &rewriter) const override {
    // On the CPU: a CPU build's op, or a CUDA build's host work
    // (tfl-outline-host-work's functions).
    if (!isElementwiseOnTensors(consumer) ||
        deviceOfValue(consumer->getResult(0)).getValue() != "cpu")
      return failure();
    for (OpOperand *fused : consumer.getDpsInputOperands()) {
      Operation *producer = fused->get().getDefiningOp();
      if (!isElementwiseOnTensors(producer) || producer->hasOneUse() ||
          producer->getBlock() != consumer->getBlock() ||
          !consumer.getMatchingIndexingMap(fused).isIdentity() ||
          !linalg::areElementwiseOpsFusable(fused) ||
          !othersYielded(producer, consumer))
        continue;
      FailureOr<linalg::ElementwiseOpFusionResult> result =
          linalg::fuseElementwiseOps(rewriter, fused);
      if (failed(result))
        continue;
      for (auto [original, replacement] : result->replacements)
        rewriter.replaceAllUsesWith(original, replacement);
      rewriter.eraseOp(consumer);
      rewriter.eraseOp(producer);
      return success();
    }
    return failure();
  }

  /// Whether the consumer reads the producer through one operand (another
  /// would make the fused generic read its own result) and every other
  /// use is the block's terminator: a value the loop carries or the
  /// function returns. (A second consumer would take the producer's
  /// computation to its own place, later, and keep the producer's
  /// operands alive until there: W8's step peaked 5.5 MiB higher.)
  static bool othersYielded(Operation *producer, Operation *consumer) {
    int64_t byConsumer = 0;
    for (OpOperand &use : producer->getUses()) {
      Operation *user = use.getOwner();
      if (user == consumer) {
        if (++byConsumer > 1)
          return false;
        continue;
      }
      if (user->getBlock() != consumer->getBlock() ||
          !user->hasTrait<mlir::OpTrait::IsTerminator>())
        return false;
    }
    return true;
  }
};

struct FuseElementwisePass : impl::FuseElementwiseBase<FuseElementwisePass> {
  void runOnOperation() override {
    MLIRContext *context = &getContext();
    copyCheapProducers(getOperation());
    RewritePatternSet patterns(context);
    // The fused operand's producer has no other use (upstream's rule) and
    // is not outside a loop the consumer is in, neither side of a reshape
    // folding is a product, and the consumer is not a transpose a product
    // reads. A producer its block also yields fuses by FuseKeepingResult.
    linalg::ControlFusionFn control = [](OpOperand *fused) {
      Operation *producer = fused->get().getDefiningOp();
      Operation *consumer = fused->getOwner();
      if (isProduct(producer) || isProduct(consumer))
        return false;
      if (isTransposeCopy(consumer) && feedsProduct(consumer->getResult(0)))
        return false;
      return producer && producer->hasOneUse() &&
             !inLoopWithout(consumer, producer);
    };
    patterns.add<FuseKeepingResult>(context);
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
