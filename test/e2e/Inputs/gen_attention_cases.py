#!/usr/bin/python3
"""Writes a TFL program of a causal multi-head attention block (layer
norm, fused QKV projection of a [B, T, D] batch against one weight matrix,
heads split by reshape and transpose, rank-4 products q @ k^T and att @ v,
a matrix against a batch of them, the output projection) and its gradient
with respect to every input, and PyTorch's values for them, computed in
f64 from the same f32 inputs.

Usage: gen_attention_cases.py OUT.tfl OUT.expected
"""
import sys

import numpy as np
import torch

from tflgen import literal, write_case_files

rng = np.random.default_rng(17)
B, T, D, H = 2, 6, 8, 2
HD = D // H

PROGRAM = f'''
B = {B}
T = {T}
D = {D}
H = {H}
HD = {HD}

def heads(t):
    return t.reshape(B, T, H, HD).transpose(0, 2, 1, 3)

def block(wqkv, wo, mix, x):
    mu = x.mean(axis=-1, keepdims=True)
    xc = x - mu
    h = xc / sqrt((xc * xc).mean(axis=-1, keepdims=True) + 1e-5)
    qkv = h @ wqkv
    q = heads(qkv[:, :, 0:D])
    k = heads(qkv[:, :, D:2 * D])
    v = heads(qkv[:, :, 2 * D:3 * D])
    s = (q @ k.transpose(0, 1, 3, 2)) * {1.0 / np.sqrt(HD)!r} + mask
    att = softmax(s, axis=-1)
    y = (mix @ (att @ v)).transpose(0, 2, 1, 3).reshape(B, T, D)
    return ((y @ wo) * weights).sum()
'''


def torch_block(wqkv, wo, mix, x, mask, weights):
    mu = x.mean(-1, keepdim=True)
    xc = x - mu
    h = xc / torch.sqrt((xc * xc).mean(-1, keepdim=True) + 1e-5)
    qkv = h @ wqkv

    def heads(t):
        return t.reshape(B, T, H, HD).transpose(1, 2)
    q, k, v = (heads(qkv[:, :, i * D:(i + 1) * D]) for i in range(3))
    s = (q @ k.transpose(-1, -2)) * (1.0 / np.sqrt(HD)) + mask
    att = torch.softmax(s, -1)
    y = (mix @ (att @ v)).transpose(1, 2).reshape(B, T, D)
    return ((y @ wo) * weights).sum()


def main():
    tfl_path, expected_path = sys.argv[1:]

    def f32(*shape, scale=1.0):
        return (rng.standard_normal(shape) * scale).astype(np.float32)
    wqkv = f32(D, 3 * D, scale=0.4)
    wo = f32(D, D, scale=0.4)
    mix = f32(T, T, scale=0.5)
    x = f32(B, T, D)
    weights = f32(B, T, D)
    mask = np.where(np.tril(np.ones((T, T))) > 0, 0.0,
                    -1e4).astype(np.float32)
    lines = PROGRAM.strip("\n").split("\n")
    lines += [f"mask = {literal(mask)}", f"weights = {literal(weights)}",
              f"wqkv = {literal(wqkv)}", f"wo = {literal(wo)}",
              f"mix = {literal(mix)}", f"x = {literal(x)}",
              "print(block(wqkv, wo, mix, x))",
              "g = grad(block, argnums=(0, 1, 2, 3))(wqkv, wo, mix, x)",
              "print(g[0])", "print(g[1])", "print(g[2])", "print(g[3])"]
    args = [torch.tensor(a, dtype=torch.float64, requires_grad=True)
            for a in (wqkv, wo, mix, x)]
    loss = torch_block(*args, torch.tensor(mask, dtype=torch.float64),
                       torch.tensor(weights, dtype=torch.float64))
    grads = torch.autograd.grad(loss, args)
    expected = [str(np.float32(loss.item()))]
    expected += [str(g.numpy().astype(np.float32)) for g in grads]
    write_case_files(tfl_path, expected_path, lines, expected)


main()
