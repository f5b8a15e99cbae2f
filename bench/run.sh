#!/usr/bin/env bash
# Runs the workloads in TFL (compiled; W5 also eagerly) and in PyTorch
# on this machine, in one run, and prints a table of ratios against the
# targets (docs/performance.md). Each side runs REPEATS times (default 3)
# and keeps its best time. Needs a built tflc (./dev.sh main) and Debian's
# python3-torch with libopenblas-dev (apt); PyTorch runs on 2 threads.
#
# With --peers, a second table compares W1-W4 and W7 with the current PyTorch
# (eager and torch.compile) and JAX (jax.jit) from PyPI, installed into a
# virtual environment at $PEERS_VENV (default ~/.cache/tfl-bench-peers;
# several GB, as PyPI's torch brings CUDA libraries).
set -euo pipefail
peers=false
[ "${1:-}" = "--peers" ] && peers=true
cd "$(dirname "$0")"
# shellcheck source=bench/best.sh
. ./best.sh
tflc=../build/bin/tflc
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT


for w in w1_matmul w2_linreg w3_cnn w4_mlp w5_scalar grad_ratio \
  w7_transcendental; do
  "$tflc" build "$w.tfl" -o "$out/$w"
done
start=$(date +%s.%N)
"$tflc" build ../examples/mnist_cnn.tfl -o "$out/mnist_cnn"
build_s=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }')

row() { # name unit tfl torch faster|atmost target
  awk -v name="$1 ($2)" -v t="$3" -v p="$4" -v kind="$5" -v target="$6" 'BEGIN {
    if (kind == "faster") {
      r = p / t
      printf "%-50s %10s %10s %8.2fx  >= %-7s %s\n", name, t, p, r, target "x",
        (r >= target ? "yes" : "NO")
    } else {
      printf "%-50s %10s %10s %9s  <= %-7s %s\n", name, t, p, "", target,
        (t <= target ? "yes" : "NO")
    }
  }'
}

printf '%-50s %10s %10s %9s  %-10s %s\n' workload TFL PyTorch speedup target met
names=("W1 x = x @ x, 200 times, 1000x1000" "W2 linear-regression step, 2000 points"
  "W3 seed CNN step, batch 32, Adam" "W4 MLP 784-256-256-10 step, batch 128, Adam"
  "W7 exp + log + tanh + sigmoid, 2^22 f32")
scripts=(w1_matmul w2_linreg w3_cnn w4_mlp w7_transcendental)
units=(s ms ms ms ms)
targets=(0.95 10 2 3 1)
tfl=()
for i in 0 1 2 3; do
  tfl[i]=$(best "$out/${scripts[i]}")
  row "${names[i]}" "${units[i]}" "${tfl[i]}" \
    "$(best /usr/bin/python3 "${scripts[i]}.py")" faster "${targets[i]}"
done
torch_scalar=$(best /usr/bin/python3 w5_scalar.py)
row "W5 scalar x = x * 0.999 + 0.001, compiled" us \
  "$(best "$out/w5_scalar")" "$torch_scalar" faster 100
row "W5 scalar x = x * 0.999 + 0.001, eager" us \
  "$(best "$tflc" run --eager w5_scalar.tfl --steps=200000)" "$torch_scalar" \
  faster 1
read -r _ _ tr < <("$out/grad_ratio" | tail -1)
read -r _ _ pr < <(/usr/bin/python3 grad_ratio.py)
row "W6 gradient / forward cost (tanh MLP 512)" ratio "$tr" "$pr" atmost 3
tfl[4]=$(best "$out/w7_transcendental")
row "${names[4]}" "${units[4]}" "${tfl[4]}" \
  "$(best /usr/bin/python3 w7_transcendental.py)" faster "${targets[4]}"
row "tflc build of examples/mnist_cnn.tfl" s "$build_s" "-" atmost 5

$peers || exit 0
venv=${PEERS_VENV:-$HOME/.cache/tfl-bench-peers}
if [ ! -x "$venv/bin/python" ]; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q torch jax
fi
py=$venv/bin/python
echo
echo "Current peers: $("$py" -c 'import torch, jax; print(f"torch {torch.__version__}, jax {jax.__version__}")')"
printf '%-50s %10s %10s %10s %10s  %s\n' workload TFL torch compile jax.jit \
  "TFL speedup over the best"
for i in 0 1 2 3 4; do
  eager=$(best "$py" "${scripts[i]}.py")
  compiled=$(best "$py" "${scripts[i]}.py" --compile)
  jaxjit=$(best "$py" jax_workloads.py "${scripts[i]%%_*}")
  awk -v name="${names[i]} (${units[i]})" -v t="${tfl[i]}" -v a="$eager" \
    -v b="$compiled" -v c="$jaxjit" 'BEGIN {
      m = a; if (b < m) m = b; if (c < m) m = c
      printf "%-50s %10s %10s %10s %10s  %.2fx\n", name, t, a, b, c, m / t
    }'
done
