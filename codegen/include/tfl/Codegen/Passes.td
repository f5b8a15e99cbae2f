//===- Passes.td - Conversions of tfl to native code -------*- tablegen -*-===//

#ifndef TFL_CODEGEN_PASSES_TD
#define TFL_CODEGEN_PASSES_TD

include "mlir/Pass/PassBase.td"

def ConvertTflToLinalg : Pass<"tfl-to-linalg", "mlir::ModuleOp"> {
  let summary = "Lower tfl ops to linalg, tensor, arith and runtime calls";
  let description = [{
    Elementwise ops become `linalg.generic`s whose indexing maps carry NumPy
    broadcasting (a size-1 dim reads index 0), so linalg's elementwise fusion
    can merge chains of them. `tfl.matmul` becomes `linalg.fill` +
    `linalg.matmul` (turned into a BLAS call after bufferization by
    `tfl-to-runtime-calls`). `tfl.print` stays: it is lowered during
    bufferization, so the analysis sees that it reads its tensors.
  }];
  let dependentDialects = [
    "mlir::arith::ArithDialect", "mlir::bufferization::BufferizationDialect",
    "mlir::func::FuncDialect", "mlir::linalg::LinalgDialect",
    "mlir::LLVM::LLVMDialect", "mlir::math::MathDialect",
    "mlir::memref::MemRefDialect", "mlir::tensor::TensorDialect"
  ];
}

def FuseElementwise : Pass<"tfl-fuse-elementwise"> {
  let summary = "Elementwise fusion of linalg ops that keeps products named";
  let description = [{
    On tensors, right after tfl-to-linalg: upstream's elementwise fusion
    (fused generics, reshapes folded into generics by expansion, constant
    folding; a producer fuses only into its one use, but a cheap
    elementwise producer whose consumers are all elementwise is first
    copied for each, so that it is computed again in each rather than
    written out; on the CPU an elementwise producer that its block also
    yields or returns fuses into its one elementwise consumer as one
    generic that yields both, as Adam's moments and the parameter's
    update; no producer fuses into a loop it is outside of), except that
    no reshape is folded into or out of a `linalg.matmul` or
    `linalg.batch_matmul`. Upstream's folding would turn a batch_matmul
    next to a collapse_shape (a rank-4 product's batch dims folded into
    one) into a `linalg.generic` contraction, which no library call
    takes; kept named, the product reads the collapsed view in place and
    becomes a BLAS or cuBLAS call.
  }];
  let dependentDialects = ["mlir::affine::AffineDialect",
                           "mlir::linalg::LinalgDialect",
                           "mlir::tensor::TensorDialect"];
}

def MatmulOperands : Pass<"tfl-matmul-operands", "mlir::func::FuncOp"> {
  let summary = "Fold transposed operands into products; own zero fills";
  let description = [{
    On tensors, before bufferization (both pipelines): an operand of an
    f32/f64 `linalg.matmul` or `linalg.batch_matmul` that is a transpose
    of another tensor (a `linalg.transpose`, or a copying
    `linalg.generic`, that swaps the last two dims) folds into the
    product's indexing map, so that BLAS reads that tensor in place with
    a transpose flag. With `invariant-left-copies` (the CPU pipeline), a
    transposed left operand whose tensor is defined outside a loop around
    the product stays a copy, made once before the outermost such loop
    (moved there, into an empty tensor made there, where it was inside;
    every product that reads it then reads that one copy): each iteration
    then reads a row-major left operand, where oneDNN's sgemm is slowest
    with the left one transposed. A product whose init is a zero
    `linalg.fill` shared with other ops gets a fill of its own, right
    before it, which bufferizes into the product's own buffer (not into a
    copy of a shared zero buffer) and which `tfl-to-runtime-calls` then
    drops.
  }];
  let options = [
    Option<"invariantLeftCopies", "invariant-left-copies", "bool",
           /*default=*/"false",
           "keep a loop-invariant transposed left operand a copy, made "
           "before the loop">
  ];
  let dependentDialects = ["mlir::linalg::LinalgDialect",
                           "mlir::tensor::TensorDialect"];
}

