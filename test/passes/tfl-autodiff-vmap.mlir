// RUN: tfl-opt %s -split-input-file -tfl-autodiff | FileCheck %s

// Tests that tfl.vmap becomes a call of the generated batched function:
// a product of every example's row with one matrix is one product of the
// batch's rows (a reshape folds the batch into the rows), the elementwise
// op takes the batch as it is, and the unbatched argument stays as it is.
// The batch dim moves first before the call and to out_axes after it.
// CHECK-LABEL: func.func private @f.vmap5_01
// CHECK-SAME: (%[[W:.*]]: tensor<3x4xf32>, %[[X:.*]]: tensor<5x3xf32>) -> tensor<5x4xf32>
// CHECK: %[[R:.*]] = tfl.reshape %[[X]] : tensor<5x3xf32> -> tensor<5x1x3xf32>
// CHECK: %[[ROWS:.*]] = tfl.reshape %[[R]] : tensor<5x1x3xf32> -> tensor<5x3xf32>
// CHECK: %[[M:.*]] = tfl.matmul %[[ROWS]], %[[W]] : tensor<5x3xf32>, tensor<3x4xf32> -> tensor<5x4xf32>
// CHECK: tfl.tanh %{{.*}} : tensor<5x4xf32>
// CHECK-NOT: scf.for
// CHECK-LABEL: func.func @main
// CHECK-SAME: (%[[W:.*]]: tensor<3x4xf32>, %[[XT:.*]]: tensor<3x5xf32>)
// CHECK: %[[X:.*]] = tfl.transpose %[[XT]] {perm = array<i64: 1, 0>}
// CHECK: %[[Y:.*]] = call @f.vmap5_01(%[[W]], %[[X]])
// CHECK: %[[YT:.*]] = tfl.transpose %[[Y]] {perm = array<i64: 1, 0>}
// CHECK: return %[[YT]]
// CHECK-NOT: tfl.vmap
func.func private @f(%w: tensor<3x4xf32>, %x: tensor<3xf32>) -> tensor<4xf32> {
  %0 = tfl.reshape %x : tensor<3xf32> -> tensor<1x3xf32>
  %1 = tfl.matmul %0, %w : tensor<1x3xf32>, tensor<3x4xf32> -> tensor<1x4xf32>
  %2 = tfl.reshape %1 : tensor<1x4xf32> -> tensor<4xf32>
  %3 = tfl.tanh %2 : tensor<4xf32>
  return %3 : tensor<4xf32>
}
func.func @main(%w: tensor<3x4xf32>, %xs: tensor<3x5xf32>) -> tensor<4x5xf32> {
  %y = tfl.vmap @f(%w, %xs) {in_axes = array<i64: -1, 1>, out_axes = array<i64: 1>} : (tensor<3x4xf32>, tensor<3x5xf32>) -> tensor<4x5xf32>
  return %y : tensor<4x5xf32>
}

// -----

