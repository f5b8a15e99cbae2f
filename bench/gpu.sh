#!/usr/bin/env bash
# The GPU benchmarks (docs/performance.md): TFL built with --device cuda
# against PyTorch with CUDA (eager, the whole step as a CUDA graph, and
# torch.compile(mode="max-autotune")), in the same run on the same GPU:
#   W1  x = x @ x, 200 times, 4096x4096, f32 and bf16            (seconds)
#   W3  seed CNN training step, batch 32 and batch 256, Adam     (ms/step)
#   W4  MLP 784-256-256-10 training step, batch 128, Adam        (ms/step)
#   causal attention forward and backward, bf16, B 8, H 12, T 1024, head
#   dim 64 (bench/attention.tfl, .py)                           (ms)
#   the same by scaled_dot_product_attention, in f32 (attention_f32.tfl)
#   and bf16 (attention_sdpa_bf16.tfl): libtflrt_cuda's fused kernels,
#   and products and a softmax                                  (ms)
#   GPT: nanoGPT's shakespeare_char training step (6 layers, width 384,
#   context 256, batch 64, dropout 0.2, AdamW) under bf16 autocast
#   (bench/gpt_gpu.tfl, .py; PyTorch with flash attention)       (ms/step)
#   the attention and GPT steps also built with --gpu-rows=fused (each
#   chain of row-wise ops one kernel), timed against the default
#   the main job: one epoch of Fashion-MNIST (examples/mnist_cnn.tfl),
#   GPU build against the CPU build on the same machine (images/s).
# The GPU machine has no compiler, so this runs in two halves:
#   bench/gpu.sh build DIR   here: tflc builds every executable into
#                            DIR/bench (test/gpu/bundle.sh packs DIR)
#   bench/gpu.sh run DIR     on the GPU machine, DIR an unpacked bundle:
#                            runs both sides REPEATS times (default 3),
#                            keeps each side's best, prints the table
# WORKLOADS="gpt_gpu ..." runs only those; TFL_GPU_GRAPH_STATS=1 prints each
# TFL program's graph replays; TFL_GPU_DIAGNOSE=LOGDIR keeps, per program,
# why its steps missed their graphs (TFL_CUDA_GRAPHS=trace) and its GPU
# profile (TFL_CUDA_PROFILE=1), the first step of any GPU tuning.
set -euo pipefail
mode=$1
dir=$(realpath "$2")
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=bench/best.sh
. "$here/best.sh"

