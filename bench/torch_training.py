"""The timing loop of the PyTorch training-step workloads (W3, W4), and
the command line all the PyTorch workloads share."""
import sys
import time

import torch


def parse_args(default_steps):
    """(steps, compile) from `[STEPS] [--compile] [--cuda] [--batch=N]`:
    with --compile (a PyTorch 2 peer), the workload's computation runs
    through torch.compile; with --cuda, on the GPU (`device()`)."""
    # f32 math on both sides: TFL keeps TF32 off, and so does this
    # (PyTorch lets cuDNN's convolutions use TF32 by default).
    torch.backends.cudnn.allow_tf32 = False
    torch.backends.cuda.matmul.allow_tf32 = False
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    return (int(args[0]) if args else default_steps,
            "--compile" in sys.argv[1:])


def batch(default):
    """The batch size: --batch=N, or `default`."""
    return next((int(a.split("=")[1]) for a in sys.argv[1:]
                 if a.startswith("--batch=")), default)


def device():
    """Where the workload runs: the GPU with --cuda, else the CPU."""
    return torch.device("cuda" if "--cuda" in sys.argv[1:] else "cpu")


def sync():
    """Waits for queued GPU work, so that a timer reading measures it."""
    if device().type == "cuda":
        torch.cuda.synchronize()


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
    sync()
    start = time.perf_counter()
    for _ in range(steps):
        step()
    sync()
    return (time.perf_counter() - start) / steps * 1000
