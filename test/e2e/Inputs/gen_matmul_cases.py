#!/usr/bin/python3
"""Writes a TFL program of matmuls in NumPy's forms (1-D operands, batch
dims broadcast, integers), and NumPy's output for each.

Usage: gen_matmul_cases.py OUT.tfl OUT.expected
"""
import sys

import numpy as np

from tflgen import literal

rng = np.random.default_rng(9)
PAIRS = [((3,), (3, 4)), ((2, 3), (3,)), ((3,), (3,)), ((2, 3), (3, 4)),
         ((5, 2, 3), (3, 4)), ((2, 3), (4, 3, 5)), ((2, 1, 2, 3), (3, 3, 2)),
         ((4, 2, 3), (4, 3, 1))]




def main():
    tfl_path, expected_path = sys.argv[1:]
    with open(tfl_path, "w") as tfl, open(expected_path, "w") as out:
        for sa, sb in PAIRS:
            a = rng.standard_normal(sa).astype(np.float32)
            b = rng.standard_normal(sb).astype(np.float32)
            tfl.write(f"print({literal(a)} @ {literal(b)})\n")
            out.write(str(a @ b) + "\n")
            tfl.write(f"print(matmul(cast({literal(a)}, f64), "
                      f"cast({literal(b)}, f64)))\n")
            out.write(str(a.astype(np.float64) @ b.astype(np.float64)) + "\n")
        a = rng.integers(-5, 5, (2, 3))
        b = rng.integers(-5, 5, (3, 2))
        tfl.write(f"print({literal(a)} @ {literal(b)})\n")
        out.write(str(a @ b) + "\n")


main()
