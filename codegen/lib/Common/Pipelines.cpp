//===- Pipelines.cpp - The stages every target shares ---------------------===//
//
// autodiff, simplify, linalg and bufferize, free of any target's passes;
// each target's pipeline file (Cpu/Pipeline.cpp, Cuda/Pipeline.cpp) adds
// its own stages after them, and the helpers here that its stages share.
//
//===----------------------------------------------------------------------===//

#include "tfl/Codegen/Pipelines.h"
#include "tfl/Codegen/Passes.h"
#include "tfl/Passes/Passes.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

namespace mlir::tfl {
namespace {

/// MLIR's canonicalizer without upstream's merging of loop-carried values
/// that are fed alike (RemoveDuplicateSuccessorInputUses): on a training
/// loop's hundreds of buffers and their ownership flags it rescans every
/// pair after each merge (seconds for an 8-layer GPT, growing with the
/// cube of the layers), and what it would merge is a few i1 flags.
std::unique_ptr<Pass> createCanonicalizer() {
  return createCanonicalizerPass(
      GreedyRewriteConfig(),
      {"(anonymous namespace)::RemoveDuplicateSuccessorInputUses"});
}

/// tfl.grad -> the vjp functions it differentiates (reverse mode).
void buildAutodiffStage(OpPassManager &pm) { pm.addPass(createTflAutodiff()); }

/// tfl -> tfl: devices and the copies between them (tfl.target), attention
/// written out for the GPU, mixed
/// precision (tfl.precision), each vjp in one body, then clean-up; ops
/// without 16-bit kernels move to f32 copies last, so the eager interpreter
/// and both backends run the same casts. The IR after it is what eager mode
/// interprets.
void buildSimplifyStage(OpPassManager &pm) {
  pm.addPass(createTflPlaceDevices());
  pm.addPass(createTflDecomposeAttention());
  pm.addPass(createTflAutocast());
  // Each vjp in one body, its recomputed forward merged by the CSE below.
  pm.addPass(createTflInlineIntoVjps());
  pm.addPass(createCanonicalizer());
  pm.addPass(createCSEPass());
  pm.addPass(createTflWidenHalf());
  pm.addPass(createCSEPass());
}

/// Whole-program inlining, gradient buckets, attention's layout, then
/// tfl -> linalg with elementwise fusion.
void buildLinalgStage(OpPassManager &pm) {
  // The inliner's clean-up between inlinings is that canonicalizer too.
  pm.addPass(createInlinerPass({}, [](OpPassManager &nested) {
    nested.addPass(createCanonicalizer());
  }));
  pm.addPass(createSymbolDCEPass());
  // A gradient inlined next to its primal recomputes the primal's work (a
  // vjp of a call re-runs the callee's forward): CSE merges the two.
  pm.addPass(createCSEPass());
  // A GPU program's work placed on the CPU, in host functions of its own.
  pm.addPass(createTflOutlineHostWork());
  // With the backward pass inlined, gradients are all-reduced in buckets
  // as it makes them.
  pm.addPass(createTflOverlapCollectives());
  // The heads' transposes around each attention fold into its layout.
  pm.addNestedPass<func::FuncOp>(createTflAttentionLayout());
  pm.addPass(createConvertTflToLinalg());
  pm.addPass(createFuseElementwise());
  pm.addPass(createCanonicalizer());
  pm.addPass(createCSEPass());
}

/// Tensors -> buffers, deallocation, and library calls on buffers;
/// products take transposed operands and overwrite their results
/// (tflrt_gemm_*, on BLAS or cuBLAS) on both targets.
void buildBufferizeStage(OpPassManager &pm) {
  addProductOperands(pm);
  addBufferization(pm);
}

const PipelineStage kSharedStages[] = {
    {"autodiff", "build the gradient functions tfl.grad asks for",
     buildAutodiffStage},
    {"simplify",
     "place devices, cast for mixed precision, inline each vjp, "
     "canonicalize and CSE (the IR eager mode runs)",
     buildSimplifyStage},
    {"linalg",
     "inline, CSE, outline host work, bucket collectives, fold head "
     "transposes into attention, lower tfl to linalg and fuse elementwise "
     "ops",
     buildLinalgStage},
    {"bufferize", "bufferize, deallocate, and call libraries on buffers",
     buildBufferizeStage},
};

} // namespace

void addProductOperands(OpPassManager &pm, bool invariantLeftCopies) {
  pm.addNestedPass<func::FuncOp>(
      createMatmulOperands(MatmulOperandsOptions{invariantLeftCopies}));
}

void addBufferization(OpPassManager &pm) {
  bufferization::OneShotBufferizePassOptions options;
  options.bufferizeFunctionBoundaries = true;
  // Loop bodies compute new tensors each iteration; their buffers are
  // freed by the deallocation pipeline below.
  options.allowReturnAllocsFromLoops = true;
  options.functionBoundaryTypeConversion =
      bufferization::LayoutMapOption::IdentityLayoutMap;
  // A value whose buffer's layout the analysis cannot infer (a loop's
  // iter_arg that yields a fresh buffer: a training loop's parameters) is
  // taken as contiguous, not as any strides: a reshape of a parameter
  // (a transformer's [d, 3, H, E] projection as [d, 3HE]) is then a view,
  // not a copy of the parameter every step.
  options.unknownTypeConversion =
      bufferization::LayoutMapOption::IdentityLayoutMap;
  pm.addPass(bufferization::createOneShotBufferizePass(options));
  // MLIR's buffer-deallocation-pipeline, with tfl-split-deallocs before its
  // simplification (whose alias queries grow with the square of a
  // dealloc's memrefs: a training step's loop body ends with one dealloc
  // of hundreds, which took seconds) and after it (completing its split),
  // before the deallocs are lowered.
  pm.addPass(memref::createExpandReallocPass({/*emitDeallocs=*/false}));
  pm.addPass(createCanonicalizer());
  pm.addPass(bufferization::createOwnershipBasedBufferDeallocationPass());
  pm.addPass(createCanonicalizer());
  pm.addPass(createDonateLoopInits());
  pm.addPass(createSplitDeallocs());
  pm.addPass(bufferization::createBufferDeallocationSimplificationPass());
  pm.addPass(createSplitDeallocs());
  pm.addPass(bufferization::createLowerDeallocationsPass());
  // A function's result that it does not own (a host function's constant,
  // tfl-outline-host-work) is returned as a clone: an allocation and a
  // copy.
  pm.addPass(createConvertBufferizationToMemRefPass());
  pm.addPass(createCSEPass());
  pm.addPass(createCanonicalizer());
  pm.addPass(createLowerToRuntimeCalls());
  pm.addPass(createCanonicalizer());
  pm.addPass(createEarlyDeallocs());
}

void addHalfFloatArithmetic(OpPassManager &pm) {
  pm.addPass(math::createMathExtendToSupportedTypes());
  arith::ArithEmulateUnsupportedFloatsOptions emulate;
  emulate.sourceTypeStrs = {"bf16", "f16"};
  emulate.targetTypeStr = "f32";
  pm.addPass(arith::createArithEmulateUnsupportedFloats(emulate));
}

void addHalfFloatLowering(OpPassManager &pm) {
  addHalfFloatArithmetic(pm);
  pm.addPass(createExpandBF16Conversions());
}

void addCpuLoops(OpPassManager &functionPm) {
  functionPm.addPass(createFuseRows());
  functionPm.addPass(createVectorizeLoops());
}

void addVectorLLVMConversion(OpPassManager &pm) {
  ConvertVectorToLLVMPassOptions options;
  options.reassociateFPReductions = true;
  pm.addPass(createConvertVectorToLLVMPass(options));
}

void addHostLLVMConversions(OpPassManager &pm) {
  // Heap buffers come from libtflrt's _mlir_memref_to_llvm_alloc, which
  // reports an allocation the system refuses at tflrt_where. It is
  // malloc's, the lowering aligning the pointer itself: glibc's
  // aligned_alloc made the seed CNN's training 1.5x slower.
  FinalizeMemRefToLLVMConversionPassOptions memref;
  memref.useGenericFunctions = true;
  pm.addPass(createFinalizeMemRefToLLVMConversionPass(memref));
  pm.addPass(createConvertMathToLLVMPass());
  pm.addPass(createConvertMathToLibmPass());
  pm.addPass(createArithToLLVMConversionPass());
  pm.addPass(createConvertIndexToLLVMPass());
  pm.addPass(createConvertFuncToLLVMPass());
  pm.addPass(createConvertControlFlowToLLVMPass());
  pm.addPass(createUBToLLVMConversionPass()); // vector padding values
}

ArrayRef<PipelineStage> getSharedPipelineStages() { return kSharedStages; }

} // namespace mlir::tfl
