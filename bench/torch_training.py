"""The timing loop of the PyTorch training-step workloads (W3, W4)."""
import time

import torch


def ms_per_step(model, x, y, steps):
    """Milliseconds per training step (cross-entropy, backward, an Adam step
    at lr 1e-3) on one batch, after 10 warm-up steps."""
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)

    def step():
        opt.zero_grad()
        torch.nn.functional.cross_entropy(model(x), y).backward()
        opt.step()

    for _ in range(10):
        step()
    start = time.perf_counter()
    for _ in range(steps):
        step()
    return (time.perf_counter() - start) / steps * 1000
