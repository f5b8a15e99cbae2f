// RUN: tfl-opt %s -split-input-file -tfl-autodiff | FileCheck %s
// RUN: tfl-opt %s -split-input-file -tfl-autodiff -canonicalize -cse | FileCheck %s --check-prefix=CANON

// Tests that tfl.grad becomes a call of the generated vjp with a seed of 1,
// and that the vjp recomputes the forward, then pulls back through the
// rules in reverse order: tanh (1 - y^2), the broadcast multiply (summed
// back to the scalar), reduce_sum (reshape and broadcast).
// CHECK-LABEL: func.func private @f.vjp
// CHECK-SAME: (%[[X:.*]]: tensor<3xf32>, %[[W:.*]]: tensor<f32>, %[[DY:.*]]: tensor<f32>) -> (tensor<f32>, tensor<3xf32>, tensor<f32>)
// CHECK: %[[M:.*]] = tfl.mul %[[X]], %[[W]]
// CHECK: %[[T:.*]] = tfl.tanh %[[M]]
// CHECK: %[[S:.*]] = tfl.reduce_sum %[[T]]
// CHECK: %[[DR:.*]] = tfl.reshape %[[DY]] : tensor<f32> -> tensor<1xf32>
// CHECK: %[[DT:.*]] = tfl.broadcast_to %[[DR]] : tensor<1xf32> -> tensor<3xf32>
// The rules build operands in C++ argument order, which compilers choose:
// the two operands of the sub come in either order.
// CHECK-DAG: %[[TT:.*]] = tfl.mul %[[T]], %[[T]]
// CHECK-DAG: %[[ONE:.*]] = tfl.constant dense<1.000000e+00> : tensor<f32>
// CHECK: %[[D1:.*]] = tfl.sub %[[ONE]], %[[TT]]
// CHECK: %[[DM:.*]] = tfl.mul %[[DT]], %[[D1]]
// CHECK: %[[DX:.*]] = tfl.mul %[[DM]], %[[W]]
// CHECK: %[[DWX:.*]] = tfl.mul %[[DM]], %[[X]]
// CHECK: %[[DW:.*]] = tfl.reduce_sum %[[DWX]] {axes = array<i64: 0>, keepdims = false}
// CHECK: return %[[S]], %[[DX]], %[[DW]]
// CHECK-LABEL: func.func @main
// CHECK: %[[SEED:.*]] = tfl.constant dense<1.000000e+00> : tensor<f32>
// CHECK: %[[R:.*]]:3 = call @f.vjp(%{{.*}}, %{{.*}}, %[[SEED]])
// CHECK: return %[[R]]#0, %[[R]]#1, %[[R]]#2
// CHECK-NOT: tfl.grad
func.func private @f(%x: tensor<3xf32>, %w: tensor<f32>) -> tensor<f32> {
  %0 = tfl.mul %x, %w : tensor<3xf32>, tensor<f32> -> tensor<3xf32>
  %1 = tfl.tanh %0 : tensor<3xf32>
  %2 = tfl.reduce_sum %1 {axes = array<i64: 0>, keepdims = false} : tensor<3xf32> -> tensor<f32>
  return %2 : tensor<f32>
}
func.func @main(%x: tensor<3xf32>, %w: tensor<f32>) -> (tensor<f32>, tensor<3xf32>, tensor<f32>) {
  %v, %gx, %gw = tfl.grad @f(%x, %w) {argnums = array<i64: 0, 1>, with_value = true} : (tensor<3xf32>, tensor<f32>) -> (tensor<f32>, tensor<3xf32>, tensor<f32>)
  return %v, %gx, %gw : tensor<f32>, tensor<3xf32>, tensor<f32>
}

// -----

