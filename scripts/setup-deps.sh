#!/usr/bin/env bash
# Installs the Debian packages TFL needs: `main` what building tflc and
# training the seed CNN need (./dev.sh main), `test` (the default) those
# and what the tests, the sanitizer build and the examples need (./dev.sh
# test). Idempotent: when everything is present it only checks and returns.
set -euo pipefail

what=${1:-test}
packages=(
  # toolchain: LLVM/MLIR 22 (mlir-tblgen, and lit/FileCheck for the tests)
  cmake ninja-build ccache g++ lld-22
  llvm-22-dev llvm-22-tools libmlir-22-dev mlir-22-tools
  # frontend: ANTLR 4 tool (Java) and its C++ runtime
  antlr4 libantlr4-runtime-dev
  # runtime: BLAS for matmul (the OpenMP build, sharing oneDNN's threads),
  # zlib for gzipped data files
  libopenblas-openmp-dev zlib1g-dev
  # runtime: JSON for checkpoint headers, oneDNN for convolution and pooling
  nlohmann-json3-dev libdnnl-dev
  # tflc repl: line editing and history (BSD editline, loaded at run time)
  libedit2
  # runtime: collectives across processes (MPI)
  libopenmpi-dev
  # the main job's data: Fashion-MNIST
  dataset-fashion-mnist
)
if [ "$what" != main ]; then
  packages+=(
    # the style gate, and scripts/tidy.sh's clang-tidy
    clang-format-22 clang-tidy-22
    # ./dev.sh sanitize: clang with its ASan, UBSan and libFuzzer runtimes
    clang-22 libclang-rt-22-dev
    # tests: GoogleTest, mpirun, and NumPy and PyTorch (for /usr/bin/python3)
    # as the references; libopenblas-dev gives PyTorch its real BLAS
    libgtest-dev openmpi-bin python3 python3-numpy python3-torch
    libopenblas-dev
    # examples: the English texts of fortune (char_gpt's, 2.6 MB),
    # matplotlib for plots of training curves
    fortunes python3-matplotlib
  )
fi

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "setup: installing ${missing[*]}"
SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q
$SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
