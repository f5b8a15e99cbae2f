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

// -----

// Tests that cheap elementwise producers with several elementwise
// consumers (GELU's x / sqrt(2) and 1 + erf of it, which the forward
// product and the backward pass both read) are computed again in each
// consumer rather than written out: one generic for the forward value and
// one for the gradient, each reading x and computing erf itself.
// CHECK-LABEL: func.func @gelu_and_gradient
// CHECK-SAME: (%[[X:.*]]: tensor<8x16xf32>, %[[DY:.*]]: tensor<8x16xf32>)
// CHECK: %[[Y:.*]] = linalg.generic
// CHECK-SAME: ins(%[[X]] : tensor<8x16xf32>)
// CHECK: math.erf
// CHECK: %[[DX:.*]] = linalg.generic
// CHECK-SAME: ins(%[[DY]], %[[X]] : tensor<8x16xf32>, tensor<8x16xf32>)
// CHECK: math.erf
// CHECK: math.exp
// CHECK-NOT: linalg.generic
// CHECK: return %[[Y]], %[[DX]]
#id2 = affine_map<(d0, d1) -> (d0, d1)>
func.func @gelu_and_gradient(%x: tensor<8x16xf32>, %dy: tensor<8x16xf32>) -> (tensor<8x16xf32>, tensor<8x16xf32>) {
  %c = arith.constant 0.707106769 : f32
  %one = arith.constant 1.0 : f32
  %half = arith.constant 0.5 : f32
  %e = tensor.empty() : tensor<8x16xf32>
  %s = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<8x16xf32>) outs(%e : tensor<8x16xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.mulf %a, %c : f32
    linalg.yield %m : f32
  } -> tensor<8x16xf32>
  %p = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%s : tensor<8x16xf32>) outs(%e : tensor<8x16xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = math.erf %a : f32
    %q = arith.addf %r, %one : f32
    linalg.yield %q : f32
  } -> tensor<8x16xf32>
  %y = linalg.generic {indexing_maps = [#id2, #id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%x, %p : tensor<8x16xf32>, tensor<8x16xf32>) outs(%e : tensor<8x16xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %h = arith.mulf %a, %half : f32
    %m = arith.mulf %h, %b : f32
    linalg.yield %m : f32
  } -> tensor<8x16xf32>
  %dx = linalg.generic {indexing_maps = [#id2, #id2, #id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%dy, %p, %s : tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x16xf32>) outs(%e : tensor<8x16xf32>) {
  ^bb0(%g: f32, %b: f32, %t: f32, %o: f32):
    %sq = arith.mulf %t, %t : f32
    %n = arith.negf %sq : f32
    %ex = math.exp %n : f32
    %sum = arith.addf %b, %ex : f32
    %m = arith.mulf %g, %sum : f32
    linalg.yield %m : f32
  } -> tensor<8x16xf32>
  return %y, %dx : tensor<8x16xf32>, tensor<8x16xf32>
}

// -----

// Tests that a producer too costly to compute twice (three
// transcendental functions), or one that a non-elementwise op also reads
// (here the function's result), is written out once and read by each
// consumer.
// CHECK-LABEL: func.func @costly_producer_stays
// CHECK: %[[P:.*]] = linalg.generic
// CHECK: math.exp
// CHECK: math.log
// CHECK: math.tanh
// CHECK: linalg.generic
// CHECK-SAME: ins(%[[P]]
// CHECK: linalg.generic
// CHECK-SAME: ins(%[[P]]
// CHECK-LABEL: func.func @returned_producer_stays
// CHECK: %[[P:.*]] = linalg.generic
// CHECK: linalg.generic
// CHECK-SAME: ins(%[[P]]
// CHECK: linalg.generic
// CHECK-SAME: ins(%[[P]]
// CHECK: return %{{.*}}, %{{.*}}, %[[P]]
#id2 = affine_map<(d0, d1) -> (d0, d1)>
func.func @costly_producer_stays(%x: tensor<8x16xf32>) -> (tensor<8x16xf32>, tensor<8x16xf32>) {
  %e = tensor.empty() : tensor<8x16xf32>
  %p = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<8x16xf32>) outs(%e : tensor<8x16xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = math.exp %a : f32
    %l = math.log %r : f32
    %t = math.tanh %l : f32
    linalg.yield %t : f32
  } -> tensor<8x16xf32>
  %u = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%p : tensor<8x16xf32>) outs(%e : tensor<8x16xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.mulf %a, %a : f32
    linalg.yield %m : f32
  } -> tensor<8x16xf32>
  %v = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%p : tensor<8x16xf32>) outs(%e : tensor<8x16xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.addf %a, %a : f32
    linalg.yield %m : f32
  } -> tensor<8x16xf32>
  return %u, %v : tensor<8x16xf32>, tensor<8x16xf32>
}
func.func @returned_producer_stays(%x: tensor<8x16xf32>) -> (tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x16xf32>) {
  %c = arith.constant 0.5 : f32
  %e = tensor.empty() : tensor<8x16xf32>
  %p = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<8x16xf32>) outs(%e : tensor<8x16xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.mulf %a, %c : f32
    linalg.yield %m : f32
  } -> tensor<8x16xf32>
  %u = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%p : tensor<8x16xf32>) outs(%e : tensor<8x16xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.mulf %a, %a : f32
    linalg.yield %m : f32
  } -> tensor<8x16xf32>
  %v = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%p : tensor<8x16xf32>) outs(%e : tensor<8x16xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.addf %a, %a : f32
    linalg.yield %m : f32
  } -> tensor<8x16xf32>
  return %u, %v, %p : tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x16xf32>
}

