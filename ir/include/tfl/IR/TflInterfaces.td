//===- TflInterfaces.td - Interfaces and traits of tfl ops -*- tablegen -*-===//
//
// Tfl_ReverseOpInterface: an op's reverse-mode rule (its pullback), used by
// the autodiff pass, which knows no op by name. Simple ops state their rule
// in one line in Ops/Elementwise.td (`pullback`); the others implement it in
// ir/lib/Rules/<Family>Rules.cpp. Tfl_BatchOpInterface: an op's batching
// rule (vmap), next to its reverse rule; Tfl_Elementwise ops need none, as
// their Jacobian is diagonal: one generic rule batches them all.
// Tfl_RunsOnHalfFloats: the ops that take bf16 and f16 values as they are
// (tfl-widen-half).
//
//===----------------------------------------------------------------------===//

#ifndef TFL_INTERFACES_TD
#define TFL_INTERFACES_TD

include "mlir/IR/OpBase.td"

def Tfl_ReverseOpInterface : OpInterface<"ReverseOpInterface"> {
  let cppNamespace = "::mlir::tfl";
  let description = [{
    The pullback of a differentiable op: given the cotangents of its results
    (a null Value for a result that receives none), emit tfl ops at the
    builder's insertion point computing the cotangent of each operand (a
    null Value for an operand that takes none: an integer operand, a
    condition). The emitted ops read the op's own operands and results, so
    the op must dominate the insertion point; they are ordinary tfl ops, so
    a gradient is itself differentiable.
  }];
  let methods = [
    InterfaceMethod<"Sets `operandCotangents`, one per operand.",
      "::mlir::LogicalResult", "reverse",
      (ins "::mlir::OpBuilder &":$builder,
           "::mlir::ValueRange":$resultCotangents,
           "::llvm::SmallVectorImpl<::mlir::Value> &":$operandCotangents)>
  ];
}

def Tfl_BatchOpInterface : OpInterface<"BatchOpInterface"> {
  let cppNamespace = "::mlir::tfl";
  let description = [{
    The batching rule of an op (vmap): the op applied to each example of a
    batch, as ops on the whole batch. Given the batched versions of its
    operands (those marked in `batched` have the batch dim first, of size
    `batchSize`; the others are as the op had them, the same for every
    example), emit tfl ops at the builder's insertion point giving each
    result with the batch dim first. A product becomes one batched
    product, a convolution one convolution over batch and examples
    together: never a loop over the examples. Fails, with an error at the
    op, for what it cannot batch.
  }];
  let methods = [
    InterfaceMethod<"Sets `results`, one per result, batch dim first.",
      "::mlir::LogicalResult", "batch",
      (ins "::mlir::OpBuilder &":$builder,
           "::mlir::ValueRange":$operands,
           "::llvm::ArrayRef<bool>":$batched,
           "int64_t":$batchSize,
           "::llvm::SmallVectorImpl<::mlir::Value> &":$results)>
  ];
}

/// An elementwise op with NumPy broadcasting: each element of its result
/// depends only on its operands' elements at that index (after
/// broadcasting). Its Jacobian is diagonal, so vmap batches it by one
/// generic rule (the batched operands' per-example dims aligned on the
/// right of the batch dim) and it needs no batching rule of its own.
def Tfl_Elementwise : NativeOpTrait<"Elementwise"> {
  let cppNamespace = "::mlir::tfl::OpTrait";
}

/// An op that works on bf16/f16 values as they are: elementwise arithmetic
/// (each op computes in f32 and rounds its result), comparisons, selection,
/// data movement, casts, constants, prints and numeric checks.
/// `tfl-widen-half` gives every other op with 16-bit float operands or
/// results (reductions, matmul, convolutions, pooling, scatter_add, tapes,
/// I/O) f32 copies, its results rounded back.
def Tfl_RunsOnHalfFloats : NativeOpTrait<"RunsOnHalfFloats"> {
  let cppNamespace = "::mlir::tfl::OpTrait";
}

#endif // TFL_INTERFACES_TD
