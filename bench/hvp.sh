#!/usr/bin/env bash
# The Hessian-vector product of the W6 tanh MLP by forward over reverse:
# TFL's jvp(grad(f)) compiled (hvp.tfl) against PyTorch's
# torch.func.jvp(grad) and JAX's jax.jvp(jax.grad) under jax.jit
# (hvp_peers.py). Writes results/DATE-cpu-hvp.txt (transform.sh).
exec "$(dirname "$0")/transform.sh" hvp "gradient_ms hvp_ms hvp/gradient"
