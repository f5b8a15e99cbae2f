#!/usr/bin/env bash
# The project's two entry points (see README):
#   ./dev.sh main   build tflc, compile the seed CNN natively and train it for
#                   one epoch on Fashion-MNIST (on the GPU when this tflc has
#                   the CUDA path and nvidia-smi sees a GPU; TFL_DEVICE=cpu
#                   or cuda chooses)
#   ./dev.sh test   build everything and run every test (unit, lit, end to end)
set -euo pipefail
cd "$(dirname "$0")"
root=$(pwd)
build="$root/build"

scripts/setup-deps.sh

configure() {
  local werror=OFF
  [ "${CI:-}" = "true" ] && werror=ON
  cmake -S "$root" -B "$build" -G Ninja \
    -DCMAKE_BUILD_TYPE=Release \
    -DTFL_WARNINGS_AS_ERRORS="$werror" >/dev/null
}

build_all() {
  configure
  cmake --build "$build" -j "${TFL_JOBS:-2}"
}

case "${1:-}" in
main)
  build_all
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
  cd "$build"
  ctest --output-on-failure -j "${TFL_JOBS:-2}"
  ;;
*)
  echo "usage: ./dev.sh main|test" >&2
  exit 2
  ;;
esac
