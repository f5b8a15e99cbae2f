// RUN: tfl-opt %s -tfl-split-reductions | FileCheck %s

// Tests that a large reduction to a scalar becomes 64 partial reductions
// (a parallel dim) and a reduction of the partials into the original
// init, a smaller power of two where 64 does not divide the dim; and that
// small reductions, sizes with no power-of-two divisor, reductions with a
// parallel dim and combiners without a neutral element stay as they are.

#id = affine_map<(d0) -> (d0)>
#sc = affine_map<(d0) -> ()>

// CHECK-LABEL: func.func @large_sum
// CHECK-SAME: (%[[X:.*]]: tensor<131072xf32>)
// CHECK: %[[INIT:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<f32>)
// CHECK: %[[PARTS:.*]] = tensor.expand_shape %[[X]] {{\[\[}}0, 1]] output_shape [64, 2048]
// CHECK: %[[ZEROS:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<64xf32>)
// CHECK: %[[PARTIAL:.*]] = linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]{{.*}} ins(%[[PARTS]] : tensor<64x2048xf32>) outs(%[[ZEROS]] : tensor<64xf32>)
// CHECK: math.exp
// CHECK: arith.addf
// CHECK: %[[SUM:.*]] = linalg.generic {{.*}}iterator_types = ["reduction"]{{.*}} ins(%[[PARTIAL]] : tensor<64xf32>) outs(%[[INIT]] : tensor<f32>)
// CHECK: arith.addf
// CHECK: return %[[SUM]]
func.func @large_sum(%x: tensor<131072xf32>) -> tensor<f32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<f32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<f32>) -> tensor<f32>
  %r = linalg.generic {indexing_maps = [#id, #sc], iterator_types = ["reduction"]} ins(%x : tensor<131072xf32>) outs(%init : tensor<f32>) {
  ^bb0(%in: f32, %out: f32):
    %t = math.exp %in : f32
    %s = arith.addf %t, %out : f32
    linalg.yield %s : f32
  } -> tensor<f32>
  return %r : tensor<f32>
}

// 65568 = 32 x 2049: 32 partial maxima, each from -inf.
// CHECK-LABEL: func.func @max_by_32
// CHECK: tensor.expand_shape %{{.*}} {{\[\[}}0, 1]] output_shape [32, 2049]
// CHECK: linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<32xf32>)
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]
// CHECK: arith.maximumf
// CHECK: linalg.generic {{.*}}iterator_types = ["reduction"]{{.*}} ins(%{{.*}} : tensor<32xf32>)
// CHECK: arith.maximumf
func.func @max_by_32(%x: tensor<65568xf32>) -> tensor<f32> {
  %ninf = arith.constant 0xFF800000 : f32
  %e = tensor.empty() : tensor<f32>
  %init = linalg.fill ins(%ninf : f32) outs(%e : tensor<f32>) -> tensor<f32>
  %r = linalg.generic {indexing_maps = [#id, #sc], iterator_types = ["reduction"]} ins(%x : tensor<65568xf32>) outs(%init : tensor<f32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.maximumf %in, %out : f32
    linalg.yield %s : f32
  } -> tensor<f32>
  return %r : tensor<f32>
}

// CHECK-LABEL: func.func @small_sum
// CHECK-NOT: tensor.expand_shape
// CHECK: linalg.generic {{.*}}iterator_types = ["reduction"]{{.*}} ins(%{{.*}} : tensor<1024xf32>)
func.func @small_sum(%x: tensor<1024xf32>, %init: tensor<f32>) -> tensor<f32> {
  %r = linalg.generic {indexing_maps = [#id, #sc], iterator_types = ["reduction"]} ins(%x : tensor<1024xf32>) outs(%init : tensor<f32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.addf %in, %out : f32
    linalg.yield %s : f32
  } -> tensor<f32>
  return %r : tensor<f32>
}

// CHECK-LABEL: func.func @odd_size
// CHECK-NOT: tensor.expand_shape
// CHECK: linalg.generic {{.*}}iterator_types = ["reduction"]{{.*}} ins(%{{.*}} : tensor<65537xf32>)
func.func @odd_size(%x: tensor<65537xf32>, %init: tensor<f32>) -> tensor<f32> {
  %r = linalg.generic {indexing_maps = [#id, #sc], iterator_types = ["reduction"]} ins(%x : tensor<65537xf32>) outs(%init : tensor<f32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.addf %in, %out : f32
    linalg.yield %s : f32
  } -> tensor<f32>
  return %r : tensor<f32>
}

// Row sums: the rows are the parallel dim already.
// CHECK-LABEL: func.func @row_sums
// CHECK-NOT: tensor.expand_shape
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]{{.*}} ins(%{{.*}} : tensor<4x65536xf32>)
func.func @row_sums(%x: tensor<4x65536xf32>, %init: tensor<4xf32>) -> tensor<4xf32> {
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<4x65536xf32>) outs(%init : tensor<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.addf %in, %out : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// A combiner linalg has no neutral element for (a difference).
// CHECK-LABEL: func.func @no_neutral_element
// CHECK-NOT: tensor.expand_shape
// CHECK: linalg.generic {{.*}}iterator_types = ["reduction"]{{.*}} ins(%{{.*}} : tensor<131072xf32>)
// CHECK: arith.subf
func.func @no_neutral_element(%x: tensor<131072xf32>, %init: tensor<f32>) -> tensor<f32> {
  %r = linalg.generic {indexing_maps = [#id, #sc], iterator_types = ["reduction"]} ins(%x : tensor<131072xf32>) outs(%init : tensor<f32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.subf %out, %in : f32
    linalg.yield %s : f32
  } -> tensor<f32>
  return %r : tensor<f32>
}
