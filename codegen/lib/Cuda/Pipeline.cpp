//===- Pipeline.cpp - The --device cuda stages ----------------------------===//
//
// The CUDA pipeline shares the target-free stages with the CPU pipeline
// (autodiff, simplify, linalg with fusion, bufferize with library calls),
// then:
//   gpu   scalar work on the host; linalg ops -> parallel loops ->
//         gpu.launch, runs of small launches merged -> outlined kernels in
//         a gpu.module; the host's buffers in device memory; loop bodies
//         the runtime may replay as CUDA graphs marked
//   nvvm  the kernels to the NVVM dialect (math through libdevice)
//   llvm  the host code to the LLVM dialect, calling libtflrt_cuda for
//         launches and memory; the kernels to PTX with LLVM's NVPTX backend
//         in-process, assembled by the toolkit's ptxas into an sm_90 cubin
//         and packed with the PTX into a fatbin embedded in the module.
//
//===----------------------------------------------------------------------===//

#include "tfl/Codegen/Config.h"
#include "tfl/Codegen/Cuda/Cuda.h"
#include "tfl/Codegen/Cuda/Passes.h"
#include "tfl/Codegen/Passes.h"

#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/FuncToLLVM/ConvertFuncToLLVM.h"
#include "mlir/Conversion/GPUToNVVM/GPUToNVVM.h"
#include "mlir/Conversion/IndexToLLVM/IndexToLLVM.h"
#include "mlir/Conversion/MathToFuncs/MathToFuncs.h"
#include "mlir/Conversion/MathToLLVM/MathToLLVM.h"
#include "mlir/Conversion/MemRefToLLVM/MemRefToLLVM.h"
#include "mlir/Conversion/NVVMToLLVM/NVVMToLLVM.h"
#include "mlir/Conversion/Passes.h"
#include "mlir/Conversion/UBToLLVM/UBToLLVM.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Target/LLVM/NVVM/Target.h"
#include "mlir/Target/LLVMIR/Dialect/GPU/GPUToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/NVVM/NVVMToLLVMIRTranslation.h"
#include "mlir/Transforms/Passes.h"

