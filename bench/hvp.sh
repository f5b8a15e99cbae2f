#!/usr/bin/env bash
# The Hessian-vector product of the W6 tanh MLP by forward over reverse:
# TFL's jvp(grad(f)) compiled (hvp.tfl) against PyTorch's
# torch.func.jvp(grad) and JAX's jax.jvp(jax.grad) under jax.jit
# (hvp_peers.py, from the peers' virtual environment that run.sh --peers
# installs), on 2 threads, the sides taking turns REPEATS times (default
# 3), each keeping its best. Writes results/DATE-cpu-hvp.txt with the CPU.
set -euo pipefail
cd "$(dirname "$0")"
tflc=../build/bin/tflc
venv=${PEERS_VENV:-$HOME/.cache/tfl-bench-peers}
repeats=${REPEATS:-3}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
"$tflc" build hvp.tfl -o "$out/hvp"
tfl_best="" peers=()
for _ in $(seq "$repeats"); do
  line=$(OMP_NUM_THREADS=2 "$out/hvp" | tail -1)
  if [ -z "$tfl_best" ] || awk -v a="$line" -v b="$tfl_best" \
       'BEGIN { split(a, x, " "); split(b, y, " "); exit !(x[2] < y[2]) }'; then
    tfl_best=$line
  fi
  peers+=("$("$venv/bin/python" hvp_peers.py 2>/dev/null)")
done
result="results/$(date +%F)-cpu-hvp.txt"
{
  echo "# $(date -u +%FT%TZ), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)," \
       "$(grep -qw avx512f /proc/cpuinfo && echo AVX-512 || echo AVX2), 2 threads"
  echo "# side gradient_ms hvp_ms hvp/gradient (best of $repeats)"
  echo "tfl $tfl_best"
  printf '%s\n' "${peers[@]}" | awk '
    { if (!($1 in best) || $3 < hvp[$1]) { best[$1] = $0; hvp[$1] = $3 } }
    END { for (k in best) print best[k] }' | sort
} | tee "$result"
