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

def TflAutocast : Pass<"tfl-autocast", "mlir::ModuleOp"> {
  let summary = "Run matmuls and convolutions in bf16 or f16 (mixed precision)";
  let description = [{
    PyTorch's autocast as a rewrite: each f32 `tfl.matmul`, `tfl.conv2d`
    and convolution gradient (`conv2d_backward_input`/`_filter`) gets its
    operands cast to the low precision and its result cast back to f32. The
    product accumulates in f32 and is rounded once, as on tensor cores;
    everything else (elementwise work, softmax, losses, reductions, the
    optimizer's update) stays f32, and so do the weights. It runs after
    autodiff, so the gradients' own products are in low precision too.

    The precision comes from the `precision` option or, when that is empty,
    from the module's `tfl.precision` string attribute (which
    `tflc --precision` sets); "f32" or neither leaves the module alone.
  }];
  let options = [
    Option<"precision", "precision", "std::string", /*default=*/"\"\"",
           "bf16, f16 or f32 (empty: the module's tfl.precision attribute)">
  ];
  let dependentDialects = ["mlir::tfl::TflDialect"];
}

def TflWidenHalf : Pass<"tfl-widen-half", "mlir::ModuleOp"> {
  let summary = "Run the ops without 16-bit kernels on f32 copies";
  let description = [{
    bf16 and f16 are storage types. Elementwise ops and data movement work
    on them directly (`runsOnHalfFloats`); every other op with such
    operands or results (reductions, matmul, convolutions, pooling,
    scatter_add, tapes, I/O) is rewritten to cast its 16-bit operands to
    f32, compute in f32, and cast its 16-bit results back: reductions
    accumulate in f32 as PyTorch's do. The eager interpreter and both
    backends run the IR after this pass, so all three round alike.
  }];
  let dependentDialects = ["mlir::tfl::TflDialect"];
}

#endif // TFL_PASSES_TD
