//===- Pipeline.cpp - The CPU's stages ------------------------------------===//
//
// The CPU pipeline of `tflc build`: the shared stages (Common/Pipelines.cpp)
// with the CPU's own passes before bufferization (reductions split for
// the threads, loop-local empty tensors), then
//   llvm  convolutions' bias, half floats, row chains fused, loops
//         vectorized, approximated math, error locations, loops on
//         OpenMP's threads, and everything to the LLVM dialect.
//
//===----------------------------------------------------------------------===//

#include "tfl/Codegen/Passes.h"
#include "tfl/Codegen/Pipelines.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

#include <vector>

namespace mlir::tfl {
namespace {

/// The shared bufferize stage, with reductions split among the threads
/// and empty tensors made where loops use them.
void buildCpuBufferizeStage(OpPassManager &pm) {
  addProductOperands(pm, /*invariantLeftCopies=*/true);
  pm.addNestedPass<func::FuncOp>(createSplitReductions());
  pm.addNestedPass<func::FuncOp>(createLocalEmptyTensors());
  addBufferization(pm);
}

/// Loops and everything else -> the LLVM dialect.
void buildLLVMStage(OpPassManager &pm) {
  pm.addPass(createConvBias());
  addHalfFloatLowering(pm);
  addCpuLoops(pm.nest<func::FuncOp>());
  pm.addPass(createApproximateMath());
  pm.addPass(createErrorLocations()); // before loops move to other threads
  pm.addPass(createParallelizeLoops());
  pm.addPass(createConvertVectorToSCFPass());
  pm.addPass(createConvertLinalgToLoopsPass());
  pm.addPass(createScfToCf());
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
  // math.ipowi by a power known only at run time, as a function; on
  // vectors, unrolled into its calls by vector ops, which are lowered next
  // (the CUDA target does this before kernel outlining).
  pm.addPass(createConvertMathToFuncs());
  addVectorLLVMConversion(pm);
  addHostLLVMConversions(pm);
  pm.addPass(createReconcileUnrealizedCastsPass());
}

} // namespace

ArrayRef<PipelineStage> getCpuPipelineStages() {
  static const std::vector<PipelineStage> stages = [] {
    std::vector<PipelineStage> all(getSharedPipelineStages().begin(),
                                   getSharedPipelineStages().end());
    assert(all.back().name == "bufferize" && "the shared stages end so");
    all.back().build = buildCpuBufferizeStage;
    all.push_back({"llvm", "lower to the LLVM dialect", buildLLVMStage});
    return all;
  }();
  return stages;
}

LogicalResult buildCpuPipeline(OpPassManager &pm, StringRef lastStage,
                               function_ref<void(OpPassManager &)> beforeLlvm) {
  for (const PipelineStage &stage : getCpuPipelineStages()) {
    if (stage.name == "llvm" && beforeLlvm)
      beforeLlvm(pm);
    stage.build(pm);
    if (stage.name == lastStage)
      return success();
  }
  return success(lastStage.empty());
}

void registerTflPipelines() {
  PassPipelineRegistration<>(
      "tfl-cpu-pipeline",
      "The whole CPU pipeline of `tflc build`, from tfl to the LLVM dialect",
      [](OpPassManager &pm) { (void)buildCpuPipeline(pm); });
  for (const PipelineStage &stage : getCpuPipelineStages())
    PassPipelineRegistration<>(("tfl-stage-" + stage.name).str(), stage.summary,
                               stage.build);
}

} // namespace mlir::tfl
