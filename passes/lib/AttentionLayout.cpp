//===- AttentionLayout.cpp - Head transposes folded into attention --------===//
//
// tfl-attention-layout: an attention (or its adjoint) whose every operand
// is a transpose swapping dims r-3 and r-2 ([..., T, H, E] -> [..., H, T,
// E], how a transformer splits its heads) takes the transposes' inputs
// instead, with `seq_major`; its results are transposed back, and those
// transposes cancel against the ones that consume them (tfl.transpose's
// folder). The kernels then read the heads where the projections left
// them and write their results where the next product reads them.
//
//===----------------------------------------------------------------------===//

#include "tfl/IR/Attention.h"
#include "tfl/IR/TflOps.h"
#include "tfl/Passes/Passes.h"

#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::tfl {

#define GEN_PASS_DEF_TFLATTENTIONLAYOUT
#include "tfl/Passes/Passes.h.inc"

namespace {

/// The value `v` is the seq/heads swap of (a tfl.transpose by
/// seqHeadsSwap), or null.
Value swappedFrom(Value v) {
  auto transpose = v.getDefiningOp<TransposeOp>();
  if (!transpose)
    return {};
  ArrayRef<int64_t> perm = transpose.getPerm();
  int64_t rank = perm.size();
  if (rank < 3 || perm != ArrayRef<int64_t>(seqHeadsSwap(rank)))
    return {};
  return transpose.getInput();
}

/// `type` transposed by seqHeadsSwap.
RankedTensorType swappedType(Type type) {
  auto tensor = cast<RankedTensorType>(type);
  return tensor.clone(seqHeadsSwapped(tensor.getShape()));
}

template <typename OpTy> struct FoldHeadTransposes : OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;

  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    if (op.getSeqMajor())
      return failure();
    SmallVector<Value> inputs;
    for (Value operand : op->getOperands()) {
      Value from = swappedFrom(operand);
      if (!from)
        return rewriter.notifyMatchFailure(op, "an operand is not a head "
                                               "transpose");
      inputs.push_back(from);
    }
    Location loc = op.getLoc();
    SmallVector<Type> types;
    for (Type type : op->getResultTypes())
      types.push_back(swappedType(type));
    OperationState state(loc, op->getName(), inputs, types, op->getAttrs());
    state.addAttribute(op.getSeqMajorAttrName(), rewriter.getUnitAttr());
    Operation *folded = rewriter.create(state);
    SmallVector<Value> back;
    for (auto [result, type] :
         llvm::zip(folded->getResults(), op->getResultTypes())) {
      int64_t rank = cast<RankedTensorType>(type).getRank();
      back.push_back(TransposeOp::create(
          rewriter, loc, type, result,
          rewriter.getDenseI64ArrayAttr(seqHeadsSwap(rank))));
    }
    rewriter.replaceOp(op, back);
    return success();
  }
};

struct AttentionLayout : impl::TflAttentionLayoutBase<AttentionLayout> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<FoldHeadTransposes<AttentionOp>,
                 FoldHeadTransposes<AttentionBackwardOp>>(&getContext());
    // Only these ops (and the transposes they leave, which fold or die):
    // the rest of the function is left as the stage before made it.
    GreedyRewriteConfig config;
    config.setStrictness(GreedyRewriteStrictness::ExistingAndNewOps);
    SmallVector<Operation *> ops;
    getOperation().walk([&](Operation *op) {
      if (isa<AttentionOp, AttentionBackwardOp, TransposeOp>(op))
        ops.push_back(op);
    });
    if (ops.empty())
      return markAllAnalysesPreserved();
    if (failed(applyOpPatternsGreedily(ops, std::move(patterns), config)))
      signalPassFailure();
  }
};

} // namespace
} // namespace mlir::tfl
