#!/usr/bin/python3
"""Writes a TFL program of reductions to a scalar over 2^16 and more
elements (which compiled code splits into partial reductions on every
core: 64, or 32 where 64 does not divide the size, or none for an odd
size), and what NumPy computes for each in float64.

Usage: gen_large_reduction_cases.py OUT.tfl OUT.expected
"""
import sys

import numpy as np

from tflgen import write_case_files


def main():
    tfl_path, expected_path = sys.argv[1:]
    lines, expected = [], []

    def case(code, value):
        lines.append(f"print({code})")
        expected.append(str(np.float32(value)))

    x = np.linspace(-4.0, 4.0, 131072, dtype=np.float32).astype(np.float64)
    lines.append("x = linspace(-4.0, 4.0, num=131072)")
    case("sum(exp(x) + tanh(x))", np.sum(np.exp(x) + np.tanh(x)))
    case("mean(x * x)", np.mean(x * x))
    case("max(exp(-x * x) + x / 8.0)", np.max(np.exp(-x * x) + x / 8.0))
    case("min(x * (x - 1.0))", np.min(x * (x - 1.0)))
    # 65568 = 32 x 2049, and an odd size.
    z = np.linspace(0.0, 1.0, 65568, dtype=np.float32).astype(np.float64)
    lines.append("z = linspace(0.0, 1.0, num=65568)")
    case("sum(z * z)", np.sum(z * z))
    y = np.linspace(-1.0, 1.0, 131073, dtype=np.float32).astype(np.float64)
    lines.append("y = linspace(-1.0, 1.0, num=131073)")
    case("sum(y * y)", np.sum(y * y))
    # Integers sum exactly in any order.
    lines.append("print(sum(arange(131072)))")
    expected.append(str(np.sum(np.arange(131072, dtype=np.int64))))
    # A NaN in one partial reaches the result.
    with np.errstate(invalid="ignore"):
        case("max(log(x + 3.0))", np.max(np.log(x + 3.0)))
    write_case_files(tfl_path, expected_path, lines, expected)


if __name__ == "__main__":
    main()
