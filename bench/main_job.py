"""The main job's training loop (examples/mnist_cnn.tfl: the seed CNN,
one epoch of Fashion-MNIST in shuffled batches of 32, Adam at lr 1e-3,
then the test set's accuracy) in a peer, on 2 threads: PyTorch eager
(`torch`), PyTorch with torch.compile (`compile`) or JAX with jax.jit
(`jax`). Prints "images_per_second test_accuracy", the rate over the
epoch's training loop as the TFL program measures it (from after the
shuffle to the last step), after one warm-up step in which torch.compile
and jax.jit compile (TFL compiled ahead of time).

Usage: python main_job.py {torch,compile,jax} [--max_steps=N]
"""
import gzip
import os
import sys
import time

import numpy as np

os.environ.setdefault("OMP_NUM_THREADS", "2")
DATA = "/usr/share/datasets/fashion-mnist/"
BATCH = 32
MEAN, STD = 0.2860, 0.3530


def load_idx(name):
    with gzip.open(DATA + name) as f:
        data = f.read()
    dims = data[3]
    shape = [int.from_bytes(data[4 + 4 * i:8 + 4 * i], "big")
             for i in range(dims)]
    return np.frombuffer(data, np.uint8, offset=4 + 4 * dims).reshape(shape)


def max_steps(steps):
    for a in sys.argv[2:]:
        if a.startswith("--max_steps="):
            return min(steps, int(a.split("=")[1]))
    return steps


def run_torch(compile):
    import torch
    torch.set_num_threads(2)
    torch.manual_seed(0)
    train_x = torch.from_numpy(load_idx("train-images-idx3-ubyte.gz").copy())
    train_y = torch.from_numpy(
        load_idx("train-labels-idx1-ubyte.gz").astype(np.int64))
    test_x = torch.from_numpy(load_idx("t10k-images-idx3-ubyte.gz").copy())
    test_y = torch.from_numpy(
        load_idx("t10k-labels-idx1-ubyte.gz").astype(np.int64))
    model = torch.nn.Sequential(
        torch.nn.Conv2d(1, 16, 3), torch.nn.ReLU(),
        torch.nn.Conv2d(16, 16, 3), torch.nn.ReLU(),
        torch.nn.AdaptiveAvgPool2d(1), torch.nn.Flatten(),
        torch.nn.Linear(16, 10))
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)

    def inputs(images):
        return ((images.float() / 255 - MEAN) / STD).unsqueeze(1)

    def loss(x, y):
        return torch.nn.functional.cross_entropy(model(inputs(x)), y)

    if compile:
        loss = torch.compile(loss)
        opt.step = torch.compile(opt.step)
    steps = max_steps(len(train_x) // BATCH)
    order = torch.randperm(len(train_x))
    # One warm-up step on the first batch (torch.compile compiles in it).
    opt.zero_grad()
    loss(train_x[order[:BATCH]], train_y[order[:BATCH]]).backward()
    opt.step()
    start = time.perf_counter()
    for i in range(steps):
        idx = order[i * BATCH:(i + 1) * BATCH]
        opt.zero_grad()
        value = loss(train_x[idx], train_y[idx])
        value.backward()
        opt.step()
    rate = steps * BATCH / (time.perf_counter() - start)
    with torch.no_grad():
        correct = sum(int((model(inputs(test_x[i:i + 500])).argmax(1)
                           == test_y[i:i + 500]).sum())
                      for i in range(0, len(test_x), 500))
    return rate, correct / len(test_x)


def run_jax():
    import jax
    import jax.numpy as jnp
    from jax_workloads import adam_step, cnn_forward, cnn_params
    k = jax.random.split(jax.random.PRNGKey(0), 7)
    params = cnn_params(k)
    train_x = jnp.asarray(load_idx("train-images-idx3-ubyte.gz"))
    train_y = jnp.asarray(load_idx("train-labels-idx1-ubyte.gz"), jnp.int32)
    test_x = jnp.asarray(load_idx("t10k-images-idx3-ubyte.gz"))
    test_y = jnp.asarray(load_idx("t10k-labels-idx1-ubyte.gz"), jnp.int32)

    def forward(p, images):
        x = ((images.astype(jnp.float32) / 255 - MEAN) / STD)[..., None]
        return cnn_forward(p, x)

    def loss(p, x, y):
        logp = jax.nn.log_softmax(forward(p, x))
        return -jnp.mean(jnp.take_along_axis(logp, y[:, None], axis=1))

    @jax.jit
    def step(p, m, v, t, order, i):
        idx = jax.lax.dynamic_slice(order, (i * BATCH,), (BATCH,))
        x, y = jnp.take(train_x, idx, axis=0), jnp.take(train_y, idx)
        value, grads = jax.value_and_grad(loss)(p, x, y)
        return (*adam_step(p, grads, m, v, t), value)

    zeros = jax.tree.map(jnp.zeros_like, params)
    state = (params, zeros, zeros, jnp.float32(0))
    steps = max_steps(len(train_x) // BATCH)
    order = jax.random.permutation(k[6], len(train_x))
    jax.block_until_ready(step(*state, order, 0))  # compiles
    start = time.perf_counter()
    for i in range(steps):
        *state, value = step(*state, order, i)
    jax.block_until_ready(state)
    rate = steps * BATCH / (time.perf_counter() - start)
    predict = jax.jit(lambda p, x: jnp.argmax(forward(p, x), axis=1))
    correct = sum(int((predict(state[0], test_x[i:i + 500])
                       == test_y[i:i + 500]).sum())
                  for i in range(0, len(test_x), 500))
    return rate, correct / len(test_x)


def main():
    peer = sys.argv[1]
    rate, accuracy = run_jax() if peer == "jax" else run_torch(
        peer == "compile")
    print(f"{rate:.0f} {accuracy:.4f}")


main()
