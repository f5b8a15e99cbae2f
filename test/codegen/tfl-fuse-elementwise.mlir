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

// -----

// Tests that a product's operand transpose (a copy through a permutation,
// as a weight gradient's x^T makes) is not fused with the elementwise op
// that makes its input: the product then reads the transpose, which
// tfl-matmul-operands folds into its transpose flag, where a fused
// transpose would compute the multiply in transposed order (gathers). A
// transpose that no product reads still fuses.
// CHECK-LABEL: func.func @transpose_for_a_product
// CHECK: %[[M:.*]] = linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<8x4xf32>, tensor<8x4xf32>)
// CHECK: arith.mulf
// CHECK: %[[T:.*]] = linalg.generic {{.*}} ins(%[[M]] : tensor<8x4xf32>) outs(%{{.*}} : tensor<4x8xf32>)
// CHECK-NEXT: ^bb0(%[[IN:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: linalg.yield %[[IN]]
// CHECK: linalg.matmul ins(%[[T]], %{{.*}} : tensor<4x8xf32>, tensor<8x3xf32>)
// CHECK-LABEL: func.func @transpose_alone
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<8x4xf32>, tensor<8x4xf32>) outs(%{{.*}} : tensor<4x8xf32>)
// CHECK: arith.mulf
// CHECK-NOT: linalg.generic
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#tr2 = affine_map<(d0, d1) -> (d1, d0)>
func.func @transpose_for_a_product(%x: tensor<8x4xf32>, %y: tensor<8x4xf32>, %dy: tensor<8x3xf32>) -> tensor<4x3xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x4xf32>
  %m = linalg.generic {indexing_maps = [#id2, #id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%x, %y : tensor<8x4xf32>, tensor<8x4xf32>) outs(%e : tensor<8x4xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %p = arith.mulf %a, %b : f32
    linalg.yield %p : f32
  } -> tensor<8x4xf32>
  %et = tensor.empty() : tensor<4x8xf32>
  %t = linalg.generic {indexing_maps = [#tr2, #id2], iterator_types = ["parallel", "parallel"]} ins(%m : tensor<8x4xf32>) outs(%et : tensor<4x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    linalg.yield %a : f32
  } -> tensor<4x8xf32>
  %ew = tensor.empty() : tensor<4x3xf32>
  %z = linalg.fill ins(%zero : f32) outs(%ew : tensor<4x3xf32>) -> tensor<4x3xf32>
  %w = linalg.matmul ins(%t, %dy : tensor<4x8xf32>, tensor<8x3xf32>) outs(%z : tensor<4x3xf32>) -> tensor<4x3xf32>
  return %w : tensor<4x3xf32>
}
func.func @transpose_alone(%x: tensor<8x4xf32>, %y: tensor<8x4xf32>) -> tensor<4x8xf32> {
  %e = tensor.empty() : tensor<8x4xf32>
  %m = linalg.generic {indexing_maps = [#id2, #id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%x, %y : tensor<8x4xf32>, tensor<8x4xf32>) outs(%e : tensor<8x4xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %p = arith.mulf %a, %b : f32
    linalg.yield %p : f32
  } -> tensor<8x4xf32>
  %et = tensor.empty() : tensor<4x8xf32>
  %t = linalg.generic {indexing_maps = [#tr2, #id2], iterator_types = ["parallel", "parallel"]} ins(%m : tensor<8x4xf32>) outs(%et : tensor<4x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    linalg.yield %a : f32
  } -> tensor<4x8xf32>
  return %t : tensor<4x8xf32>
}
