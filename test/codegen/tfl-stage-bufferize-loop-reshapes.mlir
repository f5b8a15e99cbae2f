// RUN: tfl-opt %s -tfl-stage-bufferize | FileCheck %s

// Tests that a reshape of a loop's iter_arg that yields a fresh buffer
// each iteration (a training loop's parameter: the optimizer's update is
// a new tensor) is a view of the iter_arg's buffer, not a copy of it each
// iteration: the bufferize stage takes buffers whose layout it cannot
// infer as contiguous.

// CHECK-LABEL: func.func @step
// CHECK: scf.for {{.*}} iter_args(%[[W:[a-z0-9]+]] = %{{[a-z0-9]+}},
// CHECK-NOT: memref.copy
// CHECK: %[[C:.*]] = memref.collapse_shape %[[W]] {{\[}}[0], [1, 2]] : memref<4x2x3xf32> into memref<4x6xf32>
// CHECK-NOT: memref.copy
// CHECK: %[[U:.*]] = memref.cast %[[C]] : memref<4x6xf32> to memref<*xf32>
// CHECK: call @tflrt_gemm_f32(%{{.*}}, %{{.*}}, %[[U]], %{{.*}})
// CHECK-NOT: memref.copy
// CHECK: scf.yield
#map = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
func.func @step(%w0: tensor<4x2x3xf32>, %x: tensor<5x4xf32>, %n: index) -> tensor<4x2x3xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%w = %w0) -> (tensor<4x2x3xf32>) {
    %c = tensor.collapse_shape %w [[0], [1, 2]] : tensor<4x2x3xf32> into tensor<4x6xf32>
    %e = tensor.empty() : tensor<5x6xf32>
    %z = linalg.fill ins(%zero : f32) outs(%e : tensor<5x6xf32>) -> tensor<5x6xf32>
    %m = linalg.matmul ins(%x, %c : tensor<5x4xf32>, tensor<4x6xf32>) outs(%z : tensor<5x6xf32>) -> tensor<5x6xf32>
    %s = tensor.extract %m[%c0, %c0] : tensor<5x6xf32>
    %e2 = tensor.empty() : tensor<4x2x3xf32>
    %nw = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%w : tensor<4x2x3xf32>) outs(%e2 : tensor<4x2x3xf32>) {
    ^bb0(%in: f32, %o: f32):
      %y = arith.subf %in, %s : f32
      linalg.yield %y : f32
    } -> tensor<4x2x3xf32>
    scf.yield %nw : tensor<4x2x3xf32>
  }
  return %r : tensor<4x2x3xf32>
}
