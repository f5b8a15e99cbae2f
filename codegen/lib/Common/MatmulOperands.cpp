//===- MatmulOperands.cpp - Products in the form BLAS takes them ----------===//
//
// Before bufferization, on both targets: a transposed operand of a
// `linalg.matmul` or `linalg.batch_matmul` (a copy through a permutation
// that swaps the last two dims, as matmul's pullbacks make: dA = dC B^T,
// dB = A^T dC) folds into the product's indexing map, so that BLAS reads
// the operand where it is, with a transpose flag, instead of a copy. On
// the CPU, a transposed left operand that a loop around the product reads
// unchanged (a weight's transpose in a loop of Hessian-vector products, a
// fixed matrix in an iteration) is the exception: it stays a copy, made
// once before the loop, since oneDNN's sgemm is slowest with its left
// operand transposed (on a Zen 3, 1.15-1.4 times the time of the same
// product untransposed: docs/performance.md). And a product that starts
// from zeros gets a `linalg.fill` of its own, right before it: CSE had
// left one fill for many products, which bufferized into a copy of a zero
// buffer per product; a fill of the product's own buffer is what
// tfl-to-runtime-calls drops for an overwriting call (beta = 0). Every
// linalg.generic that starts from a shared fill (the zeros or -inf of a
// reduction: a layer norm's, a softmax's) gets its own the same way,
// instead of a serial copy of the shared buffer.
//
//===----------------------------------------------------------------------===//

#include "tfl/Codegen/LinalgCopies.h"
#include "tfl/Codegen/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/LoopLikeInterface.h"

namespace mlir::tfl {

#define GEN_PASS_DEF_MATMULOPERANDS
#include "tfl/Codegen/Passes.h.inc"

namespace {

/// The tensor that `value` is the transpose of (its last two dims
/// swapped), or null.
Value transposedFrom(Value value) {
  Operation *op = value.getDefiningOp();
  if (auto transpose = dyn_cast_or_null<linalg::TransposeOp>(op)) {
    ArrayRef<int64_t> perm = transpose.getPermutation();
    int64_t rank = perm.size();
    if (rank < 2 || perm[rank - 1] != rank - 2 || perm[rank - 2] != rank - 1)
      return {};
    for (int64_t d = 0; d + 2 < rank; ++d)
      if (perm[d] != d)
        return {};
    return transpose.getInput();
  }
  // A generic that only copies its input, through the swap.
  std::optional<AffineMap> map = copyMap(op);
  if (!map || map->getNumDims() < 2)
    return {};
  unsigned rank = map->getNumDims();
  SmallVector<unsigned> perm;
  for (unsigned d = 0; d < rank; ++d)
    perm.push_back(d);
  std::swap(perm[rank - 1], perm[rank - 2]);
  if (*map != AffineMap::getPermutationMap(perm, op->getContext()))
    return {};
  return op->getOperand(0);
}

/// `map` with its results' last two swapped: the map of the operand's
/// transpose.
AffineMap swapLastTwo(AffineMap map) {
  SmallVector<AffineExpr> results(map.getResults());
  std::swap(results[results.size() - 1], results[results.size() - 2]);
  return AffineMap::get(map.getNumDims(), 0, results, map.getContext());
}

bool isFloatProduct(linalg::LinalgOp op) {
  Type elem = getElementTypeOrSelf(op.getDpsInits().front().getType());
  return elem.isF32() || elem.isF64() || elem.isBF16() || elem.isF16();
}

/// The outermost loop around `op` (inside its function) that `value` is
/// defined outside of, or null: every iteration of that loop reads the
/// same `value`.
LoopLikeOpInterface outermostInvariantLoop(Operation *op, Value value) {
  LoopLikeOpInterface outermost;
  for (Operation *parent = op->getParentOp();
       parent && !isa<FunctionOpInterface>(parent);
       parent = parent->getParentOp()) {
    auto loop = dyn_cast<LoopLikeOpInterface>(parent);
    if (!loop)
      continue;
    if (!loop.isDefinedOutsideOfLoop(value))
      break;
    outermost = loop;
  }
  return outermost;
}

/// Moves `copy`, which copies a tensor defined outside `loop`, before
/// `loop` (where it is inside), so that it is made once for every product
/// that reads it; its init there is a new empty tensor where the old one
/// was made inside (that one goes to `replaced`). False where the init
/// cannot be made before the loop.
bool moveBeforeLoop(IRRewriter &rewriter, linalg::LinalgOp copy,
                    LoopLikeOpInterface loop,
                    SetVector<Operation *> &replaced) {
  if (!loop->isAncestor(copy))
    return true;
  OpOperand &init = copy.getDpsInitsMutable()[0];
  if (!loop.isDefinedOutsideOfLoop(init.get())) {
    auto empty = init.get().getDefiningOp<tensor::EmptyOp>();
    if (!empty || !llvm::all_of(empty->getOperands(), [&](Value size) {
          return loop.isDefinedOutsideOfLoop(size);
        }))
      return false;
    rewriter.setInsertionPoint(loop);
    Value outside = rewriter.clone(*empty)->getResult(0);
    rewriter.modifyOpInPlace(copy, [&] { init.set(outside); });
    replaced.insert(empty);
  }
  rewriter.moveOpBefore(copy, loop);
  return true;
}

/// Folds transposed operands into the product's indexing maps; the
/// transposes go to `replaced`. With `invariantLeftCopies`, a transposed
/// left operand that a loop around the product reads unchanged in every
/// iteration stays a copy, made once before the outermost such loop: the
/// product then reads a row-major left operand, where a transpose flag on
/// it is the slowest of oneDNN's sgemm forms on AVX2 (docs/performance.md).
void foldTransposes(IRRewriter &rewriter, linalg::LinalgOp op,
                    SetVector<Operation *> &replaced,
                    bool invariantLeftCopies) {
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  SmallVector<Value> inputs(op.getDpsInputs());
  bool changed = false;
  for (unsigned i = 0; i < 2; ++i) {
    Value source = transposedFrom(inputs[i]);
    if (!source)
      continue;
    if (i == 0 && invariantLeftCopies)
      if (LoopLikeOpInterface loop = outermostInvariantLoop(op, source))
        if (moveBeforeLoop(rewriter,
                           inputs[i].getDefiningOp<linalg::LinalgOp>(), loop,
                           replaced))
          continue;
    replaced.insert(inputs[i].getDefiningOp());
    inputs[i] = source;
    maps[i] = swapLastTwo(maps[i]);
    changed = true;
  }
  if (!changed)
    return;
  rewriter.setInsertionPoint(op);
  NamedAttribute mapsAttr(rewriter.getStringAttr("indexing_maps"),
                          rewriter.getAffineMapArrayAttr(maps));
  Operation *product;
  if (isa<linalg::MatmulOp>(op))
    product =
        linalg::MatmulOp::create(rewriter, op.getLoc(), op->getResultTypes(),
                                 inputs, op.getDpsInits(), {mapsAttr});
  else
    product = linalg::BatchMatmulOp::create(rewriter, op.getLoc(),
                                            op->getResultTypes(), inputs,
                                            op.getDpsInits(), {mapsAttr});
  rewriter.replaceOp(op, product->getResults());
}

/// A fill of its own for `init` of `op`, which starts from a shared one;
/// the shared one goes to `replaced`. Products take only zero fills (what
/// an overwriting library call drops).
void ownFill(IRRewriter &rewriter, linalg::LinalgOp op, OpOperand &init,
             SetVector<Operation *> &replaced) {
  auto fill = init.get().getDefiningOp<linalg::FillOp>();
  if (!fill)
    return;
  if (isa<linalg::MatmulOp, linalg::BatchMatmulOp>(op) &&
      !matchPattern(fill.getInputs().front(), m_AnyZeroFloat()))
    return;
  if (fill->hasOneUse() && fill->getNextNode() == op.getOperation())
    return;
  rewriter.setInsertionPoint(op);
  Value dest = fill.getOutputs().front();
  if (auto empty = dest.getDefiningOp<tensor::EmptyOp>())
    dest = rewriter.clone(*empty)->getResult(0);
  auto own = linalg::FillOp::create(rewriter, fill.getLoc(),
                                    fill.getInputs().front(), dest);
  replaced.insert(fill);
  rewriter.modifyOpInPlace(op, [&] { init.set(own.getResult(0)); });
}

struct MatmulOperandsPass : impl::MatmulOperandsBase<MatmulOperandsPass> {
  using MatmulOperandsBase::MatmulOperandsBase;

