#!/usr/bin/env bash
# On a machine with a GPU, an archive of test/gpu/prepare.sh: its test
# programs (the GPU test run, test/gpu/run_all.py) or its benchmarks
# against PyTorch (bench/gpu.sh run, with each TFL program's graph-miss
# trace and GPU profile: TFL_GPU_DIAGNOSE), all logged in LOGDIR.
#
#   test/gpu/session.sh BUNDLE.tar.xz LOGDIR
#
# REPEATS (default 3) and WORKLOADS are bench/gpu.sh's.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
bundle=$(realpath "$1")
logs=$(realpath -m "$2")
mkdir -p "$logs"
work=$(mktemp -d)
{
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
  lscpu | grep -m1 'Model name'
  date -u
} >>"$logs/machine.txt" 2>&1
tar -C "$work" -xJf "$bundle" && tar -xPf "$work/files/inputs.tar" &&
  python3 "$here/unpack_inputs.py" "$work"
start=$(date +%s)
if compgen -G "$work/tests/*.run" >/dev/null; then
  python3 "$here/run_all.py" "$work" "$logs/run-all" >"$logs/run-all.txt" 2>&1
  echo "run-all: exit $?, $(($(date +%s) - start)) s" | tee -a "$logs/machine.txt"
  tail -n 5 "$logs/run-all.txt"
fi
if [ -d "$work/bench" ]; then
  TFL_GPU_DIAGNOSE=$logs/diagnose TFL_GPU_GRAPH_STATS=1 \
    "$here/../../bench/gpu.sh" run "$work" >"$logs/gpu.txt" 2>&1
  echo "gpu.sh: exit $?, $(($(date +%s) - start)) s" | tee -a "$logs/machine.txt"
  tail -n 20 "$logs/gpu.txt"
fi
