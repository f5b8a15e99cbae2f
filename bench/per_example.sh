#!/usr/bin/env bash
# Per-example gradients of W4's MLP at batch 128: TFL's vmap(grad(f))
# compiled (per_example.tfl) against PyTorch's torch.func.vmap(grad) and
# JAX's jax.vmap(jax.grad) under jax.jit (per_example_peers.py), each
# against its own batch gradient. Writes results/DATE-cpu-per-example.txt
# (transform.sh).
exec "$(dirname "$0")/transform.sh" per_example \
  "batch_gradient_ms per_example_ms per_example/batch"
