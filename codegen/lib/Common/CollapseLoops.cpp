//===- CollapseLoops.cpp - Fold contiguous loops of a generic -------------===//
//
// Shared by the CPU's loop vectorizer and the CUDA wing's kernel mapping.
//
//===----------------------------------------------------------------------===//

#include "tfl/Codegen/CollapseLoops.h"

#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

namespace mlir::tfl {

linalg::GenericOp collapseContiguousLoops(RewriterBase &rewriter,
                                          linalg::GenericOp op) {
  for (Value operand : op->getOperands()) {
    auto type = dyn_cast<MemRefType>(operand.getType());
    if (!type || !type.getLayout().isIdentity())
      return op; // a scalar operand (a fill's value), or a strided view
  }
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  // linalg's collapsing handles maps of dims only (not a broadcast's 0).
  if (!llvm::all_of(maps,
                    [](AffineMap m) { return m.isProjectedPermutation(); }))
    return op;
  auto iterators = op.getIteratorTypesArray();
  SmallVector<ReassociationIndices> groups;
  ReassociationIndices current = {0};
  auto flush = [&] {
    if (current.size() > 1)
      groups.push_back(current);
  };
  for (int64_t d = 1; d < op.getNumLoops(); ++d) {
    ReassociationIndices candidate = current;
    candidate.push_back(d);
    if (iterators[d] == iterators[current.front()] &&
        linalg::areDimSequencesPreserved(maps, {candidate})) {
      current = candidate;
      continue;
    }
    flush();
    current = {d};
  }
  flush();
  if (groups.empty())
    return op;
  rewriter.setInsertionPoint(op);
  FailureOr<linalg::CollapseResult> collapsed =
      linalg::collapseOpIterationDims(op, groups, rewriter);
  if (failed(collapsed))
    return op;
  rewriter.eraseOp(op);
  return cast<linalg::GenericOp>(collapsed->collapsedOp.getOperation());
}

} // namespace mlir::tfl
