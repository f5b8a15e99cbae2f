#!/usr/bin/python3
"""Writes a TFL program of vmaps (see vmap-vs-torch.tfl): functions mapped
over a dim of some arguments (in_axes an int, None or a tuple, out_axes an
int or a tuple), through products of one and of two batched operands,
reductions, reshapes and transposes, slices, nested vmaps, an `if` and a
`while` on values that differ per example and a `for`; per-example
gradients by vmap(grad(f)) (through a `for`, its tape batched, and an
`if`) and the gradient of a sum over a vmap; a vmap of a vmap and a jvp
of a vmap. The reference is a loop over the examples in PyTorch (f64;
torch.func.grad for gradients, checked against central finite
differences), and where the function has no control flow on its values,
torch.func.vmap agrees with it.

Usage: gen_vmap_cases.py OUT.tfl OUT.expected
"""
import sys
import textwrap

import numpy as np
import torch
try:
    from torch.func import grad as tgrad
    from torch.func import jvp as tjvp
    from torch.func import vmap as tvmap
except ImportError:  # PyTorch 1.13 (Debian 12): functorch
    from functorch import grad as tgrad
    from functorch import jvp as tjvp
    from functorch import vmap as tvmap

from tflgen import fd, literal, write_program

rng = np.random.default_rng(43)

TORCH = {"exp": torch.exp, "log": torch.log, "sin": torch.sin,
         "tanh": torch.tanh, "sum": lambda x, axis=None: (
             torch.sum(x) if axis is None else torch.sum(x, dim=axis)),
         "max": lambda x, axis=None: (
             torch.max(x) if axis is None else torch.amax(x, dim=axis)),
         "transpose": lambda x: x.T, "reshape": torch.reshape,
         "f64": torch.float64}

# (source of f, argument shapes, in_axes, out_axes or None, whether
# torch.func.vmap can map it). The mapped dims are 4 long.
CASES = [
    ('''
def f(w, x):
    return tanh(x @ w) + 1.0
''', [(3, 4), (4, 3)], "(None, 0)", None, True),
    ('''
def f(w, x):
    return tanh(x @ w) * 2.0
''', [(3, 4), (4, 3)], "(None, 0)", "1", True),
    ('''
def f(a, b):
    return a @ b
''', [(4, 2, 3), (4, 3, 2)], "0", None, True),
    ('''
def f(x, s):
    return sin(x) * s
''', [(3, 4), ()], "(1, None)", None, True),
    ('''
def f(x):
    e = exp(x - max(x, axis=0))
    return e / sum(e, axis=0)
''', [(4, 3, 2)], "0", None, True),
    ('''
def f(x):
    return transpose(reshape(x, (3, 2))) * x[1:4, 0]
''', [(4, 6, 1)], "0", None, True),
    ('''
def f(x, w):
    return sum(x * w), x @ w
''', [(4, 3), (3,)], "(0, None)", "(0, 0)", True),
    ('''
def f(x):
    if sum(x) > 0.0:
        y = x * 2.0
    else:
        y = -x
    n = 0.0
    while sum(y * y) < 100.0:
        y = y * 1.5
        n = n + 1.0
    for i in range(3):
        y = y + n
    return y
''', [(4, 2)], "0", None, False),
]

# Per-example gradients: (source of a scalar f(w, x), shapes of w and of
# the batch of x).
GRADS = [
    ('''
def loss(w, x):
    h = tanh(x @ w)
    return sum(h * h) + sum(w * w) * 0.1
''', (3, 2), (4, 3)),
    ('''
def loss(w, x):
    y = x
    for i in range(2):
        y = tanh(y @ w)
    if sum(y) > 0.0:
        return sum(y * y)
    return sum(exp(y))
''', (3, 3), (4, 3)),
]


def draw(shape):
    """Values an f32 literal holds exactly."""
    return np.asarray(rng.standard_normal(shape)).astype(
        np.float32).astype(np.float64)


def load(source, name):
    scope = dict(TORCH)
    exec(source, scope)
    return scope[name]


def tensors(args):
    return [torch.tensor(a, dtype=torch.float64) for a in args]


def leaves(v):
    return list(v) if isinstance(v, tuple) else [v]


def text(value):
    """A value (an array or a tuple of them) as TFL prints it."""
    if isinstance(value, (tuple, list)):
        inner = ", ".join(text(v) for v in value)
        return "(" + inner + ("," if len(value) == 1 else "") + ")"
    return str(np.asarray(value))


