#!/usr/bin/python3
"""Writes a TFL program of indexing and slicing (integers, negative
indices, slices with steps both ways, None, '...', dynamic indices and
x[s : s + K]) over a random tensor, and NumPy's output for each.

Usage: gen_index_cases.py OUT.tfl OUT.expected
"""
import sys

import numpy as np

from tflgen import literal

rng = np.random.default_rng(3)
CASES = [
    "[1]", "[-1]", "[1, 2]", "[-2, -1, 0]", "[:, 0]", "[..., 1]", "[1:3]",
    "[::2]", "[::-1]", "[1::-1]", "[:, ::-2, 1:]", "[None]", "[:, None, 1]",
    "[..., None]", "[2:100]", "[-100:2]", "[3:1]", "[0, ..., 0]",
    "[1:, -3:-1, ::3]",
]




def main():
    tfl_path, expected_path = sys.argv[1:]
    x = rng.standard_normal((3, 4, 5)).astype(np.float32)
    with open(tfl_path, "w") as tfl, open(expected_path, "w") as out:
        tfl.write(f"x = {literal(x)}\n")
        for case in CASES:
            tfl.write(f"print(x{case})\n")
            out.write(str(eval("x" + case)) + "\n")
        # Dynamic indices and windows inside a loop.
        tfl.write("for i in range(3):\n")
        tfl.write("    print(x[i, i], x[-i - 1, 0, 0], x[0, i:i + 2])\n")
        for i in range(3):
            out.write(f"{x[i, i]} {x[-i - 1, 0, 0]} {x[0, i:i + 2]}\n")


main()
