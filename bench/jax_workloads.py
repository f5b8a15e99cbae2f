"""W1-W4, W7 and W8 in JAX, each step one jax.jit-compiled function (a peer
run by run.sh --peers from a virtual environment with PyPI's jax). Prints
the same units as the TFL and PyTorch versions.

Usage: python jax_workloads.py {w1,w2,w3,w4,w7,w8} [STEPS]
"""
import sys
import time

import jax
import jax.numpy as jnp


def timed(step, state, steps, warmup=10):
    """Seconds for `steps` calls of state = step(*state), after `warmup`
    calls (which include the compilation)."""
    for _ in range(warmup):
        state = step(*state)
    jax.block_until_ready(state)
    start = time.perf_counter()
    for _ in range(steps):
        state = step(*state)
    jax.block_until_ready(state)
    return time.perf_counter() - start, state


def w1(steps=200):
    n = 1000
    key = jax.random.PRNGKey(0)
    x = jnp.eye(n, dtype=jnp.float32)[jax.random.permutation(key, n)]
    square = jax.jit(lambda x: (x @ x,))
    elapsed, (x,) = timed(square, (x,), steps, warmup=1)
    assert float(x.sum()) == n
    print(f"{elapsed:.4f}")


def w2(steps=20000):
    n = 2000
    kx, ky = jax.random.split(jax.random.PRNGKey(0))
    x = jax.random.normal(kx, (n,))
    y = x * 3.0 + 2.0 + jax.random.normal(ky, (n,))

    def loss(w, b):
        return jnp.mean(jnp.square(w * x + b - y))

    @jax.jit
    def step(w, b):
        dw, db = jax.grad(loss, argnums=(0, 1))(w, b)
        return w - 0.1 * dw, b - 0.1 * db

    elapsed, (w, b) = timed(step, (jnp.float32(5.0), jnp.float32(0.0)), steps)
    assert abs(float(w) - 3.0) < 0.1 and abs(float(b) - 2.0) < 0.1
    print(f"{elapsed / steps * 1000:.5f}")


def adam_step(params, grads, m, v, t, lr=1e-3, b1=0.9, b2=0.999, eps=1e-8):
    """PyTorch's Adam (bias-corrected, eps outside the square root)."""
    t = t + 1
    m = jax.tree.map(lambda m, g: b1 * m + (1 - b1) * g, m, grads)
    v = jax.tree.map(lambda v, g: b2 * v + (1 - b2) * g * g, v, grads)
    c1, c2 = 1 - b1**t, 1 - b2**t
    params = jax.tree.map(
        lambda p, m, v: p - lr * (m / c1) / (jnp.sqrt(v / c2) + eps),
        params, m, v)
    return params, m, v, t


def ms_per_training_step(forward, params, x, y, steps=300, lr=1e-3):
    """Milliseconds per training step (cross-entropy from logits with
    integer labels, its gradient, an Adam update) on one batch."""
    def loss(params):
        logp = jax.nn.log_softmax(forward(params, x))
        return -jnp.mean(jnp.take_along_axis(logp, y[:, None], axis=1))

    @jax.jit
    def step(params, m, v, t):
        return adam_step(params, jax.grad(loss)(params), m, v, t, lr=lr)

    zeros = jax.tree.map(jnp.zeros_like, params)
    first = float(loss(params))
    elapsed, (params, _, _, _) = timed(
        step, (params, zeros, zeros, jnp.float32(0)), steps)
    assert float(loss(params)) < first, "the steps fit the batch"
    print(f"{elapsed / steps * 1000:.4f}")


def uniform(key, shape, fan_in):
    bound = 1 / fan_in**0.5
    return jax.random.uniform(key, shape, jnp.float32, -bound, bound)


def cnn_params(k):
    """The seed CNN's parameters (PyTorch's default initialization), from
    six keys."""
    return {"w1": uniform(k[0], (3, 3, 1, 16), 9),
            "b1": uniform(k[1], (16,), 9),
            "w2": uniform(k[2], (3, 3, 16, 16), 144),
            "b2": uniform(k[3], (16,), 144),
            "w3": uniform(k[4], (16, 10), 16),
            "b3": uniform(k[5], (10,), 16)}


def cnn_forward(p, x):
    """The seed CNN's logits for NHWC images."""
    def conv(h, w):
        return jax.lax.conv_general_dilated(
            h, w, (1, 1), "VALID", dimension_numbers=("NHWC", "HWIO", "NHWC"))

    h = jax.nn.relu(conv(x, p["w1"]) + p["b1"])
    h = jax.nn.relu(conv(h, p["w2"]) + p["b2"])
    return jnp.mean(h, axis=(1, 2)) @ p["w3"] + p["b3"]


