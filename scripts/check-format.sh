#!/usr/bin/env bash
# Fails when a C++ source of ours is not formatted with the repo's .clang-format.
set -euo pipefail
cd "$(dirname "$0")/.."
fmt=/usr/lib/llvm-22/bin/clang-format
files=$(git ls-files '*.cpp' '*.h' '*.cu' '*.cuh' 2>/dev/null || true)
[ -z "$files" ] && exit 0
bad=$($fmt --dry-run $files 2>&1 | grep -c "warning:" || true)
if [ "$bad" != "0" ]; then
  $fmt --dry-run $files 2>&1 | grep "warning:" | cut -d: -f1 | sort -u >&2
  echo "check-format: the files above need clang-format-22" >&2
  exit 1
fi
# Each begins with its one-line banner, "//===- Name - What it is ---===//"
# (or the C headers' "/*===- ... ===*\"), which a reflowed comment breaks.
broken=$(for f in $files; do
  head -1 "$f" | grep -Eq '^(//===- .*===//|/\*===- .*===\*\\)$' ||
    echo "$f"
done)
if [ -n "$broken" ]; then
  echo "$broken" >&2
  echo "check-format: the files above need a one-line banner (80 columns)" >&2
  exit 1
fi
echo "check-format: ok"
