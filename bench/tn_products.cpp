//===- tn_products.cpp - Weights' gradients on oneDNN and libtflrt --------===//
//
// Products with a transposed left operand, c = a^T b (a weight's gradient
// x^T dy, a stored K x M), two ways: oneDNN's sgemm called directly and
// libtflrt's matmulF32 (which runs TFL's packed kernel where
// takesPackedProduct says, runtime/lib/PackedGemm.h, and oneDNN's
// elsewhere). Operands 64-byte aligned, as libtflrt allocates them; "warm"
// reuses one pair, "cold" cycles through pairs filling 96 MB, so that
// each call reads them from memory. Each side runs CALLS calls in each of
// three rounds, the two sides taking turns, and keeps its best median.
//   tn_products M N K [CALLS]
// prints "M N K takes warm_onednn_us warm_tfl_us cold_onednn_us
// cold_tfl_us" (takes: 1 where matmulF32 runs the packed kernel).
//
//===----------------------------------------------------------------------===//

#include "PackedGemm.h"
#include "tflrt/Kernels.h"

#include <oneapi/dnnl/dnnl.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace {

double now() {
  return std::chrono::duration<double>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

float *alignedFloats(long count) {
  auto *p = static_cast<float *>(
      std::aligned_alloc(64, (count * sizeof(float) + 63) / 64 * 64));
  for (long i = 0; i < count; ++i)
    p[i] = static_cast<float>(std::rand()) / RAND_MAX - 0.5f;
  return p;
}

} // namespace

int main(int argc, char **argv) {
  if (argc < 4) {
    std::fprintf(stderr, "usage: tn_products M N K [CALLS]\n");
    return 2;
  }
  long m = std::atol(argv[1]), n = std::atol(argv[2]), k = std::atol(argv[3]);
  int calls = argc > 4 ? std::atoi(argv[4]) : 200;
  long pairs = static_cast<long>(96e6 / ((m + n) * k * sizeof(float))) + 1;
  std::vector<float *> as, bs;
  for (long i = 0; i < pairs; ++i) {
    as.push_back(alignedFloats(k * m));
    bs.push_back(alignedFloats(k * n));
  }
  float *c = alignedFloats(m * n);
  std::printf("%ld %ld %ld %d", m, n, k,
              tflrt::takesPackedProduct(m, n, k, n, true, false) ? 1 : 0);
  for (long cycle : {1L, pairs}) {
    double best[2] = {1e30, 1e30};
    for (int round = 0; round < 3; ++round)
      for (int side = 0; side < 2; ++side) {
        std::vector<double> times;
        for (int i = 0; i < calls; ++i) {
          const float *a = as[i % cycle], *b = bs[i % cycle];
          double start = now();
          if (side == 0)
            dnnl_sgemm('T', 'N', m, n, k, 1.0f, a, m, b, n, 0.0f, c, n);
          else
            tflrt::matmulF32(a, b, c, m, n, k, m, n, n, false, true, false);
          times.push_back(now() - start);
        }
        std::sort(times.begin(), times.end());
        best[side] = std::min(best[side], times[times.size() / 2]);
      }
    std::printf(" %.1f %.1f", best[0] * 1e6, best[1] * 1e6);
  }
  std::printf("\n");
}
