//===- LinalgCopies.h - Generics that only copy their input -----*- C++ -*-===//
//
// Shared by tfl-matmul-operands (a transposed operand becomes a product's
// transpose flag) and tfl-fuse-elementwise (which fuses nothing into such
// a transpose).
//
//===----------------------------------------------------------------------===//

#ifndef TFL_CODEGEN_LINALGCOPIES_H
#define TFL_CODEGEN_LINALGCOPIES_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"

#include <optional>

namespace mlir::tfl {

/// The map through which `op` reads its one input when `op` is a
/// linalg.generic that only copies it (all loops parallel, the body
/// yielding the input, the output written by the identity): a transpose
/// when the map is a permutation other than the identity.
inline std::optional<AffineMap> copyMap(Operation *op) {
  auto generic = dyn_cast_or_null<linalg::GenericOp>(op);
  if (!generic || generic.getNumDpsInputs() != 1 ||
      generic.getNumDpsInits() != 1 ||
      generic.getNumParallelLoops() != generic.getNumLoops())
    return std::nullopt;
  Block &body = generic.getRegion().front();
  if (body.getOperations().size() != 1 ||
      body.getTerminator()->getOperand(0) != body.getArgument(0))
    return std::nullopt;
  SmallVector<AffineMap> maps = generic.getIndexingMapsArray();
  if (!maps[1].isIdentity())
    return std::nullopt;
  return maps[0];
}

} // namespace mlir::tfl

#endif // TFL_CODEGEN_LINALGCOPIES_H