def w3(steps=300):
    k = jax.random.split(jax.random.PRNGKey(0), 8)
    x = jax.random.uniform(k[6], (32, 28, 28, 1))
    y = jax.random.randint(k[7], (32,), 0, 10)
    ms_per_training_step(cnn_forward, cnn_params(k), x, y, steps)


def w4(steps=300):
    k = jax.random.split(jax.random.PRNGKey(0), 8)
    sizes = [(784, 256), (256, 256), (256, 10)]
    params = [(uniform(k[2 * i], s, s[0]), uniform(k[2 * i + 1], s[1:], s[0]))
              for i, s in enumerate(sizes)]
    x = jax.random.uniform(k[6], (128, 784))
    y = jax.random.randint(k[7], (128,), 0, 10)

    def forward(p, h):
        for i, (w, b) in enumerate(p):
            h = h @ w + b
            if i + 1 < len(p):
                h = jax.nn.relu(h)
        return h

    ms_per_training_step(forward, params, x, y, steps)


def w7(rounds=20):
    x = jax.random.uniform(jax.random.PRNGKey(0), (4194304,), jnp.float32,
                           -4.0, 4.0)
    work = jax.jit(lambda x: jnp.exp(x) + jnp.log(x * x + 1.0) +
                   jnp.tanh(x) + jax.nn.sigmoid(x))
    assert bool(jnp.isfinite(work(x)).all())
    check = float(work(x).sum())
    start = time.perf_counter()
    for i in range(rounds):
        check += float(work(x + 0.001 * i).sum())
    elapsed = time.perf_counter() - start
    print(f"{elapsed * 1000.0 / rounds:.4f}")


def w8(steps=20):
    """W8: nanoGPT's model as w8_gpt.py has it (vocabulary 256, d_model 128,
    4 layers of 4 heads, MLP 512, context 64, exact GELU), batch 16, Adam
    at 3e-3, no dropout."""
    V, D, H, F, T, B = 256, 128, 4, 512, 64, 16
    keys = iter(jax.random.split(jax.random.PRNGKey(0), 64))

    def dense(n_in, n_out):
        return (uniform(next(keys), (n_in, n_out), n_in),
                uniform(next(keys), (n_out,), n_in))

    def norm():
        return (jnp.ones(D), jnp.zeros(D))

    def block():
        return {"ln1": norm(), "qkv": dense(D, 3 * D), "out": dense(D, D),
                "ln2": norm(), "fc": dense(D, F), "proj": dense(F, D)}

    params = {"tok": jax.random.normal(next(keys), (V, D)),
              "pos": 0.02 * jax.random.normal(next(keys), (T, D)),
              "blocks": [block() for _ in range(4)], "ln": norm(),
              "head": dense(D, V)}
    causal = jnp.tril(jnp.ones((T, T), bool))

    def layer_norm(p, x):
        mean = x.mean(-1, keepdims=True)
        var = jnp.square(x - mean).mean(-1, keepdims=True)
        return (x - mean) / jnp.sqrt(var + 1e-5) * p[0] + p[1]

    def linear(p, x):
        return x @ p[0] + p[1]

    def attention(p, x):
        def heads(t):
            return t.reshape(B, T, H, D // H).transpose(0, 2, 1, 3)

        q, k, v = (heads(t) for t in jnp.split(linear(p["qkv"], x), 3, -1))
        scores = q @ k.transpose(0, 1, 3, 2) / (D // H) ** 0.5
        att = jax.nn.softmax(jnp.where(causal, scores, -jnp.inf), -1)
        return linear(p["out"], (att @ v).transpose(0, 2, 1, 3).reshape(B, T, D))

    def forward(p, idx):
        x = p["tok"][idx] + p["pos"]
        for b in p["blocks"]:
            x = x + attention(b, layer_norm(b["ln1"], x))
            h = jax.nn.gelu(linear(b["fc"], layer_norm(b["ln2"], x)),
                            approximate=False)
            x = x + linear(b["proj"], h)
        return linear(p["head"], layer_norm(p["ln"], x)).reshape(B * T, V)

    x = jax.random.randint(next(keys), (B, T), 0, V)
    y = jax.random.randint(next(keys), (B * T,), 0, V)
    ms_per_training_step(forward, params, x, y, steps, lr=3e-3)


if __name__ == "__main__":
    workload = {"w1": w1, "w2": w2, "w3": w3, "w4": w4, "w7": w7,
                "w8": w8}[sys.argv[1]]
    if len(sys.argv) > 2:
        workload(int(sys.argv[2]))
    else:
        workload()
