//===- Parallel.cpp - Parallel loops of compiled code ---------------------===//
//
// tflrt_parallel_for runs the outlined body of a compiled parallel loop on
// OpenMP's threads: the pool oneDNN's convolutions already keep warm, so a
// loop between two convolutions starts without waking threads, and the
// process never has two pools competing for the cores.
//
//===----------------------------------------------------------------------===//

#include "tflrt/CApi.h"

#include <omp.h>

#include <algorithm>

extern "C" void tflrt_parallel_for(void (*body)(void *, int64_t, int64_t),
                                   void *ctx, int64_t lb, int64_t ub,
                                   int64_t step) {
  if (ub <= lb || step <= 0)
    return;
  int64_t trips = (ub - lb + step - 1) / step;
  int64_t threads = std::min<int64_t>(omp_get_max_threads(), trips);
  if (threads <= 1 || omp_in_parallel()) {
    body(ctx, lb, ub);
    return;
  }
#pragma omp parallel num_threads(static_cast<int>(threads))
  {
    int64_t n = omp_get_num_threads(), t = omp_get_thread_num();
    int64_t first = trips * t / n, last = trips * (t + 1) / n;
    if (first < last)
      body(ctx, lb + first * step, std::min(ub, lb + last * step));
  }
}
