//===- Passes.td - Transformations of tfl to tfl -----------*- tablegen -*-===//

#ifndef TFL_PASSES_TD
#define TFL_PASSES_TD

include "mlir/Pass/PassBase.td"

def TflAutodiff : Pass<"tfl-autodiff", "mlir::ModuleOp"> {
  let summary = "Build derivative functions for tfl.grad (reverse mode) and tfl.jvp (forward mode)";
  let description = [{
    Replaces each `tfl.grad @f(args)` by a call of a generated function
    `@f.vjp(args, dy) -> (results of f, cotangents of args)`, built once per
    function: it recomputes `f`'s body, then walks it backwards, asking
    each active op for its pullback through `ReverseOpInterface` (calls of
    user functions call the callee's own `.vjp`). The generated code is
    plain tfl, so it can be differentiated again (`grad(grad(f))`): a
    `tfl.grad` is expanded once the functions it reaches hold none.
    An active op without a rule is an error at its `.tfl` location.

    Replaces each `tfl.jvp @f(args, tangents)` by a call of
    `@f.jvp(args, tangents) -> (results of f, their tangents)`: f's body in
    order, each active op followed by its tangent, which is its pullback
    transposed (reverse mode over the pullback's ops, which are linear in
    the cotangent); ifs and loops carry the tangents as extra results.
    Grads and jvps are expanded innermost first, so they compose both
    ways (`jvp` of a `grad` is a Hessian-vector product).
  }];
  let dependentDialects = ["mlir::arith::ArithDialect", "mlir::func::FuncDialect",
                           "mlir::tensor::TensorDialect",
                           "mlir::scf::SCFDialect",
                           "mlir::tfl::TflDialect"];
}

def TflPlaceDevices : Pass<"tfl-place-devices", "mlir::ModuleOp"> {
  let summary = "Decide the device of each op and copy values between devices";
  let description = [{
    An op runs on the device its `tfl.device` attribute names ("cpu" or
    "cuda"; `with device(...)` blocks mark their ops), else on that of the
    nearest enclosing op or function that names one, else on the program's
    target: the `target` option or, when it is empty, the module's
    `tfl.target` attribute (`tflc --device`), "cpu" when neither is set.
    A value lives where the op that made it ran (a `tfl.to_device`'s result
    on its `device`, a block argument where its block's op or function
    runs), as TensorFlow's placement of `tf.device` scopes.

    On the "cpu" target every op runs on the CPU (soft placement: a program
    that asks for a GPU also runs where there is none): the attributes and
    copies go. On "cuda":

    1. A call runs its callee on the call's device: a function called on
       another device than its own is cloned for it (`@f_on_cpu`, marked
       `tfl.device`), once per device.
    2. Devices become explicit: an op not on the target names its device,
       an op on the target only where an enclosing op names another, so
       inlining keeps them.
    3. A tensor operand made on another device than its user's is copied
       there by a `tfl.to_device` right after it is made, once per value
       and device; the copies name no device of their own. Constants are
       not copied: each device has its own (the canonicalizer merges and
       hoists constants whatever their devices).

    A `tfl.to_device` to where its value already is (one the program asked
    for) is left to `tfl.to_device`'s canonicalization, which the simplify
    stage runs next.

    It runs after autodiff: a pullback runs on the device of the op it
    reverses, and a `tfl.to_device`'s pullback passes the cotangent on, so
    gradients flow back through the copies this pass makes.

    ```mlir
    %0 = tfl.exp %x : tensor<4xf32>                    // on the target
    %1 = tfl.mul %0, %0 {tfl.device = "cpu"} : ...
    // becomes
    %0 = tfl.exp %x : tensor<4xf32>
    %c = tfl.to_device %0 to "cpu" : tensor<4xf32>
    %1 = tfl.mul %c, %c {tfl.device = "cpu"} : ...
    ```
  }];
  let options = [
    Option<"target", "target", "std::string", /*default=*/"\"\"",
           "cpu or cuda (empty: the module's tfl.target attribute)">
  ];
  let dependentDialects = ["mlir::func::FuncDialect",
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
    on them directly (the ops with the `Tfl_RunsOnHalfFloats` trait in
    `TflOps.td`); every other op with such
    operands or results (reductions, matmul, convolutions, pooling,
    scatter_add, tapes, I/O) is rewritten to cast its 16-bit operands to
    f32, compute in f32, and cast its 16-bit results back: reductions
    accumulate in f32 as PyTorch's do. The eager interpreter and both
    backends run the IR after this pass, so all three round alike. For
    the CUDA target (the module's `tfl.target`), a product or a
    convolution (forward, input or filter gradient) whose operands and
    result share one 16-bit type keeps it: cuBLAS and cuDNN multiply bf16
    or f16 operands on tensor cores with f32 accumulation and round the
    result once, as the f32 product rounded to 16 bits (up to the order of
    its sums). A convolution padded unevenly (which the GPU runs on the
    host) is widened.
  }];
  let dependentDialects = ["mlir::tfl::TflDialect"];
}

def TflDecomposeAttention : Pass<"tfl-decompose-attention", "mlir::ModuleOp"> {
  let summary = "Write tfl.attention and its adjoint as products and a softmax";
  let description = [{
    Rewrites each `tfl.attention` and `tfl.attention_backward` into the
    tfl ops that define it (tfl/IR/Attention.h): batched products, the
    causal mask as a `where`, a softmax along the keys. The CPU runtime
    fuses every attention; in a module whose `tfl.target` is "cuda", all
    are decomposed unless `tfl.gpu_attention` is "fused": then the GPU's
    kernels take those with heads of at most 128 features, f32 ones on
    CUDA cores, bf16 and f16 ones (and those of a module of 16-bit
    `tfl.precision`) on tensor cores if their heads are a multiple of
    16; only the others are decomposed. With `all`, every one on any
    target. The autodiff pass does the same to a function it
    takes a forward-mode derivative of, or a derivative of an attention's
    adjoint.
  }];
  let options = [
    Option<"all", "all", "bool", /*default=*/"false",
           "decompose on every target, not only CUDA's">
  ];
  let dependentDialects = ["mlir::tfl::TflDialect"];
}

def TflAttentionLayout : Pass<"tfl-attention-layout", "mlir::func::FuncOp"> {
  let summary = "Fold the head transposes around an attention into its layout";
  let description = [{
    A transformer's heads are `[..., T, H, E]` slices of its projections,
    transposed to `[..., H, T, E]` for the attention and back after it
    (the gradient does the same in reverse): copies of every q, k, v, out
    and dy. When every operand of a `tfl.attention` (or of its adjoint)
    is such a transpose (dims r-3 and r-2 swapped), the op takes the
    transposes' inputs instead, with `seq_major`, and its results are
    transposed back, where the transposes that consume them cancel: the
    kernels read and write `[..., T, H, E]` in place through strides. Run
    after inlining, before tfl-to-linalg.
  }];
  let dependentDialects = ["mlir::tfl::TflDialect"];
}

def TflOutlineHostWork : Pass<"tfl-outline-host-work", "mlir::ModuleOp"> {
  let summary = "Move the work placed on the CPU of a GPU program into host functions";
  let description = [{
    On the "cuda" target (the module's `tfl.target`), after whole-program
    inlining: each run of consecutive ops placed on the CPU (`tfl.device =
    "cpu"`, an op with regions only where everything in them is) becomes a
    private function marked `tfl.device = "cpu"` and a `func.call` where
    the run was. The CUDA wing runs such a function as host code (its loops
    on the host, libtflrt's libraries, host buffers) and copies the call's
    device operands to the host and its results back (`tfl-device-memory`).
    1. A run is broken by any other op, except constants and
       `tfl.to_device` copies, which stay outside it: those that do not
       depend on the run move before the call, those that do after it.
       Collectives and tape ops stay where they are (their buffers live on
       the device).
    2. The function's arguments are the values the run reads from outside
       it (constants are cloned in instead), not written by it
       (`bufferization.writable = false`); its results are the run's
       values used after it.
    Fusion and bufferization then see the host work apart from the device
    work. Nothing changes on the "cpu" target, where placement forgot the
    devices.

    ```mlir
    %1 = tfl.to_device %0 to "cpu" : tensor<3xf32>
    %2 = tfl.tanh %1 {tfl.device = "cpu"} : tensor<3xf32>
    %3 = tfl.exp %2 : tensor<3xf32>
    // becomes
    %1 = tfl.to_device %0 to "cpu" : tensor<3xf32>
    %2 = call @f.host0(%1) : (tensor<3xf32>) -> tensor<3xf32>
    %3 = tfl.exp %2 : tensor<3xf32>
    ```
  }];
  let dependentDialects = ["mlir::tfl::TflDialect"];
}

def TflOverlapCollectives : Pass<"tfl-overlap-collectives", "mlir::ModuleOp"> {
  let summary = "Reduce gradients in buckets while the backward pass runs";
  let description = [{
    PyTorch's DDP at compile time. Each `tfl.all_reduce` (after inlining,
    typically the all_reduce of a training step's gradients) becomes one
    `tfl.all_reduce_start` per bucket of its tensors and a
    `tfl.all_reduce_wait` for each:
    1. Each tensor is ready where the op that makes it sits in the
       all_reduce's block (the enclosing op of that block, for one made in
       a nested region; the block's start for one made outside it). The
       reverse pass makes the last layers' gradients first.
    2. Walking the tensors in the order they are ready, a bucket closes
       once it holds `first-bucket-bytes` (the first) or `bucket-bytes`
       (the others), as DDP's 1 MiB first bucket and 25 MiB buckets.
    3. A bucket starts right after its last tensor is ready: its reduction
       runs on the runtime's communication thread while the program
       computes the rest of the backward pass.
    4. Its wait goes just before the first use of any of its results, so
       an optimizer may update the parameters of a bucket that arrived
       while the next one is still on its way.
    Neither moves across an op another rank might observe (a file written
    or read, a print: anything with effects beyond the random generator,
    the tapes and the collectives), so a collective still orders what the
    ranks do around it (rank 0 saves, all ranks all_reduce, all load).
    Every rank runs the same program, so every rank starts the same
    buckets in the same order. The module's `tfl.bucket_bytes` attribute
    (`tflc --bucket-mb`), when present, sets `bucket-bytes` (the first
    bucket is no larger); 0 leaves every all_reduce whole.

    ```mlir
    %g1 = ...                       // the last layer's gradient, first
    %g0 = ...
    %r:2 = tfl.all_reduce mean %g0, %g1 : tensor<1000xf32>, tensor<10xf32>
    // becomes (one bucket)
    %g1 = ...
    %g0 = ...
    %req = tfl.all_reduce_start mean %g1, %g0 : tensor<10xf32>, tensor<1000xf32>
    %r:2 = tfl.all_reduce_wait %req : tensor<10xf32>, tensor<1000xf32>
    ```
  }];
  let options = [
    Option<"firstBucketBytes", "first-bucket-bytes", "int64_t",
           /*default=*/"1 << 20", "the first bucket's size">,
    Option<"bucketBytes", "bucket-bytes", "int64_t",
           /*default=*/"25 << 20", "the other buckets' size">
  ];
  let dependentDialects = ["mlir::tfl::TflDialect"];
}

def TflInlineIntoVjps : Pass<"tfl-inline-into-vjps", "mlir::ModuleOp"> {
  let summary = "Inline every call inside the vjp functions tfl-autodiff built";
  let description = [{
    A vjp recomputes its forward sweep, and the vjp of a call re-runs the
    callee's forward inside the callee's own vjp: a function nested d calls
    deep under `grad` runs d + 1 times a step. This pass inlines each call
    made in a function `tfl-autodiff` built (marked `tfl.vjp`), bottom up
    over the call graph, so that a vjp holds its whole computation in one
    body and the CSE after it merges the recomputations; recursive calls
    stay calls. Functions the program calls outside `grad` keep their calls
    (the eager interpreter's frames and tracebacks); compiled code inlines
    everything later anyway, so this pass changes no value, only how often
    the eager interpreter computes it.

    ```mlir
    func.func private @f.vjp(%x: tensor<f32>, %dy: tensor<f32>) -> ... attributes {tfl.vjp} {
      %y = call @g(%x)                  // the forward sweep
      %r:2 = call @g.vjp(%x, %dy)       // runs @g's body again
    // becomes @g's body and @g.vjp's body inline, the second copy of @g's
    // ops merged with the first by CSE
    ```
  }];
  let dependentDialects = ["mlir::func::FuncDialect"];
}

#endif // TFL_PASSES_TD
