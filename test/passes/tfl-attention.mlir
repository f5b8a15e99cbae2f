// RUN: tfl-opt %s -split-input-file -tfl-decompose-attention="all=1" | FileCheck %s --check-prefix=ALL
// RUN: tfl-opt %s -split-input-file -tfl-decompose-attention | FileCheck %s --check-prefix=CPU
// RUN: tfl-opt %s -split-input-file -tfl-autodiff | FileCheck %s --check-prefix=AD

// Tests tfl.attention's decomposition: the scores as a batched product
// with k transposed, scaled, the causal mask as a where over a constant,
// a softmax along the keys, and the product with v; on a CPU module
// (no tfl.target) the fused op stays. A vjp calls the adjoint op; a jvp
// differentiates the decomposition, of a copy: f keeps its fused op.
// ALL-LABEL: func.func private @f
// ALL-NOT: tfl.attention
// ALL: tfl.transpose %{{.*}} {perm = array<i64: 0, 2, 1>}
// ALL: tfl.matmul
// ALL: tfl.mul
// ALL: tfl.where
// ALL: tfl.reduce_max
// ALL: tfl.exp
// ALL: tfl.reduce_sum
// ALL: tfl.div
// ALL: tfl.matmul
// ALL-NOT: tfl.attention
// CPU-LABEL: func.func private @f
// CPU: tfl.attention %{{.*}}, %{{.*}}, %{{.*}} {causal = true
// AD-LABEL: func.func private @f(
// AD: tfl.attention %
// AD-LABEL: func.func private @f.vjp
// AD: %[[O:.*]] = tfl.attention %
// AD: tfl.attention_backward %{{.*}}, %{{.*}}, %{{.*}}, %[[O]], %
// AD-LABEL: func.func private @f.jvp
// AD-NOT: tfl.attention
// AD: tfl.reduce_max
// AD-NOT: tfl.attention
// AD-LABEL: func.func @main
func.func private @f(%q: tensor<2x3x8x4xf32>, %k: tensor<2x3x8x4xf32>, %v: tensor<2x3x8x5xf32>) -> tensor<2x3x8x5xf32> {
  %0 = tfl.attention %q, %k, %v {causal = true, scale = 0.5 : f64} : tensor<2x3x8x4xf32>, tensor<2x3x8x4xf32>, tensor<2x3x8x5xf32> -> tensor<2x3x8x5xf32>
  return %0 : tensor<2x3x8x5xf32>
}
func.func @main(%q: tensor<2x3x8x4xf32>, %k: tensor<2x3x8x4xf32>, %v: tensor<2x3x8x5xf32>, %t: tensor<2x3x8x4xf32>, %d: tensor<2x3x8x5xf32>) -> (tensor<2x3x8x5xf32>, tensor<2x3x8x5xf32>, tensor<2x3x8x4xf32>) {
  %y, %ty = tfl.jvp @f(%q, %k, %v, %t, %t, %d) : (tensor<2x3x8x4xf32>, tensor<2x3x8x4xf32>, tensor<2x3x8x5xf32>, tensor<2x3x8x4xf32>, tensor<2x3x8x4xf32>, tensor<2x3x8x5xf32>) -> (tensor<2x3x8x5xf32>, tensor<2x3x8x5xf32>)
  %g = tfl.grad @f(%q, %k, %v, %d) {argnums = array<i64: 0>, seeded, with_value = false} : (tensor<2x3x8x4xf32>, tensor<2x3x8x4xf32>, tensor<2x3x8x5xf32>, tensor<2x3x8x5xf32>) -> tensor<2x3x8x4xf32>
  return %y, %ty, %g : tensor<2x3x8x5xf32>, tensor<2x3x8x5xf32>, tensor<2x3x8x4xf32>
}

// -----

