#!/usr/bin/python3
"""W3 in PyTorch: one training step of the seed CNN, batch 32 (or
--batch=N), Adam; on the GPU with --cuda.
Prints "milliseconds per step"."""
import torch
from torch_training import batch, device, ms_per_step, parse_args

torch.set_num_threads(2)
steps, compile = parse_args(300)
torch.manual_seed(0)
model = torch.nn.Sequential(
    torch.nn.Conv2d(1, 16, 3), torch.nn.ReLU(),
    torch.nn.Conv2d(16, 16, 3), torch.nn.ReLU(),
    torch.nn.AdaptiveAvgPool2d(1), torch.nn.Flatten(), torch.nn.Linear(16, 10)).to(device())
n = batch(32)
x = torch.rand(n, 1, 28, 28, device=device())
y = torch.randint(0, 10, (n,), device=device())
print(f"{ms_per_step(model, x, y, steps, compile):.4f}")
