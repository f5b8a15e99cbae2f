#!/usr/bin/python3
"""W4 in PyTorch: one training step of an MLP 784-256-256-10, batch 128,
Adam; on the GPU with --cuda. Prints "milliseconds per step"."""
import torch
from torch_training import device, ms_per_step, parse_args

torch.set_num_threads(2)
steps, compile = parse_args(300)
torch.manual_seed(0)
model = torch.nn.Sequential(
    torch.nn.Linear(784, 256), torch.nn.ReLU(),
    torch.nn.Linear(256, 256), torch.nn.ReLU(),
    torch.nn.Linear(256, 10)).to(device())
x = torch.rand(128, 784, device=device())
y = torch.randint(0, 10, (128,), device=device())
print(f"{ms_per_step(model, x, y, steps, compile):.4f}")
