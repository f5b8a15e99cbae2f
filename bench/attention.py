#!/usr/bin/python3
"""Causal multi-head attention forward and backward in PyTorch on the GPU,
bf16 (f32 with --f32): B 8, H 12, T 1024, head dim 64, the loss the sum of
the output times fixed weights. With --sdpa, torch.nn.functional.scaled_dot_product_attention
(is_causal=True: FlashAttention's kernels for bf16); otherwise the same
product, mask and softmax as bench/attention.tfl. Prints "milliseconds per
forward and backward"."""
import time

import torch
from torch_training import compiled, flag, mark_step, parse_args, sync

steps, compile = parse_args(20)
B, H, T, HD = 8, 12, 1024, 64
dtype = torch.float32 if flag("f32") else torch.bfloat16
torch.manual_seed(0)
q, k, v = (torch.randn(B, H, T, HD, device="cuda", dtype=dtype,
                       requires_grad=True) for _ in range(3))
w = torch.randn(B, H, T, HD, device="cuda")
mask = torch.full((T, T), -1e9, device="cuda").triu(1).to(dtype)


def loss(q, k, v):
    if flag("sdpa"):
        o = torch.nn.functional.scaled_dot_product_attention(q, k, v,
                                                             is_causal=True)
    else:
        s = (q @ k.transpose(-1, -2)) * 0.125 + mask
        o = torch.softmax(s.float(), -1).to(dtype) @ v
    return (o.float() * w).sum()


loss = compiled(loss, compile)


def step():
    mark_step(compile)
    return torch.autograd.grad(loss(q, k, v), (q, k, v))


for _ in range(3):
    step()
sync()
start = time.perf_counter()
for _ in range(steps):
    g = step()
sync()
elapsed = time.perf_counter() - start
assert torch.isfinite(g[0]).all()
print(f"{elapsed * 1000.0 / steps:.4f}")