namespace mlir::tfl {
namespace {

/// Kernels for the loops, device memory for the buffers.
void buildGpuStage(OpPassManager &pm, const CudaOptions &options) {
  // Work placed on the CPU: the CPU pipeline's loops (vectors, threads).
  pm.addPass(createHostLoops());
  // Integer powers by a power known only at run time (math.ipowi), as
  // calls of a function that kernel outlining copies into each kernel's
  // module (NVVM has no such instruction).
  pm.addPass(createConvertMathToFuncs());
  pm.addPass(createParallelizeLoops());
  pm.addPass(createConvertVectorToSCFPass());
  pm.addNestedPass<func::FuncOp>(createHostScalars());
  // (After tfl-host-scalars: a tile's one-element views are not host
  // scalars.)
  if (options.fuseRows) {
    FuseRowsOptions rows;
    rows.gpu = true;
    pm.addNestedPass<func::FuncOp>(createFuseRows(rows));
  }
  pm.addNestedPass<func::FuncOp>(createLinalgToGpu());
  pm.addNestedPass<func::FuncOp>(createGpuMapParallelLoopsPass());
  pm.addNestedPass<func::FuncOp>(createConvertParallelLoopToGpuPass());
  pm.addNestedPass<func::FuncOp>(createCanonicalizerPass());
  pm.addNestedPass<func::FuncOp>(createMergeSmallKernels());
  pm.addPass(createGpuLaunchSinkIndexComputationsPass());
  pm.addPass(createGpuKernelOutliningPass());
  DeviceMemoryOptions memory;
  memory.allowTf32 = options.allowTf32;
  pm.addPass(createDeviceMemory(memory));
  pm.addPass(createStepGraphs());
  pm.addPass(createSymbolDCEPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
}

/// The kernels to NVVM, for sm_90 (H100, H200).
void buildNvvmStage(OpPassManager &pm, const CudaOptions &) {
  pm.addPass(createScfToCf());
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
  GpuNVVMAttachTargetOptions target;
  target.chip = "sm_90";
  target.features = "+ptx80";
  target.optLevel = 3;
  pm.addPass(createGpuNVVMAttachTarget(target));
  OpPassManager &kernels = pm.nest<gpu::GPUModuleOp>();
  // bf16/f16 math in f32 (libdevice has no 16-bit functions); the
  // conversions stay, as sm_90's own cvt instructions.
  addHalfFloatArithmetic(kernels);
  kernels.addPass(createConvertGpuOpsToNVVMOps());
  kernels.addPass(createCanonicalizerPass());
  kernels.addPass(createCSEPass());
  kernels.addPass(createReconcileUnrealizedCastsPass());
}

/// The host code to the LLVM dialect, and the kernels to binaries.
void buildLlvmStage(OpPassManager &pm, const CudaOptions &options) {
  addHalfFloatLowering(pm); // the host's own (the kernels are NVVM by now)
  pm.addPass(createErrorLocations());
  addVectorLLVMConversion(pm); // host functions' loops (tfl-host-loops)
  addHostLLVMConversions(pm);
  pm.addPass(createGpuToLLVMConversionPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
  // PTX in process (LLVM's NVPTX backend); for executables, ptxas's sm_90
  // cubin and that PTX packed by fatbinary as one fatbin per module.
  GpuModuleToBinaryPassOptions binary;
  binary.toolkitPath = TFL_CUDA_ROOT;
  binary.compilationTarget = options.ptxOnly ? "isa" : "fatbin";
  pm.addPass(createGpuModuleToBinaryPass(binary));
}

/// A stage of the CUDA wing, built for a program's options.
struct CudaStage {
  StringLiteral name;
  StringLiteral summary;
  void (*build)(OpPassManager &pm, const CudaOptions &options);
};

const CudaStage kCudaStages[] = {
    {"gpu", "map loops to GPU kernels and buffers to device memory",
     buildGpuStage},
    {"nvvm", "lower the kernels to NVVM", buildNvvmStage},
    {"llvm", "lower the host code to LLVM and the kernels to a fatbin",
     buildLlvmStage},
};

/// The stages both targets share.
ArrayRef<PipelineStage> sharedStages() { return getSharedPipelineStages(); }

} // namespace

SmallVector<StringRef> getCudaPipelineStageNames() {
  SmallVector<StringRef> names;
  for (const PipelineStage &stage : sharedStages())
    names.push_back(stage.name);
  for (const CudaStage &stage : kCudaStages)
    names.push_back(stage.name);
  return names;
}

void addGpuRowKernelsOnHost(OpPassManager &pm) {
  FuseRowsOptions rows;
  rows.gpu = true;
  pm.addNestedPass<func::FuncOp>(createFuseRows(rows));
  LinalgToGpuOptions kernels;
  kernels.blockSize = 1;
  kernels.rowsOnly = true;
  pm.addNestedPass<func::FuncOp>(createLinalgToGpu(kernels));
  pm.addNestedPass<func::FuncOp>(createTestLaunchOnHost());
  pm.addPass(createCanonicalizerPass());
}

LogicalResult buildCudaPipeline(OpPassManager &pm, StringRef lastStage,
                                const CudaOptions &options,
                                StringRef firstStage) {
  bool started = firstStage.empty();
  for (const PipelineStage &stage : sharedStages()) {
    started |= stage.name == firstStage;
    if (started)
      stage.build(pm);
    if (stage.name == lastStage)
      return success(started);
  }
  for (const CudaStage &stage : kCudaStages) {
    started |= stage.name == firstStage;
    if (started)
      stage.build(pm, options);
    if (stage.name == lastStage)
      return success(started);
  }
  return success(started && lastStage.empty());
}

void registerTflCudaPipelines() {
  registerTflCudaCodegenPasses();
  PassPipelineRegistration<>(
      "tfl-cuda-pipeline",
      "The whole CUDA pipeline of `tflc build --device cuda`",
      [](OpPassManager &pm) { (void)buildCudaPipeline(pm); });
  for (const CudaStage &stage : kCudaStages)
    PassPipelineRegistration<>(
        ("tfl-cuda-stage-" + stage.name).str(), stage.summary,
        [build = stage.build](OpPassManager &pm) { build(pm, CudaOptions()); });
}

void registerCudaDialects(DialectRegistry &registry) {
  registry.insert<gpu::GPUDialect, NVVM::NVVMDialect>();
  // convert-gpu-to-nvvm converts the kernels' other ops through their
  // dialects' ConvertToLLVM interfaces.
  arith::registerConvertArithToLLVMInterface(registry);
  cf::registerConvertControlFlowToLLVMInterface(registry);
  index::registerConvertIndexToLLVMInterface(registry);
  registerConvertFuncToLLVMInterface(registry);
  registerConvertMathToLLVMInterface(registry);
  registerConvertMemRefToLLVMInterface(registry);
  registerConvertNVVMToLLVMInterface(registry);
  NVVM::registerConvertGpuToNVVMInterface(registry);
  ub::registerConvertUBToLLVMInterface(registry);
  NVVM::registerNVVMTargetInterfaceExternalModels(registry);
  registerGPUDialectTranslation(registry);
  gpu::registerOffloadingLLVMTranslationInterfaceExternalModels(registry);
  registerNVVMDialectTranslation(registry);
}

FailureOr<std::string> extractPtx(ModuleOp module) {
  std::string ptx;
  WalkResult result = module.walk([&](gpu::BinaryOp binary) {
    for (Attribute attr : binary.getObjectsAttr()) {
      auto object = cast<gpu::ObjectAttr>(attr);
      if (object.getFormat() != gpu::CompilationTarget::Assembly) {
        binary.emitError("expected PTX (assembly) objects");
        return WalkResult::interrupt();
      }
      ptx += "// ---- kernels of @" + binary.getName().str() + "\n";
      ptx += object.getObject().getValue().str();
    }
    return WalkResult::advance();
  });
  if (result.wasInterrupted())
    return failure();
  return ptx;
}

} // namespace mlir::tfl
