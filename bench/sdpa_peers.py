#!/usr/bin/env python3
"""The peers' side of sdpa.tfl: causal scaled dot-product attention,
forward and backward (the gradient of sum(out * w) with respect to q, k
and v) at the same three shapes, on 2 threads: PyTorch's
torch.nn.functional.scaled_dot_product_attention eagerly and under
torch.compile, and JAX's jax.nn.dot_product_attention under jax.jit.
Prints "NAME w8_ms t256_ms t1024_ms" per peer. Run with the peers'
virtual environment's python (bench/sdpa.sh)."""
from transform_peers import timed

SHAPES = [(16, 4, 64, 32), (4, 4, 256, 32), (1, 4, 1024, 64)]


def torch_side(compile):
    import torch
    import torch.nn.functional as F
    torch.set_num_threads(2)
    torch.manual_seed(1)

    def step(q, k, v, w):
        o = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        return torch.autograd.grad((o * w).sum(), (q, k, v))
    fn = torch.compile(step) if compile else step
    times = []
    for shape in SHAPES:
        q, k, v = (torch.randn(shape, requires_grad=True) for _ in range(3))
        w = torch.randn(shape)
        fn(q, k, v, w)  # compiles
        times.append(timed(lambda: fn(q, k, v, w), lambda o: None))
    name = "torch.compile" if compile else "torch"
    print(name + " " + " ".join(f"{t:.4f}" for t in times))


def jax_side():
    import jax
    import jax.numpy as jnp

    def loss(q, k, v, w):
        # jax.nn's layout is [batch, T, heads, E].
        o = jax.nn.dot_product_attention(q, k, v, is_causal=True)
        return jnp.sum(o * w)
    fn = jax.jit(jax.grad(loss, argnums=(0, 1, 2)))
    times = []
    for b, h, t, e in SHAPES:
        keys = jax.random.split(jax.random.PRNGKey(1), 4)
        q, k, v, w = (jax.random.normal(keys[i], (b, t, h, e))
                      for i in range(4))
        times.append(timed(lambda: fn(q, k, v, w), jax.block_until_ready))
    print("jax.jit " + " ".join(f"{t:.4f}" for t in times))


torch_side(False)
torch_side(True)
jax_side()
