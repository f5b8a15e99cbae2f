// RUN: tfl-opt %s -split-input-file -tfl-matmul-operands=invariant-left-copies=true -mlir-print-local-scope | FileCheck %s
// RUN: tfl-opt %s -split-input-file -tfl-matmul-operands -mlir-print-local-scope | FileCheck %s --check-prefix=FOLD

// Tests that, with invariant-left-copies (the CPU pipeline), a transposed
// left operand that a loop around the product reads unchanged stays a
// copy, made once before the outermost such loop, so that each iteration's
// GEMM reads a row-major left operand; and that a transposed left operand
// computed in the loop, or a transposed right operand, still folds into
// the product's indexing map (a transpose flag). Without the option
// (FOLD, the GPU's), every transpose folds.

// The transpose is made before the loop already (as CSE leaves a weight's
// transpose that a call before the loop made too): the product in the
// loop reads it as it is.
// CHECK-LABEL: func.func @made_before_the_loop
// CHECK: %[[T:.*]] = linalg.transpose ins(%arg0
// CHECK: scf.for
// CHECK: linalg.matmul ins(%[[T]], %{{.*}} : tensor<3x5xf32>, tensor<5x4xf32>)
// CHECK-NOT: indexing_maps
// FOLD-LABEL: func.func @made_before_the_loop
// FOLD: scf.for
// FOLD: linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d2, d0)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>]
// FOLD-SAME: ins(%arg0, %{{.*}} : tensor<5x3xf32>, tensor<5x4xf32>)
func.func @made_before_the_loop(%w: tensor<5x3xf32>, %g: tensor<5x4xf32>, %n: index) -> tensor<5x4xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<3x5xf32>
  %t = linalg.transpose ins(%w : tensor<5x3xf32>) outs(%e : tensor<3x5xf32>) permutation = [1, 0]
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%x = %g) -> (tensor<5x4xf32>) {
    %ce = tensor.empty() : tensor<3x4xf32>
    %c = linalg.fill ins(%zero : f32) outs(%ce : tensor<3x4xf32>) -> tensor<3x4xf32>
    %p = linalg.matmul ins(%t, %x : tensor<3x5xf32>, tensor<5x4xf32>) outs(%c : tensor<3x4xf32>) -> tensor<3x4xf32>
    %next = tensor.insert_slice %p into %x[0, 0] [3, 4] [1, 1] : tensor<3x4xf32> into tensor<5x4xf32>
    scf.yield %next : tensor<5x4xf32>
  }
  return %r : tensor<5x4xf32>
}

// -----

// The transpose of a tensor defined outside two nested loops is made in
// the inner one: it moves before the outer one, into an empty tensor made
// there, and no copy is left in the loop.
// CHECK-LABEL: func.func @moved_before_the_outer_loop
// CHECK: tensor.empty() : tensor<3x5xf32>
// CHECK-NEXT: %[[T:.*]] = linalg.generic
// CHECK-SAME: ins(%arg0 : tensor<5x3xf32>)
// CHECK: scf.for
// CHECK: scf.for
// CHECK-NOT: linalg.generic
// CHECK: linalg.matmul ins(%[[T]], %{{.*}} : tensor<3x5xf32>, tensor<5x4xf32>)
// FOLD-LABEL: func.func @moved_before_the_outer_loop
// FOLD-NOT: linalg.generic
// FOLD: linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d2, d0)>
func.func @moved_before_the_outer_loop(%w: tensor<5x3xf32>, %g: tensor<5x4xf32>, %n: index) -> tensor<5x4xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%x = %g) -> (tensor<5x4xf32>) {
    %s = scf.for %j = %c0 to %n step %c1 iter_args(%y = %x) -> (tensor<5x4xf32>) {
      %e = tensor.empty() : tensor<3x5xf32>
      %t = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%w : tensor<5x3xf32>) outs(%e : tensor<3x5xf32>) {
      ^bb0(%in: f32, %out: f32):
        linalg.yield %in : f32
      } -> tensor<3x5xf32>
      %ce = tensor.empty() : tensor<3x4xf32>
      %c = linalg.fill ins(%zero : f32) outs(%ce : tensor<3x4xf32>) -> tensor<3x4xf32>
      %p = linalg.matmul ins(%t, %y : tensor<3x5xf32>, tensor<5x4xf32>) outs(%c : tensor<3x4xf32>) -> tensor<3x4xf32>
      %next = tensor.insert_slice %p into %y[0, 0] [3, 4] [1, 1] : tensor<3x4xf32> into tensor<5x4xf32>
      scf.yield %next : tensor<5x4xf32>
    }
    scf.yield %s : tensor<5x4xf32>
  }
  return %r : tensor<5x4xf32>
}

