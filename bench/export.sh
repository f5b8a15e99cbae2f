#!/usr/bin/env bash
# Times the seed CNN's forward pass on batches of 256 images called from C
# through a library (tflc build --shared of examples/mnist_cnn_export.tfl,
# whose export takes a batch of any size) against the same pass with a
# static batch of 256 inside a TFL executable, on this machine, in one
# run (best of REPEATS, default 3): the library's call should cost at most
# 1.05x. Needs a built tflc (./dev.sh main).
set -euo pipefail
cd "$(dirname "$0")"
# shellcheck source=bench/best.sh
. ./best.sh
tflc=../build/bin/tflc
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
export TFL_STDLIB_PATH="$PWD/../examples:$PWD/../stdlib"
"$tflc" build export_forward.tfl -o "$out/forward"
"$tflc" build --shared ../examples/mnist_cnn_export.tfl -o "$out/libmnist_cnn.so"
cc -O2 export_forward.c -I"$out" -L"$out" -lmnist_cnn -lz \
  -Wl,-rpath,"$out" -o "$out/forward_c"
tfl=$(best "$out/forward")
lib=$(best "$out/forward_c")
awk -v t="$tfl" -v l="$lib" 'BEGIN {
  r = l / t
  printf "%-52s %10s %10s %8s  <= %-5s %s\n", "workload", "executable",
    "library", "ratio", "1.05", "met"
  printf "%-52s %10.3f %10.3f %7.3fx  <= %-5s %s\n",
    "seed CNN forward, batch 256, from C (ms per batch)", t, l, r, "1.05",
    (r <= 1.05 ? "yes" : "NO")
}'
