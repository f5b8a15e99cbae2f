#!/usr/bin/env bash
# Jacobians of a pair of 256-wide tanh layers: TFL's jacfwd, jacrev and
# hessian compiled (jacobian.tfl: each a jvp or vjp batched over the
# basis) against PyTorch's torch.func and JAX's under jax.jit
# (jacobian_peers.py). Writes results/DATE-cpu-jacobian.txt (transform.sh).
exec "$(dirname "$0")/transform.sh" jacobian "jacfwd_ms jacrev_ms hessian_ms"
