//===- Passes.td - The CUDA wing of code generation ---------*- tablegen -*-===//

#ifndef TFL_CODEGEN_CUDA_PASSES_TD
#define TFL_CODEGEN_CUDA_PASSES_TD

include "mlir/Pass/PassBase.td"

def HostLoops : Pass<"tfl-host-loops", "mlir::ModuleOp"> {
  let summary = "Give the work placed on the CPU the CPU pipeline's loops";
  let description = [{
    The first step of the CUDA wing. Each host function (`tfl.device =
    "cpu"`, tfl-outline-host-work's work placed on the CPU) gets what the
    CPU pipeline does to its loops: bf16 and f16 arithmetic in f32,
    tfl-fuse-rows, tfl-vectorize-loops (vector loops, the large ones
    marked `tfl.parallel`) and tfl-approximate-math; tfl-parallelize-loops
    then runs the marked loops on OpenMP's threads (host functions of their
    own), and tfl-host-scalars makes what is left host loops. Device code
    is not touched.
  }];
  let dependentDialects = ["mlir::affine::AffineDialect",
                           "mlir::arith::ArithDialect",
                           "mlir::math::MathDialect",
                           "mlir::memref::MemRefDialect",
                           "mlir::scf::SCFDialect",
                           "mlir::vector::VectorDialect"];
}

def HostScalars : Pass<"tfl-host-scalars", "mlir::func::FuncOp"> {
  let summary = "Keep the host code's scalar arithmetic on the host";
  let description = [{
    The first step of the CUDA wing, on buffers. Scalar arithmetic that
    host code steers itself with (a loop counter times the batch size, a
    step count, bias corrections, a logging condition) runs on the host, so
    that it neither costs a kernel launch nor makes the host wait for a
    one-element result:

    1. A one-element buffer that the code of one block reuses for several
       values (each written before it is read, as bufferization leaves a
       shared `tensor.empty`) gets a buffer of its own per value.
    2. Placement: a class of buffers that may alias (views, selects, loop
       and branch results) stays on the host when all its buffers are
       one-element allocations or constants made here, used only by loads,
       stores, deallocation and linalg ops, and every linalg op that writes
       it touches only such buffers. Everything else goes to the device.
    3. The host's buffers are marked `tfl.host` (for `tfl-device-memory`),
       and the linalg ops on them become host loops.
    4. A device op that reads a host scalar gets its value: the host loads
       it before the op, which takes it as a captured value instead of an
       operand, so the kernel receives it as an argument.

    In a host function (`tfl.device = "cpu"`, tfl-outline-host-work's work
    placed on the CPU) every buffer stays on the host and every linalg op
    becomes a host loop.

    ```mlir
    // %n = i * 32, then a slice of the device tensor %order at %n
    linalg.generic ins(%i : memref<i64>) outs(%n : memref<i64>) {...}
    // becomes host code, on a host buffer:
    %n = memref.alloc() {tfl.host} : memref<i64>
    %0 = memref.load %i[] : memref<i64>
    %1 = arith.muli %0, %c32_i64 : i64
    memref.store %1, %n[] : memref<i64>
    ```
  }];
  let dependentDialects = ["mlir::arith::ArithDialect",
                           "mlir::memref::MemRefDialect",
                           "mlir::scf::SCFDialect"];
}

