#!/usr/bin/python3
"""Writes a TFL program of conv2d (alone, and with a bias and relu),
max_pool2d and avg_pool2d calls on random NHWC tensors (strides, "valid"
and "same" padding, odd sizes, size-1 dims, windows as large as the
input), and what NumPy computes for each with a direct implementation of
TensorFlow's definitions (in float64).

Usage: gen_conv_cases.py OUT.tfl OUT.expected
"""
import sys

import numpy as np

from tflgen import literal

rng = np.random.default_rng(3)


def pads(in_size, k, s, same):
    """TensorFlow's padding (before, after) and output size."""
    if not same:
        return 0, 0, (in_size - k) // s + 1
    out = -(-in_size // s)
    total = max((out - 1) * s + k - in_size, 0)
    return total // 2, total - total // 2, out


def windows(x, k, s, same, fill):
    """Every window of x: an array (n, oh, ow, kh, kw, c), padded with
    `fill`, and its (before, after) paddings."""
    t, b, oh = pads(x.shape[1], k[0], s[0], same)
    l, r, ow = pads(x.shape[2], k[1], s[1], same)
    xp = np.pad(x, ((0, 0), (t, b), (l, r), (0, 0)), constant_values=fill)
    out = np.empty((x.shape[0], oh, ow, k[0], k[1], x.shape[3]), x.dtype)
    for i in range(oh):
        for j in range(ow):
            out[:, i, j] = xp[:, i * s[0]:i * s[0] + k[0],
                              j * s[1]:j * s[1] + k[1], :]
    return out


def conv(x, w, s, same):
    win = windows(x.astype(np.float64), w.shape[:2], s, same, 0.0)
    return np.einsum("nhwabc,abco->nhwo", win, w.astype(np.float64))


def pool(x, k, s, same, kind):
    if kind == "max":
        return windows(x, k, s, same, -np.inf).max(axis=(3, 4))
    ones = np.ones_like(x[..., :1])
    total = windows(x.astype(np.float64), k, s, same, 0.0).sum(axis=(3, 4))
    count = windows(ones.astype(np.float64), k, s, same, 0.0).sum(axis=(3, 4))
    return total / count


def main():
    tfl_path, expected_path = sys.argv[1:]
    with open(tfl_path, "w") as tfl, open(expected_path, "w") as out:
        def case(code, value):
            tfl.write(f"print({code})\n")
            out.write(str(value.astype(np.float32)) + "\n")

        for xs, ws, strides in [((2, 7, 6, 3), (3, 3, 3, 4), (1, 1)),
                                ((1, 8, 8, 2), (5, 3, 2, 3), (2, 3)),
                                ((3, 5, 5, 1), (5, 5, 1, 2), (1, 1)),
                                ((1, 4, 9, 2), (1, 1, 2, 5), (2, 2)),
                                # The Winograd kernels' (stride 1, 3x3,
                                # 16 or more channels each side, images
                                # large enough for their tiles) and the
                                # few-channel ones' (1 to 4 in).
                                ((1, 12, 11, 20), (3, 3, 20, 17), (1, 1)),
                                # (16 and 16: their compiled-in case)
                                ((2, 11, 12, 16), (3, 3, 16, 16), (1, 1)),
                                ((1, 8, 7, 3), (3, 3, 3, 16), (1, 1))]:
            x = rng.standard_normal(xs).astype(np.float32)
            w = rng.standard_normal(ws).astype(np.float32)
            for padding in ("valid", "same"):
                s = f"({strides[0]}, {strides[1]})"
                case(f"conv2d({literal(x)}, {literal(w)}, strides={s}, "
                     f'padding="{padding}")',
                     conv(x, w, strides, padding == "same"))
            # A bias and relu, which compiled code folds into the
            # convolution's call: negatives become 0, a NaN bias's channel
            # stays NaN. The bias is built first, by concat (a buffer of
            # its own, as a layer's parameter is), and the input is new (a
            # constant like the filter), so that nothing comes between the
            # convolution and its bias.
            b = rng.standard_normal(ws[3]).astype(np.float32)
            tfl.write(f"bias = concat(({literal(b[:-1])}, "
                      "reshape(0.0 / 0.0, (1,))))\n")
            b[-1] = np.nan
            x = rng.standard_normal(xs).astype(np.float32)
            case(f"relu(conv2d({literal(x)}, {literal(w)}, strides={s}, "
                 'padding="same") + bias)',
                 np.maximum(conv(x, w, strides, True) + b, 0.0))
        # Infinities and a NaN in the input of the Winograd kernels: each
        # output is the direct convolution's (an infinity or NaN where its
        # window holds one, its finite value elsewhere), not NaN over the
        # 4x4 tiles that read them; relu keeps NaN and makes -inf 0.
        x = rng.standard_normal((1, 12, 11, 16)).astype(np.float32)
        w = rng.standard_normal((3, 3, 16, 16)).astype(np.float32)
        b = rng.standard_normal(16).astype(np.float32)
        marks = np.zeros(x.shape, np.float32)
        marks[0, 5, 6, 3], marks[0, 9, 0, 15], marks[0, 1, 10, 7] = 1, 2, 3
        bad = x.copy()
        bad[marks == 1], bad[marks == 2], bad[marks == 3] = np.inf, -np.inf, np.nan
        tfl.write(f"marks = {literal(marks)}\n"
                  f"bad = where(marks == 1.0, 1.0 / 0.0, where(marks == 2.0, "
                  f"-1.0 / 0.0, where(marks == 3.0, 0.0 / 0.0, "
                  f"{literal(x)})))\n")
        for padding in ("valid", "same"):
            same = padding == "same"
            case(f'conv2d(bad, {literal(w)}, padding="{padding}")',
                 conv(bad, w, (1, 1), same))
            with np.errstate(invalid="ignore"):
                case(f'relu(conv2d(bad, {literal(w)}, padding="{padding}") + '
                     f"{literal(b)})",
                     np.maximum(conv(bad, w, (1, 1), same) + b, 0.0))
        x = rng.standard_normal((2, 7, 6, 3)).astype(np.float32)
        for kind in ("max", "avg"):
            for size, strides in [((2, 2), None), ((3, 3), (2, 2)),
                                  ((3, 2), (1, 2)), ((7, 6), None)]:
                for padding in ("valid", "same"):
                    s = strides or size
                    stride_arg = f", strides={strides}" if strides else ""
                    case(f"{kind}_pool2d({literal(x)}, {size}{stride_arg}, "
                         f'padding="{padding}")',
                         pool(x, size, s, padding == "same", kind))
        case(f"max_pool2d({literal(x)}, 1)", x)
        # No input channels: every sum is empty, so the output is 0, or
        # the bias (relu'd) where one is added, as a product over K = 0
        # is; the bias's gradient is still the sum of dy over positions.
        b = rng.standard_normal(3).astype(np.float32)
        tfl.write(f"b0 = {literal(b)}\n")
        empty = "zeros((2, 5, 4, 0)), zeros((3, 3, 0, 3))"
        for padding, oh, ow in (("valid", 3, 2), ("same", 5, 4)):
            case(f'conv2d({empty}, padding="{padding}")',
                 np.zeros((2, oh, ow, 3)))
        case(f'relu(conv2d({empty}, padding="same") + b0)',
             np.broadcast_to(np.maximum(b, 0.0), (2, 5, 4, 3)))
        # With the filter's (empty) gradient used too, compiled code has
        # the bias's from the filter gradient's call.
        tfl.write('g0 = grad(lambda w, b: sum(relu(conv2d(zeros((2, 5, 4, '
                  '0)), w, padding="same") + b) * 3.0), argnums=(0, 1))'
                  "(zeros((3, 3, 0, 3)), b0)\n")
        case("sum(g0[0])", np.float32(0.0))
        case("g0[1]", 3.0 * 40 * (b > 0))


if __name__ == "__main__":
    main()
