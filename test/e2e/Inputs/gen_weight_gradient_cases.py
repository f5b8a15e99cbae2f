#!/usr/bin/python3
"""Writes a TFL program of weights' gradients, x^T dy over a batch's rows,
with x and dy in .npy files, and NumPy's float64 numbers for them.

Each product's elements are printed through float64 products with a
vector on each side, so that every element counts and the check's
tolerance covers float32's rounding of the sums alone.

Usage: gen_weight_gradient_cases.py OUT_DIR (writes prog.tfl, expected)
"""
import os
import sys

import numpy as np

rng = np.random.default_rng(43)


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    lines, expected = [], []
    # (M, N, K): outputs of x^T dy and the rows summed over. On AVX2, TFL's
    # own packed kernel (runtime/lib/PackedGemm.h) takes the products of
    # b rows a multiple of 128 floats long and 32,768 outputs or more: the
    # first three here, oneDNN the last.
    for i, (m, n, k) in enumerate([(128, 256, 300), (384, 128, 70),
                                   (130, 384, 257), (128, 128, 100)]):
        x = rng.standard_normal((k, m)).astype(np.float32)
        dy = rng.standard_normal((k, n)).astype(np.float32)
        r = rng.standard_normal(n)
        s = rng.standard_normal(m)
        for name, value in [("x", x), ("dy", dy), ("r", r), ("s", s)]:
            np.save(os.path.join(out, f"{name}{i}.npy"), value)
        lines += [f'x = load_npy("x{i}.npy")', f'dy = load_npy("dy{i}.npy")',
                  f'r = load_npy("r{i}.npy")', f's = load_npy("s{i}.npy")',
                  "g = transpose(x) @ dy",
                  "h = g + transpose(x) @ dy",
                  "print(cast(g, f64) @ r)", "print(s @ cast(g, f64))",
                  "print(cast(h, f64) @ r)"]
        g = x.T.astype(np.float64) @ dy.astype(np.float64)
        expected += [str(g @ r), str(s @ g), str((2 * g) @ r)]
    with open(os.path.join(out, "prog.tfl"), "w") as f:
        f.write("\n".join(lines) + "\n")
    with open(os.path.join(out, "expected"), "w") as f:
        f.write("\n".join(expected) + "\n")


main()