// Tests activity from argnums: differentiating with respect to w only
// builds a vjp (named for its differentiated arguments) where x is
// inactive: x's cotangent is zeros, and a call passes on which of its
// operands are active. The cotangent the mul rule builds for x is dead
// code, gone after canonicalization: no adjoint work for x.
// CHECK-LABEL: func.func private @g.vjp.01
// CHECK-SAME: (%[[X:.*]]: tensor<3xf32>, %[[W:.*]]: tensor<f32>, %[[DY:.*]]: tensor<f32>)
// CHECK: %[[M:.*]] = tfl.mul %[[X]], %[[W]]
// CHECK: call @h.vjp.10(%[[M]], %[[X]], %{{.*}})
// CHECK: %[[DW:.*]] = tfl.reduce_sum
// CHECK: %[[ZERO:.*]] = tfl.constant dense<0.000000e+00> : tensor<3xf32>
// CHECK: return %{{.*}}, %[[ZERO]], %[[DW]]
// CHECK-LABEL: func.func @main_w
// CHECK: call @g.vjp.01(
// CANON-LABEL: func.func private @g.vjp.01
// CANON-SAME: (%[[X:.*]]: tensor<3xf32>, %[[W:.*]]: tensor<f32>, %[[DY:.*]]: tensor<f32>)
// CANON: %[[D:.*]]:3 = call @h.vjp.10(
// CANON-NOT: tfl.mul %[[D]]#1, %[[W]]
// CANON: tfl.mul %[[D]]#1, %[[X]]
// CANON-NOT: tfl.mul %[[D]]#1, %[[W]]
// CANON: return
func.func private @h(%a: tensor<3xf32>, %b: tensor<3xf32>) -> tensor<f32> {
  %0 = tfl.mul %a, %b : tensor<3xf32>, tensor<3xf32> -> tensor<3xf32>
  %1 = tfl.reduce_sum %0 {axes = array<i64: 0>, keepdims = false} : tensor<3xf32> -> tensor<f32>
  return %1 : tensor<f32>
}
func.func private @g(%x: tensor<3xf32>, %w: tensor<f32>) -> tensor<f32> {
  %0 = tfl.mul %x, %w : tensor<3xf32>, tensor<f32> -> tensor<3xf32>
  %1 = call @h(%0, %x) : (tensor<3xf32>, tensor<3xf32>) -> tensor<f32>
  return %1 : tensor<f32>
}
func.func @main_w(%x: tensor<3xf32>, %w: tensor<f32>) -> tensor<f32> {
  %gw = tfl.grad @g(%x, %w) {argnums = array<i64: 1>, with_value = false} : (tensor<3xf32>, tensor<f32>) -> tensor<f32>
  return %gw : tensor<f32>
}

// -----

// Tests that a call is differentiated by calling the callee's own vjp
// with the call's cotangent, that an unused argument gets zeros, and that
// inactive values (integers, constants) get no adjoint work.
// CHECK-LABEL: func.func private @inner.vjp
// CHECK: tfl.exp
// CHECK-LABEL: func.func private @outer.vjp
// CHECK-SAME: (%[[A:.*]]: tensor<f32>, %[[B:.*]]: tensor<f32>, %[[DY:.*]]: tensor<f32>)
// CHECK: %[[E:.*]] = call @inner(%[[A]])
// CHECK: %[[R:.*]]:2 = call @inner.vjp(%[[A]], %[[DY]])
// CHECK: %[[Z:.*]] = tfl.constant dense<0.000000e+00> : tensor<f32>
// CHECK: return %[[E]], %[[R]]#1, %[[Z]]
// CANON-LABEL: func.func @caller
// CANON: call @outer.vjp
func.func private @inner(%a: tensor<f32>) -> tensor<f32> {
  %0 = tfl.exp %a : tensor<f32>
  return %0 : tensor<f32>
}
func.func private @outer(%a: tensor<f32>, %b: tensor<f32>) -> tensor<f32> {
  %0 = call @inner(%a) : (tensor<f32>) -> tensor<f32>
  return %0 : tensor<f32>
}
func.func @caller(%a: tensor<f32>, %b: tensor<f32>) -> (tensor<f32>, tensor<f32>) {
  %g:2 = tfl.grad @outer(%a, %b) {argnums = array<i64: 0, 1>, with_value = false} : (tensor<f32>, tensor<f32>) -> (tensor<f32>, tensor<f32>)
  return %g#0, %g#1 : tensor<f32>, tensor<f32>
}