  void runOnOperation() override {
    IRRewriter rewriter(&getContext());
    SmallVector<linalg::LinalgOp> products;
    getOperation().walk([&](linalg::LinalgOp op) {
      if (isa<linalg::MatmulOp, linalg::BatchMatmulOp>(op) &&
          op.hasPureTensorSemantics() && isFloatProduct(op))
        products.push_back(op);
    });
    SetVector<Operation *> replaced;
    for (linalg::LinalgOp op : products) {
      ownFill(rewriter, op, *op.getDpsInitOperand(0), replaced);
      foldTransposes(rewriter, op, replaced, invariantLeftCopies);
    }
    // Reductions start from fills too (zeros, -inf), which CSE shares.
    SmallVector<linalg::GenericOp> generics;
    getOperation().walk([&](linalg::GenericOp op) {
      if (op.hasPureTensorSemantics())
        generics.push_back(op);
    });
    for (linalg::GenericOp op : generics)
      for (OpOperand &init : op.getDpsInitsMutable())
        ownFill(rewriter, op, init, replaced);
    // The transposes and fills no longer used, and what they alone used.
    while (!replaced.empty()) {
      Operation *op = replaced.pop_back_val();
      if (!op->use_empty() || !isMemoryEffectFree(op))
        continue;
      for (Value operand : op->getOperands())
        if (Operation *def = operand.getDefiningOp())
          if (isa<tensor::EmptyOp, linalg::FillOp>(def))
            replaced.insert(def);
      rewriter.eraseOp(op);
    }
  }
};

} // namespace
} // namespace mlir::tfl
