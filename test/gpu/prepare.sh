#!/usr/bin/env bash
# What a GPU machine runs, built here (it has no compiler) and packed with
# the libraries and input files it loads (test/gpu/bundle.sh --data), in
# two archives that each cross to the GPU machine within its 64 MiB:
#
#   test/gpu/prepare.sh tests OUT.tar.xz   the e2e and distributed programs
#                                          built with --device cuda, with the
#                                          outputs they must print (a lit run
#                                          with TFL_GPU_BUNDLE)
#   test/gpu/prepare.sh bench OUT.tar.xz   the GPU benchmarks' executables
#                                          (bench/gpu.sh build)
#
# On the GPU machine, test/gpu/session.sh OUT.tar.xz LOGDIR runs either.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
part=$1
out=$(realpath -m "$2")
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
mkdir -p "$dir/tests"
case "$part" in
tests)
  TFL_GPU_BUNDLE=$dir/tests "${LIT:-/usr/lib/llvm-22/bin/lit}" -q \
    "$root/build/test" --filter '(e2e|distributed)/'
  ;;
bench) "$root/bench/gpu.sh" build "$dir/tests" ;;
*)
  echo "usage: test/gpu/prepare.sh tests|bench OUT.tar.xz" >&2
  exit 2
  ;;
esac
"$root/test/gpu/bundle.sh" --data "$dir/tests" "$out"
echo "$out: $(du -h "$out" | cut -f1)"
