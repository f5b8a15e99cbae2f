//===- NativeCode.cpp - Linking --device cuda executables -----------------===//
//
// A CUDA executable is the host object (its kernels embedded as a fatbin)
// linked with libtflrt_cuda, libtflrt and its CPU libraries, the CUDA
// runtime (statically, so no libcudart travels with the program), cuBLAS,
// and the driver's libcuda (the toolkit's stub at link time; the machine's
// driver at run time).
//
//===----------------------------------------------------------------------===//

#include "tfl/Codegen/NativeCode.h"
#include "tfl/Codegen/Config.h"
#include "tfl/Codegen/Cuda/Cuda.h"

namespace mlir::tfl {

LogicalResult linkCudaExecutable(StringRef objectPath, StringRef outputPath,
                                 std::string &errorMessage) {
  return linkExecutable(
      objectPath, outputPath, errorMessage,
      {TFL_RUNTIME_CUDA_LIB, TFL_CUDA_LIB_DIR "/libcudart_static.a",
       "-L" TFL_CUDA_LIB_DIR, "-lcublas", "-lcublasLt", "-lcudnn",
       // NCCL, for programs with collectives only.
       "-Wl,--push-state,--as-needed", "-lnccl", "-Wl,--pop-state",
       "-L" TFL_CUDA_LIB_DIR "/stubs", "-lcuda", "-Wl,-rpath," TFL_CUDA_LIB_DIR,
       "-ldl", "-lrt", "-lpthread"});
}

} // namespace mlir::tfl