// -----

// Tests that a producer read by its consumer and returned (an optimizer's
// new moment, which the parameter's update reads and a training loop
// carries) becomes one generic with the consumer, yielding both: the
// moment's operands are read once and it is not read back.
// CHECK-LABEL: func.func @moment_and_update
// CHECK: %[[F:.*]]:2 = linalg.generic
// CHECK-SAME: ins(%arg0, %arg1, %arg2 :
// CHECK: %[[M:.*]] = arith.addf
// CHECK: %[[P:.*]] = arith.subf %{{.*}}, %[[M]]
// CHECK: linalg.yield %[[M]], %[[P]]
// CHECK-NOT: linalg.generic
// CHECK: return %[[F]]#1, %[[F]]#0
#id1 = affine_map<(d0) -> (d0)>
func.func @moment_and_update(%p: tensor<64xf32>, %m: tensor<64xf32>, %g: tensor<64xf32>) -> (tensor<64xf32>, tensor<64xf32>) {
  %b = arith.constant 0.9 : f32
  %e = tensor.empty() : tensor<64xf32>
  %m2 = linalg.generic {indexing_maps = [#id1, #id1, #id1], iterator_types = ["parallel"]} ins(%m, %g : tensor<64xf32>, tensor<64xf32>) outs(%e : tensor<64xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %s = arith.mulf %a, %b : f32
    %t = arith.addf %s, %c : f32
    linalg.yield %t : f32
  } -> tensor<64xf32>
  %p2 = linalg.generic {indexing_maps = [#id1, #id1, #id1], iterator_types = ["parallel"]} ins(%p, %m2 : tensor<64xf32>, tensor<64xf32>) outs(%e : tensor<64xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %s = arith.subf %a, %c : f32
    linalg.yield %s : f32
  } -> tensor<64xf32>
  return %p2, %m2 : tensor<64xf32>, tensor<64xf32>
}
// CHECK-LABEL: func.func @moment_carried_by_a_loop
// CHECK: scf.for
// CHECK: %[[F:.*]]:2 = linalg.generic
// CHECK: linalg.yield
// CHECK-NOT: linalg.generic
// CHECK: scf.yield %[[F]]#1, %[[F]]#0
func.func @moment_carried_by_a_loop(%p: tensor<64xf32>, %m: tensor<64xf32>, %g: tensor<64xf32>, %n: index) -> (tensor<64xf32>, tensor<64xf32>) {
  %b = arith.constant 0.9 : f32
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %e = tensor.empty() : tensor<64xf32>
  %r:2 = scf.for %i = %c0 to %n step %c1 iter_args(%pi = %p, %mi = %m) -> (tensor<64xf32>, tensor<64xf32>) {
    %m2 = linalg.generic {indexing_maps = [#id1, #id1, #id1], iterator_types = ["parallel"]} ins(%mi, %g : tensor<64xf32>, tensor<64xf32>) outs(%e : tensor<64xf32>) {
    ^bb0(%a: f32, %c: f32, %o: f32):
      %s = arith.mulf %a, %b : f32
      %t = arith.addf %s, %c : f32
      linalg.yield %t : f32
    } -> tensor<64xf32>
    %p2 = linalg.generic {indexing_maps = [#id1, #id1, #id1], iterator_types = ["parallel"]} ins(%pi, %m2 : tensor<64xf32>, tensor<64xf32>) outs(%e : tensor<64xf32>) {
    ^bb0(%a: f32, %c: f32, %o: f32):
      %s = arith.subf %a, %c : f32
      linalg.yield %s : f32
    } -> tensor<64xf32>
    scf.yield %p2, %m2 : tensor<64xf32>, tensor<64xf32>
  }
  return %r#0, %r#1 : tensor<64xf32>, tensor<64xf32>
}

// -----

// Tests that a returned producer with another use stays on its own: a
// use before the consumer (a sum reads it first), a consumer reading it
// twice, once as it is and once transposed (the fused generic would read
// its own result), a consumer reading it transposed (the producer would
// be computed in the transpose's order).
// CHECK-LABEL: func.func @used_before_the_consumer
// CHECK: %[[P:.*]] = linalg.generic
// CHECK: linalg.generic
// CHECK-SAME: ins(%[[P]]
// CHECK: linalg.generic
// CHECK-SAME: ins(%[[P]]
// CHECK: return %{{.*}}, %{{.*}}, %[[P]]
// CHECK-LABEL: func.func @read_twice
// CHECK: %[[P:.*]] = linalg.generic
// CHECK: linalg.generic
// CHECK-SAME: ins(%[[P]], %[[P]]
// CHECK: return %{{.*}}, %[[P]]
// CHECK-LABEL: func.func @read_transposed
// CHECK: %[[P:.*]] = linalg.generic
// CHECK: linalg.generic
// CHECK-SAME: ins(%[[P]]
// CHECK: return %{{.*}}, %[[P]]
#id = affine_map<(d0, d1) -> (d0, d1)>
#tr = affine_map<(d0, d1) -> (d1, d0)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @used_before_the_consumer(%x: tensor<8x8xf32>) -> (tensor<8xf32>, tensor<8x8xf32>, tensor<8x8xf32>) {
  %c = arith.constant 2.0 : f32
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x8xf32>
  %p = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<8x8xf32>) outs(%e : tensor<8x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = math.exp %a : f32
    %t = math.tanh %r : f32
    linalg.yield %t : f32
  } -> tensor<8x8xf32>
  %r0 = tensor.empty() : tensor<8xf32>
  %r1 = linalg.fill ins(%zero : f32) outs(%r0 : tensor<8xf32>) -> tensor<8xf32>
  %s = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%p : tensor<8x8xf32>) outs(%r1 : tensor<8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %t = arith.addf %a, %o : f32
    linalg.yield %t : f32
  } -> tensor<8xf32>
  %u = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%p : tensor<8x8xf32>) outs(%e : tensor<8x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %t = arith.mulf %a, %c : f32
    linalg.yield %t : f32
  } -> tensor<8x8xf32>
  return %s, %u, %p : tensor<8xf32>, tensor<8x8xf32>, tensor<8x8xf32>
}
func.func @read_twice(%x: tensor<8x8xf32>) -> (tensor<8x8xf32>, tensor<8x8xf32>) {
  %e = tensor.empty() : tensor<8x8xf32>
  %p = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<8x8xf32>) outs(%e : tensor<8x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = math.exp %a : f32
    %t = math.tanh %r : f32
    linalg.yield %t : f32
  } -> tensor<8x8xf32>
  %u = linalg.generic {indexing_maps = [#id, #tr, #id], iterator_types = ["parallel", "parallel"]} ins(%p, %p : tensor<8x8xf32>, tensor<8x8xf32>) outs(%e : tensor<8x8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %t = arith.mulf %a, %b : f32
    linalg.yield %t : f32
  } -> tensor<8x8xf32>
  return %u, %p : tensor<8x8xf32>, tensor<8x8xf32>
}
func.func @read_transposed(%x: tensor<8x8xf32>) -> (tensor<8x8xf32>, tensor<8x8xf32>) {
  %c = arith.constant 2.0 : f32
  %e = tensor.empty() : tensor<8x8xf32>
  %p = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<8x8xf32>) outs(%e : tensor<8x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = math.exp %a : f32
    %t = math.tanh %r : f32
    linalg.yield %t : f32
  } -> tensor<8x8xf32>
  %u = linalg.generic {indexing_maps = [#tr, #id], iterator_types = ["parallel", "parallel"]} ins(%p : tensor<8x8xf32>) outs(%e : tensor<8x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %t = arith.mulf %a, %c : f32
    linalg.yield %t : f32
  } -> tensor<8x8xf32>
  return %u, %p : tensor<8x8xf32>, tensor<8x8xf32>
}

