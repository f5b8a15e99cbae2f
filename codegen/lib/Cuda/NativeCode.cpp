//===- NativeCode.cpp - Linking --device cuda executables -----------------===//
//
// A CUDA executable is the host object (its kernels embedded as a fatbin)
// linked with libtflrt_cuda, libtflrt and its CPU libraries, and the CUDA
// runtime (statically, so no libcudart travels with the program). The
// driver's libcuda, cuBLAS, cuDNN and NCCL are not linked: libtflrt_cuda
// loads each when the program first needs it (runtime/cuda/lib/
// Libraries.h), finding the toolkit's through the run path.
//
//===----------------------------------------------------------------------===//

#include "tfl/Codegen/NativeCode.h"
#include "tfl/Codegen/Config.h"
#include "tfl/Codegen/Cuda/Cuda.h"

namespace mlir::tfl {

LogicalResult linkCudaExecutable(ArrayRef<StringRef> objectPaths,
                                 StringRef outputPath,
                                 std::string &errorMessage) {
  return linkExecutable(
      objectPaths, outputPath, errorMessage,
      {TFL_RUNTIME_CUDA_LIB, TFL_CUDA_LIB_DIR "/libcudart_static.a",
       "-Wl,-rpath," TFL_CUDA_LIB_DIR, "-ldl", "-lrt", "-lpthread"});
}

} // namespace mlir::tfl
