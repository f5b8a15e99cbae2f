// RUN: tfl-opt %s -split-input-file -tfl-autodiff | FileCheck %s

// Tests that a seeded tfl.grad (vjp(f, *primals)'s vjp_fn) becomes a call
// of f's vjp with the given cotangents as the seeds of f's results, not a
// constant 1: the results are the cotangents of the arguments at argnums,
// and f may return several non-scalar results.
// CHECK-LABEL: func.func private @f.vjp
// CHECK-SAME: (%{{.*}}: tensor<2x3xf32>, %{{.*}}: tensor<3x4xf32>, %{{.*}}: tensor<2x4xf32>, %{{.*}}: tensor<f32>) -> (tensor<2x4xf32>, tensor<f32>, tensor<2x3xf32>, tensor<3x4xf32>)
// CHECK: tfl.matmul
// CHECK: tfl.tanh
// CHECK-LABEL: func.func @main
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>, %[[W:.*]]: tensor<3x4xf32>, %[[DY:.*]]: tensor<2x4xf32>, %[[DS:.*]]: tensor<f32>)
// CHECK-NOT: tfl.constant
// CHECK: %[[R:.*]]:4 = call @f.vjp(%[[X]], %[[W]], %[[DY]], %[[DS]])
// CHECK: return %[[R]]#2, %[[R]]#3
// CHECK-NOT: tfl.grad
func.func private @f(%x: tensor<2x3xf32>, %w: tensor<3x4xf32>) -> (tensor<2x4xf32>, tensor<f32>) {
  %0 = tfl.matmul %x, %w : tensor<2x3xf32>, tensor<3x4xf32> -> tensor<2x4xf32>
  %1 = tfl.tanh %0 : tensor<2x4xf32>
  %2 = tfl.mul %x, %x : tensor<2x3xf32>, tensor<2x3xf32> -> tensor<2x3xf32>
  %3 = tfl.reduce_sum %2 {axes = array<i64: 0, 1>, keepdims = false} : tensor<2x3xf32> -> tensor<f32>
  return %1, %3 : tensor<2x4xf32>, tensor<f32>
}
func.func @main(%x: tensor<2x3xf32>, %w: tensor<3x4xf32>, %dy: tensor<2x4xf32>, %ds: tensor<f32>) -> (tensor<2x3xf32>, tensor<3x4xf32>) {
  %0, %1 = tfl.grad @f(%x, %w, %dy, %ds) {argnums = array<i64: 0, 1>, seeded, with_value = false} : (tensor<2x3xf32>, tensor<3x4xf32>, tensor<2x4xf32>, tensor<f32>) -> (tensor<2x3xf32>, tensor<3x4xf32>)
  return %0, %1 : tensor<2x3xf32>, tensor<3x4xf32>
}

// -----

// Tests that a seeded grad of a @custom_gradient function seeds its value
// with the cotangent and its residuals (the results after the value) with
// zeros, and that an integer argument's cotangent is zeros.
// CHECK-LABEL: func.func @use_custom
// CHECK-SAME: (%[[X:.*]]: tensor<3xf32>, %[[K:.*]]: tensor<i64>, %[[DY:.*]]: tensor<3xf32>)
// CHECK: %[[Z:.*]] = tfl.constant dense<0.000000e+00> : tensor<3xf32>
// CHECK: %[[R:.*]]:4 = call @custom.vjp(%[[X]], %[[K]], %[[DY]], %[[Z]])
// CHECK: return %[[R]]#2, %[[R]]#3 : tensor<3xf32>, tensor<i64>
func.func private @custom(%x: tensor<3xf32>, %k: tensor<i64>) -> (tensor<3xf32>, tensor<3xf32>) attributes {tfl.custom_pullback = @custom_grad, tfl.custom_value_leaves = 1 : i64, tfl.custom_cotangents = array<i64: 0, -1>} {
  %0 = tfl.exp %x : tensor<3xf32>
  return %0, %0 : tensor<3xf32>, tensor<3xf32>
}
func.func private @custom_grad(%dy: tensor<3xf32>, %e: tensor<3xf32>) -> tensor<3xf32> {
  %0 = tfl.mul %dy, %e : tensor<3xf32>, tensor<3xf32> -> tensor<3xf32>
  return %0 : tensor<3xf32>
}
func.func @use_custom(%x: tensor<3xf32>, %k: tensor<i64>, %dy: tensor<3xf32>) -> (tensor<3xf32>, tensor<i64>) {
  %0, %1 = tfl.grad @custom(%x, %k, %dy) {argnums = array<i64: 0, 1>, seeded, with_value = false} : (tensor<3xf32>, tensor<i64>, tensor<3xf32>) -> (tensor<3xf32>, tensor<i64>)
  return %0, %1 : tensor<3xf32>, tensor<i64>
}
