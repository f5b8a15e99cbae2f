"""The timing loop of the PyTorch training-step workloads (W3, W4), and
the command line all the PyTorch workloads share."""
import sys
import time

import torch


def parse_args(default_steps):
    """(steps, compile) from `[STEPS] [--compile[=MODE]] [--graph] [--cuda]
    [--batch=N] [--bf16]`: with --compile (a PyTorch 2 peer), the
    workload's computation runs through torch.compile, in its default mode
    or in MODE (`--compile=max-autotune`); compile is False, or the mode
    (None for the default). With --cuda, on the GPU (`device()`); with
    --graph (GPU only, see ms_per_step), the whole step is one CUDA graph."""
    # f32 math on both sides: TFL keeps TF32 off, and so does this
    # (PyTorch lets cuDNN's convolutions use TF32 by default).
    torch.backends.cudnn.allow_tf32 = False
    torch.backends.cuda.matmul.allow_tf32 = False
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    compile = False
    for a in sys.argv[1:]:
        if a == "--compile":
            compile = None
        elif a.startswith("--compile="):
            compile = a.split("=", 1)[1]
    return (int(args[0]) if args else default_steps, compile)


def compiling(compile):
    """Whether parse_args's `compile` asks for torch.compile."""
    return compile is not False


def compiled(fn, compile):
    """fn through torch.compile in parse_args's mode, or fn itself."""
    if not compiling(compile):
        return fn
    return torch.compile(fn, mode=compile) if compile else torch.compile(fn)


def mark_step(compile):
    """Tells torch.compile's CUDA graphs (max-autotune's cudagraph trees)
    that a new iteration begins, so that it may reuse the last one's
    output memory (PyTorch's documented call for training loops)."""
    if compiling(compile) and compile and "max-autotune" in compile and \
            "no-cudagraphs" not in compile:
        torch.compiler.cudagraph_mark_step_begin()


def flag(name):
    """Whether --NAME is on the command line."""
    return f"--{name}" in sys.argv[1:]


def batch(default):
    """The batch size: --batch=N, or `default`."""
    return next((int(a.split("=")[1]) for a in sys.argv[1:]
                 if a.startswith("--batch=")), default)


def device():
    """Where the workload runs: the GPU with --cuda, else the CPU."""
    return torch.device("cuda" if flag("cuda") else "cpu")


def sync():
    """Waits for queued GPU work, so that a timer reading measures it."""
    if device().type == "cuda":
        torch.cuda.synchronize()


def graphed(step, warmups=3):
    """The whole of `step` (forward, backward, optimizer) captured as one
    CUDA graph, as PyTorch's documentation does it for whole-network
    capture: warm-up iterations on a side stream, gradients set to None
    before the capture so that backward allocates them from the graph's
    pool; returns the graph's replay."""
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        for _ in range(warmups):
            step()
    torch.cuda.current_stream().wait_stream(s)
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        step()
    return g.replay


def ms_per_step(model, x, y, steps, compile=False):
    """Milliseconds per training step (cross-entropy, backward, an Adam step
    at lr 1e-3) on one batch, after 10 warm-up steps (which include
    torch.compile's compilation). With --graph, the step is captured once
    as a CUDA graph (Adam with capturable=True, the fused kernels' form
    that keeps its step count on the GPU) and replayed."""
    graph = flag("graph")
    opt = torch.optim.Adam(model.parameters(), lr=1e-3, capturable=graph)

    def loss():
        return torch.nn.functional.cross_entropy(model(x), y)

    return ms_per_update(opt, loss, steps, compile)


def ms_per_update(opt, loss, steps, compile=False):
    """Milliseconds per step of the optimizer `opt` on the gradient of
    loss() (zero_grad, backward, step), after 10 warm-up steps; through
    torch.compile (the loss and the optimizer's step) in parse_args's
    mode, and with --graph the whole step captured as one CUDA graph (the
    optimizer made capturable by the caller)."""
    if compiling(compile):
        loss = compiled(loss, compile)
        opt.step = compiled(opt.step, compile)

    def step():
        mark_step(compile)
        opt.zero_grad(set_to_none=True)
        loss().backward()
        opt.step()

    if flag("graph"):
        step = graphed(step)
    return ms_per_call(step, steps)


def ms_per_call(step, steps, warmups=10):
    """Milliseconds per call of step() over `steps` calls, after `warmups`
    (torch.compile compiles in them), the queued GPU work included."""
    for _ in range(warmups):
        step()
    sync()
    start = time.perf_counter()
    for _ in range(steps):
        step()
    sync()
    return (time.perf_counter() - start) / steps * 1000
