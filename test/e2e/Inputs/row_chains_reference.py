#!/usr/bin/python3
"""PyTorch's values (f64, from the same f32 inputs) for
row-chains-vs-torch.tfl, printed as TFL prints them."""
import numpy as np
import torch


def pattern(shape, a, b):
    n = int(np.prod(shape))
    i = np.arange(n, dtype=np.int64)
    v = ((i * a) % b).astype(np.float32) / np.float32(b)
    return (v * np.float32(6.0) - np.float32(3.0)).reshape(shape)


def t(a, grad=False):
    return torch.tensor(a, dtype=torch.float64, requires_grad=grad)


def show(v, rows):
    print(v.detach().reshape(rows, -1).sum(-1).numpy().astype(np.float32))


x4, w4 = pattern((6, 5, 70, 37), 7919, 1013), pattern((6, 5, 70, 37), 104729, 997)
xc, wc = pattern((4, 3, 64, 64), 7907, 1009), pattern((4, 3, 64, 64), 104723, 991)
x2, w2 = pattern((300, 130), 7901, 1019), pattern((300, 130), 104717, 983)
lw = pattern((130,), 31, 101) * np.float32(0.25) + np.float32(1.0)
lb = pattern((130,), 37, 103) * np.float32(0.1)
keep = torch.tril(torch.ones(64, 64, dtype=torch.bool))


def soft(x):
    return torch.softmax(x, -1)


def log_soft(x):
    return torch.log_softmax(x, -1)


def causal(x):
    return torch.softmax(torch.where(keep, x, torch.tensor(-1e30, dtype=x.dtype)), -1)


def norm(x, w, b):
    return torch.nn.functional.layer_norm(x, (130,), w, b, 1e-5)


show(soft(t(x4)) * t(w4), 30)
show(log_soft(t(x4)) * t(w4), 30)
show(causal(t(xc)) * t(wc), 12)
show(norm(t(x2), t(lw), t(lb)) * t(w2), 10)
for f, x, w, rows in ((soft, x4, w4, 30), (log_soft, x4, w4, 30),
                      (causal, xc, wc, 12)):
    xt = t(x, True)
    (g,) = torch.autograd.grad((f(xt) * t(w)).sum(), xt)
    show(g * t(w), rows)
xt, wt, bt = t(x2, True), t(lw, True), t(lb, True)
gx, gw, gb = torch.autograd.grad((norm(xt, wt, bt) * t(w2)).sum(), (xt, wt, bt))
show(gx * t(w2), 10)
print(gw.numpy().astype(np.float32))
print(gb.numpy().astype(np.float32))
