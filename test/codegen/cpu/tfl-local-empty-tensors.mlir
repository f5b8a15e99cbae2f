// RUN: tfl-opt %s -tfl-local-empty-tensors | FileCheck %s

// Tests that each use of an empty tensor gets an empty tensor of its own,
// right before its user (a loop body's use of one from before the loop
// too), and that a reshape of an empty tensor becomes one.

// CHECK-LABEL: func.func @loop_body
// CHECK: %[[OUTER:.*]] = tensor.empty() : tensor<4xf32>
// CHECK: linalg.fill ins(%{{.*}} : f32) outs(%[[OUTER]]
// CHECK: scf.for
// CHECK: %[[INNER:.*]] = tensor.empty() : tensor<4xf32>
// CHECK-NEXT: linalg.generic {{.*}} outs(%[[INNER]] : tensor<4xf32>)
// CHECK: scf.yield
func.func @loop_body(%n: index) -> tensor<4xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%w = %init) -> tensor<4xf32> {
    %next = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%w : tensor<4xf32>) outs(%e : tensor<4xf32>) {
    ^bb0(%in: f32, %out: f32):
      %s = arith.addf %in, %in : f32
      linalg.yield %s : f32
    } -> tensor<4xf32>
    scf.yield %next : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

// An empty tensor used only inside the loop moves into it; the loop's
// initial value stays.
// CHECK-LABEL: func.func @only_inside
// CHECK: %[[INIT:.*]] = tensor.empty(%arg1) : tensor<?xf32>
// CHECK-NOT: tensor.empty
// CHECK: scf.for {{.*}} iter_args(%{{.*}} = %[[INIT]])
// CHECK: tensor.empty(%arg1) : tensor<?xf32>
func.func @only_inside(%n: index, %m: index) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %one = arith.constant 1.0 : f32
  %e = tensor.empty(%m) : tensor<?xf32>
  %init = tensor.empty(%m) : tensor<?xf32>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%w = %init) -> tensor<?xf32> {
    %f = linalg.fill ins(%one : f32) outs(%e : tensor<?xf32>) -> tensor<?xf32>
    scf.yield %f : tensor<?xf32>
  }
  return %r : tensor<?xf32>
}

// Uses in the empty's own block get one each too (CSE merged the empty
// tensors of a training step's layer norms into one, which bufferization
// then analyzed as one buffer written by hundreds of ops: its alias
// queries grew with the square of the layers), each right before its
// user.
// CHECK-LABEL: func.func @same_block
// CHECK: %[[E1:.*]] = tensor.empty() : tensor<4xf32>
// CHECK-NEXT: linalg.fill ins(%{{.*}} : f32) outs(%[[E1]] : tensor<4xf32>)
// CHECK-NEXT: %[[E2:.*]] = tensor.empty() : tensor<4xf32>
// CHECK-NEXT: linalg.fill ins(%{{.*}} : f32) outs(%[[E2]] : tensor<4xf32>)
// CHECK: return
func.func @same_block() -> (tensor<4xf32>, tensor<4xf32>) {
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %e = tensor.empty() : tensor<4xf32>
  %a = linalg.fill ins(%zero : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %b = linalg.fill ins(%one : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  return %a, %b : tensor<4xf32>, tensor<4xf32>
}

// The empty stays with the op right after it, and a later user gets one
// right before it, however the uses are listed: kept for the last user
// (the first in the use list), the empty's buffer was allocated where the
// empty was, a gradient's destination in the forward sweep, and held
// until the reverse sweep wrote it.
// CHECK-LABEL: func.func @far_user
// CHECK: %[[E1:.*]] = tensor.empty() : tensor<4xf32>
// CHECK-NEXT: linalg.fill ins(%{{.*}} : f32) outs(%[[E1]] : tensor<4xf32>)
// CHECK-NEXT: arith.addf
// CHECK-NEXT: %[[E2:.*]] = tensor.empty() : tensor<4xf32>
// CHECK-NEXT: linalg.fill ins(%{{.*}} : f32) outs(%[[E2]] : tensor<4xf32>)
// CHECK-NEXT: return
func.func @far_user(%x: f32) -> (tensor<4xf32>, tensor<4xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4xf32>
  %a = linalg.fill ins(%zero : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %y = arith.addf %x, %x : f32
  %b = linalg.fill ins(%y : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  return %a, %b : tensor<4xf32>, tensor<4xf32>
}

// A reshape of an empty tensor becomes an empty tensor of its shape, one
// for each of its uses.
// CHECK-LABEL: func.func @reshaped
// CHECK-NOT: expand_shape
// CHECK: %[[E1:.*]] = tensor.empty() : tensor<2x2xf32>
// CHECK-NEXT: linalg.fill ins(%{{.*}} : f32) outs(%[[E1]] : tensor<2x2xf32>)
// CHECK-NEXT: %[[E2:.*]] = tensor.empty() : tensor<2x2xf32>
// CHECK-NEXT: linalg.fill ins(%{{.*}} : f32) outs(%[[E2]] : tensor<2x2xf32>)
// CHECK-NOT: tensor.empty() : tensor<4xf32>
func.func @reshaped() -> (tensor<2x2xf32>, tensor<2x2xf32>) {
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %e = tensor.empty() : tensor<4xf32>
  %r = tensor.expand_shape %e [[0, 1]] output_shape [2, 2] : tensor<4xf32> into tensor<2x2xf32>
  %a = linalg.fill ins(%zero : f32) outs(%r : tensor<2x2xf32>) -> tensor<2x2xf32>
  %b = linalg.fill ins(%one : f32) outs(%r : tensor<2x2xf32>) -> tensor<2x2xf32>
  return %a, %b : tensor<2x2xf32>, tensor<2x2xf32>
}
