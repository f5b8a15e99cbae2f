#!/usr/bin/env bash
# Weights' gradients, x^T dy (products with a transposed left operand), on
# oneDNN's sgemm called directly and on libtflrt's matmulF32, warm and
# with operands read from memory (bench/tn_products.cpp): where matmulF32
# takes TFL's packed kernel (AVX2, dy's rows a multiple of 128 floats,
# 32,768 outputs or more: runtime/lib/PackedGemm.h) the two differ, and
# elsewhere they are the same call. Prints, and writes to
# results/DATE-cpu-tn-products.txt with the CPU and the commit, each
# shape's times (us, the best median of three rounds) and ratios. On a
# machine with AVX-512 the table is made a second time with TFL_ISA=avx2
# (which caps oneDNN at AVX2 too). Needs a build (./dev.sh main).
# Shapes: "M N K"; the defaults are W8's five and a grid around them.
set -euo pipefail
cd "$(dirname "$0")"
# shellcheck source=bench/cpu.sh
. ./cpu.sh
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
c++ -O2 -std=c++17 -I../runtime/include -I../runtime/lib tn_products.cpp \
  ../build/lib/libtflrt.a -ldnnl -lopenblas -lz -lgomp -lpthread \
  -o "$out/tn_products"
shapes=("$@")
if [ ${#shapes[@]} -eq 0 ]; then
  shapes=("128 128 1024" "128 256 1024" "128 384 1024" "128 512 1024"
    "512 128 1024")
  for k in 256 4096; do
    for mn in "64 512" "128 256" "128 512" "256 128" "256 384" "512 512" \
      "1000 128" "1000 512" "128 1000" "512 64"; do
      shapes+=("$mn $k")
    done
  done
fi

table() {
  printf "%-16s %5s %10s %10s %8s %10s %10s %8s\n" "M x N x K" takes \
    "warm dnnl" "warm TFL" "TFL over" "cold dnnl" "cold TFL" "TFL over"
  for s in "${shapes[@]}"; do
    # shellcheck disable=SC2086
    "$out/tn_products" $s | awk '{
      printf "%-16s %5s %10.1f %10.1f %7.2fx %10.1f %10.1f %7.2fx\n",
        $1 "x" $2 "x" $3, $4 ? "TFL" : "-", $5, $6, $5 / $6, $7, $8, $7 / $8 }'
  done
}

result=$(results_file tn-products)
{
  results_header
  echo "# x^T dy, us per product (median of each round's calls, best of 3 rounds)"
  echo "# takes: TFL where libtflrt runs its packed kernel, - where both sides are oneDNN's"
  each_isa table
} | tee "$result"