def SplitReductions : Pass<"tfl-split-reductions", "mlir::func::FuncOp"> {
  let summary = "Split large reductions to a scalar into partial ones";
  let description = [{
    Before bufferization (the CPU pipeline): a linalg.generic reducing one
    static dim of 65536 or more elements to a scalar becomes 64 partial
    reductions (a parallel dim, which tfl-parallelize-loops spreads over
    the cores) and a reduction of the partials, by linalg's split
    reduction (a smaller power of two where 64 does not divide the dim).
    Combiners without a neutral element are left alone.
  }];
  let dependentDialects = ["mlir::linalg::LinalgDialect",
                           "mlir::tensor::TensorDialect"];
}

def LocalEmptyTensors : Pass<"tfl-local-empty-tensors", "mlir::func::FuncOp"> {
  let summary = "Give each use of a tensor.empty its own";
  let description = [{
    Before bufferization (the CPU pipeline): a static-shaped reshape of a
    `tensor.empty` becomes a `tensor.empty` of its result's shape, and each
    use of a `tensor.empty` but the first in the empty's own block gets a
    clone of it right before the user. A loop body's results (after CSE
    merged its empty tensors with those before the loop) then bufferize
    into fresh buffers that the loop carries as they are, instead of into
    one buffer allocated before the loop and copied into a fresh one every
    iteration; and the analysis of one-shot bufferization sees each
    destination alone, instead of one alias set of every op that CSE gave
    the same empty tensor (its checks grow with the square of a set).
  }];
  let dependentDialects = ["mlir::tensor::TensorDialect"];
}

def LowerToRuntimeCalls : Pass<"tfl-to-runtime-calls", "mlir::ModuleOp"> {
  let summary = "Replace ops on buffers with libtflrt calls";
  let description = [{
    After bufferization, each `linalg.matmul` (or `linalg.batch_matmul`) on
    float memrefs whose rows are contiguous becomes a call of
    `tflrt_gemm_<type>(flags, A, B, C)` (2-D or batched 3-D; linalg's
    C += A @ B), so compiled code and the eager interpreter multiply
    matrices with the same tuned library; the CUDA wing calls
    libtflrt_cuda's `tflrt_cuda_gemm_<type>` instead. The flags say which
    operand is transposed (indexing maps that tfl-matmul-operands made) and
    whether C is overwritten: a zero fill of a fresh C right before the
    product is dropped for beta = 0. bf16/f16 products are the CUDA
    target's (tfl-widen-half widens them for the CPU). A `tfl.print`
    without tensor inputs (bufferization never visits it) becomes its text
    calls.
  }];
  let dependentDialects = ["mlir::arith::ArithDialect",
                           "mlir::func::FuncDialect",
                           "mlir::LLVM::LLVMDialect",
                           "mlir::memref::MemRefDialect"];
}

