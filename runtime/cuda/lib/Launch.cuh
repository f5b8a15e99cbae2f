//===- Launch.cuh - What libtflrt_cuda's kernels share ---------*- CUDA -*-===//
//
// Views of memref descriptors (View.cuh), and launches through libtflrt_cuda
// (so that a loop step records them into its graph like the compiler's kernels,
// Graphs.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef TFLRT_CUDA_LAUNCH_CUH
#define TFLRT_CUDA_LAUNCH_CUH

#include "Device.h"
#include "View.cuh"

#include <cstdint>
#include <string>

namespace tflrt::cuda {

constexpr unsigned kThreads = 256;

inline View viewOf(int64_t rank, void *desc, size_t elemSize) {
  if (rank > kMaxRank)
    fail("internal error: a GPU kernel's tensor has rank " +
         std::to_string(rank));
  MemrefDesc *d = descOf(desc);
  View v{};
  v.data = d->aligned + d->offset * static_cast<int64_t>(elemSize);
  v.rank = rank;
  for (int64_t i = 0; i < rank; ++i) {
    v.sizes[i] = d->dims[i];
    v.strides[i] = d->dims[rank + i];
  }
  return v;
}

/// A dense view of `count` elements at `data`.
inline View dense(void *data, int64_t count) {
  View v{};
  v.data = static_cast<char *>(data);
  v.rank = 1;
  v.sizes[0] = count;
  v.strides[0] = 1;
  return v;
}

template <typename T> __device__ inline T &at(const View &v, int64_t linear) {
  return reinterpret_cast<T *>(v.data)[offsetOf(v, linear)];
}

__device__ inline int64_t threadIndex() {
  return static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
}

template <typename T> struct Same {
  using type = T;
};

/// Launches `kernel` over `threads` threads (blocks of kThreads), its
/// arguments converted to the kernel's parameter types.
template <typename... Params>
void launch(void (*kernel)(Params...), int64_t threads,
            typename Same<Params>::type... args) {
  if (threads <= 0)
    return;
  cudaFunction_t function = nullptr;
  check(cudaGetFuncBySymbol(&function, reinterpret_cast<const void *>(kernel)),
        "cannot find a runtime GPU kernel");
  const unsigned dims[7] = {
      static_cast<unsigned>((threads + kThreads - 1) / kThreads),
      1,
      1,
      kThreads,
      1,
      1,
      0};
  void *params[] = {static_cast<void *>(&args)...};
  launchKernel(reinterpret_cast<CUfunction>(function), dims, params,
               sizeof...(Params));
}

/// Zeros the elements (of `elemSize` bytes) of a device view, queued.
void zeroFill(const View &v, size_t elemSize);

} // namespace tflrt::cuda

#endif // TFLRT_CUDA_LAUNCH_CUH
