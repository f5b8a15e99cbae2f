// RUN: tfl-opt %s -split-input-file -one-shot-bufferize="bufferize-function-boundaries" | FileCheck %s

// Tests that each random op bufferizes to a fresh buffer filled by one
// libtflrt draw, in program order.
// CHECK-DAG: func.func private @tflrt_random_normal_f32(memref<*xf32>)
// CHECK-DAG: func.func private @tflrt_random_uniform_f64(memref<*xf64>)
// CHECK-DAG: func.func private @tflrt_shuffle_indices(memref<*xi64>)
// CHECK-LABEL: func.func @draws
func.func @draws() -> (tensor<2x3xf32>, tensor<4xf64>, tensor<5xi64>) {
  // CHECK: %[[A:.*]] = memref.alloc() {{.*}}: memref<2x3xf32>
  // CHECK: %[[UA:.*]] = memref.cast %[[A]] : memref<2x3xf32> to memref<*xf32>
  // CHECK: call @tflrt_random_normal_f32(%[[UA]])
  %0 = tfl.random_normal : tensor<2x3xf32>
  // CHECK: %[[B:.*]] = memref.alloc() {{.*}}: memref<4xf64>
  // CHECK: %[[UB:.*]] = memref.cast %[[B]]
  // CHECK: call @tflrt_random_uniform_f64(%[[UB]])
  %1 = tfl.random_uniform : tensor<4xf64>
  // CHECK: %[[C:.*]] = memref.alloc() {{.*}}: memref<5xi64>
  // CHECK: %[[UC:.*]] = memref.cast %[[C]]
  // CHECK: call @tflrt_shuffle_indices(%[[UC]])
  // CHECK-NOT: tfl.
  %2 = tfl.shuffle_indices : tensor<5xi64>
  // CHECK: return %[[A]], %[[B]], %[[C]]
  return %0, %1, %2 : tensor<2x3xf32>, tensor<4xf64>, tensor<5xi64>
}
