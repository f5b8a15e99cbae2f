#!/usr/bin/env bash
# Runs the benchmarks in TFL (compiled) and in PyTorch on this machine, in
# one run, and prints the ratios. Needs a built tflc (./dev.sh main) and
# Debian's python3-torch with libopenblas-dev (apt).
set -euo pipefail
cd "$(dirname "$0")"
tflc=../build/bin/tflc
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

"$tflc" build grad_ratio.tfl -o "$out/grad_ratio"
read -r tf tg tr < <("$out/grad_ratio" | tail -1)
read -r pf pg pr < <(/usr/bin/python3 grad_ratio.py)
printf '%-44s %10s %10s\n' "gradient/forward cost (f = tanh MLP, 512)" TFL PyTorch
printf '%-44s %10s %10s\n' "  forward ms" "$tf" "$pf"
printf '%-44s %10s %10s\n' "  gradient ms" "$tg" "$pg"
printf '%-44s %10s %10s\n' "  gradient / forward" "$tr" "$pr"
