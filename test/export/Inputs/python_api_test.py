#!/usr/bin/python3
"""Calls mlp.tfl's exports from Python through the module tflc build
--shared --python made (in the directory given first) and checks them
against what `tflc run mlp.tfl` wrote (in the directory given second) and
against PyTorch: the forward pass and the gradient, the same for a batch
of any size (`?`) with batches of 1, 7 and 1000, records as dicts and as
objects, bad shapes and a run-time error raised as exceptions,
parameters read from the checkpoint, and calls from 4 threads."""
import collections
import concurrent.futures
import sys

import numpy as np
import torch

sys.path.insert(0, sys.argv[1])
import mlp  # noqa: E402

out = sys.argv[2]


def close(name, got, want):
    if not np.allclose(got, want, rtol=1e-5, atol=1e-6):
        sys.exit(f"FAILED: {name}: {got} != {want}")
    print("ok", name)


k = np.float32
p = {"w1": np.arange(32, dtype=k).reshape(4, 8) * k(0.05) - k(0.5),
     "b1": np.arange(8, dtype=k) * k(0.1) - k(0.3),
     "w2": np.arange(24, dtype=k).reshape(8, 3) * k(-0.04) + k(0.5),
     "b2": np.arange(3, dtype=k) * k(0.2)}
x = np.arange(24, dtype=k).reshape(6, 4) * k(0.1) - k(1.0)
y = np.arange(6) % 3

logits = mlp.predict(p, x)
close("predict", logits, np.load(f"{out}/predict.npy"))
loss, grads = mlp.loss_grad(p, x, y)
close("loss", loss, np.load(f"{out}/loss.npy"))
for name in ("w1", "b1", "w2", "b2"):
    close(f"grad {name}", grads[name], np.load(f"{out}/grad_{name}.npy"))

# The same with PyTorch.
tp = {n: torch.tensor(v, requires_grad=True) for n, v in p.items()}
h = torch.relu(torch.tensor(x) @ tp["w1"] + tp["b1"])
t_loss = torch.nn.functional.cross_entropy(h @ tp["w2"] + tp["b2"],
                                           torch.tensor(y))
t_loss.backward()
close("loss vs torch", loss, t_loss.item())
for name in ("w1", "b1", "w2", "b2"):
    close(f"grad {name} vs torch", grads[name], tp[name].grad.numpy())

# One library, batches of any size: against the program's run for the
# static shape [n, 4], and against PyTorch.
for n in (1, 7, 1000):
    xb, yb = np.load(f"{out}/x_b{n}.npy"), np.load(f"{out}/y_b{n}.npy")
    close(f"predict_batch {n}", mlp.predict_batch(p, xb),
          np.load(f"{out}/predict_b{n}.npy"))
    loss_b, grads_b = mlp.loss_grad_batch(p, xb, yb)
    close(f"loss_batch {n}", loss_b, np.load(f"{out}/loss_b{n}.npy"))
    close(f"grad_batch w1 {n}", grads_b["w1"],
          np.load(f"{out}/grad_w1_b{n}.npy"))
    tp = {m: torch.tensor(v, dtype=torch.float64, requires_grad=True)
          for m, v in p.items()}
    h = torch.relu(torch.tensor(xb, dtype=torch.float64) @ tp["w1"] +
                   tp["b1"])
    t_loss = torch.nn.functional.cross_entropy(h @ tp["w2"] + tp["b2"],
                                               torch.tensor(yb))
    t_loss.backward()
    close(f"loss_batch {n} vs torch", loss_b, t_loss.item())
    for m in ("w1", "b1", "w2", "b2"):
        if not np.allclose(grads_b[m], tp[m].grad.numpy(), rtol=1e-4,
                           atol=1e-5):
            sys.exit(f"FAILED: grad_batch {m} {n} vs torch")
    print(f"ok grad_batch {n} vs torch")
try:
    mlp.loss_grad_batch(p, xb, yb[:-1])
    sys.exit("FAILED: batches of two sizes were taken")
except ValueError as e:
    print("ValueError:", e)

# A record may be any object with the fields; f64 arguments cast to f32.
MLP = collections.namedtuple("MLP", ["w1", "b1", "w2", "b2"])
close("predict of a namedtuple and f64", mlp.predict(MLP(**p), x.astype(np.float64)),
      logits)
close("row", mlp.row(x, 3), np.load(f"{out}/row3.npy"))

try:
    mlp.predict(p, x[:5])
    sys.exit("FAILED: a bad shape was taken")
except ValueError as e:
    print("ValueError:", e)
try:
    mlp.row(x, 9)
    sys.exit("FAILED: row 9")
except mlp.TFLError as e:
    print("TFLError:", e)

loaded = mlp.load_MLP(f"{out}/mlp.safetensors")
for name in p:
    close(f"load {name}", loaded[name], p[name])
try:
    mlp.load_MLP(f"{out}/missing.safetensors")
    sys.exit("FAILED: a missing checkpoint was read")
except mlp.TFLError as e:
    print("TFLError:", e)


def work(_):
    for _ in range(50):
        got_logits = mlp.predict(p, x)
        got_loss, got_grads = mlp.loss_grad(p, x, y)
        if not (np.array_equal(got_logits, logits) and got_loss == loss and
                all(np.array_equal(got_grads[n], grads[n]) for n in grads)):
            return False
    return True


with concurrent.futures.ThreadPoolExecutor(4) as pool:
    if not all(pool.map(work, range(4))):
        sys.exit("FAILED: calls from threads differ")
print("ok 4 threads")