// -----

// A tensor the outer loop carries is invariant only to the inner loop:
// its transpose moves before the inner loop, not the outer one.
// CHECK-LABEL: func.func @invariant_to_the_inner_loop
// CHECK: scf.for
// CHECK: %[[T:.*]] = linalg.transpose
// CHECK: scf.for
// CHECK-NOT: linalg.transpose
// CHECK: linalg.matmul ins(%[[T]], %{{.*}} : tensor<3x5xf32>, tensor<5x4xf32>)
func.func @invariant_to_the_inner_loop(%w: tensor<5x3xf32>, %g: tensor<5x4xf32>, %n: index) -> tensor<5x3xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%v = %w) -> (tensor<5x3xf32>) {
    %s = scf.for %j = %c0 to %n step %c1 iter_args(%y = %g) -> (tensor<5x4xf32>) {
      %e = tensor.empty() : tensor<3x5xf32>
      %t = linalg.transpose ins(%v : tensor<5x3xf32>) outs(%e : tensor<3x5xf32>) permutation = [1, 0]
      %ce = tensor.empty() : tensor<3x4xf32>
      %c = linalg.fill ins(%zero : f32) outs(%ce : tensor<3x4xf32>) -> tensor<3x4xf32>
      %p = linalg.matmul ins(%t, %y : tensor<3x5xf32>, tensor<5x4xf32>) outs(%c : tensor<3x4xf32>) -> tensor<3x4xf32>
      %next = tensor.insert_slice %p into %y[0, 0] [3, 4] [1, 1] : tensor<3x4xf32> into tensor<5x4xf32>
      scf.yield %next : tensor<5x4xf32>
    }
    %u = tensor.extract_slice %s[0, 0] [5, 3] [1, 1] : tensor<5x4xf32> to tensor<5x3xf32>
    scf.yield %u : tensor<5x3xf32>
  }
  return %r : tensor<5x3xf32>
}

// -----

// A left operand transposed from what the loop computes, and a right
// operand transposed from an invariant tensor, fold as before.
// CHECK-LABEL: func.func @variant_left_invariant_right
// CHECK: scf.for
// CHECK-NOT: linalg.transpose
// CHECK: linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d2, d0)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>]
// CHECK-SAME: ins(%{{.*}}, %arg1 : tensor<4x4xf32>, tensor<4x4xf32>)
func.func @variant_left_invariant_right(%g: tensor<4x4xf32>, %w: tensor<4x4xf32>, %n: index) -> tensor<4x4xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%x = %g) -> (tensor<4x4xf32>) {
    %ea = tensor.empty() : tensor<4x4xf32>
    %ta = linalg.transpose ins(%x : tensor<4x4xf32>) outs(%ea : tensor<4x4xf32>) permutation = [1, 0]
    %eb = tensor.empty() : tensor<4x4xf32>
    %tb = linalg.transpose ins(%w : tensor<4x4xf32>) outs(%eb : tensor<4x4xf32>) permutation = [1, 0]
    %ce = tensor.empty() : tensor<4x4xf32>
    %c = linalg.fill ins(%zero : f32) outs(%ce : tensor<4x4xf32>) -> tensor<4x4xf32>
    %p = linalg.matmul ins(%ta, %tb : tensor<4x4xf32>, tensor<4x4xf32>) outs(%c : tensor<4x4xf32>) -> tensor<4x4xf32>
    scf.yield %p : tensor<4x4xf32>
  }
  return %r : tensor<4x4xf32>
}

// -----

