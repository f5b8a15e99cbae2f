//===- Attention.cu - tfl.attention and its adjoint on the GPU ------------===//
//
// tflrt_cuda_attention_f32 and tflrt_cuda_attention_backward_f32, libtflrt's
// tflrt_attention_* on device tensors: the kernels of AttentionKernels.cuh,
// launched on the program's stream through libtflrt_cuda's launch (so that
// a step graph records them), the backward's row statistics in a block of
// the caching allocator.
//
//===----------------------------------------------------------------------===//

#include "AttentionKernels.cuh"
#include "Launch.cuh"
#include "tflrt/CudaApi.h"

#include <cstdint>
#include <mutex>
#include <set>
#include <string>

namespace {

using tflrt::cuda::Same;
using tflrt::cuda::View;
using tflrt::cuda::viewOf;
namespace att = tflrt::cuda::attention;

/// Launches `kernel` on a grid of gridX x gridY blocks of kBlockThreads
/// threads with `shared` bytes of dynamic shared memory. A kernel may take
/// more than the 48 KiB every kernel may: the first launch of each raises
/// its limit to what the widest heads take.
template <typename... Params>
void launchBlocks(void (*kernel)(Params...), int64_t gridX, int64_t gridY,
                  size_t shared, typename Same<Params>::type... args) {
  static std::mutex mutex;
  static std::set<const void *> raised;
  const void *symbol = reinterpret_cast<const void *>(kernel);
  {
    std::lock_guard<std::mutex> lock(mutex);
    if (raised.insert(symbol).second)
      tflrt::cuda::check(
          cudaFuncSetAttribute(symbol,
                               cudaFuncAttributeMaxDynamicSharedMemorySize,
                               static_cast<int>(att::mostShared())),
          "cannot give an attention kernel its shared memory");
  }
  cudaFunction_t function = nullptr;
  tflrt::cuda::check(cudaGetFuncBySymbol(&function, symbol),
                     "cannot find a runtime GPU kernel");
  const unsigned dims[7] = {static_cast<unsigned>(gridX),
                            static_cast<unsigned>(gridY),
                            1,
                            att::kBlockThreads,
                            1,
                            1,
                            static_cast<unsigned>(shared)};
  void *params[] = {static_cast<void *>(&args)...};
  tflrt::cuda::launchKernel(reinterpret_cast<CUfunction>(function), dims,
                            params, sizeof...(Params));
}

struct Launcher {
  template <typename Kernel, typename... Args>
  void operator()(Kernel kernel, int64_t gridX, int64_t gridY, size_t shared,
                  Args... args) const {
    launchBlocks(kernel, gridX, gridY, shared, args...);
  }
};

/// The problem of q, k and v, stopping the program when a head is wider
/// than the kernels take (the compiler gives those to products instead).
att::Problem problemOf(const View &q, const View &k, const View &v,
                       int64_t causal, double scale) {
  att::Problem p = att::problemOf(q, k, v, causal != 0, scale);
  if (p.e > att::kMaxHead || p.f > att::kMaxHead)
    tflrt::cuda::fail("internal error: the GPU's attention takes heads of at "
                      "most " +
                      std::to_string(att::kMaxHead) + " features, not " +
                      std::to_string(p.e > p.f ? p.e : p.f));
  return p;
}

} // namespace

extern "C" {

void tflrt_cuda_attention_f32(int64_t rankQ, void *q, int64_t rankK, void *k,
                              int64_t rankV, void *v, int64_t rankOut,
                              void *out, int64_t causal, double scale) {
  View vq = viewOf(rankQ, q, 4), vk = viewOf(rankK, k, 4),
       vv = viewOf(rankV, v, 4);
  att::runForward(Launcher{}, vq, vk, vv, viewOf(rankOut, out, 4),
                  problemOf(vq, vk, vv, causal, scale));
}

void tflrt_cuda_attention_backward_f32(int64_t rankQ, void *q, int64_t rankK,
                                       void *k, int64_t rankV, void *v,
                                       int64_t rankOut, void *out,
                                       int64_t rankDy, void *dy, int64_t rankDq,
                                       void *dq, int64_t rankDk, void *dk,
                                       int64_t rankDv, void *dv, int64_t causal,
                                       double scale) {
  View vq = viewOf(rankQ, q, 4), vk = viewOf(rankK, k, 4),
       vv = viewOf(rankV, v, 4);
  att::Problem p = problemOf(vq, vk, vv, causal, scale);
  tflrt::cuda::Scratch stats(static_cast<size_t>(att::backwardScratch(vq, p)) *
                             sizeof(float));
  att::runBackward(Launcher{}, vq, vk, vv, viewOf(rankOut, out, 4),
                   viewOf(rankDy, dy, 4), viewOf(rankDq, dq, 4),
                   viewOf(rankDk, dk, 4), viewOf(rankDv, dv, 4), p,
                   static_cast<float *>(stats.ptr));
}

} // extern "C"
