#!/usr/bin/python3
"""Writes a TFL program taking gradients (grad, in f64) of small functions
of every differentiable built-in at random points, with broadcasting
shapes, and the gradients central finite differences of a NumPy version of
each function give (in f64).

Usage: gen_grad_cases.py OUT.tfl OUT.expected
"""
import math
import sys

import numpy as np

from tflgen import fd, literal, write_case_files

rng = np.random.default_rng(17)


def sigmoid(x):
    return 1 / (1 + np.exp(-x))


def softmax(x, axis=-1):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def logsumexp(x, axis=None):
    m = x.max(axis=axis, keepdims=True)
    return (np.log(np.exp(x - m).sum(axis=axis, keepdims=True)) + m).squeeze(
        axis=axis)


UNARY = {  # TFL expression of x, NumPy function, domain
    "exp(x)": (np.exp, "any"), "log(x)": (np.log, "pos"),
    "log1p(x)": (np.log1p, "pos"), "expm1(x)": (np.expm1, "any"),
    "erf(x)": (np.vectorize(math.erf, otypes=[np.float64]), "any"),
    "sqrt(x)": (np.sqrt, "pos"), "rsqrt(x)": (lambda x: 1 / np.sqrt(x), "pos"),
    "tanh(x)": (np.tanh, "any"), "sigmoid(x)": (sigmoid, "any"),
    "sin(x)": (np.sin, "any"), "cos(x)": (np.cos, "any"),
    "abs(x)": (np.abs, "any"), "square(x)": (np.square, "any"),
    "relu(x)": (lambda x: np.maximum(x, 0), "any"), "-x": (np.negative, "any"),
    "x ** 3": (lambda x: x ** 3, "any"), "2.0 ** x": (lambda x: 2.0 ** x, "any"),
    "x ** 0.5": (np.sqrt, "pos"),
    "softmax(x)": (softmax, "any"), "log_softmax(x)": (
        lambda x: np.log(softmax(x)), "any"),
    "softmax(x, axis=0)": (lambda x: softmax(x, 0), "any"),
    "logsumexp(x, axis=1)": (lambda x: logsumexp(x, 1), "any"),
    "sum(x, axis=0)": (lambda x: x.sum(0), "any"),
    "mean(x)": (np.mean, "any"), "mean(x, axis=-1, keepdims=True)": (
        lambda x: x.mean(-1, keepdims=True), "any"),
    "max(x, axis=1)": (lambda x: x.max(1), "any"),
    "min(x)": (np.min, "any"),
    "prod(x, axis=1)": (lambda x: np.prod(x, axis=1), "any"),
    "prod(x, axis=0, keepdims=True)": (
        lambda x: np.prod(x, axis=0, keepdims=True), "any"),
    "transpose(x)": (np.transpose, "any"),
    "reshape(x, (3, 2))": (lambda x: x.reshape(3, 2), "any"),
    "expand_dims(x, 1)": (lambda x: np.expand_dims(x, 1), "any"),
    "broadcast_to(x, (4, 2, 3))": (
        lambda x: np.broadcast_to(x, (4, 2, 3)), "any"),
    "concat((x, x * 2.0), axis=1)": (
        lambda x: np.concatenate((x, x * 2), axis=1), "any"),
    "stack((x, x), axis=0)": (lambda x: np.stack((x, x)), "any"),
    "tile(x, (2, 1))": (lambda x: np.tile(x, (2, 1)), "any"),
    "clip(x, -0.5, 0.5)": (lambda x: np.clip(x, -0.5, 0.5), "any"),
    "where(x > 0.0, x * 3.0, x * x)": (
        lambda x: np.where(x > 0, x * 3, x * x), "any"),
    "cast(cast(x, f32), f64)": (lambda x: x, "any"),
    "x[1]": (lambda x: x[1], "any"), "x[:, 0]": (lambda x: x[:, 0], "any"),
    "x[::-1, 1:]": (lambda x: x[::-1, 1:], "any"),
    "x[0:2, ::2]": (lambda x: x[0:2, ::2], "any"),
    "x[..., None]": (lambda x: x[..., None], "any"),
    "x[-1, ::-2]": (lambda x: x[-1, ::-2], "any"),
    "gather(x, [1, 0, 1])": (lambda x: x[[1, 0, 1]], "any"),
    "gather(x, [[2, 0], [2, 2]], axis=1)": (
        lambda x: x[:, [[2, 0], [2, 2]]], "any"),
    "stop_gradient(x) * x": (lambda x: None, "stop"),
}

BINARY = {
    "a + b": np.add, "a - b": np.subtract, "a * b": np.multiply,
    "a / b": np.divide, "maximum(a, b)": np.maximum,
    "minimum(a, b)": np.minimum, "pow(a, b)": np.power,
}
SHAPES = [((2, 3), (2, 3)), ((2, 3), (3,)), ((2, 1), (1, 3)), ((), (2, 3))]


def point(shape, domain):
    x = np.asarray(rng.standard_normal(shape), np.float64)
    if domain == "pos":
        x = np.abs(x) + 0.5
    return x


def f64(a):
    return f"cast({literal(np.asarray(a, np.float64))}, f64)"


def main():
    tfl_path, expected_path = sys.argv[1:]
    lines, expected = [], []
    for k, (code, (fn, domain)) in enumerate(UNARY.items()):
        x = point((2, 3), domain)
        out_shape = np.shape(fn(x)) if domain != "stop" else (2, 3)
        w = rng.standard_normal(out_shape)
        lines += [f"def u{k}(x):", f"    return sum(({code}) * {f64(w)})", "",
                  f"print(grad(u{k})({f64(x)}))"]
        if domain == "stop":
            g = x * w  # d/dx of sum(stop(x) * x * w) = x * w
        else:
            g = fd(lambda x: np.sum(fn(x) * w), [x], 0)
        expected.append(str(g))
    for k, (code, fn) in enumerate(BINARY.items()):
        for sa, sb in SHAPES:
            a = point(sa, "pos" if code == "pow(a, b)" else "any")
            b = point(sb, "any")
            w = rng.standard_normal(np.broadcast_shapes(sa, sb))
            name = f"b{k}_{len(sa)}{len(sb)}_{sb[0] if sb else 0}"
            lines += [f"def {name}(a, b):",
                      f"    return sum(({code}) * {f64(w)})", "",
                      f"ga, gb = grad({name}, argnums=(0, 1))"
                      f"({f64(a)}, {f64(b)})", "print(ga)", "print(gb)"]
            f = lambda a, b: np.sum(fn(a, b) * w)
            expected += [str(fd(f, [a, b], 0)), str(fd(f, [a, b], 1))]
    # matmul forms: 2-D, matrix-vector, batched with broadcasting.
    for sa, sb in [((2, 3), (3, 4)), ((2, 3), (3,)), ((2, 2, 3), (3, 4)),
                   ((3,), (3, 2))]:
        a, b = point(sa, "any"), point(sb, "any")
        w = rng.standard_normal(np.matmul(a, b).shape)
        name = f"mm{len(sa)}{len(sb)}"
        lines += [f"def {name}(a, b):", f"    return sum((a @ b) * {f64(w)})", "",
                  f"ga, gb = grad({name}, argnums=(0, 1))({f64(a)}, {f64(b)})",
                  "print(ga)", "print(gb)"]
        f = lambda a, b: np.sum(np.matmul(a, b) * w)
        expected += [str(fd(f, [a, b], 0)), str(fd(f, [a, b], 1))]
    write_case_files(tfl_path, expected_path, lines, expected)


if __name__ == "__main__":
    main()
