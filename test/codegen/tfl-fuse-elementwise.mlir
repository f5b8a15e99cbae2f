// RUN: tfl-opt %s -split-input-file -tfl-fuse-elementwise | FileCheck %s

// Tests that a batch_matmul between collapse_shapes (a rank-4 product's
// batch dims folded into one, as attention's heads are) stays a named
// product on the collapsed views, with its result expanded after it, where
// upstream's folding by expansion makes it a rank-5 linalg.generic
// contraction that no library call takes.
// CHECK-LABEL: func.func @product_next_to_reshapes
// CHECK: %[[Q:.*]] = tensor.collapse_shape %{{.*}} {{\[\[}}0, 1], [2], [3]] : tensor<2x3x4x5xf32> into tensor<6x4x5xf32>
// CHECK: %[[K:.*]] = tensor.collapse_shape %{{.*}} {{\[\[}}0, 1], [2], [3]] : tensor<2x3x5x4xf32> into tensor<6x5x4xf32>
// CHECK: %[[S:.*]] = linalg.batch_matmul ins(%[[Q]], %[[K]] : tensor<6x4x5xf32>, tensor<6x5x4xf32>)
// CHECK: tensor.expand_shape %[[S]]
// CHECK-NOT: "reduction"
// CHECK: linalg.generic
// CHECK-SAME: ["parallel", "parallel", "parallel", "parallel"]
// CHECK: arith.mulf
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
func.func @product_next_to_reshapes(%q: tensor<2x3x4x5xf32>, %k: tensor<2x3x5x4xf32>) -> tensor<2x3x4x4xf32> {
  %zero = arith.constant 0.0 : f32
  %q3 = tensor.collapse_shape %q [[0, 1], [2], [3]] : tensor<2x3x4x5xf32> into tensor<6x4x5xf32>
  %k3 = tensor.collapse_shape %k [[0, 1], [2], [3]] : tensor<2x3x5x4xf32> into tensor<6x5x4xf32>
  %e = tensor.empty() : tensor<6x4x4xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<6x4x4xf32>) -> tensor<6x4x4xf32>
  %s = linalg.batch_matmul ins(%q3, %k3 : tensor<6x4x5xf32>, tensor<6x5x4xf32>) outs(%z : tensor<6x4x4xf32>) -> tensor<6x4x4xf32>
  %s4 = tensor.expand_shape %s [[0, 1], [2], [3]] output_shape [2, 3, 4, 4] : tensor<6x4x4xf32> into tensor<2x3x4x4xf32>
  %e4 = tensor.empty() : tensor<2x3x4x4xf32>
  %r = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%s4 : tensor<2x3x4x4xf32>) outs(%e4 : tensor<2x3x4x4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.mulf %a, %a : f32
    linalg.yield %m : f32
  } -> tensor<2x3x4x4xf32>
  return %r : tensor<2x3x4x4xf32>
}

// -----

// Tests that elementwise work still fuses, and a collapse_shape still
// folds into it by expansion: one generic on the rank-3 source, then the
// collapse.
// CHECK-LABEL: func.func @elementwise_still_fuses
// CHECK: %[[R:.*]] = linalg.generic
// CHECK-SAME: ins(%{{.*}} : tensor<2x3x4xf32>)
// CHECK: math.exp
// CHECK: arith.mulf
// CHECK-NOT: linalg.generic
// CHECK: tensor.collapse_shape %[[R]]
#id2 = affine_map<(d0, d1) -> (d0, d1)>
func.func @elementwise_still_fuses(%x: tensor<2x3x4xf32>) -> tensor<6x4xf32> {
  %c = tensor.collapse_shape %x [[0, 1], [2]] : tensor<2x3x4xf32> into tensor<6x4xf32>
  %e = tensor.empty() : tensor<6x4xf32>
  %a = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%c : tensor<6x4xf32>) outs(%e : tensor<6x4xf32>) {
  ^bb0(%v: f32, %o: f32):
    %m = math.exp %v : f32
    linalg.yield %m : f32
  } -> tensor<6x4xf32>
  %b = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%a : tensor<6x4xf32>) outs(%e : tensor<6x4xf32>) {
  ^bb0(%v: f32, %o: f32):
    %m = arith.mulf %v, %v : f32
    linalg.yield %m : f32
  } -> tensor<6x4xf32>
  return %b : tensor<6x4xf32>
}
