#!/usr/bin/python3
"""Writes a TFL program taking second derivatives through conv2d and
max/average pooling: the gradient of h = sum(gx * a) (+ sum(gw * b)), where
gx (and gw) are the first gradient of sum(sin(op(x, ...)) * c). This
differentiates the ops' adjoints (conv2d's backward input and filter,
pooling's backward). The reference is PyTorch's double backward of the same
functions in f64 (TensorFlow's "same" padding written out with F.pad), and
the generator checks it against central finite differences of PyTorch's
first gradient.

Usage: gen_grad2_conv_cases.py OUT.tfl OUT.expected
"""
import sys

import numpy as np
import torch
import torch.nn.functional as F

from gen_conv_cases import pads
from tflgen import fd, literal, tuple_text, write_case_files

rng = np.random.default_rng(31)


def padded(x, k, s, same, fill):
    """NHWC `x` as NCHW, padded as TensorFlow pads it."""
    t, b, _ = pads(x.shape[1], k[0], s[0], same)
    l, r, _ = pads(x.shape[2], k[1], s[1], same)
    return F.pad(x.permute(0, 3, 1, 2), (l, r, t, b), value=fill)


def conv(x, w, s, same):
    y = F.conv2d(padded(x, w.shape[:2], s, same, 0.0),
                 w.permute(3, 2, 0, 1), stride=s)
    return y.permute(0, 2, 3, 1)


def pool(x, k, s, same, kind):
    if kind == "max":
        y = F.max_pool2d(padded(x, k, s, same, -np.inf), k, stride=s)
        return y.permute(0, 2, 3, 1)
    # The mean over each window's unpadded elements.
    total = F.avg_pool2d(padded(x, k, s, same, 0.0), k, stride=s,
                         divisor_override=1)
    count = F.avg_pool2d(padded(torch.ones_like(x), k, s, same, 0.0), k,
                         stride=s, divisor_override=1)
    return (total / count).permute(0, 2, 3, 1)


def tensor(a):
    return torch.tensor(a, dtype=torch.float64, requires_grad=True)


def h(op, leaves, c, weights, create_graph):
    """sum over the first gradient of sum(sin(op(*leaves)) * c) times
    `weights` (differentiable again when `create_graph`)."""
    value = torch.sum(torch.sin(op(*leaves)) *
                      torch.tensor(c, dtype=torch.float64))
    first = torch.autograd.grad(value, leaves, create_graph=create_graph)
    return sum(torch.sum(g * torch.tensor(m, dtype=torch.float64))
               for g, m in zip(first, weights))


def second(op, args, c, weights):
    """h's gradient, by double backward."""
    leaves = [tensor(a) for a in args]
    return [g.detach().numpy() for g in
            torch.autograd.grad(h(op, leaves, c, weights, True), leaves)]


def check_by_fd(op, args, c, weights, expected):
    """The double backward against central differences of h."""
    def value(*values):
        return float(h(op, [tensor(a) for a in values], c, weights, False))
    for i, e in enumerate(expected):
        d = fd(value, args, i)
        if not np.allclose(d, e, rtol=1e-5, atol=1e-6):
            sys.exit(f"double backward {e} and finite differences {d} differ")


def f32(shape):
    return rng.standard_normal(shape).astype(np.float32)


def main():
    tfl_path, expected_path = sys.argv[1:]
    lines, expected = [], []

    def case(name, call, params, args, op, out_shape):
        c = f32(out_shape)
        weights = [f32(np.shape(a)) for a in args]
        names = ", ".join(params)
        lines.extend([
            f"def {name}({names}):",
            f"    return sum(sin({call}) * {literal(c)})", "",
            f"def h_{name}({names}):",
            f"    g = grad({name}, argnums={tuple(range(len(args)))})"
            f"({names})",
            "    return " + " + ".join(
                f"sum(g[{i}] * {literal(m)})" for i, m in enumerate(weights)),
            "",
            f"print(grad(h_{name}, argnums={tuple(range(len(args)))})"
            f"({', '.join(literal(a) for a in args)}))"])
        reference = second(op, args, c, weights)
        check_by_fd(op, args, c, weights, reference)
        expected.append(tuple_text([r.astype(np.float32) for r in reference]))

    for k, (xs, ws, s, padding) in enumerate([
            ((1, 5, 5, 2), (3, 3, 2, 2), (1, 1), "valid"),
            ((2, 5, 4, 1), (3, 2, 1, 2), (2, 2), "same")]):
        x, w = f32(xs), f32(ws)
        same = padding == "same"
        op = lambda x, w, s=s, same=same: conv(x, w, s, same)
        out = tuple(op(torch.tensor(x), torch.tensor(w)).shape)
        case(f"conv{k}", f"conv2d(x, w, strides={s}, padding=\"{padding}\")",
             ["x", "w"], [x, w], op, out)
    for k, (kind, size, s, padding) in enumerate([
            ("max", (2, 2), (2, 2), "valid"), ("max", (3, 3), (2, 2), "same"),
            ("avg", (2, 3), (1, 2), "valid"), ("avg", (3, 3), (2, 2), "same")]):
        x = f32((2, 5, 6, 2))
        same = padding == "same"
        op = (lambda x, kind=kind, size=size, s=s, same=same:
              pool(x, size, s, same, kind))
        out = tuple(op(torch.tensor(x)).shape)
        case(f"pool{k}", f"{kind}_pool2d(x, {size}, strides={s}, "
             f"padding=\"{padding}\")", ["x"], [x], op, out)
    write_case_files(tfl_path, expected_path, lines, expected)


if __name__ == "__main__":
    main()
