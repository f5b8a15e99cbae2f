#!/usr/bin/env bash
# The passes of stride-1 3x3 convolutions on TFL's kernels (TFL_CONV=tfl:
# Winograd's, or the few-channel ones) against oneDNN's direct kernels
# (TFL_CONV=onednn), the same libtflrt, alternating runs, each the best of
# 7: what the kernels' channel bounds in runtime/lib/Winograd.cpp come from
# (docs/performance.md). Needs a build
# (./dev.sh main). Shapes: "N H C K" (batch, input size, in and out
# channels), the seed CNN's second layer and others by default.
set -euo pipefail
cd "$(dirname "$0")"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
c++ -O2 -std=c++17 -I../runtime/include conv_passes.cpp ../build/lib/libtflrt.a \
  -ldnnl -lz -lgomp -lpthread -o "$out/conv_passes"
shapes=("$@")
[ ${#shapes[@]} -eq 0 ] && shapes=("32 26 16 16" "32 26 8 16" "32 26 16 8"
  "32 26 32 32" "32 26 16 64" "32 26 48 24" "16 26 32 64" "16 16 64 64"
  "16 26 64 64" "64 10 16 16" "64 6 32 32" "8 16 96 96"
  "2 58 64 64")
printf "%-14s %-8s %9s %9s %9s\n" "N H C K" kernels forward input filter
for s in "${shapes[@]}"; do
  # shellcheck disable=SC2086
  read -r wf wi wl < <(TFL_CONV=tfl "$out/conv_passes" $s | awk '{print $2, $4, $6}')
  # shellcheck disable=SC2086
  read -r df di dl < <(TFL_CONV=onednn "$out/conv_passes" $s |
    awk '{print $2, $4, $6}')
  printf "%-14s %-8s %9s %9s %9s\n" "$s" TFL "$wf" "$wi" "$wl"
  printf "%-14s %-8s %9s %9s %9s\n" "" oneDNN "$df" "$di" "$dl"
  awk -v a="$df" -v b="$wf" -v c="$di" -v d="$wi" -v e="$dl" -v f="$wl" \
    'BEGIN { printf "%-14s %-8s %8.2fx %8.2fx %8.2fx\n", "", "speedup", a/b, c/d, e/f }'
done
