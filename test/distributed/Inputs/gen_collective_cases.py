#!/usr/bin/python3
"""Writes a TFL program of collectives on per-rank random tensors, and
NumPy's output for each world size 1, 2 and 3 (each rank's lines in turn,
rank 0's first, as run_both.py --mpirun shows them).

Rank r's inputs are row r of constant tensors with a row per rank, so
NumPy knows every rank's data: all_reduce is a sum (or mean) over the rows
of the ranks in the run, broadcast a row, and so on.

Usage: gen_collective_cases.py OUT.tfl OUT.expected
       (writes OUT.expected.1, OUT.expected.2 and OUT.expected.3)
"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "e2e", "Inputs"))
from tflgen import literal  # noqa: E402

rng = np.random.default_rng(16)
RANKS = 3
A = rng.standard_normal((RANKS, 3, 4)).astype(np.float32)
# f32 values: float literals are f32, cast to f64 in the program.
B = rng.standard_normal((RANKS, 5)).astype(np.float32).astype(np.float64)
C = rng.integers(-1000, 1000, (RANKS, 2, 2)).astype(np.int32)
D = rng.integers(-10**12, 10**12, (RANKS,)).astype(np.int64)
H = rng.standard_normal((RANKS, 6)).astype(np.float16)

PROGRAM = f"""\
class Params:
    w: f32[3, 4]
    k: i64


A = {literal(A)}
B = cast({literal(B)}, f64)
C = cast({literal(C)}, i32)
D = {literal(D)}
H = cast({literal(H.astype(np.float32))}, f16)
r = rank()
n = world_size()
a, b, c, d, h = A[r], B[r], C[r], D[r], H[r]
print(f"rank {{r}} of {{n}}")
print(all_reduce(a))
print(all_reduce(a, op="mean"))
s = all_reduce((a, b, c, d))
print(s[0])
print(s[1])
print(s[2])
print(s[3])
m = all_reduce((b, a * 2.0), op="mean")
print(m[0])
print(m[1])
print(all_reduce(h))
print(broadcast(a))
if n > 1:
    t = broadcast((b, d), root=1)
    print(t[0])
    print(t[1])
p = all_reduce(Params(w=a, k=d))
print(p.w)
print(p.k)
acc = a
for i in range(3):
    acc = all_reduce(acc * 0.5, op="mean") + a
print(acc)
"""


def expected(n, r):
    """Rank r's output in a run of n processes."""
    out = [f"rank {r} of {n}"]
    a, b = A[:n], B[:n]
    out.append(str(a.sum(0)))
    out.append(str((a.sum(0) / np.float32(n)).astype(np.float32)))
    out += [str(a.sum(0)), str(b.sum(0)), str(C[:n].sum(0, dtype=np.int32)),
            str(D[:n].sum())]
    out.append(str(b.sum(0) / n))
    out.append(str(((a * np.float32(2)).sum(0) / np.float32(n))
                   .astype(np.float32)))
    out.append(str(H[:n].astype(np.float32).sum(0).astype(np.float16)))
    out.append(str(A[0]))
    if n > 1:
        out += [str(B[1]), str(D[1])]
    out += [str(a.sum(0)), str(D[:n].sum())]
    acc = a.copy()
    for _ in range(3):
        acc = (acc * np.float32(0.5)).sum(0) / np.float32(n) + a
    out.append(str(acc[r].astype(np.float32)))
    return out


def main():
    tfl_path, expected_path = sys.argv[1:]
    with open(tfl_path, "w") as f:
        f.write(PROGRAM)
    for n in range(1, RANKS + 1):
        lines = []
        for r in range(n):
            lines += expected(n, r)
        with open(f"{expected_path}.{n}", "w") as f:
            f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
