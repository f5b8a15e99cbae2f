#!/usr/bin/python3
"""W1 in PyTorch: x = x @ x, 200 times, 1000x1000 f32. Prints "seconds"."""
import sys
import time

import torch

torch.set_num_threads(2)
steps = int(sys.argv[1]) if len(sys.argv) > 1 else 200
N = 1000
torch.manual_seed(0)
x = torch.eye(N)[torch.randperm(N)]
y = x @ x
start = time.perf_counter()
for _ in range(steps):
    x = x @ x
elapsed = time.perf_counter() - start
assert x.sum().item() == N
print(f"{elapsed:.4f}")
