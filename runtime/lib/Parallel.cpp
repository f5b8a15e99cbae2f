//===- Parallel.cpp - Parallel loops of compiled code ---------------------===//
//
// tflrt_parallel_for runs the outlined body of a compiled parallel loop on
// OpenMP's threads: the pool oneDNN's convolutions already keep warm, so a
// loop between two convolutions starts without waking threads, and the
// process never has two pools competing for the cores. It calls libgomp's
// entry points itself (what GCC makes of `#pragma omp parallel`), so that
// any compiler builds it onto that pool.
//
//===----------------------------------------------------------------------===//

#include "tflrt/Parallel.h"
#include "tflrt/CApi.h"
#include "tflrt/Output.h"

#include "KernelChoice.h"

#include <algorithm>
#include <cstdlib>
#include <exception>
#include <mutex>

// libgomp's ABI (GCC's omp.h and its GOMP_parallel entry point).
extern "C" {
void GOMP_parallel(void (*fn)(void *), void *data, unsigned numThreads,
                   unsigned flags);
int omp_get_max_threads(void);
int omp_in_parallel(void);
int omp_get_num_threads(void);
int omp_get_thread_num(void);
void omp_set_num_threads(int n);
}

void tflrt::shareCoresAmongLocalRanks() {
  if (std::getenv("OMP_NUM_THREADS"))
    return;
  // Open MPI's and MPICH's counts of the run's processes on this machine.
  const char *local = std::getenv("OMPI_COMM_WORLD_LOCAL_SIZE");
  if (!local)
    local = std::getenv("MPI_LOCALNRANKS");
  int ranks = local ? std::atoi(local) : 1;
  if (ranks > 1)
    omp_set_num_threads(std::max(1, omp_get_max_threads() / ranks));
}

namespace {
struct Loop {
  void (*body)(void *, int64_t, int64_t);
  void *ctx;
  int64_t lb, ub, step, trips;
  /// Called inside a library's export: the pool's threads are too (an
  /// error there is the export's, not the process's).
  bool inExport = false;
  /// The first error any thread's share throws, rethrown on the caller's
  /// thread.
  std::mutex mutex;
  std::exception_ptr error;
};

/// One thread's share of the loop's trips.
void runShare(void *data) {
  Loop &loop = *static_cast<Loop *>(data);
  int64_t n = omp_get_num_threads(), t = omp_get_thread_num();
  int64_t first = loop.trips * t / n, last = loop.trips * (t + 1) / n;
  if (first >= last)
    return;
  auto run = [&] {
    loop.body(loop.ctx, loop.lb + first * loop.step,
              std::min(loop.ub, loop.lb + last * loop.step));
  };
  try {
    if (!loop.inExport)
      return run();
    tflrt::ExportBoundary boundary;
    run();
  } catch (...) {
    std::lock_guard<std::mutex> lock(loop.mutex);
    if (!loop.error)
      loop.error = std::current_exception();
  }
}
} // namespace

void tflrt::forEachProduct(int64_t batch,
                           const std::function<void(int64_t)> &product,
                           const std::function<std::string()> &name) {
  int64_t threads = std::min<int64_t>(omp_get_max_threads(), batch);
  int64_t share = threads > 0 ? (batch + threads - 1) / threads : 0;
  // An uneven share (3 products on 2 threads): one product at a time.
  bool uneven = 4 * share * threads > 5 * batch;
  int64_t grain = uneven ? batch + 1 : 2;
  if (batch > 1 && reportingKernels() && name) {
    std::string count = std::to_string(batch) + " products",
                on = std::to_string(threads) +
                     (threads == 1 ? " thread" : " threads");
    reportKernelChoice(name() + ", a batch of " + std::to_string(batch),
                       uneven ? "one product at a time, each on every thread"
                              : "one product per thread",
                       uneven ? count + " on " + on + ": a thread's share, " +
                                    std::to_string(share) +
                                    ", over 5/4 of the mean"
                              : count + " share out evenly among " + on);
  }
  parallelFor(batch, grain, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i)
      product(i);
  });
}

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
  Loop loop;
  loop.body = body;
  loop.ctx = ctx;
  loop.lb = lb;
  loop.ub = ub;
  loop.step = step;
  loop.trips = trips;
  loop.inExport = tflrt::insideExport();
  GOMP_parallel(runShare, &loop, static_cast<unsigned>(threads), 0);
  if (loop.error)
    std::rethrow_exception(loop.error);
}
