#!/usr/bin/env bash
# Runs the workloads in TFL (compiled; W5 also eagerly) and in PyTorch
# on this machine, in one run, and prints a table of ratios against the
# targets (docs/performance.md). The sides take turns, one run each,
# REPEATS times (default 3), and each keeps its best. Needs a built tflc (./dev.sh main) and Debian's
# python3-torch with libopenblas-dev (apt); PyTorch runs on 2 threads.
#
# On a machine with AVX-512, TFL's side also runs built and run with
# TFL_ISA=avx2 (its kernels', compiled code's and oneDNN's AVX2 builds),
# so that one run shows what an AVX2 machine would get: the table's last
# columns (the peers unforced).
#
# With --peers, the table has a column for each current peer too: PyTorch
# from PyPI (eager and torch.compile) and JAX (jax.jit), installed into a
# virtual environment at $PEERS_VENV (default ~/.cache/tfl-bench-peers)
# on first use, and TFL's ratio is to the fastest of them all; the table
# is also written to results/DATE-cpu-run-peers.txt with the machine.
set -euo pipefail
peers=false
[ "${1:-}" = "--peers" ] && peers=true
cd "$(dirname "$0")"
# shellcheck source=bench/best.sh
. ./best.sh
# shellcheck source=bench/cpu.sh
. ./cpu.sh
tflc=../build/bin/tflc
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

for w in w1_matmul w2_linreg w3_cnn w4_mlp w5_scalar grad_ratio \
  w7_transcendental; do
  "$tflc" build "$w.tfl" -o "$out/$w"
done
# The AVX2 builds, on an AVX-512 machine (where TFL_ISA=avx2 runs them).
avx2=false
if grep -qw avx512f /proc/cpuinfo; then
  avx2=true
  mkdir -p "$out/avx2"
  for w in w1_matmul w2_linreg w3_cnn w4_mlp w5_scalar grad_ratio \
    w7_transcendental; do
    TFL_ISA=avx2 "$tflc" build "$w.tfl" -o "$out/avx2/$w"
  done
  TFL_ISA=avx2 "$tflc" build ../examples/mnist_cnn.tfl -o "$out/avx2/mnist_cnn"
  TFL_ISA=avx2 TFL_STDLIB_PATH=../stdlib:../examples "$tflc" build \
    w8_gpt.tfl -o "$out/avx2/w8_gpt"
fi
seconds_since() { awk -v a="$1" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }'; }
start=$(date +%s.%N)
"$tflc" build ../examples/mnist_cnn.tfl -o "$out/mnist_cnn"
build_s=$(seconds_since "$start")
# W8's model is examples/gpt.tfl; its build is timed, and the 8-layer
# variant's, for how compile time grows with the model.
export TFL_STDLIB_PATH=../stdlib:../examples
start=$(date +%s.%N)
"$tflc" build w8_gpt.tfl -o "$out/w8_gpt"
w8_build_s=$(seconds_since "$start")
start=$(date +%s.%N)
"$tflc" build w8_gpt_8layers.tfl -o "$out/w8_gpt_8layers"
w8_8_build_s=$(seconds_since "$start")
cc -O2 -fopenmp fma_peak.c -o "$out/fma_peak"

if $peers; then
  venv=${PEERS_VENV:-$HOME/.cache/tfl-bench-peers}
  if [ ! -x "$venv/bin/python" ]; then
    python3 -m venv "$venv"
    # CPU wheels of torch where PyTorch's index is reachable (a few
    # hundred MB), else PyPI's, which bring CUDA's libraries.
    "$venv/bin/pip" install -q --retries 1 --timeout 10 torch \
      --index-url https://download.pytorch.org/whl/cpu ||
      "$venv/bin/pip" install -q torch
    "$venv/bin/pip" install -q jax
  fi
  py=$venv/bin/python
  versions=$("$py" -c 'import torch, jax; print(f"torch {torch.__version__}, jax {jax.__version__}")')
fi
debian=$(/usr/bin/python3 -c 'import torch; print(torch.__version__.split("a")[0])')

# The main job's training loop (examples/mnist_cnn.tfl, one epoch): its
# last progress line's images/s.
main_job() { "$bin/mnist_cnn" --eval_batches=1 | grep 'images/s' | tail -1 |
  sed 's/.*, \([0-9]*\) images\/s/\1/'; }

