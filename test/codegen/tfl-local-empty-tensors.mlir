// RUN: tfl-opt %s -tfl-local-empty-tensors | FileCheck %s

// Tests that a loop body's use of an empty tensor from before the loop
// gets an empty tensor of its own, and that uses in the empty's own block
// keep it.

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
