/*===- CudaApi.h - The C ABI compiled TFL code calls on a GPU ----*- C -*-===*\
|*                                                                            *|
|* libtflrt_cuda, linked only into executables built with --device cuda.     *|
|* Three groups of entry points:                                             *|
|*  - MLIR's GPU host ABI (mgpu*), which the gpu dialect's lowering calls:   *|
|*    modules, kernel launches, the stream, events, device memory;           *|
|*  - tflrt_cuda_X for every libtflrt function tflrt_X that takes tensors:   *|
|*    the same arguments, device memrefs; matmuls run on cuBLAS, convolution *|
|*    on cuDNN, the others on libtflrt_cuda's own kernels (print, files and  *|
|*    checkpoints stage their tensors through host memory);                  *|
|*  - element reads and writes of device memory for host code (a scalar     *|
|*    that steers control flow).                                             *|
|* Every device operation goes on the program's one stream in issue order;   *|
|* the host waits for it only where a value crosses to the host.             *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef TFLRT_CUDAAPI_H
#define TFLRT_CUDAAPI_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- MLIR's GPU host ABI (MLIR 22's gpu-to-llvm lowering) ---------------- */
void *mgpuModuleLoad(void *data, size_t sizeBytes);
void *mgpuModuleLoadJIT(void *ptx, int optLevel);
void mgpuModuleUnload(void *module);
void *mgpuModuleGetFunction(void *module, const char *name);
void mgpuLaunchKernel(void *function, intptr_t gridX, intptr_t gridY,
                      intptr_t gridZ, intptr_t blockX, intptr_t blockY,
                      intptr_t blockZ, int32_t smem, void *stream,
                      void **params, void **extra, size_t paramsCount);
void *mgpuStreamCreate(void);
void mgpuStreamDestroy(void *stream);
void mgpuStreamSynchronize(void *stream);
void mgpuStreamWaitEvent(void *stream, void *event);
void *mgpuEventCreate(void);
void mgpuEventDestroy(void *event);
void mgpuEventSynchronize(void *event);
void mgpuEventRecord(void *event, void *stream);
void *mgpuMemAlloc(uint64_t sizeBytes, void *stream, bool isHostShared);
void mgpuMemFree(void *ptr, void *stream);
void mgpuMemcpy(void *dst, void *src, size_t sizeBytes, void *stream);
void mgpuMemset32(void *dst, unsigned int value, size_t count, void *stream);
void mgpuMemset16(void *dst, unsigned short value, size_t count, void *stream);

/* ---- Host access to device memory ---------------------------------------- */
/* The element of `elemSize` bytes at a device address, as raw bits (waits
   for the stream); and a store of raw bits there (queued on the stream). */
int64_t tflrt_cuda_read_scalar(int64_t elemSize, int64_t address);
void tflrt_cuda_write_scalar(int64_t elemSize, int64_t address, int64_t bits);
/* `bytes` from a device address to a host one, or from a host address to a
   device one, for work placed on the CPU (a host function's operands and
   results); both wait, so the host buffer is ready, or free to reuse, on
   return. */
void tflrt_cuda_copy_to_host(int64_t hostAddress, int64_t deviceAddress,
                             int64_t bytes);
void tflrt_cuda_copy_to_device(int64_t deviceAddress, int64_t hostAddress,
                               int64_t bytes);
/* tflrt_check_slice of the integer element at a device address (sign- or
   zero-extended from `elemSize` bytes), queued: the element is copied in
   stream order and checked when the host next waits for the stream, and
   before any output or other error. */
void tflrt_cuda_check_slice_async(int64_t elemSize, int64_t address,
                                  int64_t isSigned, int64_t size,
                                  int64_t stride, int64_t dim,
                                  const char *where);

/* ---- Loop steps replayed as CUDA graphs -----------------------------------
 */
/* The body of a loop the compiler marked (tfl-step-graphs) starts with
   tflrt_cuda_step_begin(site) and ends with tflrt_cuda_step_end(site): the
   device work between them is recorded and, when an earlier iteration of
   the loop issued the same work, replayed as that iteration's CUDA graph
   (kernel arguments and copy addresses updated). Anything that waits for
   the stream or issues work directly issues what was recorded first. */
void tflrt_cuda_step_begin(int64_t site);
void tflrt_cuda_step_end(int64_t site);

/* ---- Library operations on device memory --------------------------------- */
/* libtflrt's tflrt_gemm_X on device memrefs (its flags: transposed
   operands as cuBLAS's transpose flags, C overwritten with beta = 0), one
   cuBLAS call: gemm, or strided-batched gemm for 3-D memrefs; bf16 and f16
   on tensor cores with f32 accumulation (cublasGemmEx). */
void tflrt_cuda_gemm_f32(int64_t flags, int64_t rankA, void *a, int64_t rankB,
                         void *b, int64_t rankC, void *c);
void tflrt_cuda_gemm_f64(int64_t flags, int64_t rankA, void *a, int64_t rankB,
                         void *b, int64_t rankC, void *c);
void tflrt_cuda_gemm_bf16(int64_t flags, int64_t rankA, void *a, int64_t rankB,
                          void *b, int64_t rankC, void *c);
void tflrt_cuda_gemm_f16(int64_t flags, int64_t rankA, void *a, int64_t rankB,
                         void *b, int64_t rankC, void *c);

/* now(): waits for the stream, then reads the clock (timings of device
   work measure the work, not its queueing). */
double tflrt_cuda_now(void);

/* Process set-up, first thing in tfl_main: the device, its stream, and the
   handles of the libraries the program calls (a one-time cost that the
   program's first step would otherwise pay). With TFLRT_CUDA_START_TF32 (tflc
   --allow-tf32), cuBLAS and cuDNN may multiply f32 in TF32. */
enum {
  TFLRT_CUDA_START_TF32 = 1,
  TFLRT_CUDA_START_CUBLAS = 2,
  TFLRT_CUDA_START_CUDNN = 4
};
void tflrt_cuda_start(int64_t flags);
/* Whether cuBLAS and cuDNN may multiply f32 in TF32. */
int tflrt_cuda_tf32_allowed(void);

/* Process set-up and tear-down (waits for the stream, reports its errors). */
void tflrt_cuda_finish(void);

#ifdef __cplusplus
}
#endif

#endif /* TFLRT_CUDAAPI_H */
