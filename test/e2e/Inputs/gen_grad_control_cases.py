#!/usr/bin/python3
"""Writes a TFL program differentiating functions with `if`/`elif`/`else`
(nested, in called functions, with early returns, reading values from
outside the branches) and `for` loops (nested, with ifs and calls inside,
reading the loop variable), `while` loops with data-dependent exits, `break`
and `continue`, and a backtracking line search, and the gradients central
finite differences give.
Each function's source is both TFL and Python: the generator runs it with
NumPy standing in for the built-ins.

Usage: gen_grad_control_cases.py OUT.tfl OUT.expected
"""
import sys
import textwrap

import numpy as np

from tflgen import fd, literal

rng = np.random.default_rng(23)

HELPERS = '''
def helper(z, s):
    if s > 0.0:
        return z * s
    return exp(z) - s
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
''', [(2, 2)]),    ('''
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
]

NUMPY = {"exp": np.exp, "log": np.log, "sin": np.sin, "tanh": np.tanh,
         "sum": np.sum, "max": np.max, "min": np.min,
         "cast": lambda v, dtype: np.float64(v), "f64": np.float64}


def main():
    tfl_path, expected_path = sys.argv[1:]
    lines, expected = [textwrap.dedent(HELPERS)], []
    scope = dict(NUMPY)
    exec(textwrap.dedent(HELPERS), scope)
    for k, (source, shapes) in enumerate(CASES):
        source = textwrap.dedent(source).replace("def f(", f"def f{k}(")
        exec(source, scope)
        fn = scope[f"f{k}"]
        for trial in range(2):
            args = [np.asarray(rng.standard_normal(s)) for s in shapes]
            if trial == 1:
                args = [-a for a in args]  # the other branches
            texts = [f"cast({literal(a)}, f64)" for a in args]
            argnums = tuple(range(len(args)))
            lines.append(f"print(grad(f{k}, argnums={argnums})"
                         f"({', '.join(texts)}))")
            grads = [fd(fn, args, i) for i in argnums]
            expected.append("(" + ", ".join(str(g) for g in grads) +
                            (",)" if len(grads) == 1 else ")"))
        lines.append(source)
    # Definitions first: functions see all of them.
    defs = [l for l in lines if l.lstrip().startswith("def")]
    calls = [l for l in lines if not l.lstrip().startswith("def")]
    with open(tfl_path, "w") as out:
        out.write("\n\n".join(defs) + "\n\n" + "\n".join(calls) + "\n")
    with open(expected_path, "w") as out:
        out.write("\n".join(expected) + "\n")


if __name__ == "__main__":
    main()
