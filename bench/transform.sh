#!/usr/bin/env bash
# One benchmark of a function transform against its peers:
#   bench/transform.sh NAME "COLUMNS"
# builds NAME.tfl, runs it (its last line its figures: "a_ms b_ms ratio",
# or three times) and NAME_peers.py (from the peers' virtual environment
# that run.sh --peers installs; one "PEER" line each, with the same
# figures) on 2 threads, the sides
# taking turns REPEATS times (default 3), each keeping its best by its
# second time, and writes results/DATE-cpu-NAME.txt with the CPU and the
# COLUMNS' header. On a machine with AVX-512, TFL's side also runs built
# and run with TFL_ISA=avx2 (the row tfl-avx2), as run.sh does, so that
# one run shows what an AVX2 machine would get. hvp.sh, per_example.sh,
# jacobian.sh and sdpa.sh call it.
set -euo pipefail
cd "$(dirname "$0")"
# shellcheck source=bench/cpu.sh
. ./cpu.sh
name=$1 columns=$2
tflc=../build/bin/tflc
venv=${PEERS_VENV:-$HOME/.cache/tfl-bench-peers}
repeats=${REPEATS:-3}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
"$tflc" build "$name.tfl" -o "$out/$name"
avx2=false
if grep -qw avx512f /proc/cpuinfo; then
  avx2=true
  TFL_ISA=avx2 "$tflc" build "$name.tfl" -o "$out/$name-avx2"
fi
# The faster of a best line so far ($1) and a new one ($2), by their
# second column.
faster() {
  if [ -z "$1" ] || awk -v a="$2" -v b="$1" \
       'BEGIN { split(a, x, " "); split(b, y, " "); exit !(x[2] < y[2]) }'; then
    echo "$2"
  else
    echo "$1"
  fi
}
tfl_best="" avx2_best="" peers=()
for _ in $(seq "$repeats"); do
  tfl_best=$(faster "$tfl_best" "$(OMP_NUM_THREADS=2 "$out/$name" | tail -1)")
  if $avx2; then
    avx2_best=$(faster "$avx2_best" \
      "$(OMP_NUM_THREADS=2 TFL_ISA=avx2 "$out/$name-avx2" | tail -1)")
  fi
  peers+=("$("$venv/bin/python" "${name}_peers.py" 2>/dev/null)")
done
result=$(results_file "${name//_/-}")
{
  results_header
  echo "# side $columns (best of $repeats)"
  echo "tfl $tfl_best"
  if $avx2; then echo "tfl-avx2 $avx2_best"; fi
  printf '%s\n' "${peers[@]}" | awk '
    { if (!($1 in best) || $3 < second[$1]) { best[$1] = $0; second[$1] = $3 } }
    END { for (k in best) print best[k] }' | sort
} | tee "$result"