# name|unit|kind|target (kind: time, rate, or ratio: smaller is better
# but for a rate), TFL's and each side's command.
names=("W1 x = x @ x, 200 times, 1000x1000|s|time"
  "W2 linear-regression step, 2000 points|ms|time"
  "W3 seed CNN step, batch 32, Adam|ms|time"
  "W4 MLP 784-256-256-10 step, batch 128, Adam|ms|time"
  "W5 scalar x = x * 0.999 + 0.001, compiled|us|time"
  "W5 scalar x = x * 0.999 + 0.001, eager|us|time"
  "W6 gradient / forward cost (tanh MLP 512)|ratio|ratio"
  "W7 exp + log + tanh + sigmoid, 2^22 f32|ms|time"
  "main job: seed CNN, 1 epoch of Fashion-MNIST|img/s|rate"
  "W8 GPT step (examples/gpt.tfl), batch 16x64, Adam|ms|time"
  "W8 GPT step, eager|ms|time")
scripts=(w1_matmul w2_linreg w3_cnn w4_mlp w5_scalar w5_scalar grad_ratio
  w7_transcendental main_job w8_gpt w8_gpt)
# Targets against Debian's PyTorch, and (--peers) against the fastest peer
# (W8 eager: at most 1.5 times PyTorch eager's time).
targets=(0.95 10 2 3 100 1 3 1 3 1.5 0.67)
peer_targets=(1 10 3 1.5 100 1 2 1 3 1.5 0.67)

# W6: the gradient's best time over the forward's best, each of REPEATS
# runs (a run prints "forward_ms gradient_ms ratio" last).
best_ratio() {
  for _ in $(seq "${REPEATS:-3}"); do "$@" | tail -1; done |
    awk 'NR == 1 || $1 < f { f = $1 } NR == 1 || $2 < g { g = $2 }
      END { printf "%.2f\n", g / f }'
}
# A peer's warnings (torch.compile's, on a machine without CUDA) go to a
# log, not into the table.
quiet() { "$@" 2>>"$out/peers.log"; }
measure_tfl() { # index (the binaries in $bin)
  case $1 in
    5) best "$tflc" run --eager w5_scalar.tfl --steps=200000 ;;
    6) best_ratio "$bin/grad_ratio" ;;
    10) best "$tflc" run --eager w8_gpt.tfl --steps=3 ;;
    8) most main_job ;;
    *) best "$bin/${scripts[$1]}" ;;
  esac
}
# TFL's side with its AVX2 builds (TFL_ISA=avx2), or "-" without them.
measure_tfl_avx2() { # index
  if $avx2; then bin=$out/avx2 TFL_ISA=avx2 measure_tfl "$1"; else echo -; fi
}
bin=$out
measure_py() { # python index [--compile]
  local py=$1 i=$2
  shift 2
  case $i in
    6) best_ratio quiet "$py" grad_ratio.py ;;
    8) most quiet "$py" main_job.py "$([ "${1:-}" = --compile ] && echo compile || echo torch)" ;;
    *) best quiet "$py" "${scripts[i]}.py" "$@" ;;
  esac
}
measure_jax() { # index
  case $1 in
    4 | 5 | 6 | 10) echo - ;;
    8) most quiet "$py" main_job.py jax ;;
    *) best quiet "$py" jax_workloads.py "${scripts[$1]%%_*}" ;;
  esac
}

peak=$(REPEATS=1 best "$out/fma_peak")
row() { echo "$1" | tee -a "$out/table"; }
if $peers; then
  row "$(printf '%-50s %10s %10s %10s %10s %10s %9s  %-8s %-4s %10s %9s' \
    workload TFL "torch $debian" torch compile jax.jit "over best" target met \
    "TFL avx2" "avx2 over")"
else
  row "$(printf '%-50s %10s %10s %9s  %-10s %-4s %10s %9s' workload TFL PyTorch \
    speedup target met "TFL avx2" "avx2 over")"
