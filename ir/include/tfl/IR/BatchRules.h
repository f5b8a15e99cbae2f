//===- BatchRules.h - The vocabulary of batching rules ----------*- C++ -*-===//
//
// What vmap's batching rules (Tfl_BatchOpInterface, ir/lib/Rules/
// BatchRules.cpp) and the batching pass share: a batched value has the
// batch dim first, then the dims one example has.
//
//===----------------------------------------------------------------------===//

#ifndef TFL_IR_BATCHRULES_H
#define TFL_IR_BATCHRULES_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"

namespace mlir::tfl {

/// `type` (an example's) with a batch dim of `size` first.
RankedTensorType batchedType(Type type, int64_t size);

/// An unbatched value, the same for every example, as a batch of `size`.
Value broadcastToBatch(OpBuilder &b, Location loc, Value v, int64_t size);

/// A batched value whose examples have `rank` dims or fewer, with size-1
/// dims after the batch dim so that they have `rank`: its examples'
/// dims aligned on the right, as NumPy broadcasting aligns them.
Value alignExamples(OpBuilder &b, Location loc, Value v, int64_t rank);

/// The generic batching rule of the Tfl_Elementwise ops: the batched
/// operands aligned to the result's rank, the others as they are (NumPy
/// broadcasting stretches them over the batch), and the op again on them.
void batchElementwise(OpBuilder &b, Operation *op, ValueRange operands,
                      ArrayRef<bool> batched, int64_t size,
                      SmallVectorImpl<Value> &results);

} // namespace mlir::tfl

#endif // TFL_IR_BATCHRULES_H
