#!/usr/bin/env bash
# The project's two entry points (see README):
#   ./dev.sh main   build tflc, compile the seed CNN natively and train it for
#                   one epoch on Fashion-MNIST (on the GPU when this tflc has
#                   the CUDA path and nvidia-smi sees a GPU; TFL_DEVICE=cpu
#                   or cuda chooses)
#   ./dev.sh test   build everything and run every test (unit, lit, end to end)
#   ./dev.sh sanitize
#                   build again with clang-22 under AddressSanitizer and
#                   UndefinedBehaviorSanitizer (in build-san), run every test
#                   there, then each libFuzzer target for a bounded time
#                   (TFL_FUZZ_SECONDS, default 60; the pipeline's twice that)
set -euo pipefail
cd "$(dirname "$0")"
root=$(pwd)
build="$root/build"

# `main` installs what it needs; everything else what the tests need too.
if [ "${1:-}" = main ]; then scripts/setup-deps.sh main; else scripts/setup-deps.sh; fi

# ccache (CMake uses it when present) hits across clones in other
# directories: paths under the checkout are hashed relative to it.
export CCACHE_BASEDIR="$root" CCACHE_NOHASHDIR=true

configure() {
  local werror=OFF
  [ "${CI:-}" = "true" ] && werror=ON
  cmake -S "$root" -B "$build" -G Ninja \
    -DCMAKE_BUILD_TYPE=Release \
    -DTFL_WARNINGS_AS_ERRORS="$werror" >/dev/null
}

build_all() {
  configure
  cmake --build "$build" -j "${TFL_JOBS:-2}" "$@"
}

case "${1:-}" in
main)
  build_all --target tfl-main
  device=${TFL_DEVICE:-cpu}
  if [ -z "${TFL_DEVICE:-}" ] && [ -e "$build/lib/libtflrt_cuda.a" ] &&
    nvidia-smi -L 2>/dev/null | grep -q GPU; then
    device=cuda
  fi
  echo "main: training on the $device"
  "$build/bin/tflc" build --device "$device" examples/mnist_cnn.tfl \
    -o "$build/mnist_cnn"
  "$build/mnist_cnn"
  ;;
test)
  build_all
  scripts/check-format.sh
  scripts/check-sizes.py
  cd "$build"
  ctest --output-on-failure -j "${TFL_JOBS:-2}"
  ;;
sanitize)
  # One sanitizer build serves the tests and the fuzzers. The CUDA path is
  # left out: nothing here runs it, and the main build checks its IR.
  san="$root/build-san"
  werror=OFF
  [ "${CI:-}" = "true" ] && werror=ON
  cmake -S "$root" -B "$san" -G Ninja \
    -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 \
    -DCMAKE_C_FLAGS=-gline-tables-only -DCMAKE_CXX_FLAGS=-gline-tables-only \
    -DTFL_SANITIZE=address,undefined -DTFL_FUZZ=ON -DTFL_CUDA_ROOT= \
    -DTFL_WARNINGS_AS_ERRORS="$werror" >/dev/null
  cmake --build "$san" -j "${TFL_JOBS:-2}"
  (cd "$san" && ctest --output-on-failure -j "${TFL_JOBS:-2}")
  seconds=${TFL_FUZZ_SECONDS:-60}
  scripts/fuzz.sh --build "$san" --time "$seconds" frontend readers
  scripts/fuzz.sh --build "$san" --time $((2 * seconds)) pipeline
  ;;
*)
  echo "usage: ./dev.sh main|test|sanitize" >&2
  exit 2
  ;;
esac
