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
#include "mlir/IR/IRMapping.h"
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

/// Whether `value` is defined inside `loop` (in its regions, or one of
/// its own block arguments).
bool definedInside(Operation *loop, Value value) {
  return loop->isAncestor(value.getParentBlock()->getParentOp());
}

/// The outermost loop around `op` (inside its function) that `value` is
/// defined outside of, or null: every iteration of that loop reads the
/// same `value`.
Operation *outermostInvariantLoop(Operation *op, Value value) {
  Operation *outermost = nullptr;
  for (Operation *parent = op->getParentOp();
       parent && !isa<FunctionOpInterface>(parent);
       parent = parent->getParentOp()) {
    if (!isa<LoopLikeOpInterface>(parent))
      continue;
    if (definedInside(parent, value))
      break;
    outermost = parent;
  }
  return outermost;
}

/// The copies moved before loops so far, by the copy and the loop.
using MovedCopies = DenseMap<std::pair<Operation *, Operation *>, Value>;

/// The transpose `transposed` (a copy of a tensor defined outside `loop`)
/// as computed once, before `loop`: itself where it is outside already,
/// else a clone there (with a clone of its empty init), one for all the
/// products that read it; null where its init cannot move.
Value beforeLoop(IRRewriter &rewriter, Value transposed, Operation *loop,
                 MovedCopies &moved) {
  Operation *copy = transposed.getDefiningOp();
  if (!loop->isAncestor(copy))
    return transposed;
  if (Value done = moved.lookup({copy, loop}))
    return done;
  for (Value input : cast<linalg::LinalgOp>(copy).getDpsInputs())
    if (definedInside(loop, input))
      return {};
  Value init = cast<linalg::LinalgOp>(copy).getDpsInits().front();
  auto empty = init.getDefiningOp<tensor::EmptyOp>();
  if (definedInside(loop, init) &&
      (!empty || llvm::any_of(empty->getOperands(), [&](Value size) {
        return definedInside(loop, size);
      })))
    return {};
  rewriter.setInsertionPoint(loop);
  IRMapping mapping;
  if (definedInside(loop, init))
    mapping.map(init, rewriter.clone(*empty)->getResult(0));
  Value once = rewriter.clone(*copy, mapping)
                   ->getResult(cast<OpResult>(transposed).getResultNumber());
  moved[{copy, loop}] = once;
  return once;
}

/// Folds transposed operands into the product's indexing maps; the
/// transposes go to `replaced`. With `invariantLeftCopies`, a transposed
/// left operand that a loop around the product reads unchanged in every
/// iteration stays a copy, made once before the outermost such loop: the
/// product then reads a row-major left operand, where a transpose flag on
/// it is the slowest of oneDNN's sgemm forms on AVX2 (docs/performance.md).
void foldTransposes(IRRewriter &rewriter, linalg::LinalgOp op,
                    SetVector<Operation *> &replaced, bool invariantLeftCopies,
                    MovedCopies &moved) {
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  SmallVector<Value> inputs(op.getDpsInputs());
  bool changed = false;
  for (unsigned i = 0; i < 2; ++i) {
    Value source = transposedFrom(inputs[i]);
    if (!source)
      continue;
    Operation *loop = i == 0 && invariantLeftCopies
                          ? outermostInvariantLoop(op, source)
                          : nullptr;
    if (loop) {
      if (Value once = beforeLoop(rewriter, inputs[i], loop, moved)) {
        if (once != inputs[i]) {
          replaced.insert(inputs[i].getDefiningOp());
          inputs[i] = once;
          changed = true;
        }
        continue;
      }
    }
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
    MovedCopies moved;
    for (linalg::LinalgOp op : products) {
      ownFill(rewriter, op, *op.getDpsInitOperand(0), replaced);
      foldTransposes(rewriter, op, replaced, invariantLeftCopies, moved);
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
