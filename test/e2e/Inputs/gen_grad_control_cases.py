#!/usr/bin/python3
"""Writes a TFL program differentiating functions with control flow (see
grad-control-vs-fd.tfl), the gradients central finite differences give, and
those PyTorch's autograd gives.
Each function's source is both TFL and Python: the generator runs it with
NumPy, then with PyTorch, standing in for the built-ins (random draws come
from an independent Philox generator, philox.py, seeded as TFL's is), and
stops when the two references disagree (a point too close to a jump).

Usage: gen_grad_control_cases.py OUT.tfl OUT.expected OUT.torch
"""
import sys
import textwrap

import numpy as np
import torch

from philox import Generator
from tflgen import fd, literal, tuple_text

rng = np.random.default_rng(23)

HELPERS = '''
def helper(z, s):
    if s > 0.0:
        return z * s
    return exp(z) - s


def smooth(v, w):
    for k in range(3):
        v = v + 0.3 * sin(v * w)
    return v


@custom_gradient
def log1pexp(x):
    e = exp(x)

    def grad_fn(dy):
        return dy * (1.0 - 1.0 / (1.0 + e))

    return log(1.0 + e), grad_fn


def dropout(x, rate):
    keep = cast(random_uniform((4,), dtype=f64) >= rate, f64)
    return x * keep / (1.0 - rate)
'''

