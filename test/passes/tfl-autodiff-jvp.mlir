// RUN: tfl-opt %s -split-input-file -tfl-autodiff | FileCheck %s
// RUN: tfl-opt %s -split-input-file -tfl-autodiff -canonicalize -cse | FileCheck %s --check-prefix=CANON

// Tests that tfl.jvp becomes a call of the generated jvp function, which
// computes each op's tangent after it from its pullback transposed: the
// product's is tx @ w + x @ tw (the rule's transposes of transposes fold
// away), tanh's t * (1 - y^2); what only computed the pullback's
// cotangents is gone.
// CHECK-LABEL: func.func private @f.jvp
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>, %[[W:.*]]: tensor<3x4xf32>, %[[TX:.*]]: tensor<2x3xf32>, %[[TW:.*]]: tensor<3x4xf32>) -> (tensor<2x4xf32>, tensor<2x4xf32>)
// CHECK: %[[M:.*]] = tfl.matmul %[[X]], %[[W]]
// CHECK: %[[Y:.*]] = tfl.tanh %[[M]]
// CHECK: return %[[Y]], %{{.*}} : tensor<2x4xf32>, tensor<2x4xf32>
// CHECK-LABEL: func.func @main
// CHECK: %[[R:.*]]:2 = call @f.jvp(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}})
// CHECK: return %[[R]]#0, %[[R]]#1
// CHECK-NOT: tfl.jvp
// CANON-LABEL: func.func private @f.jvp
// CANON-SAME: (%[[X:.*]]: tensor<2x3xf32>, %[[W:.*]]: tensor<3x4xf32>, %[[TX:.*]]: tensor<2x3xf32>, %[[TW:.*]]: tensor<3x4xf32>)
// CANON-DAG: %[[M:.*]] = tfl.matmul %[[X]], %[[W]]
// CANON-DAG: %[[A:.*]] = tfl.matmul %[[X]], %[[TW]]
// CANON-DAG: %[[B:.*]] = tfl.matmul %[[TX]], %[[W]]
// CANON-DAG: %[[TM:.*]] = tfl.add %{{.*}}, %{{.*}} : tensor<2x4xf32>, tensor<2x4xf32>
// CANON-DAG: %[[Y:.*]] = tfl.tanh %[[M]]
// CANON-DAG: %[[YY:.*]] = tfl.mul %[[Y]], %[[Y]]
// CANON: %[[D:.*]] = tfl.sub %{{.*}}, %[[YY]]
// CANON: %[[T:.*]] = tfl.mul %[[TM]], %[[D]]
// CANON: return %[[Y]], %[[T]]
// CANON-NOT: tfl.transpose
func.func private @f(%x: tensor<2x3xf32>, %w: tensor<3x4xf32>) -> tensor<2x4xf32> {
  %0 = tfl.matmul %x, %w : tensor<2x3xf32>, tensor<3x4xf32> -> tensor<2x4xf32>
  %1 = tfl.tanh %0 : tensor<2x4xf32>
  return %1 : tensor<2x4xf32>
}
func.func @main(%x: tensor<2x3xf32>, %w: tensor<3x4xf32>, %tx: tensor<2x3xf32>, %tw: tensor<3x4xf32>) -> (tensor<2x4xf32>, tensor<2x4xf32>) {
  %y, %t = tfl.jvp @f(%x, %w, %tx, %tw) : (tensor<2x3xf32>, tensor<3x4xf32>, tensor<2x3xf32>, tensor<3x4xf32>) -> (tensor<2x4xf32>, tensor<2x4xf32>)
  return %y, %t : tensor<2x4xf32>, tensor<2x4xf32>
}

// -----

