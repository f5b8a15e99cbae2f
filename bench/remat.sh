#!/usr/bin/env bash
# checkpoint over the layers of the W8 GPT: a training step of
# w8_gpt.tfl against the same step with each block a checkpoint
# (w8_remat.tfl: gpt.remat_loss_fn), both built with --report-memory, on
# 2 threads, taking turns REPEATS times (default 5), each side's best
# time kept. Writes results/DATE-cpu-w8-remat.txt with the CPU, each
# side's milliseconds per step and peak memory, and the ratios (time:
# remat / plain; memory: 1 - remat / plain, the share saved).
set -euo pipefail
cd "$(dirname "$0")"
# shellcheck source=bench/cpu.sh
. ./cpu.sh
tflc=../build/bin/tflc
repeats=${REPEATS:-5}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
export TFL_STDLIB_PATH=../stdlib:../examples
for side in w8_gpt w8_remat; do
  "$tflc" build --report-memory "$side.tfl" -o "$out/$side"
done
declare -A best peak
for _ in $(seq "$repeats"); do
  for side in w8_gpt w8_remat; do
    OMP_NUM_THREADS=2 "$out/$side" --steps=40 > "$out/run" 2>&1
    ms=$(grep -v '^peak memory' "$out/run" | tail -1)
    peak[$side]=$(sed -n 's/^peak memory: host \([0-9.]*\) MiB$/\1/p' "$out/run")
    if [ -z "${best[$side]:-}" ] ||
       awk -v a="$ms" -v b="${best[$side]}" 'BEGIN { exit !(a < b) }'; then
      best[$side]=$ms
    fi
  done
done
result=$(results_file "w8-remat${TFL_ISA:+-$TFL_ISA}")
{
  results_header
  echo "# side ms_per_step peak_MiB (best of $repeats)"
  echo "plain ${best[w8_gpt]} ${peak[w8_gpt]}"
  echo "remat ${best[w8_remat]} ${peak[w8_remat]}"
  awk -v a="${best[w8_gpt]}" -v b="${best[w8_remat]}" \
      -v p="${peak[w8_gpt]}" -v q="${peak[w8_remat]}" \
      'BEGIN { printf "time remat/plain %.3f, memory saved %.1f%%\n", b / a, 100 * (1 - q / p) }'
} | tee "$result"