// Tests the rule of one matrix times every example's columns: one product
// of the matrix and all the columns, never the matrix broadcast per
// example. Vectors (columns of one, a Jacobian's basis tangents): the
// batch's rows times the matrix's transpose; wider columns: the matrix
// times [K, N * P], the batch dim moved first again.
// CHECK-LABEL: func.func private @mv.vmap6_01
// CHECK-SAME: (%[[W:.*]]: tensor<4x3xf32>, %[[V:.*]]: tensor<6x3x1xf32>)
// CHECK-NOT: tfl.broadcast_to
// CHECK: %[[ROWS:.*]] = tfl.reshape %[[V]] : tensor<6x3x1xf32> -> tensor<6x3xf32>
// CHECK: %[[WT:.*]] = tfl.transpose %[[W]] {perm = array<i64: 1, 0>} : tensor<4x3xf32> -> tensor<3x4xf32>
// CHECK: %[[P:.*]] = tfl.matmul %[[ROWS]], %[[WT]] : tensor<6x3xf32>, tensor<3x4xf32> -> tensor<6x4xf32>
// CHECK: tfl.reshape %[[P]] : tensor<6x4xf32> -> tensor<6x4x1xf32>
// CHECK-LABEL: func.func private @mm.vmap6_01
// CHECK-SAME: (%[[W:.*]]: tensor<4x3xf32>, %[[C:.*]]: tensor<6x3x2xf32>)
// CHECK-NOT: tfl.broadcast_to
// CHECK: %[[T:.*]] = tfl.transpose %[[C]] {perm = array<i64: 1, 0, 2>} : tensor<6x3x2xf32> -> tensor<3x6x2xf32>
// CHECK: %[[K:.*]] = tfl.reshape %[[T]] : tensor<3x6x2xf32> -> tensor<3x12xf32>
// CHECK: %[[P:.*]] = tfl.matmul %[[W]], %[[K]] : tensor<4x3xf32>, tensor<3x12xf32> -> tensor<4x12xf32>
// CHECK: %[[U:.*]] = tfl.reshape %[[P]] : tensor<4x12xf32> -> tensor<4x6x2xf32>
// CHECK: tfl.transpose %[[U]] {perm = array<i64: 1, 0, 2>} : tensor<4x6x2xf32> -> tensor<6x4x2xf32>
func.func private @mv(%w: tensor<4x3xf32>, %v: tensor<3x1xf32>) -> tensor<4x1xf32> {
  %0 = tfl.matmul %w, %v : tensor<4x3xf32>, tensor<3x1xf32> -> tensor<4x1xf32>
  return %0 : tensor<4x1xf32>
}
func.func private @mm(%w: tensor<4x3xf32>, %c: tensor<3x2xf32>) -> tensor<4x2xf32> {
  %0 = tfl.matmul %w, %c : tensor<4x3xf32>, tensor<3x2xf32> -> tensor<4x2xf32>
  return %0 : tensor<4x2xf32>
}
func.func @main(%w: tensor<4x3xf32>, %vs: tensor<6x3x1xf32>, %cs: tensor<6x3x2xf32>) -> (tensor<6x4x1xf32>, tensor<6x4x2xf32>) {
  %a = tfl.vmap @mv(%w, %vs) {in_axes = array<i64: -1, 0>, out_axes = array<i64: 0>} : (tensor<4x3xf32>, tensor<6x3x1xf32>) -> tensor<6x4x1xf32>
  %b = tfl.vmap @mm(%w, %cs) {in_axes = array<i64: -1, 0>, out_axes = array<i64: 0>} : (tensor<4x3xf32>, tensor<6x3x2xf32>) -> tensor<6x4x2xf32>
  return %a, %b : tensor<6x4x1xf32>, tensor<6x4x2xf32>
}

// -----

