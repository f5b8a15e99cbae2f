#!/usr/bin/env bash
# The GPU benchmarks (docs/performance.md): TFL built with --device cuda
# against PyTorch with CUDA (eager and torch.compile), in the same run on
# the same GPU:
#   W1  x = x @ x, 200 times, 4096x4096 f32                      (seconds)
#   W3  seed CNN training step, batch 32 and batch 256, Adam     (ms/step)
#   W4  MLP 784-256-256-10 training step, batch 128, Adam        (ms/step)
#   the main job: one epoch of Fashion-MNIST (examples/mnist_cnn.tfl),
#   GPU build against the CPU build on the same machine (images/s).
# The GPU machine has no compiler, so this runs in two halves:
#   bench/gpu.sh build DIR   here: tflc builds every executable into
#                            DIR/bench (test/gpu/bundle.sh packs DIR)
#   bench/gpu.sh run DIR     on the GPU machine, DIR an unpacked bundle:
#                            runs both sides REPEATS times (default 3),
#                            keeps each side's best, prints the table
set -euo pipefail
mode=$1
dir=$(realpath "$2")
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=bench/best.sh
. "$here/best.sh"

build() {
  local tflc=$here/../build/bin/tflc src
  src=$(mktemp -d)
  trap 'rm -rf "$src"' RETURN
  mkdir -p "$dir/bench"
  cp "$here"/*.tfl "$src/"
  sed 's/^N = 1000$/N = 4096/' "$here/w1_matmul.tfl" >"$src/w1_matmul_4096.tfl"
  sed 's/^BATCH = 32$/BATCH = 256/' "$here/w3_cnn.tfl" >"$src/w3_cnn_256.tfl"
  for w in w1_matmul_4096 w3_cnn w3_cnn_256 w4_mlp; do
    "$tflc" build --device cuda "$src/$w.tfl" -o "$dir/bench/$w.exe"
  done
  "$tflc" build --device cuda "$here/../examples/mnist_cnn.tfl" \
    -o "$dir/bench/mnist_cnn.exe"
  "$tflc" build "$here/../examples/mnist_cnn.tfl" -o "$dir/bench/mnist_cnn_cpu.exe"
}


run() {
  # TFL's programs load the bundle's libraries; PyTorch keeps its own.
  local tfl
  tfl="env LD_LIBRARY_PATH=$(python3 "$here/../test/gpu/run_all.py" \
    --library-path "$dir")"
  local b=$dir/bench py=python3
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
  date -u
  $py -c 'import torch; print("torch", torch.__version__, "CUDA", torch.version.cuda)'
  printf '%-44s %9s %9s %9s %8s %8s\n' workload TFL torch compile "vs eager" \
    "vs comp."
  local names=("W1 x = x @ x, 200 times, 4096x4096 (s)"
    "W3 seed CNN step, batch 32 (ms)" "W3 seed CNN step, batch 256 (ms)"
    "W4 MLP step, batch 128 (ms)")
  local exes=(w1_matmul_4096 w3_cnn w3_cnn_256 w4_mlp)
  local scripts=("w1_matmul.py" "w3_cnn.py" "w3_cnn.py --batch=256" "w4_mlp.py")
  for i in 0 1 2 3; do
    local t e c
    # shellcheck disable=SC2086
    t=$(best $tfl "$b/${exes[i]}.exe")
    # shellcheck disable=SC2086
    e=$(cd "$here" && best $py ${scripts[i]} --cuda)
    # shellcheck disable=SC2086
    c=$(cd "$here" && best $py ${scripts[i]} --cuda --compile)
    awk -v n="${names[i]}" -v t="$t" -v e="$e" -v c="$c" 'BEGIN {
      printf "%-44s %9s %9s %9s %7.2fx %7.2fx\n", n, t, e, c, e / t, c / t }'
  done
  echo "main job, one epoch of Fashion-MNIST, CPU build ($(nproc) cores):"
  $tfl "$b/mnist_cnn_cpu.exe" | tail -2
  echo "main job, one epoch of Fashion-MNIST, GPU build:"
  $tfl "$b/mnist_cnn.exe" | tail -2
}

case "$mode" in
build) build ;;
run) run ;;
*)
  echo "usage: bench/gpu.sh build|run DIR" >&2
  exit 2
  ;;
esac