def looped(fn, args, in_axes, out_axes):
    """fn mapped by a loop over the examples, stacked at out_axes."""
    size = next(a.shape[ax] for a, ax in zip(args, in_axes) if ax is not None)
    outs = []
    for n in range(size):
        ex = [a if ax is None else a.select(ax, n)
              for a, ax in zip(args, in_axes)]
        outs.append(leaves(fn(*ex)))
    return [torch.stack([o[j] for o in outs], dim=ax)
            for j, ax in enumerate(out_axes)]


def main():
    tfl_path, expected_path = sys.argv[1:]
    defs, calls, expected = [], [], []
    for k, (source, shapes, in_axes, out_axes, mappable) in enumerate(CASES):
        source = textwrap.dedent(source).replace("def f(", f"def v{k}(")
        fn = load(source, f"v{k}")
        args = [draw(s) for s in shapes]
        ins = eval(in_axes)
        ins = ins if isinstance(ins, tuple) else (ins,) * len(args)
        outs = eval(out_axes) if out_axes else 0
        n_out = len(leaves(fn(*[t.select(a, 0) if a is not None else t
                                for t, a in zip(tensors(args), ins)])))
        outs = outs if isinstance(outs, tuple) else (outs,) * n_out
        ref = looped(fn, tensors(args), ins, outs)
        if mappable:
            theirs = leaves(tvmap(fn, in_dims=ins, out_dims=outs)(
                *tensors(args)))
            for a, b in zip(ref, theirs):
                if not torch.allclose(a, b, rtol=1e-12, atol=1e-12):
                    sys.exit(f"case {k}: a loop and torch.func.vmap differ")
        texts = ", ".join(f"cast({literal(x)}, f64)" for x in args)
        kw = f", in_axes={in_axes}" + (f", out_axes={out_axes}"
                                       if out_axes else "")
        calls.append(f"print(vmap(v{k}{kw})({texts}))")
        values = [r.numpy() for r in ref]
        expected.append(text(tuple(values) if n_out > 1 else values[0]))
        defs.append(source)
    for k, (source, wshape, xshape) in enumerate(GRADS):
        source = textwrap.dedent(source).replace("def loss(", f"def g{k}(")
        fn = load(source, f"g{k}")
        w, xs = draw(wshape), draw(xshape)
        tw, txs = tensors([w, xs])
        per = torch.stack([tgrad(fn)(tw, x) for x in txs])
        for n in range(xs.shape[0]):
            numeric = fd(lambda a: fn(torch.tensor(a), txs[n]).item(),
                         [w], 0)
            if not np.allclose(numeric, per[n].numpy(), rtol=1e-6,
                               atol=1e-8):
                sys.exit(f"grad case {k}: finite differences and PyTorch "
                         f"differ")
        total = tgrad(lambda a: sum(fn(a, x) for x in txs))(tw)
        wt, xt = f"cast({literal(w)}, f64)", f"cast({literal(xs)}, f64)"
        calls.append(f"print(vmap(grad(g{k}), in_axes=(None, 0))({wt}, {xt}))")
        expected.append(text(per.numpy()))
        calls.append(f"print(grad(lambda w: sum(vmap(g{k}, "
                     f"in_axes=(None, 0))(w, {xt})))({wt}))")
        expected.append(text(total.numpy()))
        defs.append(source)
    # vmap of a vmap (every pair of a batch of matrices' rows with a
    # vector), and jvp of a vmap.
    source = textwrap.dedent('''
    def dot(a, b):
        return sum(sin(a) * b)
    ''')
    fn = load(source, "dot")
    x, v, t = draw((2, 3, 4)), draw((4,)), draw((3, 4))
    tx, tv, tt = tensors([x, v, t])
    nested = torch.stack([torch.stack([fn(row, tv) for row in m])
                          for m in tx])
    texts = f"cast({literal(x)}, f64), cast({literal(v)}, f64)"
    calls.append("print(vmap(vmap(dot, in_axes=(0, None)), "
                 f"in_axes=(0, None))({texts}))")
    expected.append(text(nested.numpy()))
    value, tangent = tjvp(lambda m: tvmap(fn, in_dims=(0, None))(m, tv),
                          (tx[0],), (tt,))
    m0, tl = f"cast({literal(x[0])}, f64)", f"cast({literal(t)}, f64)"
    vl = f"cast({literal(v)}, f64)"
    calls.append(f"print(jvp(lambda m: vmap(dot, in_axes=(0, None))(m, {vl}),"
                 f" ({m0},), ({tl},)))")
    expected.append(text((value.numpy(), tangent.numpy())))
    defs.append(source)
    write_program(tfl_path, expected_path, defs, calls, expected)


if __name__ == "__main__":
    main()