// Tests the rules of a product of two batched operands (one batched
// product), a reduction (its axes one further on), a broadcast (the
// unbatched operand broadcasts over the batch by NumPy's rules) and a
// result that does not differ per example (broadcast to the batch).
// CHECK-LABEL: func.func private @g.vmap4_11
// CHECK-SAME: (%[[A:.*]]: tensor<4x2x3xf32>, %[[B:.*]]: tensor<4x3x2xf32>) -> (tensor<4x2xf32>, tensor<2xf32>)
// CHECK: %[[P:.*]] = tfl.matmul %[[A]], %[[B]] : tensor<4x2x3xf32>, tensor<4x3x2xf32> -> tensor<4x2x2xf32>
// CHECK: %[[S:.*]] = tfl.reduce_sum %[[P]] {axes = array<i64: 2>, keepdims = false} : tensor<4x2x2xf32> -> tensor<4x2xf32>
// CHECK: %[[C:.*]] = tfl.constant
// CHECK: tfl.add %[[S]], %[[C]] : tensor<4x2xf32>, tensor<2xf32> -> tensor<4x2xf32>
// CHECK: return %{{.*}}, %[[C]] : tensor<4x2xf32>, tensor<2xf32>
// CHECK-LABEL: func.func @main
// CHECK: %[[R:.*]]:2 = call @g.vmap4_11
// CHECK: %[[K:.*]] = tfl.broadcast_to %[[R]]#1 : tensor<2xf32> -> tensor<4x2xf32>
// CHECK: return %[[R]]#0, %[[K]]
func.func private @g(%a: tensor<2x3xf32>, %b: tensor<3x2xf32>) -> (tensor<2xf32>, tensor<2xf32>) {
  %0 = tfl.matmul %a, %b : tensor<2x3xf32>, tensor<3x2xf32> -> tensor<2x2xf32>
  %1 = tfl.reduce_sum %0 {axes = array<i64: 1>, keepdims = false} : tensor<2x2xf32> -> tensor<2xf32>
  %c = tfl.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %2 = tfl.add %1, %c : tensor<2xf32>, tensor<2xf32> -> tensor<2xf32>
  return %2, %c : tensor<2xf32>, tensor<2xf32>
}
func.func @main(%a: tensor<4x2x3xf32>, %b: tensor<4x3x2xf32>) -> (tensor<4x2xf32>, tensor<4x2xf32>) {
  %r:2 = tfl.vmap @g(%a, %b) {in_axes = array<i64: 0, 0>, out_axes = array<i64: 0, 0>} : (tensor<4x2x3xf32>, tensor<4x3x2xf32>) -> (tensor<4x2xf32>, tensor<4x2xf32>)
  return %r#0, %r#1 : tensor<4x2xf32>, tensor<4x2xf32>
}

// -----

// Tests control flow: an if on a batched condition runs both branches and
// selects per example; a while on one carries every value batched, runs
// while any example's condition holds (the sum of the conditions) and
// keeps each example's state where its condition failed.
// CHECK-LABEL: func.func private @h.vmap3_1
// CHECK-NOT: scf.if
// CHECK: %[[T:.*]] = tfl.mul
// CHECK: %[[E:.*]] = tfl.neg
// CHECK: %[[Y:.*]] = tfl.where %{{.*}}, %[[T]], %[[E]] : tensor<3x1xi1>, tensor<3x2xf32>, tensor<3x2xf32> -> tensor<3x2xf32>
// CHECK: scf.while
// CHECK: tfl.reduce_sum %{{.*}} {axes = array<i64: 0>, keepdims = false} : tensor<3xf32> -> tensor<f32>
// CHECK: scf.condition(%{{.*}}) %{{.*}}, %{{.*}} : tensor<3x2xf32>, tensor<3xi1>
// CHECK: } do {
// CHECK: %[[NEW:.*]] = tfl.mul
// CHECK: tfl.where %{{.*}}, %[[NEW]], %{{.*}} : tensor<3x1xi1>, tensor<3x2xf32>, tensor<3x2xf32> -> tensor<3x2xf32>
func.func private @h(%x: tensor<2xf32>) -> tensor<2xf32> {
  %0 = tfl.reduce_sum %x {axes = array<i64: 0>, keepdims = false} : tensor<2xf32> -> tensor<f32>
  %zero = tfl.constant dense<0.0> : tensor<f32>
  %1 = tfl.compare gt, %0, %zero : tensor<f32>, tensor<f32> -> tensor<i1>
  %c = tensor.extract %1[] : tensor<i1>
  %y = scf.if %c -> (tensor<2xf32>) {
    %two = tfl.constant dense<2.0> : tensor<f32>
    %m = tfl.mul %x, %two : tensor<2xf32>, tensor<f32> -> tensor<2xf32>
    scf.yield %m : tensor<2xf32>
  } else {
    %n = tfl.neg %x : tensor<2xf32>
    scf.yield %n : tensor<2xf32>
  }
  %r = scf.while (%v = %y) : (tensor<2xf32>) -> tensor<2xf32> {
    %s = tfl.reduce_sum %v {axes = array<i64: 0>, keepdims = false} : tensor<2xf32> -> tensor<f32>
    %ten = tfl.constant dense<10.0> : tensor<f32>
    %lt = tfl.compare lt, %s, %ten : tensor<f32>, tensor<f32> -> tensor<i1>
    %b = tensor.extract %lt[] : tensor<i1>
    scf.condition(%b) %v : tensor<2xf32>
  } do {
  ^bb0(%v: tensor<2xf32>):
    %k = tfl.constant dense<1.5> : tensor<f32>
    %w = tfl.mul %v, %k : tensor<2xf32>, tensor<f32> -> tensor<2xf32>
    scf.yield %w : tensor<2xf32>
  }
  return %r : tensor<2xf32>
}
func.func @main(%x: tensor<3x2xf32>) -> tensor<3x2xf32> {
  %y = tfl.vmap @h(%x) {in_axes = array<i64: 0>, out_axes = array<i64: 0>} : (tensor<3x2xf32>) -> tensor<3x2xf32>
  return %y : tensor<3x2xf32>
}


