#!/usr/bin/env python3
"""The peers' side of per_example.tfl: the per-example gradients of W4's
MLP (784-256-256-10, relu, softmax cross-entropy) on a batch of 128, on 2
threads: PyTorch's torch.func.vmap(torch.func.grad) (eager) and JAX's
jax.vmap(jax.grad) under jax.jit, each relative to its own batch gradient.
Prints "NAME batch_gradient_ms per_example_ms ratio" per peer. Run with
the peers' virtual environment's python (bench/per_example.sh)."""
from transform_peers import timed

SIZES = [(784, 256), (256, 256), (256, 10)]


def torch_side():
    import torch
    import torch.nn.functional as F
    from torch.func import grad, vmap
    torch.set_num_threads(2)
    torch.manual_seed(0)
    params = []
    for i, o in SIZES:
        params += [torch.randn(i, o) * (2.0 / i) ** 0.5, torch.zeros(o)]
    x = torch.rand(128, 784)
    y = torch.randint(0, 10, (128,))

    def loss(p, x, y):
        h = x
        for k in range(3):
            h = h @ p[2 * k] + p[2 * k + 1]
            if k < 2:
                h = torch.relu(h)
        return F.cross_entropy(h, y)

    def example(p, x, y):
        return loss(p, x[None], y[None])

    batch = timed(lambda: grad(loss)(params, x, y), lambda o: None)
    each = timed(lambda: vmap(grad(example), in_dims=(None, 0, 0))(
        params, x, y), lambda o: None)
    print(f"torch.func {batch:.4f} {each:.4f} {each / batch:.2f}")


def jax_side():
    import jax
    import jax.numpy as jnp
    keys = jax.random.split(jax.random.PRNGKey(0), 5)
    params = []
    for k, (i, o) in enumerate(SIZES):
        params += [jax.random.normal(keys[k], (i, o)) * (2.0 / i) ** 0.5,
                   jnp.zeros(o)]
    x = jax.random.uniform(keys[3], (128, 784))
    y = jax.random.randint(keys[4], (128,), 0, 10)

    def loss(p, x, y):
        h = x
        for k in range(3):
            h = h @ p[2 * k] + p[2 * k + 1]
            if k < 2:
                h = jax.nn.relu(h)
        logp = jax.nn.log_softmax(h)
        return -jnp.mean(jnp.take_along_axis(logp, y[:, None], axis=1))

    def example(p, x, y):
        return loss(p, x[None], y[None])

    g = jax.jit(jax.grad(loss))
    e = jax.jit(jax.vmap(jax.grad(example), in_axes=(None, 0, 0)))
    block = jax.block_until_ready
    batch = timed(lambda: g(params, x, y), block)
    each = timed(lambda: e(params, x, y), block)
    print(f"jax.jit {batch:.4f} {each:.4f} {each / batch:.2f}")


torch_side()
jax_side()
