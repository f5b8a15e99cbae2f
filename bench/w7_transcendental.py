#!/usr/bin/python3
"""W7 in PyTorch: exp, log, tanh and sigmoid of 2^22 f32 values, summed
elementwise (with --compile, one torch.compile'd function). Prints
"milliseconds per round"."""
import time

import torch
from torch_training import device, compiled, parse_args, sync

torch.set_num_threads(2)
rounds, compile = parse_args(20)
torch.manual_seed(0)
x = (torch.rand(4194304) * 8.0 - 4.0).to(device())


def work(x):
    return torch.exp(x) + torch.log(x * x + 1.0) + torch.tanh(x) + \
        torch.sigmoid(x)


work = compiled(work, compile)
check = work(x).sum().item()
sync()
start = time.perf_counter()
for i in range(rounds):
    check += work(x + 0.001 * i).sum().item()
sync()
elapsed = time.perf_counter() - start
print(f"{elapsed * 1000.0 / rounds:.4f}")
