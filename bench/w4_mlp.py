#!/usr/bin/python3
"""W4 in PyTorch: one training step of an MLP 784-256-256-10, batch 128,
Adam. Prints "milliseconds per step"."""
import sys
import time

import torch

torch.set_num_threads(2)
steps = int(sys.argv[1]) if len(sys.argv) > 1 else 300
torch.manual_seed(0)
model = torch.nn.Sequential(
    torch.nn.Linear(784, 256), torch.nn.ReLU(),
    torch.nn.Linear(256, 256), torch.nn.ReLU(), torch.nn.Linear(256, 10))
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
x = torch.rand(128, 784)
y = torch.randint(0, 10, (128,))


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
