#!/usr/bin/python3
"""Writes a TFL program taking the gradient of sum(conv2d(x, w) * c) with
respect to the input and the filter (f32: oneDNN's backward primitives,
and for stride-1 3x3 filters the Winograd kernels (16 or more channels)
and the few-channel ones (1 to 4 input channels)),
of conv layers with a bias (and relu) with respect to the filter and the
bias (compiled, the bias is added by the forward primitive and its
gradient summed by the backward-filter one), and of max and average
pooling, for strides and "valid"/"same" padding, and the gradients
central finite differences of gen_conv_cases.py's NumPy conv2d and
pooling give (in f64).

Usage: gen_grad_conv_cases.py OUT.tfl OUT.expected
"""
import sys

import numpy as np

from gen_conv_cases import conv, pool
from tflgen import fd, literal, write_case_files

rng = np.random.default_rng(29)


def show(lines, expected, **values):
    """Appends lines printing each named value, and the text each prints:
    the whole, or one row of its first dim at a time where the whole would
    print summarized (over 1000 elements)."""
    for name, value in values.items():
        value = value.astype(np.float32)
        if value.size <= 1000:
            lines.append(f"print({name})")
            expected.append(str(value))
            continue
        lines += [f"print({name}[{i}])" for i in range(value.shape[0])]
        expected += [str(row) for row in value]


def main():
    tfl_path, expected_path = sys.argv[1:]
    lines, expected = [], []
    for k, (xs, ws, strides, padding) in enumerate([
            ((2, 5, 5, 2), (3, 3, 2, 3), (1, 1), "valid"),
            ((1, 6, 5, 1), (3, 2, 1, 2), (2, 2), "same"),
            ((2, 4, 4, 3), (1, 1, 3, 2), (1, 2), "same"),
            # Stride-1 3x3 filters with 16 or more channels each side run
            # on the Winograd kernels (sizes off their 4x4 tiles, large
            # enough that each pass takes them; channels off their 16-float
            # vectors), those with 1 to 4 input channels
            # on the few-channel ones.
            ((1, 8, 12, 17), (3, 3, 17, 16), (1, 1), "same"),
            ((2, 12, 8, 16), (3, 3, 16, 18), (1, 1), "valid"),
            ((2, 6, 5, 1), (3, 3, 1, 16), (1, 1), "same")]):
        x = rng.standard_normal(xs).astype(np.float32)
        w = rng.standard_normal(ws).astype(np.float32)
        same = padding == "same"
        c = rng.standard_normal(conv(x, w, strides, same).shape)
        c = c.astype(np.float32)
        lines += [f"def c{k}(x, w):",
                  f"    return sum(conv2d(x, w, strides={strides}, "
                  f'padding="{padding}") * {literal(c)})', "",
                  f"gx, gw = grad(c{k}, argnums=(0, 1))"
                  f"({literal(x)}, {literal(w)})"]
        f = lambda x, w: np.sum(conv(x, w, strides, same) * c)
        show(lines, expected, gx=fd(f, [x, w], 0), gw=fd(f, [x, w], 1))
    # Conv layers: y = conv2d(x, w) + b, and relu(y). x and c are scaled by
    # a run-time 1.0, so that nothing about them is known when compiling.
    lines.append('one = flag("one", 1.0, "a run-time 1.0")')
    for k, (xs, ws, strides, padding, relu) in enumerate([
            ((2, 5, 5, 2), (3, 3, 2, 3), (1, 1), "valid", False),
            ((2, 6, 5, 2), (3, 3, 2, 4), (2, 2), "same", True),
            ((1, 12, 11, 16), (3, 3, 16, 16), (1, 1), "valid", False),
            ((1, 6, 7, 3), (3, 3, 3, 17), (1, 1), "valid", False)]):
        x = rng.standard_normal(xs).astype(np.float32)
        w = rng.standard_normal(ws).astype(np.float32)
        b = rng.standard_normal(ws[3]).astype(np.float32)
        same = padding == "same"
        c = rng.standard_normal(conv(x, w, strides, same).shape)
        c = c.astype(np.float32)
        layer = (f"conv2d(x, w, strides={strides}, "
                 f'padding="{padding}") + b')
        if relu:
            layer = f"relu({layer})"
        lines += [f"def layer{k}(x, w, b):", f"    return {layer}", "",
                  f"def l{k}(w, b, x, c):",
                  f"    return sum(layer{k}(x, w, b) * c)", "",
                  f"xs{k} = {literal(x)} * one",
                  f"cs{k} = {literal(c)} * one",
                  f"print(layer{k}(xs{k}, {literal(w)}, {literal(b)}))",
                  f"gw, gb = grad(l{k}, argnums=(0, 1))"
                  f"({literal(w)}, {literal(b)}, xs{k}, cs{k})"]

        def layer_np(w, b):
            y = conv(x, w, strides, same) + b
            return np.maximum(y, 0) if relu else y
        f = lambda w, b: np.sum(layer_np(w, b) * c)
        expected.append(str(layer_np(w.astype(np.float64),
                                     b.astype(np.float64)).astype(np.float32)))
        show(lines, expected, gw=fd(f, [w, b], 0), gb=fd(f, [w, b], 1))
    for k, (kind, size, strides, padding) in enumerate([
            ("max", (2, 2), (2, 2), "valid"), ("max", (3, 3), (2, 2), "same"),
            ("avg", (2, 3), (1, 2), "valid"), ("avg", (3, 3), (2, 2), "same")]):
        x = rng.standard_normal((2, 5, 6, 2)).astype(np.float32)
        same = padding == "same"
        c = rng.standard_normal(pool(x, size, strides, same, kind).shape)
        c = c.astype(np.float32)
        lines += [f"def p{k}(x):",
                  f"    return sum({kind}_pool2d(x, {size}, strides={strides}, "
                  f'padding="{padding}") * {literal(c)})', "",
                  f"print(grad(p{k})({literal(x)}))"]
        f = lambda x: np.sum(pool(x, size, strides, same, kind) * c)
        expected.append(str(fd(f, [x], 0).astype(np.float32)))
    write_case_files(tfl_path, expected_path, lines, expected)


if __name__ == "__main__":
    main()
