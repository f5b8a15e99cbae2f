//===- tfl-opt.cpp - mlir-opt with the tfl dialect and passes -------------===//
//
// Every upstream dialect and pass, plus tfl's dialect, passes and pipelines
// (`--tfl-cpu-pipeline` is exactly what `tflc build` runs, and
// `--tfl-cuda-pipeline` what `tflc build --device cuda` runs). For lit tests.
//
//===----------------------------------------------------------------------===//

#include "tfl/Codegen/Passes.h"
#include "tfl/Codegen/Pipelines.h"
#include "tfl/Codegen/Registration.h"
#include "tfl/Passes/Passes.h"
#ifdef TFL_HAVE_CUDA
#include "tfl/Codegen/Cuda/Cuda.h"
#endif

#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  mlir::tfl::registerCompilerDialects(registry);
  mlir::registerAllPasses();
  mlir::tfl::registerTflCodegenPasses();
  mlir::tfl::registerTflPassesPasses();
  mlir::tfl::registerTflPipelines();
#ifdef TFL_HAVE_CUDA
  mlir::tfl::registerCudaDialects(registry);
  mlir::tfl::registerTflCudaPipelines();
#endif
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "TFL optimizer driver\n", registry));
}
