//===- VectorMath.cpp - exp and erf of f32 arrays, vectorized -------------===//
//
// Eight floats at a time as GCC/Clang vector extensions, widened to double:
// one AVX-512 register of doubles, two AVX2 ones. Each entry point is built
// for AVX-512, AVX2 and the baseline (Isa.h) and runs kernelIsa()'s build.
// The tail of an array goes through one padded vector.
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

typedef float F8 __attribute__((vector_size(32)));
typedef double D8 __attribute__((vector_size(64)));
typedef int64_t L8 __attribute__((vector_size(64)));
typedef uint64_t U8 __attribute__((vector_size(64)));

#define TFL_VM_LAMBDA __attribute__((always_inline))

TFL_INLINE D8 splat(double v) { return D8{} + v; }

/// c[I] + x * (c[I + 1] + x * (...)), unrolled.
template <size_t I = 0, size_t N>
TFL_INLINE D8 horner(const double (&c)[N], D8 x) {
  if constexpr (I + 1 == N)
    return splat(c[I]);
  else
    return horner<I + 1>(c, x) * x + c[I];
}

TFL_INLINE D8 select(L8 mask, D8 a, D8 b) { return mask ? a : b; }

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
TFL_INLINE D8 expOfF32(D8 x) {
  x = select(x < -104.0, splat(-104.0), x);
  x = select(x > 89.0, splat(89.0), x);
  // n = round(x / ln 2): adding 1.5 * 2^52 leaves n in the low mantissa
  // bits.
  const double magic = 0x1.8p52;
  D8 t = x * 0x1.71547652b82fep0 + magic;
  D8 n = t - magic;
  D8 r = x - n * 0x1.62e42fefa39efp-1;
  D8 p = horner(kExp, r);
  // p * 2^n: n added to p's exponent field (p is in [0.7, 1.42]).
  U8 bits, nbits;
  std::memcpy(&bits, &p, sizeof(bits));
  std::memcpy(&nbits, &t, sizeof(nbits));
  bits += nbits << 52;
  std::memcpy(&p, &bits, sizeof(p));
  return p;
}

TFL_INLINE F8 load(const float *p) {
  F8 v;
  std::memcpy(&v, p, sizeof(v));
  return v;
}

TFL_INLINE void store(float *p, F8 v) { std::memcpy(p, &v, sizeof(v)); }

/// Runs `fn` over x[0, n) into y, eight at a time; the tail through one
/// padded vector. Four vectors an iteration: their polynomials are four
/// independent chains of dependent FMAs, which one alone would leave
/// waiting on each FMA's latency.
template <typename Fn>
TFL_INLINE void eachVector(const float *x, float *y, int64_t n, Fn fn) {
  int64_t i = 0;
  for (; i + 32 <= n; i += 32) {
    F8 a = fn(load(x + i)), b = fn(load(x + i + 8));
    F8 c = fn(load(x + i + 16)), d = fn(load(x + i + 24));
    store(y + i, a);
    store(y + i + 8, b);
    store(y + i + 16, c);
    store(y + i + 24, d);
  }
  for (; i + 8 <= n; i += 8)
    store(y + i, fn(load(x + i)));
  if (i < n) {
    float in[8] = {}, out[8];
    std::memcpy(in, x + i, (n - i) * sizeof(float));
    store(out, fn(load(in)));
    std::memcpy(y + i, out, (n - i) * sizeof(float));
  }
}

TFL_INLINE F8 expVector(F8 v) {
  F8 e = __builtin_convertvector(expOfF32(__builtin_convertvector(v, D8)), F8);
  return v != v ? v : e; // NaN stays NaN
}

TFL_INLINE void expF32Body(const float *x, float *y, int64_t n) {
  eachVector(x, y, n, [](F8 v) TFL_VM_LAMBDA { return expVector(v); });
}

TFL_INLINE void sigmoidF32Body(const float *x, float *y, int64_t n) {
  eachVector(x, y, n, [](F8 v) TFL_VM_LAMBDA {
    return F8{} + 1.0f / (1.0f + expVector(-v));
  });
}

TFL_INLINE void erfF32Body(const float *x, float *y, int64_t n) {
  eachVector(x, y, n, [](F8 v) TFL_VM_LAMBDA {
    D8 d = __builtin_convertvector(v, D8);
    D8 a = select(d < 0.0, -d, d);
    a = select(a > 4.0, splat(4.0), a);
    D8 small = d * horner(kErfSmall, d * d);
    D8 large = horner(kErfLarge, a * (2.0 / 3.0) - 5.0 / 3.0);
    large = select(d < 0.0, -large, large);
    F8 e = __builtin_convertvector(select(a < 1.0, small, large), F8);
    return v != v ? v : e;
  });
}

} // namespace

TFL_ISA_VARIANTS(expF32, (const float *x, float *y, int64_t n), (x, y, n))
TFL_ISA_VARIANTS(sigmoidF32, (const float *x, float *y, int64_t n), (x, y, n))
TFL_ISA_VARIANTS(erfF32, (const float *x, float *y, int64_t n), (x, y, n))

} // namespace tflrt
