/* The machine's f32 FMA peak: 12 independent chains of fused
   multiply-adds in registers on every OpenMP thread (OMP_NUM_THREADS), in
   512-bit vectors where the CPU has AVX-512 and in 256-bit ones, the
   faster counted. Prints "GFLOP/s vector-width threads". Built by run.sh
   with cc -O2 -fopenmp. */
#include <immintrin.h>
#include <omp.h>
#include <stdio.h>
#include <time.h>

enum { kChains = 12 };

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

__attribute__((target("avx512f"))) static float fma512(long n) {
  __m512 acc[kChains];
  __m512 x = _mm512_set1_ps(0.999f), y = _mm512_set1_ps(0.001f);
  for (int i = 0; i < kChains; ++i)
    acc[i] = _mm512_set1_ps((float)i);
  for (long i = 0; i < n; ++i)
#pragma GCC unroll 12
    for (int j = 0; j < kChains; ++j)
      acc[j] = _mm512_fmadd_ps(acc[j], x, y);
  __m512 sum = acc[0];
  for (int i = 1; i < kChains; ++i)
    sum = _mm512_add_ps(sum, acc[i]);
  return _mm512_reduce_add_ps(sum);
}

__attribute__((target("avx2,fma"))) static float fma256(long n) {
  __m256 acc[kChains];
  __m256 x = _mm256_set1_ps(0.999f), y = _mm256_set1_ps(0.001f);
  for (int i = 0; i < kChains; ++i)
    acc[i] = _mm256_set1_ps((float)i);
  for (long i = 0; i < n; ++i)
#pragma GCC unroll 12
    for (int j = 0; j < kChains; ++j)
      acc[j] = _mm256_fmadd_ps(acc[j], x, y);
  float lanes[8], total = 0;
  for (int i = 1; i < kChains; ++i)
    acc[0] = _mm256_add_ps(acc[0], acc[i]);
  _mm256_storeu_ps(lanes, acc[0]);
  for (int i = 0; i < 8; ++i)
    total += lanes[i];
  return total;
}

/* GFLOP/s of `lanes`-wide FMAs on every thread, best of 5. */
static double peak(int lanes, float *sink) {
  const long n = 20000000;
  double best = 1e30;
  for (int r = 0; r < 5; ++r) {
    double t0 = now();
    float s = 0;
#pragma omp parallel reduction(+ : s)
    s += lanes == 16 ? fma512(n) : fma256(n);
    double t = now() - t0;
    *sink += s;
    if (t < best)
      best = t;
  }
  return omp_get_max_threads() * (double)n * kChains * lanes * 2 / best / 1e9;
}

int main(void) {
  float sink = 0;
  __builtin_cpu_init();
  double p256 = __builtin_cpu_supports("fma") ? peak(8, &sink) : 0;
  double p512 = __builtin_cpu_supports("avx512f") ? peak(16, &sink) : 0;
  printf("%.1f %d %d\n", p512 > p256 ? p512 : p256, p512 > p256 ? 512 : 256,
         omp_get_max_threads());
  return sink == 12345.0f; /* keeps the sums */
}
