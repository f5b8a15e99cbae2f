#!/usr/bin/env bash
# Runs TFL's libFuzzer targets (built with -DTFL_FUZZ=ON) for a bounded
# time each, from the repository's corpus (test/fuzz/corpus) and, for the
# frontend and the whole pipeline, every .tfl under test/ and examples/ as
# seeds. Fails on any
# crash, sanitizer report, leak or timeout; the input that caused it is
# kept under BUILD/fuzz/artifacts.
#
#   scripts/fuzz.sh [--build DIR] [--time SECONDS] [--jobs N]
#                   [--timeout SECONDS] [TARGET...]
#
# The long campaign is the same with a long --time (docs/reliability.md).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build="$root/build-san"
seconds=60
jobs=1
unit_timeout=
targets=()
while [ $# -gt 0 ]; do
  case "$1" in
  --build) build=$(cd "$2" && pwd); shift 2 ;;
  --time) seconds=$2; shift 2 ;;
  --jobs) jobs=$2; shift 2 ;;
  --timeout) unit_timeout=$2; shift 2 ;;
  *) targets+=("$1"); shift ;;
  esac
done
[ ${#targets[@]} -eq 0 ] && targets=(frontend pipeline readers)

work="$build/fuzz"
mkdir -p "$work/artifacts"
# (libFuzzer reads the list as comma-separated names)
find "$root/test" "$root/examples" -name '*.tfl' | sort | paste -sd, > "$work/seeds.txt"

status=0
for t in "${targets[@]}"; do
  exe="$build/bin/tfl-fuzz-$t"
  [ -x "$exe" ] || { echo "fuzz: $exe is missing (configure with -DTFL_FUZZ=ON)" >&2; exit 2; }
  corpus="$work/corpus-$t"
  mkdir -p "$corpus"
  # A whole compile and run of a big example takes a few seconds under the
  # sanitizers: the pipeline's timeout leaves room for a loaded machine.
  timeout=20
  [ "$t" = pipeline ] && timeout=60
  [ -n "$unit_timeout" ] && timeout=$unit_timeout
  args=(-max_total_time="$seconds" -timeout="$timeout" -rss_limit_mb=4096
        -malloc_limit_mb=2048 -print_final_stats=1
        -artifact_prefix="$work/artifacts/$t-")
  case "$t" in
  frontend | pipeline)
    args+=(-dict="$root/test/fuzz/tfl.dict" -max_len=8192
           -seed_inputs=@"$work/seeds.txt") ;;
  readers) args+=(-max_len=4096) ;;
  esac
  [ "$jobs" -gt 1 ] && args+=(-fork="$jobs")
  echo "fuzz: $t for ${seconds}s"
  # A scratch working directory: programs may write files.
  scratch=$(mktemp -d)
  if ! (cd "$scratch" && TMPDIR="$scratch" "$exe" "${args[@]}" "$corpus" \
        "$root/test/fuzz/corpus/$t" > "$work/$t.log" 2>&1); then
    echo "fuzz: $t FAILED; the log's end:" >&2
    tail -40 "$work/$t.log" >&2
    status=1
  fi
  rm -rf "$scratch"
  grep -E "stat::number_of_executed_units|stat::peak_rss_mb" "$work/$t.log" || true
done
exit $status
