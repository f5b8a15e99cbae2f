#!/usr/bin/python3
"""Writes a TFL program of scaled_dot_product_attention in each of its
forms (causal rank 4; more keys than queries with a scale; a bool mask; a
float mask; f64) with gradients with respect to q, k and v, its jvp, a
Hessian-vector product (jvp of grad), per-example gradients (vmap of
grad, one k shared) and heads sliced from one QKV projection and
transposed in and out, and PyTorch's values for them, computed in f64 from
the same f32 inputs by the definition softmax(scale q k^T + mask) v
(Debian's PyTorch has no scaled_dot_product_attention of its own).

Usage: gen_sdpa_cases.py OUT.tfl OUT.expected
"""
import sys

import numpy as np
import torch

from tflgen import literal, write_case_files

rng = np.random.default_rng(23)

PROGRAM = '''
def causal(q, k, v):
    return sum(scaled_dot_product_attention(q, k, v, is_causal=True) * w1)

def scaled(q, k, v):
    return sum(scaled_dot_product_attention(q, k, v, scale=0.3) * w2)

def float_masked(q, k, v):
    return sum(scaled_dot_product_attention(q, k, v, attn_mask=fm) * w2)

def example(q, k, v):
    return sum(scaled_dot_product_attention(q, k, v, is_causal=True) * w3)

def heads(qkv):
    # A transformer's heads: slices of one [B, T, 3, H, E] projection,
    # transposed to [B, H, T, E] and back (compiled, the attention reads
    # and writes [B, T, H, E] in place: tfl-attention-layout; E = 16, so
    # the kernels read the heads, and write their gradients, where they
    # lie).
    q = transpose(qkv[:, :, 0], (0, 2, 1, 3))
    k = transpose(qkv[:, :, 1], (0, 2, 1, 3))
    v = transpose(qkv[:, :, 2], (0, 2, 1, 3))
    y = scaled_dot_product_attention(q, k, v, is_causal=True)
    return sum(transpose(y, (0, 2, 1, 3)) * w4)
'''


def sdpa(q, k, v, mask=None, causal=False, scale=None):
    scale = 1.0 / np.sqrt(q.shape[-1]) if scale is None else scale
    s = (q @ k.transpose(-1, -2)) * scale
    t, n = s.shape[-2], s.shape[-1]
    if causal:
        keep = torch.ones(t, n, dtype=torch.bool).tril()
        s = s.masked_fill(~keep, float("-inf"))
    if mask is not None:
        s = s.masked_fill(~mask, float("-inf")) if mask.dtype == torch.bool \
            else s + mask
    return torch.softmax(s, -1) @ v


def main():
    tfl_path, expected_path = sys.argv[1:]

    def f32(*shape):
        return rng.standard_normal(shape).astype(np.float32)
    q1, k1, v1, t1 = f32(2, 3, 7, 5), f32(2, 3, 7, 5), f32(2, 3, 7, 6), \
        f32(2, 3, 7, 5)
    w1 = f32(2, 3, 7, 6)
    q2, k2, v2, w2 = f32(2, 4, 3), f32(2, 9, 3), f32(2, 9, 2), f32(2, 4, 2)
    bm = rng.standard_normal((4, 9)) > 0.0
    bm[:, 0] = True  # every query sees a key
    fm = f32(2, 1, 9)
    qs, k0, vs, w3 = f32(3, 5, 4), f32(5, 4), f32(3, 5, 4), f32(5, 4)
    qkv, w4 = f32(2, 6, 3, 2, 16), f32(2, 6, 2, 16)
    names = dict(q1=q1, k1=k1, v1=v1, t1=t1, w1=w1, q2=q2, k2=k2, v2=v2,
                 w2=w2, bm=bm, fm=fm, qs=qs, k0=k0, vs=vs, w3=w3, qkv=qkv,
                 w4=w4)
    lines = PROGRAM.strip("\n").split("\n")
    lines += [f"{n} = {literal(a)}" for n, a in names.items()]
    lines += [
        "print(scaled_dot_product_attention(q1, k1, v1, is_causal=True))",
        "g = grad(causal, argnums=(0, 1, 2))(q1, k1, v1)",
        "print(g[0])", "print(g[1])", "print(g[2])",
        "g = grad(scaled, argnums=(0, 1, 2))(q2, k2, v2)",
        "print(g[0])", "print(g[1])", "print(g[2])",
        "print(scaled_dot_product_attention(q2, k2, v2, attn_mask=bm))",
        "print(grad(float_masked)(q2, k2, v2))",
        "print(scaled_dot_product_attention(cast(q1, f64), cast(k1, f64),"
        " cast(v1, f64), is_causal=True))",
        "print(jvp(lambda q: scaled_dot_product_attention(q, k1, v1,"
        " is_causal=True), (q1,), (t1,))[1])",
        "print(jvp(lambda q: grad(causal)(q, k1, v1), (q1,), (t1,))[1])",
        "print(vmap(grad(example), in_axes=(0, None, 0))(qs, k0, vs))",
        "print(heads(qkv))",
        "print(grad(heads)(qkv))",
    ]

    def d(a):
        return torch.tensor(a, dtype=torch.float64, requires_grad=True)
    expected = []

    def out(t):
        expected.append(str(t.detach().numpy().astype(np.float32)))
    Q1, K1, V1, T1, W1 = map(d, (q1, k1, v1, t1, w1))
    Q2, K2, V2, W2 = map(d, (q2, k2, v2, w2))
    FM = torch.tensor(fm, dtype=torch.float64)
    out(sdpa(Q1, K1, V1, causal=True))
    for g in torch.autograd.grad(
            (sdpa(Q1, K1, V1, causal=True) * W1).sum(), (Q1, K1, V1)):
        out(g)
    for g in torch.autograd.grad(
            (sdpa(Q2, K2, V2, scale=0.3) * W2).sum(), (Q2, K2, V2)):
        out(g)
    out(sdpa(Q2, K2, V2, mask=torch.tensor(bm)))
    out(torch.autograd.grad((sdpa(Q2, K2, V2, mask=FM) * W2).sum(), Q2)[0])
    out(sdpa(Q1, K1, V1, causal=True))
    out(torch.autograd.functional.jvp(
        lambda q: sdpa(q, K1, V1, causal=True), Q1, T1)[1])
    out(torch.autograd.functional.hvp(
        lambda q: (sdpa(q, K1, V1, causal=True) * W1).sum(), Q1, T1)[1])
    K0, W3 = d(k0), d(w3)
    per = []
    for i in range(qs.shape[0]):
        qi = d(qs[i])
        loss = (sdpa(qi, K0, d(vs[i]), causal=True) * W3).sum()
        per.append(torch.autograd.grad(loss, qi)[0])
    out(torch.stack(per))
    QKV, W4 = d(qkv), d(w4)
    q, k, v = (QKV[:, :, i].transpose(1, 2) for i in range(3))
    loss = (sdpa(q, k, v, causal=True).transpose(1, 2) * W4).sum()
    out(loss)
    out(torch.autograd.grad(loss, QKV)[0])
    write_case_files(tfl_path, expected_path, lines, expected)


main()
