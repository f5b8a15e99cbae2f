#!/usr/bin/python3
"""W5 in PyTorch: the scalar op x = x * 0.999 + 0.001 on a 0-d tensor.
Prints "microseconds per op"."""
import sys
import time

import torch

torch.set_num_threads(2)
steps = int(sys.argv[1]) if len(sys.argv) > 1 else 100000
x = torch.tensor(0.5)
start = time.perf_counter()
for _ in range(steps):
    x = x * 0.999 + 0.001
elapsed = time.perf_counter() - start
assert abs(x.item() - 1.0) < 0.01
print(f"{elapsed / steps * 1e6:.6f}")
