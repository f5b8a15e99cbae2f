#!/usr/bin/python3
"""Checks stdlib-vs-torch.tfl's output against PyTorch and NumPy.

Usage: check_stdlib_vs_torch.py OUTPUT

OUTPUT holds lines "@name values...", a value list possibly wrapped over
several lines as NumPy wraps it. Prints "name ok" per check, or fails with
the difference.
"""
import math
import re
import sys

import numpy as np
import torch

torch.set_default_dtype(torch.float64)


def parse(path):
    out, name = {}, None
    for line in open(path):
        if line.startswith("@"):
            name, line = line[1:].split(None, 1)
            out[name] = ""
        out[name] += " " + line
    return {k: np.array([float(t) for t in re.findall(
        r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?", v)]) for k, v in out.items()}


def close(name, got, want, rtol=1e-5, atol=1e-6):
    want = np.asarray(want, dtype=np.float64).ravel()
    if got.shape != want.shape or not np.allclose(got, want, rtol=rtol, atol=atol):
        sys.exit(f"{name}: got {got}, want {want}")
    print(name, "ok")


X = torch.tensor([[1.0, -2.0, 0.5], [0.3, 0.8, -1.0], [2.0, 0.1, 0.4], [-0.7, 1.5, 1.2]])
Y = torch.tensor([[1.0, 0.0], [0.5, -1.0], [0.0, 2.0], [-1.5, 0.5]])


def train(make, clip=None):
    w = torch.tensor([[0.2, -0.4], [0.6, 0.1], [-0.3, 0.5]], requires_grad=True)
    b = torch.tensor([0.1, -0.2], requires_grad=True)
    s = torch.full((2,), 0.7, requires_grad=True)
    opt = make([w, b, s])
    for _ in range(5):
        opt.zero_grad()
        torch.nn.functional.mse_loss(torch.tanh(X @ w + b) * s, Y).backward()
        if clip:
            clip([w, b, s])
        opt.step()
    return np.concatenate([w.detach().numpy().ravel(), b.detach().numpy(), s.detach().numpy()])


def main():
    v = parse(sys.argv[1])
    close("sgd", v["sgd"], train(lambda p: torch.optim.SGD(p, lr=0.5)))
    close("momentum", v["momentum"],
          train(lambda p: torch.optim.SGD(p, lr=0.1, momentum=0.9)))
    close("adam", v["adam"], train(lambda p: torch.optim.Adam(p, lr=0.05)))
    close("adam2", v["adam2"], train(lambda p: torch.optim.Adam(
        p, lr=0.01, betas=(0.8, 0.99), eps=1e-3)))
    close("adamw", v["adamw"], train(lambda p: torch.optim.AdamW(
        p, lr=0.05, weight_decay=0.1)))
    close("adamw2", v["adamw2"], train(lambda p: torch.optim.AdamW(
        p, lr=0.01, betas=(0.8, 0.99), eps=1e-3, weight_decay=0.5)))
    # nanoGPT's groups: the matrix decays, the bias and the scale do not.
    close("adamw_groups", v["adamw_groups"], train(lambda p: torch.optim.AdamW(
        [{"params": [q for q in p if q.dim() >= 2], "weight_decay": 0.5},
         {"params": [q for q in p if q.dim() < 2], "weight_decay": 0.0}],
        lr=0.05)))
    norms = []
    close("clipped", v["clipped"], train(
        lambda p: torch.optim.SGD(p, lr=0.5),
        lambda p: norms.append(torch.nn.utils.clip_grad_norm_(p, 0.3).item())))
    close("norms", np.concatenate([v[f"norm{i}"] for i in range(5)]), norms)

    def lr(step, warmup=10, total=100, top=6e-4, low=6e-5):
        # nanoGPT's get_lr.
        if step < warmup:
            return top * (step + 1) / (warmup + 1)
        if step > total:
            return low
        ratio = (step - warmup) / (total - warmup)
        return low + 0.5 * (1.0 + math.cos(math.pi * ratio)) * (top - low)
    close("schedule", v["schedule"],
          [lr(s) for s in (0, 4, 9, 10, 11, 55, 99, 100, 150)])

    logits = torch.tensor([[2.0, -1.0, 0.5], [0.1, 0.2, 0.3], [-3.0, 4.0, 1.0],
                           [1.0, 1.0, 1.0]], requires_grad=True)
    labels = torch.tensor([0, 2, 1, 1])
    ce = torch.nn.functional.cross_entropy(logits, labels)
    ce.backward()
    close("ce", v["ce"], [ce.item()])
    close("ce_grad", v["ce_grad"], logits.grad.numpy())
    close("mse", v["mse"], [torch.nn.functional.mse_loss(X[0], X[1]).item()])
    logits3 = torch.tensor([[[2.0, -1.0, 0.5], [0.1, 0.2, 0.3]],
                            [[-3.0, 4.0, 1.0], [1.0, 1.0, 1.5]]],
                           requires_grad=True)
    labels3 = torch.tensor([[0, 2], [1, 1]])
    ce3 = torch.nn.functional.cross_entropy(logits3.reshape(-1, 3),
                                            labels3.reshape(-1))
    ce3.backward()
    close("ce3", v["ce3"], [ce3.item()])
    close("ce3_grad", v["ce3_grad"], logits3.grad.numpy())

    close("mean", v["mean"], [np.mean([1.0, 2.0, 3.0, 10.0])])
    hits = list(np.argmax(logits.detach().numpy(), -1) == labels.numpy()) + [True]
    close("accuracy", v["accuracy"], [np.mean(hits)])

    order = v["order"].astype(int)
    if sorted(order) != list(range(10)):
        sys.exit(f"order: {order} is not a permutation of 0..9")
    print("order ok")
    rows = np.arange(30).reshape(10, 3)
    close("batch", v["batch"], list(rows[order[4:8]].ravel()) + [10 // 4])
    close("images", v["images"], np.array([0, 51, 255]) / 255.0)
    close("fans", v["fans"], [36, 72, 784, 10])

    # Initializers: the limits and standard deviations Keras gives them,
    # from the fans; 60000 and 57600 draws put the sample spread within 2%.
    def spread(name, got, limit=None, std=None):
        lo_hi = got[:-2] if limit is not None else []
        m, rms = got[-2], got[-1]
        ok = abs(m) < 0.02 * std and abs(rms / std - 1) < 0.02
        if limit is not None:
            ok = ok and -limit <= lo_hi[0] < -0.99 * limit and 0.99 * limit < lo_hi[1] <= limit
        if not ok:
            sys.exit(f"{name}: got {got}, want limit {limit}, std {std}")
        print(name, "ok")

    lim = math.sqrt(6 / (300 + 200))
    spread("glorot_uniform", v["glorot_uniform"], lim, lim / math.sqrt(3))
    spread("glorot_normal", v["glorot_normal"], None, math.sqrt(2 / 500))
    lim = math.sqrt(6 / (3 * 3 * 16))
    spread("he_uniform", v["he_uniform"], lim, lim / math.sqrt(3))
    spread("he_normal", v["he_normal"], None, math.sqrt(2 / (3 * 3 * 16)))

    close("dense", v["dense"], [3, 2, 0, 0, 5, 2])
    close("conv", v["conv"], [3, 3, 2, 4, 0, 0, 0, 0, 1, 3, 3, 4])
    close("pool", v["pool"], [3, 4, 2, 12])

    gx = [-5.0, -3.0, -1.0, -0.1, 0.0, 0.5, 2.0, 4.5]
    gw = torch.tensor([0.3, -1.2, 0.7, 2.0, -0.4, 1.1, -0.8, 0.5])

    def gelus(xs, ws):
        """gelu's values and the gradients of sum(gelu(x) * ws), "none"
        then "tanh"."""
        values, grads = [], []
        for approximate in ("none", "tanh"):
            x = torch.tensor(xs, requires_grad=True)
            y = torch.nn.functional.gelu(x, approximate=approximate)
            (y * ws).sum().backward()
            values.append(y.detach().numpy())
            grads.append(x.grad.numpy())
        return np.concatenate(values), np.concatenate(grads)
    values, grads = gelus(gx, gw)
    close("gelu", v["gelu"], values)
    close("gelu_grad", v["gelu_grad"], grads)
    # The f64 run casts the f32 inputs and weights (-0.1 as f32's nearest):
    # its references start from the same values, compared at the 9 digits
    # print shows.
    gx = np.float32(gx).astype(np.float64).tolist()
    gw = torch.tensor(np.float32(gw.numpy()).astype(np.float64))
    values, grads = gelus(gx, gw)
    close("gelu_f64", v["gelu_f64"], values, 2e-8, 1e-15)
    close("gelu_f64_grad", v["gelu_f64_grad"], grads, 2e-8, 1e-15)

    def gelu64(x, approximate):
        if approximate == "tanh":
            return 0.5 * x * (1 + math.tanh(math.sqrt(2 / math.pi) *
                                            (x + 0.044715 * x ** 3)))
        return 0.5 * x * (1 + math.erf(x / math.sqrt(2)))
    h = 1e-6
    fd = [w * (gelu64(x + h, a) - gelu64(x - h, a)) / (2 * h)
          for a in ("none", "tanh") for x, w in zip(gx, gw.tolist())]
    close("gelu_f64_grad_fd", v["gelu_f64_grad"], fd, 1e-7, 1e-9)
    # bf16: computed in f32 from the bf16 inputs, rounded once. PyTorch's
    # own bf16 gelu is not that reference on every CPU: its "tanh" rounds
    # along the way (gelu(-3) = -0.00586, 1.6x the true value), and the
    # AVX2 build of its "none" gives -0 for inputs below about -3 where
    # the AVX-512 build rounds once. The reference is the f32 function
    # rounded to bf16.
    xb = torch.tensor(gx, dtype=torch.float32).bfloat16()
    bf16 = [torch.nn.functional.gelu(xb.float(), approximate=a).bfloat16()
            .double().numpy() for a in ("none", "tanh")]
    close("gelu_bf16", v["gelu_bf16"], np.concatenate(bf16), 1e-2, 1e-6)

    ln = torch.nn.LayerNorm(4, eps=1e-3)
    with torch.no_grad():
        ln.weight.copy_(torch.tensor([1.5, -0.5, 2.0, 1.0]))
        ln.bias.copy_(torch.tensor([0.1, 0.0, -0.3, 0.2]))
    lx = torch.tensor([[1.0, 2.0, 0.5, -1.0], [3.0, 3.0, 3.0, 3.5],
                       [0.0, -2.0, 4.0, 1.0]], requires_grad=True)
    lw = torch.tensor([[0.3, -1.2, 0.7, 2.0], [-0.4, 1.1, -0.8, 0.5],
                       [1.0, 0.2, -0.6, 0.9]])
    y = ln(lx)
    (y * lw).sum().backward()
    plain = torch.nn.functional.layer_norm(lx.detach(), (4,))
    close("layernorm", v["layernorm"],
          np.concatenate([y.detach().numpy().ravel(), plain.numpy().ravel()]))
    close("layernorm_grad", v["layernorm_grad"], np.concatenate(
        [ln.weight.grad.numpy(), ln.bias.grad.numpy(),
         lx.grad.numpy().ravel()]))
    # Five AdamW steps of a LayerNorm (eps 1e-5, not a parameter) and a
    # Linear layer.
    norm = torch.nn.LayerNorm(4)
    dense = torch.nn.Linear(4, 2)
    with torch.no_grad():
        dense.weight.copy_(torch.tensor([[0.2, -0.4], [0.6, 0.1], [-0.3, 0.5],
                                         [0.1, 0.1]]).T)
        dense.bias.copy_(torch.tensor([0.1, -0.2]))
    params = [norm.weight, norm.bias, dense.weight, dense.bias]
    opt = torch.optim.AdamW(params, lr=0.05, weight_decay=0.1)
    target = torch.tensor([[1.0, 0.0], [0.5, -1.0], [0.0, 2.0]])
    for _ in range(5):
        opt.zero_grad()
        torch.nn.functional.mse_loss(dense(norm(lx.detach())), target).backward()
        opt.step()
    close("layernorm_train", v["layernorm_train"], np.concatenate(
        [norm.weight.detach().numpy(), norm.bias.detach().numpy(),
         dense.weight.detach().numpy().T.ravel(), dense.bias.detach().numpy()]))

    emb = torch.nn.Embedding(3, 2)
    with torch.no_grad():
        emb.weight.copy_(torch.tensor([[0.5, -1.0], [2.0, 0.25], [1.5, 1.0]]))
    ids = torch.tensor([[2, 0, 2], [1, 2, 2]])
    ew = torch.tensor([[[1.0, 2.0], [0.5, -1.0], [3.0, 0.0]],
                       [[-2.0, 1.0], [0.25, 0.5], [1.0, 1.0]]])
    e = emb(ids)
    (e * ew).sum().backward()
    close("embedding", v["embedding"], e.detach().numpy())
    close("embedding_grad", v["embedding_grad"], emb.weight.grad.numpy())

    # Dropout draws from TFL's generator, not PyTorch's: its statistics.
    # 10^4 draws at rate 0.25 keep 75% +- 0.4% (sd); kept values are
    # 3 / 0.75, dropped ones 0, and without training nothing changes.
    kept, top, dropped_sum, untouched = v["dropout"]
    if not (abs(kept - 0.75) < 0.02 and abs(top - 4.0) < 1e-6 and
            dropped_sum == 0 and untouched == 18.0):
        sys.exit(f"dropout: got {v['dropout']}")
    print("dropout ok")
    # Its gradient is the mask / (1 - rate) times the upstream 2: a sum of
    # about 2 / 0.75 * 7500 = 20000.
    if abs(v["dropout_grad"][0] / 20000 - 1) > 0.03:
        sys.exit(f"dropout_grad: got {v['dropout_grad']}")
    print("dropout_grad ok")

    # nanoGPT's CausalSelfAttention on TFL's weights (w_qkv [D, 3, H, K]
    # is c_attn's weight transposed, heads in its shape).
    p = v["attn_params"]
    sizes = [8 * 3 * 2 * 4, 3 * 2 * 4, 2 * 4 * 8, 8, 2 * 5 * 8, 2 * 5 * 8]
    parts = np.split(p, np.cumsum(sizes)[:-1])
    wqkv, bqkv, wout, bout, ax, aw = (torch.tensor(a, requires_grad=True)
                                      for a in parts)

    def attention(x, extra=None, keep=None):
        B, T, D, H, K = 2, 5, 8, 2, 4
        qkv = x.view(B * T, D) @ wqkv.view(D, 3 * H * K)
        qkv = qkv.view(B, T, 3, H, K) + bqkv.view(3, H, K)
        q, k, vv = (qkv[:, :, i].transpose(1, 2) for i in range(3))
        s = (q @ k.transpose(-1, -2)) / math.sqrt(K)
        if extra is not None and extra.dtype == torch.bool:
            s = s.masked_fill(~extra, -1e30)
        elif extra is not None:
            s = s + extra
        causal = torch.ones(T, T).tril().bool()
        a = torch.softmax(s.masked_fill(~causal, -1e30), -1)
        if keep is not None:  # inverted dropout at rate 0.5
            a = a * keep[0] / 0.5
        y = (a @ vv).transpose(1, 2).reshape(B * T, H * K)
        out = (y @ wout.view(H * K, D)).view(B, T, D) + bout
        return out if keep is None else out * keep[1] / 0.5
    x = ax.view(2, 5, 8)
    out = attention(x)
    (out * aw.view(2, 5, 8)).sum().backward()
    close("attn", v["attn"], out.detach().numpy(), 1e-5, 1e-5)
    close("attn_grad", v["attn_grad"], np.concatenate(
        [t.grad.numpy().ravel() for t in (wqkv, bqkv, wout, bout, ax)]),
        1e-5, 1e-5)
    keep = torch.tensor([[1, 1, 0, 1, 1], [1, 1, 1, 1, 1], [0, 1, 1, 1, 1],
                         [1, 1, 1, 1, 0], [1, 0, 1, 1, 1]]).bool()
    bias = torch.tensor([[0.5, -1.0, 0.0, 2.0, 0.25], [0.0, 0.0, 1.5, -0.5, 0.0],
                         [1.0, 1.0, -2.0, 0.0, 0.5], [0.0, 0.3, 0.0, 0.0, -1.0],
                         [0.2, 0.0, 0.0, 0.7, 0.0]])
    with torch.no_grad():
        close("attn_masks", v["attn_masks"], np.concatenate(
            [attention(x, keep).numpy().ravel(),
             attention(x, bias).numpy().ravel()]), 1e-5, 1e-5)
        # The masks TFL drew (about half kept), applied here.
        keeps = v["attn_drop_keep"]
        if not (0.3 < keeps.mean() < 0.7):
            sys.exit(f"attn_drop_keep: {keeps.mean()} kept")
        ka, ko = np.split(keeps, [2 * 2 * 5 * 5])
        keep = (torch.tensor(ka, dtype=torch.float32).view(2, 2, 5, 5),
                torch.tensor(ko, dtype=torch.float32).view(2, 5, 8))
        close("attn_drop", v["attn_drop"],
              attention(x, keep=keep).numpy(), 1e-5, 1e-5)
    # At rate 0: the same output exactly, and the generator's state (both
    # words) unchanged.
    close("attn_nodrop", v["attn_nodrop"], np.append(np.zeros(80), 2.0), 0, 0)


if __name__ == "__main__":
    main()
