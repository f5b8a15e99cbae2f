#!/usr/bin/python3
"""Writes a TFL program of tril and triu (NumPy's k, PyTorch's diagonal
keyword, batched, bool) with the gradients of sum(tril(x, k) * w), and
NumPy's values for them (the gradient is tril(w, k)).

Usage: gen_tril_cases.py OUT.tfl OUT.expected
"""
import sys

import numpy as np

from tflgen import literal, write_case_files

rng = np.random.default_rng(23)


def main():
    tfl_path, expected_path = sys.argv[1:]
    lines, expected = [], []
    for shape in [(3, 4), (4, 3), (2, 3, 5), (1, 1)]:
        x = rng.standard_normal(shape).astype(np.float32)
        w = rng.standard_normal(shape).astype(np.float32)
        lines += [f"x = {literal(x)}", f"w = {literal(w)}"]
        for k in (-2, -1, 0, 1, 3):
            for name, fn in (("tril", np.tril), ("triu", np.triu)):
                lines.append(f"print({name}(x, {k}))")
                expected.append(str(fn(x, k)))
                lines.append(
                    f"print(grad(lambda v: sum({name}(v, k={k}) * w))(x))")
                expected.append(str(fn(w, k)))
    lines.append("print(tril(x), triu(x, diagonal=1))")
    expected.append(f"{np.tril(x)} {np.triu(x, 1)}")
    b = rng.random((4, 4)) > 0.3
    lines.append(f"print(triu({literal(b)}))")
    expected.append(str(np.triu(b)))
    lines.append(f"print(tril(cast({literal(x)}, f64), -1))")
    expected.append(str(np.tril(x.astype(np.float64), -1)))
    write_case_files(tfl_path, expected_path, lines, expected)


main()
