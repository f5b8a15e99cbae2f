//===- Passes.td - The CUDA wing of code generation ---------*- tablegen -*-===//

#ifndef TFL_CODEGEN_CUDA_PASSES_TD
#define TFL_CODEGEN_CUDA_PASSES_TD

include "mlir/Pass/PassBase.td"

def LinalgToGpu : Pass<"tfl-linalg-to-gpu", "mlir::func::FuncOp"> {
  let summary = "Turn linalg ops on buffers into GPU-mapped parallel loops";
  let description = [{
    Every linalg op on buffers in host code becomes a loop nest that
    `convert-parallel-loops-to-gpu` turns into one `gpu.launch`:

    1. Named ops are generalized; a generic's loops are interchanged so its
       parallel dims come first.
    2. The parallel dims become one `scf.parallel`, the reduction dims
       sequential `scf.for`s inside it (each thread owns output elements).
       An op with no parallel dim runs in a parallel loop of one iteration.
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
  ];
  let dependentDialects = ["mlir::affine::AffineDialect",
                           "mlir::arith::ArithDialect",
                           "mlir::gpu::GPUDialect",
                           "mlir::memref::MemRefDialect",
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
       device work, so that timings measure it.
    5. `gpu.launch_func` becomes asynchronous on the program's stream
       (`gpu.wait async`, which the runtime answers with its one stream):
       the host waits only where a value crosses to it.

    6. With `allow-tf32`, the program's entry (`tfl_main`) first calls
       `tflrt_cuda_allow_tf32`: cuBLAS and cuDNN may then multiply f32 in
       TF32 on tensor cores (10-bit mantissas); without it, f32 is f32.

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

#endif // TFL_CODEGEN_CUDA_PASSES_TD
