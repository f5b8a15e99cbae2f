// RUN: tfl-opt %s -canonicalize -cse | FileCheck %s

// Tests that random draws are effects on the generator: two identical
// draws stay two (one value each), an unused draw is kept (it advances
// the generator), and a draw is not moved across a seed.
// CHECK-LABEL: func.func @draws
func.func @draws(%n: tensor<i64>) -> (tensor<3xf32>, tensor<3xf32>) {
  // CHECK: %[[A:.*]] = tfl.random_normal : tensor<3xf32>
  // CHECK-NEXT: tfl.random_uniform : tensor<8xf32>
  // CHECK-NEXT: tfl.seed
  // CHECK-NEXT: %[[B:.*]] = tfl.random_normal : tensor<3xf32>
  // CHECK-NEXT: return %[[A]], %[[B]]
  %0 = tfl.random_normal : tensor<3xf32>
  %unused = tfl.random_uniform : tensor<8xf32>
  tfl.seed %n : tensor<i64>
  %1 = tfl.random_normal : tensor<3xf32>
  return %0, %1 : tensor<3xf32>, tensor<3xf32>
}
