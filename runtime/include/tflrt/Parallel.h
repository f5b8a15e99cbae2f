//===- Parallel.h - The threads of libtflrt's parallel work -----*- C++ -*-===//
//
// Compiled parallel loops, oneDNN and OpenBLAS share OpenMP's one pool
// (tflrt_parallel_for in CApi.h runs compiled loops on it).
//
//===----------------------------------------------------------------------===//

#ifndef TFLRT_PARALLEL_H
#define TFLRT_PARALLEL_H

#include "tflrt/CApi.h"

#include <cstdint>
#include <functional>
#include <string>
#include <type_traits>

namespace tflrt {

/// Runs fn(begin, end) over [0, n) in one contiguous chunk per thread of
/// OpenMP's pool (tflrt_parallel_for) when n reaches `grain` (the work
/// below which waking the pool costs more than it saves), else in one
/// call on this thread. The first error fn throws on any thread is
/// rethrown on this one, once every share has ended.
template <typename Fn> void parallelFor(int64_t n, int64_t grain, Fn &&fn) {
  if (n < grain) {
    if (n > 0)
      fn(int64_t(0), n);
    return;
  }
  using F = std::remove_reference_t<Fn>;
  tflrt_parallel_for([](void *ctx, int64_t begin,
                        int64_t end) { (*static_cast<F *>(ctx))(begin, end); },
                     &fn, 0, n, 1);
}

/// Runs product(i) for each i in [0, batch) of a batched product: on the
/// pool's threads, each product on one of them (a library's GEMM runs on
/// its caller's thread alone inside a parallel region), when the batch
/// shares out evenly (no thread's share over 5/4 of the mean); else one
/// after another, each product on every thread. Rethrows the first error a
/// product throws. Under TFL_REPORT_KERNELS=1 a batch of two or more
/// reports which and why, once per `name()` (productName's).
void forEachProduct(int64_t batch, const std::function<void(int64_t)> &product,
                    const std::function<std::string()> &name);

/// Processes that an MPI launcher started several of on one machine share
/// its cores: unless OMP_NUM_THREADS says otherwise, each runs on its share
/// of the cores the pool would use (at least one thread), as torchrun sets
/// OMP_NUM_THREADS=1. Called at a program's start, before any parallel
/// work.
void shareCoresAmongLocalRanks();

} // namespace tflrt

#endif // TFLRT_PARALLEL_H
