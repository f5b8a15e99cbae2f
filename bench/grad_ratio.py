#!/usr/bin/python3
"""PyTorch's side of grad_ratio.tfl: the same function, shapes and
timing, on 2 threads. Prints "forward_ms gradient_ms ratio"."""
import sys
import time

import torch

torch.set_num_threads(2)
repeats = int(sys.argv[1]) if len(sys.argv) > 1 else 50
torch.manual_seed(1)
w1 = (torch.randn(512, 512) * 0.04).requires_grad_()
w2 = (torch.randn(512, 512) * 0.04).requires_grad_()
x = torch.randn(512, 64)


def f(w1, w2, x):
    return torch.tanh(w2 @ torch.tanh(w1 @ x)).sum()


with torch.no_grad():
    f(w1, w2, x)
torch.autograd.grad(f(w1, w2, x), (w1, w2))
t0 = time.perf_counter()
with torch.no_grad():
    for _ in range(repeats):
        f(w1, w2, x)
t1 = time.perf_counter()
for _ in range(repeats):
    torch.autograd.grad(f(w1, w2, x), (w1, w2))
t2 = time.perf_counter()
forward = (t1 - t0) / repeats * 1000
gradient = (t2 - t1) / repeats * 1000
print(f"{forward:.4f} {gradient:.4f} {gradient / forward:.2f}")
