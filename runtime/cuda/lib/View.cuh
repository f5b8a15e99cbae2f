//===- View.cuh - Strided views of libtflrt_cuda's tensors -----*- CUDA -*-===//
//
// A tensor as a kernel of libtflrt_cuda takes it: its data, sizes and
// strides in elements, and the offset of its row-major n-th element. No
// CUDA header is needed, so that host code (and the kernels' host-run
// tests) can include it too.
//
//===----------------------------------------------------------------------===//

#ifndef TFLRT_CUDA_VIEW_CUH
#define TFLRT_CUDA_VIEW_CUH

#include <cstdint>

#ifndef __CUDACC__
#ifndef __host__
#define __host__
#endif
#ifndef __device__
#define __device__
#endif
#endif

namespace tflrt::cuda {

constexpr int kMaxRank = 8;

/// A strided view: its data, and its sizes and strides in elements.
struct View {
  char *data;
  int64_t rank;
  int64_t sizes[kMaxRank];
  int64_t strides[kMaxRank];
};

inline int64_t count(const View &v) {
  int64_t n = 1;
  for (int64_t i = 0; i < v.rank; ++i)
    n *= v.sizes[i];
  return n;
}

/// The element offset of the row-major `linear`-th element (on the host
/// too, for host views).
__host__ __device__ inline int64_t offsetOf(const View &v, int64_t linear) {
  int64_t offset = 0;
  for (int64_t i = v.rank - 1; i >= 0; --i) {
    offset += (linear % v.sizes[i]) * v.strides[i];
    linear /= v.sizes[i];
  }
  return offset;
}

} // namespace tflrt::cuda

#endif // TFLRT_CUDA_VIEW_CUH
