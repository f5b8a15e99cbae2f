#!/usr/bin/python3
"""Writes a TFL program drawing from the random generator, and the numbers
an independent Python Philox-4x32-10 (Salmon et al., SC'11; checked below
against Random123's known answers, in philox.py) gives for the mapping documented in
runtime/lib/Random.cpp, seeds, draw counts and scaling included.

Usage: gen_random_cases.py OUT.tfl OUT.expected
"""
import sys

import numpy as np

from philox import Generator
from tflgen import write_case_files


def main():
    tfl_path, expected_path = sys.argv[1:]
    g = Generator()
    lines, expected = [], []

    def case(code, value):
        lines.append(f"print({code})")
        expected.append(str(value))

    # Unseeded: as seed(0). Shapes of every parity, f32 and f64, scaling.
    case("random_uniform((7,))", g.uniform(7, np.float32))
    case("random_normal((2, 3))",
         g.normal(6, np.float32).reshape(2, 3))
    lines.append("seed(2026)")
    g.seed(2026)
    case("random_normal((5,), dtype=f64)", g.normal(5, np.float64))
    case("random_uniform((3,), dtype=f64)", g.uniform(3, np.float64))
    case("shuffle_indices(9)", g.shuffle(9))
    u = g.uniform(4, np.float32)
    case("random_uniform((4,), -2.0, 3.0)",
         (np.float32(-2.0) + np.float32(5.0) * u).astype(np.float32))
    n = g.normal(3, np.float32)
    case("random_normal((3,), mean=1.5, stddev=0.25)",
         (n * np.float32(0.25) + np.float32(1.5)).astype(np.float32))
    lines.append("seed(-1)")
    g.seed(-1)
    case("random_normal((1,))", g.normal(1, np.float32))
    case("shuffle_indices(1)", g.shuffle(1))
    case("random_uniform((0,))", g.uniform(0, np.float32))
    write_case_files(tfl_path, expected_path, lines, expected)


if __name__ == "__main__":
    main()
