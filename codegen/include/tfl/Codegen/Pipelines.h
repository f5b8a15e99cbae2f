//===- Pipelines.h - The named stages from tfl to LLVM ----------*- C++ -*-===//
//
// Compilation is a list of named stages. `tflc emit mlir --after=STAGE` runs
// them up to STAGE; `tflc build` runs them all and `tfl-opt
// --tfl-cpu-pipeline` reproduces exactly that. The eager interpreter runs the
// IR after the `simplify` stage, the same IR the rest of the pipeline lowers.
//
//===----------------------------------------------------------------------===//

#ifndef TFL_CODEGEN_PIPELINES_H
#define TFL_CODEGEN_PIPELINES_H

#include "mlir/Pass/PassManager.h"

namespace mlir::tfl {

struct PipelineStage {
  llvm::StringLiteral name;
  llvm::StringLiteral summary;
  void (*build)(OpPassManager &pm);
};

/// The stages every target starts with (Common/Pipelines.cpp): autodiff,
/// simplify, linalg, bufferize.
llvm::ArrayRef<PipelineStage> getSharedPipelineStages();
/// The CPU pipeline's stages (Cpu/Pipeline.cpp): the shared ones, its
/// bufferize stage with the CPU's passes before bufferization, then llvm.
llvm::ArrayRef<PipelineStage> getCpuPipelineStages();

/// The bufferize stage's two halves, for targets that add passes between
/// them: products' operands in the forms the libraries take, then
/// tensors to buffers, deallocation and library calls on buffers. With
/// `invariantLeftCopies` (the CPU's), a loop-invariant transposed left
/// operand of a product is copied once before the loop instead of read
/// with a transpose flag (tfl-matmul-operands).
void addProductOperands(OpPassManager &pm, bool invariantLeftCopies = false);
void addBufferization(OpPassManager &pm);

/// Adds the stages up to and including `lastStage` (all when empty), with
/// `beforeLlvm`'s passes (if any) before the llvm stage. Fails when no stage
/// has that name.
LogicalResult
buildCpuPipeline(OpPassManager &pm, StringRef lastStage = "",
                 function_ref<void(OpPassManager &)> beforeLlvm = nullptr);

/// bf16/f16 arithmetic and math computed in f32 between conversions.
void addHalfFloatArithmetic(OpPassManager &pm);
/// That, and the bf16 conversions as integer arithmetic (any CPU,
/// vectorizable).
void addHalfFloatLowering(OpPassManager &pm);

/// The CPU pipeline's loops, on a pass manager of functions: tfl-fuse-rows
/// (a chain of row-wise ops on tiles of rows), then tfl-vectorize-loops.
/// The CPU target runs them on every function; the CUDA target on the
/// work placed on the CPU (tfl-host-loops).
void addCpuLoops(OpPassManager &functionPm);

/// Host code's vector ops to the LLVM dialect (reductions reassociated).
void addVectorLLVMConversion(OpPassManager &pm);

/// The conversions of host code (memref, math through libm, arith, index,
/// func, cf, ub) to the LLVM dialect, which both targets' last stage runs.
void addHostLLVMConversions(OpPassManager &pm);

/// Registers `tfl-cpu-pipeline` and one pipeline per stage
/// (`tfl-stage-<name>`) with MLIR's pass registry, for tfl-opt.
void registerTflPipelines();

} // namespace mlir::tfl

#endif // TFL_CODEGEN_PIPELINES_H