build() {
  local tflc=$here/../build/bin/tflc src
  src=$(mktemp -d)
  trap 'rm -rf "$src"' RETURN
  mkdir -p "$dir/bench"
  cp "$here"/*.tfl "$src/"
  sed 's/^N = 1000$/N = 4096/' "$here/w1_matmul.tfl" >"$src/w1_matmul_4096.tfl"
  sed 's/^x = gather(eye(N), shuffle_indices(N))$/x = cast(gather(eye(N), shuffle_indices(N)), bf16)/' \
    "$src/w1_matmul_4096.tfl" >"$src/w1_matmul_4096_bf16.tfl"
  grep -q 'bf16)$' "$src/w1_matmul_4096_bf16.tfl"
  sed 's/^BATCH = 32$/BATCH = 256/' "$here/w3_cnn.tfl" >"$src/w3_cnn_256.tfl"
  for w in w1_matmul_4096 w1_matmul_4096_bf16 w3_cnn w3_cnn_256 w4_mlp \
    attention; do
    "$tflc" build --device cuda "$src/$w.tfl" -o "$dir/bench/$w.exe"
  done
  # f32 attention on the fused kernels, and as products and a softmax.
  "$tflc" build --device cuda --gpu-attention=fused \
    "$src/attention_f32.tfl" -o "$dir/bench/attention_f32.exe"
  "$tflc" build --device cuda "$src/attention_f32.tfl" \
    -o "$dir/bench/attention_f32_products.exe"
  # bf16 attention on the fused tensor-core kernels, and as products.
  "$tflc" build --device cuda --gpu-attention=fused \
    "$src/attention_sdpa_bf16.tfl" -o "$dir/bench/attention_sdpa_bf16.exe"
  "$tflc" build --device cuda "$src/attention_sdpa_bf16.tfl" \
    -o "$dir/bench/attention_sdpa_bf16_products.exe"
  TFL_STDLIB_PATH=$here/../stdlib:$here/../examples "$tflc" build \
    --device cuda --precision bf16 "$src/gpt_gpu.tfl" -o "$dir/bench/gpt_gpu.exe"
  # The same with each chain of row-wise ops (softmax, layer norm, their
  # gradients) one kernel, a block per row.
  TFL_STDLIB_PATH=$here/../stdlib:$here/../examples "$tflc" build \
    --device cuda --precision bf16 --gpu-rows=fused "$src/gpt_gpu.tfl" \
    -o "$dir/bench/gpt_gpu_rows.exe"
  "$tflc" build --device cuda --gpu-rows=fused "$src/attention.tfl" \
    -o "$dir/bench/attention_rows.exe"
  "$tflc" build --device cuda "$here/../examples/mnist_cnn.tfl" \
    -o "$dir/bench/mnist_cnn.exe"
  "$tflc" build "$here/../examples/mnist_cnn.tfl" -o "$dir/bench/mnist_cnn_cpu.exe"
}

run() {
  # TFL's programs load the bundle's libraries; PyTorch keeps its own.
  local tfl
  tfl="env LD_LIBRARY_PATH=$(python3 "$here/../test/gpu/run_all.py" \
    --library-path "$dir")"
  local b=$dir/bench py=python3
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
  date -u
  $py -c 'import torch; print("torch", torch.__version__, "CUDA", torch.version.cuda)'
  # PyTorch's configurations, each in its strongest form that the workload
  # admits: eager; the whole training step (forward, backward,
  # Adam(capturable=True)) captured as one torch.cuda.graph and replayed,
  # the mechanism TFL's step graphs use; torch.compile(mode="max-autotune")
  # (Triton and cuBLAS kernels autotuned, CUDA graphs of its own), run
  # last, once each (REPEATS_COMPILE), within COMPILE_TIMEOUT seconds
  # (default 150) for its compilation and run. For attention: the same
  # math eagerly, and scaled_dot_product_attention (FlashAttention).
  # TFL's ratio is to the fastest of them.
  local i
  local names=("W1 x = x @ x, 200 times, 4096^2 f32 (s)"
    "W1 the same in bf16 (s)"
    "W3 seed CNN step, batch 32 (ms)" "W3 seed CNN step, batch 256 (ms)"
    "W4 MLP step, batch 128 (ms)"
    "attention fwd+bwd, bf16, 8x12x1024x64 (ms)"
    "attention fwd+bwd, f32, fused kernels (ms)"
    "attention fwd+bwd, bf16, fused kernels (ms)"
    "GPT shakespeare_char step, bf16 (ms)")
  local exes=(w1_matmul_4096 w1_matmul_4096_bf16 w3_cnn w3_cnn_256 w4_mlp
    attention attention_f32 attention_sdpa_bf16 gpt_gpu)
  local scripts=("w1_matmul.py" "w1_matmul.py --bf16" "w3_cnn.py"
    "w3_cnn.py --batch=256" "w4_mlp.py" "attention.py" "attention.py --f32"
    "attention.py" "gpt_gpu.py")
  # The third column: the whole step as a CUDA graph, or for attention
  # PyTorch's fused kernel.
  local thirds=("" "" "--graph" "--graph" "--graph" "--sdpa" "--sdpa" "--sdpa"
    "--graph")
  # WORKLOADS="w3_cnn w4_mlp" (executables' names) runs only those.
  if [ -n "${WORKLOADS:-}" ]; then
    local -a keep_n keep_e keep_s keep_t
    for ((i = 0; i < ${#exes[@]}; i++)); do
      case " $WORKLOADS " in *" ${exes[i]} "*)
        keep_n+=("${names[i]}") keep_e+=("${exes[i]}")
        keep_s+=("${scripts[i]}") keep_t+=("${thirds[i]}") ;;
      esac
    done
    names=("${keep_n[@]}") exes=("${keep_e[@]}") scripts=("${keep_s[@]}")
    thirds=("${keep_t[@]}")
  fi
  local n=${#exes[@]}
  local -a t e g c
  for ((i = 0; i < n; i++)); do
    if [ -n "${TFL_GPU_DIAGNOSE:-}" ]; then
      # Why steps miss their graphs, and where the GPU's time goes: one run
      # with TFL_CUDA_GRAPHS=trace and one with TFL_CUDA_PROFILE=1, each's
      # first 400 lines of diagnostics kept in that directory.
      mkdir -p "$TFL_GPU_DIAGNOSE"
      # shellcheck disable=SC2086
      TFL_CUDA_GRAPHS=trace $tfl "$b/${exes[i]}.exe" 2>&1 >/dev/null |
        head -n 400 >"$TFL_GPU_DIAGNOSE/${exes[i]}.graphs.txt" || true
      # shellcheck disable=SC2086
      TFL_CUDA_PROFILE=1 $tfl "$b/${exes[i]}.exe" 2>&1 >/dev/null |
        head -n 400 >"$TFL_GPU_DIAGNOSE/${exes[i]}.profile.txt" || true
    fi
    if [ -n "${TFL_GPU_GRAPH_STATS:-}" ]; then
      # The step graphs' replay, checked (TFL_CUDA_GRAPHS=stats at exit).
      TFL_CUDA_GRAPHS=stats $tfl "$b/${exes[i]}.exe" 2>&1 | grep -i graph |
        sed "s/^/${exes[i]}: /" || true
    fi
    # shellcheck disable=SC2086
    t[i]=$(best $tfl "$b/${exes[i]}.exe")
    # shellcheck disable=SC2086
    e[i]=$(cd "$here" && best $py ${scripts[i]} --cuda)
    g[i]=-
    if [ -n "${thirds[i]}" ]; then
      # shellcheck disable=SC2086
      g[i]=$(cd "$here" && best $py ${scripts[i]} --cuda ${thirds[i]})
    fi
    echo "${exes[i]}: TFL ${t[i]}, eager ${e[i]}, ${thirds[i]:-(none)} ${g[i]}"
    if [ -e "$b/${exes[i]}_rows.exe" ]; then
      # shellcheck disable=SC2086
      echo "${exes[i]}: TFL with --gpu-rows=fused" \
        "$(best $tfl "$b/${exes[i]}_rows.exe")"
    fi
    if [ -e "$b/${exes[i]}_products.exe" ]; then
      # shellcheck disable=SC2086
      echo "${exes[i]}: TFL as products and a softmax (the default)" \
        "$(best $tfl "$b/${exes[i]}_products.exe")"
    fi
  done
  if [ -z "${WORKLOADS:-}" ]; then
    echo "main job, one epoch of Fashion-MNIST, CPU build ($(nproc) cores):"
    $tfl "$b/mnist_cnn_cpu.exe" | tail -2
    echo "main job, one epoch of Fashion-MNIST, GPU build:"
    $tfl "$b/mnist_cnn.exe" | tail -2
  fi
  for ((i = 0; i < n; i++)); do
    # shellcheck disable=SC2086
    c[i]=$( (cd "$here" && REPEATS=${REPEATS_COMPILE:-1} best \
      timeout "${COMPILE_TIMEOUT:-150}" $py ${scripts[i]} --cuda \
      --compile=max-autotune 2>>"$dir/max-autotune.log") || true)
    echo "${exes[i]}: max-autotune ${c[i]:-timed out}"
  done
  printf '%-44s %9s %9s %9s %9s %8s\n' workload TFL eager "graph/sdpa" \
    max-auto. "vs best"
  for ((i = 0; i < n; i++)); do
    awk -v n="${names[i]}" -v t="${t[i]}" -v e="${e[i]}" -v c="${c[i]:--}" \
      -v g="${g[i]}" 'BEGIN {
      m = e; if (c != "-" && c + 0 > 0 && c + 0 < m) m = c
      if (g != "-" && g + 0 < m) m = g
      printf "%-44s %9s %9s %9s %9s %7.2fx\n", n, t, e, g, c, m / t }'
  done
}

case "$mode" in
build) build ;;
run) run ;;
*)
  echo "usage: bench/gpu.sh build|run DIR" >&2
  exit 2
  ;;
esac
