#!/usr/bin/env bash
# What a GPU machine runs, built here (it has no compiler) and packed with
# the libraries and input files it loads (test/gpu/bundle.sh --data), in
# archives that each cross to the GPU machine within its 64 MiB:
#
#   test/gpu/prepare.sh tests OUT.tar.xz   the e2e and distributed programs
#                                          built with --device cuda, with the
#                                          outputs they must print (a lit run
#                                          with TFL_GPU_BUNDLE)
#   test/gpu/prepare.sh bench OUT.tar.xz   the GPU benchmarks' executables
#                                          (bench/gpu.sh build)
#   test/gpu/prepare.sh eager OUT.tar.xz   the same programs' runs and
#                                          outputs, no executables, and a
#                                          self-contained tflc (build-gpu,
#                                          -DTFL_SELF_CONTAINED=ON) that runs
#                                          them eagerly on the GPU (tflc run
#                                          --eager --device cuda); not the
#                                          datasets (the programs that read
#                                          them are skipped where they are
#                                          missing): with them it was 65 MB
#
# On the GPU machine, test/gpu/session.sh OUT.tar.xz LOGDIR runs either.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
part=$1
out=$(realpath -m "$2")
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
mkdir -p "$dir/tests"
tflc=()
data=(--data)
case "$part" in
tests)
  TFL_GPU_BUNDLE=$dir/tests "${LIT:-/usr/lib/llvm-22/bin/lit}" -q \
    "$root/build/test" --filter '(e2e|distributed)/'
  ;;
bench) "$root/bench/gpu.sh" build "$dir/tests" ;;
eager)
  TFL_GPU_BUNDLE=$dir/tests "${LIT:-/usr/lib/llvm-22/bin/lit}" -q \
    "$root/build/test" --filter '(e2e|distributed)/'
  rm -f "$dir"/tests/*.exe
  # (A build of its own: its objects are the main build's, its link is not;
  # ccache makes a second build quick.)
  export CCACHE_BASEDIR=$root CCACHE_NOHASHDIR=true
  cmake -S "$root" -B "$root/build-gpu" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DTFL_SELF_CONTAINED=ON >/dev/null
  cmake --build "$root/build-gpu" -j "${TFL_JOBS:-2}" --target tflc
  tflc=(--tflc "$root/build-gpu/bin/tflc")
  data=()
  ;;
*)
  echo "usage: test/gpu/prepare.sh tests|bench|eager OUT.tar.xz" >&2
  exit 2
  ;;
esac
"$root/test/gpu/bundle.sh" "${data[@]}" "${tflc[@]}" "$dir/tests" "$out"
echo "$out: $(du -h "$out" | cut -f1)"
