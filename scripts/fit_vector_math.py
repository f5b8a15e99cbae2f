#!/usr/bin/python3
"""Fits the polynomials of runtime/lib/VectorMath.cpp and checks them.

Prints the coefficients as C++ hex floats, then each function's f32 results
(evaluated in double as the kernels do, rounded to f32) against Python's
math module on a sweep of f32 inputs: how many differ, and by how many ulps
at most. Needs NumPy: /usr/bin/python3 scripts/fit_vector_math.py
"""

import math

import numpy as np
from numpy.polynomial import chebyshev as cheb
from numpy.polynomial import polynomial as poly

NODES = 6000


def chebyshev_fit(f, lo, hi, degree):
    """f on [lo, hi] interpolated at Chebyshev nodes, as monomial
    coefficients in u = (2x - lo - hi) / (hi - lo), which runs over [-1, 1]."""
    k = np.arange(NODES)
    u = np.cos(np.pi * (k + 0.5) / NODES)
    x = (lo + hi) / 2 + (hi - lo) / 2 * u
    return cheb.cheb2poly(cheb.chebfit(u, f(x), degree))


def in_variable(coeffs_u, lo, hi):
    """Monomial coefficients in u, rewritten as coefficients in x."""
    scale, shift = 2 / (hi - lo), -(lo + hi) / (hi - lo)
    out = np.zeros(1)
    for i, c in enumerate(coeffs_u):
        out = poly.polyadd(out, c * poly.polypow([shift, scale], i))
    return out


def horner(coeffs, x):
    r = np.full_like(x, coeffs[-1])
    for c in coeffs[-2::-1]:
        r = r * x + c
    return r


def hex_list(name, coeffs):
    body = ", ".join(float(c).hex() for c in coeffs)
    return f"{name} = {{{body}}};"


erf = np.vectorize(math.erf)


def erf_over_x(t):
    """erf(x) / x as a function of t = x^2."""
    root = np.sqrt(np.maximum(t, 1e-300))
    return np.where(t == 0, 2 / np.sqrt(np.pi), erf(root) / root)


# erf(x) = x * P(x^2) for |x| < 1; P of degree 8 in x^2 (within 1e-12).
erf_small = in_variable(chebyshev_fit(erf_over_x, 0.0, 1.0, 8), 0.0, 1.0)
# erf(a) = Q((2a - 5) / 3) for 1 <= a <= 4; Q of degree 18 (within 2e-11).
erf_large = chebyshev_fit(erf, 1.0, 4.0, 18)
# e^r on |r| <= ln(2) / 2: Taylor's coefficients to degree 10 (within 3e-13).
exp_taylor = [1 / math.factorial(i) for i in range(11)]

print(hex_list("kErfSmall", erf_small))
print(hex_list("kErfLarge", erf_large))
print(hex_list("kExp", exp_taylor))


def f32_erf(x):
    a = np.minimum(np.abs(x), 4.0)
    small = x * horner(erf_small, x * x)
    large = np.copysign(horner(erf_large, a * (2 / 3) - 5 / 3), x)
    return np.where(a < 1, small, large).astype(np.float32)


def f32_exp(x):
    x = np.clip(x, -104.0, 89.0)
    magic = 6755399441055744.0  # 1.5 * 2^52
    n = (x * (1 / math.log(2)) + magic) - magic
    r = x - n * math.log(2)
    with np.errstate(over="ignore"):
        return (horner(exp_taylor, r) * np.exp2(n)).astype(np.float32)


def report(name, ours, reference, lo, hi, count=4000001):
    x = np.unique(np.linspace(lo, hi, count).astype(np.float32))
    x = x.astype(np.float64)
    got = ours(x)
    with np.errstate(over="ignore"):
        want = np.array([reference(v) for v in x]).astype(np.float32)
    with np.errstate(invalid="ignore"):
        ulps = np.abs(got.astype(np.float64) - want) / np.spacing(want)
    ulps[got == want] = 0
    print(f"{name}: {np.sum(got != want)} of {len(x)} differ, "
          f"at most {ulps.max():.0f} ulp")


def exp_reference(v):
    return math.exp(v) if v < 89 else math.inf


report("erf", f32_erf, math.erf, -5.0, 5.0)
report("exp", f32_exp, exp_reference, -104.0, 89.0)
