//===- BufferRoots.h - The buffers under chains of views --------*- C++ -*-===//
//
// Shared by the CPU passes that reason about which buffers a loop writes
// (tfl-vectorize-loops' hoisting, tfl-fuse-rows' legality).
//
//===----------------------------------------------------------------------===//

#ifndef TFL_CODEGEN_BUFFERROOTS_H
#define TFL_CODEGEN_BUFFERROOTS_H

#include "mlir/IR/Value.h"

namespace mlir::tfl {

/// The buffer `memref` views: the alloc, argument or global under its
/// chain of view ops.
Value rootBuffer(Value memref);

/// Whether buffers with roots `a` and `b` (see rootBuffer) are distinct: two
/// allocations, or an allocation and a function argument or global, or an
/// allocation inside the block of a block argument (a loop's body) and
/// that argument.
bool distinctBuffers(Value a, Value b);

} // namespace mlir::tfl

#endif // TFL_CODEGEN_BUFFERROOTS_H
