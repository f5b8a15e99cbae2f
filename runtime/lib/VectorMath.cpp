//===- VectorMath.cpp - exp and erf of f32 arrays, vectorized -------------===//
//
// N floats at a time as GCC/Clang vector extensions, widened to double:
// one register of doubles in each build, N = 8 on AVX-512, 4 on AVX2 and
// 2 on the baseline's SSE2 (a vector wider than the build's registers goes
// through the stack). Each entry point is built for AVX-512, AVX2 and the
// baseline (Isa.h) and runs kernelIsa()'s build. The tail of an array goes
// through one padded vector.
//
//===----------------------------------------------------------------------===//

#include "VectorMath.h"
#include "Isa.h"

#include <cstring>

// The helpers that take and return vectors are always inlined into the
// clones: no call passes a vector between code built for different ISAs.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wpsabi"
#endif

namespace tflrt {
namespace {

/// N floats, and the N doubles (one register) they are computed in.
template <int N> struct Wide {
  typedef float F __attribute__((vector_size(N * sizeof(float))));
  typedef double D __attribute__((vector_size(N * sizeof(double))));
};

#define TFL_VM_LAMBDA __attribute__((always_inline))

template <typename D> TFL_INLINE D splat(double v) { return D{} + v; }

/// c[I] + x * (c[I + 1] + x * (...)), unrolled.
template <size_t I = 0, size_t K, typename D>
TFL_INLINE D horner(const double (&c)[K], D x) {
  if constexpr (I + 1 == K)
    return splat<D>(c[I]);
  else
    return horner<I + 1>(c, x) * x + c[I];
}

/// a where `mask` (a comparison's lanes) is set, else b.
template <typename M, typename D> TFL_INLINE D select(M mask, D a, D b) {
  return mask ? a : b;
}

// scripts/fit_vector_math.py prints these.

// e^r for |r| <= ln(2) / 2: Taylor's coefficients to degree 10 (the
// remainder is below 3e-13).
constexpr double kExp[] = {
    0x1.0000000000000p+0,  0x1.0000000000000p+0,  0x1.0000000000000p-1,
    0x1.5555555555555p-3,  0x1.5555555555555p-5,  0x1.1111111111111p-7,
    0x1.6c16c16c16c17p-10, 0x1.a01a01a01a01ap-13, 0x1.a01a01a01a01ap-16,
    0x1.71de3a556c734p-19, 0x1.27e4fb7789f5cp-22};

// erf(x) = x * P(x^2) for |x| < 1: P interpolates erf(x) / x at Chebyshev
// nodes of x^2 in [0, 1], degree 8, within 1e-12.
constexpr double kErfSmall[] = {
    0x1.20dd750428d0bp+0,  -0x1.812746adee118p-2,  0x1.ce2f20aaa0a45p-4,
    -0x1.b82cbb52e6276p-6, 0x1.565891c7c2399p-8,   -0x1.bfe1c8c6a6a9fp-11,
    0x1.f582bef8d5b6dp-14, -0x1.d2cca290c5de7p-17, 0x1.1c6a3d9ea98b8p-20};

// erf(a) = Q((2a - 5) / 3) for 1 <= a <= 4: Q interpolates erf at
// Chebyshev nodes of [1, 4], degree 18, within 2e-11. Above 4, erf rounds
// to 1 in f32 (it does from 3.92).
constexpr double kErfLarge[] = {
    0x1.ffcaa8f4bab5cp-1,   0x1.ac44a232e9200p-9,  -0x1.9180557b76448p-7,
    0x1.cdba01e2bba43p-6,   -0x1.6596673129330p-5, 0x1.7c8c36d9557e3p-5,
    -0x1.0520bf009ad74p-5,  0x1.2fafcb9a10208p-7,  0x1.b593135e91f9cp-8,
    -0x1.3b4cb6c938e5dp-7,  0x1.2abf4a09e2e97p-8,  0x1.d0fd01d47f04dp-12,
    -0x1.e797694e8b9cap-10, 0x1.e1bfc6a314308p-11, 0x1.a4b755a85e7d3p-14,
    -0x1.341545aeb23cbp-12, 0x1.41b6b0e7e1891p-14, 0x1.144a1ed9efbdap-15,
    -0x1.025d262f70a26p-16};

/// e^x in double for x an f32 value. Below -104, e^x rounds to +0 in f32;
/// above 89 to +inf: x is clamped there, and the double result, whose
/// exponent range holds 2^-150 to 2^129, rounds to f32 as the exact value
/// would (subnormals included). NaN lanes are the caller's.
template <typename D> TFL_INLINE D expOfF32(D x) {
  x = select(x < -104.0, splat<D>(-104.0), x);
  x = select(x > 89.0, splat<D>(89.0), x);
  // n = round(x / ln 2): adding 1.5 * 2^52 leaves n in the low mantissa
  // bits.
  const double magic = 0x1.8p52;
  D t = x * 0x1.71547652b82fep0 + magic;
  D n = t - magic;
  D r = x - n * 0x1.62e42fefa39efp-1;
  D p = horner(kExp, r);
  // p * 2^n: n added to p's exponent field (p is in [0.7, 1.42]).
  typedef uint64_t U __attribute__((vector_size(sizeof(D))));
  U bits, nbits;
  std::memcpy(&bits, &p, sizeof(bits));
  std::memcpy(&nbits, &t, sizeof(nbits));
  bits += nbits << 52;
  std::memcpy(&p, &bits, sizeof(p));
  return p;
}

template <typename F> TFL_INLINE F load(const float *p) {
  F v;
  std::memcpy(&v, p, sizeof(v));
  return v;
}

template <typename F> TFL_INLINE void store(float *p, F v) {
  std::memcpy(p, &v, sizeof(v));
}

/// Runs `fn` over x[0, n) into y, N at a time; the tail through one padded
/// vector. Four vectors an iteration: their polynomials are four
/// independent chains of dependent FMAs, which one alone would leave
/// waiting on each FMA's latency.
template <int N, typename Fn>
TFL_INLINE void eachVector(const float *x, float *y, int64_t n, Fn fn) {
  typedef typename Wide<N>::F F;
  int64_t i = 0;
  for (; i + 4 * N <= n; i += 4 * N) {
    F a = fn(load<F>(x + i)), b = fn(load<F>(x + i + N));
    F c = fn(load<F>(x + i + 2 * N)), d = fn(load<F>(x + i + 3 * N));
    store(y + i, a);
    store(y + i + N, b);
    store(y + i + 2 * N, c);
    store(y + i + 3 * N, d);
  }
  for (; i + N <= n; i += N)
    store(y + i, fn(load<F>(x + i)));
  if (i < n) {
    float in[N] = {}, out[N];
    std::memcpy(in, x + i, (n - i) * sizeof(float));
    store(out, fn(load<F>(in)));
    std::memcpy(y + i, out, (n - i) * sizeof(float));
  }
}

template <int N>
TFL_INLINE typename Wide<N>::F expVector(typename Wide<N>::F v) {
  typedef typename Wide<N>::D D;
  typename Wide<N>::F e = __builtin_convertvector(
      expOfF32(__builtin_convertvector(v, D)), typename Wide<N>::F);
  return v != v ? v : e; // NaN stays NaN
}

// The bodies below are templates on L, the floats in one of the build's
// registers (TFL_ISA_LANE_VARIANTS): their N = L / 2 floats are computed in
// one register of doubles.

template <int L>
TFL_INLINE void expF32Body(const float *x, float *y, int64_t n) {
  constexpr int N = L / 2;
  eachVector<N>(x, y, n, [](typename Wide<N>::F v) TFL_VM_LAMBDA {
    return expVector<N>(v);
  });
}

template <int L>
TFL_INLINE void sigmoidF32Body(const float *x, float *y, int64_t n) {
  constexpr int N = L / 2;
  typedef typename Wide<N>::F F;
  eachVector<N>(x, y, n, [](F v) TFL_VM_LAMBDA {
    return F{} + 1.0f / (1.0f + expVector<N>(-v));
  });
}

template <int L>
TFL_INLINE void erfF32Body(const float *x, float *y, int64_t n) {
  constexpr int N = L / 2;
  typedef typename Wide<N>::F F;
  typedef typename Wide<N>::D D;
  eachVector<N>(x, y, n, [](F v) TFL_VM_LAMBDA {
    D d = __builtin_convertvector(v, D);
    D a = select(d < 0.0, -d, d);
    a = select(a > 4.0, splat<D>(4.0), a);
    D small = d * horner(kErfSmall, d * d);
    D large = horner(kErfLarge, a * (2.0 / 3.0) - 5.0 / 3.0);
    large = select(d < 0.0, -large, large);
    F e = __builtin_convertvector(select(a < 1.0, small, large), F);
    return v != v ? v : e;
  });
}

} // namespace

TFL_ISA_LANE_VARIANTS(expF32, (const float *x, float *y, int64_t n), (x, y, n))
TFL_ISA_LANE_VARIANTS(sigmoidF32, (const float *x, float *y, int64_t n),
                      (x, y, n))
TFL_ISA_LANE_VARIANTS(erfF32, (const float *x, float *y, int64_t n), (x, y, n))

} // namespace tflrt
