#!/usr/bin/python3
"""Fits the polynomials of runtime/lib/VectorMath.cpp and the compiled
code's f32 erf (codegen/lib/Cpu/ApproximateMath.cpp), and checks them.

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


# Compiled code's f32 erf: x P(x^2) / Q(x^2), P of degree 6 and Q of degree
# 5 in t = x^2, Q(0) = 1, for |x| <= ERF_CLAMP (erf rounds to 1 above),
# fitted to erf's relative error by Loeb's linearization (each pass weighs
# the residual P - g Q by the last Q) with Lawson's reweighting towards the
# largest errors, then evaluated in f32 as the compiled code does.
ERF_CLAMP = 3.9192059


def fit_rational_erf(num_terms=7, den_terms=5, passes=80):
    t = np.linspace(0.0, ERF_CLAMP**2, 20000)
    g = erf_over_x(t)
    weight, q_last = np.ones_like(t), np.ones_like(t)
    for _ in range(passes):
        columns = [t**i for i in range(num_terms)]
        columns += [-g * t**i for i in range(1, den_terms + 1)]
        scale = weight / (g * q_last)
        c = np.linalg.lstsq(np.stack(columns, 1) * scale[:, None], g * scale,
                            rcond=None)[0]
        num, den = c[:num_terms], np.concatenate([[1.0], c[num_terms:]])
        q_last = horner(den, t)
        error = np.abs(horner(num, t) / q_last - g) / g
        weight = weight * np.sqrt(error / error.max()) + 1e-12
        weight /= weight.mean()
    print(f"compiled erf: relative error {error.max():.1e} in exact arithmetic")
    return num.astype(np.float32), den.astype(np.float32)


def f32_rational_erf(num, den):
    def evaluate(x):
        f32 = np.float32
        x = np.clip(x.astype(f32), f32(-ERF_CLAMP), f32(ERF_CLAMP))
        t = (x * x).astype(f32)

        def fma_horner(coeffs):  # each step one fused multiply-add
            r = np.full_like(t, coeffs[-1])
            for c in coeffs[-2::-1]:
                r = (t.astype(np.float64) * r + np.float64(c)).astype(f32)
            return r

        r = (x * fma_horner(num)).astype(f32) / fma_horner(den)
        return np.clip(r.astype(f32), f32(-1), f32(1))
    return evaluate


erf_num, erf_den = fit_rational_erf()
print("P: " + ", ".join(f"{float(c)!r}f" for c in erf_num))
print("Q: " + ", ".join(f"{float(c)!r}f" for c in erf_den))
report("compiled erf", f32_rational_erf(erf_num, erf_den), math.erf, -5.0, 5.0)