// Outside any loop, a transposed left operand folds.
// CHECK-LABEL: func.func @no_loop
// CHECK-NOT: linalg.transpose
// CHECK: linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d2, d0)>
func.func @no_loop(%w: tensor<5x3xf32>, %g: tensor<5x4xf32>) -> tensor<3x4xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<3x5xf32>
  %t = linalg.transpose ins(%w : tensor<5x3xf32>) outs(%e : tensor<3x5xf32>) permutation = [1, 0]
  %ce = tensor.empty() : tensor<3x4xf32>
  %c = linalg.fill ins(%zero : f32) outs(%ce : tensor<3x4xf32>) -> tensor<3x4xf32>
  %p = linalg.matmul ins(%t, %g : tensor<3x5xf32>, tensor<5x4xf32>) outs(%c : tensor<3x4xf32>) -> tensor<3x4xf32>
  return %p : tensor<3x4xf32>
}

// -----

// A batched product's left operand, its last two dims swapped from a
// tensor made before a while loop: a copy before the loop.
// CHECK-LABEL: func.func @batched_in_a_while_loop
// CHECK: %[[T:.*]] = linalg.transpose ins(%arg0
// CHECK: scf.while
// CHECK: linalg.batch_matmul ins(%[[T]], %{{.*}} : tensor<2x3x5xf32>, tensor<2x5x4xf32>)
func.func @batched_in_a_while_loop(%w: tensor<2x5x3xf32>, %g: tensor<2x5x4xf32>, %go: i1) -> tensor<2x5x4xf32> {
  %zero = arith.constant 0.0 : f32
  %r = scf.while (%x = %g) : (tensor<2x5x4xf32>) -> tensor<2x5x4xf32> {
    scf.condition(%go) %x : tensor<2x5x4xf32>
  } do {
  ^bb0(%y: tensor<2x5x4xf32>):
    %e = tensor.empty() : tensor<2x3x5xf32>
    %t = linalg.transpose ins(%w : tensor<2x5x3xf32>) outs(%e : tensor<2x3x5xf32>) permutation = [0, 2, 1]
    %ce = tensor.empty() : tensor<2x3x4xf32>
    %c = linalg.fill ins(%zero : f32) outs(%ce : tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
    %p = linalg.batch_matmul ins(%t, %y : tensor<2x3x5xf32>, tensor<2x5x4xf32>) outs(%c : tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
    %next = tensor.insert_slice %p into %y[0, 0, 0] [2, 3, 4] [1, 1, 1] : tensor<2x3x4xf32> into tensor<2x5x4xf32>
    scf.yield %next : tensor<2x5x4xf32>
  }
  return %r : tensor<2x5x4xf32>
}

// -----

// Two products in the loop read one transpose of an invariant tensor: one
// copy before the loop serves both.
// CHECK-LABEL: func.func @one_copy_for_two_products
// CHECK: %[[T:.*]] = linalg.transpose
// CHECK-NOT: linalg.transpose
// CHECK: scf.for
// CHECK: linalg.matmul ins(%[[T]], %{{.*}} : tensor<3x5xf32>, tensor<5x4xf32>)
// CHECK: linalg.matmul ins(%[[T]], %{{.*}} : tensor<3x5xf32>, tensor<5x4xf32>)
func.func @one_copy_for_two_products(%w: tensor<5x3xf32>, %g: tensor<5x4xf32>, %n: index) -> tensor<5x4xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%x = %g) -> (tensor<5x4xf32>) {
    %e = tensor.empty() : tensor<3x5xf32>
    %t = linalg.transpose ins(%w : tensor<5x3xf32>) outs(%e : tensor<3x5xf32>) permutation = [1, 0]
    %ce = tensor.empty() : tensor<3x4xf32>
    %c = linalg.fill ins(%zero : f32) outs(%ce : tensor<3x4xf32>) -> tensor<3x4xf32>
    %p = linalg.matmul ins(%t, %x : tensor<3x5xf32>, tensor<5x4xf32>) outs(%c : tensor<3x4xf32>) -> tensor<3x4xf32>
    %q = linalg.matmul ins(%t, %g : tensor<3x5xf32>, tensor<5x4xf32>) outs(%c : tensor<3x4xf32>) -> tensor<3x4xf32>
    %s = arith.addf %p, %q : tensor<3x4xf32>
    %next = tensor.insert_slice %s into %x[0, 0] [3, 4] [1, 1] : tensor<3x4xf32> into tensor<5x4xf32>
    scf.yield %next : tensor<5x4xf32>
  }
  return %r : tensor<5x4xf32>
}
