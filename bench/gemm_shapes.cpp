//===- gemm_shapes.cpp - Times each oneDNN sgemm call of a program --------===//
//
// An LD_PRELOAD library (gemm_shapes.sh builds and loads it) wrapping
// oneDNN's dnnl_sgemm: at exit it prints, per shape (transposes, M, N, K,
// beta), the calls, their time (summed over the threads that made them)
// and GFLOP/s, so that a profile's GEMM share can be split by shape.
//
//===----------------------------------------------------------------------===//

#include <dlfcn.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <map>
#include <mutex>
#include <tuple>

namespace {

using Shape = std::tuple<char, char, int64_t, int64_t, int64_t, float>;
using Sgemm = int (*)(char, char, int64_t, int64_t, int64_t, float,
                      const float *, int64_t, const float *, int64_t, float,
                      float *, int64_t);

struct Stats {
  std::mutex mutex;
  std::map<Shape, std::pair<int64_t, double>> calls;
  ~Stats() {
    double total = 0;
    for (auto &[shape, c] : calls)
      total += c.second;
    for (auto &[shape, c] : calls) {
      auto [ta, tb, m, n, k, beta] = shape;
      std::fprintf(stderr,
                   "%c%c m=%ld n=%ld k=%ld beta=%g calls=%ld ms=%.2f "
                   "GFLOP/s=%.1f\n",
                   ta, tb, static_cast<long>(m), static_cast<long>(n),
                   static_cast<long>(k), beta, static_cast<long>(c.first),
                   c.second * 1e3, 2.0 * m * n * k * c.first / c.second / 1e9);
    }
    std::fprintf(stderr, "sgemm total ms %.2f\n", total * 1e3);
  }
};

Stats stats;

} // namespace

extern "C" int dnnl_sgemm(char ta, char tb, int64_t m, int64_t n, int64_t k,
                          float alpha, const float *a, int64_t lda,
                          const float *b, int64_t ldb, float beta, float *c,
                          int64_t ldc) {
  static auto real = reinterpret_cast<Sgemm>(dlsym(RTLD_NEXT, "dnnl_sgemm"));
  auto start = std::chrono::steady_clock::now();
  int status = real(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
  std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
  std::lock_guard<std::mutex> lock(stats.mutex);
  auto &entry = stats.calls[{ta, tb, m, n, k, beta}];
  ++entry.first;
  entry.second += took.count();
  return status;
}