def ConvBias : Pass<"tfl-conv-bias", "mlir::ModuleOp"> {
  let summary = "Move a convolution's bias into its oneDNN calls";
  let description = [{
    On buffers (the CPU pipeline). Forward: a `tflrt_conv2d_f32` call
    whose fresh result only one `linalg.generic` reads, adding a bias over
    the output channels (`y + b[c]`) into another buffer, becomes one
    `tflrt_conv2d_bias_f32` call writing that buffer, at the loop's place
    (only allocations may come between). Backward: a loop that sums the
    `dy` of a `tflrt_conv2d_backward_filter_f32` call over N, H and W into
    a [O] buffer (a bias's gradient) goes; the call becomes
    `tflrt_conv2d_backward_filter_bias_f32`, whose oneDNN primitive sums
    dy as it reads it (diff_bias), and a loop of O elements adds that to
    the buffer. relu is not folded into the forward call: oneDNN's relu
    post-op maps NaN to 0.
  }];
  let dependentDialects = ["mlir::arith::ArithDialect",
                           "mlir::func::FuncDialect",
                           "mlir::linalg::LinalgDialect",
                           "mlir::memref::MemRefDialect"];
}

def FuseRows : Pass<"tfl-fuse-rows", "mlir::func::FuncOp"> {
  let summary = "Run chains of row-wise linalg ops in one loop over row tiles";
  let description = [{
    A chain of linalg ops on static buffers (generics whose bodies read no
    memory, and fills) in one block that share their leading parallel loop
    dims (one or two: the rows), with at least one reduction among them (a
    softmax's max and sum, a layer norm's mean and variance, their
    gradients), becomes one `scf.for` over tiles of rows with the unit
    attribute `tfl.parallel`: each iteration runs every op of the chain, in
    order, on `memref.subview`s of its tile's rows. Every operand that may
    share memory with a buffer the chain writes is a whole buffer of the
    identity layout indexed by the rows as its leading dims, so each tile
    touches only its own rows; another operand may read a row dim at a
    position of its own (a causal mask [T, T] of scores [B, T, T]: a tile
    reads the mask's rows its own rows index); operands without the rows
    (a weight, a broadcast) are read whole. Allocations, views and pure ops between the
    chain's ops stay before the loop, deallocations move after it. Tiles
    hold about 4096 elements of each op; chains with fewer than 2^15
    iterations or 4 tiles stay as they are.

    ```mlir
    linalg.fill ins(%zero : f32) outs(%sum : memref<1024x1xf32>)
    linalg.generic {...["parallel", "parallel", "reduction"]}
        ins(%x3 : memref<1024x1x128xf32>) outs(%sum : memref<1024x1xf32>)
    linalg.generic {...["parallel", "parallel"]}
        ins(%x, %sum : ...) outs(%y : memref<1024x128xf32>)
    // becomes
    scf.for %i = %c0 to %c32 step %c1 {
      %rows = arith.muli %i, %c32 : index
      %s = memref.subview %sum[%rows, 0] [32, 1] [1, 1] ...
      linalg.fill ins(%zero : f32) outs(%s : ...)
      ...
    } {tfl.parallel}
    ```

    With `gpu=true` (the CUDA pipeline's device functions) every chain
    with a reduction is fused, whatever its size, over up to four row dims,
    in tiles of one row (or of the rows of about 256 elements along the
    last row dim), and the loop is marked `tfl.row_blocks`:
    tfl-linalg-to-gpu makes it one kernel, a block per tile.
  }];
  let options = [
    Option<"gpu", "gpu", "bool", /*default=*/"false",
           "fuse for the GPU's blocks (tfl.row_blocks) instead of threads">,
  ];
  let dependentDialects = ["mlir::arith::ArithDialect",
                           "mlir::memref::MemRefDialect",
                           "mlir::scf::SCFDialect"];
}

def VectorizeLoops : Pass<"tfl-vectorize-loops", "mlir::func::FuncOp"> {
  let summary = "Turn linalg.generic ops on buffers into vector loops";
  let description = [{
    For each `linalg.generic` on static buffers of 8- to 64-bit elements
    (i1 buffers read and written as their bytes, through an
    `builtin.unrealized_conversion_cast` to i8 that the LLVM lowering
    folds) whose innermost loop dim is the last, contiguous dim of every
    operand that indexes it: adjacent dims that every operand indexes together
    merge into one, the innermost dim is tiled into vectors (whole when it
    has at most 64 elements, else `vector-bits` at a time, or half that
    down to 1024 bits where that divides the dim, with the remainder
    peeled off and masked), the other dims into loops of one, and each tile
    becomes vector ops. Accumulators of reductions move from memory into
    loop-carried vectors. Other generics stay for convert-linalg-to-loops.
    The outermost loop of a generic with at least 2^15 iterations, when it
    runs over a parallel dim, gets the unit attribute `tfl.parallel` (an
    iteration that gathers rows from another buffer counts four times).
  }];
  let options = [
    Option<"vectorBits", "vector-bits", "int64_t", /*default=*/"0",
           "Bits of a tile along the innermost dim; 0: the native "
           "target's (2048 with AVX2 or AVX-512: eight AVX2 registers, "
           "four AVX-512 ones; 1024 below AVX)">
  ];
  let dependentDialects = ["mlir::affine::AffineDialect",
                           "mlir::arith::ArithDialect",
                           "mlir::memref::MemRefDialect",
                           "mlir::scf::SCFDialect",
                           "mlir::vector::VectorDialect"];
}

def ParallelizeLoops : Pass<"tfl-parallelize-loops", "mlir::ModuleOp"> {
  let summary = "Run the scf.for loops marked tfl.parallel on OpenMP threads";
  let description = [{
    Each `scf.for` with the unit attribute `tfl.parallel` (independent
    iterations, no results) becomes a private function
    `@__tfl_parallel_N(ctx: !llvm.ptr, begin: i64, end: i64)` running the
    loop from `begin` to `end`, and a call of `tflrt_parallel_for`, which
    runs that function on one chunk of the iterations per thread. The
    values the body uses from outside travel in a stack struct in their
    LLVM form (a memref as its descriptor, through
    `builtin.unrealized_conversion_cast`s that the LLVM lowering folds
    away); constants are cloned into the function.
  }];
  let dependentDialects = ["mlir::arith::ArithDialect",
                           "mlir::func::FuncDialect",
                           "mlir::LLVM::LLVMDialect",
                           "mlir::scf::SCFDialect"];
}

def SplitDeallocs : Pass<"tfl-split-deallocs", "mlir::ModuleOp"> {
  let summary = "Give each buffer allocated in a block a dealloc of its own";
  let description = [{
    Between the ownership-based deallocation and the lowering of
    `bufferization.dealloc`: a buffer that a `memref.alloc` in the
    dealloc's own block created moves to a dealloc of its own when no
    other memref of that dealloc can be it. Every other memref must come
    from a block argument, from a value defined outside the block or
    before the allocation, from another allocation, or from a
    `memref.get_global`, through views, `arith.select`, `scf.if` and the
    initial and yielded values of an `scf.for` after the allocation. A
    retained memref the pass cannot tell apart from the buffer stays
    retained by the new dealloc, and the ownership it returns is or-ed
    into the old one's. MLIR's own split asks an alias analysis that
    gives up on a global constant (a `scf.if` yielding a constant in one
    branch): then every buffer of a loop body was freed by one runtime
    alias check at the end of the body, and none could be freed earlier.
    Then a dealloc that retains nothing is split into one for each group
    of its memrefs that may share an allocating operation (traced the
    same way), unless one of them cannot be traced: MLIR's simplification
    compares every pair of a list, and a training function's last dealloc
    (the buffers made before the loop and the loop's results) grows with
    the model's layers.
  }];
  let dependentDialects = ["mlir::arith::ArithDialect",
                           "mlir::bufferization::BufferizationDialect"];
}

def DonateLoopInits : Pass<"tfl-donate-loop-inits", "mlir::ModuleOp"> {
  let summary = "Let a loop free the buffers it starts from";
  let description = [{
    Right after the ownership-based deallocation: an `scf.for` whose
    initial value is a buffer a `memref.alloc` of the loop's block made,
    used (itself and any memref made from it) only before the loop, by the
    loop once as an initial value, and by the block's
    `bufferization.dealloc` after it, gets that buffer's ownership (its
    ownership operand `true`, the dealloc's condition `false`). The body
    frees it at the end of the first iteration, as it frees each carried
    buffer it owns when it yields another; a training loop's initial
    parameters and optimizer state no longer live through every step.
  }];
  let dependentDialects = ["mlir::arith::ArithDialect"];
}

def EarlyDeallocs : Pass<"tfl-early-deallocs", "mlir::ModuleOp"> {
  let summary = "Free each buffer right after its last use in its block";
  let description = [{
    The ownership-based deallocation pipeline frees a buffer at the end of
    the block that allocated it: for a script's top level, the end of the
    program. This pass moves each `memref.dealloc` of a `memref.alloc` in
    the same block to just after the last op of that block that uses the
    buffer or a view of it (casts, subviews, reshapes, reinterpretations,
    strided metadata), an op holding a use in a region counting as a use.
    A buffer that may escape (yielded, returned, passed to an op that
    returns a memref or a pointer, or freed elsewhere) keeps its dealloc.
  }];
}

def ErrorLocations : Pass<"tfl-error-locations", "mlir::ModuleOp"> {
  let summary = "Name the .tfl line of each host op the runtime may fail in";
  let description = [{
    Before each host op that may fail inside the runtime without a location
    argument (a call of a runtime function, a heap allocation, a GPU op),
    stores the address of its location text ("file.tfl:LINE:COL" and its
    "called from" notes) in the external global `tflrt_where`, which the
    runtime's errors name (out of memory, a failed GPU launch or library
    call). A store is left out where straight-line code already set the
    same text. Loops that run on several threads (`tfl.parallel`,
    `scf.parallel`, OpenMP) and GPU regions are not entered: a failure in
    them is reported at the op that holds them. A module marked
    `tfl.op_kernel` (one op's kernel, compiled for the eager interpreter,
    which reports its errors at the op) is left as it is: it has no
    locations to name, and code linked into a running process must not
    touch the runtime's thread-locals.
  }];
  let dependentDialects = ["mlir::LLVM::LLVMDialect"];
}

def ExpandBF16Conversions : Pass<"tfl-expand-bf16-conversions"> {
  let summary = "Lower bf16 <-> f32 conversions to integer arithmetic";
  let description = [{
    `arith.extf` from bf16 is a shift; `arith.truncf` to bf16 rounds to
    nearest even with integer adds and shifts (NaN kept a NaN). Targets
    without bf16 instructions (and C runtimes without `__truncsfbf2`) then
    need no library call, and the conversions vectorize. Runs after
    `arith-emulate-unsupported-floats` has put every bf16 computation in
    f32 between such conversions.
  }];
  let dependentDialects = ["mlir::arith::ArithDialect"];
}

def ApproximateMath : Pass<"tfl-approximate-math"> {
  let summary = "Vector polynomials for f32 exp, log and tanh";
  let description = [{
    Rewrites f32 `math.exp`, `expm1`, `log`, `log1p`, `log2` and `tanh`,
    scalar or vector, into MLIR's polynomial approximations (range
    reduction, a minimax polynomial, exponent arithmetic): vector code
    instead of one libm call per lane, which is what LLVM makes of
    `llvm.exp.v32f32`. Their error against the correctly rounded result is
    measured by test/e2e/math-ulps-vs-numpy.tfl and stated in
    docs/performance.md. f64 keeps libm's functions.
  }];
  let dependentDialects = ["mlir::arith::ArithDialect",
                           "mlir::math::MathDialect",
                           "mlir::vector::VectorDialect"];
}

def ScfToCf : Pass<"tfl-scf-to-cf"> {
  let summary = "Lower scf loops and ifs to a CFG in time linear in the IR";
  let description = [{
    Upstream's SCF-to-CF patterns (`scf.for`, `scf.if`, `scf.while`,
    `scf.parallel`, `scf.execute_region`), applied last op first, nested
    ops before the ops that hold them, by a rewriter without listeners.
    Each lowering splits its block after the op; going backwards, the ops
    it moves are only those up to the next op already lowered, where
    upstream's pass (forwards, through the conversion driver) moves all
    the rest of the block at each op: quadratic in a training step's body,
    which ends with hundreds of conditional deallocations. The output is
    upstream's, block for block.
  }];
  let dependentDialects = ["mlir::arith::ArithDialect",
                           "mlir::cf::ControlFlowDialect"];
}

#endif // TFL_CODEGEN_PASSES_TD
