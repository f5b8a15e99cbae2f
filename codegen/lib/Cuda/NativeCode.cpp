//===- NativeCode.cpp - Linking --device cuda executables -----------------===//
//
// A CUDA executable is the host object (its kernels embedded as a fatbin)
// linked with libtflrt_cuda, libtflrt and its CPU libraries, the CUDA
// runtime (statically, so no libcudart travels with the program), cuBLAS,
// and the driver's libcuda (the toolkit's stub at link time; the machine's
// driver at run time).
//
//===----------------------------------------------------------------------===//

#include "tfl/Codegen/Config.h"
#include "tfl/Codegen/Cuda/Cuda.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Program.h"

namespace mlir::tfl {

LogicalResult linkCudaExecutable(StringRef objectPath, StringRef outputPath,
                                 std::string &errorMessage) {
  llvm::ErrorOr<std::string> driver = std::string(TFL_LINKER_DRIVER);
  if (!llvm::sys::fs::can_execute(*driver))
    driver = llvm::sys::findProgramByName("c++");
  if (!driver) {
    errorMessage = "no C++ compiler driver (c++ or g++) on PATH to link with";
    return failure();
  }
  SmallVector<StringRef> args = {*driver,
                                 objectPath,
                                 "-o",
                                 outputPath,
                                 TFL_RUNTIME_MAIN_LIB,
                                 TFL_RUNTIME_CUDA_LIB,
                                 TFL_RUNTIME_LIB,
                                 TFL_OPENBLAS_LIB,
                                 TFL_OPENBLAS_RPATH,
                                 TFL_DNNL_LIB,
                                 TFL_OPENMP_FLAGS,
                                 TFL_CUDA_LIB_DIR "/libcudart_static.a",
                                 "-L" TFL_CUDA_LIB_DIR,
                                 "-lcublas",
                                 "-lcublasLt",
                                 "-lcudnn",
                                 "-L" TFL_CUDA_LIB_DIR "/stubs",
                                 "-lcuda",
                                 "-Wl,-rpath," TFL_CUDA_LIB_DIR,
                                 "-ldl",
                                 "-lrt",
                                 "-lpthread",
                                 "-lz",
                                 "-lm"};
  int rc = llvm::sys::ExecuteAndWait(*driver, args, std::nullopt, {}, 0, 0,
                                     &errorMessage);
  if (rc != 0 && errorMessage.empty())
    errorMessage = "the linker failed (exit code " + std::to_string(rc) + ")";
  return success(rc == 0);
}

} // namespace mlir::tfl