// Tests activity and calls: a call whose second operand is inactive calls
// the callee's jvp for its first argument only (named for it); that jvp
// has no tangent work for the inactive argument (its tangent is unread).
// A broadcast operand's tangent is broadcast (the transpose of the sum its
// pullback takes).
// CHECK-LABEL: func.func private @h.jvp.10
// CHECK-SAME: (%[[A:.*]]: tensor<3xf32>, %[[B:.*]]: tensor<f32>, %[[TA:.*]]: tensor<3xf32>, %[[TB:.*]]: tensor<f32>)
// CHECK-NOT: %[[TB]]
// CHECK: return
// CHECK-LABEL: func.func private @g.jvp
// CHECK: %[[K:.*]] = tfl.constant dense<2.000000e+00> : tensor<f32>
// CHECK: call @h.jvp.10(%{{.*}}, %[[K]], %{{.*}}, %{{.*}})
// CANON-LABEL: func.func private @h.jvp.10
// CANON-SAME: (%[[A:.*]]: tensor<3xf32>, %[[B:.*]]: tensor<f32>, %[[TA:.*]]: tensor<3xf32>, %[[TB:.*]]: tensor<f32>)
// CANON: %[[T:.*]] = tfl.mul %[[TA]], %[[B]]
// CANON: return %{{.*}}, %[[T]]
func.func private @h(%a: tensor<3xf32>, %b: tensor<f32>) -> tensor<3xf32> {
  %0 = tfl.mul %a, %b : tensor<3xf32>, tensor<f32> -> tensor<3xf32>
  return %0 : tensor<3xf32>
}
func.func private @g(%x: tensor<3xf32>) -> tensor<3xf32> {
  %k = tfl.constant dense<2.0> : tensor<f32>
  %0 = func.call @h(%x, %k) : (tensor<3xf32>, tensor<f32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}
func.func @main_call(%x: tensor<3xf32>, %t: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>) {
  %y, %ty = tfl.jvp @g(%x, %t) : (tensor<3xf32>, tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>)
  return %y, %ty : tensor<3xf32>, tensor<3xf32>
}

// -----

// Tests control flow: the tangent of a carried value rides along as an
// extra iteration argument of the same scf.for, and of an scf.if as an
// extra result; nothing goes on a tape.
// CHECK-LABEL: func.func private @loop.jvp
// CHECK-SAME: (%[[X:.*]]: tensor<f32>, %[[TX:.*]]: tensor<f32>)
// CHECK: %[[R:.*]]:2 = scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[S:.*]] = %[[X]], %[[TS:.*]] = %[[TX]]) -> (tensor<f32>, tensor<f32>)
// CHECK: %[[SIN:.*]] = tfl.sin %[[S]]
// CHECK: scf.yield %{{.*}}, %{{.*}} : tensor<f32>, tensor<f32>
// CHECK: %[[C:.*]]:2 = scf.if %{{.*}} -> (tensor<f32>, tensor<f32>)
// CHECK: scf.yield %[[R]]#0, %[[R]]#1
// CHECK: } else {
// CHECK: tfl.exp %[[R]]#0
// CHECK: scf.yield
// CHECK: return %[[C]]#0, %[[C]]#1
// CHECK-NOT: tfl.tape_push
func.func private @loop(%x: tensor<f32>) -> tensor<f32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %y = scf.for %i = %c0 to %c3 step %c1 iter_args(%s = %x) -> (tensor<f32>) {
    %0 = tfl.sin %s : tensor<f32>
    %1 = tfl.mul %0, %s : tensor<f32>, tensor<f32> -> tensor<f32>
    scf.yield %1 : tensor<f32>
  }
  %zero = tfl.constant dense<0.0> : tensor<f32>
  %pos = tfl.compare gt, %y, %zero : tensor<f32>, tensor<f32> -> tensor<i1>
  %p = tensor.extract %pos[] : tensor<i1>
  %z = scf.if %p -> (tensor<f32>) {
    scf.yield %y : tensor<f32>
  } else {
    %e = tfl.exp %y : tensor<f32>
    scf.yield %e : tensor<f32>
  }
  return %z : tensor<f32>
}
func.func @main_loop(%x: tensor<f32>, %t: tensor<f32>) -> (tensor<f32>, tensor<f32>) {
  %y, %ty = tfl.jvp @loop(%x, %t) : (tensor<f32>, tensor<f32>) -> (tensor<f32>, tensor<f32>)
  return %y, %ty : tensor<f32>, tensor<f32>
}

// -----

// Tests a while loop with a data-dependent exit: its state's tangent is
// carried through `before` and `after`, and forwarded by the condition.
// CHECK-LABEL: func.func private @grow.jvp
// CHECK-SAME: (%[[X:.*]]: tensor<f32>, %[[TX:.*]]: tensor<f32>)
// CHECK: %[[W:.*]]:2 = scf.while (%[[A:.*]] = %[[X]], %[[TA:.*]] = %[[TX]]) : (tensor<f32>, tensor<f32>) -> (tensor<f32>, tensor<f32>)
// CHECK: scf.condition(%{{.*}}) %[[A]], %[[TA]] : tensor<f32>, tensor<f32>
// CHECK: ^bb0(%[[B:.*]]: tensor<f32>, %[[TB:.*]]: tensor<f32>):
// CHECK: tfl.mul %[[B]], %[[B]]
// CHECK: scf.yield %{{.*}}, %{{.*}} : tensor<f32>, tensor<f32>
// CHECK: return %[[W]]#0, %[[W]]#1
func.func private @grow(%x: tensor<f32>) -> tensor<f32> {
  %r = scf.while (%a = %x) : (tensor<f32>) -> tensor<f32> {
    %ten = tfl.constant dense<10.0> : tensor<f32>
    %lt = tfl.compare lt, %a, %ten : tensor<f32>, tensor<f32> -> tensor<i1>
    %c = tensor.extract %lt[] : tensor<i1>
    scf.condition(%c) %a : tensor<f32>
  } do {
  ^bb0(%b: tensor<f32>):
    %sq = tfl.mul %b, %b : tensor<f32>, tensor<f32> -> tensor<f32>
    %one = tfl.constant dense<1.0> : tensor<f32>
    %n = tfl.add %sq, %one : tensor<f32>, tensor<f32> -> tensor<f32>
    scf.yield %n : tensor<f32>
  }
  return %r : tensor<f32>
}
func.func @main_while(%x: tensor<f32>, %t: tensor<f32>) -> (tensor<f32>, tensor<f32>) {
  %y, %ty = tfl.jvp @grow(%x, %t) : (tensor<f32>, tensor<f32>) -> (tensor<f32>, tensor<f32>)
  return %y, %ty : tensor<f32>, tensor<f32>
}

