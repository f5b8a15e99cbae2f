#!/usr/bin/python3
"""PyTorch's output (f64) for test/e2e/vmap-for-ranges.tfl, line for
line: each example's loop run alone, gradients by torch.autograd, checked
against central finite differences."""
import sys

import numpy as np
import torch

from tflgen import fd

torch.set_default_dtype(torch.float64)


def f(x, w, a, n):
    for i in range(a, n):
        x = torch.tanh(x @ w) + x * 0.5 + i * 0.125
    return torch.sum(x * x)


def weighted(xs, a, n):
    s = torch.tensor(0.0)
    for i in range(a, n):
        s = s + xs[i] * xs[i] * i
    return s


def doubling(x, n):
    for i in range(n):
        x = x * 2.0 + i
    return x


xs = torch.tensor([[0.5, -0.25, 1.0], [0.75, 0.5, -1.5], [-0.5, 1.25, 0.25],
                   [1.0, 0.0, -0.75]])
w = torch.tensor([[0.5, -0.25, 0.75], [0.25, 1.0, -0.5],
                  [-0.75, 0.5, 0.25]])
starts, ends = [0, 1, 2, 0], [3, 1, 4, 0]
print(np.array([doubling(v, n) for v, n in zip([1.0, 2.0, 3.0, 4.0],
                                               [1, 3, 0, 2])]))
examples = list(zip(xs, starts, ends))
print(np.array([f(x, w, a, n).item() for x, a, n in examples]))
dxs, dws = [], []
for x, a, n in examples:
    x = x.clone().requires_grad_()
    v = w.clone().requires_grad_()
    dx, dw = torch.autograd.grad(f(x, v, a, n), (x, v), allow_unused=True)
    dx = torch.zeros_like(x) if dx is None else dx
    dw = torch.zeros_like(v) if dw is None else dw
    for k, (got, arg) in enumerate([(dx, x), (dw, v)]):
        args = [x.detach().numpy(), w.numpy()]
        numeric = fd(lambda p, q: f(torch.tensor(p), torch.tensor(q), a,
                                    n).item(), args, k)
        if not np.allclose(numeric, got.numpy(), rtol=1e-6, atol=1e-8):
            sys.exit("PyTorch and finite differences differ")
    dxs.append(dx.numpy())
    dws.append(dw.numpy())
print(np.array(dxs))
print(np.array(dws))
print(sum(dws))
v = torch.tensor([1.5, -0.5, 2.0, 0.25, -1.0])
ranges = [(0, 2), (1, 5), (3, 3)]
print(np.array([weighted(v, a, n).item() for a, n in ranges]))
grads = []
for a, n in ranges:
    x = v.clone().requires_grad_()
    y = weighted(x, a, n)
    g = (torch.autograd.grad(y, (x,))[0] if y.requires_grad
         else torch.zeros_like(x))
    numeric = fd(lambda p: weighted(torch.tensor(p), a, n).item(),
                 [v.numpy()], 0)
    if not np.allclose(numeric, g.numpy(), rtol=1e-6, atol=1e-8):
        sys.exit("PyTorch and finite differences differ")
    grads.append(g.numpy())
print(np.array(grads))
