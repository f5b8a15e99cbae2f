#!/usr/bin/python3
"""Writes a TFL program taking higher derivatives through control flow:
for each program of grad-control-vs-fd.tfl (its CASES: ifs, for and while
loops, break, calls, custom gradients, random draws), the gradient of
h = the sum of its gradient times fixed weights (a Hessian-vector
product); and third and fourth derivatives of scalar functions with loops.
The reference is PyTorch's autograd differentiating its own gradients in
f64, checked here against central finite differences of PyTorch's
gradient one order lower.

Usage: gen_grad2_control_cases.py OUT.tfl OUT.expected
"""
import sys
import textwrap

import numpy as np
import torch

from gen_grad_control_cases import CASES, HELPERS, TORCH, load, seeded
from tflgen import fd, literal, tuple_text, write_case_files

rng = np.random.default_rng(41)

# Scalar functions and the order of the derivative taken at a point.
HIGHER = [
    ('''
def f(x):
    for i in range(3):
        x = x * x
    return x
''', 4, 1.1),
    ('''
def f(x):
    y = x
    while y < 10.0:
        y = y * x + sin(y)
    return y
''', 3, 1.5),
    ('''
def f(x):
    s = x
    for i in range(3):
        for j in range(2):
            s = sin(s) * x + 0.5 * s
    return s
''', 3, 0.7),
    ('''
def f(x):
    y = x
    if x > 0.0:
        for i in range(4):
            y = y * 0.9 + tanh(y * x)
    return y
''', 3, 0.7),
    ('''
def g(v):
    t = v
    for k in range(2):
        t = t * v + 0.1
    return t


def f(x):
    z = x
    for i in range(3):
        z = g(z) * 0.5
    return z
''', 3, 0.7),
]


def leaves_of(args):
    return [torch.tensor(a, dtype=torch.float64, requires_grad=True)
            for a in args]


def grads(value, leaves, create_graph):
    """d value / d leaves, zeros for a leaf it does not reach."""
    if not value.requires_grad:
        return [torch.zeros_like(t) for t in leaves]
    gs = torch.autograd.grad(value, leaves, create_graph=create_graph,
                             allow_unused=True)
    return [torch.zeros_like(t) if g is None else g
            for g, t in zip(gs, leaves)]


def hvp_function(fn, weights, create_graph):
    """h(args) = sum of fn's gradient times `weights`."""
    def h(*leaves):
        first = grads(fn(*leaves), list(leaves), True)
        total = sum(torch.sum(g * torch.as_tensor(w)) for g, w in
                    zip(first, weights))
        return total if create_graph else total.detach()
    return h


def check_by_fd(value, args, reference, what):
    for i, r in enumerate(reference):
        d = fd(lambda *a: float(value(*leaves_of(a))), args, i)
        if not np.allclose(d, r, rtol=1e-5, atol=1e-6):
            sys.exit(f"{what}: PyTorch {r} and finite differences {d} "
                     "differ")


def main():
    tfl_path, expected_path = sys.argv[1:]
    defs, calls, expected = [textwrap.dedent(HELPERS)], [], []
    for k, (source, shapes, *options) in enumerate(CASES):
        seed = options[0] if options else None
        source = textwrap.dedent(source).replace("def f(", f"def f{k}(")
        fn = seeded(load(source, TORCH, f"f{k}"), seed)
        args = [np.asarray(rng.standard_normal(s)) for s in shapes]
        weights = [np.asarray(rng.standard_normal(s)) for s in shapes]
        names = [f"x{i}" for i in range(len(args))]
        argnums = tuple(range(len(args)))
        defs.append("\n".join([
            f"def h{k}({', '.join(names)}):",
            f"    g = grad(f{k}, argnums={argnums})({', '.join(names)})",
            "    return " + " + ".join(
                f"sum(g[{i}] * cast({literal(w)}, f64))"
                for i, w in enumerate(weights))]))
        defs.append(source)
        if seed is not None:
            calls.append(f"seed({seed})")
        texts = [f"cast({literal(a)}, f64)" for a in args]
        calls.append(f"print(grad(h{k}, argnums={argnums})"
                     f"({', '.join(texts)}))")
        h = hvp_function(fn, weights, True)
        leaves = leaves_of(args)
        reference = [g.detach().numpy()
                     for g in grads(h(*leaves), leaves, False)]
        check_by_fd(hvp_function(fn, weights, False), args, reference,
                    f"case {k}")
        expected.append(tuple_text(reference))
    for k, (source, order, point) in enumerate(HIGHER):
        source = textwrap.dedent(source).replace("def f(", f"def p{k}(")
        source = source.replace("g(", f"g{k}(")
        fn = load(source, TORCH, f"p{k}")
        defs.append(source)
        calls.append("print(" + "grad(" * order + f"p{k}" + ")" * order +
                     f"(cast({point!r}, f64)))")

        def derivative(x, n):
            """The n-th derivative of fn at the leaf x, differentiable."""
            value = fn(x)
            for _ in range(n):
                value, = grads(value, [x], True)
            return value
        x = torch.tensor(point, dtype=torch.float64, requires_grad=True)
        reference = derivative(x, order).item()
        d = fd(lambda v: derivative(
            torch.tensor(float(v), dtype=torch.float64, requires_grad=True),
            order - 1).item(), [np.float64(point)], 0)
        if not np.isclose(d, reference, rtol=1e-5):
            sys.exit(f"p{k}: PyTorch {reference} and finite differences {d} "
                     "differ")
        expected.append(str(np.float64(reference)))
    write_case_files(tfl_path, expected_path,
                     ["\n\n".join(defs)] + [""] + calls, expected)


if __name__ == "__main__":
    main()
