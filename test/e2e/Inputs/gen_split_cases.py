#!/usr/bin/python3
"""Writes a TFL program of split and chunk (PyTorch's: a size or sizes, a
number of chunks; axes by position, keyword and from the end; the
methods) with the gradient of a weighted sum of the pieces, and
PyTorch's values for them.

Usage: gen_split_cases.py OUT.tfl OUT.expected
"""
import sys

import numpy as np
import torch

from tflgen import literal, write_case_files

rng = np.random.default_rng(37)


def main():
    tfl_path, expected_path = sys.argv[1:]
    x = rng.standard_normal((3, 5, 4)).astype(np.float32)
    lines = [f"x = {literal(x)}"]
    expected = []
    cases = [("split(x, 2, axis=1)", lambda t: t.split(2, dim=1)),
             ("split(x, (1, 3, 0), axis=-1)", lambda t: t.split([1, 3, 0], dim=-1)),
             ("x.split(3, dim=0)", lambda t: t.split(3, dim=0)),
             ("chunk(x, 3, axis=1)", lambda t: t.chunk(3, dim=1)),
             ("x.chunk(4, axis=2)", lambda t: t.chunk(4, dim=2)),
             ("chunk(x, 2)", lambda t: t.chunk(2))]
    for n, (expr, fn) in enumerate(cases):
        pieces = fn(torch.tensor(x))
        lines.append(f"pieces = {expr}")
        lines.append("print(len(pieces))")
        expected.append(str(len(pieces)))
        for i, p in enumerate(pieces):
            lines.append(f"print(pieces[{i}])")
            expected.append(str(p.numpy()))
        # The gradient of sum(piece_i * (i + 1) * piece_i) over the pieces.
        t = torch.tensor(x.astype(np.float64), requires_grad=True)
        sum((p * (i + 1) * p).sum() for i, p in enumerate(fn(t))).backward()
        body = " + ".join(f"sum(ps[{i}] * {i + 1}.0 * ps[{i}])"
                          for i in range(len(pieces)))
        lines.append(f"def loss{n}(x):\n    ps = {expr}\n    return {body}")
        lines.append(f"print(grad(loss{n})(x))")
        expected.append(str(t.grad.numpy().astype(np.float32)))
    write_case_files(tfl_path, expected_path, lines, expected)


main()
