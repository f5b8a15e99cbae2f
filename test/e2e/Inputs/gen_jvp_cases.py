#!/usr/bin/python3
"""Writes a TFL program taking forward-mode derivatives (see jvp-vs-fd.tfl):
jvp(f, primals, tangents) of each program of grad-control-vs-fd.tfl (its
CASES: ifs, for and while loops with data-dependent exits, break and
continue, calls, custom gradients, random draws) in a random direction;
jvp of its gradient (forward over reverse: a Hessian-vector product,
through the tapes the gradient's loops keep); and the gradient of its
directional derivative (reverse over forward). The
references: central finite differences in f64 of the function (of its
PyTorch gradient, for the second derivatives), and PyTorch's own
torch.autograd.functional.jvp and hvp, which must agree.

Usage: gen_jvp_cases.py OUT.tfl OUT.expected
"""
import sys
import textwrap

import numpy as np
import torch

from gen_grad_control_cases import CASES, HELPERS, NUMPY, TORCH, load, seeded
from tflgen import literal, tuple_text, write_program

rng = np.random.default_rng(59)


def directional(fn, args, tangents, h=1e-6):
    """d/de fn(args + e * tangents) at 0, by central differences in f64."""
    up = [a + h * t for a, t in zip(args, tangents)]
    down = [a - h * t for a, t in zip(args, tangents)]
    return (np.asarray(fn(*up)) - np.asarray(fn(*down))) / (2 * h)


def torch_grad(fn):
    """The gradient of a PyTorch function, as a function of f64 arrays."""
    def grad(*args):
        leaves = [torch.tensor(a, dtype=torch.float64, requires_grad=True)
                  for a in args]
        value = fn(*leaves)
        if not value.requires_grad:
            return tuple(np.zeros(np.shape(a)) for a in args)
        gs = torch.autograd.grad(value, leaves, allow_unused=True)
        return tuple(np.zeros(np.shape(a)) if g is None else g.numpy()
                     for a, g in zip(args, gs))
    return grad


def check(name, k, ours, reference):
    for a, b in zip(ours, reference):
        if not np.allclose(a, b, rtol=1e-6, atol=1e-8):
            sys.exit(f"case {k}: {name}: finite differences {ours} and "
                     f"PyTorch {reference} differ")


def main():
    tfl_path, expected_path = sys.argv[1:]
    lines, expected = [textwrap.dedent(HELPERS)], []
    for k, (source, shapes, *options) in enumerate(CASES):
        seed = options[0] if options else None
        source = textwrap.dedent(source).replace("def f(", f"def f{k}(")
        fn = seeded(load(source, NUMPY, f"f{k}"), seed)
        fn_torch = seeded(load(source, TORCH, f"f{k}"), seed)
        # Values an f32 literal holds exactly: `cast(literal, f64)` reads
        # them as f32 first.
        def draw(s):
            return np.asarray(rng.standard_normal(s)).astype(
                np.float32).astype(np.float64)
        args = [draw(s) for s in shapes]
        tangents = [draw(s) for s in shapes]
        n = len(args)
        texts = [f"cast({literal(a)}, f64)" for a in args]
        ttexts = [f"cast({literal(t)}, f64)" for t in tangents]
        primals = "(" + ", ".join(texts) + ("," if n == 1 else "") + ")"
        directions = "(" + ", ".join(ttexts) + ("," if n == 1 else "") + ")"
        seeding = f"seed({seed})" if seed is not None else None

        # jvp: the value and the directional derivative.
        value = fn(*args)
        tangent = directional(fn, args, tangents)
        targs = tuple(torch.tensor(a, dtype=torch.float64) for a in args)
        tdirs = tuple(torch.tensor(t, dtype=torch.float64) for t in tangents)
        _, ref = torch.autograd.functional.jvp(fn_torch, targs, tdirs)
        check("jvp", k, [tangent], [ref.numpy()])
        if seeding:
            lines.append(seeding)
        lines.append(f"print(jvp(f{k}, {primals}, {directions}))")
        expected.append(tuple_text([np.float64(value), np.float64(tangent)]))

        # jvp of grad: the gradient and its derivative along the tangents.
        g = torch_grad(fn_torch)
        hv = directional(lambda *a: np.concatenate(
            [np.ravel(x) for x in g(*a)]), args, tangents)
        _, ref = torch.autograd.functional.hvp(fn_torch, targs, tdirs)
        ref = np.concatenate([np.ravel(r.numpy()) for r in ref])
        check("hvp", k, [hv], [ref])
        sizes = [int(np.prod(s, dtype=np.int64)) for s in shapes]
        pieces = np.split(hv, np.cumsum(sizes)[:-1])
        hv_text = tuple_text([p.reshape(s) for p, s in zip(pieces, shapes)])
        argnums = tuple(range(n))
        # Forward over reverse (through the tapes of the gradient's loops).
        if seeding:
            lines.append(seeding)
        lines.append(f"gk, hk = jvp(grad(f{k}, argnums={argnums}), "
                     f"{primals}, {directions})")
        lines.append("print(hk)")
        expected.append(hv_text)
        # Reverse over forward: the gradient of the directional derivative
        # (H is symmetric, so it is H t too).
        params = ", ".join(f"a{i}" for i in range(n))
        lines.append(f"def d{k}({params}):\n"
                     f"    return jvp(f{k}, ({params}{',' if n == 1 else ''}"
                     f"), {directions})[1]")
        if seeding:
            lines.append(seeding)
        lines.append(f"print(grad(d{k}, argnums={argnums})"
                     f"({', '.join(texts)}))")
        expected.append(hv_text)
        lines.append(source)
    defs = [l for l in lines if l.lstrip().startswith(("def", "@"))]
    calls = [l for l in lines if not l.lstrip().startswith(("def", "@"))]
    write_program(tfl_path, expected_path, defs, calls, expected)


if __name__ == "__main__":
    main()
