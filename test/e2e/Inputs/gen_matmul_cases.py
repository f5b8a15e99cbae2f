#!/usr/bin/python3
"""Writes a TFL program of matmuls in NumPy's forms (1-D operands, batch
dims broadcast, integers), and of transposed operands (which compiled
code hands to GEMM with transpose flags, and eager mode reads in place),
and NumPy's output for each.

Usage: gen_matmul_cases.py OUT.tfl OUT.expected
"""
import sys

import numpy as np

from tflgen import literal

rng = np.random.default_rng(9)
PAIRS = [((3,), (3, 4)), ((2, 3), (3,)), ((3,), (3,)), ((2, 3), (3, 4)),
         ((5, 2, 3), (3, 4)), ((2, 3), (4, 3, 5)), ((2, 1, 2, 3), (3, 3, 2)),
         ((4, 2, 3), (4, 3, 1))]




def main():
    tfl_path, expected_path = sys.argv[1:]
    with open(tfl_path, "w") as tfl, open(expected_path, "w") as out:
        for sa, sb in PAIRS:
            a = rng.standard_normal(sa).astype(np.float32)
            b = rng.standard_normal(sb).astype(np.float32)
            tfl.write(f"print({literal(a)} @ {literal(b)})\n")
            out.write(str(a @ b) + "\n")
            tfl.write(f"print(matmul(cast({literal(a)}, f64), "
                      f"cast({literal(b)}, f64)))\n")
            out.write(str(a.astype(np.float64) @ b.astype(np.float64)) + "\n")
        # Transposed operands, with unit dims among M, K and N. The stored
        # operands are variables scaled by a flag's 1.0, and printed too:
        # no transpose folds into a constant at compile time or into the
        # loop that computes its operand.
        tfl.write('one = flag("one", 1.0, "a run-time 1.0")\n')
        for m, k, n in [(2, 3, 4), (1, 5, 3), (4, 1, 2), (3, 4, 1)]:
            for dtype in (np.float32, np.float64):
                at = rng.standard_normal((k, m)).astype(dtype)
                a = np.ascontiguousarray(at.T)
                bt = rng.standard_normal((n, k)).astype(dtype)
                b = np.ascontiguousarray(bt.T)
                for name, value in [("a", a), ("at", at), ("b", b),
                                    ("bt", bt)]:
                    if dtype == np.float32:
                        tfl.write(f"{name} = {literal(value)} * one\n")
                    else:
                        tfl.write(f"{name} = cast({literal(value)}, f64) * "
                                  "cast(one, f64)\n")
                    tfl.write(f"print({name})\n")
                    out.write(str(value) + "\n")
                for expr, value in [("transpose(at) @ b", at.T @ b),
                                    ("a @ bt.T", a @ bt.T),
                                    ("transpose(at) @ transpose(bt)",
                                     at.T @ bt.T)]:
                    tfl.write(f"print({expr})\n")
                    out.write(str(value) + "\n")
        # Batched, each product's last two dims swapped.
        at = rng.standard_normal((3, 4, 2)).astype(np.float32)
        bt = rng.standard_normal((3, 5, 4)).astype(np.float32)
        tfl.write(f"at = {literal(at)} * one\nprint(at)\n")
        tfl.write(f"bt = {literal(bt)} * one\nprint(bt)\n")
        out.write(f"{at}\n{bt}\n")
        for expr, value in [
                ("transpose(at, (0, 2, 1)) @ transpose(bt, (0, 2, 1))",
                 at.transpose(0, 2, 1) @ bt.transpose(0, 2, 1)),
                ("transpose(at, (0, 2, 1)) @ at",
                 at.transpose(0, 2, 1) @ at)]:
            tfl.write(f"print({expr})\n")
            out.write(str(value) + "\n")
        a = rng.integers(-5, 5, (2, 3))
        b = rng.integers(-5, 5, (3, 2))
        tfl.write(f"print({literal(a)} @ {literal(b)})\n")
        out.write(str(a @ b) + "\n")
        # Integer products of transposed operands (which eager mode reads in
        # place, as it does floats'), 2-D and batched.
        ai = rng.integers(-5, 5, (4, 3))
        bi = rng.integers(-5, 5, (2, 5, 4))
        tfl.write(f"ai = {literal(ai)}\nbi = {literal(bi)}\n")
        for expr, value in [("transpose(ai) @ ai", ai.T @ ai),
                            ("ai @ transpose(ai)", ai @ ai.T),
                            ("transpose(bi, (0, 2, 1)) @ bi",
                             bi.transpose(0, 2, 1) @ bi),
                            ("bi @ transpose(bi, (0, 2, 1))",
                             bi @ bi.transpose(0, 2, 1))]:
            tfl.write(f"print({expr})\n")
            out.write(str(value) + "\n")
        loops(tfl, out)


def loops(tfl, out):
    """Products in loops whose transposed left operand the loop reads
    unchanged (compiled code copies it once before the loop instead of
    passing a transpose flag), next to ones that the loop changes."""
    w = rng.standard_normal((4, 4)).astype(np.float32)
    v = rng.standard_normal((4, 4)).astype(np.float32)
    y0 = rng.standard_normal((4, 3)).astype(np.float32)
    wb = rng.standard_normal((2, 4, 4)).astype(np.float32)
    tfl.write(f"w = {literal(w)} * one\nv = {literal(v)} * one\n"
              f"y0 = {literal(y0)} * one\nwb = {literal(wb)} * one\n")
    # w is the same in every iteration, v changes in each.
    tfl.write("y = y0\nu = v\nfor i in range(3):\n"
              "    y = transpose(w) @ y * 0.5 + transpose(u) @ y0\n"
              "    u = u * 0.75\n"
              "print(y)\n")
    y, u = y0, v
    for _ in range(3):
        y = w.T @ y * np.float32(0.5) + u.T @ y0
        u = u * np.float32(0.75)
    out.write(str(y) + "\n")
    # A while loop, batched; and a loop nest whose outer loop changes the
    # operand the inner one reads unchanged.
    tfl.write("z = wb @ y0\nk = 0\nwhile k < 3:\n"
              "    z = transpose(wb, (0, 2, 1)) @ z * 0.5\n"
              "    k = k + 1\n"
              "print(z)\n")
    z = wb @ y0
    for _ in range(3):
        z = wb.transpose(0, 2, 1) @ z * np.float32(0.5)
    out.write(str(z) + "\n")
    tfl.write("y = y0\nu = v\nfor i in range(2):\n"
              "    for j in range(2):\n"
              "        y = transpose(u) @ y * 0.5\n"
              "    u = u + transpose(w) @ u * 0.25\n"
              "print(y)\nprint(u)\n")
    y, u = y0, v
    for _ in range(2):
        for _ in range(2):
            y = u.T @ y * np.float32(0.5)
        u = u + w.T @ u * np.float32(0.25)
    out.write(f"{y}\n{u}\n")


main()
