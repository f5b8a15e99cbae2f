#!/usr/bin/env bash
# Runs every e2e program built with --device cuda (an archive from
# test/gpu/bundle.sh) on this machine's GPU and checks that each prints what
# the program printed eagerly on the CPU (numbers up to float rounding,
# random draws equal). Prints one line per program, then the totals.
#
#   test/gpu/run-all.sh BUNDLE.tar.xz [LOG_DIR [UNPACK_DIR]]
# UNPACK_DIR (default: a fresh temporary directory) keeps the unpacked
# bundle, e.g. for bench/gpu.sh run.
set -euo pipefail
bundle=$(realpath "$1")
logs=${2:-$(mktemp -d)}
work=${3:-$(mktemp -d)}
mkdir -p "$logs" "$work"
logs=$(realpath "$logs")
work=$(realpath "$work")
tar -C "$work" -xJf "$bundle"
tar -xPf "$work/files/inputs.tar"
python3 "$(dirname "$0")/unpack_inputs.py" "$work"
exec python3 "$(dirname "$0")/run_all.py" "$work" "$logs"
