//===- CollapseLoops.h - Fold contiguous loops of a generic -----*- C++ -*-===//
//
// Runs of adjacent loops of one kind (parallel, or reduction) that every
// operand indexes together and in order fold into one loop, over
// memref.collapse_shape views: a loop nest then walks them with one index
// (one vector loop on the CPU; no division of a kernel's index back into
// one per dim on the GPU).
//
//===----------------------------------------------------------------------===//

#ifndef TFL_CODEGEN_COLLAPSELOOPS_H
#define TFL_CODEGEN_COLLAPSELOOPS_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::tfl {

/// The generic with its contiguous runs of loops folded (it replaces `op`),
/// or `op` itself when there are none, or an operand is not a buffer of the
/// identity layout or a map is not a projected permutation (a broadcast's
/// constant index).
linalg::GenericOp collapseContiguousLoops(RewriterBase &rewriter,
                                          linalg::GenericOp op);

} // namespace mlir::tfl

#endif // TFL_CODEGEN_COLLAPSELOOPS_H
