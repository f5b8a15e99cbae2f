//===- Cuda.h - The --device cuda pipeline and executables ------*- C++ -*-===//
//
// The CUDA wing: the stages after bufferization that put the program on an
// NVIDIA GPU (kernels for the loops, device memory for the buffers, NVVM,
// PTX and cubin for sm_90 in a fatbin), the dialects they need, and the
// link of an executable with libtflrt_cuda.
//
//===----------------------------------------------------------------------===//

#ifndef TFL_CODEGEN_CUDA_CUDA_H
#define TFL_CODEGEN_CUDA_CUDA_H

#include "tfl/Codegen/Pipelines.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"

#include <string>

namespace mlir::tfl {

/// The CUDA pipeline's stage names: the CPU pipeline's target-free stages
/// (autodiff, simplify, linalg, bufferize), then gpu, nvvm and llvm.
SmallVector<StringRef> getCudaPipelineStageNames();

/// What a CUDA build asks for beyond the default.
struct CudaOptions {
  /// Keep the kernels as PTX text (for `tflc emit ptx`, and eager mode's
  /// kernels, which the driver compiles as they load), not a fatbin.
  bool ptxOnly = false;
  /// Let cuBLAS and cuDNN multiply f32 in TF32 (`--allow-tf32`).
  bool allowTf32 = false;
  /// Run each chain of row-wise ops (a softmax, a layer norm, their
  /// gradients) as one kernel, a block per row (tfl-fuse-rows with `gpu`;
  /// `--gpu-rows=fused`), not a kernel per op.
  bool fuseRows = false;
};

/// Adds the stages from `firstStage` (the first when empty) up to and
/// including `lastStage` (the last when empty). Fails on an unknown stage.
LogicalResult buildCudaPipeline(OpPassManager &pm, StringRef lastStage = "",
                                const CudaOptions &options = {},
                                StringRef firstStage = "");

/// For tests without a GPU (`tflc run --test-gpu-rows-on-cpu`): the GPU's
/// row kernels (tfl-fuse-rows with `gpu`, tfl-linalg-to-gpu's row blocks)
/// built for one thread per block and run as loops on the host
/// (tfl-test-launch-on-host), before the CPU pipeline's llvm stage.
void addGpuRowKernelsOnHost(OpPassManager &pm);

/// Registers `tfl-cuda-pipeline` and `tfl-cuda-stage-<name>` for tfl-opt,
/// and the CUDA wing's passes.
void registerTflCudaPipelines();

/// The dialects, translations and GPU target models the CUDA pipeline uses.
void registerCudaDialects(DialectRegistry &registry);

/// The PTX of every kernel module of `module` (after the pipeline with
/// `ptxOnly`), one module after the other.
FailureOr<std::string> extractPtx(ModuleOp module);

/// Links the objects of compiled CUDA host code into an executable with
/// libtflrt_cuda, libtflrt and the CUDA libraries.
LogicalResult linkCudaExecutable(ArrayRef<StringRef> objectPaths,
                                 StringRef outputPath,
                                 std::string &errorMessage);

} // namespace mlir::tfl

#endif // TFL_CODEGEN_CUDA_CUDA_H
