#!/usr/bin/python3
"""Writes a TFL program taking Jacobians and Hessians (see
jacobian-vs-torch.tfl): jacfwd and jacrev of functions of vectors and
matrices, with respect to one argument or a tuple of them, returning a
tensor or a tuple, through a product, loops with data-dependent exits and
a custom gradient; hessian of scalar functions with loops. The reference
is PyTorch's torch.autograd.functional.jacobian and hessian in f64,
checked here against central finite differences.

Usage: gen_jacobian_cases.py OUT.tfl OUT.expected
"""
import sys
import textwrap

import numpy as np
import torch

from gen_grad_control_cases import HELPERS, NUMPY, TORCH, load
from tflgen import literal, write_program

rng = np.random.default_rng(71)

# (source of f, argument shapes, argnums)
JACOBIANS = [
    ('''
def f(x):
    return sin(x) * x[0]
''', [(3,)], 0),
    ('''
def f(x, w):
    return tanh(x @ w)
''', [(2, 3), (3, 4)], (0, 1)),
    ('''
def f(x):
    for i in range(3):
        x = sin(x) * 1.5 + x
    return x
''', [(4,)], 0),
    ('''
def f(x):
    return sum(x * x), x * 2.0
''', [(3,)], 0),
    ('''
def f(x, w):
    while sum(x * x) < 6.0:
        x = x * 1.3 + w
    return x * w
''', [(2,), (2,)], 1),
    ('''
def f(x):
    for i in range(2):
        x = log1pexp(x) - 0.5
    return x * x
''', [(3,)], 0),
]

# (source of a scalar f, argument shape)
HESSIANS = [
    ('''
def f(x):
    return sum(x * x * x) + sum(sin(x)) * sum(x)
''', (3,)),
    ('''
def f(x):
    for i in range(3):
        x = tanh(x) * 1.2 + x * 0.5
    return sum(x * x)
''', (3,)),
    ('''
def f(x):
    y = x
    while sum(y * y) < 5.0:
        y = y * 1.5 + 0.1
    return sum(exp(y * 0.3))
''', (2,)),
]


def draw(shape):
    """Values an f32 literal holds exactly (`cast(literal, f64)` reads it
    as f32 first)."""
    return np.asarray(rng.standard_normal(shape)).astype(
        np.float32).astype(np.float64)


def flat_outputs(value):
    return list(value) if isinstance(value, tuple) else [value]


def fd_jacobian(fn, args, a, h=1e-6):
    """d fn(*args) / d args[a] by central differences, per output leaf."""
    outs = flat_outputs(fn(*args))
    jac = [np.zeros(np.shape(o) + np.shape(args[a])) for o in outs]
    for k in np.ndindex(np.shape(args[a])):
        up = [np.array(x, dtype=np.float64) for x in args]
        down = [np.array(x, dtype=np.float64) for x in args]
        up[a][k] += h
        down[a][k] -= h
        for j, (u, d) in enumerate(zip(flat_outputs(fn(*up)),
                                       flat_outputs(fn(*down)))):
            jac[j][(...,) + k] = (np.asarray(u) - np.asarray(d)) / (2 * h)
    return jac


def text(value):
    """A value (an array or a tuple of them) as TFL prints it."""
    if isinstance(value, (tuple, list)):
        inner = ", ".join(text(v) for v in value)
        return "(" + inner + ("," if len(value) == 1 else "") + ")"
    return str(np.asarray(value))


def check(k, ours, reference):
    for a, b in zip(ours, reference):
        if not np.allclose(a, b, rtol=1e-6, atol=1e-8):
            sys.exit(f"case {k}: finite differences {a} and PyTorch {b} "
                     f"differ")


def torch_jacobian(fn_torch, args):
    targs = tuple(torch.tensor(x, dtype=torch.float64) for x in args)
    return torch.autograd.functional.jacobian(fn_torch, targs)


def main():
    tfl_path, expected_path = sys.argv[1:]
    defs, calls, expected = [textwrap.dedent(HELPERS)], [], []
    for k, (source, shapes, argnums) in enumerate(JACOBIANS):
        source = textwrap.dedent(source).replace("def f(", f"def j{k}(")
        fn = load(source, NUMPY, f"j{k}")
        fn_torch = load(source, TORCH, f"j{k}")
        args = [draw(s) for s in shapes]
        many = isinstance(argnums, tuple)
        nums = argnums if many else (argnums,)
        ref = torch_jacobian(fn_torch, args)
        # PyTorch: per output (a tuple when several), per input.
        outs = list(ref) if isinstance(ref, tuple) and isinstance(
            ref[0], tuple) else [ref]
        per_input = {a: [o[a].numpy() for o in outs] for a in nums}
        if len(flat_outputs(fn(*args))) == 1:
            per_input = {a: [ref[a].numpy()] for a in nums}
        for a in nums:
            check(k, fd_jacobian(fn, args, a), per_input[a])

        def shaped(a):
            leaves = per_input[a]
            return tuple(leaves) if len(leaves) > 1 else leaves[0]
        value = tuple(shaped(a) for a in nums) if many else shaped(argnums)
        texts = ", ".join(f"cast({literal(x)}, f64)" for x in args)
        for name in ("jacfwd", "jacrev"):
            calls.append(f"print({name}(j{k}, argnums={argnums})({texts}))")
            expected.append(text(value))
        defs.append(source)
    for k, (source, shape) in enumerate(HESSIANS):
        source = textwrap.dedent(source).replace("def f(", f"def h{k}(")
        fn = load(source, NUMPY, f"h{k}")
        fn_torch = load(source, TORCH, f"h{k}")
        x = draw(shape)
        ref = torch.autograd.functional.hessian(
            fn_torch, torch.tensor(x, dtype=torch.float64)).numpy()
        # Finite differences of PyTorch's gradient.
        def grad(v):
            t = torch.tensor(v, dtype=torch.float64, requires_grad=True)
            return torch.autograd.grad(fn_torch(t), t)[0].numpy()
        check(f"hessian {k}", fd_jacobian(grad, [x], 0), [ref])
        calls.append(f"print(hessian(h{k})(cast({literal(x)}, f64)))")
        expected.append(text(ref))
        defs.append(source)
    write_program(tfl_path, expected_path, defs, calls, expected)


if __name__ == "__main__":
    main()
