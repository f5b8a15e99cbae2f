// RUN: tfl-opt %s -split-input-file -tfl-matmul-operands -mlir-print-local-scope | FileCheck %s

// Tests that the products the CPU hands to GEMM take transposed operands
// in place (through their indexing maps) and start from zero fills of
// their own, and that reductions start from fills of their own.

// A transposing copy (matmul's pullback dB = A^T dC) folds into A's map.
// CHECK-LABEL: func.func @transposed_a
// CHECK-NOT: linalg.generic
// CHECK: linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d2, d0)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>]
// CHECK-SAME: ins(%arg0, %arg1 : tensor<5x3xf32>, tensor<5x4xf32>)
func.func @transposed_a(%a: tensor<5x3xf32>, %b: tensor<5x4xf32>) -> tensor<3x4xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<3x5xf32>
  %t = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%a : tensor<5x3xf32>) outs(%e : tensor<3x5xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<3x5xf32>
  %ce = tensor.empty() : tensor<3x4xf32>
  %c = linalg.fill ins(%zero : f32) outs(%ce : tensor<3x4xf32>) -> tensor<3x4xf32>
  %r = linalg.matmul ins(%t, %b : tensor<3x5xf32>, tensor<5x4xf32>) outs(%c : tensor<3x4xf32>) -> tensor<3x4xf32>
  return %r : tensor<3x4xf32>
}

// -----

// A named linalg.transpose of B (dA = dC B^T) folds into B's map; the
// transpose stays for its other use.
// CHECK-LABEL: func.func @transposed_b
// CHECK: %[[T:.*]] = linalg.transpose
// CHECK: linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>]
// CHECK-SAME: ins(%arg0, %arg1 : tensor<3x5xf64>, tensor<4x5xf64>)
// CHECK: return %{{.*}}, %[[T]]
func.func @transposed_b(%a: tensor<3x5xf64>, %b: tensor<4x5xf64>) -> (tensor<3x4xf64>, tensor<5x4xf64>) {
  %zero = arith.constant 0.0 : f64
  %e = tensor.empty() : tensor<5x4xf64>
  %t = linalg.transpose ins(%b : tensor<4x5xf64>) outs(%e : tensor<5x4xf64>) permutation = [1, 0]
  %ce = tensor.empty() : tensor<3x4xf64>
  %c = linalg.fill ins(%zero : f64) outs(%ce : tensor<3x4xf64>) -> tensor<3x4xf64>
  %r = linalg.matmul ins(%a, %t : tensor<3x5xf64>, tensor<5x4xf64>) outs(%c : tensor<3x4xf64>) -> tensor<3x4xf64>
  return %r, %t : tensor<3x4xf64>, tensor<5x4xf64>
}

// -----