fi
# The better of two results of a side ("-" where it has none): the
# larger rate, the smaller time or ratio.
better() { # kind old new
  awk -v kind="$1" -v a="$2" -v b="$3" 'BEGIN {
    if (a == "" || a == "-") print b
    else if (b == "-" || (kind == "rate" ? a + 0 >= b + 0 : a + 0 <= b + 0)) print a
    else print b }'
}
# The sides take turns, one run each, REPEATS times, and each keeps its
# best: a minute when the machine is busy then costs every side a run,
# not one side all of its runs. W6's ratio is one side's own (its best
# forward over its best gradient, REPEATS runs in a row).
for i in "${!names[@]}"; do
  IFS='|' read -r name unit kind <<<"${names[i]}"
  t="" d="" a="" b="" c="" v=""
  rounds=${REPEATS:-3}
  [ "$i" = 6 ] && rounds=1
  for _ in $(seq "$rounds"); do
    if [ "$i" = 6 ]; then
      run_one() { "$@"; }
    else
      run_one() { REPEATS=1 "$@"; }
    fi
    t=$(better "$kind" "$t" "$(run_one measure_tfl "$i")")
    v=$(better "$kind" "$v" "$(run_one measure_tfl_avx2 "$i")")
    # W5's and W8's PyTorch sides are one number for both of TFL's modes
    # (W8 eager against PyTorch eager).
    case $i in 5 | 10) ;; *) d=$(better "$kind" "$d" "$(run_one measure_py /usr/bin/python3 "$i")") ;; esac
    $peers || continue
    case $i in 5 | 10) ;; *) a=$(better "$kind" "$a" "$(run_one measure_py "$py" "$i")") ;; esac
    case $i in 4 | 5 | 6 | 10) b=- ;; *) b=$(better "$kind" "$b" "$(run_one measure_py "$py" "$i" --compile)") ;; esac
    c=$(better "$kind" "$c" "$(run_one measure_jax "$i")")
  done
  [ "$i" = 0 ] && w1_seconds=$t
  [ "$i" = 9 ] && w8_ms=$t
  if [ "$i" = 5 ] || [ "$i" = 10 ]; then d=$prev_debian a=$prev_peer; fi
  prev_debian=$d prev_peer=$a
  if ! $peers; then
    row "$(awk -v name="$name ($unit)" -v t="$t" -v p="$d" -v kind="$kind" \
      -v target="${targets[i]}" -v v="$v" 'BEGIN {
      if (kind == "ratio") {
        printf "%-50s %10s %10s %9s  <= %-7s %-4s %10s", name, t, p, "", target,
          (t <= target ? "yes" : "NO"), v
      } else {
        r = kind == "rate" ? t / p : p / t
        rv = v == "-" ? "-" : sprintf("%.2fx", kind == "rate" ? v / p : p / v)
        printf "%-50s %10s %10s %8.2fx  >= %-7s %-4s %10s %9s", name, t, p, r,
          target "x", (r >= target ? "yes" : "NO"), v, rv
      }
    }')"
    continue
  fi
  row "$(awk -v name="$name ($unit)" -v t="$t" -v d="$d" -v a="$a" -v b="$b" \
    -v c="$c" -v kind="$kind" -v target="${peer_targets[i]}" -v x2="$v" 'BEGIN {
    # The fastest side: the largest rate, the smallest time or ratio.
    n = split(d " " a " " b " " c, v, " "); m = ""
    for (k = 1; k <= n; k++) {
      if (v[k] == "-") continue
      if (m == "" || (kind == "rate" ? v[k] + 0 > m + 0 : v[k] + 0 < m + 0)) m = v[k]
    }
    if (kind == "ratio") {
      printf "%-50s %10s %10s %10s %10s %10s %9s  <= %-5s %-4s %10s", name, t,
        d, a, b, c, "", target, (t <= target && t < m ? "yes" : "NO"), x2
    } else {
      r = kind == "rate" ? t / m : m / t
      rv = x2 == "-" ? "-" : sprintf("%.2fx", kind == "rate" ? x2 / m : m / x2)
      printf "%-50s %10s %10s %10s %10s %10s %8.2fx  >= %-5s %-4s %10s %9s",
        name, t, d, a, b, c, r, target "x", (r >= target ? "yes" : "NO"), x2, rv
    }
  }')"
done
row "$(printf '%-50s %10s %10s' "tflc build of examples/mnist_cnn.tfl (s)" \
  "$build_s" "<= 5")"
row "$(printf '%-50s %10s %10s' "tflc build of W8 (s)" "$w8_build_s" "<= 5")"
row "$(awk -v a="$w8_build_s" -v b="$w8_8_build_s" 'BEGIN {
  printf "%-50s %10s %10s  %.2fx the 4-layer build (<= 2x)", "tflc build of W8 with 8 layers (s)", b, "", b / a }')"
row "$(awk -v ms="$w8_ms" -v p="$peak" 'BEGIN {
  g = 5.2 / (ms / 1000)
  printf "W8: TFL at %.0f GFLOP/s (5.2 GFLOP a step), %.0f%% of the FMA peak (>= 40%%)", g, 100 * g / p }')"
row "$(awk -v s="$w1_seconds" -v p="$peak" 'BEGIN {
  g = 200 * 2e9 / s / 1e9
  printf "W1: TFL at %.0f GFLOP/s, %.0f%% of the f32 FMA peak measured in this run (%.0f GFLOP/s)", g, 100 * g / p, p }')"
if $peers; then
  row "Peers: torch $debian from Debian; $versions from PyPI"
  file=$(results_file run-peers)
  {
    echo "# bench/run.sh --peers, $(date +%F), REPEATS=${REPEATS:-3}, commit $(git rev-parse --short HEAD 2>/dev/null || echo -)"
    echo "# $(cpu_name), $(nproc) cores; every side on 2 threads"
    cat "$out/table"
  } >"$file"
  echo "written to bench/$file"
fi