CASES = [
    ('''
def f(x):
    if sum(x) > 0.0:
        y = x * x
    else:
        y = sin(x)
    return sum(y * 3.0)
''', [(3,)]),
    ('''
def f(x, w):
    t = tanh(x @ w)
    if max(t) > 0.5:
        t = t * 2.0
    elif min(t) < -0.5:
        t = t - x @ w
    else:
        t = t * t
    return sum(t)
''', [(2, 3), (3, 2)]),
    ('''
def f(a, b):
    c = a * b
    if sum(a) > sum(b):
        if sum(c) > 0.0:
            return sum(c * a)
        c = c + b
    return sum(log(1.0 + c * c))
''', [(4,), (4,)]),
    ('''
def f(x, s):
    return sum(helper(x, s)) + sum(helper(x * 0.5, -s))
''', [(3,), ()]),
    ('''
def f(x):
    y = x
    if sum(x) > 100.0:
        y = x * 0.0
    return sum(y * x)
''', [(2, 2)]),
    ('''
def f(x, w):
    for i in range(4):
        x = tanh(x * w) + x * 0.5
    return sum(x)
''', [(3,), ()]),
    ('''
def f(x, w):
    acc = x * 0.0
    for i in range(3):
        for j in range(2):
            acc = acc + sin(x * w + cast(j, f64))
        if sum(acc) > 0.0:
            acc = acc * 0.5
        x = x + acc * w
    return sum(x * x)
''', [(2,), ()]),
    ('''
def f(x, s):
    total = 0.0
    for i in range(3):
        total = total + sum(helper(x, s)) * cast(i + 1, f64)
    return total
''', [(3,), ()]),
    ('''
def f(w):
    for k in range(5):
        w = w - 0.1 * (w * w - 2.0)
    return sum(w)
''', [(2,)]),
    ('''
def f(x):
    unused = x
    for i in range(3):
        unused = unused * 2.0
    for row in x:
        x = x + row * 0.5
    return sum(x * x)
''', [(2, 2)]),
    ('''
def f(x, w):
    while sum(x * x) < 20.0:
        x = x * 1.5 + w
    return sum(x * w)
''', [(2,), (2,)]),
    ('''
def f(x):
    for i in range(10):
        x = sin(x) + x * 1.2
        if sum(x) > 4.0:
            break
        if sum(x) < -4.0:
            continue
        x = x * 0.9
    return sum(x)
''', [(2,)]),
    ('''
def f(w, x):
    step = 1.0
    value = sum((w * x - 1.0) * (w * x - 1.0))
    g = x * 2.0 * (w * x - 1.0)
    while sum(((w - step * g) * x - 1.0) * ((w - step * g) * x - 1.0)) > value - 0.5 * step * sum(g * g):
        step = step * 0.5
    w = w - step * g
    return sum((w * x - 1.0) * (w * x - 1.0) * x)
''', [(2,), (2,)]),
    ('''
def f(x, w):
    return sum(smooth(x, w) * smooth(x * 0.5, w))
''', [(3,), ()]),
    ('''
def f(x, w):
    n = 0
    while sum(x * x) < 10.0 and n < 20:
        x = helper(x, w) + 0.5
        n = n + 1
    return sum(x)
''', [(2,), ()]),
    ('''
def f(x, w):
    for i in range(3):
        x = log1pexp(x * w) - 0.5
    return sum(x * x)
''', [(3,), ()]),
    ('''
def f(x):
    for i in range(3):
        while sum(x * x) < 4.0 * cast(i + 1, f64):
            x = x * 1.3 + 0.1
    return sum(x)
''', [(2,)]),
    ('''
def f(x, w):
    for i in range(3):
        for j in range(5):
            x = tanh(x * w) + x
            if max(x) > 2.0:
                break
    return sum(x * w)
''', [(2,), ()]),
    ('''
def f(x):
    k = 0
    while k < 6:
        k = k + 1
        if k % 2 == 0:
            continue
        x = sin(x) * 1.1 + x
    return sum(x)
''', [(3,)]),
    ('''
def f(W, xs):
    h = xs[0] * 0.0
    for row in xs:
        h = tanh(W @ h + row)
    return sum(h * h)
''', [(3, 3), (4, 3)]),
    ('''
def f(x):
    for i in range(5):
        x = x * 1.5 + 0.2
        if sum(x) > 3.0:
            return sum(x * x)
    return sum(x)
''', [(2,)]),
    ('''
def f(a, b):
    while sum(a) < 5.0:
        a, b = a + b * b, b * 0.9 + 0.2
    return sum(a * b)
''', [(2,), (2,)]),
    ('''
def f(x, w):
    total = 0.0
    for row in x:
        if sum(row) > 0.0:
            total = total + sum(smooth(row, w))
        else:
            total = total + sum(log1pexp(row) * w)
    return total
''', [(3, 2), ()]),
    ('''
def f(x, w):
    for i in range(3):
        m = cast(random_uniform((3,), dtype=f64) > 0.3, f64)
        x = tanh(x * w * m + random_normal((3,), dtype=f64) * 0.1)
    return sum(x * x)
''', [(3,), ()], 11),
    ('''
def f(x):
    if sum(x) > 0.0:
        y = x * random_uniform((3,), dtype=f64)
    else:
        y = x * x * random_normal((3,), dtype=f64)
    return sum(sin(y))
''', [(3,)], 12),
    ('''
def f(x, w):
    k = 0
    while k < 3:
        x = tanh(dropout(x, 0.25) * w)
        k = k + 1
    return sum(x)
''', [(4,), ()], 13),
    ('''
def f(x):
    y = x * 0.0
    while sum(y) < 3.0:
        y = y + random_uniform((2,), dtype=f64) * x * x + 0.5
    return sum(y * x)
''', [(2,)], 14),
]

GENERATOR = Generator()


def draw(kind, shape, dtype):
    """One draw of TFL's generator."""
    n = int(np.prod(shape, dtype=np.int64))
    dtype = np.float64 if dtype in (np.float64, torch.float64) else np.float32
    numbers = (GENERATOR.uniform(n, dtype) if kind == "uniform"
               else GENERATOR.normal(n, dtype))
    return numbers.reshape(shape)


def custom_gradient(fn):
    """The primal alone: the references differentiate what it computes (the
    custom rules of these tests are exact)."""
    return lambda *args: fn(*args)[0]


