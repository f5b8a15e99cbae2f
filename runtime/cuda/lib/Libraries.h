//===- Libraries.h - NVIDIA's libraries, loaded on use ----------*- C++ -*-===//
//
// Internal to libtflrt_cuda. Executables built with --device cuda link only
// the CUDA runtime (statically); the NVIDIA driver (libcuda), cuBLAS, cuDNN
// and NCCL are loaded with dlopen the first time the program needs them.
// So a machine without the driver gets TFL's own error instead of the
// dynamic loader's before main, and a program without products,
// convolutions or collectives never loads cuBLAS, cuDNN or NCCL.
//
// Each library is a table of the functions libtflrt_cuda calls, named as
// the headers name them (the headers' macros pick versioned entry points,
// such as cublasCreate_v2, and the table takes the same ones): a call is
// `cublas().cublasGemmEx(...)`. A library that cannot be loaded, or lacks
// a function, stops the program with an error that names it and what the
// program needed it for.
//
//===----------------------------------------------------------------------===//

#ifndef TFLRT_CUDA_LIBRARIES_H
#define TFLRT_CUDA_LIBRARIES_H

#include <cublas_v2.h>
#include <cuda.h>
#include <cudnn.h>
#include <nccl.h>

#define TFLRT_CUDA_DRIVER_FUNCTIONS(X)                                         \
  X(cuCtxGetCurrent)                                                           \
  X(cuFuncGetName)                                                             \
  X(cuFuncGetParamInfo)                                                        \
  X(cuGetErrorName)                                                            \
  X(cuGetErrorString)                                                          \
  X(cuGraphExecKernelNodeSetParams)                                            \
  X(cuGraphExecMemsetNodeSetParams)                                            \
  X(cuLaunchKernel)                                                            \
  X(cuMemsetD16Async)                                                          \
  X(cuMemsetD32Async)                                                          \
  X(cuModuleGetFunction)                                                       \
  X(cuModuleLoadData)                                                          \
  X(cuModuleLoadDataEx)                                                        \
  X(cuModuleUnload)

#define TFLRT_CUDA_CUBLAS_FUNCTIONS(X)                                         \
  X(cublasCreate)                                                              \
  X(cublasDgemm)                                                               \
  X(cublasDgemmStridedBatched)                                                 \
  X(cublasGetStatusString)                                                     \
  X(cublasSetMathMode)                                                         \
  X(cublasSetStream)                                                           \
  X(cublasSetWorkspace)                                                        \
  X(cublasSgemm)                                                               \
  X(cublasSgemmStridedBatched)

#define TFLRT_CUDA_CUDNN_FUNCTIONS(X)                                          \
  X(cudnnConvolutionBackwardData)                                              \
  X(cudnnConvolutionBackwardFilter)                                            \
  X(cudnnConvolutionForward)                                                   \
  X(cudnnCreate)                                                               \
  X(cudnnCreateConvolutionDescriptor)                                          \
  X(cudnnCreateFilterDescriptor)                                               \
  X(cudnnCreateTensorDescriptor)                                               \
  X(cudnnGetConvolutionBackwardDataAlgorithm_v7)                               \
  X(cudnnGetConvolutionBackwardDataWorkspaceSize)                              \
  X(cudnnGetConvolutionBackwardFilterAlgorithm_v7)                             \
  X(cudnnGetConvolutionBackwardFilterWorkspaceSize)                            \
  X(cudnnGetConvolutionForwardAlgorithm_v7)                                    \
  X(cudnnGetConvolutionForwardWorkspaceSize)                                   \
  X(cudnnGetErrorString)                                                       \
  X(cudnnSetConvolution2dDescriptor)                                           \
  X(cudnnSetConvolutionMathType)                                               \
  X(cudnnSetFilter4dDescriptor)                                                \
  X(cudnnSetStream)                                                            \
  X(cudnnSetTensor4dDescriptor)                                                \
  X(cudnnSetTensor4dDescriptorEx)                                              \
  X(cudnnTransformTensor)

#define TFLRT_CUDA_NCCL_FUNCTIONS(X)                                           \
  X(ncclAllGather)                                                             \
  X(ncclAllReduce)                                                             \
  X(ncclBroadcast)                                                             \
  X(ncclCommInitRank)                                                          \
  X(ncclGetErrorString)                                                        \
  X(ncclGetLastError)                                                          \
  X(ncclGetUniqueId)                                                           \
  X(ncclGroupEnd)                                                              \
  X(ncclGroupStart)                                                            \
  X(ncclReduce)

namespace tflrt::cuda {

// cuBLAS's products, which C++ overloads (with a cudaDataType compute
// type): the C functions, of a cublasComputeType_t.
using CublasGemmEx = cublasStatus_t (*)(cublasHandle_t, cublasOperation_t,
                                        cublasOperation_t, int, int, int,
                                        const void *, const void *,
                                        cudaDataType, int, const void *,
                                        cudaDataType, int, const void *, void *,
                                        cudaDataType, int, cublasComputeType_t,
                                        cublasGemmAlgo_t);
using CublasGemmStridedBatchedEx = cublasStatus_t (*)(
    cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int,
    const void *, const void *, cudaDataType, int, long long int, const void *,
    cudaDataType, int, long long int, const void *, void *, cudaDataType, int,
    long long int, int, cublasComputeType_t, cublasGemmAlgo_t);
#define TFLRT_CUDA_CUBLAS_PRODUCTS(X)                                          \
  X(cublasGemmEx, CublasGemmEx)                                                \
  X(cublasGemmStridedBatchedEx, CublasGemmStridedBatchedEx)

// A member per function, of the header's type and name (after its macros).
#define TFLRT_CUDA_MEMBER(name) decltype(&::name) name;
#define TFLRT_CUDA_TYPED_MEMBER(name, type) type name;
struct DriverLibrary {
  TFLRT_CUDA_DRIVER_FUNCTIONS(TFLRT_CUDA_MEMBER)
};
struct CublasLibrary {
  TFLRT_CUDA_CUBLAS_FUNCTIONS(TFLRT_CUDA_MEMBER)
  TFLRT_CUDA_CUBLAS_PRODUCTS(TFLRT_CUDA_TYPED_MEMBER)
};
struct CudnnLibrary {
  TFLRT_CUDA_CUDNN_FUNCTIONS(TFLRT_CUDA_MEMBER)
};
struct NcclLibrary {
  TFLRT_CUDA_NCCL_FUNCTIONS(TFLRT_CUDA_MEMBER)
};
#undef TFLRT_CUDA_MEMBER
#undef TFLRT_CUDA_TYPED_MEMBER

/// The libraries, loaded on first use (thread-safe): the driver before any
/// other CUDA call (rawStream), cuBLAS for products, cuDNN for
/// convolutions, NCCL for collectives.
const DriverLibrary &driver();
const CublasLibrary &cublas();
const CudnnLibrary &cudnn();
const NcclLibrary &nccl();

} // namespace tflrt::cuda

#endif // TFLRT_CUDA_LIBRARIES_H
