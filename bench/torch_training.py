"""The timing loop of the PyTorch training-step workloads (W3, W4), and
the command line all the PyTorch workloads share."""
import sys
import time

import torch


def parse_args(default_steps):
    """(steps, compile) from `[STEPS] [--compile]`: with --compile (a
    PyTorch 2 peer), the workload's computation runs through
    torch.compile."""
    args = [a for a in sys.argv[1:] if a != "--compile"]
    return (int(args[0]) if args else default_steps,
            "--compile" in sys.argv[1:])


def ms_per_step(model, x, y, steps, compile=False):
    """Milliseconds per training step (cross-entropy, backward, an Adam step
    at lr 1e-3) on one batch, after 10 warm-up steps (which include
    torch.compile's compilation)."""
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)

    def loss():
        return torch.nn.functional.cross_entropy(model(x), y)

    if compile:
        loss = torch.compile(loss)
        opt.step = torch.compile(opt.step)

    def step():
        opt.zero_grad()
        loss().backward()
        opt.step()

    for _ in range(10):
        step()
    start = time.perf_counter()
    for _ in range(steps):
        step()
    return (time.perf_counter() - start) / steps * 1000
