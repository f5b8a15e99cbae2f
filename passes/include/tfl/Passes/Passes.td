//===- Passes.td - Transformations of tfl to tfl -----------*- tablegen -*-===//

#ifndef TFL_PASSES_TD
#define TFL_PASSES_TD

include "mlir/Pass/PassBase.td"

def TflAutodiff : Pass<"tfl-autodiff", "mlir::ModuleOp"> {
  let summary = "Build gradient functions for tfl.grad (reverse mode)";
  let description = [{
    Replaces each `tfl.grad @f(args)` by a call of a generated function
    `@f.vjp(args, dy) -> (results of f, cotangents of args)`, built once per
    function: it recomputes `f`'s body, then walks it backwards, asking
    each active op for its pullback through `ReverseOpInterface` (calls of
    user functions call the callee's own `.vjp`). The generated code is
    plain tfl, so it can be differentiated again (`grad(grad(f))`): a
    `tfl.grad` is expanded once the functions it reaches hold none.
    An active op without a rule is an error at its `.tfl` location.
  }];
  let dependentDialects = ["mlir::arith::ArithDialect", "mlir::func::FuncDialect",
                           "mlir::tensor::TensorDialect",
                           "mlir::scf::SCFDialect",
                           "mlir::tfl::TflDialect"];
}

#endif // TFL_PASSES_TD
