//===- TflInterfaces.td - Interfaces of tfl ops ------------*- tablegen -*-===//
//
// Tfl_ReverseOpInterface: an op's reverse-mode rule (its pullback), used by
// the autodiff pass, which knows no op by name. Simple ops state their rule
// in one line in TflOps.td (`pullback`); the others implement it in
// ir/lib/ReverseRules.cpp.
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

#endif // TFL_INTERFACES_TD