// Tests a second derivative: the vjp of a vjp differentiates the adjoint
// op's decomposition (it has no rule), whose softmax shows, while the
// first vjp keeps the fused ops; the forward attention's own pullback is
// the adjoint op again.
// AD-LABEL: func.func private @g.vjp.100(
// AD-NOT: tfl.reduce_max
// AD: tfl.attention_backward
// AD-NOT: tfl.reduce_max
// AD-LABEL: func.func private @g.vjp.100.vjp.1000(
// AD: tfl.attention %
// AD: tfl.reduce_max
// AD: tfl.attention_backward
// AD-LABEL: func.func private @h(
func.func private @g(%q: tensor<1x4x2xf32>, %k: tensor<1x4x2xf32>, %v: tensor<1x4x2xf32>) -> tensor<1x4x2xf32> {
  %0 = tfl.attention %q, %k, %v {causal = false, scale = 1.0 : f64} : tensor<1x4x2xf32>, tensor<1x4x2xf32>, tensor<1x4x2xf32> -> tensor<1x4x2xf32>
  return %0 : tensor<1x4x2xf32>
}
func.func private @h(%q: tensor<1x4x2xf32>, %k: tensor<1x4x2xf32>, %v: tensor<1x4x2xf32>, %d: tensor<1x4x2xf32>) -> tensor<1x4x2xf32> {
  %g = tfl.grad @g(%q, %k, %v, %d) {argnums = array<i64: 0>, seeded, with_value = false} : (tensor<1x4x2xf32>, tensor<1x4x2xf32>, tensor<1x4x2xf32>, tensor<1x4x2xf32>) -> tensor<1x4x2xf32>
  return %g : tensor<1x4x2xf32>
}
func.func @main2(%q: tensor<1x4x2xf32>, %k: tensor<1x4x2xf32>, %v: tensor<1x4x2xf32>, %d: tensor<1x4x2xf32>) -> tensor<1x4x2xf32> {
  %g = tfl.grad @h(%q, %k, %v, %d, %d) {argnums = array<i64: 0>, seeded, with_value = false} : (tensor<1x4x2xf32>, tensor<1x4x2xf32>, tensor<1x4x2xf32>, tensor<1x4x2xf32>, tensor<1x4x2xf32>) -> tensor<1x4x2xf32>
  return %g : tensor<1x4x2xf32>
}

// -----

// Tests that a CUDA module decomposes every attention by default, and with
// tfl.gpu_attention "fused" keeps an f32 attention and its adjoint whose
// heads have at most 128 features (libtflrt_cuda's fused kernels take
// them) and decomposes one with wider heads (160 features of v) and one
// of bf16 operands whose heads (2) are not a multiple of 16.
// CPU-LABEL: func.func @by_default
// CPU-NOT: tfl.attention
// CPU: tfl.reduce_max
module attributes {tfl.target = "cuda"} {
  func.func @by_default(%q: tensor<1x4x2xf32>) -> tensor<1x4x2xf32> {
    %0 = tfl.attention %q, %q, %q {causal = true, scale = 1.0 : f64} : tensor<1x4x2xf32>, tensor<1x4x2xf32>, tensor<1x4x2xf32> -> tensor<1x4x2xf32>
    return %0 : tensor<1x4x2xf32>
  }
}

// -----

