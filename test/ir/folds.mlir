// RUN: tfl-opt %s -canonicalize -split-input-file | FileCheck %s

// Tests tfl's folds: `not` of a constant is a constant, `not` of `not` is
// the value, and an assert of a constant true goes, so that the guard an
// early `return` leaves around the rest of a function (`not returned`,
// known when the `if` cannot return) folds with its scf.if; an assert of
// anything else stays. A comparison of two splat constants is a splat
// (floats ordered but for `ne`, i8 and bool unsigned), so a branch on a
// constant argument's test (`if rate == 0.0`) folds once inlined; one of a
// non-constant stays.

// CHECK-LABEL: func.func @not_returned
// CHECK-NOT: scf.if
// CHECK-NOT: tfl.assert
// CHECK: %[[Y:.*]] = tfl.mul %arg0, %arg0
// CHECK-NEXT: return %[[Y]]
func.func @not_returned(%x: tensor<4xf32>) -> tensor<4xf32> {
  %returned = tfl.constant dense<false> : tensor<i1>
  %yes = tfl.constant dense<true> : tensor<i1>
  %zero = tfl.constant dense<0.0> : tensor<4xf32>
  %go = tfl.not %returned : tensor<i1>
  %c = tensor.extract %go[] : tensor<i1>
  %r = scf.if %c -> (tensor<4xf32>) {
    tfl.assert %yes {message = "holds"} : tensor<i1>
    %y = tfl.mul %x, %x : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
    scf.yield %y : tensor<4xf32>
  } else {
    scf.yield %zero : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @not_constants
// CHECK-DAG: tfl.constant dense<[false, true, false]> : tensor<3xi1>
// CHECK-DAG: tfl.assert %arg0 {message = "kept"}
// CHECK-DAG: tfl.assert %{{.*}} {message = "fails"}
// CHECK: return %{{.*}}, %arg0 :
func.func @not_constants(%b: tensor<i1>) -> (tensor<3xi1>, tensor<i1>) {
  %v = tfl.constant dense<[true, false, true]> : tensor<3xi1>
  %n = tfl.not %v : tensor<3xi1>
  %nn = tfl.not %b : tensor<i1>
  %back = tfl.not %nn : tensor<i1>
  tfl.assert %b {message = "kept"} : tensor<i1>
  %no = tfl.constant dense<false> : tensor<i1>
  tfl.assert %no {message = "fails"} : tensor<i1>
  return %n, %back : tensor<3xi1>, tensor<i1>
}

// -----

// CHECK-LABEL: func.func @compare_constants
// CHECK-DAG: %[[T:.*]] = tfl.constant dense<true> : tensor<i1>
// CHECK-DAG: %[[F:.*]] = tfl.constant dense<false> : tensor<i1>
// CHECK-DAG: %[[TS:.*]] = tfl.constant dense<true> : tensor<2x3xi1>
// CHECK-DAG: %[[FS:.*]] = tfl.constant dense<false> : tensor<2x3xi1>
// CHECK-DAG: %[[KEPT:.*]] = tfl.compare lt, %arg0,
// CHECK: return %[[F]], %[[T]], %[[F]], %[[T]], %[[T]], %[[FS]], %[[TS]], %[[KEPT]] :
func.func @compare_constants(%x: tensor<f32>) -> (tensor<i1>, tensor<i1>, tensor<i1>, tensor<i1>, tensor<i1>, tensor<2x3xi1>, tensor<2x3xi1>, tensor<i1>) {
  %rate = tfl.constant dense<0.2> : tensor<f32>
  %zero = tfl.constant dense<0.0> : tensor<f32>
  %nan = tfl.constant dense<0x7FC00000> : tensor<f32>
  %big = tfl.constant dense<200> : tensor<i8>
  %one = tfl.constant dense<1> : tensor<i8>
  %m1 = tfl.constant dense<-1> : tensor<i64>
  %rows = tfl.constant dense<3> : tensor<2x3xi64>
  %eq = tfl.compare eq, %rate, %zero : tensor<f32>, tensor<f32> -> tensor<i1>
  %ne = tfl.compare ne, %rate, %zero : tensor<f32>, tensor<f32> -> tensor<i1>
  %nan_eq = tfl.compare eq, %nan, %nan : tensor<f32>, tensor<f32> -> tensor<i1>
  %nan_ne = tfl.compare ne, %nan, %nan : tensor<f32>, tensor<f32> -> tensor<i1>
  %u8 = tfl.compare gt, %big, %one : tensor<i8>, tensor<i8> -> tensor<i1>
  %signed = tfl.compare ge, %m1, %rows : tensor<i64>, tensor<2x3xi64> -> tensor<2x3xi1>
  %le = tfl.compare le, %rows, %rows : tensor<2x3xi64>, tensor<2x3xi64> -> tensor<2x3xi1>
  %kept = tfl.compare lt, %x, %zero : tensor<f32>, tensor<f32> -> tensor<i1>
  return %eq, %ne, %nan_eq, %nan_ne, %u8, %signed, %le, %kept : tensor<i1>, tensor<i1>, tensor<i1>, tensor<i1>, tensor<i1>, tensor<2x3xi1>, tensor<2x3xi1>, tensor<i1>
}

// -----

// Tests that the reverse pass's sum of the cotangents of q, k and v (three
// slices side by side along axis 2 of one projection) becomes their
// concatenation: each add of two embed_slices that touch along one axis
// is one embed_slice of a concat, nested concats flatten, and the
// embed_slice that covers its whole result is its input. No zeros, no
// adds.
// CHECK-LABEL: func.func @qkv_cotangents
// CHECK-SAME: (%[[Q:.*]]: tensor<2x1x4xf32>, %[[K:.*]]: tensor<2x1x4xf32>, %[[V:.*]]: tensor<2x1x4xf32>)
// CHECK-NOT: tfl.add
// CHECK-NOT: tfl.embed_slice
// CHECK: %[[C:.*]] = tfl.concat %[[Q]], %[[K]], %[[V]] {axis = 1 : i64}
// CHECK-NEXT: return %[[C]]
func.func @qkv_cotangents(%q: tensor<2x1x4xf32>, %k: tensor<2x1x4xf32>, %v: tensor<2x1x4xf32>) -> tensor<2x3x4xf32> {
  %dv = tfl.embed_slice %v[] {static_starts = array<i64: 0, 2, 0>, strides = array<i64: 1, 1, 1>} : tensor<2x1x4xf32> -> tensor<2x3x4xf32>
  %dk = tfl.embed_slice %k[] {static_starts = array<i64: 0, 1, 0>, strides = array<i64: 1, 1, 1>} : tensor<2x1x4xf32> -> tensor<2x3x4xf32>
  %s = tfl.add %dv, %dk : tensor<2x3x4xf32>, tensor<2x3x4xf32> -> tensor<2x3x4xf32>
  %dq = tfl.embed_slice %q[] {static_starts = array<i64: 0, 0, 0>, strides = array<i64: 1, 1, 1>} : tensor<2x1x4xf32> -> tensor<2x3x4xf32>
  %r = tfl.add %s, %dq : tensor<2x3x4xf32>, tensor<2x3x4xf32> -> tensor<2x3x4xf32>
  return %r : tensor<2x3x4xf32>
}

// Tests that two embed_slices of one window add their inputs, and that
// windows apart (a gap between them), strided, or differing along two
// axes stay sums of embed_slices.
// CHECK-LABEL: func.func @same_window
// CHECK: %[[S:.*]] = tfl.add %arg0, %arg1 : tensor<2x1xf32>, tensor<2x1xf32>
// CHECK: tfl.embed_slice %[[S]][] {static_starts = array<i64: 0, 1>
// CHECK-NOT: tfl.add
func.func @same_window(%a: tensor<2x1xf32>, %b: tensor<2x1xf32>) -> tensor<2x3xf32> {
  %x = tfl.embed_slice %a[] {static_starts = array<i64: 0, 1>, strides = array<i64: 1, 1>} : tensor<2x1xf32> -> tensor<2x3xf32>
  %y = tfl.embed_slice %b[] {static_starts = array<i64: 0, 1>, strides = array<i64: 1, 1>} : tensor<2x1xf32> -> tensor<2x3xf32>
  %r = tfl.add %x, %y : tensor<2x3xf32>, tensor<2x3xf32> -> tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @apart
// CHECK-COUNT-3: tfl.add
// CHECK-NOT: tfl.concat
func.func @apart(%a: tensor<1x1xf32>, %b: tensor<1x1xf32>, %c: tensor<1x2xf32>) -> (tensor<3x3xf32>, tensor<3x3xf32>, tensor<3x4xf32>) {
  %x = tfl.embed_slice %a[] {static_starts = array<i64: 0, 0>, strides = array<i64: 1, 1>} : tensor<1x1xf32> -> tensor<3x3xf32>
  %y = tfl.embed_slice %b[] {static_starts = array<i64: 0, 2>, strides = array<i64: 1, 1>} : tensor<1x1xf32> -> tensor<3x3xf32>
  %r1 = tfl.add %x, %y : tensor<3x3xf32>, tensor<3x3xf32> -> tensor<3x3xf32>
  %u = tfl.embed_slice %a[] {static_starts = array<i64: 0, 0>, strides = array<i64: 1, 1>} : tensor<1x1xf32> -> tensor<3x3xf32>
  %w = tfl.embed_slice %b[] {static_starts = array<i64: 1, 1>, strides = array<i64: 1, 1>} : tensor<1x1xf32> -> tensor<3x3xf32>
  %r2 = tfl.add %u, %w : tensor<3x3xf32>, tensor<3x3xf32> -> tensor<3x3xf32>
  %s = tfl.embed_slice %c[] {static_starts = array<i64: 0, 0>, strides = array<i64: 1, 2>} : tensor<1x2xf32> -> tensor<3x4xf32>
  %t = tfl.embed_slice %c[] {static_starts = array<i64: 0, 1>, strides = array<i64: 1, 2>} : tensor<1x2xf32> -> tensor<3x4xf32>
  %r3 = tfl.add %s, %t : tensor<3x4xf32>, tensor<3x4xf32> -> tensor<3x4xf32>
  return %r1, %r2, %r3 : tensor<3x3xf32>, tensor<3x3xf32>, tensor<3x4xf32>
}

// -----

// Tests the folds of transpose: the identity goes, a transpose of a
// transpose becomes one transpose, or none when they undo each other.
// CHECK-LABEL: func.func @transposes
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x4xf32>)
// CHECK: %[[T:.*]] = tfl.transpose %[[X]] {perm = array<i64: 2, 0, 1>} : tensor<2x3x4xf32> -> tensor<4x2x3xf32>
// CHECK-NOT: tfl.transpose
// CHECK: return %[[X]], %[[T]], %[[X]]
func.func @transposes(%x: tensor<2x3x4xf32>) -> (tensor<2x3x4xf32>, tensor<4x2x3xf32>, tensor<2x3x4xf32>) {
  %0 = tfl.transpose %x {perm = array<i64: 0, 1, 2>} : tensor<2x3x4xf32> -> tensor<2x3x4xf32>
  %1 = tfl.transpose %x {perm = array<i64: 1, 0, 2>} : tensor<2x3x4xf32> -> tensor<3x2x4xf32>
  %2 = tfl.transpose %1 {perm = array<i64: 2, 1, 0>} : tensor<3x2x4xf32> -> tensor<4x2x3xf32>
  %3 = tfl.transpose %1 {perm = array<i64: 1, 0, 2>} : tensor<3x2x4xf32> -> tensor<2x3x4xf32>
  return %0, %2, %3 : tensor<2x3x4xf32>, tensor<4x2x3xf32>, tensor<2x3x4xf32>
}

// -----

// Tests that a barrier's constant operands pass around it, and the rest
// stay behind it: a checkpoint's recomputation sees the constant (a
// layer's `drop == 0.0` folds and picks its branch, as in the forward
// sweep), but never its other arguments as the forward sweep's values.
// A barrier of constants alone goes.
// CHECK-LABEL: func.func @barrier_constants
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>)
// CHECK: %[[B:.*]] = tfl.optimization_barrier %[[X]] : tensor<4xf32>
// CHECK-NOT: scf.if
// CHECK: %[[Y:.*]] = tfl.mul %[[B]], %[[B]]
// CHECK-NEXT: return %[[Y]]
func.func @barrier_constants(%x: tensor<4xf32>) -> tensor<4xf32> {
  %drop = tfl.constant dense<0.0> : tensor<f32>
  %zero = tfl.constant dense<0.0> : tensor<f32>
  %b:2 = tfl.optimization_barrier %drop, %x : tensor<f32>, tensor<4xf32>
  %eq = tfl.compare eq, %b#0, %zero : tensor<f32>, tensor<f32> -> tensor<i1>
  %c = tensor.extract %eq[] : tensor<i1>
  %r = scf.if %c -> (tensor<4xf32>) {
    %y = tfl.mul %b#1, %b#1 : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
    scf.yield %y : tensor<4xf32>
  } else {
    %y = tfl.add %b#1, %b#1 : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
    scf.yield %y : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

// CHECK-LABEL: func.func @barrier_of_constants
// CHECK-NOT: tfl.optimization_barrier
// CHECK: %[[C:.*]] = tfl.constant dense<2.000000e+00> : tensor<f32>
// CHECK-NEXT: return %[[C]]
func.func @barrier_of_constants() -> tensor<f32> {
  %two = tfl.constant dense<2.0> : tensor<f32>
  %b = tfl.optimization_barrier %two : tensor<f32>
  return %b : tensor<f32>
}
