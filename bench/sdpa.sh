#!/usr/bin/env bash
# Causal attention forward and backward: TFL's scaled_dot_product_attention
# compiled (sdpa.tfl: the fused kernels) against PyTorch's
# scaled_dot_product_attention, eager and torch.compile, and JAX's
# dot_product_attention under jax.jit (sdpa_peers.py), at W8's heads and
# two longer contexts. Writes results/DATE-cpu-sdpa.txt (transform.sh).
exec "$(dirname "$0")/transform.sh" sdpa "w8_ms t256_ms t1024_ms"
