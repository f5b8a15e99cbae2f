#!/usr/bin/python3
"""W1 in PyTorch: x = x @ x, 200 times, 1000x1000 f32 (4096x4096 with
--cuda, on the GPU; bf16 with --bf16). Prints "seconds"."""
import time

import torch
from torch_training import compiled, device, flag, parse_args, sync

torch.set_num_threads(2)
steps, compile = parse_args(200)
# x = x @ x feeds each result back as the next input, which the CUDA graphs
# of max-autotune's cudagraph trees forbid (a graph's output is overwritten
# by its next run) without a copy per step; for one product a graph saves
# nothing, so max-autotune runs its autotuned kernels without them.
if compile == "max-autotune":
    compile = "max-autotune-no-cudagraphs"
N = 4096 if device().type == "cuda" else 1000
torch.manual_seed(0)
x = torch.eye(N)[torch.randperm(N)].to(device())
if flag("bf16"):
    x = x.to(torch.bfloat16)


def square(x):
    return x @ x


square = compiled(square, compile)
y = square(x)
sync()
start = time.perf_counter()
for _ in range(steps):
    x = square(x)
sync()
elapsed = time.perf_counter() - start
assert x.sum().item() == N
print(f"{elapsed:.4f}")
