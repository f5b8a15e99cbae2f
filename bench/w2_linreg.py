#!/usr/bin/python3
"""W2 in PyTorch: one linear-regression step on 2000 points (loss,
autograd, SGD update). Prints "milliseconds per step"."""
import time

import torch
from torch_training import compiled, parse_args

torch.set_num_threads(2)
steps, compile = parse_args(20000)
N = 2000
torch.manual_seed(0)
x = torch.randn(N)
y = x * 3.0 + 2.0 + torch.randn(N)
w = torch.tensor(5.0, requires_grad=True)
b = torch.tensor(0.0, requires_grad=True)


def loss(w, b):
    return ((w * x + b - y) ** 2).mean()


loss = compiled(loss, compile)


def step():
    dw, db = torch.autograd.grad(loss(w, b), (w, b))
    with torch.no_grad():
        w.sub_(0.1 * dw)
        b.sub_(0.1 * db)


for _ in range(10):
    step()
start = time.perf_counter()
for _ in range(steps):
    step()
elapsed = time.perf_counter() - start
assert abs(w.item() - 3.0) < 0.1 and abs(b.item() - 2.0) < 0.1
print(f"{elapsed / steps * 1000:.5f}")
