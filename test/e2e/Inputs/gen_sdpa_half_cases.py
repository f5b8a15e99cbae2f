#!/usr/bin/python3
"""Writes a TFL program of scaled_dot_product_attention on bf16 and f16
tensors (causal, 70 queries and keys, heads of 16 features; not causal,
40 queries against 70 keys, heads of 16 and 32) with its gradients with
respect to q, k and v, and PyTorch's values for them, computed in f64 from
the same 16-bit inputs by the definition softmax(scale q k^T) v.

Usage: gen_sdpa_half_cases.py OUT.tfl OUT.expected
"""
import sys

import numpy as np
import torch

from tflgen import literal, write_case_files

rng = np.random.default_rng(31)

PROGRAM = '''
def causal(q, k, v):
    y = scaled_dot_product_attention(q, k, v, is_causal=True)
    return sum(cast(y, f32) * w1)

def cross(q, k, v):
    return sum(cast(scaled_dot_product_attention(q, k, v), f32) * w2)
'''


def sdpa(q, k, v, causal=False):
    s = (q @ k.transpose(-1, -2)) / np.sqrt(q.shape[-1])
    if causal:
        keep = torch.ones(s.shape[-2], s.shape[-1], dtype=torch.bool).tril()
        s = s.masked_fill(~keep, float("-inf"))
    return torch.softmax(s, -1) @ v


def main():
    tfl_path, expected_path = sys.argv[1:]

    def rounded(dtype, *shape):
        x = torch.tensor(rng.standard_normal(shape), dtype=torch.float32)
        return x.to(dtype).to(torch.float32).numpy()
    q1, k1, v1 = (rounded(torch.bfloat16, 1, 2, 70, 16) for _ in range(3))
    w1 = rng.standard_normal((1, 2, 70, 16)).astype(np.float32)
    q2 = rounded(torch.float16, 2, 40, 16)
    k2 = rounded(torch.float16, 2, 70, 16)
    v2 = rounded(torch.float16, 2, 70, 32)
    w2 = rng.standard_normal((2, 40, 32)).astype(np.float32)
    names = dict(q1=q1, k1=k1, v1=v1, w1=w1, q2=q2, k2=k2, v2=v2, w2=w2)
    lines = PROGRAM.strip("\n").split("\n")
    lines += [f"{n} = {literal(a)}" for n, a in names.items()]
    lines += [
        "b1 = (cast(q1, bf16), cast(k1, bf16), cast(v1, bf16))",
        "print(cast(scaled_dot_product_attention(b1[0], b1[1], b1[2],"
        " is_causal=True), f32))",
        "g = grad(causal, argnums=(0, 1, 2))(b1[0], b1[1], b1[2])",
        "print(cast(g[0], f32))", "print(cast(g[1], f32))",
        "print(cast(g[2], f32))",
        "h2 = (cast(q2, f16), cast(k2, f16), cast(v2, f16))",
        "print(cast(scaled_dot_product_attention(h2[0], h2[1], h2[2]), f32))",
        "g = grad(cross, argnums=(0, 1, 2))(h2[0], h2[1], h2[2])",
        "print(cast(g[0], f32))", "print(cast(g[1], f32))",
        "print(cast(g[2], f32))",
    ]

    def d(a):
        return torch.tensor(a, dtype=torch.float64, requires_grad=True)
    expected = []

    def out(t):
        expected.append(str(t.detach().numpy().astype(np.float32)))
    Q1, K1, V1, W1 = map(d, (q1, k1, v1, w1))
    out(sdpa(Q1, K1, V1, causal=True))
    for g in torch.autograd.grad(
            (sdpa(Q1, K1, V1, causal=True) * W1).sum(), (Q1, K1, V1)):
        out(g)
    Q2, K2, V2, W2 = map(d, (q2, k2, v2, w2))
    out(sdpa(Q2, K2, V2))
    for g in torch.autograd.grad((sdpa(Q2, K2, V2) * W2).sum(), (Q2, K2, V2)):
        out(g)
    write_case_files(tfl_path, expected_path, lines, expected)


main()
