#!/usr/bin/python3
"""W3 in PyTorch: one training step of the seed CNN, batch 32, Adam.
Prints "milliseconds per step"."""
import sys
import time

import torch

torch.set_num_threads(2)
steps = int(sys.argv[1]) if len(sys.argv) > 1 else 300
torch.manual_seed(0)
model = torch.nn.Sequential(
    torch.nn.Conv2d(1, 16, 3), torch.nn.ReLU(),
    torch.nn.Conv2d(16, 16, 3), torch.nn.ReLU(),
    torch.nn.AdaptiveAvgPool2d(1), torch.nn.Flatten(), torch.nn.Linear(16, 10))
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
x = torch.rand(32, 1, 28, 28)
y = torch.randint(0, 10, (32,))


def step():
    opt.zero_grad()
    torch.nn.functional.cross_entropy(model(x), y).backward()
    opt.step()


for _ in range(10):
    step()
start = time.perf_counter()
for _ in range(steps):
    step()
print(f"{(time.perf_counter() - start) / steps * 1000:.4f}")
