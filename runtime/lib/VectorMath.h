//===- VectorMath.h - exp and erf of f32 arrays, vectorized -----*- C++ -*-===//
//
// The transcendental functions of the eager interpreter's f32 elementwise
// kernels, eight lanes at a time, where libm computes one element a call.
// Each evaluates in double and rounds once to f32: results are within one
// ulp of the exact value (mostly the correctly rounded one), with IEEE
// specials (NaN, infinities, signed zeros, subnormal results) as libm's.
// scripts/fit_vector_math.py fits the polynomials and checks them.
//
//===----------------------------------------------------------------------===//

#ifndef TFLRT_VECTORMATH_H
#define TFLRT_VECTORMATH_H

#include <cstdint>

namespace tflrt {

/// y[i] = e^x[i] for i < n. x and y may be the same array.
void expF32(const float *x, float *y, int64_t n);

/// y[i] = erf(x[i]) for i < n.
void erfF32(const float *x, float *y, int64_t n);

/// y[i] = 1 / (1 + e^-x[i]) for i < n, the compiled code's formula with
/// expF32's e^-x.
void sigmoidF32(const float *x, float *y, int64_t n);

} // namespace tflrt

#endif // TFLRT_VECTORMATH_H
