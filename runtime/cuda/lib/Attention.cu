//===- Attention.cu - tfl.attention and its adjoint on the GPU ------------===//
//
// tflrt_cuda_attention_<f32|bf16|f16> and tflrt_cuda_attention_backward_*:
// tfl.attention and its adjoint on device tensors, f32 on the kernels of
// AttentionKernels.cuh, bf16 and f16 on AttentionKernels16.cuh's, launched on
// the program's stream through libtflrt_cuda's launch (so that a step graph
// records them), the backward's row statistics in a block of the caching
// allocator.
//
//===----------------------------------------------------------------------===//

#include "AttentionKernels16.cuh"
#include "Launch.cuh"
#include "tflrt/CudaApi.h"

#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <type_traits>

namespace {

using tflrt::cuda::Same;
using tflrt::cuda::View;
using tflrt::cuda::viewOf;
namespace att = tflrt::cuda::attention;

/// Launches `kernel` on a grid of gridX x gridY blocks of kBlockThreads
/// threads with `shared` bytes of dynamic shared memory. A kernel may take
/// more than the 48 KiB every kernel may: its limit is raised to what a
/// launch takes, the first time it takes more (a GPU with less shared
/// memory than the widest heads take runs the narrower ones).
template <typename... Params>
void launchBlocks(void (*kernel)(Params...), int64_t gridX, int64_t gridY,
                  size_t shared, typename Same<Params>::type... args) {
  static std::mutex mutex;
  static std::map<const void *, size_t> raised;
  const void *symbol = reinterpret_cast<const void *>(kernel);
  constexpr size_t kDefault = 48 * 1024;
  if (shared > kDefault) {
    std::lock_guard<std::mutex> lock(mutex);
    size_t &limit = raised[symbol];
    if (shared > limit) {
      tflrt::cuda::check(
          cudaFuncSetAttribute(symbol,
                               cudaFuncAttributeMaxDynamicSharedMemorySize,
                               static_cast<int>(shared)),
          ("an attention kernel cannot have the " +
           std::to_string(shared / 1024) +
           " KiB of shared memory its heads take on this GPU")
              .c_str());
      limit = shared;
    }
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

/// The problem of q, k and v, stopping the program when its heads are not
/// ones the kernels take (the compiler gives those to products instead):
/// at most kMaxHead features, and with 16-bit elements a multiple of 16.
att::Problem problemOf(const View &q, const View &k, const View &v,
                       int64_t causal, double scale, bool halfFloats) {
  att::Problem p = att::problemOf(q, k, v, causal != 0, scale);
  if (p.e > att::kMaxHead || p.f > att::kMaxHead ||
      (halfFloats && !att::takes16(p.e, p.f)))
    tflrt::cuda::fail(
        "internal error: the GPU's attention takes heads of at most " +
        std::to_string(att::kMaxHead) + " features" +
        (halfFloats ? ", a multiple of 16," : "") + " not " +
        std::to_string(p.e) + " and " + std::to_string(p.f));
  return p;
}

/// out = attention(q, k, v) for elements of `elemSize` bytes (T: 16-bit).
template <typename T>
void attention(int64_t rankQ, void *q, int64_t rankK, void *k, int64_t rankV,
               void *v, int64_t rankOut, void *out, int64_t causal,
               double scale) {
  constexpr bool half = !std::is_same<T, float>::value;
  View vq = viewOf(rankQ, q, sizeof(T)), vk = viewOf(rankK, k, sizeof(T)),
       vv = viewOf(rankV, v, sizeof(T)), vo = viewOf(rankOut, out, sizeof(T));
  att::Problem p = problemOf(vq, vk, vv, causal, scale, half);
  att::runForward<T>(Launcher{}, vq, vk, vv, vo, p);
}

/// dq, dk and dv of attention(q, k, v) for the cotangent dy of `out`.
template <typename T>
void attentionBackward(int64_t rankQ, void *q, int64_t rankK, void *k,
                       int64_t rankV, void *v, int64_t rankOut, void *out,
                       int64_t rankDy, void *dy, int64_t rankDq, void *dq,
                       int64_t rankDk, void *dk, int64_t rankDv, void *dv,
                       int64_t causal, double scale) {
  constexpr bool half = !std::is_same<T, float>::value;
  const size_t size = sizeof(T);
  View vq = viewOf(rankQ, q, size), vk = viewOf(rankK, k, size),
       vv = viewOf(rankV, v, size), vo = viewOf(rankOut, out, size),
       vdy = viewOf(rankDy, dy, size), vdq = viewOf(rankDq, dq, size),
       vdk = viewOf(rankDk, dk, size), vdv = viewOf(rankDv, dv, size);
  att::Problem p = problemOf(vq, vk, vv, causal, scale, half);
  tflrt::cuda::Scratch stats(static_cast<size_t>(att::backwardScratch(vq, p)) *
                             sizeof(float));
  float *rows = static_cast<float *>(stats.ptr);
  att::runBackward<T>(Launcher{}, vq, vk, vv, vo, vdy, vdq, vdk, vdv, p, rows);
}

} // namespace

extern "C" {

#define TFLRT_CUDA_ATTENTION(SUFFIX, T)                                        \
  void tflrt_cuda_attention_##SUFFIX(                                          \
      int64_t rankQ, void *q, int64_t rankK, void *k, int64_t rankV, void *v,  \
      int64_t rankOut, void *out, int64_t causal, double scale) {              \
    attention<T>(rankQ, q, rankK, k, rankV, v, rankOut, out, causal, scale);   \
  }                                                                            \
  void tflrt_cuda_attention_backward_##SUFFIX(                                 \
      int64_t rankQ, void *q, int64_t rankK, void *k, int64_t rankV, void *v,  \
      int64_t rankOut, void *out, int64_t rankDy, void *dy, int64_t rankDq,    \
      void *dq, int64_t rankDk, void *dk, int64_t rankDv, void *dv,            \
      int64_t causal, double scale) {                                          \
    attentionBackward<T>(rankQ, q, rankK, k, rankV, v, rankOut, out, rankDy,   \
                         dy, rankDq, dq, rankDk, dk, rankDv, dv, causal,       \
                         scale);                                               \
  }
TFLRT_CUDA_ATTENTION(f32, float)
TFLRT_CUDA_ATTENTION(bf16, __nv_bfloat16)
TFLRT_CUDA_ATTENTION(f16, __half)
#undef TFLRT_CUDA_ATTENTION

} // extern "C"
