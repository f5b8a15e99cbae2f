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
void *open(const char *soname, const char *need) {
  if (void *handle = dlopen(soname, RTLD_NOW | RTLD_LOCAL))
    return handle;
  const char *why = dlerror();
  fail(std::string(need) + ": " + (why ? why : soname));
}

template <typename F>
void bind(F &function, void *handle, const char *soname, const char *name) {
  function = reinterpret_cast<F>(dlsym(handle, name));
  if (!function)
    fail(std::string(soname) + " has no " + name +
         ": it is older than the one this program was built with");
}

/// `Library`'s table from `soname`, its functions bound by bindAll;
/// `need` says what the program needs the library for.
template <typename Library>
Library load(const char *soname, const char *need,
             void (*bindAll)(Library &, void *, const char *)) {
  Library library;
  bindAll(library, open(soname, need), soname);
  return library;
}

// The body of a bindAll: each function of a library's list.
#define TFLRT_CUDA_BIND(name)                                                  \
  bind(library.name, handle, soname, TFLRT_CUDA_SYMBOL(name));
// (The cast picks the C function among the C++ overloads, checking the
// type while compiling.)
#define TFLRT_CUDA_BIND_TYPED(name, type)                                      \
  (void)static_cast<type>(&::name);                                            \
  TFLRT_CUDA_BIND(name)

} // namespace

const DriverLibrary &driver() {
  static const DriverLibrary library = load<DriverLibrary>(
      "libcuda.so.1",
      "this program was built with --device cuda and needs the NVIDIA driver",
      [](DriverLibrary &library, void *handle, const char *soname) {
        TFLRT_CUDA_DRIVER_FUNCTIONS(TFLRT_CUDA_BIND)
      });
  return library;
}

const CublasLibrary &cublas() {
  static const CublasLibrary library = load<CublasLibrary>(
      "libcublas.so." TFLRT_CUDA_SYMBOL(CUBLAS_VER_MAJOR),
      "this program's products run on cuBLAS " TFLRT_CUDA_SYMBOL(
          CUBLAS_VER_MAJOR),
      [](CublasLibrary &library, void *handle, const char *soname) {
        TFLRT_CUDA_CUBLAS_FUNCTIONS(TFLRT_CUDA_BIND)
        TFLRT_CUDA_CUBLAS_PRODUCTS(TFLRT_CUDA_BIND_TYPED)
      });
  return library;
}

const CudnnLibrary &cudnn() {
  static const CudnnLibrary library = load<CudnnLibrary>(
      "libcudnn.so." TFLRT_CUDA_SYMBOL(CUDNN_MAJOR),
      "this program's convolutions run on cuDNN " TFLRT_CUDA_SYMBOL(
          CUDNN_MAJOR),
      [](CudnnLibrary &library, void *handle, const char *soname) {
        TFLRT_CUDA_CUDNN_FUNCTIONS(TFLRT_CUDA_BIND)
      });
  return library;
}

const NcclLibrary &nccl() {
  static const NcclLibrary library = load<NcclLibrary>(
      "libnccl.so." TFLRT_CUDA_SYMBOL(NCCL_MAJOR),
      "this program's collectives run on NCCL " TFLRT_CUDA_SYMBOL(NCCL_MAJOR),
      [](NcclLibrary &library, void *handle, const char *soname) {
        TFLRT_CUDA_NCCL_FUNCTIONS(TFLRT_CUDA_BIND)
      });
  return library;
}

} // namespace tflrt::cuda
