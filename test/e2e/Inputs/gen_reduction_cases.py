#!/usr/bin/python3
"""Writes a TFL program of reductions over random tensors (every axis
form, keepdims, integer and bool inputs, NaN for max/argmax), and NumPy's
output for each.

Usage: gen_reduction_cases.py OUT.tfl OUT.expected
"""
import itertools
import sys

import numpy as np

from tflgen import literal

rng = np.random.default_rng(11)




def logsumexp(x, axis=None, keepdims=False):
    m = np.max(x, axis=axis, keepdims=True)
    m = np.where(np.isfinite(m), m, 0)
    s = np.log(np.sum(np.exp(x - m), axis=axis, keepdims=keepdims))
    return (s + (m if keepdims else np.squeeze(m, axis=axis))).astype(x.dtype)


FLOAT = {"sum": np.sum, "mean": np.mean, "max": np.max, "min": np.min,
         "prod": np.prod, "logsumexp": logsumexp}


def axis_forms(rank):
    yield None, "None"
    for a in range(rank):
        yield a, str(a)
        yield a - rank, str(a - rank)
    for r in range(2, rank + 1):
        for combo in itertools.combinations(range(rank), r):
            yield combo, "(" + ", ".join(map(str, combo)) + ")"


def main():
    tfl_path, expected_path = sys.argv[1:]
    with open(tfl_path, "w") as tfl, open(expected_path, "w") as out:
        for shape in [(5,), (2, 3), (3, 1, 4)]:
            x = rng.standard_normal(shape).astype(np.float32)
            for name, fn in FLOAT.items():
                for axis, text in axis_forms(len(shape)):
                    for keep in (False, True):
                        tfl.write(f"print({name}({literal(x)}, axis={text}, "
                                  f"keepdims={keep}))\n")
                        r = fn(x, axis=axis, keepdims=keep)
                        out.write(str(np.asarray(r, np.float32)) + "\n")
            for name, fn in (("argmax", np.argmax), ("argmin", np.argmin)):
                for axis in [None] + list(range(len(shape))):
                    for keep in (False, True):
                        tfl.write(f"print({name}({literal(x)}, axis={axis}, "
                                  f"keepdims={keep}))\n")
                        out.write(str(fn(x, axis=axis, keepdims=keep)) + "\n")
        n = rng.integers(-50, 50, (3, 4))
        for name, fn in (("sum", np.sum), ("max", np.max), ("min", np.min),
                         ("prod", np.prod), ("argmax", np.argmax)):
            tfl.write(f"print({name}({literal(n)}, axis=1))\n")
            out.write(str(fn(n, axis=1)) + "\n")
        tfl.write(f"print(mean({literal(n)}))\n")
        out.write(str(np.float32(np.mean(n))) + "\n")
        b = rng.random((2, 5)) > 0.5
        tfl.write(f"print(sum({literal(b)}, 1))\n")
        out.write(str(np.sum(b, 1)) + "\n")
        # NaN propagates through max and wins argmax, as in NumPy.
        tfl.write("z = [1.0, 0.0, 3.0] / [1.0, 0.0, 1.0]\n")
        tfl.write("print(max(z), argmax(z), argmin(z), sum([]))\n")
        z = np.array([1, np.nan, 3], np.float32)
        out.write(f"{np.max(z)} {np.argmax(z)} {np.argmin(z)} "
                  f"{np.float32(np.sum(np.array([], np.float32)))}\n")


main()
