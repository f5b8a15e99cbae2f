#!/usr/bin/python3
"""Writes a TFL program of creation and shape built-ins over random
tensors, and NumPy's output for each.

Usage: gen_shape_cases.py OUT.tfl OUT.expected
"""
import sys

import numpy as np

from tflgen import literal

rng = np.random.default_rng(5)




def main():
    tfl_path, expected_path = sys.argv[1:]
    with open(tfl_path, "w") as tfl, open(expected_path, "w") as out:
        def case(code, value):
            tfl.write(f"print({code})\n")
            out.write(str(value) + "\n")

        x = rng.standard_normal((2, 3, 4)).astype(np.float32)
        X = literal(x)
        case(f"shape({X})", x.shape)
        case(f"size({X})", x.size)
        for shape in [(4, 6), (-1,), (3, -1, 2), (24, 1), (1, 2, 1, 12)]:
            case(f"reshape({X}, {shape})", x.reshape(shape))
        case(f"transpose({X})", np.transpose(x))
        for perm in [(1, 0, 2), (2, 0, 1), (0, -1, 1)]:
            case(f"transpose({X}, {perm})", np.transpose(x, perm))
        for axis in [0, 1, 3, -1, -4]:
            case(f"expand_dims({X}, {axis})", np.expand_dims(x, axis))
        y = rng.standard_normal((1, 3, 1)).astype(np.float32)
        case(f"squeeze({literal(y)})", np.squeeze(y))
        case(f"squeeze({literal(y)}, axis=-1)", np.squeeze(y, axis=-1))
        case(f"broadcast_to({literal(y)}, (2, 3, 4))",
             np.broadcast_to(y, (2, 3, 4)))
        a = rng.standard_normal((2, 3)).astype(np.float32)
        b = rng.standard_normal((2, 1)).astype(np.float32)
        c = rng.standard_normal((1, 3)).astype(np.float32)
        A, B, C = literal(a), literal(b), literal(c)
        case(f"concat(({A}, {B}), axis=1)", np.concatenate((a, b), axis=1))
        case(f"concat([{A}, {C}, {A}])", np.concatenate([a, c, a]))
        case(f"concat(({A}, {B}, {A}), -1)", np.concatenate((a, b, a), -1))
        for axis in [0, 1, 2, -1]:
            case(f"stack(({A}, {A}, {A}), axis={axis})",
                 np.stack((a, a, a), axis=axis))
        for reps in [2, (2, 1), (1, 3), (2, 2, 2), (3,), (1, 0)]:
            case(f"tile({A}, {reps})", np.tile(a, reps))
        case(f"tile({literal(x)}, (2, 1, 1))", np.tile(x, (2, 1, 1)))
        case("tile([[1, 2]], (2, 3))", np.tile(np.array([[1, 2]]), (2, 3)))
        case("tile(zeros((0, 2)), 3)", np.tile(np.zeros((0, 2), np.float32), 3))
        case("zeros((2, 0, 3))", np.zeros((2, 0, 3), np.float32))
        case("ones(4, dtype=i64)", np.ones(4, np.int64))
        case("full((2, 3), -1.5)", np.full((2, 3), -1.5, np.float32))
        case("full((3,), 4, dtype=f64)", np.full((3,), 4, np.float64))
        case(f"zeros_like({A})", np.zeros_like(a))
        case(f"ones_like({A})", np.ones_like(a))
        for args in [(7,), (2, 9), (2, 9, 3), (9, 2, -2), (3, 3)]:
            text = ", ".join(map(str, args))
            case(f"arange({text})", np.arange(*args))
        case("eye(3)", np.eye(3, dtype=np.float32))
        case("eye(2, 4)", np.eye(2, 4, dtype=np.float32))
        # Taller than wide, and wide enough for vector loops with a rest
        # (its diagonal compared from indices when it runs).
        case("eye(5, 3)", np.eye(5, 3, dtype=np.float32))
        case("eye(19, 37)", np.eye(19, 37, dtype=np.float32))
        case(f"reshape({X}, shape(transpose({X})))",
             x.reshape(np.transpose(x).shape))


main()
