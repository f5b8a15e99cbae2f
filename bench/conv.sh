#!/usr/bin/env bash
# The passes of stride-1 3x3 convolutions through libtflrt's public entry
# points, three ways: TFL's kernels forced (TFL_CONV=tfl: Winograd's, or
# the few-channel ones, where one takes the pass), oneDNN's direct kernels
# forced (TFL_CONV=onednn), and the default, the kernel libtflrt measures
# and picks on first use (runtime/lib/KernelChoice.cpp, with no cache file,
# so each run measures again). The three take turns ROUNDS times (default
# 3); each pass keeps its best time (conv_passes: the best of 7 means of 30
# calls). Separate processes differ by up to 10-15% on a shared machine,
# which one round cannot tell from a kernel's speed.
#
# Prints, and writes to results/DATE-cpu-conv-passes.txt with the CPU and
# the commit, each shape's rows and the check the default must pass:
# never slower than oneDNN's by more than 5% on any pass a TFL kernel
# takes. "-" in the "takes" column: no TFL kernel takes the pass, so
# every side runs oneDNN's (the check leaves it out: its rows differ by
# the machine's noise alone); W: Winograd's, F: the few-channel kernels. On a machine with
# AVX-512 the table is made a second time with TFL_ISA=avx2 (TFL's AVX2
# kernels and oneDNN's AVX2 code). Needs a build (./dev.sh main).
# Shapes: "N H C K" (batch, input size, in and out channels).
set -euo pipefail
cd "$(dirname "$0")"
# shellcheck source=bench/cpu.sh
. ./cpu.sh
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
c++ -O2 -std=c++17 -I../runtime/include conv_passes.cpp ../build/lib/libtflrt.a \
  -ldnnl -lz -lgomp -lpthread -o "$out/conv_passes"
rounds=${ROUNDS:-3}
shapes=("$@")
[ ${#shapes[@]} -eq 0 ] && shapes=("32 28 1 16" "32 28 3 16" "32 28 1 32"
  "32 28 3 32" "32 26 16 16" "32 26 8 16" "32 26 16 8" "32 26 32 32"
  "32 26 16 64" "32 26 48 24" "16 26 32 64" "16 16 64 64" "16 26 64 64"
  "64 10 16 16" "64 6 32 32" "8 16 96 96" "2 58 64 64")

# The kernels that take each pass with TFL's forced ("W"/"F"/"-" each),
# from the kernels' report on stderr ($1).
takes() {
  awk '
    function kind(line) { return line ~ /: winograd \(/ ? "W" : "F" }
    / conv2d forward /         { f = kind($0) }
    / conv2d input gradient /  { i = kind($0) }
    / conv2d filter gradient / { g = kind($0) }
    END { print (f ? f : "-") (i ? i : "-") (g ? g : "-") }' "$1"
}

# One run of a side: "forward input filter" in ms.
run_side() { # side (tfl|onednn|default), shape...
  local side=$1
  shift
  if [ "$side" = default ]; then
    TFL_KERNEL_CACHE=off "$out/conv_passes" "$@"
  else
    TFL_CONV=$side TFL_REPORT_KERNELS=1 "$out/conv_passes" "$@" 2> "$out/report"
  fi | awk '{print $2, $4, $6}'
}

# The pass-wise minimum of two "a b c" lines.
passwise_min() {
  if [ -z "$1" ]; then echo "$2"; return; fi
  awk -v x="$1" -v y="$2" 'BEGIN { split(x, a, " "); split(y, b, " ");
    for (i = 1; i <= 3; ++i) printf "%s%s", (i > 1 ? " " : ""),
      (b[i] + 0 < a[i] + 0 ? b[i] : a[i]); print "" }'
}

table() {
  local slow=()
  printf "%-14s %-15s %9s %9s %9s  %s\n" "N H C K" side forward input filter takes
  for s in "${shapes[@]}"; do
    local t="" d="" c="" kinds
    for _ in $(seq "$rounds"); do
      # shellcheck disable=SC2086
      t=$(passwise_min "$t" "$(run_side tfl $s)")
      kinds=$(takes "$out/report")
      # shellcheck disable=SC2086
      d=$(passwise_min "$d" "$(run_side onednn $s)")
      # shellcheck disable=SC2086
      c=$(passwise_min "$c" "$(run_side default $s)")
    done
    # shellcheck disable=SC2086
    printf "%-14s %-15s %9s %9s %9s  %s\n" "$s" "TFL forced" $t "$kinds"
    # shellcheck disable=SC2086
    printf "%-14s %-15s %9s %9s %9s\n" "" "oneDNN forced" $d
    # shellcheck disable=SC2086
    printf "%-14s %-15s %9s %9s %9s\n" "" "default" $c
    awk -v t="$t" -v d="$d" -v c="$c" 'BEGIN {
      split(t, T, " "); split(d, D, " "); split(c, C, " ")
      printf "%-14s %-15s %8.2fx %8.2fx %8.2fx\n", "", "TFL over oneDNN",
        D[1] / T[1], D[2] / T[2], D[3] / T[3]
      printf "%-14s %-15s %8.2fx %8.2fx %8.2fx\n", "", "default over it",
        D[1] / C[1], D[2] / C[2], D[3] / C[3] }'
    local names=(forward input filter) ds cs
    read -r -a ds <<< "$d"
    read -r -a cs <<< "$c"
    for i in 0 1 2; do
      # A pass no TFL kernel takes runs oneDNN's on every side.
      [ "${kinds:$i:1}" = - ] && continue
      if awk -v c="${cs[$i]}" -v d="${ds[$i]}" 'BEGIN { exit !(c > 1.05 * d) }'; then
        slow+=("$s ${names[$i]}")
      fi
    done
  done
  local IFS=,
  echo "default slower than oneDNN's by more than 5% (passes a TFL kernel takes): ${slow[*]:-none}"
}

result=$(results_file conv-passes)
{
  results_header
  echo "# ms per pass, each side's best of $rounds rounds taking turns"
  each_isa table
} | tee "$result"
