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

# (source of f, argument structures: a shape, or a list of shapes for a
# tuple argument, argnums): Jacobians with respect to trees, and with
# respect to several arguments of a function returning a tuple, nested as
# JAX nests them (the value's tree outside, the arguments' inside).
TREES = [
    ('''
def f(p, x):
    w, b = p
    return tanh(x @ w + b)
''', [[(3, 2), (2,)], (4, 3)], 0),
    ('''
def f(x, y):
    return x * y, sum(sin(x)) * y[0]
''', [(3,), (3,)], (0, 1)),
    ('''
def f(p, x):
    w, b = p
    for i in range(2):
        x = tanh(x @ w + b)
    return sum(x * x), x
''', [[(2, 2), (2,)], (3, 2)], (0, 1)),
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


def tree_case(k, source, structure, argnums, calls, expected):
    """jacfwd and jacrev of t<k> with respect to tuples of tensors."""
    fn = load(source, NUMPY, f"t{k}")
    fn_torch = load(source, TORCH, f"t{k}")
    # The arguments' leaves, and the function of them all.
    shapes = [s for a in structure
              for s in (a if isinstance(a, list) else [a])]
    leaves = [draw(s) for s in shapes]

    def rebuild(flat):
        out, i = [], 0
        for a in structure:
            n = len(a) if isinstance(a, list) else 1
            out.append(tuple(flat[i:i + n]) if isinstance(a, list)
                       else flat[i])
            i += n
        return out
    ref = torch_jacobian(lambda *t: fn_torch(*rebuild(list(t))), leaves)
    value = fn(*rebuild(leaves))
    outs = flat_outputs(value)
    # ref[j][i]: output leaf j, input leaf i (PyTorch's nesting).
    if not isinstance(value, tuple):
        ref = (ref,)
    nums = argnums if isinstance(argnums, tuple) else (argnums,)
    firsts = np.cumsum([0] + [len(a) if isinstance(a, list) else 1
                              for a in structure])
    for i in range(len(leaves)):
        fd = fd_jacobian(lambda *a: fn(*rebuild(list(a))), leaves, i)
        check(f"tree {k}", fd, [ref[j][i].numpy() for j in range(len(outs))])

    def per_argument(j, a):
        block = [ref[j][i].numpy() for i in range(firsts[a], firsts[a + 1])]
        return tuple(block) if isinstance(structure[a], list) else block[0]

    def per_output(j):
        if isinstance(argnums, tuple):
            return tuple(per_argument(j, a) for a in nums)
        return per_argument(j, argnums)
    result = (tuple(per_output(j) for j in range(len(outs)))
              if isinstance(value, tuple) else per_output(0))
    texts = []
    for a in rebuild(leaves):
        if isinstance(a, tuple):
            texts.append("(" + ", ".join(f"cast({literal(x)}, f64)"
                                         for x in a) + ")")
        else:
            texts.append(f"cast({literal(a)}, f64)")
    for name in ("jacfwd", "jacrev"):
        calls.append(f"print({name}(t{k}, argnums={argnums})"
                     f"({', '.join(texts)}))")
        expected.append(text(result))


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
    for k, (source, structure, argnums) in enumerate(TREES):
        source = textwrap.dedent(source).replace("def f(", f"def t{k}(")
        defs.append(source)
        tree_case(k, source, structure, argnums, calls, expected)
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
