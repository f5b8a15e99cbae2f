#!/usr/bin/env bash
# Data-parallel training and collectives on this machine's cores, in one
# run (docs/scaling.md):
#  1. the seed CNN's step (bench/dist_training.tfl) on 2 processes x 1
#     thread (32 images each, a global batch of 64) against 1 process x 2
#     threads (64 images), and 1 process x 1 thread (32) for scale; the
#     same for a 784-1024-1024-10 MLP, whose 7.3 MiB of gradients a step
#     make the communication visible;
#  2. how much of the communication the backward pass hid: the step with
#     gradient buckets (the default) and with one all_reduce after the
#     backward pass (--bucket-mb=0), each against a process alone with the
#     same batch (and rank 0's TFL_COLLECTIVE_STATS line);
#  3. TFL's all_reduce of one f32 tensor (bench/allreduce.tfl) against
#     MPI_Allreduce itself (bench/mpi_allreduce.c, osu_allreduce's way: in
#     place, and from one buffer to another), 2 processes, 1 KiB to 64 MiB.
# Each figure is the best of REPEATS runs (default 3). Needs a built tflc
# (./dev.sh main) and Open MPI (scripts/setup-deps.sh installs both).
set -euo pipefail
cd "$(dirname "$0")"
# shellcheck source=bench/best.sh
. ./best.sh
tflc=../build/bin/tflc
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
# As root (CI machines), Open MPI must be told it may run.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
mpi=mpirun

variant() { # name model batch [tflc options...]
  local name=$1 model=$2 batch=$3
  shift 3
  sed -e "s/^BATCH = 32$/BATCH = $batch/" \
    -e "s/^model = distributed.replicate(make_cnn())$/model = distributed.replicate(make_$model())/" dist_training.tfl \
    >"$out/$name.tfl"
  "$tflc" build "$@" "$out/$name.tfl" -o "$out/$name"
}
for model in cnn mlp; do
  variant "$model-32" "$model" 32
  variant "$model-64" "$model" 64
  variant "$model-32-whole" "$model" 32 --bucket-mb=0
done
"$tflc" build --bucket-mb=0 allreduce.tfl -o "$out/allreduce"
mpicc -O2 mpi_allreduce.c -o "$out/mpi_allreduce"

echo "== data-parallel training (images/s of the global batch, best of ${REPEATS:-3})"
printf '%-5s %24s %24s %24s %9s\n' model "1 process x 1 thread" \
  "1 process x 2 threads" "2 processes x 1 thread" "2p / 1p"
rate() { awk -v b="$1" -v ms="$2" 'BEGIN { printf "%.0f", b * 1000 / ms }'; }
for model in cnn mlp; do
  steps=300
  [ "$model" = mlp ] && steps=100
  one=$(rate 32 "$(OMP_NUM_THREADS=1 best "$out/$model-32" --steps=$steps)")
  two=$(rate 64 "$(OMP_NUM_THREADS=2 best "$out/$model-64" --steps=$steps)")
  ranks=$(rate 64 "$(OMP_NUM_THREADS=1 best $mpi -np 2 "$out/$model-32" \
    --steps=$steps)")
  printf '%-5s %24s %24s %24s %8.2fx\n' "$model" "$one (batch 32)" \
    "$two (batch 64)" "$ranks (2 x 32)" \
    "$(awk -v a="$ranks" -v b="$two" 'BEGIN { print a / b }')"
done

echo
echo "== communication hidden by the backward pass (2 processes x 1 thread)"
echo "   exposed = a 2-process step - a 1-process step of the same batch per rank"
echo "   hidden = what the buckets save / what one all_reduce after the backward pass exposes"
for model in cnn mlp; do
  steps=300
  [ "$model" = mlp ] && steps=100
  alone=$(OMP_NUM_THREADS=1 best "$out/$model-32" --steps=$steps)
  buckets=$(OMP_NUM_THREADS=1 best $mpi -np 2 "$out/$model-32" --steps=$steps)
  whole=$(OMP_NUM_THREADS=1 best $mpi -np 2 "$out/$model-32-whole" --steps=$steps)
  awk -v m="$model" -v a="$alone" -v b="$buckets" -v w="$whole" 'BEGIN {
    printf "%-4s alone %.3f ms/step; buckets %.3f (exposed %.3f); one all_reduce %.3f (exposed %.3f); ",
      m, a, b, b - a, w, w - a
    # Within the runs noise (5% of a step), there is nothing to hide.
    if (w - a > 0.05 * a) printf "hidden %.0f%%\n", 100 * (w - b) / (w - a)
    else print "nothing to hide" }'
  OMP_NUM_THREADS=1 TFL_COLLECTIVE_STATS=1 $mpi -np 2 "$out/$model-32" \
    --steps=$steps 2>&1 >/dev/null | grep "rank 0" | sed 's/^/     /'
done

echo
echo "== all_reduce of one f32 tensor, 2 processes (seconds per call, best of ${ROUNDS:-9})"
# The three alternate, ROUNDS rounds of each (default 9), so that both
# sides meet the same moments of a shared machine (its speed can change
# for seconds at a time); each keeps, per size, its best.
best_sizes() { # file: the per-size minimum of "bytes seconds" lines
  awk '{ if (!($1 in m) || $2 < m[$1]) m[$1] = $2 } END { for (k in m) print k, m[k] }' "$1" |
    sort -n
}
for _ in $(seq "${ROUNDS:-9}"); do
  $mpi -np 2 "$out/allreduce" >>"$out/tfl.all"
  $mpi -np 2 "$out/mpi_allreduce" --in-place >>"$out/inplace.all"
  $mpi -np 2 "$out/mpi_allreduce" >>"$out/outofplace.all"
done
best_sizes "$out/tfl.all" >"$out/tfl.txt"
best_sizes "$out/inplace.all" >"$out/inplace.txt"
best_sizes "$out/outofplace.all" >"$out/outofplace.txt"
printf '%10s %12s %12s %12s %14s %14s\n' bytes TFL "MPI in place" "MPI 2 buffers" \
  "TFL/in place" "TFL/2 buffers"
join "$out/tfl.txt" "$out/inplace.txt" | join - "$out/outofplace.txt" |
  awk '{ printf "%10d %12.3g %12.3g %12.3g %13.0f%% %13.0f%%\n", $1, $2, $3, $4,
         100 * $3 / $2, 100 * $4 / $2 }'

echo
echo "== ring all-reduce model fitted to TFL's all_reduce above"
echo "   (docs/scaling.md; other links: 100 Gb/s Ethernet, NVLink 4 as NCCL reports it)"
/usr/bin/python3 scaling_model.py "$out/tfl.txt" 12.5 360
