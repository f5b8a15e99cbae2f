#!/usr/bin/python3
"""ULP errors of TFL's f32 exp, log, tanh, sigmoid, log1p, expm1 and erf.

`math_ulps.py gen`: writes NAME_in.npy for math_ulps.tfl: a sweep of each
function's range (with subnormal results and inputs) and special values.
`math_ulps.py check MODE`: reads NAME_out.npy and compares each element
with NumPy's f64 result rounded to f32, in units in the last place (the
distance in representable f32 values), against the bounds docs/
performance.md states for MODE (compiled: tfl-approximate-math's polynomials, eager:
libm). NaN must be NaN, infinities and zeros exact. Prints the largest
error per function."""
import math
import sys

import numpy as np

N = 1 << 17
SPECIAL = [0.0, -0.0, np.inf, -np.inf, np.nan, 1e-45, -1e-45, 1e-40, 3e-39,
           1.17549435e-38, 1.0, -1.0, 0.5, -0.5, 1e-30, -1e-30, 1e30, -1e30]
REFERENCE = {
    "exp": (np.exp, np.linspace(-104.0, 88.72, N)),
    "log": (np.log, np.exp(np.linspace(-103.0, 88.7, N))),
    "tanh": (np.tanh, np.linspace(-12.0, 12.0, N)),
    "sigmoid": (lambda x: 1.0 / (1.0 + np.exp(-x)), np.linspace(-40.0, 40.0, N)),
    "log1p": (np.log1p, np.concatenate([np.linspace(-0.999, 1.0, N // 2),
                                        np.exp(np.linspace(0.0, 80.0, N // 2))])),
    "expm1": (np.expm1, np.linspace(-20.0, 20.0, N)),
    "erf": (np.vectorize(math.erf, otypes=[np.float64]),
            np.linspace(-6.0, 6.0, N)),
}
# The largest error allowed, in ULPs (docs/performance.md).
BOUNDS = {
    "compiled": {"exp": 2, "log": 1, "tanh": 5, "sigmoid": 3, "log1p": 2,
                 "expm1": 2, "erf": 6},
    "eager": {"exp": 1, "log": 1, "tanh": 2, "sigmoid": 2, "log1p": 1,
              "expm1": 1, "erf": 1},
}


def ordered(a):
    """f32 values as integers in their order (so that subtraction counts
    the representable values between them)."""
    i = a.view(np.int32).astype(np.int64)
    return np.where(i < 0, -(i & 0x7FFFFFFF), i)


if sys.argv[1] == "gen":
    for name, (_, sweep) in REFERENCE.items():
        np.save(f"{name}_in.npy",
                np.concatenate([sweep, SPECIAL]).astype(np.float32))
    sys.exit(0)

mode = sys.argv[2]
failed = False
for name, (f, _) in REFERENCE.items():
    x = np.load(f"{name}_in.npy")
    got = np.load(f"{name}_out.npy")
    with np.errstate(all="ignore"):
        want = f(x.astype(np.float64)).astype(np.float32)
    nan = np.isnan(want)
    if not np.array_equal(nan, np.isnan(got)):
        print(f"FAILED {name}: NaN at {x[nan != np.isnan(got)][:5]}")
        failed = True
        continue
    ulps = np.abs(ordered(got[~nan]) - ordered(want[~nan]))
    worst = int(ulps.max())
    ok = worst <= BOUNDS[mode][name]
    failed |= not ok
    at = x[~nan][ulps.argmax()]
    print(f"{'ok' if ok else 'FAILED'} {name}: at most {worst} ulp "
          f"(bound {BOUNDS[mode][name]}; worst at x = {at:.9g})")
sys.exit(1 if failed else 0)
