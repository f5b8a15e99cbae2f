#!/usr/bin/env python3
"""The peers' side of hvp.tfl: the Hessian-vector product of the same tanh
MLP by forward over reverse, on 2 threads: PyTorch's
torch.func.jvp(torch.func.grad) (eager) and JAX's jax.jvp(jax.grad) under
jax.jit. Prints "NAME gradient_ms hvp_ms ratio" per peer. Run with the
peers' virtual environment's python (bench/hvp.sh)."""
from transform_peers import timed


def torch_side():
    import torch
    from torch.func import grad, jvp
    torch.set_num_threads(2)
    torch.manual_seed(1)
    w1, w2, v1, v2 = (torch.randn(512, 512) * 0.04 for _ in range(4))
    x = torch.randn(512, 64)

    def f(a, b):
        return torch.tanh(b @ torch.tanh(a @ x)).sum()

    g = grad(f, argnums=(0, 1))
    gradient = timed(lambda: g(w1, w2), lambda o: None)
    product = timed(lambda: jvp(g, (w1, w2), (v1, v2))[1], lambda o: None)
    print(f"torch.func {gradient:.4f} {product:.4f} {product / gradient:.2f}")


def jax_side():
    import jax
    import jax.numpy as jnp
    key = jax.random.PRNGKey(1)
    k = jax.random.split(key, 5)
    w1, w2, v1, v2 = (jax.random.normal(k[i], (512, 512)) * 0.04
                      for i in range(4))
    x = jax.random.normal(k[4], (512, 64))

    def f(a, b):
        return jnp.sum(jnp.tanh(b @ jnp.tanh(a @ x)))

    g = jax.jit(jax.grad(f, argnums=(0, 1)))
    h = jax.jit(lambda a, b: jax.jvp(jax.grad(f, argnums=(0, 1)), (a, b),
                                     (v1, v2))[1])
    block = jax.block_until_ready
    gradient = timed(lambda: g(w1, w2), block)
    product = timed(lambda: h(w1, w2), block)
    print(f"jax.jit {gradient:.4f} {product:.4f} {product / gradient:.2f}")


torch_side()
jax_side()
