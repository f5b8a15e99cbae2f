#!/usr/bin/python3
"""Python's and PyTorch's output for test/e2e/unrolled-vs-torch.tfl, line
for line (tuples where TFL's comprehensions make tuples)."""
import numpy as np
import torch

f = np.float32
sizes = (2, 3, 4)
zs = tuple(np.zeros([n], dtype=f) + f(n) for n in sizes)
print(zs_str := "(" + ", ".join(str(z) for z in zs) + ")", len(zs),
      tuple(z.shape for z in zs))
print(tuple(i * i for i in range(4)), tuple(2 ** k for k in range(1, 7, 2)))
print(np.concatenate(zs), np.stack([z.sum() for z in zs], axis=0),
      np.stack(zs[:1], 1))
print(tuple(x + 1.0 for x in (1.0, 2.5)), tuple(s + "!" for s in ("a", "b")))
first, *rest = (1, 2.0, "[3.]", 4)
print(first, "(" + ", ".join(str(r) for r in rest) + ")")
*init, last = sizes
a, *mid, b = (1, 2, 3, 4, 5)
print(tuple(init), last, a, tuple(mid), b)
for i, n in enumerate(sizes, start=1):
    print(i, n, f(n))
for n, z, s in zip(sizes, zs, ("x", "y")):
    print(n, z.sum(), s)
print("ab" in "cabd", "x" not in "abc", 3 in sizes, 5 not in sizes)
print("f" in ("e", "f"), "mode" in "model", "a" < "b" not in "abc")

widths = (4, 8, 3, 2)
ws = [torch.full((m, n), 1.0 / (m * n), dtype=torch.float64, requires_grad=True)
      for m, n in zip(widths[:-1], widths[1:])]
bs = [(torch.arange(n, dtype=torch.float64) * 0.1).requires_grad_()
      for n in widths[1:]]
x = torch.arange(8, dtype=torch.float64).reshape(2, 4) / 8.0
h = x
for w, bb in zip(ws[:-1], bs[:-1]):
    h = torch.tanh(h @ w + bb)
out = h @ ws[-1] + bs[-1]
loss = (out ** 2).mean()
print("(" + ", ".join(str(tuple(w.shape)) for w in ws) + ")", f(loss.item()))
loss.backward()
for w, bb in zip(ws, bs):
    print(f(w.grad.sum().item()), bb.grad.numpy().astype(f))
print(np.array([6.0, 6.0], dtype=f))