// -----

// Tests that a producer before a loop, read in its body (twice, then once
// when the body's two generics fuse), stays before it: fused into the
// body it would be computed again each iteration. And that in a CUDA
// build a producer with several uses stays on its own (upstream's one-use
// rule) outside host work.
// CHECK-LABEL: func.func @producer_before_a_loop
// CHECK: %[[P:.*]] = linalg.generic
// CHECK: scf.for
// CHECK: linalg.generic
// CHECK-SAME: ins(%[[P]]
#v = affine_map<(d0) -> (d0)>
func.func @producer_before_a_loop(%x: tensor<64xf32>, %n: index) -> tensor<64xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %e = tensor.empty() : tensor<64xf32>
  %p = linalg.generic {indexing_maps = [#v, #v], iterator_types = ["parallel"]} ins(%x : tensor<64xf32>) outs(%e : tensor<64xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = math.exp %a : f32
    %t = math.tanh %r : f32
    linalg.yield %t : f32
  } -> tensor<64xf32>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %x) -> tensor<64xf32> {
    %u = linalg.generic {indexing_maps = [#v, #v, #v], iterator_types = ["parallel"]} ins(%p, %acc : tensor<64xf32>, tensor<64xf32>) outs(%e : tensor<64xf32>) {
    ^bb0(%a: f32, %b: f32, %o: f32):
      %t = arith.addf %a, %b : f32
      linalg.yield %t : f32
    } -> tensor<64xf32>
    %w = linalg.generic {indexing_maps = [#v, #v, #v], iterator_types = ["parallel"]} ins(%u, %p : tensor<64xf32>, tensor<64xf32>) outs(%e : tensor<64xf32>) {
    ^bb0(%a: f32, %b: f32, %o: f32):
      %t = arith.mulf %a, %b : f32
      linalg.yield %t : f32
    } -> tensor<64xf32>
    scf.yield %w : tensor<64xf32>
  }
  return %r : tensor<64xf32>
}

// -----

// CHECK-LABEL: func.func @cuda_build
// CHECK: %[[M:.*]] = linalg.generic
// CHECK: linalg.generic
// CHECK-SAME: ins(%{{.*}}, %[[M]]
// CHECK: return %{{.*}}, %[[M]]
#w = affine_map<(d0) -> (d0)>
module attributes {tfl.target = "cuda"} {
  func.func @cuda_build(%p: tensor<64xf32>, %m: tensor<64xf32>, %g: tensor<64xf32>) -> (tensor<64xf32>, tensor<64xf32>) {
    %e = tensor.empty() : tensor<64xf32>
    %m2 = linalg.generic {indexing_maps = [#w, #w, #w], iterator_types = ["parallel"]} ins(%m, %g : tensor<64xf32>, tensor<64xf32>) outs(%e : tensor<64xf32>) {
    ^bb0(%a: f32, %c: f32, %o: f32):
      %t = arith.addf %a, %c : f32
      linalg.yield %t : f32
    } -> tensor<64xf32>
    %p2 = linalg.generic {indexing_maps = [#w, #w, #w], iterator_types = ["parallel"]} ins(%p, %m2 : tensor<64xf32>, tensor<64xf32>) outs(%e : tensor<64xf32>) {
    ^bb0(%a: f32, %c: f32, %o: f32):
      %s = arith.subf %a, %c : f32
      linalg.yield %s : f32
    } -> tensor<64xf32>
    return %p2, %m2 : tensor<64xf32>, tensor<64xf32>
  }
}