NUMPY = {"exp": np.exp, "log": np.log, "sin": np.sin, "tanh": np.tanh,
         "sum": np.sum, "max": np.max, "min": np.min,
         "cast": lambda v, dtype: np.asarray(v, dtype=np.float64),
         "f64": np.float64, "custom_gradient": custom_gradient,
         "random_uniform": lambda shape, dtype=None: draw("uniform", shape,
                                                          dtype),
         "random_normal": lambda shape, dtype=None: draw("normal", shape,
                                                        dtype)}

TORCH = {"exp": torch.exp, "log": torch.log, "sin": torch.sin,
         "tanh": torch.tanh, "sum": torch.sum, "max": torch.max,
         "min": torch.min,
         "cast": lambda v, dtype: torch.as_tensor(v, dtype=torch.float64),
         "f64": torch.float64, "custom_gradient": custom_gradient,
         "random_uniform": lambda shape, dtype=None:
         torch.from_numpy(draw("uniform", shape, dtype)),
         "random_normal": lambda shape, dtype=None:
         torch.from_numpy(draw("normal", shape, dtype))}


def load(source, env, name):
    """`name` from `source` (and the helpers) run with `env`'s built-ins."""
    scope = dict(env)
    exec(textwrap.dedent(HELPERS), scope)
    exec(source, scope)
    return scope[name]


def seeded(fn, seed):
    """`fn`, each call starting from TFL's generator after `seed(seed)`."""
    if seed is None:
        return fn

    def run(*args):
        GENERATOR.seed(seed)
        return fn(*args)
    return run


def torch_grads(fn, args):
    """PyTorch's gradients of `fn` at `args`, in float64."""
    leaves = [torch.tensor(a, dtype=torch.float64, requires_grad=True)
              for a in args]
    fn(*leaves).backward()
    return [np.zeros(np.shape(a)) if t.grad is None else t.grad.numpy()
            for a, t in zip(args, leaves)]


def main():
    tfl_path, expected_path, torch_path = sys.argv[1:]
    lines, expected, expected_torch = [textwrap.dedent(HELPERS)], [], []
    for k, (source, shapes, *options) in enumerate(CASES):
        seed = options[0] if options else None
        source = textwrap.dedent(source).replace("def f(", f"def f{k}(")
        fn = seeded(load(source, NUMPY, f"f{k}"), seed)
        fn_torch = seeded(load(source, TORCH, f"f{k}"), seed)
        for trial in range(2):
            args = [np.asarray(rng.standard_normal(s)) for s in shapes]
            if trial == 1:
                args = [-a for a in args]  # the other branches
            texts = [f"cast({literal(a)}, f64)" for a in args]
            argnums = tuple(range(len(args)))
            if seed is not None:
                lines.append(f"seed({seed})")
            lines.append(f"print(grad(f{k}, argnums={argnums})"
                         f"({', '.join(texts)}))")
            grads = [fd(fn, args, i) for i in argnums]
            reference = torch_grads(fn_torch, args)
            # The two references agree, or the point is too close to a
            # jump of a condition for finite differences.
            for g, r in zip(grads, reference):
                if not np.allclose(g, r, rtol=1e-6, atol=1e-8):
                    sys.exit(f"case {k}: finite differences {g} and "
                             f"PyTorch {r} differ")
            expected.append(tuple_text(grads))
            expected_torch.append(tuple_text(reference))
        lines.append(source)
    # Definitions first: functions see all of them.
    defs = [l for l in lines if l.lstrip().startswith("def")]
    calls = [l for l in lines if not l.lstrip().startswith("def")]
    with open(tfl_path, "w") as out:
        out.write("\n\n".join(defs) + "\n\n" + "\n".join(calls) + "\n")
    for path, text in ((expected_path, expected),
                       (torch_path, expected_torch)):
        with open(path, "w") as out:
            out.write("\n".join(text) + "\n")


if __name__ == "__main__":
    main()