def LinalgToGpu : Pass<"tfl-linalg-to-gpu", "mlir::func::FuncOp"> {
  let summary = "Turn linalg ops on buffers into GPU-mapped parallel loops";
  let description = [{
    Every linalg op on buffers in host code becomes a loop nest that
    `convert-parallel-loops-to-gpu` turns into one `gpu.launch`:

    0. First, an `scf.for` marked `tfl.row_blocks` (tfl-fuse-rows with
       `gpu`: a chain of row-wise ops over tiles of rows) becomes one
       `gpu.launch` of a block per iteration, with as many threads as its
       widest op's tile has elements (a multiple of 32, at most the block
       size). Its ops run in order, with a `gpu.barrier` before one that
       reads a buffer written, or writes one touched, since the last: a
       combining reduction into at most 4 outputs per tile as the block's
       (threads striding over each output's elements in turn,
       `gpu.all_reduce`, thread 0 storing, a barrier before the next
       output), any other op an output element per thread (a reduction's
       elements in a sequential loop).

    1. Named ops are generalized; a generic's loops are interchanged so its
       parallel dims come first. Runs of adjacent loops of one kind that
       every operand (of the identity layout) stores contiguously fold into
       one loop over `memref.collapse_shape` views.
    2. A combining reduction (add, mul, max, min on f32 or i32) with at most
       512 outputs and at least 4096 elements each splits in two: a
       parallel loop of about 64k threads, each combining every P-th
       element of one output into a fresh buffer of partials, then a block
       reduction per output over its P partials. Other combining
       reductions of at least 32 elements per output (or with no output
       dim) are block reductions: one block per output, its threads
       striding over the elements, `gpu.all_reduce`, thread 0 storing.
       Otherwise the parallel dims become one `scf.parallel`, the
       reduction dims sequential `scf.for`s inside it (each thread owns
       output elements). An op with no parallel dim runs in a parallel loop
       of one iteration.
    3. The parallel dims are collapsed into one and tiled by the block size
       (256), with a bounds check instead of a partial last tile, and
       mapped: tiles to blocks, the elements of a tile to threads.

    ```mlir
    // linalg.generic ins(%a, %b : memref<1000xf32>, memref<1000xf32>) ...
    scf.parallel (%blk) = (%c0) to (%c4) step (%c1) {
      scf.parallel (%t) = (%c0) to (%c256) step (%c1) {
        scf.if %in_bounds { ... memref.store ... }
      } {mapping = [#gpu.loop_dim_map<processor = thread_x, ...>]}
    } {mapping = [#gpu.loop_dim_map<processor = block_x, ...>]}
    ```
  }];
  let options = [
    Option<"blockSize", "block-size", "int64_t", /*default=*/"256",
           "threads per block">,
    Option<"rowsOnly", "rows-only", "bool", /*default=*/"false",
           "make only the tfl.row_blocks loops kernels (with "
           "tfl-test-launch-on-host, to run them on the CPU)">,
  ];
  let dependentDialects = ["mlir::affine::AffineDialect",
                           "mlir::arith::ArithDialect",
                           "mlir::gpu::GPUDialect",
                           "mlir::memref::MemRefDialect",
                           "mlir::scf::SCFDialect"];
}

def MergeSmallKernels : Pass<"tfl-merge-small-kernels", "mlir::func::FuncOp"> {
  let summary = "Merge runs of small GPU launches into one launch";
  let description = [{
    After `convert-parallel-loops-to-gpu`, before outlining. A training
    step's tail is dozens of kernels of one or a few blocks (a loss over a
    batch, an optimizer's update of a bias), each costing a launch and a
    gap on the GPU for a microsecond of work:

    1. A run is a sequence of small `gpu.launch`es (a one-dimensional grid
       of at most `max-blocks` blocks of at most 256 threads, constant
       sizes, and at most 65536 threads times iterations of the body's
       deepest loop nest: a block reduction over a large batch keeps its
       blocks on several multiprocessors) in one block of host code, with only pure ops, allocations,
       deallocations and host code on host buffers (`tfl.host`) between
       them. A run ends before the launch that would make the buffers and
       scalars its bodies read from outside (the merged kernel's
       parameters) take over 4096 bytes: ptxas refuses a kernel with more
       than 4352 before PTX ISA 8.1.
    2. A run becomes one launch of one block of 256 threads (1 when every
       launch had one thread) where its last launch was; deallocations
       between its launches move after it. The block runs the bodies in
       order, a `gpu.barrier` between them: a launch of several blocks as a
       loop over its block ids, a launch of fewer threads behind a thread
       id check. (After a barrier, every thread of the block sees what the
       others wrote to global memory before it.) Launches with block-wide
       operations (block reductions) join only with 256 threads, and get a
       barrier after each block of their loop, since each reuses the
       reduction's shared memory.
  }];
  let options = [
    Option<"maxBlocks", "max-blocks", "int64_t", /*default=*/"16",
           "the most blocks a launch may have to join a merged one">,
  ];
  let dependentDialects = ["mlir::arith::ArithDialect",
                           "mlir::gpu::GPUDialect",
                           "mlir::scf::SCFDialect"];
}