// -----

// Tests the tape ops of a gradient's loop (jvp of a grad): a push's entry's
// tangent is written on the tangent tape (above the function's own) at the
// position the push wrote, a read there gives the read's tangent, and a
// rewind that releases the entries releases their tangents too.
// CHECK-LABEL: func.func private @taped.jvp
// CHECK-SAME: (%[[X:.*]]: tensor<f32>, %[[TX:.*]]: tensor<f32>)
// CHECK: tfl.tape_enter
// CHECK: tfl.tape_size {tape = 0 : i64} : i64
// CHECK: %[[P:.*]] = tfl.tape_size {tape = 0 : i64} : i64
// CHECK-NEXT: tfl.tape_push %[[X]] {tape = 0 : i64}
// CHECK: tfl.tape_write %[[P]], %[[TX]] {tape = 1 : i64}
// CHECK: %[[R:.*]] = tfl.tape_read %{{.*}} {tape = 0 : i64}
// CHECK: %[[TR:.*]] = tfl.tape_read %{{.*}} {tape = 1 : i64}
// CHECK: tfl.tape_rewind %{{.*}} {release, tape = 0 : i64}
// CHECK: tfl.tape_rewind %{{.*}} {release, tape = 1 : i64}
// CHECK: tfl.tape_exit
// CHECK: return %{{.*}}, %{{.*}}
func.func private @taped(%x: tensor<f32>) -> tensor<f32> {
  tfl.tape_enter
  %p = tfl.tape_size {tape = 0} : i64
  tfl.tape_push %x {tape = 0} : tensor<f32>
  %r = tfl.tape_read %p {tape = 0} : tensor<f32>
  %y = tfl.mul %r, %r : tensor<f32>, tensor<f32> -> tensor<f32>
  tfl.tape_rewind %p {release, tape = 0} : i64
  tfl.tape_exit
  return %y : tensor<f32>
}
func.func @main_taped(%x: tensor<f32>, %t: tensor<f32>) -> (tensor<f32>, tensor<f32>) {
  %y, %ty = tfl.jvp @taped(%x, %t) : (tensor<f32>, tensor<f32>) -> (tensor<f32>, tensor<f32>)
  return %y, %ty : tensor<f32>, tensor<f32>
}

// -----

// Tests tfl.jacobian: jacfwd is one call of the jvp batched over the
// argument's basis tangents (the identity: a range == a range, cast),
// whose [basis, result dims] tangent is the matrix's columns (transposed);
// jacrev one call of the vjp batched over the result's basis cotangents,
// whose [basis, argument dims] cotangent is its rows. Both reshape the
// matrix to the result's dims then the argument's.
// CHECK-LABEL: func.func private @sq.jvp.vmap4_01(
// CHECK-SAME: %{{.*}}: tensor<4xf32>, %{{.*}}: tensor<4x4xf32>) -> (tensor<2x2xf32>, tensor<4x2x2xf32>)
// CHECK-LABEL: func.func @main_jacobians
// CHECK-NOT: scf.for
// CHECK: %[[ID:.*]] = tfl.compare eq, %{{.*}}, %{{.*}} : tensor<4x1xi64>, tensor<1x4xi64> -> tensor<4x4xi1>
// CHECK: %[[BASIS:.*]] = tfl.cast %[[ID]] : tensor<4x4xi1> -> tensor<4x4xf32>
// CHECK: %[[F:.*]]:2 = call @sq.jvp.vmap4_01(%{{.*}}, %[[BASIS]])
// CHECK: %[[COLS:.*]] = tfl.reshape %[[F]]#1 : tensor<4x2x2xf32> -> tensor<4x4xf32>
// CHECK: %[[T:.*]] = tfl.transpose %[[COLS]] {perm = array<i64: 1, 0>}
// CHECK: tfl.reshape %[[T]] : tensor<4x4xf32> -> tensor<2x2x4xf32>
// CHECK: %[[R:.*]]:2 = call @sq.vjp.vmap4_01(%{{.*}}, %{{.*}}) : (tensor<4xf32>, tensor<4x2x2xf32>)
// CHECK: tfl.reshape %[[R]]#1 : tensor<4x4xf32> -> tensor<2x2x4xf32>
// CHECK-NOT: tfl.jacobian
func.func private @sq(%x: tensor<4xf32>) -> tensor<2x2xf32> {
  %0 = tfl.mul %x, %x : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
  %1 = tfl.reshape %0 : tensor<4xf32> -> tensor<2x2xf32>
  return %1 : tensor<2x2xf32>
}
func.func @main_jacobians(%x: tensor<4xf32>) -> (tensor<2x2x4xf32>, tensor<2x2x4xf32>) {
  %f = tfl.jacobian @sq(%x) {argnums = array<i64: 0>, forward = true} : (tensor<4xf32>) -> tensor<2x2x4xf32>
  %r = tfl.jacobian @sq(%x) {argnums = array<i64: 0>, forward = false} : (tensor<4xf32>) -> tensor<2x2x4xf32>
  return %f, %r : tensor<2x2x4xf32>, tensor<2x2x4xf32>
}

