#!/usr/bin/env bash
# Splits a compiled TFL program's oneDNN GEMM time by shape:
#   bench/gemm_shapes.sh PROGRAM [ARGS...]
# runs PROGRAM with gemm_shapes.cpp preloaded (a wrapper of dnnl_sgemm)
# and prints, at its exit, each shape's calls, time and GFLOP/s. The time
# is summed over the threads that called: products that run one per
# thread (a batch of small ones) count each thread's time.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
lib=$(mktemp -d)/gemm_shapes.so
trap 'rm -rf "$(dirname "$lib")"' EXIT
c++ -O2 -shared -fPIC "$here/gemm_shapes.cpp" -o "$lib" -ldl
LD_PRELOAD=$lib "$@"
