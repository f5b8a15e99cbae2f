#!/usr/bin/env bash
# Packs what a GPU machine needs to run the e2e programs built with
# --device cuda into one archive: the executables (stripped), their flags
# and the eager runs' outputs (from the lit run with TFL_GPU_BUNDLE), the
# shared libraries they load besides the CUDA driver and libraries and the
# C and C++ runtimes (the GPU machine's own, newer ones serve), the input files the
# programs read (a program that reads files runs in a directory of its own,
# `%t.dir`, which travels), with --data the datasets (Fashion-MNIST for the
# seed CNN, the fortune files' texts for the GPT), and
# with --tflc PATH a self-contained tflc (built with -DTFL_SELF_CONTAINED=ON:
# no LLVM on the GPU machine), stripped, as bin/tflc, with the stdlib
# (run it with TFL_STDLIB_PATH=stdlib).
#
#   TFL_GPU_BUNDLE=DIR lit build/test --filter e2e   # fills DIR
#   test/gpu/bundle.sh [--data] [--tflc PATH] DIR OUT.tar.xz
set -euo pipefail
data=0
tflc=
while [ $# -gt 2 ]; do
  case "$1" in
  --data) data=1 ;;
  --tflc)
    tflc=$2
    shift
    ;;
  *) break ;;
  esac
  shift
done
dir=$1
out=$2
root=$(cd "$(dirname "$0")/../.." && pwd)
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage/tests" "$stage/lib" "$stage/files"
# The test programs (a lit run with TFL_GPU_BUNDLE=DIR), when there.
if compgen -G "$dir/*.run" >/dev/null; then
  cp "$dir"/*.run "$dir"/*.expected "$stage/tests/"
  for exe in "$dir"/*.exe; do
    if [ -e "$exe" ]; then strip -o "$stage/tests/$(basename "$exe")" "$exe"; fi
  done
fi
# The benchmarks' executables (bench/gpu.sh build DIR), when there.
if [ -d "$dir/bench" ]; then
  mkdir -p "$stage/bench"
  for exe in "$dir"/bench/*.exe; do
    strip -o "$stage/bench/$(basename "$exe")" "$exe"
  done
fi
if [ -n "$tflc" ]; then
  if ldd "$tflc" | grep -q libLLVM; then
    echo "bundle.sh: $tflc links libLLVM; build it with -DTFL_SELF_CONTAINED=ON" >&2
    exit 1
  fi
  mkdir -p "$stage/bin"
  strip -o "$stage/bin/tflc" "$tflc"
  cp -r "$root/stdlib" "$stage/stdlib"
fi
# Libraries: everything ldd resolves but CUDA's and the C/C++ runtimes.
for exe in "$dir"/*.exe "$dir"/bench/*.exe ${tflc:+"$tflc"}; do
  if [ -e "$exe" ]; then ldd "$exe"; fi
done | awk '/=> \// {print $3}' |
  sort -u | while read -r lib; do
    case "$lib" in
    /usr/local/cuda*) ;;
    */libc.so.*|*/libm.so.*|*/libpthread.so.*|*/libdl.so.*|*/librt.so.*|\
    */libstdc++.so.*|*/libgcc_s.so.*) ;;
    *) cp -L "$lib" "$stage/lib/" ;;
    esac
  done
# Input files, at the paths the programs name: a program that runs in a
# directory of its own (a test's %t or %t.dir) takes that directory's data
# files along (.npy, checkpoints; not the executables and libraries that
# the test's other steps built there).
python3 - "$stage/tests" > "$stage/files.txt" <<'PY'
import json, os, sys
for name in sorted(os.listdir(sys.argv[1])):
    if name.endswith(".run"):
        cwd = json.load(open(os.path.join(sys.argv[1], name)))["cwd"]
        if not (cwd.endswith(".dir") or "/Output/" in cwd) or \
                not os.path.isdir(cwd):
            continue
        for root, _, files in os.walk(cwd):
            for f in sorted(files):
                path = os.path.join(root, f)
                if os.path.isfile(path) and not os.access(path, os.X_OK) \
                        and ".so" not in f and "__pycache__" not in root:
                    print(path)
PY
if [ "$data" = 1 ]; then
  # The datasets; their gzip files as their raw bytes, which xz packs
  # tighter (26.4 MB of Fashion-MNIST's training images take 22.6), gzipped
  # again where they are unpacked (test/gpu/unpack_inputs.py).
  mkdir -p "$stage/files/gunzipped"
  for gz in /usr/share/datasets/fashion-mnist/*.gz; do
    gunzip -c "$gz" >"$stage/files/gunzipped/$(basename "$gz" .gz)"
    echo "$gz" >>"$stage/files/gunzipped.txt"
  done
  find /usr/share/datasets/fashion-mnist -type f ! -name '*.gz' >>"$stage/files.txt"
  echo /usr/share/games/fortunes >>"$stage/files.txt"
fi
tar -cPf "$stage/files/inputs.tar" -T "$stage/files.txt"
cp "$root/test/lit/compare_outputs.py" "$stage/"
# Compressed hard (xz -9, all cores): the archive crosses to the GPU machine.
XZ_OPT=${XZ_OPT:--9 -T0} tar -C "$stage" -cJf "$out" tests lib files compare_outputs.py \
  $(cd "$stage" && ls -d bench bin stdlib 2>/dev/null || true)
ls -la "$out"
