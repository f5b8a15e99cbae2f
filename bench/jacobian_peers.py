#!/usr/bin/env python3
"""The peers' side of jacobian.tfl: the Jacobians of the same 256-wide
tanh layers by jacfwd and jacrev, and the Hessian of their sum, on 2
threads: PyTorch's torch.func (eager) and JAX's under jax.jit. Prints
"NAME jacfwd_ms jacrev_ms hessian_ms" per peer. Run with the peers'
virtual environment's python (bench/jacobian.sh)."""
from transform_peers import timed


def torch_side():
    import torch
    from torch.func import hessian, jacfwd, jacrev
    torch.set_num_threads(2)
    torch.manual_seed(1)
    w1, w2 = (torch.randn(256, 256) * 0.06 for _ in range(2))
    x = torch.randn(256)

    def f(v):
        return torch.tanh(w2 @ torch.tanh(w1 @ v))

    times = [timed(lambda: j(x), lambda o: None)
             for j in (jacfwd(f), jacrev(f), hessian(lambda v: f(v).sum()))]
    print("torch.func " + " ".join(f"{t:.4f}" for t in times))


def jax_side():
    import jax
    import jax.numpy as jnp
    k = jax.random.split(jax.random.PRNGKey(1), 3)
    w1, w2 = (jax.random.normal(k[i], (256, 256)) * 0.06 for i in range(2))
    x = jax.random.normal(k[2], (256,))

    def f(v):
        return jnp.tanh(w2 @ jnp.tanh(w1 @ v))

    block = jax.block_until_ready
    times = [timed(lambda: j(x), block)
             for j in (jax.jit(jax.jacfwd(f)), jax.jit(jax.jacrev(f)),
                       jax.jit(jax.hessian(lambda v: jnp.sum(f(v)))))]
    print("jax.jit " + " ".join(f"{t:.4f}" for t in times))


torch_side()
jax_side()
