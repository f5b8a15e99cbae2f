#!/usr/bin/python3
"""Writes a TFL program of var and std (axes, keepdims, ddof, methods,
f64, integers) and their gradients, with NumPy's values and PyTorch's
gradients (f64 autograd from the same f32 inputs).

Usage: gen_spread_cases.py OUT.tfl OUT.expected
"""
import sys

import numpy as np
import torch

from tflgen import literal, write_case_files

rng = np.random.default_rng(31)


def torch_spread(name, t, axis, keep, ddof):
    """var or std by their definition in PyTorch ops (torch.var's
    correction takes integers only in the Debian version)."""
    dims = tuple(range(t.dim())) if axis is None else (
        axis if isinstance(axis, tuple) else (axis,))
    n = float(np.prod([t.shape[d] for d in dims]))
    centered = t - t.mean(dim=dims, keepdim=True)
    v = (centered * centered).sum(dim=dims, keepdim=keep) / (n - ddof)
    return v if name == "var" else v.sqrt()


def main():
    tfl_path, expected_path = sys.argv[1:]
    lines, expected = [], []
    x = (rng.standard_normal((3, 4, 5)) * 2 + 1).astype(np.float32)
    lines.append(f"x = {literal(x)}")
    for name in ("var", "std"):
        for axis, keep, ddof in [(None, False, 0), (1, False, 0),
                                 (-1, True, 1), ((0, 2), False, 1),
                                 ((0, 1, 2), True, 2), (0, False, 0.5)]:
            a = "None" if axis is None else repr(axis)
            lines.append(f"print({name}(x, axis={a}, keepdims={keep}, "
                         f"ddof={ddof}))")
            expected.append(str(np.asarray(getattr(np, name)(
                x.astype(np.float64), axis=axis, keepdims=keep, ddof=ddof),
                np.float32)))
            # The gradient of sum(name(x) * weights), against PyTorch.
            t = torch.tensor(x.astype(np.float64), requires_grad=True)
            r = torch_spread(name, t, axis, keep, ddof)
            weights = rng.standard_normal(r.shape).astype(np.float32)
            lines.append(f"print(grad(lambda v: sum({name}(v, axis={a}, "
                         f"keepdims={keep}, ddof={ddof}) * "
                         f"{literal(weights)}))(x))")
            (r * torch.tensor(weights.astype(np.float64))).sum().backward()
            expected.append(str(t.grad.numpy().astype(np.float32)))
    lines.append("print(x.var(axis=2), x.std(ddof=1))")
    expected.append(f"{np.asarray(x.astype(np.float64).var(axis=2), np.float32)} "
                    f"{np.float32(x.astype(np.float64).std(ddof=1))}")
    lines.append("print(var(cast(x, f64), axis=0, ddof=1))")
    expected.append(str(x.astype(np.float64).var(axis=0, ddof=1)))
    lines.append("print(var([1, 2, 3, 4]), std([[1, 5], [2, 9]], axis=0))")
    expected.append(f"{np.float32(np.var([1, 2, 3, 4]))} "
                    f"{np.std([[1, 5], [2, 9]], axis=0).astype(np.float32)}")
    write_case_files(tfl_path, expected_path, lines, expected)


main()
