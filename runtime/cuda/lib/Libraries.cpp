//===- Libraries.cpp - The NVIDIA libraries, loaded when first needed -----===//
//
// dlopen by soname: the dynamic loader searches LD_LIBRARY_PATH, the
// executable's run path (tflc links executables with the CUDA toolkit's
// library directory there) and the system's directories, as it would have
// for a linked library.
//
//===----------------------------------------------------------------------===//

#include "Libraries.h"
#include "Device.h"

#include <dlfcn.h>

#include <string>

namespace tflrt::cuda {
namespace {

#define TFLRT_CUDA_STRING(x) #x
// The name after the header's macros (cublasCreate -> "cublasCreate_v2").
#define TFLRT_CUDA_SYMBOL(x) TFLRT_CUDA_STRING(x)

/// The library `soname`, or stops the program: `need` says what for.
void *open(const char *soname, const std::string &need) {
  if (void *handle = dlopen(soname, RTLD_NOW | RTLD_LOCAL))
    return handle;
  const char *why = dlerror();
  fail(need + ": " + (why ? why : soname));
}

template <typename F>
void bind(F &function, void *handle, const char *soname, const char *name) {
  function = reinterpret_cast<F>(dlsym(handle, name));
  if (!function)
    fail(std::string(soname) + " has no " + name +
         ": it is older than the one this program was built with");
}

#define TFLRT_CUDA_BIND(name)                                                  \
  bind(library.name, handle, soname, TFLRT_CUDA_SYMBOL(name));
// (The cast picks the C function among the C++ overloads, checking the
// type while compiling.)
#define TFLRT_CUDA_BIND_TYPED(name, type)                                      \
  (void)static_cast<type>(&::name);                                            \
  TFLRT_CUDA_BIND(name)

} // namespace

const DriverLibrary &driver() {
  static const DriverLibrary library = [] {
    DriverLibrary library;
    const char *soname = "libcuda.so.1";
    void *handle = open(soname, "this program was built with --device cuda "
                                "and needs the NVIDIA driver");
    TFLRT_CUDA_DRIVER_FUNCTIONS(TFLRT_CUDA_BIND)
    return library;
  }();
  return library;
}

const CublasLibrary &cublas() {
  static const CublasLibrary library = [] {
    CublasLibrary library;
    const char *soname = "libcublas.so." TFLRT_CUDA_SYMBOL(CUBLAS_VER_MAJOR);
    void *handle =
        open(soname, "this program's products run on cuBLAS, which "
                     "CUDA " TFLRT_CUDA_SYMBOL(CUBLAS_VER_MAJOR) " provides");
    TFLRT_CUDA_CUBLAS_FUNCTIONS(TFLRT_CUDA_BIND)
    TFLRT_CUDA_CUBLAS_PRODUCTS(TFLRT_CUDA_BIND_TYPED)
    return library;
  }();
  return library;
}

const CudnnLibrary &cudnn() {
  static const CudnnLibrary library = [] {
    CudnnLibrary library;
    const char *soname = "libcudnn.so." TFLRT_CUDA_SYMBOL(CUDNN_MAJOR);
    void *handle = open(soname, "this program's convolutions run on cuDNN " +
                                    std::to_string(CUDNN_MAJOR));
    TFLRT_CUDA_CUDNN_FUNCTIONS(TFLRT_CUDA_BIND)
    return library;
  }();
  return library;
}

const NcclLibrary &nccl() {
  static const NcclLibrary library = [] {
    NcclLibrary library;
    const char *soname = "libnccl.so." TFLRT_CUDA_SYMBOL(NCCL_MAJOR);
    void *handle = open(soname, "this program's collectives run on NCCL " +
                                    std::to_string(NCCL_MAJOR));
    TFLRT_CUDA_NCCL_FUNCTIONS(TFLRT_CUDA_BIND)
    return library;
  }();
  return library;
}

} // namespace tflrt::cuda
