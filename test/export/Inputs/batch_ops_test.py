#!/usr/bin/python3
"""Calls batch_ops.tfl's exports (a batch of any size) through the Python
module tflc build --shared --python made (in the directory given) with
batches of 0, 1, 7 and 300 rows, and checks each against NumPy, and the
gradients against PyTorch in f64."""
import sys

import numpy as np
import torch

sys.path.insert(0, sys.argv[1])
import batch_ops as b  # noqa: E402

F = torch.nn.functional
rng = np.random.default_rng(0)


def close(name, got, want, tol=1e-5):
    if not np.allclose(got, want, rtol=tol, atol=tol):
        sys.exit(f"FAILED: {name}: {got} != {want}")


def f32(*shape):
    return rng.standard_normal(shape).astype(np.float32)


def t64(a, grad=False):
    return torch.tensor(a, dtype=torch.float64, requires_grad=grad)


for n in (0, 1, 7, 300):
    table, ids = f32(10, 3), rng.integers(0, 10, n)
    close("gather", b.emb(table, ids), table[ids])
    x, y = f32(n, 2), f32(n, 3)
    joined, stacked = b.cat(x, y)
    close("concat", joined, np.concatenate([x, y], 1))
    close("stack", stacked, np.stack([x, x * 2], 1))
    close("gram", b.gram(x), x.T @ x, 1e-4)
    x = f32(n, 4)
    soft, extremes, mixed, middle, expanded, size = b.rows(x)
    if n:
        e = np.exp(x - x.max(1, keepdims=True))
        close("softmax + one_hot", soft,
              e / e.sum(1, keepdims=True) + np.eye(4)[x.argmax(1)])
        close("row reductions", extremes,
              x.max(1) + x.min(1) + x.prod(1) + np.log(np.exp(x).sum(1)))
    close("elementwise", mixed,
          np.where(x > 0, x, np.exp(x)) / (1 + np.exp(-x)) + np.tanh(x))
    close("slice", middle, x[:, 1:3])
    close("expand_dims", expanded, x[:, None])
    if size != n:
        sys.exit(f"FAILED: x.shape[0] is {size}, not {n}")
    column_mean, total, overall, outer_mean = b.reduce(x)
    if n:
        close("mean over the batch", column_mean, x.mean(0))
        close("mean", overall, x.mean())
        close("mean over two batch axes", outer_mean,
              (x[:, None] * x[None, :]).mean((0, 1)))
    elif not np.isnan(column_mean).all():
        sys.exit("FAILED: the mean of an empty batch is not NaN")
    close("sum", total, x.sum(), 1e-4)
    x = f32(n, 8, 8, 2)
    tx = t64(x, grad=True)
    nchw = tx.permute(0, 3, 1, 2)
    pooled = (F.max_pool2d(nchw, 2) + F.avg_pool2d(nchw, 2)).permute(0, 2, 3, 1)
    close("pools", b.pools(x), pooled.detach().numpy())
    (pooled ** 2).sum().backward()
    close("pools grad", b.pools_grad(x), tx.grad.numpy(), 1e-4)
    added, filled, doubled = b.sized(f32(n, 3) * 0)
    close("sized", added, np.ones((n, 3)))
    close("full", filled, np.full((n, 2), 5.0))
    close("ones", doubled, np.full((n,), 2.0))
    if n:
        net = {"conv": {"w": f32(3, 3, 1, 2), "b": f32(2)},
               "dense": {"w": f32(32, 3), "b": f32(3)}}
        images, labels = f32(n, 6, 6, 1), rng.integers(0, 3, n)
        loss, grads = b.net_grad(net, images, labels)
        tn = {k: {j: t64(v, grad=True) for j, v in d.items()}
              for k, d in net.items()}
        h = F.conv2d(t64(images).permute(0, 3, 1, 2),
                     tn["conv"]["w"].permute(3, 2, 0, 1))
        h = torch.relu(h + tn["conv"]["b"][None, :, None, None])
        h = h.permute(0, 2, 3, 1).reshape(n, -1)
        t_loss = F.cross_entropy(h @ tn["dense"]["w"] + tn["dense"]["b"],
                                 torch.tensor(labels))
        t_loss.backward()
        close("net loss", loss, t_loss.item(), 1e-4)
        for k in net:
            for j in net[k]:
                close(f"net grad {k}.{j}", grads[k][j],
                      tn[k][j].grad.numpy(), 1e-4)
    print(f"ok batch {n}")

try:
    b.emb(table, np.array([3, 12]))
    sys.exit("FAILED: an index out of range was taken")
except b.TFLError as e:
    print("TFLError:", e)