// -----

// Tests that a gradient of a gradient differentiates the generated code:
// the inner tfl.grad is expanded first, then the outer one differentiates
// through the call of the inner vjp.
// CHECK-LABEL: func.func private @cube.vjp(
// CHECK-LABEL: func.func private @cube.vjp.vjp.10(
// CHECK-LABEL: func.func private @dcube.vjp(
// CHECK: call @cube.vjp.vjp.10(
// CHECK-LABEL: func.func @second
// CHECK: call @dcube.vjp(
func.func private @cube(%v: tensor<f32>) -> tensor<f32> {
  %0 = tfl.mul %v, %v : tensor<f32>, tensor<f32> -> tensor<f32>
  %1 = tfl.mul %0, %v : tensor<f32>, tensor<f32> -> tensor<f32>
  return %1 : tensor<f32>
}
func.func private @dcube(%v: tensor<f32>) -> tensor<f32> {
  %0 = tfl.grad @cube(%v) {argnums = array<i64: 0>, with_value = false} : (tensor<f32>) -> tensor<f32>
  return %0 : tensor<f32>
}
func.func @second(%v: tensor<f32>) -> tensor<f32> {
  %0 = tfl.grad @dcube(%v) {argnums = array<i64: 0>, with_value = false} : (tensor<f32>) -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

// Tests that an scf.if is pulled back by an scf.if on the same condition
// whose branches recompute their forward ops and yield the cotangents of
// the active values they read from outside (zeros from a branch that does
// not read one).
// CHECK-LABEL: func.func private @branchy.vjp
// CHECK-SAME: (%[[X:.*]]: tensor<f32>, %[[CT:.*]]: tensor<i1>, %[[DY:.*]]: tensor<f32>)
// CHECK: %[[C:.*]] = tensor.extract %[[CT]][]
// CHECK: %[[FWD:.*]] = scf.if %[[C]] -> (tensor<f32>)
// CHECK: %[[REV:.*]] = scf.if %[[C]] -> (tensor<f32>) {
// CHECK:   %[[E:.*]] = tfl.exp %[[X]]
// CHECK:   %[[D:.*]] = tfl.mul %[[DY]], %[[E]]
// CHECK:   scf.yield %[[D]]
// CHECK: } else {
// CHECK:   %[[Z:.*]] = tfl.constant dense<0.000000e+00>
// CHECK:   scf.yield %[[Z]]
// CHECK: return %[[FWD]], %[[REV]]
func.func private @branchy(%x: tensor<f32>, %ct: tensor<i1>) -> tensor<f32> {
  %c = tensor.extract %ct[] : tensor<i1>
  %0 = scf.if %c -> (tensor<f32>) {
    %1 = tfl.exp %x : tensor<f32>
    scf.yield %1 : tensor<f32>
  } else {
    %2 = tfl.constant dense<1.0> : tensor<f32>
    scf.yield %2 : tensor<f32>
  }
  return %0 : tensor<f32>
}
func.func @use_branchy(%x: tensor<f32>, %c: tensor<i1>) -> tensor<f32> {
  %0 = tfl.grad @branchy(%x, %c) {argnums = array<i64: 0>, with_value = false} : (tensor<f32>, tensor<i1>) -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

// Tests that an scf.for's forward copy pushes each iteration's state on
// tape 0, in the vjp's frame, and that its pullback is a loop over the
// same iterations, last first, that reads the state back at its position
// (start + iteration), recomputes the iteration and carries the
// cotangent; then releases the entries. Its range (%n) is not known when
// compiling: the pullback visits the iterations the tape recorded (under
// vmap, as many as the longest example's range), and an scf.if passes
// those past the range through.
// CHECK-LABEL: func.func private @loop.vjp
// CHECK: tfl.tape_enter
// CHECK: %[[START:.*]] = tfl.tape_size {tape = 0 : i64} : i64
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[S:[a-z0-9_]+]] = %{{[a-z0-9_]+}})
// CHECK:   tfl.tape_push %[[S]] {tape = 0 : i64} : tensor<f32>
// CHECK:   tfl.mul %[[S]], %[[S]]
// CHECK: %[[END:.*]] = tfl.tape_size {tape = 0 : i64} : i64
// CHECK: %[[N:.*]] = arith.maxsi
// CHECK: %[[USED:.*]] = arith.subi %[[END]], %[[START]] : i64
// CHECK: %[[RECORDED:.*]] = arith.divsi %[[USED]], %{{.*}} : i64
// CHECK: %[[COUNT:.*]] = arith.index_cast %[[RECORDED]] : i64 to index
// CHECK: scf.for %[[J:[a-z0-9_]+]] = %{{.*}} to %[[COUNT]] step %{{.*}} iter_args(%[[D:[a-z0-9_]+]] = %{{[a-z0-9_]+}})
// CHECK:   %[[M:.*]] = arith.subi %{{.*}}, %[[J]] : index
// CHECK:   %[[RAN:.*]] = arith.cmpi slt, %[[M]], %[[N]] {tfl.iteration_ran} : index
// CHECK:   %[[MI:.*]] = arith.index_cast %[[M]] : index to i64
// CHECK:   %[[K:.*]] = arith.muli %[[MI]], %{{.*}} : i64
// CHECK:   %[[FIRST:.*]] = arith.addi %[[START]], %[[K]] : i64
// CHECK:   %[[AT:.*]] = arith.addi %[[FIRST]], %{{.*}} : i64
// CHECK:   %[[P:.*]] = tfl.tape_read %[[AT]] {tape = 0 : i64} : tensor<f32>
// CHECK:   tfl.mul %[[P]], %[[P]]
// CHECK:   tfl.mul %[[D]], %[[P]]
// CHECK:   %[[DS:.*]] = tfl.add
// CHECK:   %[[PICK:.*]] = scf.if %[[RAN]] -> (tensor<f32>) {
// CHECK:     scf.yield %[[DS]]
// CHECK:   } else {
// CHECK:     scf.yield %[[D]]
// CHECK:   scf.yield %[[PICK]]
// CHECK: tfl.tape_rewind %[[START]] {release, tape = 0 : i64} : i64
// CHECK: tfl.tape_exit
// CHECK-NEXT: return
func.func private @loop(%x: tensor<f32>, %n: index) -> tensor<f32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %0 = scf.for %i = %c0 to %n step %c1 iter_args(%s = %x) -> (tensor<f32>) {
    %1 = tfl.mul %s, %s : tensor<f32>, tensor<f32> -> tensor<f32>
    scf.yield %1 : tensor<f32>
  }
  return %0 : tensor<f32>
}
func.func @use_loop(%x: tensor<f32>) -> tensor<f32> {
  %0 = tfl.grad @loop2(%x) {argnums = array<i64: 0>, with_value = false} : (tensor<f32>) -> tensor<f32>
  return %0 : tensor<f32>
}
func.func private @loop2(%x: tensor<f32>) -> tensor<f32> {
  %c3 = arith.constant 3 : index
  %0 = call @loop(%x, %c3) : (tensor<f32>, index) -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

// Tests that an scf.while's forward copy pushes the state each `before`
// starts from, between two reads of the tape's cursor; that its pullback
// counts the `before` executions, pulls back through the last one (the
// exit test), then loops over the iterations reading back and recomputing
// each (an scf.if on the recomputed condition passes through an iteration
// that did not run: always taken outside vmap), and releases the entries.
// CHECK-LABEL: func.func private @doubling.vjp
// CHECK: %[[S0:.*]] = tfl.tape_size {tape = 0 : i64} : i64
// CHECK: scf.while (%[[A:[a-z0-9_]+]] = %{{[a-z0-9_]+}})
// CHECK:   tfl.tape_push %[[A]] {tape = 0 : i64} : tensor<f32>
// CHECK:   scf.condition
// CHECK: %[[S1:.*]] = tfl.tape_size {tape = 0 : i64} : i64
// CHECK: %[[PUSHES:.*]] = arith.subi %[[S1]], %[[S0]] : i64
// CHECK: %[[RUNS:.*]] = arith.divsi %[[PUSHES]], %{{.*}} : i64
// CHECK: %[[ITERS:.*]] = arith.subi %[[RUNS]], %{{.*}} : i64
// CHECK: tfl.tape_read %{{.*}} {tape = 0 : i64} : tensor<f32>
// CHECK: tfl.compare lt
// CHECK: scf.for
// CHECK:   %[[P:.*]] = tfl.tape_read %{{.*}} {tape = 0 : i64} : tensor<f32>
// CHECK:   %[[HELD:.*]] = tfl.compare lt, %[[P]], %{{.*}} {tfl.iteration_ran}
// CHECK:   %[[RAN:.*]] = tensor.extract %[[HELD]][]
// CHECK:   tfl.mul %[[P]], %{{.*}}
// CHECK:   scf.if %[[RAN]] -> (tensor<f32>)
// CHECK:   scf.yield
// CHECK: tfl.tape_rewind %[[S0]] {release, tape = 0 : i64} : i64
func.func private @doubling(%x: tensor<f32>) -> tensor<f32> {
  %0 = scf.while (%a = %x) : (tensor<f32>) -> tensor<f32> {
    %ten = tfl.constant dense<10.0> : tensor<f32>
    %lt = tfl.compare lt, %a, %ten : tensor<f32>, tensor<f32> -> tensor<i1>
    %c = tensor.extract %lt[] : tensor<i1>
    scf.condition(%c) %a : tensor<f32>
  } do {
  ^bb0(%b: tensor<f32>):
    %two = tfl.constant dense<2.0> : tensor<f32>
    %m = tfl.mul %b, %two : tensor<f32>, tensor<f32> -> tensor<f32>
    scf.yield %m : tensor<f32>
  }
  return %0 : tensor<f32>
}
func.func @use_doubling(%x: tensor<f32>) -> tensor<f32> {
  %0 = tfl.grad @doubling(%x) {argnums = array<i64: 0>, with_value = false} : (tensor<f32>) -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

// Tests random draws in a loop: each forward iteration pushes the
// generator's state before its own; each reverse iteration reads it back
// and sets it before drawing again, and the state the forward sweep left
// is set back after the reverse loop.
// CHECK-LABEL: func.func private @noisy.vjp
// CHECK: scf.for %{{.*}} iter_args(%[[S:[a-z0-9_]+]] = %{{[a-z0-9_]+}})
// CHECK:   %[[G:.*]] = tfl.random_state : tensor<2xi64>
// CHECK:   tfl.tape_push %[[G]] {tape = 0 : i64} : tensor<2xi64>
// CHECK:   tfl.tape_push %[[S]] {tape = 0 : i64} : tensor<f32>
// CHECK:   tfl.random_normal : tensor<f32>
// CHECK: %[[NOW:.*]] = tfl.random_state : tensor<2xi64>
// CHECK: scf.for
// CHECK:   %[[P:.*]] = tfl.tape_read %{{.*}} {tape = 0 : i64} : tensor<2xi64>
// CHECK:   tfl.set_random_state %[[P]] : tensor<2xi64>
// CHECK:   tfl.tape_read %{{.*}} {tape = 0 : i64} : tensor<f32>
// CHECK:   tfl.random_normal : tensor<f32>
// CHECK:   scf.yield
// CHECK: tfl.set_random_state %[[NOW]] : tensor<2xi64>
func.func private @noisy(%x: tensor<f32>) -> tensor<f32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %0 = scf.for %i = %c0 to %c3 step %c1 iter_args(%s = %x) -> (tensor<f32>) {
    %r = tfl.random_normal : tensor<f32>
    %1 = tfl.mul %s, %r : tensor<f32>, tensor<f32> -> tensor<f32>
    %2 = tfl.mul %1, %s : tensor<f32>, tensor<f32> -> tensor<f32>
    scf.yield %2 : tensor<f32>
  }
  return %0 : tensor<f32>
}
func.func @use_noisy(%x: tensor<f32>) -> tensor<f32> {
  %0 = tfl.grad @noisy(%x) {argnums = array<i64: 0>, with_value = false} : (tensor<f32>) -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

// Tests a call of a function that draws: the generator's state is read
// before the forward call, and set to it around the callee's vjp (which runs
// the callee's forward again), then set back.
// CHECK-LABEL: func.func private @calls_dropout.vjp
// CHECK: %[[G:.*]] = tfl.random_state : tensor<2xi64>
// CHECK: call @dropout(
// CHECK: %[[NOW:.*]] = tfl.random_state : tensor<2xi64>
// CHECK: tfl.set_random_state %[[G]] : tensor<2xi64>
// CHECK: call @dropout.vjp(
// CHECK: tfl.set_random_state %[[NOW]] : tensor<2xi64>
func.func private @dropout(%x: tensor<4xf32>) -> tensor<4xf32> {
  %u = tfl.random_uniform : tensor<4xf32>
  %0 = tfl.mul %x, %u : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
func.func private @calls_dropout(%x: tensor<4xf32>) -> tensor<f32> {
  %0 = call @dropout(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %1 = tfl.mul %0, %0 : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
  %2 = tfl.reduce_sum %1 {axes = array<i64: 0>, keepdims = false} : tensor<4xf32> -> tensor<f32>
  return %2 : tensor<f32>
}
func.func @use_dropout(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = tfl.grad @calls_dropout(%x) {argnums = array<i64: 0>, with_value = false} : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// Tests a batch (a dynamic dim): reduce_sum over the batch pulls back by a
// broadcast to the batch's shape, and the cotangent of an argument that
// does not reach the result is a zero broadcast to its shape (a constant
// cannot have a dynamic shape).
// CHECK-LABEL: func.func private @batch.vjp
// CHECK-SAME: (%[[X:.*]]: tensor<?x3xf32>, %[[Y:.*]]: tensor<?x3xf32>, %[[DS:.*]]: tensor<f32>)
// CHECK: %[[DR:.*]] = tfl.reshape %[[DS]] : tensor<f32> -> tensor<1x1xf32>
// CHECK: %[[DX:.*]] = tfl.broadcast_to %[[DR]] : tensor<1x1xf32> -> tensor<?x3xf32>
// CHECK: %[[ZERO:.*]] = tfl.constant dense<0.000000e+00> : tensor<f32>
// CHECK: %[[DY:.*]] = tfl.broadcast_to %[[ZERO]] : tensor<f32> -> tensor<?x3xf32>
// CHECK: return %{{.*}}, %[[DX]], %[[DY]]
func.func private @batch(%x: tensor<?x3xf32>, %y: tensor<?x3xf32>) -> tensor<f32> {
  %0 = tfl.reduce_sum %x {axes = array<i64: 0, 1>, keepdims = false} : tensor<?x3xf32> -> tensor<f32>
  return %0 : tensor<f32>
}
func.func @main_batch(%x: tensor<?x3xf32>, %y: tensor<?x3xf32>) -> (tensor<?x3xf32>, tensor<?x3xf32>) {
  %gx, %gy = tfl.grad @batch(%x, %y) {argnums = array<i64: 0, 1>, with_value = false} : (tensor<?x3xf32>, tensor<?x3xf32>) -> (tensor<?x3xf32>, tensor<?x3xf32>)
  return %gx, %gy : tensor<?x3xf32>, tensor<?x3xf32>
}
