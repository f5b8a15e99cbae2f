// RUN: tfl-opt %s -split-input-file -tfl-autodiff -tfl-inline-into-vjps -cse | FileCheck %s

// Tests that the calls inside a vjp are inlined, the callee's vjp
// included, and that CSE then merges the callee's forward work (once in
// the forward sweep, once again in the callee's vjp): one tfl.exp and one
// tfl.sin in @outer.vjp, no calls. @main's own call of @inner, outside
// grad, stays a call.
// CHECK-LABEL: func.func private @outer.vjp
// CHECK-SAME: attributes {tfl.vjp}
// CHECK-NOT: call
// CHECK: tfl.sin
// CHECK-NOT: tfl.sin
// CHECK: tfl.exp
// CHECK-NOT: tfl.exp
// CHECK-NOT: call
// CHECK: return
// CHECK-LABEL: func.func @main
// CHECK: call @inner(
// CHECK: call @outer.vjp(
func.func private @inner(%a: tensor<f32>) -> tensor<f32> {
  %0 = tfl.exp %a : tensor<f32>
  return %0 : tensor<f32>
}
func.func private @middle(%a: tensor<f32>) -> tensor<f32> {
  %0 = tfl.sin %a : tensor<f32>
  %1 = call @inner(%0) : (tensor<f32>) -> tensor<f32>
  return %1 : tensor<f32>
}
func.func private @outer(%a: tensor<f32>) -> tensor<f32> {
  %0 = call @middle(%a) : (tensor<f32>) -> tensor<f32>
  %1 = tfl.mul %0, %0 : tensor<f32>, tensor<f32> -> tensor<f32>
  return %1 : tensor<f32>
}
func.func @main(%a: tensor<f32>) -> (tensor<f32>, tensor<f32>) {
  %e = call @inner(%a) : (tensor<f32>) -> tensor<f32>
  %g = tfl.grad @outer(%a) {argnums = array<i64: 0>, with_value = false} : (tensor<f32>) -> tensor<f32>
  return %e, %g : tensor<f32>, tensor<f32>
}

// -----

// Tests that a module without vjps is left as it is.
// CHECK-LABEL: func.func @plain
// CHECK: call @helper(
func.func private @helper(%a: tensor<f32>) -> tensor<f32> {
  %0 = tfl.exp %a : tensor<f32>
  return %0 : tensor<f32>
}
func.func @plain(%a: tensor<f32>) -> tensor<f32> {
  %0 = call @helper(%a) : (tensor<f32>) -> tensor<f32>
  return %0 : tensor<f32>
}