// Batched products: the last two dims of each operand swapped, the batch
// dim kept.
// CHECK-LABEL: func.func @batch_both_transposed
// CHECK-NOT: linalg.generic
// CHECK: linalg.batch_matmul indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d3, d1)>, affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>]
// CHECK-SAME: ins(%arg0, %arg1 : tensor<2x5x3xf32>, tensor<2x4x5xf32>)
#swap3 = affine_map<(d0, d1, d2) -> (d0, d2, d1)>
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
func.func @batch_both_transposed(%a: tensor<2x5x3xf32>, %b: tensor<2x4x5xf32>) -> tensor<2x3x4xf32> {
  %zero = arith.constant 0.0 : f32
  %ea = tensor.empty() : tensor<2x3x5xf32>
  %ta = linalg.generic {indexing_maps = [#swap3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%a : tensor<2x5x3xf32>) outs(%ea : tensor<2x3x5xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<2x3x5xf32>
  %eb = tensor.empty() : tensor<2x5x4xf32>
  %tb = linalg.generic {indexing_maps = [#swap3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%b : tensor<2x4x5xf32>) outs(%eb : tensor<2x5x4xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<2x5x4xf32>
  %ce = tensor.empty() : tensor<2x3x4xf32>
  %c = linalg.fill ins(%zero : f32) outs(%ce : tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  %r = linalg.batch_matmul ins(%ta, %tb : tensor<2x3x5xf32>, tensor<2x5x4xf32>) outs(%c : tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  return %r : tensor<2x3x4xf32>
}

// -----

// Not transposes: a permutation of a batch dim, and a copy that computes.
// CHECK-LABEL: func.func @not_transposes
// CHECK: %[[TA:.*]] = linalg.generic
// CHECK: linalg.batch_matmul ins(%[[TA]],
// CHECK: %[[NEG:.*]] = linalg.generic
// CHECK: linalg.matmul ins(%[[NEG]],
func.func @not_transposes(%a: tensor<3x2x5xf32>, %b: tensor<2x5x4xf32>, %m: tensor<5x3xf32>, %n: tensor<5x4xf32>) -> (tensor<2x3x4xf32>, tensor<3x4xf32>) {
  %zero = arith.constant 0.0 : f32
  %ea = tensor.empty() : tensor<2x3x5xf32>
  %ta = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d1, d0, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%a : tensor<3x2x5xf32>) outs(%ea : tensor<2x3x5xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<2x3x5xf32>
  %ce = tensor.empty() : tensor<2x3x4xf32>
  %c = linalg.fill ins(%zero : f32) outs(%ce : tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  %r = linalg.batch_matmul ins(%ta, %b : tensor<2x3x5xf32>, tensor<2x5x4xf32>) outs(%c : tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  %em = tensor.empty() : tensor<3x5xf32>
  %tm = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%m : tensor<5x3xf32>) outs(%em : tensor<3x5xf32>) {
  ^bb0(%in: f32, %out: f32):
    %neg = arith.negf %in : f32
    linalg.yield %neg : f32
  } -> tensor<3x5xf32>
  %ce2 = tensor.empty() : tensor<3x4xf32>
  %c2 = linalg.fill ins(%zero : f32) outs(%ce2 : tensor<3x4xf32>) -> tensor<3x4xf32>
  %r2 = linalg.matmul ins(%tm, %n : tensor<3x5xf32>, tensor<5x4xf32>) outs(%c2 : tensor<3x4xf32>) -> tensor<3x4xf32>
  return %r, %r2 : tensor<2x3x4xf32>, tensor<3x4xf32>
}

// -----

// One zero fill that CSE shared between two products becomes one fill per
// product, each right before it; a fill of another value, and an integer
// product, are left as they are.
// CHECK-LABEL: func.func @own_zero_fills
// CHECK-DAG: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-DAG: %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK: %[[ONES:.*]] = linalg.fill ins(%[[ONE]] : f32)
// CHECK: %[[IZ:.*]] = linalg.fill ins(%{{.*}} : i32)
// CHECK-NEXT: %[[E1:.*]] = tensor.empty() : tensor<3x4xf32>
// CHECK-NEXT: %[[F1:.*]] = linalg.fill ins(%[[ZERO]] : f32) outs(%[[E1]]
// CHECK-NEXT: %[[P:.*]] = linalg.matmul ins(%arg0, %arg1 {{.*}} outs(%[[F1]]
// CHECK-NEXT: %[[E2:.*]] = tensor.empty() : tensor<3x4xf32>
// CHECK-NEXT: %[[F2:.*]] = linalg.fill ins(%[[ZERO]] : f32) outs(%[[E2]]
// CHECK-NEXT: %[[Q:.*]] = linalg.matmul ins(%[[P]], %arg2 {{.*}} outs(%[[F2]]
// CHECK-NEXT: linalg.matmul ins(%[[Q]], %arg1 {{.*}} outs(%[[ONES]]
// CHECK-NEXT: linalg.matmul {{.*}} outs(%[[IZ]]
// CHECK-NEXT: linalg.matmul {{.*}} outs(%[[IZ]]
// CHECK-NOT: linalg.fill
func.func @own_zero_fills(%a: tensor<3x4xf32>, %b: tensor<4x4xf32>, %c: tensor<4x4xf32>, %i: tensor<3x4xi32>, %j: tensor<4x4xi32>) -> (tensor<3x4xf32>, tensor<3x4xf32>, tensor<3x4xi32>, tensor<3x4xi32>) {
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %izero = arith.constant 0 : i32
  %e = tensor.empty() : tensor<3x4xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<3x4xf32>) -> tensor<3x4xf32>
  %ones = linalg.fill ins(%one : f32) outs(%e : tensor<3x4xf32>) -> tensor<3x4xf32>
  %ie = tensor.empty() : tensor<3x4xi32>
  %iz = linalg.fill ins(%izero : i32) outs(%ie : tensor<3x4xi32>) -> tensor<3x4xi32>
  %p = linalg.matmul ins(%a, %b : tensor<3x4xf32>, tensor<4x4xf32>) outs(%z : tensor<3x4xf32>) -> tensor<3x4xf32>
  %q = linalg.matmul ins(%p, %c : tensor<3x4xf32>, tensor<4x4xf32>) outs(%z : tensor<3x4xf32>) -> tensor<3x4xf32>
  %r = linalg.matmul ins(%q, %b : tensor<3x4xf32>, tensor<4x4xf32>) outs(%ones : tensor<3x4xf32>) -> tensor<3x4xf32>
  %s = linalg.matmul ins(%i, %j : tensor<3x4xi32>, tensor<4x4xi32>) outs(%iz : tensor<3x4xi32>) -> tensor<3x4xi32>
  %t = linalg.matmul ins(%s, %j : tensor<3x4xi32>, tensor<4x4xi32>) outs(%iz : tensor<3x4xi32>) -> tensor<3x4xi32>
  return %q, %r, %s, %t : tensor<3x4xf32>, tensor<3x4xf32>, tensor<3x4xi32>, tensor<3x4xi32>
}

// -----

// Reductions that start from one shared fill (CSE's work: a layer norm's
// mean and variance, a softmax's max) each get a fill of their own, of
// the same value, right before them: no copy of a shared buffer.
// CHECK-LABEL: func.func @reductions_own_fills
// CHECK: %[[E1:.*]] = tensor.empty() : tensor<8xf32>
// CHECK-NEXT: %[[F1:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[E1]] : tensor<8xf32>)
// CHECK-NEXT: linalg.generic {{.*}} outs(%[[F1]] : tensor<8xf32>)
// CHECK: %[[E2:.*]] = tensor.empty() : tensor<8xf32>
// CHECK-NEXT: %[[F2:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[E2]] : tensor<8xf32>)
// CHECK-NEXT: linalg.generic {{.*}} outs(%[[F2]] : tensor<8xf32>)
// CHECK-NOT: linalg.fill
func.func @reductions_own_fills(%x: tensor<8x16xf32>, %y: tensor<8x16xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  %low = arith.constant 0xFF800000 : f32
  %e = tensor.empty() : tensor<8xf32>
  %init = linalg.fill ins(%low : f32) outs(%e : tensor<8xf32>) -> tensor<8xf32>
  %a = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<8x16xf32>) outs(%init : tensor<8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.maximumf %in, %out : f32
    linalg.yield %m : f32
  } -> tensor<8xf32>
  %b = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%y : tensor<8x16xf32>) outs(%init : tensor<8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.maximumf %in, %out : f32
    linalg.yield %m : f32
  } -> tensor<8xf32>
  return %a, %b : tensor<8xf32>, tensor<8xf32>
}
