#!/usr/bin/env bash
# Runs clang-tidy-22 with the repo's .clang-tidy (MLIR's checks and naming)
# on the C++ sources given, or on every compiled source of ours, with the
# build's compile_commands.json (./dev.sh test makes it). Prints what it
# finds and fails when it finds anything.
#   scripts/tidy.sh [FILE...]     (TFL_JOBS: parallel runs, default 2)
set -euo pipefail
cd "$(dirname "$0")/.."
tidy=/usr/lib/llvm-22/bin/clang-tidy
[ -x "$tidy" ] || { echo "tidy: needs clang-tidy-22 (apt install clang-tidy-22)" >&2; exit 2; }
[ -f build/compile_commands.json ] || { echo "tidy: no build/compile_commands.json; run ./dev.sh test" >&2; exit 2; }
if [ $# -eq 0 ]; then
  mapfile -t files < <(/usr/bin/python3 - <<'PY'
import json, os
root = os.getcwd()
for e in json.load(open("build/compile_commands.json")):
    f = os.path.relpath(e["file"], root)
    if not f.startswith(("build", "..")) and "/antlr/" not in f:
        print(f)
PY
  )
else
  files=("$@")
fi
# GCC's warning flags in the compile commands are unknown to clang.
log=$(mktemp)
trap 'rm -f "$log"' EXIT
status=0
printf '%s\n' "${files[@]}" | sort -u |
  xargs -P "${TFL_JOBS:-2}" -n 1 "$tidy" -p build --quiet \
    --extra-arg=-Wno-unknown-warning-option --warnings-as-errors='*' \
    >"$log" 2>&1 || status=$?
grep -v "warnings\? generated\.$" "$log" || true
exit "$status"
