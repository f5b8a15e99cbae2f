"""What the peers' sides of the transform benchmarks (hvp_peers.py,
per_example_peers.py) share: JAX's CPU threads set to 2 (import this
before jax), the repeat count from the command line, and the timer."""
import os
import sys
import time

os.environ.setdefault("XLA_FLAGS", "--xla_cpu_multi_thread_eigen=true "
                      "intra_op_parallelism_threads=2")
repeats = int(sys.argv[1]) if len(sys.argv) > 1 else 50


def timed(fn, block):
    """Milliseconds per call of fn, after one warm-up call; `block` waits
    for a result (JAX's are asynchronous)."""
    block(fn())
    t0 = time.perf_counter()
    for _ in range(repeats):
        out = fn()
    block(out)
    return (time.perf_counter() - t0) / repeats * 1000
