#!/bin/sh
# Stands in for a GPU machine's tflc in a test of test/gpu/run_all.py's
# eager runs: `tflc run --eager --device cuda ARGS` becomes `tflc run
# --eager --test-compiled-ops ARGS` (the kernels on a simulated device
# memory), with the tflc on PATH.
command=$1
mode=$2
shift 2
[ "$1" = --device ] && shift 2
exec tflc "$command" "$mode" --test-compiled-ops "$@"