// -----

// Tests that an outer product of batched operands (a per-example weight
// gradient: a contraction of 1) is one broadcasting multiply, not a
// batched product.
// CHECK-LABEL: func.func private @outer.vmap8_11
// CHECK-NOT: tfl.matmul
// CHECK: tfl.mul %{{.*}}, %{{.*}} : tensor<8x5x1xf32>, tensor<8x1x3xf32> -> tensor<8x5x3xf32>
func.func private @outer(%a: tensor<5x1xf32>, %b: tensor<1x3xf32>) -> tensor<5x3xf32> {
  %0 = tfl.matmul %a, %b : tensor<5x1xf32>, tensor<1x3xf32> -> tensor<5x3xf32>
  return %0 : tensor<5x3xf32>
}
func.func @main(%a: tensor<8x5x1xf32>, %b: tensor<8x1x3xf32>) -> tensor<8x5x3xf32> {
  %y = tfl.vmap @outer(%a, %b) {in_axes = array<i64: 0, 0>, out_axes = array<i64: 0>} : (tensor<8x5x1xf32>, tensor<8x1x3xf32>) -> tensor<8x5x3xf32>
  return %y : tensor<8x5x3xf32>
}

// -----

// Tests that a filter gradient per example is a loop over the examples,
// each example's images and cotangents sliced out, its filter's gradient
// added into its row; the convolution itself batches the batch's images
// and the examples' as one.
// CHECK-LABEL: func.func private @filter.vmap2_11
// CHECK: scf.for
// CHECK: tfl.slice
// CHECK: tfl.conv2d_backward_filter %{{.*}}, %{{.*}} {{.*}} : tensor<3x5x5x1xf32>, tensor<3x3x3x4xf32> -> tensor<3x3x1x4xf32>
// CHECK: tfl.embed_slice
// CHECK: scf.yield
// CHECK-LABEL: func.func private @conv.vmap2_10
// CHECK: tfl.reshape %{{.*}} : tensor<2x3x5x5x1xf32> -> tensor<6x5x5x1xf32>
// CHECK: tfl.conv2d %{{.*}}, %{{.*}} {{.*}} : tensor<6x5x5x1xf32>, tensor<3x3x1x4xf32> -> tensor<6x3x3x4xf32>
// CHECK-NOT: scf.for
func.func private @filter(%x: tensor<3x5x5x1xf32>, %dy: tensor<3x3x3x4xf32>) -> tensor<3x3x1x4xf32> {
  %0 = tfl.conv2d_backward_filter %x, %dy {padding = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<3x5x5x1xf32>, tensor<3x3x3x4xf32> -> tensor<3x3x1x4xf32>
  return %0 : tensor<3x3x1x4xf32>
}
func.func private @conv(%x: tensor<3x5x5x1xf32>, %w: tensor<3x3x1x4xf32>) -> tensor<3x3x3x4xf32> {
  %0 = tfl.conv2d %x, %w {padding = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<3x5x5x1xf32>, tensor<3x3x1x4xf32> -> tensor<3x3x3x4xf32>
  return %0 : tensor<3x3x3x4xf32>
}
func.func @main(%x: tensor<2x3x5x5x1xf32>, %dy: tensor<2x3x3x3x4xf32>, %w: tensor<3x3x1x4xf32>) -> (tensor<2x3x3x1x4xf32>, tensor<2x3x3x3x4xf32>) {
  %g = tfl.vmap @filter(%x, %dy) {in_axes = array<i64: 0, 0>, out_axes = array<i64: 0>} : (tensor<2x3x5x5x1xf32>, tensor<2x3x3x3x4xf32>) -> tensor<2x3x3x1x4xf32>
  %y = tfl.vmap @conv(%x, %w) {in_axes = array<i64: 0, -1>, out_axes = array<i64: 0>} : (tensor<2x3x5x5x1xf32>, tensor<3x3x1x4xf32>) -> tensor<2x3x3x3x4xf32>
  return %g, %y : tensor<2x3x3x1x4xf32>, tensor<2x3x3x3x4xf32>
}

// -----

// Tests the rules of a slice and an embed_slice whose start differs per
// example: a slice is a gather of the examples' flattened elements at
// each window's flat positions (n * 4 + start + j), after a check that
// every window lies inside its row; an embed_slice scatters each window
// into its example's zeros at those positions (no check: the slice it
// reverses was checked).
// CHECK-LABEL: func.func private @window.vmap3_11
// CHECK-SAME: (%[[X:.*]]: tensor<3x4xf32>, %[[S:.*]]: tensor<3xi64>) -> (tensor<3x2xf32>, tensor<3x4xf32>)
// CHECK: %[[OFF:.*]] = tfl.constant dense<{{\[\[}}0], [4], [8]]> : tensor<3x1xi64>
// CHECK: tfl.reduce_min
// CHECK: tfl.assert %{{.*}} {message = "index out of range: an example's slice leaves its tensor"}
// CHECK: %[[FLAT:.*]] = tfl.reshape %[[X]] : tensor<3x4xf32> -> tensor<12xf32>
// CHECK: %[[W:.*]] = tfl.gather %[[FLAT]], %{{.*}} {axis = 0 : i64} : tensor<12xf32>, tensor<3x2xi64> -> tensor<3x2xf32>
// CHECK-NOT: tfl.assert
// CHECK: %[[E:.*]] = tfl.scatter_add %[[W]], %{{.*}} {axis = 0 : i64} : tensor<3x2xf32>, tensor<3x2xi64> -> tensor<12xf32>
// CHECK: tfl.reshape %[[E]] : tensor<12xf32> -> tensor<3x4xf32>
// CHECK-NOT: tfl.slice
// CHECK-NOT: tfl.embed_slice
func.func private @window(%x: tensor<4xf32>, %s: tensor<i64>) -> (tensor<2xf32>, tensor<4xf32>) {
  %0 = tfl.slice %x[%s] {static_starts = array<i64: -9223372036854775808>, strides = array<i64: 1>} : tensor<4xf32>, tensor<i64> -> tensor<2xf32>
  %1 = tfl.embed_slice %0[%s] {static_starts = array<i64: -9223372036854775808>, strides = array<i64: 1>} : tensor<2xf32>, tensor<i64> -> tensor<4xf32>
  return %0, %1 : tensor<2xf32>, tensor<4xf32>
}
func.func @use_window(%xs: tensor<3x4xf32>, %ss: tensor<3xi64>) -> (tensor<3x2xf32>, tensor<3x4xf32>) {
  %y, %e = tfl.vmap @window(%xs, %ss) {in_axes = array<i64: 0, 0>, out_axes = array<i64: 0, 0>} : (tensor<3x4xf32>, tensor<3xi64>) -> (tensor<3x2xf32>, tensor<3x4xf32>)
  return %y, %e : tensor<3x2xf32>, tensor<3x4xf32>
}

// -----

// Tests a `for` whose trip count differs per example: the count's scalar
// arithmetic becomes tfl ops on the batch's [3] tensor (an index an i64;
// ceildivsi -floor(-x / y)), the loop runs to the largest count, and each
// iteration keeps the state of the examples whose range has ended.
// CHECK-LABEL: func.func private @repeat.vmap3_01
// CHECK-SAME: (%[[X:.*]]: tensor<2xf32>, %[[N:.*]]: tensor<3xi64>) -> tensor<3x2xf32>
// CHECK: tfl.sub %[[N]], %{{.*}} : tensor<3xi64>, tensor<i64> -> tensor<3xi64>
// CHECK: tfl.neg
// CHECK: tfl.floordiv
// CHECK: %[[TRIPS:.*]] = tfl.maximum %{{.*}}, %{{.*}} : tensor<3xi64>, tensor<i64> -> tensor<3xi64>
// CHECK: %[[LONGEST:.*]] = tfl.reduce_max %[[TRIPS]]
// CHECK: %[[END:.*]] = tensor.extract %[[LONGEST]][]
// CHECK: %[[UB:.*]] = arith.index_cast %[[END]] : i64 to index
// CHECK: %[[INIT:.*]] = tfl.broadcast_to %[[X]] : tensor<2xf32> -> tensor<3x2xf32>
// CHECK: scf.for %[[I:.*]] = %{{.*}} to %[[UB]] step %{{.*}} iter_args(%[[V:.*]] = %[[INIT]]) -> (tensor<3x2xf32>)
// CHECK: %[[RUNS:.*]] = tfl.compare lt, %{{.*}}, %[[TRIPS]] : tensor<i64>, tensor<3xi64> -> tensor<3xi1>
// CHECK: %[[NEW:.*]] = tfl.mul %[[V]]
// CHECK: %[[C:.*]] = tfl.reshape %[[RUNS]] : tensor<3xi1> -> tensor<3x1xi1>
// CHECK: %[[KEPT:.*]] = tfl.where %[[C]], %[[NEW]], %[[V]]
// CHECK: scf.yield %[[KEPT]]
func.func private @repeat(%x: tensor<2xf32>, %n: tensor<i64>) -> tensor<2xf32> {
  %e = tensor.extract %n[] : tensor<i64>
  %c0 = arith.constant 0 : i64
  %c1 = arith.constant 1 : i64
  %span = arith.subi %e, %c0 : i64
  %q = arith.ceildivsi %span, %c1 : i64
  %t = arith.maxsi %q, %c0 : i64
  %ub = arith.index_cast %t : i64 to index
  %lb = arith.constant 0 : index
  %step = arith.constant 1 : index
  %two = tfl.constant dense<2.0> : tensor<f32>
  %r = scf.for %i = %lb to %ub step %step iter_args(%v = %x) -> (tensor<2xf32>) {
    %m = tfl.mul %v, %two : tensor<2xf32>, tensor<f32> -> tensor<2xf32>
    scf.yield %m : tensor<2xf32>
  }
  return %r : tensor<2xf32>
}
func.func @use_repeat(%x: tensor<2xf32>, %ns: tensor<3xi64>) -> tensor<3x2xf32> {
  %y = tfl.vmap @repeat(%x, %ns) {in_axes = array<i64: -1, 0>, out_axes = array<i64: 0>} : (tensor<2xf32>, tensor<3xi64>) -> tensor<3x2xf32>
  return %y : tensor<3x2xf32>
}
