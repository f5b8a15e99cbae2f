#!/usr/bin/python3
"""Writes a TFL program taking vjp(f, *primals) and linearize(f, *primals)
(see vjp-vs-torch.tfl): for each program of grad-control-vs-fd.tfl (its
CASES: ifs, for and while loops with data-dependent exits, break and
continue, calls, custom gradients, random draws), the value, vjp_fn on a
random cotangent and the linearized function on random tangents, each
called after the generator has moved on (a random draw between), so that
the draws f makes again must be the value's; and for functions of
matrices returning tensors or tuples (gen_jacobian_cases.py's), the same
with cotangents and tangents of the results' trees. The references:
PyTorch's torch.autograd.functional.vjp and jvp in f64, which must agree
with central finite differences of <f(x), cotangent> and of f along the
tangents.

Usage: gen_vjp_cases.py OUT.tfl OUT.expected
"""
import sys
import textwrap

import numpy as np
import torch

from gen_grad_control_cases import CASES, HELPERS, NUMPY, TORCH, load, seeded
from gen_jacobian_cases import JACOBIANS, draw
from gen_jacobian_cases import flat_outputs as leaves
from tflgen import literal, tuple_text, write_program


def text(value):
    """A value (an array or a tuple of them) as TFL prints it."""
    if isinstance(value, (tuple, list)):
        return tuple_text([np.asarray(v) for v in value])
    return str(np.asarray(value))


def tfl_tree(values, single):
    """TFL source for f64 values: one, or a tuple of them."""
    texts = [f"cast({literal(np.asarray(v))}, f64)" for v in values]
    if single:
        return texts[0]
    return "(" + ", ".join(texts) + ("," if len(texts) == 1 else "") + ")"


def fd_vjp(fn, args, cotangents, h=1e-6):
    """The gradient of <fn(args), cotangents> by central differences."""
    def inner(*a):
        return sum(np.sum(np.asarray(o) * c)
                   for o, c in zip(leaves(fn(*a)), cotangents))
    out = []
    for i, a in enumerate(args):
        g = np.zeros(np.shape(a))
        for k in np.ndindex(np.shape(a)):
            up = [np.array(x, dtype=np.float64) for x in args]
            down = [np.array(x, dtype=np.float64) for x in args]
            up[i][k] += h
            down[i][k] -= h
            g[k] = (inner(*up) - inner(*down)) / (2 * h)
        out.append(g)
    return out


def fd_jvp(fn, args, tangents, h=1e-6):
    """d/de fn(args + e * tangents) at 0, per result leaf."""
    up = [a + h * t for a, t in zip(args, tangents)]
    down = [a - h * t for a, t in zip(args, tangents)]
    return [(np.asarray(u) - np.asarray(d)) / (2 * h)
            for u, d in zip(leaves(fn(*up)), leaves(fn(*down)))]


def check(name, k, ours, reference):
    for a, b in zip(ours, reference):
        if not np.allclose(a, b, rtol=1e-6, atol=1e-8):
            sys.exit(f"case {k}: {name}: finite differences {ours} and "
                     f"PyTorch {reference} differ")


def as_torch(values):
    return tuple(torch.tensor(np.asarray(v), dtype=torch.float64)
                 for v in values)


def add_case(name, fn, fn_torch, shapes, seed, lines, expected):
    """The lines testing vjp and linearize of `name`, and their output."""
    args = [draw(s) for s in shapes]
    value = fn(*args)
    single = not isinstance(value, tuple)
    cotangents = [draw(np.shape(v)) for v in leaves(value)]
    tangents = [draw(s) for s in shapes]
    ct_torch = as_torch(cotangents)
    _, ref_vjp = torch.autograd.functional.vjp(
        fn_torch, as_torch(args), ct_torch[0] if single else ct_torch)
    ref_vjp = [r.numpy() for r in leaves(ref_vjp)]
    check("vjp", name, fd_vjp(fn, args, cotangents), ref_vjp)
    _, ref_jvp = torch.autograd.functional.jvp(
        fn_torch, as_torch(args), as_torch(tangents))
    ref_jvp = [r.numpy() for r in leaves(ref_jvp)]
    check("jvp", name, fd_jvp(fn, args, tangents), ref_jvp)

    primals = ", ".join(tfl_tree([a], True) for a in args)
    if seed is not None:
        lines.append(f"seed({seed})")
    lines.append(f"y, pullback = vjp({name}, {primals})")
    # The generator moves on before vjp_fn runs f again.
    lines.append("moved = random_uniform((3,))")
    lines.append("print(y)")
    expected.append(text(value))
    lines.append(f"print(pullback({tfl_tree(cotangents, single)}))")
    expected.append(tuple_text(ref_vjp))
    if seed is not None:
        lines.append(f"seed({seed})")
    lines.append(f"y, linear = linearize({name}, {primals})")
    lines.append("moved = random_uniform((3,))")
    lines.append(f"print(linear({', '.join(tfl_tree([t], True) for t in tangents)}))")
    expected.append(text(ref_jvp[0] if single else tuple(ref_jvp)))


def main():
    tfl_path, expected_path = sys.argv[1:]
    defs, lines, expected = [textwrap.dedent(HELPERS)], [], []
    for k, (source, shapes, *options) in enumerate(CASES):
        seed = options[0] if options else None
        source = textwrap.dedent(source).replace("def f(", f"def f{k}(")
        fn = seeded(load(source, NUMPY, f"f{k}"), seed)
        fn_torch = seeded(load(source, TORCH, f"f{k}"), seed)
        add_case(f"f{k}", fn, fn_torch, shapes, seed, lines, expected)
        defs.append(source)
    for k, (source, shapes, _) in enumerate(JACOBIANS):
        source = textwrap.dedent(source).replace("def f(", f"def j{k}(")
        add_case(f"j{k}", load(source, NUMPY, f"j{k}"),
                 load(source, TORCH, f"j{k}"), shapes, None, lines, expected)
        defs.append(source)
    write_program(tfl_path, expected_path, defs, lines, expected)


if __name__ == "__main__":
    main()
