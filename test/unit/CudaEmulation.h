//===- CudaEmulation.h - GPU kernels run on the host's threads --*- C++ -*-===//
//
// Enough of CUDA for a test to run libtflrt_cuda's own kernels, the very
// source nvcc compiles, on a machine without a GPU: each block's threads
// are threads of the host (one block at a time), __syncthreads a barrier
// among them, __shfl_xor_sync an exchange through the block between two
// barriers (so every thread of the block must take part, as the kernels
// here do), __syncwarp a barrier of the whole block likewise (every warp
// of the kernels here takes the same ones), dynamic shared memory a
// buffer of the block filled with NaNs (a kernel that reads what it never
// wrote shows it) and followed by a canary (one that writes past it stops
// the test), float4, bf16 and f16 CUDA's types, and the warp matrix
// functions (below) computed by every thread of a warp. A barrier that not
// every thread reaches stops the test with a message instead of hanging.
//
// Include it before the kernels' header, in one test source only (the
// macros below take CUDA's names).
//
//===----------------------------------------------------------------------===//

#ifndef TFL_TEST_CUDAEMULATION_H
#define TFL_TEST_CUDAEMULATION_H

#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <mutex>
#include <thread>
#include <type_traits>
#include <vector>

namespace tflrt::cuda::emulation {

struct Dim3 {
  unsigned x = 0, y = 0, z = 0;
};

/// The block running now: its threads, barrier and shared memory.
class Block {
public:
  Block(unsigned threads, size_t sharedBytes)
      : threads_(threads), sharedFloats_((sharedBytes + 3) / 4),
        exchange_(threads), shared_(sharedFloats_ + kCanary + kAlign,
                                    std::numeric_limits<float>::quiet_NaN()) {
    float *canary = shared() + sharedFloats_;
    for (size_t i = 0; i < kCanary; ++i)
      std::memcpy(canary + i, &kCanaryBits, sizeof(float));
  }

  /// Stops the test when a thread wrote past the launch's shared memory.
  void checkCanary() {
    const float *canary = shared() + sharedFloats_;
    for (size_t i = 0; i < kCanary; ++i)
      if (std::memcmp(canary + i, &kCanaryBits, sizeof(float)) != 0) {
        std::fprintf(stderr,
                     "emulated kernel: a write past the %zu bytes of "
                     "shared memory it was launched with\n",
                     sharedFloats_ * sizeof(float));
        std::abort();
      }
  }

  void barrier() {
    std::unique_lock<std::mutex> lock(mutex_);
    uint64_t generation = generation_;
    if (++arrived_ == threads_) {
      arrived_ = 0;
      ++generation_;
      wake_.notify_all();
      return;
    }
    if (!wake_.wait_for(lock, std::chrono::seconds(30),
                        [&] { return generation != generation_; })) {
      std::fprintf(stderr,
                   "emulated __syncthreads: %u of %u threads arrived "
                   "in 30 s (a barrier not every thread reaches)\n",
                   arrived_, threads_);
      std::abort();
    }
  }

  float exchange(unsigned thread, float value, unsigned partner) {
    exchange_[thread] = value;
    barrier();
    float theirs = exchange_[partner];
    barrier();
    return theirs;
  }

  /// Aligned to 128 bytes, as the kernels declare it.
  float *shared() {
    auto at = reinterpret_cast<uintptr_t>(shared_.data());
    return shared_.data() + (kAlign - at % kAlign) % kAlign / sizeof(float);
  }

private:
  static constexpr size_t kAlign = 128, kCanary = 1024;
  static constexpr uint32_t kCanaryBits = 0x7fc0dead;
  unsigned threads_, arrived_ = 0;
  size_t sharedFloats_;
  uint64_t generation_ = 0;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::vector<float> exchange_;
  std::vector<float> shared_;
};

inline thread_local Dim3 threadIndex, blockIndex;
inline Dim3 blockSize, gridSize;
inline Block *running = nullptr;

inline float *sharedFloats() { return running->shared(); }

/// Runs kernel(args...) over a grid of gridX x gridY blocks of `threads`
/// threads with `sharedBytes` of dynamic shared memory, block by block.
template <typename... Params, typename... Args>
void launch(void (*kernel)(Params...), int64_t gridX, int64_t gridY,
            unsigned threads, size_t sharedBytes, Args... args) {
  gridSize = {static_cast<unsigned>(gridX), static_cast<unsigned>(gridY), 1};
  blockSize = {threads, 1, 1};
  for (int64_t by = 0; by < gridY; ++by)
    for (int64_t bx = 0; bx < gridX; ++bx) {
      Block block(threads, sharedBytes);
      running = &block;
      std::vector<std::thread> pool;
      pool.reserve(threads);
      for (unsigned t = 0; t < threads; ++t)
        pool.emplace_back([&, t] {
          threadIndex = {t, 0, 0};
          blockIndex = {static_cast<unsigned>(bx), static_cast<unsigned>(by),
                        0};
          kernel(static_cast<Params>(args)...);
        });
      for (std::thread &thread : pool)
        thread.join();
      block.checkCanary();
      running = nullptr;
    }
}

inline void syncthreads() { running->barrier(); }

inline float shuffleXor(float value, int mask) {
  unsigned t = threadIndex.x;
  return running->exchange(t, value, t ^ static_cast<unsigned>(mask));
}

} // namespace tflrt::cuda::emulation

/// CUDA's float4 (vector_types.h): four floats, 16-byte aligned.
struct alignas(16) float4 {
  float x, y, z, w;
};

