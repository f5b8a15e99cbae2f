// RUN: tfl-opt %s -split-input-file -tfl-decompose-attention="all=1" | FileCheck %s --check-prefix=ALL
// RUN: tfl-opt %s -split-input-file -tfl-decompose-attention | FileCheck %s --check-prefix=CPU
// RUN: tfl-opt %s -split-input-file -tfl-autodiff | FileCheck %s --check-prefix=AD

// Tests tfl.attention's decomposition: the scores as a batched product
// with k transposed, scaled, the causal mask as a where over a constant,
// a softmax along the keys, and the product with v; on a CPU module
// (no tfl.target) the fused op stays. A vjp calls the adjoint op; a jvp
// differentiates the decomposition.
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
// AD-LABEL: func.func private @f.jvp
// AD-NOT: tfl.attention
// AD: tfl.reduce_max
// AD-LABEL: func.func private @f.vjp
// AD: tfl.attention %
// AD: tfl.attention_backward
func.func private @f(%q: tensor<2x3x8x4xf32>, %k: tensor<2x3x8x4xf32>, %v: tensor<2x3x8x5xf32>) -> tensor<2x3x8x5xf32> {
  %0 = tfl.attention %q, %k, %v {causal = true, scale = 0.5 : f64} : tensor<2x3x8x4xf32>, tensor<2x3x8x4xf32>, tensor<2x3x8x5xf32> -> tensor<2x3x8x5xf32>
  return %0 : tensor<2x3x8x5xf32>
}
func.func @main(%q: tensor<2x3x8x4xf32>, %k: tensor<2x3x8x4xf32>, %v: tensor<2x3x8x5xf32>, %t: tensor<2x3x8x4xf32>, %d: tensor<2x3x8x5xf32>) -> (tensor<2x3x8x5xf32>, tensor<2x3x8x5xf32>, tensor<2x3x8x4xf32>) {
  %y, %ty = tfl.jvp @f(%q, %k, %v, %t, %t, %d) : (tensor<2x3x8x4xf32>, tensor<2x3x8x4xf32>, tensor<2x3x8x5xf32>, tensor<2x3x8x4xf32>, tensor<2x3x8x4xf32>, tensor<2x3x8x5xf32>) -> (tensor<2x3x8x5xf32>, tensor<2x3x8x5xf32>)
  %g = tfl.grad @f(%q, %k, %v, %d) {argnums = array<i64: 0>, seeded, with_value = false} : (tensor<2x3x8x4xf32>, tensor<2x3x8x4xf32>, tensor<2x3x8x5xf32>, tensor<2x3x8x5xf32>) -> tensor<2x3x8x4xf32>
  return %y, %ty, %g : tensor<2x3x8x5xf32>, tensor<2x3x8x5xf32>, tensor<2x3x8x4xf32>
}