// -----

// Tests that a Jacobian of a function vmap cannot batch (its rule prints
// the cotangent, which differs per basis vector) is a loop over the basis
// instead, with no diagnostic and no batched function left behind:
// jacrev calls the vjp on each basis cotangent, adding the row into an
// [outputs, inputs] matrix as an outer product. (A print of the value
// alone is batched, printed once, as JAX's jacfwd prints.)
// CHECK-LABEL: func.func private @noisy(
// CHECK-NOT: vmap
// CHECK-LABEL: func.func @main_jacobian_loop
// CHECK: %[[R:.*]] = scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%{{.*}} = %{{.*}}) -> (tensor<3x3xf32>)
// CHECK: tfl.compare eq
// CHECK: call @noisy.vjp(
// CHECK: tfl.mul %{{.*}}, %{{.*}} : tensor<3x1xf32>, tensor<1x3xf32> -> tensor<3x3xf32>
// CHECK-NOT: vmap
func.func private @loud(%dy: tensor<3xf32>) -> tensor<3xf32> {
  tfl.print %dy : tensor<3xf32> {format = "{}\n"}
  return %dy : tensor<3xf32>
}
func.func private @noisy(%x: tensor<3xf32>) -> tensor<3xf32> attributes {tfl.custom_cotangents = array<i64: 0>, tfl.custom_pullback = @loud, tfl.custom_value_leaves = 1 : i64} {
  %0 = tfl.mul %x, %x : tensor<3xf32>, tensor<3xf32> -> tensor<3xf32>
  return %0 : tensor<3xf32>
}
func.func @main_jacobian_loop(%x: tensor<3xf32>) -> tensor<3x3xf32> {
  %r = tfl.jacobian @noisy(%x) {argnums = array<i64: 0>, forward = false} : (tensor<3xf32>) -> tensor<3x3xf32>
  return %r : tensor<3x3xf32>
}

// -----

// Tests that a basis over the limit (3000 vectors, an identity of 9
// million elements) is a loop of calls, not one batched call.
// CHECK-LABEL: func.func @main_jacobian_large
// CHECK: scf.for
// CHECK: call @double.jvp(
// CHECK-NOT: vmap
func.func private @double(%x: tensor<3000xf32>) -> tensor<f32> {
  %0 = tfl.reduce_sum %x {axes = array<i64: 0>, keepdims = false} : tensor<3000xf32> -> tensor<f32>
  return %0 : tensor<f32>
}
func.func @main_jacobian_large(%x: tensor<3000xf32>) -> tensor<3000xf32> {
  %f = tfl.jacobian @double(%x) {argnums = array<i64: 0>, forward = true} : (tensor<3000xf32>) -> tensor<3000xf32>
  return %f : tensor<3000xf32>
}

// -----

// Tests that an argument whose tangent is a constant zero (a closure's
// capture) is inactive: the jvp built has no tangent work for it.
// CHECK-LABEL: func.func @main_zero_tangent
// CHECK: call @scale.jvp.10(
func.func private @scale(%x: tensor<3xf32>, %s: tensor<f32>) -> tensor<3xf32> {
  %0 = tfl.mul %x, %s : tensor<3xf32>, tensor<f32> -> tensor<3xf32>
  return %0 : tensor<3xf32>
}
func.func @main_zero_tangent(%x: tensor<3xf32>, %s: tensor<f32>, %t: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>) {
  %zero = tfl.constant dense<0.0> : tensor<f32>
  %y, %ty = tfl.jvp @scale(%x, %s, %t, %zero) : (tensor<3xf32>, tensor<f32>, tensor<3xf32>, tensor<f32>) -> (tensor<3xf32>, tensor<3xf32>)
  return %y, %ty : tensor<3xf32>, tensor<3xf32>
}