/// CUDA's 16-bit floats (cuda_bf16.h, cuda_fp16.h) and their conversions,
/// rounding to nearest even.
struct __nv_bfloat16 {
  uint16_t bits;
};
struct __half {
  _Float16 value;
};
inline float __bfloat162float(__nv_bfloat16 x) {
  uint32_t word = uint32_t(x.bits) << 16;
  float f;
  std::memcpy(&f, &word, sizeof f);
  return f;
}
inline __nv_bfloat16 __float2bfloat16(float f) {
  uint32_t word;
  std::memcpy(&word, &f, sizeof word);
  if (std::isnan(f))
    return {uint16_t((word >> 16) | 0x40)};
  word += 0x7fff + ((word >> 16) & 1);
  return {uint16_t(word >> 16)};
}
inline float __half2float(__half x) { return static_cast<float>(x.value); }
inline __half __float2half(float f) { return {static_cast<_Float16>(f)}; }

/// The part of CUDA's warp matrix functions (mma.h) that the kernels use:
/// 16x16x16 fragments of 16-bit operands and f32 accumulators. Each thread
/// of a warp holds a whole fragment (CUDA spreads it over the warp: code
/// that only loads, multiplies and stores fragments cannot tell), and a
/// store is made by the warp's first thread, so that the other threads
/// see it only after a __syncwarp, as on a GPU. The loads and stores check
/// CUDA's rules: a pointer 32-byte aligned, a leading dimension a multiple
/// of 16 bytes.
namespace nvcuda::wmma {
struct matrix_a {};
struct matrix_b {};
struct accumulator {};
struct row_major {};
struct col_major {};
enum layout_t { mem_row_major, mem_col_major };

template <typename Use, int M, int N, int K, typename T, typename Layout = void>
struct fragment {
  float x[16][16];
};

inline void checkPointer(const void *ptr, unsigned ldm, size_t elemSize) {
  if (reinterpret_cast<uintptr_t>(ptr) % 32 != 0 || ldm * elemSize % 16 != 0) {
    std::fprintf(stderr, "emulated wmma: a pointer not 32-byte aligned or a "
                         "leading dimension not a multiple of 16 bytes\n");
    std::abort();
  }
}

inline float widen(__nv_bfloat16 v) { return __bfloat162float(v); }
inline float widen(__half v) { return __half2float(v); }
inline float widen(float v) { return v; }

/// Element (r, c) of a 16x16 tile at ptr: row-major or column-major.
template <typename T>
float element(const T *ptr, unsigned ldm, bool rowMajor, int r, int c) {
  return widen(rowMajor ? ptr[r * ldm + c] : ptr[c * ldm + r]);
}

template <typename Use, typename T, typename Layout>
void load_matrix_sync(fragment<Use, 16, 16, 16, T, Layout> &frag, const T *ptr,
                      unsigned ldm) {
  checkPointer(ptr, ldm, sizeof(T));
  for (int r = 0; r < 16; ++r)
    for (int c = 0; c < 16; ++c)
      frag.x[r][c] =
          element(ptr, ldm, std::is_same<Layout, row_major>::value, r, c);
}

inline void load_matrix_sync(fragment<accumulator, 16, 16, 16, float> &frag,
                             const float *ptr, unsigned ldm, layout_t layout) {
  checkPointer(ptr, ldm, sizeof(float));
  for (int r = 0; r < 16; ++r)
    for (int c = 0; c < 16; ++c)
      frag.x[r][c] = element(ptr, ldm, layout == mem_row_major, r, c);
}

inline void
store_matrix_sync(float *ptr,
                  const fragment<accumulator, 16, 16, 16, float> &frag,
                  unsigned ldm, layout_t layout) {
  checkPointer(ptr, ldm, sizeof(float));
  if (::tflrt::cuda::emulation::threadIndex.x % 32 != 0)
    return;
  for (int r = 0; r < 16; ++r)
    for (int c = 0; c < 16; ++c)
      (layout == mem_row_major ? ptr[r * ldm + c] : ptr[c * ldm + r]) =
          frag.x[r][c];
}

inline void fill_fragment(fragment<accumulator, 16, 16, 16, float> &frag,
                          float value) {
  for (auto &row : frag.x)
    for (float &v : row)
      v = value;
}

/// d = a b + c, the products of 16-bit values exact in f32, summed in k's
/// order (a GPU's tensor cores sum in an order of their own).
template <typename T, typename LayoutA, typename LayoutB>
void mma_sync(fragment<accumulator, 16, 16, 16, float> &d,
              const fragment<matrix_a, 16, 16, 16, T, LayoutA> &a,
              const fragment<matrix_b, 16, 16, 16, T, LayoutB> &b,
              const fragment<accumulator, 16, 16, 16, float> &c) {
  fragment<accumulator, 16, 16, 16, float> out;
  for (int r = 0; r < 16; ++r)
    for (int col = 0; col < 16; ++col) {
      float sum = c.x[r][col];
      for (int k = 0; k < 16; ++k)
        sum += a.x[r][k] * b.x[k][col];
      out.x[r][col] = sum;
    }
  d = out;
}
} // namespace nvcuda::wmma

#define __global__
#define __launch_bounds__(threads)
#define threadIdx ::tflrt::cuda::emulation::threadIndex
#define blockIdx ::tflrt::cuda::emulation::blockIndex
#define blockDim ::tflrt::cuda::emulation::blockSize
#define gridDim ::tflrt::cuda::emulation::gridSize
#define __syncthreads() ::tflrt::cuda::emulation::syncthreads()
#define __syncwarp() ::tflrt::cuda::emulation::syncthreads()
#define __shfl_xor_sync(mask, value, lane)                                     \
  ::tflrt::cuda::emulation::shuffleXor(value, lane)

#endif // TFL_TEST_CUDAEMULATION_H