// CPU-LABEL: func.func @on_gpu
// CPU: tfl.attention %{{.*}} : tensor<1x4x2xf32>
// CPU: tfl.attention_backward
// CPU-NOT: tfl.attention
// CPU: tfl.reduce_max
// CPU-NOT: tfl.attention
// CPU: tfl.reduce_max
// CPU-NOT: tfl.attention
// CPU: return
module attributes {tfl.target = "cuda", tfl.gpu_attention = "fused"} {
  func.func @on_gpu(%q: tensor<1x4x2xf32>, %k: tensor<1x4x2xf32>, %v: tensor<1x4x2xf32>, %w: tensor<1x4x160xf32>, %h: tensor<1x4x2xbf16>) -> (tensor<1x4x2xf32>, tensor<1x4x2xf32>, tensor<1x4x160xf32>, tensor<1x4x2xbf16>) {
    %0 = tfl.attention %q, %k, %v {causal = true, scale = 1.0 : f64} : tensor<1x4x2xf32>, tensor<1x4x2xf32>, tensor<1x4x2xf32> -> tensor<1x4x2xf32>
    %dq, %dk, %dv = tfl.attention_backward %q, %k, %v, %0, %v {causal = true, scale = 1.0 : f64} : tensor<1x4x2xf32>, tensor<1x4x2xf32>, tensor<1x4x2xf32>, tensor<1x4x2xf32>, tensor<1x4x2xf32> -> tensor<1x4x2xf32>, tensor<1x4x2xf32>, tensor<1x4x2xf32>
    %1 = tfl.attention %q, %k, %w {causal = false, scale = 1.0 : f64} : tensor<1x4x2xf32>, tensor<1x4x2xf32>, tensor<1x4x160xf32> -> tensor<1x4x160xf32>
    %2 = tfl.attention %h, %h, %h {causal = false, scale = 1.0 : f64} : tensor<1x4x2xbf16>, tensor<1x4x2xbf16>, tensor<1x4x2xbf16> -> tensor<1x4x2xbf16>
    return %0, %dq, %1, %2 : tensor<1x4x2xf32>, tensor<1x4x2xf32>, tensor<1x4x160xf32>, tensor<1x4x2xbf16>
  }
}

// -----

// Tests that under 16-bit precision a fused CUDA module keeps an attention
// whose heads are a multiple of 16 features (autocast then makes it bf16,
// for the tensor-core kernels) and decomposes one of heads of 2.
// CPU-LABEL: func.func @half_precision
// CPU: tfl.attention %{{.*}} : tensor<1x4x16xf32>
// CPU-NOT: tfl.attention
// CPU: tfl.reduce_max
// CPU-NOT: tfl.attention
// CPU: return
module attributes {tfl.target = "cuda", tfl.precision = "bf16", tfl.gpu_attention = "fused"} {
  func.func @half_precision(%q: tensor<1x4x16xf32>, %r: tensor<1x4x2xf32>) -> (tensor<1x4x16xf32>, tensor<1x4x2xf32>) {
    %0 = tfl.attention %q, %q, %q {causal = true, scale = 1.0 : f64} : tensor<1x4x16xf32>, tensor<1x4x16xf32>, tensor<1x4x16xf32> -> tensor<1x4x16xf32>
    %1 = tfl.attention %r, %r, %r {causal = true, scale = 1.0 : f64} : tensor<1x4x2xf32>, tensor<1x4x2xf32>, tensor<1x4x2xf32> -> tensor<1x4x2xf32>
    return %0, %1 : tensor<1x4x16xf32>, tensor<1x4x2xf32>
  }
}

// -----

// Tests that a seq_major attention decomposes as the heads-first one
// between transposes: its operands swapped to [B, H, T, E], the result
// swapped back.
// ALL-LABEL: func.func @seq_major
// ALL-NOT: tfl.attention
// ALL: tfl.transpose %{{.*}} {perm = array<i64: 0, 2, 1, 3>} : tensor<2x8x3x4xf32> -> tensor<2x3x8x4xf32>
// ALL: tfl.reduce_max
// ALL: tfl.matmul
// ALL: %[[R:.*]] = tfl.transpose %{{.*}} {perm = array<i64: 0, 2, 1, 3>} : tensor<2x3x8x5xf32> -> tensor<2x8x3x5xf32>
// ALL: return %[[R]]
// CPU-LABEL: func.func @seq_major
// CPU: tfl.attention %{{.*}} seq_major
func.func @seq_major(%q: tensor<2x8x3x4xf32>, %k: tensor<2x8x3x4xf32>, %v: tensor<2x8x3x5xf32>) -> tensor<2x8x3x5xf32> {
  %0 = tfl.attention %q, %k, %v {causal = true, scale = 0.5 : f64, seq_major} : tensor<2x8x3x4xf32>, tensor<2x8x3x4xf32>, tensor<2x8x3x5xf32> -> tensor<2x8x3x5xf32>
  return %0 : tensor<2x8x3x5xf32>
}
