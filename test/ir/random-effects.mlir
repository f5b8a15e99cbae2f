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

// Tests that reading the generator's state is not moved across a draw, and
// that setting it is kept and stays between the draws around it.
// CHECK-LABEL: func.func @replay
func.func @replay() -> (tensor<3xf32>, tensor<3xf32>) {
  // CHECK: %[[S:.*]] = tfl.random_state : tensor<2xi64>
  // CHECK-NEXT: %[[A:.*]] = tfl.random_normal : tensor<3xf32>
  // CHECK-NEXT: tfl.random_state : tensor<2xi64>
  // CHECK-NEXT: tfl.set_random_state %[[S]] : tensor<2xi64>
  // CHECK-NEXT: %[[B:.*]] = tfl.random_normal : tensor<3xf32>
  // CHECK-NEXT: tfl.set_random_state
  // CHECK-NEXT: return %[[A]], %[[B]]
  %s = tfl.random_state : tensor<2xi64>
  %0 = tfl.random_normal : tensor<3xf32>
  %now = tfl.random_state : tensor<2xi64>
  tfl.set_random_state %s : tensor<2xi64>
  %1 = tfl.random_normal : tensor<3xf32>
  tfl.set_random_state %now : tensor<2xi64>
  return %0, %1 : tensor<3xf32>, tensor<3xf32>
}
