// RUN: tfl-opt %s -split-input-file -tfl-autodiff | FileCheck %s
// RUN: tfl-opt %s -split-input-file -tfl-autodiff -tfl-inline-into-vjps -canonicalize -cse | FileCheck %s --check-prefix=CSE

// Tests that the reverse sweep through a call of a checkpoint function
// (`tfl.checkpoint`, what checkpoint(f) generates) passes the call's
// arguments and its result's cotangent through one
// tfl.optimization_barrier before the callee's vjp, and that a plain call
// gets none. After inlining and CSE, the checkpoint's forward work is done
// twice (the forward sweep's tanh, and the one its vjp recomputes from the
// barrier's results), where the plain call's sin is merged into one.
// CHECK-LABEL: func.func private @loss.vjp
// CHECK: %[[H:.*]] = call @layer.checkpoint(%[[W:[^,]*]], %[[X:[^)]*]])
// CHECK: call @plain(
// CHECK: call @plain.vjp(
// CHECK-NOT: tfl.optimization_barrier {{.*}}plain
// CHECK: %[[B:.*]]:3 = tfl.optimization_barrier %[[W]], %[[X]], %{{.*}} : tensor<4x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>
// CHECK: call @layer.checkpoint.vjp{{.*}}(%[[B]]#0, %[[B]]#1, %[[B]]#2)
// CSE-LABEL: func.func private @loss.vjp
// CSE: tfl.tanh
// CSE: tfl.sin
// CSE-NOT: tfl.sin
// CSE: tfl.optimization_barrier
// CSE: tfl.tanh
// CSE-NOT: call
// CSE: return
func.func private @layer(%w: tensor<4x4xf32>, %x: tensor<3x4xf32>) -> tensor<3x4xf32> {
  %0 = tfl.matmul %x, %w : tensor<3x4xf32>, tensor<4x4xf32> -> tensor<3x4xf32>
  %1 = tfl.tanh %0 : tensor<3x4xf32>
  return %1 : tensor<3x4xf32>
}
func.func private @layer.checkpoint(%w: tensor<4x4xf32>, %x: tensor<3x4xf32>) -> tensor<3x4xf32> attributes {tfl.checkpoint} {
  %0 = call @layer(%w, %x) : (tensor<4x4xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}
func.func private @plain(%x: tensor<3x4xf32>) -> tensor<3x4xf32> {
  %0 = tfl.sin %x : tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}
func.func private @loss(%w: tensor<4x4xf32>, %x: tensor<3x4xf32>) -> tensor<f32> {
  %0 = call @layer.checkpoint(%w, %x) : (tensor<4x4xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
  %1 = call @plain(%0) : (tensor<3x4xf32>) -> tensor<3x4xf32>
  %2 = tfl.reduce_sum %1 {axes = array<i64: 0, 1>, keepdims = false} : tensor<3x4xf32> -> tensor<f32>
  return %2 : tensor<f32>
}
func.func @main(%w: tensor<4x4xf32>, %x: tensor<3x4xf32>) -> tensor<4x4xf32> {
  %g = tfl.grad @loss(%w, %x) {argnums = array<i64: 0>, with_value = false} : (tensor<4x4xf32>, tensor<3x4xf32>) -> tensor<4x4xf32>
  return %g : tensor<4x4xf32>
}

// -----

// Tests that a checkpoint function's jvp and batched function are
// checkpoints too, so that a gradient over them recomputes them.
// CHECK-LABEL: func.func private @sq.checkpoint.vmap2_1
// CHECK-SAME: tfl.checkpoint
// CHECK-LABEL: func.func private @sq.checkpoint.jvp
// CHECK-SAME: tfl.checkpoint
func.func private @sq.checkpoint(%x: tensor<3xf32>) -> tensor<3xf32> attributes {tfl.checkpoint} {
  %0 = tfl.mul %x, %x : tensor<3xf32>, tensor<3xf32> -> tensor<3xf32>
  return %0 : tensor<3xf32>
}
func.func @main(%x: tensor<3xf32>, %t: tensor<3xf32>, %xs: tensor<2x3xf32>) -> (tensor<3xf32>, tensor<3xf32>, tensor<2x3xf32>) {
  %y, %ty = tfl.jvp @sq.checkpoint(%x, %t) : (tensor<3xf32>, tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>)
  %ys = tfl.vmap @sq.checkpoint(%xs) {in_axes = array<i64: 0>, out_axes = array<i64: 0>} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %y, %ty, %ys : tensor<3xf32>, tensor<3xf32>, tensor<2x3xf32>
}
