//===- CudaEmulation.h - GPU kernels run on the host's threads --*- C++ -*-===//
//
// Enough of CUDA for a test to run libtflrt_cuda's own kernels, the very
// source nvcc compiles, on a machine without a GPU: each block's threads
// are threads of the host (one block at a time), __syncthreads a barrier
// among them, __shfl_xor_sync an exchange through the block between two
// barriers (so every thread of the block must take part, as the kernels
// here do), dynamic shared memory a buffer of the block filled with NaNs
// (a kernel that reads what it never wrote shows it), float4 CUDA's
// 16-byte vector. A barrier that not
// every thread reaches stops the test with a message instead of hanging.
//
// Include it before the kernels' header, in one test source only (the
// macros below take CUDA's names).
//
//===----------------------------------------------------------------------===//

#ifndef TFL_TEST_CUDAEMULATION_H
#define TFL_TEST_CUDAEMULATION_H

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <mutex>
#include <thread>
#include <vector>

namespace tflrt::cuda::emulation {

struct Dim3 {
  unsigned x = 0, y = 0, z = 0;
};

/// The block running now: its threads, barrier and shared memory.
class Block {
public:
  Block(unsigned threads, size_t sharedBytes)
      : threads_(threads), exchange_(threads),
        shared_((sharedBytes + sizeof(float) - 1) / sizeof(float),
                std::numeric_limits<float>::quiet_NaN()) {}

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

  float *shared() { return shared_.data(); }

private:
  unsigned threads_, arrived_ = 0;
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

#define __global__
#define __launch_bounds__(threads)
#define threadIdx ::tflrt::cuda::emulation::threadIndex
#define blockIdx ::tflrt::cuda::emulation::blockIndex
#define blockDim ::tflrt::cuda::emulation::blockSize
#define gridDim ::tflrt::cuda::emulation::gridSize
#define __syncthreads() ::tflrt::cuda::emulation::syncthreads()
#define __shfl_xor_sync(mask, value, lane)                                     \
  ::tflrt::cuda::emulation::shuffleXor(value, lane)

#endif // TFL_TEST_CUDAEMULATION_H