def DeviceMemory : Pass<"tfl-device-memory", "mlir::ModuleOp"> {
  let summary = "Put the host code's buffers in device memory";
  let description = [{
    After kernel outlining, in host functions:

    1. `memref.alloc`/`memref.dealloc` become `gpu.alloc`/`gpu.dealloc`
       (libtflrt_cuda's caching allocator). Buffers that only host code
       touches stay on the host: `memref.alloca`s, and allocations used
       only by host loads and stores and by calls of private host functions
       (the pointer lists and ownership flags of the deallocation
       lowering, and its `dealloc_helper`, which is left as it is).
    2. `memref.get_global` (a constant) becomes a device copy made at the
       function's entry and freed at its returns.
    3. A `memref.load`/`memref.store` of a device buffer (a scalar that
       steers control flow) becomes `tflrt_cuda_read_scalar`/
       `tflrt_cuda_write_scalar` of the element's device address.
    4. A call of a libtflrt function that takes tensors, `tflrt_X`, calls
       its device entry point `tflrt_cuda_X` instead (same arguments); so
       does `tflrt_now`, whose device version first waits for the queued
       device work, so that timings measure it, and so does every tape
       call (`tflrt_tape_*`), host buffers or not: the tapes live in
       device memory, and a value pushed from one side may be read on
       the other.
    5. `gpu.launch_func` becomes asynchronous on the program's stream
       (`gpu.wait async`, which the runtime answers with its one stream):
       the host waits only where a value crosses to it.

    A host function (`tfl.device = "cpu"`) is left as it is. A call of
    one copies each device buffer it passes into a host buffer first
    (`tflrt_cuda_copy_to_host`, freed after the call) and each buffer it
    returns into a device buffer (`tflrt_cuda_copy_to_device`), which the
    result's uses then take; the host's result is freed.

    6. The program's entry (`tfl_main`) first calls `tflrt_cuda_start`
       with the libraries the host code calls (cuBLAS for matmuls, cuDNN
       for convolutions: their handles are made there, not in the first
       step) and, with `allow-tf32`, lets cuBLAS and cuDNN multiply f32
       in TF32 on tensor cores (10-bit mantissas); without it, f32 is
       f32.

    ```mlir
    %0 = memref.alloc() : memref<4xf32>
    // becomes
    %0 = gpu.alloc () : memref<4xf32>
    ```
  }];
  let options = [
    Option<"allowTf32", "allow-tf32", "bool", /*default=*/"false",
           "let the libraries multiply f32 in TF32">,
  ];
  let dependentDialects = ["mlir::arith::ArithDialect",
                           "mlir::func::FuncDialect",
                           "mlir::gpu::GPUDialect",
                           "mlir::memref::MemRefDialect"];
}

def StepGraphs : Pass<"tfl-step-graphs", "mlir::ModuleOp"> {
  let summary = "Mark the loop bodies whose device work the runtime may "
                "replay as CUDA graphs";
  let description = [{
    After `tfl-device-memory`, in host functions. A training step issues
    the same kernels, copies and library calls every iteration; issuing
    them one by one costs the host a few microseconds each, which bounds
    small-batch steps. Each innermost host loop (`scf.for`, or the body of
    an `scf.while`) that issues device work (`gpu.launch_func`,
    `gpu.memcpy`, `gpu.memset`, a `tflrt_cuda_*` call or a call of a
    program function), with no loop inside it that does, gets a call of
    `tflrt_cuda_step_begin(site)` at the start of its body and of
    `tflrt_cuda_step_end(site)` before its terminator; `site` numbers the
    loops of the module.

    Between the two, libtflrt_cuda records the device work instead of
    issuing it, and at the end replays it as one CUDA graph when it is the
    work an earlier iteration captured (kernel arguments and copy
    addresses may differ: they are updated in the graph), or captures it
    into a new one. Anything that needs the stream's results on the host
    issues what was recorded first, so the markers never change what a
    program computes.

    ```mlir
    scf.for %i = %c0 to %n step %c1 {
      func.call @tflrt_cuda_step_begin(%c0_i64) : (i64) -> ()
      gpu.launch_func ...
      func.call @tflrt_cuda_step_end(%c0_i64) : (i64) -> ()
    }
    ```
  }];
  let dependentDialects = ["mlir::arith::ArithDialect",
                           "mlir::func::FuncDialect"];
}

def TestLaunchOnHost : Pass<"tfl-test-launch-on-host", "mlir::func::FuncOp"> {
  let summary = "Run one-thread GPU launches as loops on the CPU (tests)";
  let description = [{
    For tests of the GPU's row kernels on a machine without a GPU
    (`tflc run --test-gpu-rows-on-cpu`): after `tfl-fuse-rows{gpu=true}`
    and `tfl-linalg-to-gpu{rows-only=true block-size=1}`, each
    `gpu.launch` of one thread per block becomes an `scf.for` over its
    blocks on the host, the thread id 0: a `gpu.all_reduce` of one thread
    is its operand, and a `gpu.barrier` has nothing to wait for. The
    kernels' index arithmetic, tiles and order of ops then run on the CPU
    pipeline's loops, and a program prints what the GPU's kernels would
    compute, up to the order of their sums. A launch of more threads is
    an error.
  }];
  let dependentDialects = ["mlir::arith::ArithDialect",
                           "mlir::scf::SCFDialect"];
}

#endif // TFL_CODEGEN_CUDA_PASSES_TD
