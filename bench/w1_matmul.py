#!/usr/bin/python3
"""W1 in PyTorch: x = x @ x, 200 times, 1000x1000 f32 (4096x4096 with
--cuda, on the GPU). Prints "seconds"."""
import time

import torch
from torch_training import device, parse_args, sync

torch.set_num_threads(2)
steps, compile = parse_args(200)
N = 4096 if device().type == "cuda" else 1000
torch.manual_seed(0)
x = torch.eye(N)[torch.randperm(N)].to(device())


def square(x):
    return x @ x


if compile:
    square = torch.compile(square)
y = square(x)
sync()
start = time.perf_counter()
for _ in range(steps):
    x = square(x)
sync()
elapsed = time.perf_counter() - start
assert x.sum().item() == N
print(f"{elapsed:.4f}")
